#!/usr/bin/python3
"""aws.so's SigV4 signer against AWS's published example, the SigV4
test-suite requests and EC2 Query requests. For every case the expected
canonical request, string to sign and headers are recomputed in this run
by botocore with its clock pinned: pip botocore 1.43 (pyenv's python) and
Debian's python3-botocore 1.29 when each is present; the published IAM
signature 5d672d79...b5d7 is also checked as a fixed value. The C signer's
headers must also pass tests/fixtures/aws/sigv4_verify.py, the fixture's
independent verifier, and fail it when one byte of the body changes.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('CR_TEST_SOURCE_DIR', os.path.normpath(os.path.join(HERE, '../../..')))
sys.path.insert(0, os.path.join(SRC, 'tests/fixtures/aws'))
import sigv4_verify  # noqa: E402

# AWS's documented example key pair (SigV4 docs and test suite): not a secret.
AKID = 'AKIDEXAMPLE'
SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY'
TOKEN = ('AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMi'
         'cRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampK'
         'sburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u'
         '0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==')
FORM = 'application/x-www-form-urlencoded; charset=utf-8'
EC2_BODY = ('Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3Arole'
            '&Filter.1.Value.1=worker&Filter.2.Name=instance-state-name'
            '&Filter.2.Value.1=running&MaxResults=1000&NextToken=eyJ2IjoxLCJwIjoxfQ%3D%3D')
IAM_SIGNATURE = '5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7'
D = '20150830T123600Z'


def case(name, method, url, service='service', content_type=None, body='', token=None,
         date=D, region='us-east-1'):
    return {'name': name, 'method': method, 'url': url, 'service': service,
            'content_type': content_type, 'body': body, 'token': token, 'date': date,
            'region': region, 'akid': AKID, 'secret': SECRET}


EX = 'https://example.amazonaws.com'
CASES = [
    case('iam-listusers', 'GET', 'https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08',
         service='iam', content_type=FORM),
    case('get-vanilla', 'GET', EX + '/'),
    case('get-vanilla-empty-query-key', 'GET', EX + '/?Param1=value1'),
    case('get-vanilla-query-order-key-case', 'GET', EX + '/?Param2=value2&Param1=value1'),
    case('get-vanilla-query-order-value', 'GET', EX + '/?Param1=value2&Param1=Value1'),
    case('get-vanilla-query-unreserved', 'GET',
         EX + '/?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz='
         '-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'),
    case('get-utf8', 'GET', EX + '/\u1234'),
    case('get-relative-relative', 'GET', EX + '/example1/example2/../..'),
    case('get-relative', 'GET', EX + '/example/..'),
    case('get-slash-dot-slash', 'GET', EX + '/./'),
    case('get-slashes', 'GET', EX + '//example//'),
    case('get-space', 'GET', EX + '/example space/'),
    case('get-vanilla-with-session-token', 'GET', EX + '/', token=TOKEN),
    case('post-vanilla', 'POST', EX + '/'),
    case('post-vanilla-query', 'POST', EX + '/?Param1=value1'),
    case('post-x-www-form-urlencoded', 'POST', EX + '/',
         content_type='application/x-www-form-urlencoded', body='Param1=value1'),
    case('post-x-www-form-urlencoded-parameters', 'POST', EX + '/', content_type=FORM,
         body='Param1=value1'),
    case('ec2-describe-instances', 'POST', 'https://ec2.us-east-1.amazonaws.com/',
         service='ec2', content_type=FORM, body=EC2_BODY, date='20261123T190000Z'),
    case('ec2-port-kept', 'POST', 'https://127.0.0.1:8443/', service='ec2',
         content_type=FORM, body=EC2_BODY, date='20261123T190000Z'),
    case('ec2-default-port-dropped', 'POST', 'https://ec2.eu-west-1.amazonaws.com:443/',
         service='ec2', content_type=FORM, body=EC2_BODY, region='eu-west-1'),
    case('ec2-http-port-kept', 'POST', 'http://localhost:80/', service='ec2',
         content_type=FORM, body='Action=DescribeInstances&Version=2016-11-15'),
    case('ec2-ipv6-host-port-kept', 'POST', 'https://[::1]:8443/', service='ec2',
         content_type=FORM, body=EC2_BODY),
    case('ec2-host-lower-cased', 'POST', 'https://EC2.US-EAST-1.AmazonAWS.com/', service='ec2',
         content_type=FORM, body=EC2_BODY),
    case('ec2-session-token', 'POST', 'https://127.0.0.1:8443/', service='ec2',
         content_type=FORM, body=EC2_BODY, token=TOKEN),
    case('sts-assume-role', 'POST', 'https://sts.us-west-2.amazonaws.com/', service='sts',
         region='us-west-2', content_type=FORM,
         body='Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A'
              '123456789012%3Arole%2Ftrain&RoleSessionName=cr-1'),
]
# botocore keeps a default port written in the URL out of the host header
# only for the scheme's own default: http://localhost:80 is "localhost".


def botocore_runs():
    """[(label, python)] for each botocore present: pip 1.43 and Debian's."""
    runs = []
    pyenv = os.environ.get('CR_PYENV_PYTHON', '/root/.pyenv/versions/3.11.7/bin/python3')
    for label, py in (('pip', pyenv), ('debian', '/usr/bin/python3')):
        if os.path.exists(py) and subprocess.run(
                [py, '-c', 'import botocore'], capture_output=True).returncode == 0:
            runs.append((label, py))
    return runs


