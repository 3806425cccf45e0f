#!/usr/bin/python3
"""Shared helpers for the AWS credential tests: the loopback-only namespace,
the EC2/STS fixture over HTTPS (aws_fixture.py + aws_sts.py), the IMDS and
container fixture (aws_meta_fixture.py), the test's ~/.aws files, and a
clean environment for the real clients (aws CLI v1, v2, botocore) and
cluster-resolver."""
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
from harness import ensure_hermetic, Results  # noqa: E402,F401
FIXTURES = os.path.join(SRC, 'tests/fixtures/aws')
ACCOUNT = '123456789012'
# The fixture's long-term keys (IAM users), as AWS's documentation writes them.
USER_AKID = 'AKIAIOSFODNN7EXAMPLE'
USER_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
USER_ARN = 'arn:aws:iam::%s:user/trainer' % ACCOUNT
OTHER_AKID = 'AKIAI44QH8DHBEXAMPLE'
OTHER_SECRET = 'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY'
OTHER_ARN = 'arn:aws:iam::%s:user/ops' % ACCOUNT
# What the instance profile (IMDS) and the ECS task role hand out.
IMDS_AKID = 'ASIAIMDSROLEEXAMPLE1'
IMDS_SECRET = 'imdsSecretKeyEXAMPLE/aZ0b9Y8x7W6v5U4t3S2r'
IMDS_TOKEN = 'IQoJb3JpZ2luX2VjEImdsSessionTokenEXAMPLE//////////wEaCXVzLXdlc3QtMiJHMEUCIQ=='
ECS_AKID = 'ASIAECSTASKEXAMPLE01'
ECS_SECRET = 'ecsSecretKeyEXAMPLE/Qq1Ww2Ee3Rr4Tt5Yy6Uu7Ii'
ECS_TOKEN = 'IQoJb3JpZ2luX2VjEEcsTaskSessionTokenEXAMPLE//////////wEaCXVzLXdlc3QtMiJGMEQCIA=='
ECS_AUTH = 'ecs-agent-auth-EXAMPLE-5f3c2a'
WEB_TOKEN = ('eyJhbGciOiJSUzI1NiIsImtpZCI6IkVYQU1QTEUifQ.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ'
             '6dHJhaW46d29ya2VyIn0.c2lnbmF0dXJlLWV4YW1wbGU')
SECRETS = [USER_SECRET, OTHER_SECRET, IMDS_SECRET, IMDS_TOKEN, ECS_SECRET, ECS_TOKEN, ECS_AUTH,
           WEB_TOKEN]
EXPIRY = '2099-01-01T00:00:00Z'




def _wait_port(proc, d, log):
    port_file = os.path.join(d, 'port')
    for _ in range(600):
        if os.path.exists(port_file):
            with open(port_file) as f:
                return int(f.read())
        if proc.poll() is not None:
            raise RuntimeError('fixture exited: see %s' % log)
        time.sleep(0.05)
    raise RuntimeError('fixture did not start: see %s' % log)


