"""The cases of test_k8s.py (cases_resolve.py) on authentication (client
certificates, tokens, token files and their rotation, exec plugins,
in-cluster service accounts, kubeconfig users) and on config errors.
"""
from cases_resolve_common import (
    CREATE, EP, ERR, IN_CLUSTER_ENV, SA, WARN, WJOB, WORKERS, addrs, conf, exec_child_gone,
    exec_info_is, out, rotate)


CASES = [
    # ---- auth ---------------------------------------------------------------
    dict(name='auth-client-cert-files',
         conf=conf('context = "cert"; jobs = { chief = [ "role=chief" ]; };'),
         out=out('{"chief": %s}' % addrs(['10.2.2.1']))),
    dict(name='auth-client-cert-data',
         conf=conf('context = "certdata"; jobs = { chief = [ "role=chief" ]; };'),
         out=out('{"chief": %s}' % addrs(['10.2.2.1']))),
    dict(name='auth-token-file-relative',
         conf=conf('context = "tokenfile"; jobs = { chief = [ "role=chief" ]; };'),
         before=rotate('sa-token-A', ['sa-token-A']),
         out=out('{"chief": %s}' % addrs(['10.2.2.1']))),
    dict(name='auth-bad-token-401',
         conf=conf('context = "stale"; ' + WJOB), rc=1,
         err=ERR + EP + ': HTTP 401 Unauthorized: Unauthorized'),
    dict(name='auth-no-credentials-401',
         conf=conf('context = "nouser"; ' + WJOB), rc=1,
         err=ERR + EP + ': HTTP 401 Unauthorized: Unauthorized'),
    dict(name='auth-exec-v1-token',
         conf=conf('context = "exec-v1"; jobs = { chief = [ "role=chief" ]; };'),
         out=out('{"chief": %s}' % addrs(['10.2.2.1'])),
         after=exec_info_is('v1', '{"apiVersion":"client.authentication.k8s.io/v1",'
                                  '"kind":"ExecCredential","spec":{"cluster":{"server":'
                                  '"https://127.0.0.1:@PORT@"},"interactive":false}}')),
    dict(name='auth-exec-v1beta1-token',
         conf=conf('context = "exec-beta"; jobs = { chief = [ "role=chief" ]; };'),
         out=out('{"chief": %s}' % addrs(['10.2.2.1'])),
         after=exec_info_is('beta', '{"apiVersion":"client.authentication.k8s.io/v1beta1",'
                                    '"kind":"ExecCredential","spec":{"interactive":false}}')),
    dict(name='auth-exec-client-cert',
         conf=conf('context = "exec-cert"; jobs = { chief = [ "role=chief" ]; };'),
         out=out('{"chief": %s}' % addrs(['10.2.2.1']))),
    dict(name='auth-exec-fails',
         conf=conf('context = "exec-fail"; ' + WJOB), rc=1,
         err="cluster-resolver: warning: resolver 'k8s': exec credential plugin "
             "'./bin/get-token' (user 'exec-fail'): login required\n" + ERR +
             "exec credential plugin './bin/get-token' (user 'exec-fail'): exited with status 3"),
    dict(name='auth-exec-bad-json',
         conf=conf('context = "exec-garbage"; ' + WJOB), rc=1,
         err=ERR + "exec credential plugin './bin/get-token' (user 'exec-garbage'): invalid "
                   'JSON at line 2, column 1 (offset 16): unexpected end of data'),
    dict(name='auth-exec-timeout',
         conf=conf('context = "exec-sleep"; exec_timeout = 0.5; ' + WJOB), rc=1,
         err=ERR + "exec credential plugin './bin/get-token' (user 'exec-sleep'): no answer "
                   'after 0.5 s (exec_timeout); killed',
         after=lambda fx: exec_child_gone(fx)),
    dict(name='auth-exec-missing-command',
         conf=conf('context = "exec-missing"; ' + WJOB), rc=1,
         err=ERR + "exec credential plugin 'no-such-credential-helper' (user 'exec-missing'): "
                   'Failed to execute child process \u201cno-such-credential-helper\u201d (No '
                   'such file or directory): install get-token'),
    dict(name='auth-exec-v1alpha1-refused',
         conf=conf('context = "exec-alpha"; ' + WJOB), rc=1,
         err=ERR + "exec credential plugin './bin/get-token' (user 'exec-alpha'): apiVersion "
                   '"client.authentication.k8s.io/v1alpha1" is not supported (use '
                   'client.authentication.k8s.io/v1 or v1beta1)'),
    dict(name='auth-provider-refused',
         conf=conf('context = "authprov"; ' + WJOB), rc=1,
         err=ERR + "kubeconfig @DIR@/kc: user 'authprov': auth-provider 'gcp' is not "
                   'supported; use an exec credential plugin'),
    dict(name='auth-in-cluster-token-A',
         conf=conf(SA + WJOB, kubeconfig=None), env=IN_CLUSTER_ENV,
         before=rotate('sa-token-A', ['sa-token-A']), out=out(WORKERS)),
    dict(name='auth-in-cluster-token-rotated-B',
         conf=conf(SA + WJOB, kubeconfig=None), env=IN_CLUSTER_ENV,
         before=rotate('sa-token-B', ['sa-token-B']), out=out(WORKERS)),
    dict(name='auth-in-cluster-old-token-refused',
         conf=conf(SA + WJOB, kubeconfig=None), env=IN_CLUSTER_ENV,
         before=rotate('sa-token-A', ['sa-token-B']), rc=1,
         err=ERR + EP + ': HTTP 401 Unauthorized: Unauthorized'),
    dict(name='auth-in-cluster-missing-token-file',
         conf=conf('token_file = "@DIR@/sa/nope"; ca_file = "@DIR@/sa/ca.crt"; '
                   'namespace_file = "@DIR@/sa/namespace"; ' + WJOB, kubeconfig=None),
         env=IN_CLUSTER_ENV, rc=1, err=ERR + 'cannot read @DIR@/sa/nope: No such file or directory'),
    dict(name='auth-wrong-ca-refused',
         conf=conf('ca_file = "@DIR@/client.crt"; token_file = "@DIR@/sa/token"; '
                   'namespace_file = "@DIR@/sa/namespace"; ' + WJOB, kubeconfig=None),
         env=IN_CLUSTER_ENV, before=rotate('sa-token-A', ['sa-token-A']), rc=1,
         err=ERR + 'GET https://127.0.0.1:@PORT@/api/v1/namespaces/train/pods?labelSelector='
                   'job-name%3Dworker&limit=500: SSL certificate problem: self-signed '
                   'certificate in certificate chain'),
    dict(name='auth-insecure-skip-tls-verify-warns',
         conf=conf('jobs = { chief = [ "role=chief" ]; };', kubeconfig='@DIR@/kc-insecure'),
         out=out('{"chief": %s}' % addrs(['10.2.2.1'])),
         err=WARN + 'TLS certificate of https://127.0.0.1:@PORT@ is NOT verified '
                   '(insecure-skip-tls-verify in kubeconfig @DIR@/kc-insecure context \'c\')'),
    # user:password@ in a server URL (issue #11 item 5): a config error that
    # does not echo the password, from the option and from a kubeconfig.
    dict(name='server-option-userinfo-refused',
         conf=conf('server = "https://admin:hunter2@127.0.0.1:@PORT@"; ' + WJOB), rc=2,
         err=CREATE.replace(':1: ', ':1: ') + "'server' holds a user name or password "
             "(user@ or user:password@); basic authentication is not supported: use a token "
             "or a client certificate"),
    dict(name='kubeconfig-server-userinfo-refused',
         conf=conf(WJOB, kubeconfig='@DIR@/kc-userinfo'), rc=2,
         err=ERR + "kubeconfig @DIR@/kc-userinfo: cluster 'fixture': the server URL holds a "
                   "user name or password; basic authentication is not supported"),
    # A control byte in a token (issue #11 item 6): never on the wire.
    dict(name='token-with-crlf-not-sent',
         conf=conf(WJOB, kubeconfig='@DIR@/kc-crlf-token'), rc=1,
         err=ERR + "GET request: the value of header 'Authorization' holds a control "
                   "character (CR, LF, ...); not sent",
         requests=[]),
    dict(name='kubeconfig-nested-too-deep',
         conf=conf(WJOB, kubeconfig='@DIR@/kc-deep'), rc=1,
         err=ERR + 'kubeconfig @DIR@/kc-deep:2: collections nested deeper than 64'),
    dict(name='kubeconfig-over-1-mib',
         conf=conf(WJOB, kubeconfig='@DIR@/kc-huge'), rc=1,
         err=ERR + 'cannot read @DIR@/kc-huge: larger than 1048576 bytes'),
    dict(name='kubeconfig-env-merge',
         conf=conf('jobs = { chief = [ "role=chief" ]; };', kubeconfig=None),
         env={'KUBECONFIG': '@DIR@/m1:@DIR@/does-not-exist:@DIR@/m2'},
         out=out('{"chief": %s}' % addrs(['10.2.2.1']))),
    dict(name='kubeconfig-home-default',
         conf=conf('jobs = { chief = [ "role=chief" ]; };', kubeconfig=None),
         env={'HOME': '@DIR@/fakehome'},
         before=lambda fx: (__import__('os').makedirs(fx.dir + '/fakehome/.kube', exist_ok=True),
                            __import__('shutil').copy(fx.dir + '/kc',
                                                      fx.dir + '/fakehome/.kube/config'),
                            __import__('shutil').copy(fx.dir + '/ca.crt',
                                                      fx.dir + '/fakehome/.kube/ca.crt')),
         out=out('{"chief": %s}' % addrs(['10.2.2.1']))),
    dict(name='kubeconfig-unknown-context',
         conf=conf('context = "nope"; ' + WJOB), rc=2,
         err=ERR + "kubeconfig @DIR@/kc: context 'nope' not found"),
    dict(name='probe-declines-without-api-server',
         conf=conf(WJOB, kubeconfig=None), rc=1,
         err='cluster-resolver: no resolver applies here (declined: k8s)'),
    dict(name='secrets-absent-with-verbose',
         args=['-v', '-v', 'resolve', '--format', 'json'],
         conf=conf('context = "exec-v1"; jobs = { chief = [ "role=chief" ]; };'),
         out=out('{"chief": %s}' % addrs(['10.2.2.1'])),
         err='cluster-resolver: config: read @DIR@/case.conf\n' +
             ERR + 'GET https://127.0.0.1:@PORT@/api/v1/namespaces/train/pods?labelSelector='
                   'role%3Dchief&limit=500\n' + ERR + 'own pod not among the listed pods; task '
                   'unknown\n' + ERR + 'resolved (required)'),

    # ---- config errors --------------------------------------------------
    dict(name='config-bad-address',
         conf=conf('address = "node_ip";'), rc=2,
         err=CREATE + 'address "node_ip" is not one of pod_ip, host_ip, pod_name or dns'),
    dict(name='config-bad-job',
         conf=conf('jobs = { worker = 3; };'), rc=2,
         err=CREATE + "job 'worker' must be a list of label selectors"),
    dict(name='master-command',
         conf=conf(WJOB), args=['master', '--task-type', 'worker', '--task-id', '4'],
         out='grpc://10.2.0.14:8470'),
]
