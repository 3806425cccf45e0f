#!/usr/bin/python3
"""pages.py DIR PORT AKID SECRET PAGE_SIZE - walk one DescribeInstances
listing of the fixture in DIR with curl (untimed) and print a curl config
that posts exactly the same pages again, each signed by curl's own
--aws-sigv4, in one curl process over one kept-alive connection: the
baseline bench/aws.sh times against aws.so."""
import re
import subprocess
import sys
import urllib.parse

d, port, akid, secret, size = sys.argv[1:6]
FORM = 'application/x-www-form-urlencoded; charset=utf-8'
BASE = ('Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3Arole'
        '&Filter.1.Value.1=worker&Filter.2.Name=instance-state-name'
        '&Filter.2.Value.1=running&MaxResults=' + size)


def group(body):
    return ('url = "https://127.0.0.1:%s/"\ncacert = "%s/ca.crt"\naws-sigv4 = "aws:amz:us-east-1:'
            'ec2"\nuser = "%s:%s"\nheader = "Content-Type: %s"\ndata = "%s"\noutput = '
            '"/dev/null"\nsilent\nshow-error\nfail\n' % (port, d, akid, secret, FORM, body))


bodies, token = [BASE], None
while True:
    cfg = group(bodies[-1]).replace('output = "/dev/null"\n', '')
    page = subprocess.run(['curl', '-K', '-'], input=cfg, capture_output=True, text=True,
                          check=True).stdout
    m = re.search(r'<nextToken>([^<]+)</nextToken>', page)
    if not m:
        break
    bodies.append(BASE + '&NextToken=' + urllib.parse.quote(m.group(1), safe=''))
print('next\n'.join(group(b) for b in bodies), end='')
