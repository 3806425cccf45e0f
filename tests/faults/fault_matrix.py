#!/usr/bin/python3
"""fault_matrix.py - one HTTP fault matrix for every HTTP backend (issue #11).

The cases are data (cases.py): for each fault, what every backend must do
(exit status, the one line on stderr, nothing on stdout, wall time within a
generous bound that only catches a hang, and for the Retry-After cases a
lower bound proving the wait). This driver starts each backend's
wire-faithful fixture once (tests/fixtures/k8s, tests/fixtures/gcp for gce
and tpu, tests/fixtures/aws), sets each fault through the fixture's control
file, and runs `cluster-resolver resolve` with short timeouts from the
plugin's own options. Faults a fixture cannot express are served by the
driver itself on 127.0.0.1: a silent server (accepts, never answers), and a
TLS server whose certificate is from another CA (wrong CA) or names another
host (wrong host name).

Runs under scripts/hermetic.sh (loopback only). FAULTS_ONLY=backend[,..]
limits the backends; FAULTS_SHOW=1 prints what each case got.
"""
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('CR_TEST_SOURCE_DIR', os.path.normpath(os.path.join(HERE, '../..')))
sys.path.insert(0, os.path.join(SRC, 'tests/common'))
sys.path.insert(0, os.path.join(SRC, 'tests/fixtures/common'))
sys.path.insert(0, HERE)
from harness import (ensure_hermetic, need, write, clean_env, Results,  # noqa: E402
                     valgrind_prefix, valgrind_problems)
import testca  # noqa: E402
from cases import SCALE, CONNECT_TIMEOUT, REQUEST_TIMEOUT, LIST_TIMEOUT  # noqa: E402

K8S_TOKEN = 'fixture-token-0123456789'
GCP_TOKEN = 'ya29.fault-matrix-static-token'
AKID = 'AKIAFIXTURE0EXAMPLE1'
SECRET = 'fixtureSecretKey/0123456789+abcdefghijKLMN'
# CR_FAULTS_VALGRIND=N: the valgrind pass (normal build): every Nth case of
# the matrix, the CLI under memcheck (an error or a definite leak exits 99).
EVERY = int(os.environ.get('CR_FAULTS_VALGRIND', '0'))
# Sanitizer and valgrind builds run slower: the hang bounds stretch, as do
# the timeouts the backends get (cases.py, harness.time_scale).
SLOW = SCALE


def wait_files(proc, paths, what):
    for _ in range(600):
        if all(os.path.exists(p) for p in paths):
            return
        if proc.poll() is not None:
            raise RuntimeError('%s fixture exited' % what)
        time.sleep(0.05)
    raise RuntimeError('%s fixture did not start' % what)


class Impostors:
    """What no fixture serves: a silent port, and TLS servers with a
    certificate from a foreign CA or for another host name."""

    def __init__(self, d):
        self.dir = d
        self.threads = []
        self.socks = []
        self.silent = self.listen()
        foreign = os.path.join(d, 'foreign')
        os.makedirs(foreign)
        testca.make_certs(foreign)
        self.foreign_ca = os.path.join(foreign, 'ca.crt')
        self.foreign = self.tls(foreign)
        other = os.path.join(d, 'othername')
        os.makedirs(other)
        testca.make_certs(other, server_san='DNS:api.fixture.invalid')
        self.othername_ca = os.path.join(other, 'ca.crt')
        self.othername = self.tls(other)

    def listen(self):
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        s.listen(64)
        self.socks.append(s)
        return s.getsockname()[1]

    def tls(self, d):
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        s.listen(64)
        self.socks.append(s)
        ctx = testca.server_context(d)

        def serve():
            while True:
                try:
                    c, _ = s.accept()
                except OSError:
                    return
                try:
                    c.settimeout(5)
                    t = ctx.wrap_socket(c, server_side=True)
                    t.recv(1)
                    t.close()
                except (OSError, ssl.SSLError):
                    pass
                c.close()
        t = threading.Thread(target=serve, daemon=True)
        t.start()
        return s.getsockname()[1]

    def close(self):
        for s in self.socks:
            s.close()


class Backend:
    """A fixture process and how a case reaches it."""
    name = None
    control = None

    def set_faults(self, faults, **more):
        with open(self.control, 'w') as f:
            json.dump(dict(faults=faults, **more), f)
        self.mtime += 1
        os.utime(self.control, ns=(self.mtime, self.mtime))

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self.log.close()

    def env(self):
        return clean_env(self.home)


