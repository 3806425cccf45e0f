#!/usr/bin/python3
"""aws.so against the EC2 fixture over HTTPS: filters, paging, order,
addresses, identity, the request on the wire, retries and faults, errors
and config errors; exact stdout, stderr and exit status for every case.
Runs under scripts/hermetic.sh (re-execs itself), so the default endpoints
and IMDS address fail at once and nothing leaves the machine.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aws_harness as h  # noqa: E402

P = 'cluster-resolver: resolver \'aws\': '
W = 'cluster-resolver: warning: resolver \'aws\': '
NOT_SELF = W + 'this instance (addresses 127.0.0.1) is in no job: task type and id unknown\n'
BASE = ('resolvers = ( { plugin = "aws"; port = 2222; region = "us-east-1"; '
        'endpoint = "@URL@"; ca_file = "@CA@"; page_size = 5; %s } );\n')
WORKER = 'jobs = { worker = ( { name = "tag:role"; values = [ "worker" ]; } ); };'
FOUR = ('jobs = { worker = ( { name = "tag:Name"; values = [ "worker-1", "worker-2", '
        '"worker-9", "worker-10" ]; } ); };')


def tf(cluster, task=None):
    jobs = ', '.join('"%s": [%s]' % (j, ', '.join('"%s"' % a for a in addrs))
                     for j, addrs in cluster)
    t = ', "task": {"type": "%s", "index": %d}' % task if task else ''
    return '{"cluster": {%s}%s, "rpc_layer": "grpc"}\n' % (jobs, t)


def ips(*last):
    return ['10.0.%s:2222' % x for x in last]


# (name, plugin options, env, rc, stdout, stderr)
CASES = [
    ('order-address', WORKER, {}, 0,
     tf([('worker', ips('1.9', '1.10', '1.12', '1.13', '1.100', '2.1'))]), NOT_SELF),
    ('order-id', WORKER + ' order = "id";', {}, 0,
     tf([('worker', ips('1.10', '1.9', '1.100', '2.1', '1.12', '1.13'))]), NOT_SELF),
    ('order-tag-name-digits-as-numbers', WORKER + ' order = "tag:Name";', {}, 0,
     tf([('worker', ips('2.1', '1.100', '1.9', '1.10', '1.12', '1.13'))]), NOT_SELF),
    ('order-tag-missing-last', WORKER + ' order = "tag:rank";', {}, 0,
     tf([('worker', ips('2.1', '1.100', '1.9', '1.10', '1.13', '1.12'))]), NOT_SELF),
    ('address-public', FOUR + ' address = "public";', {}, 0,
     tf([('worker', ['54.210.3.5:2222', '54.210.3.17:2222', '54.210.3.18:2222',
                     '54.210.4.1:2222'])]), NOT_SELF),
    ('address-ipv6-bracketed', FOUR + ' address = "ipv6";', {}, 0,
     tf([('worker', ['[2600:1f18:4a3:6a00::9]:2222', '[2600:1f18:4a3:6a00::10]:2222',
                     '[2600:1f18:4a3:6a00::100]:2222', '[2600:1f18:4a3:6a00::201]:2222'])]),
     NOT_SELF),
    ('address-private-dns', FOUR + ' address = "private_dns";', {}, 0,
     tf([('worker', ['ip-10-0-1-9.ec2.internal:2222', 'ip-10-0-1-10.ec2.internal:2222',
                     'ip-10-0-1-100.ec2.internal:2222', 'ip-10-0-2-1.ec2.internal:2222'])]),
     NOT_SELF),
    ('address-public-missing', WORKER + ' address = "public";', {}, 1, '',
     P + 'POST @URL@/: instance i-0a1b2c3d4e5f6070c has no ipAddress (address = "public")\n'),
    ('filter-tag-key', 'jobs = { worker = ( { name = "tag-key"; values = [ "rank" ]; } ); };',
     {}, 0, tf([('worker', ips('1.9', '1.10', '1.13', '1.100', '2.1'))]), NOT_SELF),
    ('filter-state-given', 'jobs = { worker = ( { name = "tag:role"; values = [ "worker" ]; }, '
     '{ name = "instance-state-name"; values = [ "stopped" ]; } ); };', {}, 0,
     tf([('worker', ips('1.11'))]), NOT_SELF),
    ('filter-state-two', 'jobs = { worker = ( { name = "tag:role"; values = [ "worker" ]; }, '
     '{ name = "instance-state-name"; values = [ "running", "stopped" ]; } ); };', {}, 0,
     tf([('worker', ips('1.9', '1.10', '1.11', '1.12', '1.13', '1.100', '2.1'))]), NOT_SELF),
    ('filter-instance-id', 'jobs = { ps = ( { name = "instance-id"; values = '
     '[ "i-0a1b2c3d4e5f60707", "i-0a1b2c3d4e5f60708" ]; } ); };', {}, 0,
     tf([('ps', ips('0.7', '3.3'))]), NOT_SELF),
    ('filter-private-ip-wildcard', 'jobs = { ps = ( { name = "private-ip-address"; values = '
     '[ "10.0.0.*" ]; } ); };', {}, 0, tf([('ps', ips('0.7', '0.200'))]), NOT_SELF),
    ('filter-tag-value-escaped', 'jobs = { ps = ( { name = "tag:team"; values = '
     '[ "a&b <x>" ]; } ); };', {}, 0, tf([('ps', ips('0.7'))]), NOT_SELF),
    ('jobs-in-order-written-empty-job',
     'jobs = { chief = ( { name = "tag:role"; values = [ "chief" ]; } ); '
     'worker = ( { name = "tag:role"; values = [ "worker" ]; } ); '
     'ps = ( { name = "tag:role"; values = [ "ps" ]; } ); '
     'evaluator = ( { name = "tag:role"; values = [ "evaluator" ]; } ); };', {}, 0,
     tf([('chief', ips('3.3')), ('worker', ips('1.9', '1.10', '1.12', '1.13', '1.100', '2.1')),
         ('ps', ips('0.7', '0.200')), ('evaluator', [])]), NOT_SELF),
    ('identity-local-address',
     'jobs = { worker = ( { name = "tag:role"; values = [ "worker" ]; } ); '
     'launcher = ( { name = "tag:role"; values = [ "launcher" ]; } ); };', {}, 0,
     tf([('worker', ips('1.9', '1.10', '1.12', '1.13', '1.100', '2.1')),
         ('launcher', ['127.0.0.1:2222'])], ('launcher', 0)), ''),
    ('region-from-env', WORKER.replace('region', 'x'), {'AWS_REGION': 'eu-west-1'}, 0,
     tf([('worker', ips('1.9', '1.10', '1.12', '1.13', '1.100', '2.1'))]), NOT_SELF),
    # errors
    ('auth-failure', WORKER, {'AWS_SECRET_ACCESS_KEY': 'wrong'}, 1, '',
     P + 'POST @URL@/: HTTP 401: AuthFailure: AWS was not able to validate the provided '
     'access credentials\n'),
    ('unknown-key', WORKER, {'AWS_ACCESS_KEY_ID': 'AKIAUNKNOWN000000000'}, 1, '',
     P + 'POST @URL@/: HTTP 401: AuthFailure: AWS was not able to validate the provided '
     'access credentials\n'),
    ('unknown-filter', 'jobs = { w = ( { name = "tag"; values = [ "x" ]; } ); };', {}, 1, '',
     P + 'POST @URL@/: HTTP 400: InvalidParameterValue: The filter \'tag\' is invalid\n'),
    ('no-credentials', WORKER, {'AWS_ACCESS_KEY_ID': None, 'AWS_SECRET_ACCESS_KEY': None}, 1,
     '', None),
    ('no-region', WORKER, {'AWS_REGION': None}, 1, '',
     P + 'no AWS region: set `region`, AWS_REGION or the profile\'s region\n'),
    ('endpoint-from-AWS_ENDPOINT_URL_EC2', WORKER, {'AWS_ENDPOINT_URL_EC2': '@URL@',
                                                    'AWS_ENDPOINT_URL': 'https://127.0.0.1:1'},
     0, tf([('worker', ips('1.9', '1.10', '1.12', '1.13', '1.100', '2.1'))]), NOT_SELF),
    ('endpoint-from-AWS_ENDPOINT_URL', WORKER, {'AWS_ENDPOINT_URL': '@URL@'}, 0,
     tf([('worker', ips('1.9', '1.10', '1.12', '1.13', '1.100', '2.1'))]), NOT_SELF),
    ('endpoint-option-first', WORKER, {'AWS_ENDPOINT_URL_EC2': 'https://127.0.0.1:1'}, 0,
     tf([('worker', ips('1.9', '1.10', '1.12', '1.13', '1.100', '2.1'))]), NOT_SELF),
]
# what each case leaves out of BASE
DROP = {'region-from-env': 'region = "us-east-1"; ', 'no-region': 'region = "us-east-1"; ',
        'endpoint-from-AWS_ENDPOINT_URL_EC2': 'endpoint = "@URL@"; ',
        'endpoint-from-AWS_ENDPOINT_URL': 'endpoint = "@URL@"; '}


ML = ('resolvers = ( { plugin = "aws"; port = 2222;\n region = "us-east-1";\n'
      ' endpoint = "@URL@"; ca_file = "@CA@";\n %s } );\n')
CREATE = 'cluster-resolver: resolver \'aws\' (@PLUGIN@): create failed: @DIR@/case.conf:'
# (name, options on lines 4-5, stderr); exit 2, nothing on stdout, no request
CONFIG_ERRORS = [
    ('page-size-below-5', WORKER + '\n page_size = 4;',
     'cluster-resolver: @DIR@/case.conf:5: resolver \'aws\': key \'page_size\' is 4, out of '
     'its range 5..1000\n'),
    ('page-size-above-1000', WORKER + '\n page_size = 1001;',
     'cluster-resolver: @DIR@/case.conf:5: resolver \'aws\': key \'page_size\' is 1001, out of '
     'its range 5..1000\n'),
    ('filter-without-name', 'jobs = { worker = (\n { values = [ "worker" ]; } ); };',
     CREATE + '5: job \'worker\': filter 1 has no `name`\n'),
    ('filter-without-values', 'jobs = { worker = ( { name = "tag:role"; values = [ "w" ]; },\n'
     ' { name = "tag:x"; } ); };', CREATE + '5: job \'worker\': filter 2 has no `values`\n'),
    ('filter-empty-values', 'jobs = { worker = (\n { name = "tag:role"; values = []; } ); };',
     CREATE + '5: job \'worker\': filter 1 has no `values`\n'),
    ('job-not-a-list', 'jobs = {\n worker = "tag:role=worker"; };',
     CREATE + '5: job \'worker\' must be a list of filter groups { name = ...; values = '
     '[ ... ]; }\n'),
    ('address-unknown', WORKER + '\n address = "elastic";',
     CREATE + '5: address "elastic" is not one of private, public, private_dns or ipv6\n'),
    ('order-unknown', WORKER + '\n order = "name";',
     CREATE + '5: order "name" is not one of address, id or tag:KEY\n'),
    ('order-tag-without-key', WORKER + '\n order = "tag:";',
     CREATE + '5: order "tag:" is not one of address, id or tag:KEY\n'),
]
CONFIG_ERRORS_ENDPOINT = (
    'resolvers = ( { plugin = "aws"; port = 2222; region = "us-east-1";\n'
    ' endpoint = "127.0.0.1:443"; ' + WORKER + ' } );\n',
    CREATE + '2: endpoint "127.0.0.1:443" is not an http:// or https:// URL\n')


def plugin_file():
    for d in os.environ.get('CLUSTER_RESOLVER_PLUGIN_PATH', '').split(':'):
        if d and os.path.exists(os.path.join(d, 'aws.so')):
            return os.path.join(d, 'aws.so')
    return 'aws.so'


def config_errors(fx, r):
    for name, opts, err in CONFIG_ERRORS:
        fx.clear_requests()
        got = h.run_cli(fx, ML % opts, ['resolve'])
        want = (2, '', fx.subst(err).replace('@PLUGIN@', plugin_file()))
        r.check('config-' + name, got == want and not fx.requests(),
                '  got  %r\n  want %r' % (got, want))
    # `port` is needed only with `jobs`: the auto configuration's bare entry
    # must load and decline.
    got = h.run_cli(fx, (ML % WORKER).replace(' port = 2222;', ''), ['resolve'])
    want = (2, '', fx.subst(CREATE + "4: 'jobs' needs 'port', the port of every task\n")
            .replace('@PLUGIN@', plugin_file()))
    r.check('config-jobs-without-port', got == want, '  got  %r\n  want %r' % (got, want))
    conf, err = CONFIG_ERRORS_ENDPOINT
    got = h.run_cli(fx, conf, ['resolve'])
    want = (2, '', fx.subst(err).replace('@PLUGIN@', plugin_file()))
    r.check('config-endpoint-not-a-url', got == want, '  got  %r\n  want %r' % (got, want))
    got = h.run_cli(fx, (BASE % WORKER).replace('endpoint = "@URL@"; ', ''), ['resolve'],
                    {'AWS_ENDPOINT_URL_EC2': 'ftp://127.0.0.1/'})
    r.check('env-endpoint-not-a-url', got == (1, '', P + 'POST ftp://127.0.0.1/: the URL is not '
                                              'an absolute http:// or https:// URL\n'), repr(got))
    got = h.run_cli(fx, ML % WORKER, ['resolve'], {'AWS_MAX_ATTEMPTS': 'x'})
    r.check('config-AWS_MAX_ATTEMPTS', got == (2, '', P + 'AWS_MAX_ATTEMPTS "x" is not a '
                                             'number from 1 to 100\n'), repr(got))


WORKERS = tf([('worker', ips('1.9', '1.10', '1.12', '1.13', '1.100', '2.1'))])
FIRST = {'Action': 'DescribeInstances', 'Version': '2016-11-15', 'Filter.1.Name': 'tag:role',
         'Filter.1.Value.1': 'worker', 'Filter.2.Name': 'instance-state-name',
         'Filter.2.Value.1': 'running', 'MaxResults': '5'}


def wire(fx, r):
    """The requests: POST /, the form body botocore sends, two pages of 5,
    each signed (content-type;host;x-amz-date), the NextToken echoed."""
    fx.clear_requests()
    got = h.run_cli(fx, BASE % WORKER, ['resolve'])
    reqs = fx.requests()
    ok = got == (0, WORKERS, NOT_SELF) and len(reqs) == 2
    if ok:
        a, b = reqs
        second = dict(FIRST, NextToken=b['params'].get('NextToken', '?'))
        ok = (a['params'] == FIRST and b['params'] == second and a['next_token']
              and not b['next_token'] and [a['returned'], b['returned']] == [5, 1]
              and all(q['path'] == '/' and q['method'] == 'POST' and q['signed']
                      and q['content_type'] == 'application/x-www-form-urlencoded; '
                      'charset=utf-8' and q['signed_headers'] == 'content-type;host;x-amz-date'
                      and q['akid'] == h.AKID
                      and q['user_agent'].startswith('cluster-resolver-aws/') for q in reqs))
    r.check('wire-two-pages-signed', ok, '  %r\n  %r' % (got, reqs))


def session_token(fx, r):
    token = 'IQoJb3JpZ2luX2VjEFIXTUREtoken/+=='
    fx.set_control({'keys': [['ASIAFIXTURESESSION01', 'sessionSecret/abc', token]]})
    env = {'AWS_ACCESS_KEY_ID': 'ASIAFIXTURESESSION01', 'AWS_SECRET_ACCESS_KEY':
           'sessionSecret/abc', 'AWS_SESSION_TOKEN': token}
    fx.clear_requests()
    got = h.run_cli(fx, BASE % WORKER, ['-vv', 'resolve'], env)
    reqs = fx.requests()
    r.check('session-token-signed', got[:2] == (0, WORKERS) and reqs and all(
        q['signed_headers'] == 'content-type;host;x-amz-date;x-amz-security-token'
        and q['signed'] for q in reqs), repr((got, reqs)))
    r.check('secrets-never-printed-at-vv', 'sessionSecret' not in got[1] + got[2]
            and token not in got[1] + got[2] and 'Signature' not in got[2]
            and 'POST @URL@/: job \'worker\': page 2: 1 instances'.replace(
                '@URL@', fx.url) in got[2], got[2])
    env['AWS_SESSION_TOKEN'] = 'another-token'
    got = h.run_cli(fx, BASE % WORKER, ['resolve'], env)
    r.check('session-token-wrong', got == (1, '', fx.subst(
        P + 'POST @URL@/: HTTP 401: AuthFailure: AWS was not able to validate the provided '
        'access credentials\n')), repr(got))
    fx.set_control({})


# (name, faults, control extras, options, env, rc, stdout, stderr, statuses of the requests)
FAULTS = [
    ('503-throttled-then-ok', [{'status': 503, 'code': 'RequestLimitExceeded',
                                'message': 'Request limit exceeded.'}], {}, '', {}, 0,
     WORKERS, NOT_SELF, [503, 200, 200]),
    ('500-on-page-2-then-ok', [{'status': 500, 'code': 'InternalError', 'next_token_only': True,
                                'message': 'An internal error has occurred'}], {}, '', {}, 0,
     WORKERS, NOT_SELF, [200, 500, 200]),
    ('500-three-attempts', [{'status': 500, 'code': 'InternalError', 'count': -1,
                             'message': 'An internal error has occurred'}], {}, '', {}, 1, '',
     P + 'POST @URL@/: HTTP 500: InternalError: An internal error has occurred (after 3 '
     'attempts)\n', [500, 500, 500]),
    ('AWS_MAX_ATTEMPTS-2', [{'status': 503, 'code': 'EC2ThrottledException', 'count': -1,
                             'message': 'Slow down'}], {}, '', {'AWS_MAX_ATTEMPTS': '2'}, 1, '',
     P + 'POST @URL@/: HTTP 503: EC2ThrottledException: Slow down (after 2 attempts)\n',
     [503, 503]),
    ('retries-0-wins-over-env', [{'status': 503, 'code': 'RequestLimitExceeded', 'count': -1,
                                  'message': 'Request limit exceeded.'}], {}, 'retries = 0;',
     {'AWS_MAX_ATTEMPTS': '5'}, 1, '',
     P + 'POST @URL@/: HTTP 503: RequestLimitExceeded: Request limit exceeded.\n', [503]),
    ('adaptive-throttled-then-ok', [{'status': 503, 'code': 'RequestLimitExceeded',
                                     'count': 2, 'message': 'Request limit exceeded.'}], {}, '',
     {'AWS_RETRY_MODE': 'adaptive', 'AWS_MAX_ATTEMPTS': '4'}, 0, WORKERS, NOT_SELF,
     [503, 503, 200, 200]),
    ('auth-failure-not-retried', [{'status': 401, 'code': 'AuthFailure', 'count': -1,
                                   'message': 'AWS was not able to validate the provided '
                                   'access credentials'}], {}, '', {}, 1, '',
     P + 'POST @URL@/: HTTP 401: AuthFailure: AWS was not able to validate the provided access '
     'credentials\n', [401]),
    ('unauthorized-not-retried', [{'status': 403, 'code': 'UnauthorizedOperation', 'count': -1,
                                   'message': 'You are not authorized to perform this '
                                   'operation.'}], {}, '', {}, 1, '',
     P + 'POST @URL@/: HTTP 403: UnauthorizedOperation: You are not authorized to perform this '
     'operation.\n', [403]),
    ('clock-skew-RequestExpired', [], {'skew': 900}, '', {}, 1, '',
     P + 'POST @URL@/: HTTP 400: RequestExpired: Request has expired.\n', [400]),
    ('truncated-body-retried', [{'truncate': True}], {}, '', {}, 0, WORKERS, NOT_SELF,
     [200, 200, 200]),
    ('truncated-xml-not-retried', [{'cut_xml': True, 'next_token_only': True}], {}, '', {}, 1,
     '', P + 'POST @URL@/: malformed DescribeInstances answer: line 4: ', [200, 200]),
    ('slow-timeout', [{'delay': 2}], {}, 'request_timeout = 0.5; retries = 0;', {}, 1, '',
     P + 'POST @URL@/: timed out (connect_timeout 60.0 s, request_timeout 0.5 s)\n', [200]),
    ('slow-then-ok', [{'delay': 2}], {}, 'request_timeout = 0.5;', {}, 0, WORKERS, NOT_SELF,
     [200, 200, 200]),
    ('next-token-repeated', [{'repeat_token': True, 'next_token_only': True, 'count': -1}],
     {}, '', {}, 1, '', P + 'POST @URL@/: job \'worker\': page 2 repeats the NextToken it '
     'was asked with; stopping\n', [200, 200]),
    ('next-token-expired', [], {'token_ttl': -1}, '', {}, 1, '',
     P + 'POST @URL@/: HTTP 400: InvalidParameterValue: The pagination token has expired. '
     'Start the listing again.\n', [200, 400]),
]


def faults(fx, r):
    for name, fl, extra, opts, env, rc, out, err, statuses in FAULTS:
        fx.set_faults(fl, **extra)
        fx.clear_requests()
        got = h.run_cli(fx, BASE % (WORKER + ' ' + opts), ['resolve'], env)
        want_err = fx.subst(err)
        err_ok = got[2] == want_err or (not want_err.endswith('\n') and
                                        got[2].startswith(want_err) and
                                        got[2].count('\n') == 1)
        if any(f.get('delay') for f in fl):
            time.sleep(max(f['delay'] for f in fl) + 0.5)  # the slow answer is logged late
        seen = [q['status'] for q in fx.requests()]
        r.check('fault-' + name, got[:2] == (rc, out) and err_ok and seen == statuses,
                '  got  %r %r\n  want %r %r' % (got, seen, (rc, out, want_err), statuses))
    fx.set_control({})


def region_order(fx, r):
    """option > AWS_REGION > AWS_DEFAULT_REGION > the profile's region."""
    cfg = os.path.join(fx.dir, 'aws-config')
    with open(cfg, 'w') as f:
        f.write('[default]\nregion = ap-south-1\n[profile train]\nregion = eu-north-1\n')
    noregion = (BASE % WORKER).replace('region = "us-east-1"; ', '')
    for name, conf, env, want in [
            ('option', BASE % WORKER, {'AWS_REGION': 'eu-west-1'}, 'us-east-1'),
            ('AWS_REGION', noregion, {'AWS_REGION': 'eu-west-1',
                                      'AWS_DEFAULT_REGION': 'eu-west-2'}, 'eu-west-1'),
            ('AWS_DEFAULT_REGION', noregion, {'AWS_DEFAULT_REGION': 'eu-west-2'}, 'eu-west-2'),
            ('profile-default', noregion, {}, 'ap-south-1'),
            ('AWS_PROFILE', noregion, {'AWS_PROFILE': 'train'}, 'eu-north-1')]:
        env = dict(env, AWS_CONFIG_FILE=cfg)
        got = h.run_cli(fx, conf, ['explain'], env)
        r.check('region-from-' + name, got[0] == 0 and
                '   fact region: "%s"\n' % want in got[1], repr(got))


