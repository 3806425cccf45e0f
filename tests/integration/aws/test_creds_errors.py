#!/usr/bin/python3
"""aws.so's credential chain and IMDS client, case by case, against the
fixtures (cluster-resolver resolve): IMDSv2's token rules (one new token
after a 401, the hop-limit message for a PUT that gets no answer, IMDSv1
only when allowed, AWS_EC2_METADATA_DISABLED), the `profile` option
skipping environment credentials as `aws --profile` does, and every
failure as one line naming the file, profile, command or endpoint, with
exit 1 (2 for a broken AWS config file), nothing on stdout and no secret
anywhere at -vv. The IMDS fixture's own rules (TTL 1..21600, X-Forwarded-For
refused, 401 without or with a dead token) are checked with curl first.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import creds_harness as h  # noqa: E402

if __name__ == "__main__":
    h.ensure_hermetic()

CONF = """resolvers = ( {
  plugin = "aws"; policy = "required"; port = 2222; page_size = 5;
  endpoint = "@EP@"; %s
  jobs = { worker = ( { name = "tag:role"; values = [ "worker" ]; } ); };
} );
"""
WORKERS = {'worker': ['10.0.1.%d:2222' % i for i in (10, 11, 12)]}
PFX = "resolver 'aws': "
ROLE = 'arn:aws:iam::%s:role/trainer-role' % h.ACCOUNT
FAIL = '''#!/bin/sh
echo "token expired: run 'corp-login' first" >&2
echo "second line" >&2
exit 3
'''
V2 = '''#!/bin/sh
echo '{"Version": 2, "AccessKeyId": "AKIAIOSFODNN7EXAMPLE", "SecretAccessKey": "x"}'
'''


def resolve(fx, env, options='', files=None):
    for p in ('home/.aws/config', 'home/.aws/credentials'):
        if os.path.exists(os.path.join(fx.dir, p)):
            os.unlink(os.path.join(fx.dir, p))
    for path, text in (files or {}).items():
        fx.write(path, text, 0o755 if path.startswith('bin/') else 0o600)
    conf = fx.write('aws.conf', CONF % options)
    fx.truncate_logs()
    extra = {'AWS_DEFAULT_REGION': 'us-west-2', 'AWS_METADATA_SERVICE_TIMEOUT': '1'}
    extra.update({k: v if v is None else v.replace('@EP@', fx.endpoint)
                  .replace('@CONTAINER@', fx.container_uri) for k, v in env.items()})
    return h.run([os.environ['CR_CLI'], '--config', conf, '-vv', 'resolve', '--format', 'json'],
                 h.clean_env(fx, extra))


def error_line(err):
    """The error: the last line (the -vv log lines come before it)."""
    return [ln for ln in err.splitlines() if ln][-1:]


def check_fails(res, name, got, rc_want, message):
    rc, out, err = got
    leaked = [x for x in h.SECRETS if x in out or x in err]
    lines = error_line(err)
    res.check(name, rc == rc_want and out == '' and lines == ['cluster-resolver: ' + message]
              and not leaked,
              'rc %d (want %d)\nstdout %r\nerror lines %r\nwant %r\nleaked %s\nstderr:\n%s'
              % (rc, rc_want, out, lines, 'cluster-resolver: ' + message, leaked, err[-3000:]))


def check_fails_re(res, name, got, rc_want, pattern):
    rc, out, err = got
    lines = error_line(err)
    res.check(name, rc == rc_want and out == '' and len(lines) == 1 and
              re.fullmatch(pattern, lines[0]) is not None,
              'rc %d\nstdout %r\nerror line %r\nwant /%s/' % (rc, out, lines, pattern))


def check_ok(res, name, got, provider):
    rc, out, err = got
    leaked = [x for x in h.SECRETS if x in out or x in err]
    ok = rc == 0 and json.loads(out or '{}').get('cluster') == WORKERS and not leaked \
        and 'credentials: %s (' % provider in err
    res.check(name, ok, 'rc %d\nstdout %r\nleaked %s\nstderr:\n%s' % (rc, out, leaked,
                                                                     err[-3000:]))


def curl(fx, *args):
    return h.run(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', '5']
                 + list(args), h.clean_env(fx))


def fixture_rules(res, fx):
    tok = fx.imds + 'latest/api/token'
    ttl = 'X-aws-ec2-metadata-token-ttl-seconds: '
    for hdrs, want in ((['-H', ttl + '21600'], '200'), (['-H', ttl + '1'], '200'),
                       (['-H', ttl + '0'], '400'), (['-H', ttl + '21601'], '400'), ([], '400'),
                       (['-H', ttl + '60', '-H', 'X-Forwarded-For: 10.0.0.9'], '403')):
        rc, out, _ = curl(fx, '-X', 'PUT', *hdrs, tok)
        res.check('IMDS fixture: PUT %s -> %s' % (hdrs[1::2], want), out == want, out)
    rc, token, _ = h.run(['curl', '-s', '-X', 'PUT', '-H', ttl + '60', tok], h.clean_env(fx))
    iid = fx.imds + 'latest/meta-data/instance-id'
    for hdrs, want in (([], '401'), (['-H', 'X-aws-ec2-metadata-token: nope'], '401'),
                       (['-H', 'X-aws-ec2-metadata-token: ' + token], '200')):
        rc, out, _ = curl(fx, *hdrs, iid)
        res.check('IMDS fixture: GET instance-id %s -> %s' % ('with token' if len(hdrs) and
                                                             hdrs[1].endswith(token) else
                                                             hdrs[1::2], want), out == want, out)


def imds_cases(res, fx):
    fx.set_meta_control({'expire_tokens': 1})
    got = resolve(fx, {})
    check_ok(res, 'IMDS: a 401 gets one new token', got, 'iam-role')
    # The role's GETs only: the fixture writes a request's line after its
    # answer, so under load the last GET of fixture_rules (instance-id) can
    # land in the log after it was truncated for this case.
    puts = [r for r in fx.requests('meta') if r['method'] == 'PUT']
    codes = [r['status'] for r in fx.requests('meta')
             if r['method'] == 'GET' and r['path'] == '/latest/meta-data/iam/security-credentials/']
    res.check('IMDS: two PUTs, GETs 401 then 200', len(puts) == 2 and codes == [401, 200],
              fx.requests('meta'))

    fx.set_meta_control({'token_life': 0})
    check_fails(res, 'IMDS: a second 401 fails', resolve(fx, {}), 1,
                PFX + 'GET %slatest/meta-data/iam/security-credentials/: HTTP 401' % fx.imds)

    fx.set_meta_control({'silent_put': True})
    check_fails(res, 'IMDS: a PUT with no answer names the hop limit', resolve(fx, {}), 1,
                PFX + "no AWS credentials in the environment, profile 'default' (%s, %s), a "
                'container endpoint or the instance metadata service: PUT %slatest/api/token: '
                'no answer within 1000 ms (AWS_METADATA_SERVICE_TIMEOUT); in a container on '
                "EC2 the instance's HttpPutResponseHopLimit (default 1) must be at least 2"
                % (fx.home + '/.aws/credentials', fx.home + '/.aws/config', fx.imds))
    # botocore on the same fixture: its PUT times out too, it falls back to a
    # GET without a token (IMDSv1), which this IMDSv2-only instance refuses.
    fx.truncate_logs()
    rc, out, err = h.run(['/root/.pyenv/shims/aws', 'sts', 'get-caller-identity',
                          '--endpoint-url', fx.endpoint],
                         h.clean_env(fx, {'AWS_DEFAULT_REGION': 'us-west-2',
                                          'AWS_METADATA_SERVICE_TIMEOUT': '1'}))
    seen = [(r['method'], r['status']) for r in fx.requests('meta')]
    res.check('IMDS: aws CLI v1 on the silent PUT', rc == 255 and
              'Unable to locate credentials' in err and seen[:2] == [('PUT', None),
                                                                       ('GET', 401)],
              'rc %d\n%s\n%s' % (rc, err, seen))
    fx.set_meta_control({})

    # The real endpoints, only ever here: inside hermetic.sh they fail at once.
    assert os.environ.get('CR_HERMETIC') == '1'
    nothing = re.escape('cluster-resolver: ' + PFX + "no AWS credentials in the environment, profile 'default' "
                        '(%s/.aws/credentials, %s/.aws/config), a container endpoint or the '
                        'instance metadata service: ' % (fx.home, fx.home))
    for mode, url, host in (('ipv4', 'http://169.254.169.254/', '169.254.169.254'),
                            ('ipv6', 'http://[fd00:ec2::254]/', 'fd00:ec2::254')):
        got = resolve(fx, {'AWS_EC2_METADATA_SERVICE_ENDPOINT': None,
                           'AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE': mode})
        check_fails_re(res, 'IMDS: default %s endpoint %s' % (mode, url), got, 1, nothing +
                       re.escape('PUT %slatest/api/token: Failed to connect to %s port 80 '
                                 % (url, host)) + r'after \d+ ms: .*')

    got = resolve(fx, {'AWS_EC2_METADATA_DISABLED': 'true'})
    check_fails(res, 'IMDS: AWS_EC2_METADATA_DISABLED=true, nothing found', got, 1,
                PFX + "no AWS credentials in the environment, profile 'default' (%s, %s), a "
                'container endpoint or the instance metadata service'
                % (fx.home + '/.aws/credentials', fx.home + '/.aws/config'))
    res.check('IMDS: AWS_EC2_METADATA_DISABLED=true sends nothing', fx.requests('meta') == [],
              fx.requests('meta'))


def imds_v1_cases(res):
    fx = h.Fixtures(meta={'imds_v1': True})
    try:
        fx.set_meta_control({'silent_put': True})
        check_ok(res, 'IMDSv1: imds_v1 = true after a silent PUT', resolve(fx, {},
                                                                        'imds_v1 = true;'),
                 'iam-role')
        gets = [r for r in fx.requests('meta') if r['method'] == 'GET']
        res.check('IMDSv1: GETs without a token', gets and not any(r['token'] for r in gets),
                  gets)
        check_fails(res, 'IMDSv1: never with AWS_EC2_METADATA_V1_DISABLED=true',
                    resolve(fx, {'AWS_EC2_METADATA_V1_DISABLED': 'true'}, 'imds_v1 = true;'), 1,
                    PFX + "no AWS credentials in the environment, profile 'default' (%s, %s), "
                    'a container endpoint or the instance metadata service: PUT '
                    '%slatest/api/token: no answer within 1000 ms '
                    "(AWS_METADATA_SERVICE_TIMEOUT); in a container on EC2 the instance's "
                    'HttpPutResponseHopLimit (default 1) must be at least 2'
                    % (fx.home + '/.aws/credentials', fx.home + '/.aws/config', fx.imds))
    finally:
        fx.stop(keep=res.failed > 0)


def chain_cases(res, fx):
    creds = ('[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n[ops]\n'
             'aws_access_key_id = %s\naws_secret_access_key = %s\n'
             % (h.USER_AKID, h.USER_SECRET, h.OTHER_AKID, h.OTHER_SECRET))
    envc = {'AWS_ACCESS_KEY_ID': h.USER_AKID, 'AWS_SECRET_ACCESS_KEY': h.USER_SECRET}
    got = resolve(fx, envc, 'profile = "ops";', {'home/.aws/credentials': creds})
    check_ok(res, 'profile option: environment credentials skipped', got,
             'shared-credentials-file')
    akids = {r['akid'] for r in fx.requests() if r.get('action') == 'DescribeInstances'}
    res.check('profile option: signed by the profile\'s key', akids == {h.OTHER_AKID}, akids)
    rc, out, err = h.run(['/root/.pyenv/shims/aws', '--profile', 'ops', 'sts',
                          'get-caller-identity', '--endpoint-url', fx.endpoint, '--query',
                          'Arn', '--output', 'text'],
                         h.clean_env(fx, dict(envc, AWS_DEFAULT_REGION='us-west-2')))
    res.check('profile option: aws --profile ops does the same', out.strip() == h.OTHER_ARN,
              out + err)
    got = resolve(fx, envc, '', {'home/.aws/credentials': creds})
    check_ok(res, 'AWS_PROFILE unset, no option: environment first', got, 'env')

    cases = [
        ('env: key id without secret', {'AWS_ACCESS_KEY_ID': h.USER_AKID}, '', {}, 1,
         'AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not'),
        ('profile missing', {'AWS_PROFILE': 'nope'}, '', {'home/.aws/credentials': creds}, 2,
         "AWS profile 'nope' is in neither %s/.aws/config nor %s/.aws/credentials"
         % (fx.home, fx.home)),
        ('config: key before a section', {}, '', {'home/.aws/config': 'region = x\n'}, 2,
         '%s/.aws/config:1: a key before any [section]' % fx.home),
        ('config: line without =', {}, '', {'home/.aws/config': '[default]\n# c\nregion\n'}, 2,
         '%s/.aws/config:3: expected \'key = value\'' % fx.home),
        ('config: key twice', {}, '', {'home/.aws/config': '[default]\nregion=a\nREGION = b\n'},
         2, "%s/.aws/config:3: key 'region' appears twice" % fx.home),
        ('credentials: secret missing', {}, '',
         {'home/.aws/credentials': '[default]\naws_access_key_id = %s\n' % h.USER_AKID}, 1,
         "%s/.aws/credentials: profile 'default': aws_secret_access_key is missing"
         % fx.home),
        ('sso profile', {'AWS_PROFILE': 'corp'}, '',
         {'home/.aws/config': '[profile corp]\nsso_session = corp\nsso_account_id = %s\n'
          'sso_role_name = Trainer\n[sso-session corp]\nsso_start_url = https://corp.'
          'awsapps.com/start\nsso_region = us-east-1\n' % h.ACCOUNT}, 1,
         "profile 'corp' uses IAM Identity Center (SSO), which cluster-resolver does not log "
         'in to; give the profile a credential_process (e.g. `aws configure '
         'export-credentials --profile corp --format process`)'),
        ('credential_process fails', {}, '',
         {'home/.aws/config': '[default]\ncredential_process = @DIR@/bin/login --x\n',
          'bin/login': FAIL}, 1,
         "credential_process '%s/bin/login' (profile 'default') exited with status 3: token "
         "expired: run 'corp-login' first" % fx.dir),
        ('credential_process Version 2', {}, '',
         {'home/.aws/config': '[default]\ncredential_process = @DIR@/bin/v2\n', 'bin/v2': V2},
         1, "credential_process '%s/bin/v2' (profile 'default'): Version must be 1" % fx.dir),
        ('source_profile loop', {'AWS_PROFILE': 'a'}, '',
         {'home/.aws/config': '[profile a]\nrole_arn = %s\nsource_profile = b\n[profile b]\n'
          'role_arn = %s\nsource_profile = a\n' % (ROLE, ROLE)}, 2,
         "profile 'b': source_profile 'a' makes a loop"),
        ('source_profile and credential_source', {'AWS_PROFILE': 'a'}, '',
         {'home/.aws/config': '[profile a]\nrole_arn = %s\nsource_profile = b\n'
          'credential_source = Environment\n' % ROLE}, 2,
         "profile 'a' has both source_profile and credential_source"),
        ('AssumeRole refused', {'AWS_PROFILE': 'a', 'AWS_ENDPOINT_URL_STS': '@EP@'}, '',
         {'home/.aws/config': '[profile a]\nrole_arn = arn:aws:iam::%s:role/denied\n'
          'source_profile = default\n' % h.ACCOUNT, 'home/.aws/credentials': creds}, 1,
         'POST %s/: HTTP 403: AccessDenied: User: %s is not authorized to perform: '
         'sts:AssumeRole on resource: arn:aws:iam::%s:role/denied'
         % (fx.endpoint, h.USER_ARN, h.ACCOUNT)),
        ('web identity token refused',
         {'AWS_WEB_IDENTITY_TOKEN_FILE': '@DIR@/bad-token', 'AWS_ROLE_ARN': ROLE,
          'AWS_ENDPOINT_URL_STS': '@EP@'}, '', {'bad-token': 'not-a-jwt'}, 1,
         'POST %s/: HTTP 400: InvalidIdentityToken: The ID Token provided is not a valid '
         'JWT. (You may see this error if you sent an Access Token)' % fx.endpoint),
        ('web identity without role', {'AWS_WEB_IDENTITY_TOKEN_FILE': '@DIR@/bad-token'}, '',
         {'bad-token': 'x'}, 2,
         'web identity token file %s/bad-token but no role ARN (AWS_ROLE_ARN or the '
         "profile's role_arn)" % fx.dir),
        ('container: wrong token',
         {'AWS_CONTAINER_CREDENTIALS_FULL_URI': '@CONTAINER@',
          'AWS_CONTAINER_AUTHORIZATION_TOKEN': 'wrong'}, '', {}, 1,
         'GET %s: HTTP 401: {"Code": "InvalidToken", "Message": "The authorization token is '
         'invalid"}' % fx.container_uri),
        # A server reflecting the token it was sent: cut out (issue 27 item 6).
        ('container: a server echoing the token',
         {'AWS_CONTAINER_CREDENTIALS_FULL_URI': '@CONTAINER@',
          'AWS_CONTAINER_AUTHORIZATION_TOKEN': 'echo-ecs-token-0123456789'}, '', {}, 1,
         'GET %s: HTTP 401: {"Code": "InvalidToken", "Message": "The authorization token is '
         'invalid: [redacted]"}' % fx.container_uri),
        ('container: token file with a line break',
         {'AWS_CONTAINER_CREDENTIALS_FULL_URI': '@CONTAINER@',
          'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE': '@DIR@/tok'}, '', {'tok': h.ECS_AUTH + '\n'},
         1, 'the container authorization token in %s/tok has a line break' % fx.dir),
        # The environment is environment: exit 1, as the man page says (issue 27 item 7).
        ('container: http to another host',
         {'AWS_CONTAINER_CREDENTIALS_FULL_URI': 'http://10.1.2.3/creds'}, '', {}, 1,
         'AWS_CONTAINER_CREDENTIALS_FULL_URI http://10.1.2.3/creds: http only to a loopback '
         'address, 169.254.170.2, 169.254.170.23 or fd00:ec2::23'),
    ]
    for name, env, opts, files, rc, msg in cases:
        check_fails(res, name, resolve(fx, env, opts, files), rc, PFX + msg)

    # STS's default endpoints, only here (inside hermetic.sh DNS fails at once):
    # regional by default, the global one with AWS_STS_REGIONAL_ENDPOINTS=legacy.
    assert os.environ.get('CR_HERMETIC') == '1'
    role = {'home/.aws/config': '[profile a]\nrole_arn = %s\nsource_profile = default\n'
            % ROLE, 'home/.aws/credentials': creds}
    for extra, host in (({}, 'sts.us-west-2.amazonaws.com'),
                        ({'AWS_STS_REGIONAL_ENDPOINTS': 'legacy'}, 'sts.amazonaws.com')):
        env = dict(extra, AWS_PROFILE='a', AWS_ENDPOINT_URL=None)
        check_fails(res, 'STS endpoint %s' % host, resolve(fx, env, '', role), 1,
                    PFX + 'POST https://%s/: Could not resolve host: %s' % (host, host))

    # ECS's default container endpoint: three tries, then the endpoint named.
    got = resolve(fx, {'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI': '/v2/credentials/9f1e'})
    check_fails_re(res, 'container: default endpoint 169.254.170.2', got, 1,
                   re.escape('cluster-resolver: ' + PFX + 'GET http://169.254.170.2/v2/'
                             'credentials/9f1e: Failed to connect to 169.254.170.2 port 80 ')
                   + r'after \d+ ms: .*')
    gets = [ln for ln in got[2].splitlines() if 'GET http://169.254.170.2/' in ln]
    # three request lines at -vv, then the error line
    res.check('container: three tries', len(gets) == 4, gets)

    # explain names the provider
    resolve(fx, {}, '', {'home/.aws/credentials': creds})
    rc, out, err = h.run([os.environ['CR_CLI'], '--config', os.path.join(fx.dir, 'aws.conf'),
                          'explain'], h.clean_env(fx, {'AWS_DEFAULT_REGION': 'us-west-2'}))
    res.check('explain: fact credentials', rc == 0 and
              '   fact credentials: "shared-credentials-file"\n' in out, out + err)


def main():
    res = h.Results()
    if not os.environ.get('CR_CLI') or not os.path.exists(os.environ['CR_CLI']):
        print('SKIP: CR_CLI is not set (run through ctest)')
        sys.exit(77)
    fx = h.Fixtures()
    try:
        fixture_rules(res, fx)
        imds_cases(res, fx)
        chain_cases(res, fx)
    finally:
        fx.stop(keep=res.failed > 0)
        if res.failed:
            print('fixture directory kept: %s' % fx.dir)
    imds_v1_cases(res)
    res.finish()


if __name__ == '__main__':
    main()
