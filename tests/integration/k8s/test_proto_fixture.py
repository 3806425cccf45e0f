#!/usr/bin/python3
"""The fixture's protobuf is what its JSON says, read by real clients: curl
fetches each page over TLS twice (Accept: JSON, then Accept:
application/vnd.kubernetes.protobuf); the protobuf answer is unwrapped here
(the b'k8s\\0' magic and runtime.Unknown, read byte by byte) and decoded by
the real protoc (its C++ parser, not the Python encoder that wrote it)
against the fixture's schema; every pod, continue token and remaining count
must equal the JSON page's, field by field. Error answers (404, an expired
continue token) and the refusal of a server without protobuf are checked
the same way.
"""
import base64
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_harness as h  # noqa: E402

sys.path.insert(0, os.path.join(h.SRC, 'tests/fixtures/k8s'))
import k8s_fixture  # noqa: E402
import k8s_proto  # noqa: E402
from google.protobuf import text_format  # noqa: E402

PB = 'application/vnd.kubernetes.protobuf'
PROTO_DIR = os.path.join(h.SRC, 'tests/fixtures/k8s/proto')


def curl(fx, path, accept):
    """GET @path: (status, content type, body) as curl got them."""
    p = subprocess.run(['curl', '-sS', '--cacert', os.path.join(fx.dir, 'ca.crt'),
                        '-H', 'Authorization: Bearer ' + h.TOKEN, '-H', 'Accept: ' + accept,
                        '-o', '-', '-w', '\n%{http_code} %{content_type}',
                        'https://127.0.0.1:%d%s' % (fx.port, path)],
                       capture_output=True, check=True)
    body, _, tail = p.stdout.rpartition(b'\n')
    code, _, ctype = tail.decode().partition(' ')
    return int(code), ctype, body


def varint(b, i):
    n = shift = 0
    while True:
        c = b[i]
        n |= (c & 0x7f) << shift
        i, shift = i + 1, shift + 7
        if c < 0x80:
            return n, i


def unwrap(body):
    """(kind, apiVersion, raw) of a protobuf answer, read by hand."""
    if body[:4] != b'k8s\x00':
        raise ValueError('no magic: %r' % body[:8])
    fields, i = {}, 4
    while i < len(body):
        key, i = varint(body, i)
        if key & 7 != 2:
            raise ValueError('Unknown field %d has wire type %d' % (key >> 3, key & 7))
        n, i = varint(body, i)
        fields[key >> 3], i = body[i:i + n], i + n
    tm, j, meta = fields.get(1, b''), 0, {}
    while j < len(tm):
        key, j = varint(tm, j)
        n, j = varint(tm, j)
        meta[key >> 3], j = tm[j:j + n].decode(), j + n
    return meta.get(2), meta.get(1), fields.get(2, b'')


def protoc(message, raw):
    """protoc --decode: the text format of @raw as @message."""
    p = subprocess.run(['protoc', '-I' + PROTO_DIR, '--decode=' + message] +
                       [os.path.join(PROTO_DIR, f) for f in k8s_proto.PROTOS],
                       input=raw, capture_output=True, check=True)
    return p.stdout.decode()


def from_text(cls, text):
    msg = cls()
    text_format.Parse(text, msg)
    return k8s_proto.to_json(msg)


def drop_nulls(o):
    if isinstance(o, dict):
        return {k: drop_nulls(v) for k, v in o.items() if v is not None}
    if isinstance(o, list):
        return [drop_nulls(v) for v in o]
    return o


def token_pos(meta):
    """ListMeta with the continue token's position, not the moment it was
    issued (each answer issues its own)."""
    meta = dict(meta or {})
    if 'continue' in meta:
        tok = json.loads(base64.urlsafe_b64decode(meta['continue']))
        meta['continue'] = {k: v for k, v in tok.items() if k != 't'}
    return meta


