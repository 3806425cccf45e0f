#!/usr/bin/python3
"""The EC2 fixture is faithful and aws.so agrees with the real clients:
both aws CLIs (pip aws-cli 1.45 under pyenv, Debian's CLI v2) run
`aws ec2 describe-instances --filters ... --page-size 5` and boto3's
paginator (pip 1.43, Debian's 1.26) lists the same filters against the
fixture over HTTPS (AWS_CA_BUNDLE), with the environment's credentials and
AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE pointed at test files. Every
request they send must pass the fixture's signature check, and the plugin
must resolve exactly the instances they list, in the order docs/aws.md
gives (applied here to the clients' answers) and with the address asked
for. The CLIs also show the fixture's error answers: MaxResults 4 and a
wrong key. CLI calls are few (about a second each).
"""
import ipaddress
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aws_harness as h  # noqa: E402

CLIS = [('cli-v1', '/root/.pyenv/versions/3.11.7/bin/aws'), ('cli-v2', '/usr/bin/aws')]
PYTHONS = [('boto3-pip', h.PYENV_PYTHON), ('boto3-debian', '/usr/bin/python3')]

# (name, filters as the API takes them, plugin options, which CLIs run it)
CASES = [
    ('tag-role-worker', [{'Name': 'tag:role', 'Values': ['worker']}], '', ['cli-v1', 'cli-v2']),
    ('tag-key-order-by-tag', [{'Name': 'tag-key', 'Values': ['rank']}], 'order = "tag:Name";',
     ['cli-v2']),
    ('ip-wildcard-public-by-id', [{'Name': 'private-ip-address', 'Values': ['10.0.0.*']}],
     'address = "public"; order = "id";', ['cli-v1']),
    ('two-states-private-dns', [{'Name': 'tag:role', 'Values': ['worker']},
                                {'Name': 'instance-state-name', 'Values': ['running',
                                                                          'stopped']}],
     'address = "private_dns";', []),
    ('ids-ipv6', [{'Name': 'instance-id', 'Values': ['i-0a1b2c3d4e5f60701',
                                                     'i-0a1b2c3d4e5f60703']}],
     'address = "ipv6";', []),
]


def natkey(s):
    return [(0, int(t), '') if t.isdigit() else (1, 0, t) for t in re.findall(r'\d+|\D+', s)]


def expected(insts, opts):
    """Addresses in the documented order, from a client's instances."""
    field = {'public': 'PublicIpAddress', 'private_dns': 'PrivateDnsName',
             'ipv6': 'Ipv6Address'}.get(re.search(r'address = "(\w+)"', opts).group(1)
                                         if 'address =' in opts else '', 'PrivateIpAddress')
    order = re.search(r'order = "([^"]+)"', opts)
    order = order.group(1) if order else 'address'

    def addr(i):
        a = i[field]
        return '[%s]:2222' % a if field == 'Ipv6Address' else '%s:2222' % a

    def by_addr(i):
        try:
            ip = ipaddress.ip_address(i[field])
            return (0 if ip.version == 4 else 1, ip.packed, [])
        except ValueError:
            return (2, b'', natkey(i[field]))
    if order == 'id':
        key = lambda i: (i['InstanceId'],)  # noqa: E731
    elif order.startswith('tag:'):
        def key(i):
            tags = {t['Key']: t['Value'] for t in i.get('Tags', [])}
            v = tags.get(order[4:])
            return (v is None, natkey(v or ''), by_addr(i))
    else:
        key = by_addr
    return [addr(i) for i in sorted(insts, key=key)]


def cli_filters(filters):
    return ['Name=%s,Values=%s' % (f['Name'], ','.join(f['Values'])) for f in filters]


def with_running(filters):
    if any(f['Name'] == 'instance-state-name' for f in filters):
        return filters
    return filters + [{'Name': 'instance-state-name', 'Values': ['running']}]


def client_env(fx):
    env = h.aws_env(fx, {'AWS_CA_BUNDLE': fx.ca, 'FIXTURE_URL': fx.url,
                         'AWS_PAGER': '', 'AWS_DEFAULT_OUTPUT': 'json'})
    env['AWS_CONFIG_FILE'] = os.path.join(fx.dir, 'aws-config')
    env['AWS_SHARED_CREDENTIALS_FILE'] = os.path.join(fx.dir, 'aws-credentials')
    return env


def write_aws_files(fx):
    with open(os.path.join(fx.dir, 'aws-config'), 'w') as f:
        f.write('[default]\nregion = us-east-1\noutput = json\ncli_pager =\n')
    with open(os.path.join(fx.dir, 'aws-credentials'), 'w') as f:
        f.write('# keys come from the environment in this test\n')


def run_aws(fx, cli, args, env=None):
    p = subprocess.run([cli, 'ec2', 'describe-instances', '--endpoint-url', fx.url,
                        '--region', 'us-east-1'] + args, env=env or client_env(fx),
                       capture_output=True, text=True, timeout=120)
    return p


