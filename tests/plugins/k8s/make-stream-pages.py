#!/usr/bin/python3
"""make-stream-pages.py - the protobuf answers of test-k8s-stream.c and the
stream seeds of fuzz-k8s-pages, encoded by tests/fixtures/k8s/k8s_proto.py
(python3-protobuf and protoc: Debian's /usr/bin/python3, not a pyenv one).

    make-stream-pages.py     writes tests/plugins/k8s/stream-pages/*.pb and
                             tests/fuzz/k8s/corpus/stream-*, and prints the
                             offsets test-k8s-stream.c's messages name

The files are committed: the tests read them and need no python. Run it
again after changing what it writes, and update the offsets in
test-k8s-stream.c from its output.

Pages (realistic pods of an Indexed Job 'worker' in namespace 'train', from
k8s_pods.generate, 6-7 KB each, so that pieces of 4096 bytes cut them):
    page1.pb      worker-0, worker-1; continue TOKEN, remainingItemCount 1,
                  resourceVersion 5000
    page2.pb      worker-2; the last page, resourceVersion 5000
    all.json      the three pods in one JSON PodList (no continue)
    two-listmeta.pb  page1 with a second ListMeta after its pods (continue
                  'other', resourceVersion 6000)
    raw-first.pb  page2's PodList, the envelope's raw before its typeMeta
    status-200.pb a Status (kind Status), sent with HTTP 200
    truncated.pb  page1 cut 1000 bytes into worker-1
    encoded.pb    page2 with contentEncoding "gzip"
    forbidden.pb  Status 403 Forbidden
    unavailable.pb  Status 503 ServiceUnavailable
    expired.pb    Status 410 Expired
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
sys.path.insert(0, os.path.join(SRC, 'tests', 'fixtures', 'k8s'))
import k8s_pods  # noqa: E402
import k8s_proto  # noqa: E402
from k8s_proto import field_bytes, _varint  # noqa: E402

PAGES = os.path.join(HERE, 'stream-pages')
SEEDS = os.path.join(SRC, 'tests', 'fuzz', 'k8s', 'corpus')
TOKEN = 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NTAwMCwic3RhcnQiOiJ3b3JrZXItMS0ifQ'


def item(pod):
    """k8s_proto.item_bytes, its maps in key order (as kube-apiserver's
    generated code writes them): the same bytes every run."""
    msg = k8s_proto.core_pb2.Pod.FromString(k8s_proto.pod_bytes(pod))
    return field_bytes(2, msg.SerializeToString(deterministic=True))


def key(num, wire):
    return _varint(num << 3 | wire)


def typemeta(kind):
    return field_bytes(1, field_bytes(1, b'v1') + field_bytes(2, kind.encode()))


def envelope(fields):
    """'k8s\\0' and the Unknown's fields, as given (in any order)."""
    return k8s_proto.MAGIC + b''.join(fields)


def podlist(meta, items):
    """A PodList's bytes (raw): ListMeta (JSON form) and encoded items."""
    lm = k8s_proto.meta_pb2.ListMeta()
    k8s_proto._set(lm, meta)
    return field_bytes(1, lm.SerializeToString()) + b''.join(items)


def small_pod(name, ip):
    return item({
        'metadata': {'name': name, 'namespace': 'train', 'uid': 'uid-' + name,
                     'resourceVersion': '7', 'labels': {'job-name': 'worker'},
                     'annotations': {'batch.kubernetes.io/job-completion-index':
                                     name.rsplit('-', 1)[1]}},
        'spec': {'hostname': name, 'subdomain': 'worker'},
        'status': {'phase': 'Running', 'podIP': ip, 'podIPs': [{'ip': ip}]}})


