"""The cases of test_k8s.py (cases_resolve.py) on how the pods are listed:
paging and expired continue tokens, Table rows, the watch cache, start
jitter, retries, lists that never end, the same pod listed twice, and pages
that are not what they should be (JSON and protobuf), cut or late.
"""
from cases_resolve_common import (
    CREATE, EP, ERR, TABLE, W, WARN, WJOB, WORKERS, addrs, conf, delay_logged, jitter_logged,
    out, pb_page, pb_pod, pbf, settle, uid_page)


CASES = [
    # ---- paging and faults -------------------------------------------------
    dict(name='paging-small-pages',
         conf=conf('page_size = 2; ' + WJOB), out=out(WORKERS),
         requests=[(200, '2', False)] + [(200, '2', True)] * 5,
         conns='AAAAAA'),  # one kept-alive connection for every page
    dict(name='paging-one-per-page',
         conf=conf('page_size = 1; jobs = { ps = [ "app=ps" ]; };'),
         out=out('{"ps": %s}' % addrs(['10.2.1.10', '10.2.1.11', '10.2.1.12'])),
         requests=[(200, '1', False), (200, '1', True), (200, '1', True)]),
    dict(name='paging-410-restarts-once',
         conf=conf('page_size = 4; ' + WJOB), out=out(WORKERS),
         faults=[{'expire_continue': True, 'count': 1}],
         requests=[(200, '4', False), (410, '4', True), (200, '4', False), (200, '4', True),
                   (200, '4', True)], conns='AAAAA'),
    dict(name='paging-410-twice-fails',
         conf=conf('page_size = 4; ' + WJOB), rc=1,
         faults=[{'expire_continue': True, 'count': 2}],
         err=ERR + EP + ': HTTP 410 Expired: The provided continue parameter is too old to '
                        'display a consistent list result. You can start a new list without the '
                        'continue parameter, or use the continue token in this response to '
                        'retrieve the rema...'),
    # ---- Table rows, when the options need no more than name, status, IP ---
    dict(name='table-rows',
         conf=conf(TABLE + 'page_size = 4; ' + WJOB), out=out(WORKERS),
         requests=[(200, '4', False), (200, '4', True), (200, '4', True)],
         forms=[('table', 200, 'table')] * 3, conns='AAA'),
    dict(name='table-rows-own-pod',  # POD_NAME is enough to find oneself
         conf=conf(TABLE + WJOB), env={'POD_NAME': 'worker-3-m2n4p'},
         out=out(WORKERS, ('worker', 3), 'grpc://10.2.0.13:8470')),
    dict(name='table-not-with-accelerators',  # the default needs container limits
         conf=conf('order = "name"; page_size = 4; ' + WJOB),
         out=out(WORKERS), forms=[('protobuf', 200, 'protobuf')] * 3),
    dict(name='table-not-with-list-format-json',
         conf=conf(TABLE + 'list_format = "json"; ' + WJOB), out=out(WORKERS),
         forms=[('json', 200, 'json')]),
    dict(name='table-not-with-all-namespaces',  # rows carry no namespace
         conf=conf(TABLE + 'namespace = "*"; ' + WJOB),
         out=out('{"worker": %s}' % addrs(['10.3.0.1'] + W)),  # other/worker-0 first by name
         forms=[('protobuf', 200, 'protobuf')]),
    dict(name='table-not-with-hostname',  # HOSTNAME may be spec.hostname: full pods
         conf=conf(TABLE + WJOB), env={'HOSTNAME': 'worker-3-m2n4p'},
         out=out(WORKERS, ('worker', 3), 'grpc://10.2.0.13:8470'),
         forms=[('protobuf', 200, 'protobuf')]),
    dict(name='table-406-falls-back-to-json',
         conf=conf(TABLE + 'page_size = 4; ' + WJOB), out=out(WORKERS),
         faults=[{'status': 406, 'accept': 'as=Table', 'count': 1,
                  'message': 'only the following media types are accepted: application/json'}],
         forms=[('table', 406, 'json')] + [('protobuf', 200, 'protobuf')] * 3, conns='AAAA'),
    dict(name='table-ignored-by-server',  # a server without Table: PodList pages
         conf=conf(TABLE + 'page_size = 4; ' + WJOB), out=out(WORKERS),
         faults=[{'table': 'ignore', 'count': -1, 'path': '/api/v1/namespaces/train/pods'}],
         forms=[('table', 200, 'json')] * 3),
    dict(name='table-row-not-running-falls-back',  # "ContainerCreating": what phase?
         conf=conf(TABLE + 'not_running = "skip"; page_size = 1; '
                   'jobs = { e = [ "job-name=evaluator" ]; };'),
         out=out('{"e": %s}' % addrs(['10.2.4.1'])),
         # the token of page 2 is read, and page 3 asked for, before its row
         forms=[('table', 200, 'table')] * 3 + [('protobuf', 200, 'protobuf')] * 3),
    dict(name='table-where-podlist-asked',  # a broken server: rows for plain JSON
         conf=conf(WJOB), rc=1,
         faults=[{'body': '{"kind":"Table","metadata":{},"columnDefinitions":[],"rows":[]}'}],
         err=ERR + EP + ': answer is a Table that does not say enough, where a PodList was '
                        'asked for'),
    dict(name='table-row-not-running-error',
         conf=conf(TABLE + 'jobs = { e = [ "job-name=evaluator" ]; };'), rc=1,
         err=ERR + 'Pod "evaluator-1" is not running; phase: "Pending"'),

    # ---- the watch cache ----------------------------------------------------
    dict(name='list-from-cache-one-answer',  # the cache ignores limit (before 1.31)
         conf=conf('list_from_cache = true; page_size = 4; ' + WJOB), out=out(WORKERS),
         requests=[(200, '4', False)],
         queries=[{'resourceVersion': '0', 'resourceVersionMatch': 'NotOlderThan'}]),
    dict(name='list-from-cache-table',
         conf=conf(TABLE + 'list_from_cache = true; ' + WJOB), out=out(WORKERS),
         forms=[('table', 200, 'table')],
         queries=[{'resourceVersion': '0', 'resourceVersionMatch': 'NotOlderThan'}]),
    dict(name='start-jitter',  # waits up to 0.3 s, then lists as usual
         conf=conf('start_jitter = 0.3; ' + WJOB), out=out(WORKERS),
         args=['-v', 'resolve', '--format', 'json'], check_err=jitter_logged(300),
         requests=[(200, '500', False)]),
    dict(name='config-start-jitter-range',
         conf=conf('start_jitter = -1.0; ' + WJOB), rc=2,
         err='cluster-resolver: @DIR@/case.conf:1: resolver \'k8s\': key \'start_jitter\' is -1, out of its '
             'range 0..3600'),
    dict(name='config-bad-order',
         conf=conf('order = "random";' + WJOB), rc=2,
         err=CREATE + 'order "random" is not one of index or name'),
    dict(name='config-bad-list-format',
         conf=conf('list_format = "yaml";' + WJOB), rc=2,
         err=CREATE + 'list_format "yaml" is not one of auto, json or protobuf'),

    dict(name='retry-429-honours-retry-after',
         conf=conf(WJOB), out=out(WORKERS),
         faults=[{'status': 429, 'retry_after': 1, 'count': 1}],
         requests=[(429, '500', False), (200, '500', False)]),
    dict(name='retry-5xx-with-backoff',
         conf=conf('page_size = 6; ' + WJOB), out=out(WORKERS),
         faults=[{'status': 503, 'count': 1}, {'status': 500, 'count': 1,
                                               'continue_only': True}],
         requests=[(503, '6', False), (200, '6', False), (500, '6', True), (200, '6', True)],
         conns='AAAA'),
    dict(name='retry-gives-up',
         conf=conf('retries = 2; max_retry_wait = 0.1; ' + WJOB), rc=1,
         faults=[{'status': 503, 'retry_after': 5, 'count': -1}],
         err=ERR + EP + ': HTTP 503 ServiceUnavailable: the server is currently unable to '
                        'handle the request (after 3 attempts)',
         requests=[(503, '500', False)] * 3),
    # A server that never ends a list (issue #11 item 1): the same token,
    # fresh tokens for ever, or slowness past list_timeout, each one line.
    dict(name='endless-same-continue-token',
         conf=conf(WJOB), rc=1,
         faults=[{'endless': 'same', 'count': -1}],
         err=ERR + EP + ': page 2 repeats an earlier continue token; the list would never end',
         requests=[(200, '500', False), (200, '500', True)]),
    dict(name='endless-fresh-tokens-max-pages',
         conf=conf('max_pages = 5; ' + WJOB), rc=1,
         faults=[{'endless': 'fresh', 'count': -1}],
         err=ERR + EP + ': page 5 is still not the last, at max_pages; the list would never '
                        'end',
         requests=[(200, '500', False)] + [(200, '500', True)] * 4),
    dict(name='endless-fresh-tokens-list-timeout',
         conf=conf('list_timeout = 1; ' + WJOB), rc=1,
         faults=[{'endless': 'fresh', 'count': -1, 'delay': 0.3}],
         err=ERR + EP + ': the list did not end within list_timeout (1.0 s)',
         after=settle),  # the request cut short is logged when its delay ends
    dict(name='retry-after-huge-is-capped',
         conf=conf('retries = 1; max_retry_wait = 0.2; ' + WJOB), out=out(WORKERS),
         faults=[{'status': 429, 'retry_after': 9223372036854775807, 'count': 1}],
         requests=[(429, '500', False), (200, '500', False)]),
    # The same pod (one uid) twice in a list: one task, with a warning.
    dict(name='duplicate-uid-counted-once',
         conf=conf(WJOB), out=out('{"worker": %s}' % addrs(['10.9.0.1', '10.9.0.2'])),
         faults=[{'count': 1, 'body': uid_page([('w-0', 'u-0', '10.9.0.1'),
                                                ('w-1', 'u-1', '10.9.0.2'),
                                                ('w-0', 'u-0', '10.9.0.1')])}],
         err=WARN + 'pod train/w-0 listed twice (one uid); counted once'),
    # An Indexed Job's pods (indices 0..N-1, each once) are put in their
    # places with no uid check: a pod listed twice would carry its index
    # twice, and then the uids are compared as for any list.
    dict(name='indexed-pods-placed',
         conf=conf(WJOB), out=out('{"worker": %s}' % addrs(['10.9.0.1', '10.9.0.2', '10.9.0.3'])),
         faults=[{'count': 1, 'body': uid_page([('w-2', 'u-2', '10.9.0.3', '2'),
                                                ('w-0', 'u-0', '10.9.0.1', '0'),
                                                ('w-1', 'u-1', '10.9.0.2', '1')])}]),
    dict(name='indexed-duplicate-uid-counted-once',
         conf=conf(WJOB), out=out('{"worker": %s}' % addrs(['10.9.0.1', '10.9.0.2'])),
         faults=[{'count': 1, 'body': uid_page([('w-1', 'u-1', '10.9.0.2', '1'),
                                                ('w-0', 'u-0', '10.9.0.1', '0'),
                                                ('w-1', 'u-1', '10.9.0.2', '1')])}],
         err=WARN + 'pod train/w-1 listed twice (one uid); counted once'),
    # UUID uids (the API server's form) are compared as their 16 bytes: the
    # same UUID in capitals is the same pod; the first listing is kept.
    dict(name='duplicate-uuid-counted-once',
         conf=conf(WJOB), out=out('{"worker": %s}' % addrs(['10.9.0.1', '10.9.0.2'])),
         faults=[{'count': 1, 'body': uid_page([
             ('w-1', '0f9c2a4e-5b7d-4e1a-9c3b-2d8e6f1a7b40', '10.9.0.2'),
             ('w-0', '5d3e8b1c-0a2f-4c6d-8e9b-7f1a2c3d4e5f', '10.9.0.1'),
             ('w-1', '0F9C2A4E-5B7D-4E1A-9C3B-2D8E6F1A7B40', '10.9.0.3')])}],
         err=WARN + 'pod train/w-1 listed twice (one uid); counted once'),
    dict(name='no-retry-on-403',
         conf=conf(WJOB), rc=1,
         faults=[{'status': 403, 'count': -1, 'message': 'pods is forbidden: User '
                  '"system:serviceaccount:train:default" cannot list resource "pods" in API '
                  'group "" in the namespace "train"'}],
         err=ERR + EP + ': HTTP 403 Forbidden: pods is forbidden: User '
                        '"system:serviceaccount:train:default" cannot list resource "pods" in '
                        'API group "" in the namespace "train"',
         requests=[(403, '500', False)]),
    dict(name='request-timeout',
         conf=conf('request_timeout = 0.5; ' + WJOB), rc=1,
         faults=[{'delay': 2, 'count': 1}],
         err=ERR + EP + ': timed out (connect_timeout 5.0 s, request_timeout 0.5 s)',
         after=delay_logged),
    # ---- pages that are not PodLists (walked pod by pod, k8s_fetch.c) -------
    dict(name='page-not-json', conf=conf(WJOB), rc=1, faults=[{'body': 'Service Unavailable'}],
         err=ERR + EP + ': invalid JSON at line 1, column 1 (offset 0): the answer is not a '
                        'JSON object'),
    # ---- the same in protobuf (k8s_proto.c) --------------------------------
    dict(name='page-protobuf-no-envelope', conf=conf(WJOB), rc=1,
         faults=[dict(body='<html>Service Unavailable</html>',
                      type='application/vnd.kubernetes.protobuf')],
         err=ERR + EP + ': invalid protobuf at offset 0: no "k8s\\0" envelope'),
    dict(name='page-protobuf-table', conf=conf(WJOB), rc=1,
         faults=[pb_page(b'Table', pbf(2, b''))],
         err=ERR + EP + ': answer is not a PodList (protobuf kind Table)'),
    dict(name='page-protobuf-truncated', conf=conf(WJOB), rc=1,
         faults=[pb_page(b'PodList', b'\x12\x64\x0a')],
         err=ERR + EP + ': invalid protobuf at offset 21: truncated field'),
    dict(name='page-protobuf-one-pod', conf=conf(WJOB + 'order = "name"; '),
         faults=[pb_page(b'PodList', pbf(2, pb_pod(b'w-0')))],
         out=out('{"worker": ["10.9.0.1:8470"]}')),
    dict(name='page-protobuf-name-not-utf8', conf=conf(WJOB), rc=1,
         faults=[pb_page(b'PodList', pbf(2, pb_pod(b'w\xff')))],
         err=ERR + EP + ': invalid protobuf at offset 27: a string is not UTF-8 without NUL'),
    dict(name='page-protobuf-name-nul', conf=conf(WJOB), rc=1,  # JSON's "a\u0000b" kin
         faults=[pb_page(b'PodList', pbf(2, pb_pod(b'a\x00b')))],
         err=ERR + EP + ': invalid protobuf at offset 27: a string is not UTF-8 without NUL'),
    # JSON's kin of the two above: "a\u0000b" would be read as "a" (k8s_view.c)
    dict(name='page-json-name-nul', conf=conf(WJOB), rc=1,
         faults=[{'body': '{"items": [{"metadata": {"name": "w-0"}}, {"metadata": '
                          '{"name": "a\\u0000b"}, "status": {"phase": "Running"}}]}'}],
         err=ERR + EP + ': items[1]: metadata.name is not UTF-8 without NUL'),
    dict(name='page-json-index-label-nul', conf=conf(WJOB), rc=1,
         faults=[{'body': '{"items": [{"metadata": {"name": "w-0", "labels": '
                          '{"apps.kubernetes.io/pod-index": "1\\u00002"}}}]}'}],
         err=ERR + EP + ': items[0]: metadata.labels["apps.kubernetes.io/pod-index"] is not '
                        'UTF-8 without NUL'),
    dict(name='page-array', conf=conf(WJOB), rc=1, faults=[{'body': ' [ ]'}],
         err=ERR + EP + ': invalid JSON at line 1, column 2 (offset 1): the answer is not a '
                        'JSON object'),
    dict(name='page-no-items', conf=conf(WJOB), rc=1,
         faults=[{'body': '{"kind": "PodList", "metadata": {}}'}],
         err=ERR + EP + ': answer is not a PodList (no items)'),
    dict(name='page-items-null', conf=conf(WJOB), out=out('{"worker": []}'),
         faults=[{'body': '{"kind": "PodList", "items": null, "metadata": {}}'}]),
    dict(name='page-items-not-array', conf=conf(WJOB), rc=1,
         faults=[{'body': '{"items": {"metadata": {}}}'}],
         err=ERR + EP + ': answer is not a PodList (items is not an array)'),
    dict(name='page-item-not-object', conf=conf(WJOB), rc=1,
         faults=[{'body': '{"items": [{"metadata": {"name": "a"}}, "b"]}'}],
         err=ERR + EP + ': answer is not a PodList (items[1] is not an object)'),
    dict(name='page-missing-comma', conf=conf(WJOB), rc=1,
         faults=[{'body': '{"items": []\n "metadata": {}}'}],
         err=ERR + EP + ": invalid JSON at line 2, column 2 (offset 14): expected ',' or '}' "
                        "after a member"),
    dict(name='page-pod-missing-comma', conf=conf(WJOB), rc=1,
         faults=[{'body': '{"items": [{"metadata": {"name": "a"}} {}]}'}],
         err=ERR + EP + ": invalid JSON at line 1, column 40 (offset 39): expected ',' or ']' "
                        "after a pod"),
    dict(name='page-member-name', conf=conf(WJOB), rc=1, faults=[{'body': '{1: 2}'}],
         err=ERR + EP + ': invalid JSON at line 1, column 3 (offset 2): expected a member name'),
    dict(name='page-member-colon', conf=conf(WJOB), rc=1, faults=[{'body': '{"items" []}'}],
         err=ERR + EP + ": invalid JSON at line 1, column 10 (offset 9): expected ':' after a "
                        "member name"),
    dict(name='page-bad-pod', conf=conf(WJOB), rc=1,
         faults=[{'body': '{"items": [{"status": {"phase": tru}}]}'}],
         err=ERR + EP + ': invalid JSON at line 1, column 36 (offset 35): boolean expected'),
    dict(name='page-continue-after-items', conf=conf(WJOB), rc=1,  # member order is free
         faults=[{'body': '{"items": [], "metadata": {"continue": "not-a-token"}}'}],
         err=ERR + EP + ': HTTP 400 BadRequest: continue key is not valid: illegal base64 data',
         requests=[(200, '500', False), (400, '500', True)]),
    # the next page is requested once the token is read, before the pods are;
    # a failure in this page is reported before one of the next request
    # JSON pages are read whole, the next fetched while this one is read
    # (protobuf ones are read as they arrive, one after the other)
    dict(name='page-prefetch-error-order', conf=conf('list_format = "json"; ' + WJOB), rc=1,
         faults=[{'body': '{"metadata": {"continue": "not-a-token"}, "items": [{}]}'}],
         err=ERR + 'a listed pod has no metadata.name',
         requests=[(200, '500', False), (400, '500', True)]),
    dict(name='page-cut', conf=conf(WJOB), rc=1,
         faults=[{'body': '{"items": [{"metadata": {"name": "a"'}],
         err=ERR + EP + ': invalid JSON at line 1, column 37 (offset 36): unexpected end of data'),
    dict(name='page-trailing-data', conf=conf(WJOB), rc=1,
         faults=[{'body': '{"items": []} {}'}],
         err=ERR + EP + ': invalid JSON at line 1, column 15 (offset 14): data after the answer'),
    dict(name='truncated-body',
         conf=conf(WJOB), rc=1,
         faults=[{'truncate': True, 'count': 1}],
         err=ERR + 'GET https://127.0.0.1:@PORT@/api/v1/namespaces/train/pods?labelSelector='
                   'job-name%3Dworker&limit=500: transfer closed with 37007 bytes remaining to '
                   'read'),  # half of the page in protobuf
    dict(name='connection-refused',
         conf=conf('server = "https://127.0.0.1:1"; connect_timeout = 1; ' + WJOB), rc=1,
         err=ERR + 'GET https://127.0.0.1:1/api/v1/namespaces/train/pods?labelSelector='
                   'job-name%3Dworker&limit=500: Failed to connect to 127.0.0.1 port 1 after 0 '
                   'ms: Couldn\'t connect to server'),  # harness: "after N ms"
]