def compare_lists(fx, res, ns, selector, limit):
    path = '/api/v1/namespaces/%s/pods?labelSelector=%s&limit=%d' % (ns, selector, limit)
    cont, pages, pods = None, 0, 0
    while True:
        q = path + ('&continue=' + cont if cont else '')
        jcode, jtype, jbody = curl(fx, q, 'application/json')
        pcode, ptype, pbody = curl(fx, q, PB + ', application/json')
        problems = []
        if (jcode, jtype, pcode, ptype) != (200, 'application/json', 200, PB):
            problems.append('answers %s %s / %s %s' % (jcode, jtype, pcode, ptype))
        page = json.loads(jbody)
        kind, api, raw = unwrap(pbody)
        if (kind, api) != ('PodList', 'v1'):
            problems.append('envelope %s %s' % (kind, api))
        got = from_text(k8s_proto.core_pb2.PodList, protoc('k8s.io.api.core.v1.PodList', raw))
        want = drop_nulls({'metadata': page['metadata'], 'items': page['items']})
        if token_pos(got.get('metadata')) != token_pos(want['metadata']):
            problems.append('metadata %s, JSON %s' % (got.get('metadata'), want['metadata']))
        names = [p['metadata']['name'] for p in want['items']]
        if [p['metadata']['name'] for p in got.get('items', [])] != names:
            problems.append('pods %s, JSON %s' % ([p['metadata']['name']
                                                    for p in got.get('items', [])], names))
        for g, w in zip(got.get('items', []), want['items']):
            if g != w:
                bad = sorted(k for k in set(g) | set(w) if g.get(k) != w.get(k))
                problems.append('%s differs in %s' % (w['metadata']['name'], bad))
        pages += 1
        pods += len(names)
        res.check('protobuf page %d of %s %s (limit %d): %d pods as in JSON'
                  % (pages, ns, selector, limit, len(names)), not problems,
                  '\n'.join('  ' + p for p in problems))
        cont = page['metadata'].get('continue')
        if not cont:
            return pods


def check_status(res, name, answer, code, reason, message):
    got_code, ctype, body = answer
    kind, api, raw = unwrap(body) if body[:4] == b'k8s\x00' else (None, None, b'')
    st = from_text(k8s_proto.meta_pb2.Status,
                   protoc('k8s.io.apimachinery.pkg.apis.meta.v1.Status', raw)) if kind else {}
    want = {'metadata': {}, 'status': 'Failure', 'message': message, 'reason': reason,
            'code': code}
    got = {k: v for k, v in st.items() if k != 'details'}
    ok = (got_code, ctype, kind, api, got) == (code, PB, 'Status', 'v1', want)
    res.check(name, ok, '  got %s %s %s %s %s' % (got_code, ctype, kind, api, got))


def main():
    h.ensure_hermetic()
    res = h.Results()
    fx = h.Fixture(pods=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pods.json'),
                   extra=['--generate', 'gen=23:bench'])
    try:
        n = compare_lists(fx, res, 'train', 'job-name%3Dworker', 4)
        res.check('every train worker compared (%d)' % n, n == 11)
        n = compare_lists(fx, res, 'bench', 'job-name%3Dgen', 10)
        res.check('every generated pod compared (%d)' % n, n == 23)
        check_status(res, '404 for a missing pod: a protobuf Status',
                     curl(fx, '/api/v1/namespaces/train/pods/nope', PB), 404, 'NotFound',
                     'pods "nope" not found')
        tok = base64.urlsafe_b64encode(json.dumps(
            {'v': 'meta.k8s.io/v1', 'rv': 1, 'start': 2, 't': 0}).encode()).decode()
        check_status(res, '410 for an expired continue token: a protobuf Status',
                     curl(fx, '/api/v1/namespaces/train/pods?limit=2&continue=' + tok, PB),
                     410, 'Expired', k8s_fixture.EXPIRED_MSG)
        fx.set_faults([{'protobuf': 'ignore', 'count': -1}])
        code, ctype, body = curl(fx, '/api/v1/namespaces/train/pods?limit=1',
                                 PB + ', application/json')
        res.check('a server without protobuf answers the next type: JSON',
                  (code, ctype, json.loads(body)['kind']) == (200, 'application/json',
                                                              'PodList'),
                  '  got %s %s' % (code, ctype))
        code, ctype, body = curl(fx, '/api/v1/namespaces/train/pods?limit=1', PB)
        res.check('... and 406 when protobuf is all that is accepted',
                  (code, ctype, json.loads(body)['message']) == (
                      406, 'application/json', 'only the following media types are '
                      'accepted: application/json, application/json;as=Table;v=v1;'
                      'g=meta.k8s.io'), '  got %s %s %s' % (code, ctype, body[:200]))
    finally:
        fx.stop(keep=res.failed > 0)
    res.finish()


if __name__ == '__main__':
    main()