def example_config(fx, r):
    conf = os.path.join(h.SRC, 'config/aws.conf')
    p = h.subprocess.run([os.environ['CR_CLI'], 'check-config', conf], env=h.aws_env(fx),
                         capture_output=True, text=True)
    want = (conf + ': ok\nread ' + conf + '\n'
            'resolver \'aws\': plugin aws 1.0.0 (%s), policy required, at %s:11\n'
            '    jobs = { 3 keys }\n    port = 2222\n    address = "private"\n'
            '    order = "tag:Name"\n    rpc_layer = "grpc"\n    page_size = 1000\n'
            % (plugin_file(), conf))
    r.check('config-aws.conf-example', (p.returncode, p.stdout, p.stderr) == (0, want, ''),
            repr((p.returncode, p.stdout, p.stderr)))


def probe(fx, r):
    """Off EC2 with no endpoint named: declined, no request; on EC2 (any of
    the three /sys marks under `root`): the default regional endpoint, which
    fails at once in the loopback-only namespace."""
    conf = ('resolvers = ( { plugin = "aws"; port = 2222; root = "@DIR@/%s"; ' + WORKER +
            ' } );\n')
    marks = [('dmi-vendor', 'sys/devices/virtual/dmi/id/sys_vendor', 'Amazon EC2\n'),
             ('dmi-asset-tag', 'sys/devices/virtual/dmi/id/board_asset_tag',
              'i-0a1b2c3d4e5f60701\n'),
             ('xen-uuid', 'sys/hypervisor/uuid', 'ec2e1916-9099-7caf-fd21-012345abcdef\n'),
             ('other-vendor', 'sys/devices/virtual/dmi/id/sys_vendor', 'QEMU\n')]
    for name, path, text in marks:
        full = os.path.join(fx.dir, name, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as f:
            f.write(text)
        got = h.run_cli(fx, conf % name, ['resolve'], {'AWS_REGION': 'eu-west-1'})
        if name == 'other-vendor':
            want = (1, '', 'cluster-resolver: no resolver applies here (declined: aws)\n')
        else:
            want = (1, '', P + 'POST https://ec2.eu-west-1.amazonaws.com/: Could not resolve '
                    'host: ec2.eu-west-1.amazonaws.com\n')
        r.check('probe-' + name, got == want, '  got  %r\n  want %r' % (got, want))
    got = h.run_cli(fx, conf % 'other-vendor', ['explain'], {'AWS_REGION': 'eu-west-1'})
    r.check('probe-off-ec2-explained', got[0] == 1 and '   declined: not on EC2 (DMI sys_vendor, '
            'board_asset_tag and /sys/hypervisor/uuid say otherwise) and no endpoint named\n'
            in got[1], repr(got))
    got = h.run_cli(fx, BASE % '', ['explain'])
    r.check('probe-no-jobs-declined', got[0] == 1 and '   declined: no `jobs` configured\n'
            in got[1], repr(got))
    fx.clear_requests()
    got = h.run_cli(fx, BASE % WORKER, ['explain'])
    r.check('explain-facts', got[0] == 0 and fx.subst(
        '   fact endpoint: "@URL@/"\n   fact region: "us-east-1"\n   fact retry_mode: '
        '"standard"\n   fact instances_listed: 6\n   fact requests: 2\n   fact this_instance: '
        '"addresses 127.0.0.1"\n') in got[1], repr(got))


META = os.path.join(h.SRC, 'tests/fixtures/aws/aws_meta_fixture.py')


def imds_identity(fx, r):
    """With IMDS (the metadata fixture), the instance id it gives is this
    process's task, and its placement/region is the region when nothing
    else names one."""
    import json
    import subprocess
    d = os.path.join(fx.dir, 'meta')
    os.makedirs(d)
    with open(os.path.join(d, 'config.json'), 'w') as f:
        json.dump({'instance_id': 'i-0a1b2c3d4e5f60702', 'region': 'us-east-1',
                   'availability_zone': 'us-east-1a', 'local_ipv4': '10.0.1.9'}, f)
    log = open(os.path.join(d, 'log'), 'w')
    meta = subprocess.Popen(['/usr/bin/python3', META, '--dir', d, '--config', os.path.join(d, 'config.json')],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(200):
            if os.path.exists(os.path.join(d, 'port')):
                break
            time.sleep(0.05)
        with open(os.path.join(d, 'port')) as f:
            url = 'http://127.0.0.1:%s/' % f.read().strip()
        env = {'AWS_EC2_METADATA_DISABLED': None, 'AWS_EC2_METADATA_SERVICE_ENDPOINT': url}
        got = h.run_cli(fx, BASE % WORKER, ['resolve'], env)
        want = (0, tf([('worker', ips('1.9', '1.10', '1.12', '1.13', '1.100', '2.1'))],
                      ('worker', 0)), '')
        r.check('identity-imds-instance-id', got == want, '  got  %r\n  want %r' % (got, want))
        got = h.run_cli(fx, (BASE % WORKER).replace('region = "us-east-1"; ', ''), ['explain'],
                        env)
        r.check('region-from-imds', got[0] == 0 and '   fact region: "us-east-1"\n' in got[1],
                repr(got))
        got = h.run_cli(fx, BASE % 'jobs = { ps = ( { name = "tag:role"; values = [ "ps" ]; } ); };',
                        ['resolve'], env)
        want = (0, tf([('ps', ips('0.7', '0.200'))]),
                W + 'this instance (i-0a1b2c3d4e5f60702) is in no job: task type and id unknown\n')
        r.check('identity-imds-not-listed-warned', got == want,
                '  got  %r\n  want %r' % (got, want))
    finally:
        meta.terminate()
        meta.wait()
        log.close()


def under_valgrind(fx, r):
    """The paging, retry and error paths under valgrind memcheck (normal
    build; the sanitizer build runs them under ASan and UBSan instead)."""
    import shutil
    if os.environ.get('CR_SANITIZE_BUILD') == '1' or not shutil.which('valgrind'):
        print('ok - valgrind # SKIP %s' % ('sanitizer build' if shutil.which('valgrind')
                                            else 'valgrind not installed'))
        return
    vg = ['valgrind', '-q', '--error-exitcode=99', '--leak-check=full',
          '--errors-for-leak-kinds=definite', '--show-leak-kinds=definite',
          '--suppressions=/usr/share/glib-2.0/valgrind/glib.supp']
    cases = [('paged', [], 0, WORKERS),
             ('retried-then-auth-failure', [{'status': 503, 'code': 'RequestLimitExceeded',
                                             'message': 'Request limit exceeded.'},
                                            {'status': 401, 'code': 'AuthFailure',
                                             'count': -1, 'message': 'no'}], 1, ''),
             ('cut-xml', [{'cut_xml': True, 'next_token_only': True}], 1, '')]
    for name, fl, rc, out in cases:
        fx.set_faults(fl)
        conf = os.path.join(fx.dir, 'vg.conf')
        with open(conf, 'w') as f:
            f.write(fx.subst(BASE % WORKER))
        env = h.aws_env(fx, {'CLUSTER_RESOLVER_NO_DLCLOSE': '1'})
        import subprocess
        p = subprocess.run(vg + [os.environ['CR_CLI'], '--config', conf, 'resolve'], env=env,
                           capture_output=True, text=True, timeout=300)
        r.check('valgrind-' + name, p.returncode == rc and p.stdout == out
                and '==' not in p.stderr, '  rc %d\n%s' % (p.returncode, p.stderr[-3000:]))
    fx.set_control({})


def run_case(fx, r, case):
    name, opts, env, rc, out, err = case
    conf = BASE % opts
    conf = conf.replace(DROP.get(name, '@NONE@'), '')
    fx.clear_requests()
    got = h.run_cli(fx, conf, ['resolve'], env)
    # the credential chain's own wording is its tests' business: one line
    want_err = fx.subst(err) if err is not None else (
        got[2] if got[2].startswith(P) and got[2].count('\n') == 1 else '(one error line)')
    ok = got == (rc, out, want_err)
    if ok and rc == 0:
        ok = all(q['signed'] and q['status'] == 200 for q in fx.requests())
    if os.environ.get("CR_AWS_SHOW"):
        print(repr(got))
    r.check(name, ok, '  got  %r\n  want %r' % (got, (rc, out, want_err)))
    return got


def main():
    h.ensure_hermetic()
    h.need_cli()
    r = h.Results()
    fx = h.Fixture()
    try:
        for case in CASES:
            run_case(fx, r, case)
        config_errors(fx, r)
        wire(fx, r)
        session_token(fx, r)
        faults(fx, r)
        probe(fx, r)
        example_config(fx, r)
        region_order(fx, r)
        imds_identity(fx, r)
        under_valgrind(fx, r)
    finally:
        fx.stop(keep=r.failed > 0)
    r.finish()


if __name__ == '__main__':
    main()
