"""rsv_harness.py - the real `cluster-resolver reservation serve` on
127.0.0.1 and N clients (`cluster-resolver resolve` / `exec --supervise` with
reservation.so), for the client tests. Imported by test_client.py and
test_spark_task.py; everything runs in the loopback-only namespace."""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'common'))
import harness  # noqa: E402

harness.ensure_hermetic()
CLI = harness.need('CR_CLI')
SECRET = b'0123456789abcdef-reservation-test-secret'




def free_ports(n):
    """@n distinct ports that are free now (bound, read, released)."""
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


class Server:
    """`reservation serve` with @sizing flags; .address, .info, .stop()."""

    def __init__(self, directory, sizing, extra=(), secret=SECRET, prefix=()):
        self.dir = directory
        self.secret_file = os.path.join(directory, 'server.secret')
        harness.write(self.secret_file, '', 0o600)
        with open(self.secret_file, 'wb') as f:
            f.write(secret)
        self.summary_file = os.path.join(directory, 'summary.json')
        self.log = open(os.path.join(directory, 'server.log'), 'w+')
        cmd = list(prefix) + [CLI, 'reservation', 'serve'] + list(sizing) + [
            '--listen', '127.0.0.1:0', '--advertise', '127.0.0.1', '--secret-file',
            self.secret_file, '--summary', self.summary_file] + list(extra)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log, text=True,
                                     env=harness.clean_env(directory))
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            raise RuntimeError('server did not start: %s' % self.stderr())
        self.info = json.loads(line)
        self.address = self.info['address']

    def stderr(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def wait(self, timeout=60):
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        return rc

    def summary(self):
        with open(self.summary_file) as f:
            return json.load(f)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.log.close()


def conf_text(secret_file, **opts):
    body = ''.join('  %s = %s;\n' % (k, json.dumps(v) if not isinstance(v, bool)
                                     else ('true' if v else 'false'))
                   for k, v in opts.items())
    return ('resolvers = ( { plugin = "reservation";\n  secret_file = "%s";\n%s} );\n'
            % (secret_file, body))


class Client:
    """Files of one client: its secret (0600) and config."""

    def __init__(self, directory, name, secret=SECRET, mode=0o600, **opts):
        self.dir = os.path.join(directory, name)
        os.makedirs(self.dir, exist_ok=True)
        self.secret_file = os.path.join(self.dir, 'secret')
        with open(self.secret_file, 'wb') as f:
            f.write(secret)
        os.chmod(self.secret_file, mode)
        self.conf = os.path.join(self.dir, 'client.conf')
        harness.write(self.conf, conf_text(self.secret_file, **opts))

    def env(self, server, executor_id, extra=None):
        e = harness.clean_env(self.dir)
        if server is not None:
            e['CR_RESERVATION_SERVER'] = server
        if executor_id is not None:
            e['CR_EXECUTOR_ID'] = str(executor_id)
        e.update(extra or {})
        return e

    def start(self, args, server, executor_id, extra=None, prefix=()):
        return subprocess.Popen(list(prefix) + [CLI, '--config', self.conf] + list(args),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env(server, executor_id, extra))


def run_all(procs, timeout=60):
    """(rc, stdout, stderr) of each started client, in order."""
    out = [None] * len(procs)

    def one(i):
        try:
            o, e = procs[i].communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            procs[i].kill()
            o, e = procs[i].communicate()
            e += '\n(killed after %d s)' % timeout
        out[i] = (procs[i].returncode, o, e)
    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(procs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


VALGRIND = harness.VALGRIND


def tmpdir():
    return tempfile.mkdtemp(prefix='cr-rsv-client.')