class K8s(Backend):
    name = 'k8s'

    def __init__(self, d):
        self.dir = os.path.join(d, 'k8s')
        os.makedirs(self.dir)
        self.home = self.dir
        self.control = os.path.join(self.dir, 'control.json')
        self.mtime = 1_000_000_000
        self.set_faults([])
        self.log = open(os.path.join(self.dir, 'fixture.log'), 'w')
        self.proc = subprocess.Popen(
            ['/usr/bin/python3', os.path.join(SRC, 'tests/fixtures/k8s/k8s_fixture.py'),
             '--dir', self.dir, '--token', K8S_TOKEN, '--control', self.control,
             '--generate', 'worker=6:train', '--namespace', 'train'],
            stdout=self.log, stderr=subprocess.STDOUT)
        wait_files(self.proc, [os.path.join(self.dir, 'port')], 'k8s')
        self.port = int(open(os.path.join(self.dir, 'port')).read())
        self.ca = os.path.join(self.dir, 'ca.crt')

    def url(self, port):
        return 'https://127.0.0.1:%d' % port

    def conf(self, port, ca, token=K8S_TOKEN, timeout=REQUEST_TIMEOUT):
        kc = os.path.join(self.dir, 'kc-%d-%s' % (port, os.path.basename(os.path.dirname(ca))))
        write(kc, 'apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n'
              '- name: f\n  cluster:\n    server: https://127.0.0.1:%d\n'
              '    certificate-authority: %s\n'
              'contexts:\n- name: c\n  context:\n    cluster: f\n    user: u\n'
              '    namespace: train\nusers:\n- name: u\n  user:\n    token: %s\n'
              % (port, ca, token), 0o600)
        return ('resolvers = ( { plugin = "k8s"; policy = "required"; kubeconfig = "%s"; '
                'jobs = { worker = [ "job-name=worker" ]; }; page_size = 2; '
                'connect_timeout = %s; request_timeout = %s; retries = 1; '
                'max_retry_wait = 3; list_timeout = %s; } );\naccelerators = ( );\n'
                % (kc, CONNECT_TIMEOUT, timeout, LIST_TIMEOUT))


class Gcp(Backend):
    """One gcp_fixture.py serving both gce and tpu."""

    def __init__(self, d):
        sys.path.insert(0, os.path.join(SRC, 'tests/integration/gce'))
        sys.path.insert(0, os.path.join(SRC, 'tests/fixtures/gcp'))
        import gce_scenario
        import gcp_tpu  # noqa: F401
        self.dir = os.path.join(d, 'gcp')
        os.makedirs(self.dir)
        self.home = self.dir
        self.control = os.path.join(self.dir, 'control.json')
        self.mtime = 1_000_000_000
        self.set_faults([])
        scen = gce_scenario.scenario()
        scen.setdefault('tokens', {}).setdefault('static', []).append(GCP_TOKEN)
        scen['tpu'] = {'project': 'tpu-proj', 'zone': 'us-central2-b',
                       'nodes': [{'name': 'ready', 'type': 'v4-32'}]}
        path = os.path.join(self.dir, 'scenario.json')
        with open(path, 'w') as f:
            json.dump(scen, f)
        self.root = os.path.join(self.dir, 'root')
        os.makedirs(os.path.join(self.root, 'sys/class/dmi/id'))
        write(os.path.join(self.root, 'sys/class/dmi/id/product_name'),
              'Google Compute Engine\n')
        self.laptop = os.path.join(self.dir, 'laptop')
        os.makedirs(self.laptop)
        self.token = os.path.join(self.dir, 'token')
        write(self.token, GCP_TOKEN + '\n', 0o600)
        self.log = open(os.path.join(self.dir, 'fixture.log'), 'w')
        self.proc = subprocess.Popen(
            ['/usr/bin/python3', os.path.join(SRC, 'tests/fixtures/gcp/gcp_fixture.py'),
             '--dir', self.dir, '--scenario', path, '--control', self.control],
            stdout=self.log, stderr=subprocess.STDOUT)
        wait_files(self.proc, [os.path.join(self.dir, 'silent.port')], 'gcp')
        self.port = int(open(os.path.join(self.dir, 'api.port')).read())
        self.meta = int(open(os.path.join(self.dir, 'metadata.port')).read())
        self.ca = os.path.join(self.dir, 'ca.crt')


