#!/usr/bin/python3
"""Shared helpers of the gce integration tests: run inside the loopback-only
namespace, start the GCP fixture (tests/fixtures/gcp) on a scenario, write
configs, run the CLI and the real clients."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('CR_TEST_SOURCE_DIR', os.path.normpath(os.path.join(HERE, '../../..')))
sys.path.insert(0, os.path.join(SRC, 'tests/common'))
import harness  # noqa: E402
from harness import ensure_hermetic, need, plugin_file, write, Results, clean_env, run_config  # noqa: E402,F401
FIXTURE = os.path.join(SRC, 'tests/fixtures/gcp/gcp_fixture.py')
STATIC_TOKEN = 'ya29.static-file-token-5f1c'
# CR_GCE_VALGRIND=1: the CLI runs under valgrind memcheck; an error or a
# definite leak makes it exit 99 (never an expected status).
VALGRIND = list(harness.VALGRIND) if os.environ.get('CR_GCE_VALGRIND') == '1' else []










class Fixture:
    """One gcp_fixture.py process in its own temporary directory, plus a fake
    root whose DMI product_name says Google (the `root` option)."""

    def __init__(self, scenario, prepare=None):
        self.dir = tempfile.mkdtemp(prefix='cr-gce-')
        self.control = os.path.join(self.dir, 'control.json')
        self.mtime = 1_000_000_000
        self.set_faults([])
        self.root = os.path.join(self.dir, 'root')
        os.makedirs(os.path.join(self.root, 'sys/class/dmi/id'))
        write(os.path.join(self.root, 'sys/class/dmi/id/product_name'), 'Google Compute Engine\n')
        self.offroot = os.path.join(self.dir, 'offroot')
        os.makedirs(os.path.join(self.offroot, 'sys/class/dmi/id'))
        write(os.path.join(self.offroot, 'sys/class/dmi/id/product_name'), 'Standard PC (Q35)\n')
        self.home = os.path.join(self.dir, 'home')
        os.makedirs(self.home)
        if prepare:
            scenario = prepare(self, scenario)
        path = os.path.join(self.dir, 'scenario.json')
        with open(path, 'w') as f:
            json.dump(scenario, f)
        self.log = open(os.path.join(self.dir, 'fixture.log'), 'w')
        self.proc = subprocess.Popen(['/usr/bin/python3', FIXTURE, '--dir', self.dir,
                                      '--scenario', path, '--control', self.control],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(600):
            if os.path.exists(os.path.join(self.dir, 'silent.port')):
                break
            if self.proc.poll() is not None:
                raise RuntimeError('fixture exited: see %s/fixture.log' % self.dir)
            time.sleep(0.05)
        self.api = int(open(os.path.join(self.dir, 'api.port')).read())
        self.meta = int(open(os.path.join(self.dir, 'metadata.port')).read())
        self.silent = int(open(os.path.join(self.dir, 'silent.port')).read())
        self.ca = os.path.join(self.dir, 'ca.crt')
        write(os.path.join(self.dir, 'token'), STATIC_TOKEN + '\n', 0o600)

    def set_faults(self, faults):
        with open(self.control, 'w') as f:
            json.dump({'faults': faults}, f)
        self.mtime += 1
        os.utime(self.control, ns=(self.mtime, self.mtime))

    def requests(self):
        p = os.path.join(self.dir, 'requests.jsonl')
        if not os.path.exists(p):
            return []
        with open(p) as f:
            return [json.loads(line) for line in f]

    def subst(self, text):
        for k, v in (('@API@', str(self.api)), ('@META@', str(self.meta)),
                     ('@SILENT@', str(self.silent)), ('@DIR@', self.dir),
                     ('@ROOT@', self.root), ('@OFFROOT@', self.offroot),
                     ('@PLUGIN@', plugin_file('gce'))):
            text = text.replace(k, v)
        return text

    def stop(self, keep=False):
        self.proc.terminate()
        self.proc.wait()
        self.log.close()
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def base_env(fx, extra=None):
    """A clean environment: HOME in the fixture dir, metadata on the fixture."""
    fixed = {'GCE_METADATA_HOST': '127.0.0.1:%d' % fx.meta}
    if VALGRIND:
        fixed['CLUSTER_RESOLVER_NO_DLCLOSE'] = '1'
    return clean_env(fx.home, fixed, extra, fx.subst)


def run_cli(fx, conf_text, args, env_extra=None, timeout=60):
    t0 = time.monotonic()
    p = run_config(fx.dir, fx.subst(conf_text), args, base_env(fx, env_extra), timeout,
                   VALGRIND)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0