class Fixtures:
    """The EC2+STS fixture and the IMDS+container fixture in one temp dir."""

    def __init__(self, instances=None, meta=None):
        self.dir = tempfile.mkdtemp(prefix='cr-aws-creds-')
        self.home = os.path.join(self.dir, 'home')
        os.makedirs(os.path.join(self.home, '.aws'))
        self.ec2_dir = os.path.join(self.dir, 'ec2')
        self.meta_dir = os.path.join(self.dir, 'meta')
        os.makedirs(self.ec2_dir)
        os.makedirs(self.meta_dir)
        self.procs = []
        inst = os.path.join(self.dir, 'instances.json')
        with open(inst, 'w') as f:
            json.dump(instances or default_instances(), f)
        self.control = os.path.join(self.dir, 'ec2-control.json')
        self.meta_control = os.path.join(self.dir, 'meta-control.json')
        self.ec2_port = self._start(
            self.ec2_dir,
            [os.path.join(FIXTURES, 'aws_fixture.py'), '--dir', self.ec2_dir,
             '--instances', inst, '--control', self.control,
             '--key', '%s:%s' % (USER_AKID, USER_SECRET),
             '--key', '%s:%s' % (OTHER_AKID, OTHER_SECRET),
             '--key', '%s:%s:%s' % (IMDS_AKID, IMDS_SECRET, IMDS_TOKEN),
             '--key', '%s:%s:%s' % (ECS_AKID, ECS_SECRET, ECS_TOKEN),
             '--identity', '%s=%s' % (USER_AKID, USER_ARN),
             '--identity', '%s=%s' % (OTHER_AKID, OTHER_ARN),
             '--identity', '%s=arn:aws:sts::%s:assumed-role/worker-role/i-0123456789abcdef0'
             % (IMDS_AKID, ACCOUNT),
             '--identity', '%s=arn:aws:sts::%s:assumed-role/ecs-task-role/9f1e2d3c'
             % (ECS_AKID, ACCOUNT),
             '--web-identity-token', '%s=system:serviceaccount:train:worker' % WEB_TOKEN])
        cfg = dict(meta_config(), **(meta or {}))
        cfg_path = os.path.join(self.dir, 'meta.json')
        with open(cfg_path, 'w') as f:
            json.dump(cfg, f)
        self.meta_port = self._start(
            self.meta_dir, [os.path.join(FIXTURES, 'aws_meta_fixture.py'), '--dir',
                            self.meta_dir, '--config', cfg_path, '--control', self.meta_control])
        self.ca = os.path.join(self.ec2_dir, 'ca.crt')
        self.endpoint = 'https://127.0.0.1:%d' % self.ec2_port
        self.imds = 'http://127.0.0.1:%d/' % self.meta_port
        self.container_uri = 'http://127.0.0.1:%d%s' % (self.meta_port, cfg['container_path'])
        self.mtime = 1_000_000_000

    def _start(self, d, args):
        log = os.path.join(d, 'fixture.log')
        f = open(log, 'w')
        p = subprocess.Popen(['/usr/bin/python3'] + args, stdout=f, stderr=subprocess.STDOUT)
        self.procs.append((p, f))
        return _wait_port(p, d, log)

    def set_meta_control(self, control):
        with open(self.meta_control, 'w') as f:
            json.dump(control, f)
        self.mtime += 1
        os.utime(self.meta_control, ns=(self.mtime, self.mtime))

    def write(self, name, text, mode=0o600):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text.replace('@DIR@', self.dir).replace('@EP@', self.endpoint))
        os.chmod(path, mode)
        return path

    def requests(self, which='ec2'):
        path = os.path.join(self.ec2_dir if which == 'ec2' else self.meta_dir, 'requests.jsonl')
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return [json.loads(line) for line in f]

    def truncate_logs(self):
        for d in (self.ec2_dir, self.meta_dir):
            path = os.path.join(d, 'requests.jsonl')
            if os.path.exists(path):
                os.truncate(path, 0)

    def stop(self, keep=False):
        for p, f in self.procs:
            p.terminate()
            p.wait()
            f.close()
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def meta_config():
    return {
        'instance_id': 'i-0123456789abcdef0', 'region': 'us-west-2',
        'availability_zone': 'us-west-2b', 'local_ipv4': '10.0.1.17',
        'role': 'worker-role',
        'role_creds': {'AccessKeyId': IMDS_AKID, 'SecretAccessKey': IMDS_SECRET,
                       'Token': IMDS_TOKEN, 'Expiration': EXPIRY},
        'container_path': '/v2/credentials/9f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b',
        'container_authorization': ECS_AUTH,
        'container_creds': {'AccessKeyId': ECS_AKID, 'SecretAccessKey': ECS_SECRET,
                            'Token': ECS_TOKEN, 'Expiration': EXPIRY,
                            'RoleArn': 'arn:aws:iam::%s:role/ecs-task-role' % ACCOUNT},
    }


def default_instances():
    out = []
    for i in range(3):
        out.append({'id': 'i-0a1b2c3d4e5f6a7b%d' % i, 'private_ip': '10.0.1.%d' % (10 + i),
                    'state': 'running', 'reservation': 'r-0123456789abcdef0',
                    'tags': {'role': 'worker', 'Name': 'worker-%d' % i}})
    return out


def clean_env(fx, extra=None):
    """No credentials, no AWS settings but the test's; HOME in the temp dir;
    every AWS endpoint on 127.0.0.1 (IMDS included, so no client ever tries
    169.254.169.254 even by mistake)."""
    return harness.clean_env(
        fx.home, {'AWS_CA_BUNDLE': fx.ca, 'AWS_ENDPOINT_URL': fx.endpoint,
                  'AWS_REGION': 'us-west-2', 'AWS_EC2_METADATA_SERVICE_ENDPOINT': fx.imds,
                  'AWS_CONFIG_FILE': os.path.join(fx.home, '.aws/config'),
                  'AWS_SHARED_CREDENTIALS_FILE': os.path.join(fx.home, '.aws/credentials'),
                  'AWS_PAGER': '', 'AWS_CLI_AUTO_PROMPT': 'off'},
        extra, lambda v: v.replace('@DIR@', fx.dir), lang='C.UTF-8',
        keep=('PYENV_ROOT', 'PYENV_VERSION'))


def run(cmd, env, timeout=120, cwd=None):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout, p.stderr

