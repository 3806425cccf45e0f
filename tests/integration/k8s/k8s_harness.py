#!/usr/bin/python3
"""Shared helpers for the k8s integration tests: run inside the loopback-only
namespace, start the fixture API server, write configs, run the CLI."""
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
from harness import (ensure_hermetic, need, plugin_file, Results, clean_env,  # noqa: E402,F401
                     run_config, time_scale)
FIXTURE = os.path.join(SRC, 'tests/fixtures/k8s/k8s_fixture.py')
TOKEN = 'fixture-token-0123456789'








class Fixture:
    """One fixture API server in its own temporary directory."""

    def __init__(self, pods=None, extra=(), watch=False):
        self.dir = tempfile.mkdtemp(prefix='cr-k8s-')
        self.watch_control = os.path.join(self.dir, 'watch.jsonl')
        if watch:  # the watch timeline (k8s_fixture.py --watch-control)
            open(self.watch_control, 'w').close()
            extra = list(extra) + ['--watch-control', self.watch_control]
        self.control = os.path.join(self.dir, 'control.json')
        self.tokens = os.path.join(self.dir, 'accepted-tokens')
        self.mtime = 1_000_000_000
        self.set_faults([])
        self.set_tokens([])
        args = [FIXTURE, '--dir', self.dir, '--token', TOKEN, '--token-file', self.tokens,
                '--control', self.control, '--namespace', 'train'] + list(extra)
        if pods:
            args += ['--pods', pods]
        self.log = open(os.path.join(self.dir, 'fixture.log'), 'w')
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        port_file = os.path.join(self.dir, 'port')
        for _ in range(300):
            if os.path.exists(port_file):
                break
            if self.proc.poll() is not None:
                raise RuntimeError('fixture exited: see %s/fixture.log' % self.dir)
            time.sleep(0.05)
        with open(port_file) as f:
            self.port = int(f.read())
        self.kubeconfig = os.path.join(self.dir, 'kubeconfig')
        self.home = os.path.join(self.dir, 'home')
        os.makedirs(self.home)

    def set_faults(self, faults):
        with open(self.control, 'w') as f:
            json.dump({'faults': faults}, f)
        self.mtime += 1
        os.utime(self.control, ns=(self.mtime, self.mtime))

    def op(self, **op):
        """Append one operation to the watch timeline."""
        with open(self.watch_control, 'a') as f:
            f.write(json.dumps(op) + '\n')

    def set_tokens(self, tokens):
        with open(self.tokens, 'w') as f:
            f.write(''.join(t + '\n' for t in tokens))

    def requests(self):
        with open(os.path.join(self.dir, 'requests.jsonl')) as f:
            return [json.loads(line) for line in f]

    def subst(self, text):
        return text.replace('@PORT@', str(self.port)).replace('@DIR@', self.dir).replace(
            '@PLUGIN@', plugin_file('k8s'))

    def stop(self, keep=False):
        self.proc.terminate()
        self.proc.wait()
        self.log.close()
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def base_env(fx, extra=None):
    """A clean environment: no identity, no kubeconfig, no in-cluster vars."""
    return clean_env(fx.home, extra=extra, subst=fx.subst)


def run_cli(fx, conf_text, args, env_extra=None, timeout=60):
    p = run_config(fx.dir, fx.subst(conf_text), args, base_env(fx, env_extra), timeout)
    return p.returncode, p.stdout, p.stderr