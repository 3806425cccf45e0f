"""botocore_sign.py - sign test_sigv4.py's cases with the botocore of the
interpreter running it, its clock pinned, and print JSON: per case the
canonical request, the string to sign and the header lines botocore adds.

pip botocore >= 1.3x reads the clock through botocore.auth.get_current_datetime
(patching it reproduces AWS's published IAM example); Debian's 1.29 calls
datetime.datetime.utcnow() in botocore.auth, so there botocore.auth.datetime
is patched instead. Cases come as JSON on stdin.
"""
import datetime
import json
import sys
from unittest import mock

import botocore
import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def sign(case):
    when = datetime.datetime.strptime(case['date'], '%Y%m%dT%H%M%SZ')
    headers = {}
    if case.get('content_type'):
        headers['Content-Type'] = case['content_type']
    req = AWSRequest(method=case['method'], url=case['url'], data=case.get('body', ''),
                     headers=headers)
    creds = Credentials(case['akid'], case['secret'], case.get('token'))
    auth = botocore.auth.SigV4Auth(creds, case['service'], case['region'])
    if hasattr(botocore.auth, 'get_current_datetime'):
        patch = mock.patch('botocore.auth.get_current_datetime', return_value=when)
    else:
        patch = mock.patch('botocore.auth.datetime')
    with patch as m:
        if not hasattr(botocore.auth, 'get_current_datetime'):
            m.datetime.utcnow.return_value = when
            m.datetime.strptime = datetime.datetime.strptime
        auth.add_auth(req)
        authz = req.headers['Authorization']
        del req.headers['Authorization']
        creq = auth.canonical_request(req)
        sts = auth.string_to_sign(req, creq)
    lines = ['X-Amz-Date: ' + req.headers['X-Amz-Date']]
    if case.get('token'):
        lines.append('X-Amz-Security-Token: ' + req.headers['X-Amz-Security-Token'])
    lines.append('Authorization: ' + authz)
    return {'canonical_request': creq, 'string_to_sign': sts, 'headers': lines}


def main():
    cases = json.load(sys.stdin)
    json.dump({'version': botocore.__version__,
               'signed': {c['name']: sign(c) for c in cases}}, sys.stdout)


if __name__ == '__main__':
    main()