class Gce(Backend):
    name = 'gce'

    def __init__(self, gcp):
        self.gcp = gcp
        self.port, self.ca, self.home = gcp.port, gcp.ca, gcp.home

    def set_faults(self, faults, **more):
        self.gcp.set_faults(faults, **more)

    def stop(self):
        pass

    def url(self, port):
        return 'https://127.0.0.1:%d/compute/v1/' % port

    def creds(self, token):
        """access_token_file, or none: the metadata server's token."""
        return '' if token == 'metadata' else 'access_token_file = "%s"; ' % self.gcp.token

    def conf(self, port, ca, token=None, timeout=REQUEST_TIMEOUT, list_timeout=None):
        g = self.gcp
        return ('resolvers = ( { plugin = "gce"; policy = "required"; %s'
                'instance_group = "trainers"; port = 2222; %s'
                'root = "%s"; metadata_host = "127.0.0.1:%d"; ca_file = "%s"; '
                'compute_endpoint = "%s"; page_size = 5; retries = 1; max_retry_wait = 3; '
                'request_timeout = %s; } );\naccelerators = ( );\n'
                % (lt(list_timeout), self.creds(token), g.root, g.meta, ca, self.url(port),
                   timeout))


class Tpu(Gce):
    name = 'tpu'

    def url(self, port):
        return 'https://127.0.0.1:%d/' % port

    def conf(self, port, ca, token=None, timeout=REQUEST_TIMEOUT):
        g = self.gcp
        return ('resolvers = ( { plugin = "tpu"; policy = "required"; tpu = "ready"; '
                'project = "tpu-proj"; zone = "us-central2-b"; %s'
                'root = "%s"; metadata_host = "127.0.0.1:%d"; ca_file = "%s"; '
                'tpu_endpoint = "%s"; retries = 1; max_retry_wait = 3; '
                'request_timeout = %s; } );\naccelerators = ( );\n'
                % (self.creds(token), g.root if token == 'metadata' else g.laptop, g.meta, ca,
                   self.url(port), timeout))


class Aws(Backend):
    name = 'aws'

    def __init__(self, d):
        self.dir = os.path.join(d, 'aws')
        os.makedirs(self.dir)
        self.home = self.dir
        self.control = os.path.join(self.dir, 'control.json')
        self.mtime = 1_000_000_000
        self.set_faults([])
        self.log = open(os.path.join(self.dir, 'fixture.log'), 'w')
        self.proc = subprocess.Popen(
            ['/usr/bin/python3', os.path.join(SRC, 'tests/fixtures/aws/aws_fixture.py'),
             '--dir', self.dir, '--key', '%s:%s' % (AKID, SECRET), '--control', self.control,
             '--generate', '12:worker'], stdout=self.log, stderr=subprocess.STDOUT)
        wait_files(self.proc, [os.path.join(self.dir, 'port')], 'aws')
        self.port = int(open(os.path.join(self.dir, 'port')).read())
        self.ca = os.path.join(self.dir, 'ca.crt')

    def url(self, port):
        return 'https://127.0.0.1:%d' % port

    def env(self):
        return clean_env(self.home, {
            'AWS_ACCESS_KEY_ID': AKID, 'AWS_SECRET_ACCESS_KEY': SECRET,
            'AWS_EC2_METADATA_DISABLED': 'true',
            'AWS_CONFIG_FILE': os.path.join(self.dir, 'no-config'),
            'AWS_SHARED_CREDENTIALS_FILE': os.path.join(self.dir, 'no-credentials')})

    def conf(self, port, ca, token=None, timeout=REQUEST_TIMEOUT, list_timeout=None):
        return ('resolvers = ( { plugin = "aws"; policy = "required"; port = 2222; %s'
                'region = "us-east-1"; endpoint = "%s"; ca_file = "%s"; page_size = 5; '
                'jobs = { worker = ( { name = "tag:role"; values = [ "worker" ]; } ); }; '
                'retries = 1; connect_timeout = %s; request_timeout = %s; } );\n'
                'accelerators = ( );\n' % (lt(list_timeout), self.url(port), ca, CONNECT_TIMEOUT,
                                            timeout))


def lt(list_timeout):
    """The list_timeout option, when a case sets one."""
    return 'list_timeout = %s; ' % list_timeout if list_timeout else ''


def pattern(msg, port):
    """The case's line as a regular expression: literal but for @URL@ and @N@."""
    text = re.escape(msg.replace('@URL@', 'https://127.0.0.1:%d' % port))
    return '^' + text.replace('@N@', '[0-9]+') + '$'


