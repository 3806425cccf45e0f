"""The cases of test_k8s.py (cases_resolve.py) on which pods make the
cluster and how: TensorFlow's own test semantics (tf-semantics.md §9),
ordering and identity, namespaces, address modes, pods that are not
running, accelerators and selectors.
"""
from cases_resolve_common import ERR, IN_CLUSTER_ENV, SA, W, WJOB, WORKERS, addrs, conf, out


CASES = [
    # ---- tf-semantics §9, fixed profile ---------------------------------
    dict(name='tf-default-mapping',  # 999999 sorts first, as in TF's test
         conf=conf('namespace = "default";'),
         out=out('{"worker": %s}' % addrs(['10.1.2.5', '10.1.2.3', '10.1.2.4']))),
    dict(name='tf-empty-mapping-is-default',
         conf=conf('namespace = "default"; jobs = { };'),
         out=out('{"worker": %s}' % addrs(['10.1.2.5', '10.1.2.3', '10.1.2.4']))),
    dict(name='tf-selectors-concatenate-in-order',
         conf=conf('namespace = "default"; jobs = { worker = [ "job-name=worker1", '
                   '"job-name=worker2" ]; ps = [ "job-name=ps" ]; };'),
         out=out('{"worker": %s, "ps": %s}' % (addrs(['10.1.3.1', '10.1.3.2', '10.1.4.1']),
                                                addrs(['10.1.5.1'])))),
    # explain: where the pods came from and how many were listed (2 + 1 + 1
    # over three selectors), never a token
    dict(name='explain-facts', args=['explain'],
         conf=conf('namespace = "default"; jobs = { worker = [ "job-name=worker1", '
                   '"job-name=worker2" ]; ps = [ "job-name=ps" ]; };'),
         out='config: @DIR@/case.conf\n'
             "1. resolver 'k8s' (plugin k8s, required, at @DIR@/case.conf:1)\n"
             '   ok: 2 jobs, 4 tasks\n'
             '   fact api_server: "https://127.0.0.1:@PORT@"\n'
             '''   fact config_source: "kubeconfig @DIR@/kc context 'c'"\n'''
             '   fact namespace: "default"\n'
             '   fact pods_listed: 4\n'
             'result: ' + out('{"worker": %s, "ps": %s}' % (
                 addrs(['10.1.3.1', '10.1.3.2', '10.1.4.1']), addrs(['10.1.5.1'])))),
    dict(name='tf-duplicate-match-kept',
         conf=conf('namespace = "default"; jobs = { worker = [ "job-name=worker1", '
                   '"job-name in (worker1, worker2)" ]; };'),
         out=out('{"worker": %s}' % addrs(['10.1.3.1', '10.1.3.2', '10.1.3.1', '10.1.3.2',
                                          '10.1.4.1']))),
    dict(name='tf-jobs-in-written-order',
         conf=conf('namespace = "default"; jobs = { ps = [ "job-name=ps" ]; '
                   'worker = [ "job-name=worker2" ]; };'),
         out=out('{"ps": %s, "worker": %s}' % (addrs(['10.1.5.1']), addrs(['10.1.4.1'])))),
    dict(name='tf-empty-job',
         conf=conf('namespace = "default"; jobs = { worker = [ "job-name=nobody" ]; '
                   'ps = [ ]; };'),
         out=out('{"worker": [], "ps": []}')),
    dict(name='tf-port-and-rpc-layer',
         conf=conf('namespace = "default"; port = 2222; rpc_layer = "grpc+verbs"; '
                   'jobs = { worker = [ "job-name=worker2" ]; };'),
         out=out('{"worker": %s}' % addrs(['10.1.4.1'], 2222), rpc='grpc+verbs')),
    dict(name='tf-not-running-error',  # TF's message, verbatim
         conf=conf('jobs = { evaluator = [ "job-name=evaluator" ]; };'), rc=1,
         err=ERR + 'Pod "evaluator-1" is not running; phase: "Pending"'),
    dict(name='tf-quirk-host-ip-collides',  # TF's behaviour, on request
         conf=conf('namespace = "default"; address = "host_ip";'),
         out=out('{"worker": %s}' % addrs(['192.168.1.2', '192.168.1.1', '192.168.1.1']))),
    dict(name='fix-pod-ip-distinct-on-one-node',
         conf=conf('namespace = "default"; jobs = { worker = [ "job-name=tensorflow" ]; };'),
         out=out('{"worker": %s}' % addrs(['10.1.2.5', '10.1.2.3', '10.1.2.4']))),
    dict(name='fix-in-cluster-config-honoured',
         conf=conf(SA + WJOB, kubeconfig=None), env=IN_CLUSTER_ENV,
         out=out(WORKERS)),

    # ---- ordering and identity -----------------------------------------
    dict(name='indexed-job-numeric-order-and-identity',
         conf=conf(WJOB), env={'POD_NAME': 'worker-10-h1j3l'},
         out=out(WORKERS, ('worker', 10), 'grpc://10.2.0.20:8470', '{"GPU": 2}')),
    dict(name='statefulset-ordinals',
         conf=conf('jobs = { ps = [ "app=ps" ]; };'), env={'POD_NAME': 'ps-1'},
         out=out('{"ps": %s}' % addrs(['10.2.1.10', '10.2.1.11', '10.2.1.12']), ('ps', 1),
                 'grpc://10.2.1.11:8470')),
    dict(name='pod-index-label-beats-name',
         conf=conf('jobs = { eval = [ "job-name=eval" ]; };'),
         out=out('{"eval": %s}' % addrs(['10.2.3.2', '10.2.3.1']))),
    dict(name='identity-from-hostname',
         conf=conf(WJOB), env={'HOSTNAME': 'worker-7'},
         out=out(WORKERS, ('worker', 7), 'grpc://10.2.0.17:8470', '{"GPU": 2}')),
    dict(name='identity-from-pod-ip',
         conf=conf(WJOB), env={'POD_IP': '10.2.0.13'},
         out=out(WORKERS, ('worker', 3), 'grpc://10.2.0.13:8470', '{"GPU": 2}')),
    dict(name='identity-pod-name-wins-over-hostname',
         conf=conf(WJOB), env={'POD_NAME': 'worker-1-b4k9d', 'HOSTNAME': 'worker-7'},
         out=out(WORKERS, ('worker', 1), 'grpc://10.2.0.11:8470', '{"GPU": 2}')),
    dict(name='identity-other-namespace-not-matched',
         conf=conf(WJOB), env={'POD_NAME': 'worker-0-q7w2x', 'POD_NAMESPACE': 'other'},
         out=out(WORKERS)),
    dict(name='identity-in-second-job',
         conf=conf('jobs = { chief = [ "role=chief" ]; worker = [ "job-name=worker" ]; };'),
         env={'POD_NAME': 'worker-2-zz81a'},
         out=out('{"chief": %s, "worker": %s}' % (addrs(['10.2.2.1']), addrs(W)),
                 ('worker', 2), 'grpc://10.2.0.12:8470', '{"GPU": 2}')),

    # ---- namespaces -----------------------------------------------------
    dict(name='namespace-from-context',
         conf=conf(WJOB), out=out(WORKERS)),
    dict(name='namespace-option-overrides-context',
         conf=conf('namespace = "other"; ' + WJOB), out=out('{"worker": %s}' % addrs(['10.3.0.1']))),
    dict(name='namespace-default-when-context-has-none',
         conf=conf('', kubeconfig='@DIR@/kc-default-ns'),
         out=out('{"worker": %s}' % addrs(['10.1.2.5', '10.1.2.3', '10.1.2.4']))),
    dict(name='namespace-all',
         conf=conf('namespace = "*"; ' + WJOB),
         out=out('{"worker": %s}' % addrs(W + ['10.3.0.1']))),
    dict(name='namespace-in-cluster-file',
         conf=conf(SA + 'jobs = { chief = [ "role=chief" ]; };', kubeconfig=None),
         env=IN_CLUSTER_ENV, out=out('{"chief": %s}' % addrs(['10.2.2.1']))),

    # ---- address modes --------------------------------------------------
    dict(name='address-host-ip',
         conf=conf('address = "host_ip"; jobs = { worker = [ "job-name=worker" ]; };'),
         out=out('{"worker": %s}' % addrs(['192.168.2.%d' % (i // 2) for i in range(11)]))),
    dict(name='address-pod-name',
         conf=conf('address = "pod_name"; jobs = { ps = [ "app=ps" ]; };'),
         out=out('{"ps": %s}' % addrs(['ps-0', 'ps-1', 'ps-2']))),
    dict(name='address-dns',
         conf=conf('address = "dns"; port = 2222; jobs = { chief = [ "role=chief" ]; '
                   'ps = [ "app=ps" ]; };'),
         out=out('{"chief": ["chief-0.train-svc.train.svc.cluster.local:2222"], "ps": '
                 '["ps-0.ps.train.svc.cluster.local:2222", "ps-1.ps.train.svc.cluster.local:2222", '
                 '"ps-2.ps.train.svc.cluster.local:2222"]}')),
    dict(name='address-dns-custom-domain',
         conf=conf('address = "dns"; cluster_domain = "corp.example"; '
                   'jobs = { chief = [ "role=chief" ]; };'),
         out=out('{"chief": ["chief-0.train-svc.train.svc.corp.example:8470"]}')),
    dict(name='address-dns-needs-hostname-and-subdomain',
         conf=conf('address = "dns"; jobs = { eval = [ "job-name=eval" ]; };'), rc=1,
         err=ERR + 'pod "eval-b" (namespace "train") has no spec.hostname and spec.subdomain '
                   'for address mode "dns"'),
    dict(name='address-ipv6-bracketed',
         conf=conf('jobs = { worker = [ "job-name=v6" ]; };'),
         out=out('{"worker": ["[fd00:10:2::8]:8470"]}')),

    # ---- pods that are not running -----------------------------------
    dict(name='not-running-skip',
         conf=conf('not_running = "skip"; jobs = { evaluator = [ "job-name=evaluator" ]; };'),
         out=out('{"evaluator": %s}' % addrs(['10.2.4.1']))),
    dict(name='not-running-field-selector',
         conf=conf('field_selector = "status.phase=Running"; '
                   'jobs = { evaluator = [ "job-name=evaluator" ]; };'),
         out=out('{"evaluator": %s}' % addrs(['10.2.4.1']))),
    dict(name='not-running-wait-until-running',  # late-0: Pending, Pending, Running
         conf=conf('not_running = "wait"; wait_interval = 0.1; wait_timeout = 20; '
                   'jobs = { worker = [ "job-name=late" ]; };'),
         out=out('{"worker": %s}' % addrs(['10.2.5.1'])),
         requests=[(200, '500', False)] * 4),
    dict(name='not-running-wait-times-out',
         conf=conf('not_running = "wait"; wait_interval = 0.2; wait_timeout = 0.5; '
                   'jobs = { evaluator = [ "job-name=evaluator" ]; };'), rc=1,
         err=ERR + 'Pod "evaluator-1" is not running; phase: "Pending" (2 pods not running '
                   'after waiting 0.5 s)'),

    # ---- accelerators ---------------------------------------------------
    dict(name='accelerators-tpu',
         conf=conf('jobs = { worker = [ "job-name=tpu" ]; };'), env={'POD_NAME': 'tpu-worker-0'},
         out=out('{"worker": %s}' % addrs(['10.2.6.1']), ('worker', 0),
                 'grpc://10.2.6.1:8470', '{"TPU": 4}')),
    dict(name='accelerators-amd-gpu',
         conf=conf('jobs = { worker = [ "job-name=amd" ]; };'), env={'POD_NAME': 'amd-worker-0'},
         out=out('{"worker": %s}' % addrs(['10.2.7.1']), ('worker', 0),
                 'grpc://10.2.7.1:8470', '{"GPU": 1}')),
    dict(name='accelerators-none',
         conf=conf('jobs = { chief = [ "role=chief" ]; };'), env={'POD_NAME': 'chief-0'},
         out=out('{"chief": %s}' % addrs(['10.2.2.1']), ('chief', 0), 'grpc://10.2.2.1:8470')),

    # ---- selectors --------------------------------------------------------
    dict(name='selector-set-and-exists',
         conf=conf('jobs = { worker = [ "app in (tf), !role" ]; chief = [ "app,role" ]; '
                   'all = [ "app=tf,role notin (worker)" ]; };'),
         out=out('{"worker": %s, "chief": %s, "all": %s}'
                 % (addrs(W), addrs(['10.2.2.1']), addrs(W + ['10.2.2.1'])))),
    dict(name='selector-mixed-index-and-name-order',  # ordinals and indices interleave
         conf=conf('jobs = { x = [ "app,!role" ]; };'),
         out=out('{"x": %s}' % addrs(['10.2.1.10', '10.2.0.10', '10.2.1.11', '10.2.0.11',
                                     '10.2.1.12'] + W[2:]))),
    dict(name='selector-not-equal',
         conf=conf('jobs = { x = [ "job-name!=worker,job-name,job-name!=evaluator,'
                   'job-name notin (late,tpu,amd,v6)" ]; };'),
         out=out('{"x": %s}' % addrs(['10.2.3.2', '10.2.3.1']))),
    dict(name='selector-invalid-is-400',
         conf=conf('jobs = { worker = [ "job-name in worker" ]; };'), rc=1,
         err=ERR + "GET https://127.0.0.1:@PORT@/api/v1/namespaces/train/pods?labelSelector="
                   "job-name in worker: HTTP 400 BadRequest: unable to parse requirement: "
                   "found 'worker', expected: '('"),
]