def small_list(items, meta=None, extra=b''):
    """An envelope around a PodList of @items (encoded), with @extra PodList
    fields after its ListMeta."""
    lm = k8s_proto.meta_pb2.ListMeta()
    k8s_proto._set(lm, meta or {'resourceVersion': '9', 'continue': 'tok'})
    raw = field_bytes(1, lm.SerializeToString()) + extra + b''.join(items)
    return envelope([typemeta('PodList'), field_bytes(2, raw), field_bytes(3, b''),
                     field_bytes(4, b'')])


def status(code, reason, message):
    return k8s_proto.status({'status': 'Failure', 'message': message, 'reason': reason,
                             'code': code})


def write(path, data):
    with open(path, 'wb') as f:
        f.write(data)


def seed(name, page, sizes=(), ns=True, refuse=False):
    """A fuzz-k8s-pages input: the flags byte (protobuf; bits 2-4 the number
    of piece sizes; bit 5 the callback refuses the second pod), the sizes,
    the page."""
    flags = 2 | (1 if ns else 0) | len(sizes) << 2 | (0x20 if refuse else 0)
    data = bytes([flags] + list(sizes)) + page
    assert len(data) <= 16384, (name, len(data))
    write(os.path.join(SEEDS, 'stream-' + name), data)


def main():
    os.makedirs(PAGES, exist_ok=True)
    pods = [k8s_pods.make_pod(s, i) for i, s in
            enumerate(k8s_pods.generate('worker', 3, 'train'))]
    items = [item(p) for p in pods]
    page1 = k8s_proto.pod_list({'resourceVersion': '5000', 'continue': TOKEN,
                                'remainingItemCount': 1}, items[:2])
    page2 = k8s_proto.pod_list({'resourceVersion': '5000'}, items[2:])
    # where worker-1 begins in page1: after magic, typeMeta, raw's key and
    # length, the ListMeta and worker-0
    raw1 = k8s_proto.MAGIC + typemeta('PodList')
    list1 = podlist({'resourceVersion': '5000', 'continue': TOKEN,
                     'remainingItemCount': 1}, items[:2])
    meta1 = list1[:len(list1) - len(items[0]) - len(items[1])]
    head = len(raw1) + len(key(2, 2)) + len(_varint(len(list1)))
    assert page1 == raw1 + field_bytes(2, list1) + field_bytes(3, b'') + field_bytes(4, b'')
    assert page1[head:head + len(meta1)] == meta1
    worker1 = head + len(meta1) + len(items[0])
    assert page1[worker1:worker1 + len(items[1])] == items[1]
    write(os.path.join(PAGES, 'page1.pb'), page1)
    write(os.path.join(PAGES, 'page2.pb'), page2)
    with open(os.path.join(PAGES, 'all.json'), 'w') as f:
        json.dump({'kind': 'PodList', 'apiVersion': 'v1',
                   'metadata': {'resourceVersion': '5000'},
                   'items': [dict(p, kind='Pod', apiVersion='v1') for p in pods]},
                  f, separators=(',', ':'))
    # a second ListMeta after the pods: the first stands
    list1b = list1 + podlist({'resourceVersion': '6000', 'continue': 'other'}, [])
    write(os.path.join(PAGES, 'two-listmeta.pb'),
          raw1 + field_bytes(2, list1b) + field_bytes(3, b'') + field_bytes(4, b''))
    raw2 = podlist({'resourceVersion': '5000'}, items[2:])
    write(os.path.join(PAGES, 'raw-first.pb'),
          envelope([field_bytes(2, raw2), typemeta('PodList'), field_bytes(3, b''),
                    field_bytes(4, b'')]))
    write(os.path.join(PAGES, 'status-200.pb'),
          status(200, 'Success', 'not a list'))
    write(os.path.join(PAGES, 'truncated.pb'), page1[:worker1 + 1000])
    assert page2.endswith(b'\x1a\x00\x22\x00')
    encoded = page2[:-4] + field_bytes(3, b'gzip') + field_bytes(4, b'')
    write(os.path.join(PAGES, 'encoded.pb'), encoded)
    write(os.path.join(PAGES, 'forbidden.pb'),
          status(403, 'Forbidden', 'pods is forbidden: User "u" cannot list resource '
                 '"pods" in API group "" in the namespace "train"'))
    write(os.path.join(PAGES, 'unavailable.pb'),
          status(503, 'ServiceUnavailable', 'the server is currently unable to handle '
                 'the request'))
    write(os.path.join(PAGES, 'expired.pb'),
          status(410, 'Expired', 'The provided continue parameter is too old to display '
                 'a consistent list result.'))
    print('page1.pb: %d bytes; worker-1 (the item truncated.pb cuts) at offset %d'
          % (len(page1), worker1))

    # ---- fuzz seeds: the stream reader's paths ------------------------
    w0, w1, w2 = (small_pod('w-%d' % i, '10.9.0.%d' % i) for i in range(3))
    seed('real-page', page1, (6, 207))  # pieces of 7 and 4096 bytes
    seed('real-page-refuse-second', page1, (255,), refuse=True)  # one piece
    seed('small-straddle', small_list([w0, w1, w2]), (0, 1, 2, 4, 10))
    unknown = (field_bytes(5, b'\x0a\x03abc') + field_bytes(6, b'') + key(7, 0) + b'\x96\x01' +
               key(8, 1) + b'12345678' + key(9, 5) + b'1234' + field_bytes(300, b'zz'))
    seed('unknown-list-fields', small_list([w0, w1], extra=unknown), (2, 5))
    raw = small_list([w0, w1])[4 + len(typemeta('PodList')):]
    seed('raw-before-typemeta', envelope([raw, typemeta('PodList')]), (3,))
    seed('repeat-raw', envelope([typemeta('PodList'), raw, raw]), (8,))
    seed('typemeta-after-raw', envelope([typemeta('PodList'), raw, typemeta('PodList')]), (8,))
    seed('kind-status-200', status(200, 'Success', 'not a list'), (1,))
    seed('kind-pod', envelope([typemeta('Pod'), field_bytes(2, w0[2:])]), (4,))
    enc = small_list([w0, w1])
    seed('content-encoding', enc[:-4] + field_bytes(3, b'gzip') + field_bytes(4, b''), (6,))
    seed('content-encoding-first',
         envelope([field_bytes(3, b'gzip'), typemeta('PodList'), raw]), (6,))
    page = small_list([w0, w1, w2])
    for cut in (2, 6, 12, 21, 23, 30, len(page) // 2, len(page) - 5, len(page) - 3):
        seed('truncated-%d' % cut, page[:cut], (cut % 5,))
    lm = field_bytes(1, field_bytes(3, b'tok'))
    for name, field in (('meta-varint', key(1, 0) + b'\x05'),
                        ('items-varint', key(2, 0) + b'\x81\x01'),
                        ('meta-fixed64', key(1, 1) + b'12345678'),
                        ('items-fixed32', key(2, 5) + b'1234')):
        body = lm + w0 + field + w1
        seed('list-' + name,
             envelope([typemeta('PodList'), key(2, 2) + _varint(len(body)) + body]), (3,))
    # a PodList whose length ends inside a field's header or value
    body = lm + w0 + w1
    for short in (1, 2, 3):
        seed('list-shorter-%d' % short,
             envelope([typemeta('PodList'), key(2, 2) + _varint(len(body) - short) + body]),
             (short,))
    seed('two-listmeta',
         small_list([w0, field_bytes(1, field_bytes(2, b'77') + field_bytes(3, b'other'))]),
         (5,))
    seed('empty-body', b'', ())
    seed('empty-list', envelope([typemeta('PodList'), field_bytes(2, b'')]), (0,))
    seed('not-protobuf', b'{"kind":"PodList","items":[]}', (2,))
    seed('bad-pod-after-good', small_list([w0, field_bytes(2, b'\x0a\x02\x0a\x05')]), (4,))
    return 0


if __name__ == '__main__':
    sys.exit(main())