def plugin_addresses(fx, filters, opts):
    groups = ', '.join('{ name = "%s"; values = [ %s ]; }' % (
        f['Name'], ', '.join('"%s"' % v for v in f['Values'])) for f in filters)
    conf = ('resolvers = ( { plugin = "aws"; port = 2222; region = "us-east-1"; '
            'endpoint = "@URL@"; ca_file = "@CA@"; page_size = 5; %s '
            'jobs = { worker = ( %s ); }; } );\n' % (opts, groups))
    rc, out, err = h.run_cli(fx, conf, ['resolve', '--format', 'json'])
    if rc != 0:
        return None, err
    return json.loads(out)['cluster']['worker'], err


def all_signed(fx, ua_part):
    reqs = [q for q in fx.requests() if ua_part in q['user_agent']]
    return bool(reqs) and all(q['signed'] for q in reqs), reqs


def main():
    h.ensure_hermetic()
    h.need_cli()
    have = [(n, p) for n, p in CLIS if os.path.exists(p)]
    pys = [(n, p) for n, p in PYTHONS if os.path.exists(p) and subprocess.run(
        [p, '-c', 'import boto3'], capture_output=True).returncode == 0]
    if not have and not pys:
        print('SKIP: neither aws CLI nor boto3 is installed')
        sys.exit(77)
    r = h.Results()
    fx = h.Fixture()
    write_aws_files(fx)
    try:
        lists = {}
        bodies = {}  # name -> [(client, [form parameters of each request])]
        for label, py in pys:
            fx.clear_requests()
            p = subprocess.run([py, os.path.join(h.HERE, 'boto3_list.py')], env=client_env(fx),
                               input=json.dumps([[n, with_running(f)] for n, f, _, _ in CASES]),
                               capture_output=True, text=True, timeout=120)
            ok = p.returncode == 0
            signed, reqs = all_signed(fx, 'Boto3/') if ok else (False, [])
            r.check('%s-lists-signed-paged' % label, ok and signed and any(
                q['params'].get('NextToken') for q in reqs) and all(
                q['params'].get('MaxResults') == '5' for q in reqs), p.stderr[-2000:])
            if ok:
                lists[label] = json.loads(p.stdout)['cases']
        for label, cli in have:
            for name, filters, opts, clis in CASES:
                if label not in clis:
                    continue
                fx.clear_requests()
                p = run_aws(fx, cli, ['--filters'] + cli_filters(with_running(filters)) +
                            ['--page-size', '5'])
                signed, reqs = all_signed(fx, 'aws-cli/')
                ok = p.returncode == 0 and signed and all(
                    q['params'].get('MaxResults') == '5' for q in reqs)
                r.check('%s-%s-signed' % (label, name), ok, p.stderr[-2000:])
                if p.returncode == 0:
                    insts = [i for res in json.loads(p.stdout)['Reservations']
                             for i in res['Instances']]
                    lists.setdefault(label, {})[name] = insts
                    bodies.setdefault(name, []).append((label, [q['params'] for q in reqs]))
        for name, filters, opts, _ in CASES:
            fx.clear_requests()
            got, err = plugin_addresses(fx, filters, opts)
            mine = [q['params'] for q in fx.requests()]
            for label, theirs in bodies.get(name, []):
                # the same form parameters, page by page, NextToken included
                # (each a fresh token: compared by presence)
                def shape(reqs):
                    return [dict(q, NextToken=bool(q.get('NextToken'))) for q in reqs]
                r.check('plugin-sends-what-%s-sends-%s' % (label, name),
                        shape(mine) == shape(theirs), '  plugin %r\n  %s    %r'
                        % (mine, label, theirs))
            for label, cases in sorted(lists.items()):
                if name not in cases:
                    continue
                want = expected(cases[name], opts)
                r.check('plugin-agrees-%s-%s' % (label, name), got == want and len(want) > 0,
                        '  plugin %r %s\n  %s    %r' % (got, err, label, want))
        cli = have[-1][1] if have else None
        if cli:
            p = run_aws(fx, cli, ['--page-size', '4'])
            r.check('cli-page-size-4-refused', p.returncode != 0 and (
                'An error occurred (InvalidParameterValue) when calling the DescribeInstances '
                'operation: Value ( 4 ) for parameter maxResults is invalid. Expecting a value '
                'greater than 5.') in p.stderr, p.stderr)
            env = client_env(fx)
            env['AWS_SECRET_ACCESS_KEY'] = 'not-the-secret'
            p = run_aws(fx, cli, [], env)
            r.check('cli-wrong-key-AuthFailure', p.returncode != 0 and (
                'An error occurred (AuthFailure) when calling the DescribeInstances operation: '
                'AWS was not able to validate the provided access credentials') in p.stderr,
                p.stderr)
    finally:
        fx.stop(keep=r.failed > 0)
    r.finish()


if __name__ == '__main__':
    main()
