#!/usr/bin/python3
"""pages.py DIR NAMESPACE SELECTOR LIMIT [ACCEPT] - walk a pod list on the
fixture in DIR and print a curl config that fetches exactly the same pages
(the continue tokens stay valid: the fixture's data does not change), asking
for ACCEPT (default application/json: the same pages in another encoding)."""
import json
import ssl
import sys
import urllib.parse
import urllib.request

d, ns, sel, limit = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
accept = sys.argv[5] if len(sys.argv) > 5 else 'application/json'
port = int(open(d + '/port').read())
token = 'fixture-token-0123456789'
ctx = ssl.create_default_context(cafile=d + '/ca.crt')
base = 'https://127.0.0.1:%d/api/v1/namespaces/%s/pods' % (port, ns)
cont, urls = None, []
while True:
    q = {'labelSelector': sel, 'limit': limit}
    if cont:
        q['continue'] = cont
    url = base + '?' + urllib.parse.urlencode(q, quote_via=urllib.parse.quote)
    urls.append(url)
    req = urllib.request.Request(url, headers={'Authorization': 'Bearer ' + token,
                                               'Accept': 'application/json'})
    with urllib.request.urlopen(req, context=ctx) as r:
        cont = json.load(r)['metadata'].get('continue')
    if not cont:
        break
print('silent\nfail\ncacert = "%s/ca.crt"\nheader = "Authorization: Bearer %s"\n'
      'header = "Accept: %s"' % (d, token, accept))
for u in urls:
    print('url = "%s"\noutput = "/dev/null"' % u)
