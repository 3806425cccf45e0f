#!/usr/bin/python3
"""The credential sources, each proven with the real clients against the
fixtures: aws CLI v1 (pip botocore 1.43), aws CLI v2 (Debian 2.9.19),
boto3 on pip botocore 1.43 and on Debian's botocore 1.29, and
cluster-resolver's aws.so when it is built (CR_CLI and aws.so on
CLUSTER_RESOLVER_PLUGIN_PATH).

Each client lists the instances tagged role=worker (describe-instances
with --page-size 5 / boto3's paginator) with credentials from one source:
environment, shared credentials file, config file profile,
credential_process, web identity (AssumeRoleWithWebIdentity, unsigned),
role_arn + source_profile (AssumeRole, signed), the container endpoint
(Authorization from AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE or
AWS_CONTAINER_AUTHORIZATION_TOKEN) and IMDSv2. The fixture checks every
signature; the test then asserts which key signed the DescribeInstances
request (for AssumeRole*: one the fixture's STS issued for the right role
and session) and what each fixture saw (token PUT with TTL 21600, GETs
with the token, the Authorization header, STS unsigned or signed by the
source key).

Clients left out of a case, and why: CLI v2 2.9 and botocore 1.29 predate
AWS_ENDPOINT_URL_STS (botocore 1.31), so their STS calls for AssumeRole*
would go to sts.amazonaws.com; they predate
AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (botocore 1.33) too.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import creds_harness as h  # noqa: E402

h.ensure_hermetic()

PIP_PY = '/root/.pyenv/versions/3.11.7/bin/python3'
CLIENTS = {
    'cli-v1': ['/root/.pyenv/shims/aws'],
    'cli-v2': ['/usr/bin/aws'],
    'boto3-1.43': [PIP_PY],
    'boto3-1.26': ['/usr/bin/python3'],
}
OLD = ('cli-v2', 'boto3-1.26')
BOTO3 = r'''
import sys, boto3
s = boto3.session.Session()
c = s.client('ec2', endpoint_url=sys.argv[1], region_name='us-west-2')
ips = [i['PrivateIpAddress']
       for page in c.get_paginator('describe_instances').paginate(
           Filters=[{'Name': 'tag:role', 'Values': ['worker']}],
           PaginationConfig={'PageSize': 5})
       for r in page['Reservations'] for i in r['Instances']]
print(s.get_credentials().method)
print(' '.join(ips))
'''
WORKERS = '10.0.1.10 10.0.1.11 10.0.1.12'
CONF = """resolvers = ( {
  plugin = "aws"; policy = "required"; port = 2222; page_size = 5;
  endpoint = "@EP@";
  jobs = { worker = ( { name = "tag:role"; values = [ "worker" ]; } ); };
} );
"""
WANT_JSON = {'worker': ['%s:2222' % ip for ip in WORKERS.split()]}

PROCESS = '''#!/bin/sh
# a credential_process as the AWS docs describe it: JSON Version 1 on stdout
[ "$1" = "--role" ] && [ "$2" = "trainer" ] || { echo "usage: $0 --role trainer" >&2; exit 2; }
cat <<EOF
{"Version": 1, "AccessKeyId": "%s", "SecretAccessKey": "%s",
 "Expiration": "2099-01-01T00:00:00Z"}
EOF
''' % (h.OTHER_AKID, h.OTHER_SECRET)

ROLE = 'arn:aws:iam::%s:role/trainer-role' % h.ACCOUNT
WEB_ROLE = 'arn:aws:iam::%s:role/irsa-worker' % h.ACCOUNT

# name, files {path under the temp dir: text}, env, expected signer, botocore
# method name, clients left out
# A signer is an access key id, or ('sts', ACTION, ROLE ARN, SESSION, CALLER).
CASES = [
    ('env', {}, {'AWS_ACCESS_KEY_ID': h.USER_AKID, 'AWS_SECRET_ACCESS_KEY': h.USER_SECRET},
     h.USER_AKID, 'env', ()),
    ('env-session-token', {}, {'AWS_ACCESS_KEY_ID': h.IMDS_AKID,
                               'AWS_SECRET_ACCESS_KEY': h.IMDS_SECRET,
                               'AWS_SESSION_TOKEN': h.IMDS_TOKEN},
     h.IMDS_AKID, 'env', ()),
    ('shared-credentials-file',
     {'home/.aws/credentials': '# keys of the trainer user\n[default]\n'
      'aws_access_key_id = %s\naws_secret_access_key = %s\n\n[ops]\n'
      'aws_access_key_id=%s\naws_secret_access_key=%s\n'
      % (h.USER_AKID, h.USER_SECRET, h.OTHER_AKID, h.OTHER_SECRET)},
     {}, h.USER_AKID, 'shared-credentials-file', ()),
    ('shared-credentials-file-AWS_PROFILE',
     {'home/.aws/credentials': '[default]\naws_access_key_id = %s\naws_secret_access_key = %s'
      '\n; the ops user\n[ops]\naws_access_key_id=%s\naws_secret_access_key=%s\n'
      % (h.USER_AKID, h.USER_SECRET, h.OTHER_AKID, h.OTHER_SECRET)},
     {'AWS_PROFILE': 'ops'}, h.OTHER_AKID, 'shared-credentials-file', ()),
    ('config-file-profile',
     {'home/.aws/config': '[default]\nregion = us-west-2\n\n[profile trainer]\n'
      'region = us-west-2\noutput = json\ns3 =\n  max_concurrent_requests = 20\n'
      '  signature_version = s3v4\naws_access_key_id = %s\naws_secret_access_key = %s\n'
      % (h.USER_AKID, h.USER_SECRET)},
     {'AWS_PROFILE': 'trainer'}, h.USER_AKID, 'config-file', ()),
    ('credential_process',
     {'home/.aws/config': '[default]\ncredential_process = "@DIR@/bin/get creds" --role '
      'trainer\n', 'bin/get creds': PROCESS},
     {}, h.OTHER_AKID, 'custom-process', ()),
    ('web-identity-env',
     {'token': h.WEB_TOKEN},
     {'AWS_WEB_IDENTITY_TOKEN_FILE': '@DIR@/token', 'AWS_ROLE_ARN': WEB_ROLE,
      'AWS_ROLE_SESSION_NAME': 'worker-0', 'AWS_ENDPOINT_URL_STS': '@EP@'},
     ('sts', 'AssumeRoleWithWebIdentity', WEB_ROLE, 'worker-0', None),
     'assume-role-with-web-identity', OLD),
    ('web-identity-profile',
     {'token': h.WEB_TOKEN, 'home/.aws/config':
      '[profile irsa]\nweb_identity_token_file = @DIR@/token\nrole_arn = %s\n'
      'role_session_name = worker-1\n' % WEB_ROLE},
     {'AWS_PROFILE': 'irsa', 'AWS_ENDPOINT_URL_STS': '@EP@'},
     ('sts', 'AssumeRoleWithWebIdentity', WEB_ROLE, 'worker-1', None),
     'assume-role-with-web-identity', OLD),
    ('assume-role-source-profile',
     {'home/.aws/config': '[profile trainer]\nrole_arn = %s\nsource_profile = base\n'
      'role_session_name = trainer-session\nexternal_id = ext-1234\n' % ROLE,
      'home/.aws/credentials': '[base]\naws_access_key_id = %s\naws_secret_access_key = %s\n'
      % (h.USER_AKID, h.USER_SECRET)},
     {'AWS_PROFILE': 'trainer', 'AWS_ENDPOINT_URL_STS': '@EP@'},
     ('sts', 'AssumeRole', ROLE, 'trainer-session', h.USER_AKID), 'assume-role', OLD),
    ('assume-role-credential-source',
     {'home/.aws/config': '[profile trainer]\nrole_arn = %s\n'
      'credential_source = Ec2InstanceMetadata\nrole_session_name = from-imds\n' % ROLE},
     {'AWS_PROFILE': 'trainer', 'AWS_ENDPOINT_URL_STS': '@EP@'},
     ('sts', 'AssumeRole', ROLE, 'from-imds', h.IMDS_AKID), 'assume-role', OLD),
    ('assume-role-credential-source-ecs',
     {'home/.aws/config': '[profile trainer]\nrole_arn = %s\n'
      'credential_source = EcsContainer\nrole_session_name = from-ecs\n' % ROLE},
     {'AWS_PROFILE': 'trainer', 'AWS_ENDPOINT_URL_STS': '@EP@',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI': '@CONTAINER@',
      'AWS_CONTAINER_AUTHORIZATION_TOKEN': h.ECS_AUTH},
     ('sts', 'AssumeRole', ROLE, 'from-ecs', h.ECS_AKID), 'assume-role', OLD),
    ('container-token-env', {},
     {'AWS_CONTAINER_CREDENTIALS_FULL_URI': '@CONTAINER@',
      'AWS_CONTAINER_AUTHORIZATION_TOKEN': h.ECS_AUTH},
     h.ECS_AKID, 'container-role', ()),
    ('container-token-file', {'pod-identity-token': h.ECS_AUTH},
     {'AWS_CONTAINER_CREDENTIALS_FULL_URI': '@CONTAINER@',
      'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE': '@DIR@/pod-identity-token',
      'AWS_CONTAINER_AUTHORIZATION_TOKEN': 'stale-token-not-used'},
     h.ECS_AKID, 'container-role', OLD),
    ('imds', {}, {}, h.IMDS_AKID, 'iam-role', ()),
]


def client_cmd(name, fx):
    if name == 'cluster-resolver':
        conf = fx.write('aws.conf', CONF)
        return [os.environ['CR_CLI'], '--config', conf, '-vv', 'resolve', '--format', 'json']
    if name.startswith('cli'):
        return CLIENTS[name] + ['ec2', 'describe-instances', '--endpoint-url', fx.endpoint,
                                '--filters', 'Name=tag:role,Values=worker', '--page-size', '5',
                                '--query', 'Reservations[].Instances[].PrivateIpAddress',
                                '--output', 'text']
    return CLIENTS[name] + ['-c', BOTO3, fx.endpoint]


def signer_ok(fx, want, reqs):
    """The DescribeInstances requests were signed as @want says."""
    di = [r for r in reqs if r.get('action') == 'DescribeInstances']
    if not di or not all(r.get('signed') for r in di):
        return False, 'DescribeInstances not all signed: %s' % di
    akids = {r['akid'] for r in di}
    if isinstance(want, str):
        return akids == {want}, 'signed by %s, want %s' % (akids, want)
    _, action, role, session, caller = want
    issued = [r for r in reqs if r.get('sts_issued') == action]
    sts = [r for r in reqs if r.get('action') == action]
    ok = (len(issued) == 1 and issued[0]['role_arn'] == role and
          issued[0]['session'] == session and issued[0]['caller'] == caller and
          akids == {issued[0]['akid']} and len(sts) == 1 and
          sts[0]['signed'] == (caller is not None))
    return ok, 'issued %s, sts %s, DescribeInstances signed by %s' % (issued, sts, akids)


def meta_ok(fx, name, client):
    """What the IMDS / container fixture saw. cluster-resolver also asks IMDS
    for its instance id (its identity), in the same IMDS session: one token
    PUT for the whole run."""
    reqs = fx.requests('meta')
    if client == 'cluster-resolver':
        puts = [r for r in reqs if r['method'] == 'PUT']
        ident = [r for r in reqs if r['path'] == '/latest/meta-data/instance-id']
        if len(puts) != 1 or len(ident) != 1 or not ident[0]['token']:
            return False, 'want one token PUT and one instance-id GET: %s' % reqs
        reqs = [r for r in reqs if r not in ident]
        if not any(r['path'].startswith('/latest/') and r['method'] == 'GET' for r in reqs):
            reqs = [r for r in reqs if r not in puts]
    if name.startswith('container') or name.endswith('-ecs'):
        return (len(reqs) == 1 and reqs[0]['auth'] and reqs[0]['status'] == 200,
                'container requests: %s' % reqs)
    if name in ('imds', 'assume-role-credential-source'):
        put = [r for r in reqs if r['method'] == 'PUT']
        get = [r for r in reqs if r['method'] == 'GET']
        return (len(put) >= 1 and all(r['ttl'] == '21600' and r['status'] == 200
                                      for r in put) and
                [r['path'] for r in get][-2:] == [
                    '/latest/meta-data/iam/security-credentials/',
                    '/latest/meta-data/iam/security-credentials/worker-role'] and
                all(r['token'] for r in get), 'IMDS requests: %s' % reqs)
    return reqs == [], 'metadata fixture contacted: %s' % reqs


def prepare(fx, files):
    for path in ('home/.aws/config', 'home/.aws/credentials'):
        p = os.path.join(fx.dir, path)
        if os.path.exists(p):
            os.unlink(p)
    for path, text in files.items():
        fx.write(path, text, 0o755 if path.startswith('bin/') else 0o600)


def case_env(fx, env):
    extra = {k: v.replace('@EP@', fx.endpoint).replace('@CONTAINER@', fx.container_uri)
             for k, v in env.items()}
    extra['AWS_DEFAULT_REGION'] = 'us-west-2'
    return h.clean_env(fx, extra)


def main():
    res = h.Results()
    if os.environ.get('CR_CLI') and os.path.exists(os.environ['CR_CLI']):
        CLIENTS['cluster-resolver'] = None
    else:
        print('note: CR_CLI unset (not run by ctest): cluster-resolver is left out')
    fx = h.Fixtures()
    try:
        for name, files, env, want, method, skip in CASES:
            prepare(fx, files)
            for client in CLIENTS:
                if client in skip:
                    continue
                fx.truncate_logs()
                rc, out, err = h.run(client_cmd(client, fx), case_env(fx, env))
                lines = out.split('\n')
                if client == 'cluster-resolver':
                    got_ok = rc == 0 and json.loads(out or '{}').get('cluster') == WANT_JSON
                    res.check('%s: cluster-resolver -v names the provider' % name,
                              'credentials: %s (' % method in err, err)
                    leaked = [x for x in h.SECRETS if x in out or x in err]
                    res.check('%s: no secret in the output at -vv' % name, not leaked,
                              'leaked %s in\n%s' % (leaked, err))
                elif client.startswith('cli'):
                    got_ok = rc == 0 and out.split() == WORKERS.split()
                else:
                    got_ok = rc == 0 and lines[:2] == [method, WORKERS]
                res.check('%s: %s lists the workers' % (name, client), got_ok,
                          'rc %d\nstdout %r\nstderr %s' % (rc, out, err[-2000:]))
                ok, why = signer_ok(fx, want, fx.requests())
                res.check('%s: %s signed as expected' % (name, client), ok, why)
                ok, why = meta_ok(fx, name, client)
                res.check('%s: %s metadata requests' % (name, client), ok, why)
    finally:
        fx.stop(keep=res.failed > 0)
        if res.failed:
            print('fixture directory kept: %s' % fx.dir)
    res.finish()


if __name__ == '__main__':
    main()