def c_sign(tool, c, tmp):
    body = os.path.join(tmp, 'body')
    with open(body, 'w') as f:
        f.write(c['body'])
    p = subprocess.run([tool, c['method'], c['url'], c['region'], c['service'],
                        c['content_type'] or '-', body if c['body'] else '-', c['date'],
                        c['akid'], c['secret'], c['token'] or '-'],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr
    creq, sts, hdrs = p.stdout.split('\n--\n')
    return {'canonical_request': creq, 'string_to_sign': sts,
            'headers': hdrs.strip('\n').split('\n')}, p.stderr


def verify_with_fixture(c, got):
    """The independent verifier accepts the C signer's headers (sent with
    Content-Type and the Host curl derives from the URL), and refuses them
    when the body changes."""
    import datetime
    import urllib.parse
    u = urllib.parse.urlsplit(c['url'])
    default = {'http': 80, 'https': 443}[u.scheme]
    name = '[%s]' % u.hostname if ':' in u.hostname else u.hostname
    host = name if u.port in (None, default) else '%s:%d' % (name, u.port)
    headers = [('Host', host)] + [tuple(h.split(': ', 1)) for h in got['headers']]
    if c['content_type']:
        headers.append(('Content-Type', c['content_type']))
    # the path as the signer was given it (botocore and the plugin encode it
    # once more; the wire form of get-utf8 would be encoded twice)
    target = u.path + ('?' + u.query if u.query else '')
    now = datetime.datetime.strptime(c['date'], '%Y%m%dT%H%M%SZ').replace(
        tzinfo=datetime.timezone.utc)
    secrets = {AKID: (SECRET, c['token'])}
    good = sigv4_verify.verify(c['method'], target, headers, c['body'].encode(), secrets,
                               now=now)
    bad = sigv4_verify.verify(c['method'], target, headers, c['body'].encode() + b'x',
                              secrets, now=now)
    return good.ok and not bad.ok and bad.code == 'AuthFailure'


def main():
    tool = os.environ.get('CR_AWS_SIGV4_SIGN')
    if not tool or not os.path.exists(tool):
        print('SKIP: CR_AWS_SIGV4_SIGN is not set (run through ctest)')
        sys.exit(77)
    runs = botocore_runs()
    if not runs:
        print('SKIP: no botocore (pip botocore 1.43 or python3-botocore) installed')
        sys.exit(77)
    expected = {}
    for label, py in runs:
        p = subprocess.run([py, os.path.join(HERE, 'botocore_sign.py')],
                           input=json.dumps(CASES), capture_output=True, text=True, check=True)
        out = json.loads(p.stdout)
        expected[label] = out['signed']
        print('# %s botocore %s' % (label, out['version']))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in CASES:
            got, why = c_sign(tool, c, tmp)
            problems = []
            if got is None:
                problems.append('signer refused: ' + why)
            else:
                for label, signed in expected.items():
                    for k in ('canonical_request', 'string_to_sign', 'headers'):
                        if got[k] != signed[c['name']][k]:
                            problems.append('%s differs from %s botocore:\n  got  %r\n  want %r'
                                            % (k, label, got[k], signed[c['name']][k]))
                if c['name'] == 'iam-listusers' and not got['headers'][-1].endswith(
                        'Signature=' + IAM_SIGNATURE):
                    problems.append('not the published signature: %r' % got['headers'][-1])
                if not verify_with_fixture(c, got):
                    problems.append('sigv4_verify.py disagrees')
            if problems:
                failed += 1
                print('not ok - %s\n  %s' % (c['name'], '\n  '.join(problems)))
            else:
                print('ok - %s' % c['name'])
    print('%d passed, %d failed' % (len(CASES) - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