def run_case(be, imp, case, spec, workdir):
    """Run one backend x fault; a list of problems (empty: passed)."""
    port, ca = be.port, be.ca
    target = spec.get('target', case.get('target'))
    if target == 'silent':
        port = imp.silent
    elif target == 'foreign_ca':
        port = imp.foreign
    elif target == 'other_name':
        port, ca = imp.othername, imp.othername_ca
    faults = spec.get('faults', case.get('faults', []))
    if callable(faults):
        faults = faults()
    be.set_faults(faults, **spec.get('control', {}))
    conf = os.path.join(workdir, '%s-%s.conf' % (be.name, case['name']))
    kw = dict(timeout=case['request_timeout'] * SCALE if 'request_timeout' in case
              else REQUEST_TIMEOUT)
    if spec.get('token'):
        kw['token'] = spec['token']
    if case.get('list_timeout'):
        kw['list_timeout'] = case['list_timeout']
    write(conf, be.conf(port, ca, **kw))
    vlog = os.path.join(workdir, '%s-%s.valgrind' % (be.name, case['name']))
    cmd = valgrind_prefix(vlog) if EVERY else []
    t0 = time.monotonic()
    try:
        env = dict(be.env(), **spec.get('env', {}))
        p = subprocess.run(cmd + [os.environ['CR_CLI'], '--config', conf, 'resolve'], env=env,
                           capture_output=True, text=True, timeout=60 * SLOW)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = 'hang', '', ''
    took = time.monotonic() - t0
    be.set_faults([])
    if os.environ.get('FAULTS_SHOW') == '1':
        print('# %s/%s rc=%s %.2fs out=%r\n#   %s' % (be.name, case['name'], rc, took, out,
                                                    err.rstrip('\n').replace('\n', '\n#   ')))
    problems = valgrind_problems(rc, vlog) if EVERY else []
    want_rc = spec.get('rc', 1)
    if rc != want_rc:
        problems.append('exit %s, want %s' % (rc, want_rc))
    if out != '':
        problems.append('stdout not empty: %r' % out)
    lines = err.splitlines()
    want = pattern(spec['msg'], port)
    if len(lines) != 1 or not re.match(want, lines[0]):
        problems.append('stderr %r does not match %r' % (err, want))
    bound = spec.get('bound', case.get('bound', 10)) * SLOW
    if took > bound:
        problems.append('took %.2f s, bound %.1f s' % (took, bound))
    least = spec['least'] if 'least' in spec else case.get('least')
    if least is not None and took < least:
        problems.append('took %.2f s, less than the %.1f s it must wait' % (took, least))
    return problems


def main():
    ensure_hermetic()
    need('CR_CLI')
    import cases
    only = [b for b in os.environ.get('FAULTS_ONLY', '').split(',') if b]
    d = tempfile.mkdtemp(prefix='cr-faults-')
    res = Results()
    started = []
    try:
        imp = Impostors(d)
        gcp = None
        backends = []
        for name in ('k8s', 'gce', 'tpu', 'aws'):
            if only and name not in only:
                continue
            if name == 'k8s':
                backends.append(K8s(d))
            elif name in ('gce', 'tpu'):
                if gcp is None:
                    gcp = Gcp(d)
                    started.append(gcp)
                backends.append(Gce(gcp) if name == 'gce' else Tpu(gcp))
            else:
                backends.append(Aws(d))
            started.append(backends[-1])
        counts = {}
        n = 0
        for case in cases.CASES:
            for be in backends:
                spec = case.get(be.name)
                if spec is None:
                    continue
                if isinstance(spec, str):   # not applicable: the reason
                    print('# %s/%s: not applicable: %s' % (be.name, case['name'], spec))
                    continue
                n += 1
                if EVERY and (n % EVERY or case.get('valgrind') is False):
                    continue
                counts[be.name] = counts.get(be.name, 0) + 1
                problems = run_case(be, imp, case, spec, d)
                res.check('%s/%s' % (be.name, case['name']), not problems,
                          '  ' + '\n  '.join(problems))
        print('# faults tried%s: %s' % (' under valgrind' if EVERY else '',
                                        ', '.join('%s %d' % kv for kv in sorted(counts.items()))))
    finally:
        for s in started:
            s.stop()
        if 'imp' in locals():
            imp.close()
        shutil.rmtree(d, ignore_errors=True)
    res.finish()


if __name__ == '__main__':
    main()
