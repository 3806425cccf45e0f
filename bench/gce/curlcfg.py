#!/usr/bin/python3
"""curlcfg.py DIR TOKEN - a curl config (-K) making exactly the requests the
plugin made, as requests.jsonl logged them: the metadata reads over HTTP and
the Compute pages over HTTPS (same method, path, query and body), in order,
in one curl process (connections kept alive). Prints it; also prints to
stderr "listInstances instances maxnames" counts."""
import json
import sys
import urllib.parse

d, token = sys.argv[1], sys.argv[2]
api = int(open(d + '/api.port').read())
meta = int(open(d + '/metadata.port').read())
reqs = [json.loads(line) for line in open(d + '/requests.jsonl')]
out = ['silent', 'show-error']
lists = chunks = maxnames = 0
first = True
for r in reqs:
    if not first:
        out.append('next')
    first = False
    if r['server'] == 'metadata':
        out.append('url = "http://127.0.0.1:%d%s%s"' % (meta, r['path'],
                                                         '?' + r['query'] if r['query'] else ''))
        out.append('header = "Metadata-Flavor: Google"')
    else:
        out.append('url = "https://127.0.0.1:%d%s?%s"' % (api, r['path'], r['query']))
        out.append('cacert = "%s/ca.crt"' % d)
        out.append('header = "Authorization: Bearer %s"' % token)
        if r['method'] == 'POST':
            out.append('header = "Content-Type: application/json"')
            out.append('data = %s' % json.dumps(json.dumps(r.get('body', {}),
                                                          separators=(',', ':'))))
            lists += 1
        else:
            chunks += 1
            f = urllib.parse.parse_qs(r['query']).get('filter', [''])[0]
            maxnames = max(maxnames, f.count('|') + 1)
    out.append('fail')
    out.append('output = "/dev/null"')
print('\n'.join(out))
print(lists, chunks, maxnames, file=sys.stderr)
