#!/usr/bin/python3
"""Shared helpers for the aws.so integration tests: run inside the
loopback-only namespace, start the EC2 fixture (tests/fixtures/aws), write
configs, run the CLI with a clean AWS environment (no ~/.aws, IMDS off)."""
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
from harness import ensure_hermetic, Results, clean_env, run_config  # noqa: E402,F401
FIXTURE = os.path.join(SRC, 'tests/fixtures/aws/aws_fixture.py')
INSTANCES = os.path.join(HERE, 'instances.json')
AKID = 'AKIAFIXTURE0EXAMPLE1'
SECRET = 'fixtureSecretKey/0123456789+abcdefghijKLMN'
PYENV_PYTHON = os.environ.get('CR_PYENV_PYTHON', '/root/.pyenv/versions/3.11.7/bin/python3')




def need_cli():
    if not os.environ.get('CR_CLI') or not os.path.exists(os.environ['CR_CLI']):
        print('SKIP: CR_CLI is not set (run through ctest)')
        sys.exit(77)


class Fixture:
    """One EC2 fixture in its own temporary directory."""

    def __init__(self, instances=INSTANCES, extra=()):
        self.dir = tempfile.mkdtemp(prefix='cr-aws-')
        self.control = os.path.join(self.dir, 'control.json')
        self.mtime = 1_000_000_000
        self.set_control({})
        args = [FIXTURE, '--dir', self.dir, '--key', '%s:%s' % (AKID, SECRET),
                '--control', self.control] + list(extra)
        if instances:
            args += ['--instances', instances]
        self.log = open(os.path.join(self.dir, 'fixture.log'), 'w')
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        port_file = os.path.join(self.dir, 'port')
        for _ in range(600):
            if os.path.exists(port_file):
                break
            if self.proc.poll() is not None:
                raise RuntimeError('fixture exited: see %s/fixture.log' % self.dir)
            time.sleep(0.05)
        with open(port_file) as f:
            self.port = int(f.read())
        self.url = 'https://127.0.0.1:%d' % self.port
        self.ca = os.path.join(self.dir, 'ca.crt')
        self.home = os.path.join(self.dir, 'home')
        os.makedirs(self.home)

    def set_control(self, control):
        with open(self.control, 'w') as f:
            json.dump(control, f)
        self.mtime += 1
        os.utime(self.control, ns=(self.mtime, self.mtime))

    def set_faults(self, faults, **more):
        self.set_control(dict(faults=faults, **more))

    def requests(self):
        path = os.path.join(self.dir, 'requests.jsonl')
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return [json.loads(line) for line in f]

    def clear_requests(self):
        open(os.path.join(self.dir, 'requests.jsonl'), 'w').close()

    def subst(self, text):
        return (text.replace('@PORT@', str(self.port)).replace('@DIR@', self.dir)
                .replace('@URL@', self.url).replace('@CA@', self.ca))

    def stop(self, keep=False):
        self.proc.terminate()
        self.proc.wait()
        self.log.close()
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def aws_env(fx, extra=None):
    """A clean environment: the fixture's key in AWS_*, no files, no IMDS."""
    return clean_env(fx.home, {'AWS_ACCESS_KEY_ID': AKID, 'AWS_SECRET_ACCESS_KEY': SECRET,
                               'AWS_EC2_METADATA_DISABLED': 'true',
                               'AWS_CONFIG_FILE': os.path.join(fx.dir, 'no-config'),
                               'AWS_SHARED_CREDENTIALS_FILE':
                                   os.path.join(fx.dir, 'no-credentials')},
                     extra, fx.subst)


def run_cli(fx, conf_text, args, env_extra=None, timeout=60):
    p = run_config(fx.dir, fx.subst(conf_text), args, aws_env(fx, env_extra), timeout)
    return p.returncode, p.stdout, p.stderr