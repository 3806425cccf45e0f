"""A watched resolution (ABI 1.3 host->watched) on the default options
(not_running = "error"): `cluster-resolver watch` starts while a pod is
Pending, prints the Running pods only (no exit 1), and prints the pod the
moment the watch sees it Running; a pod that comes Pending and goes costs
no generation. Every generation after the first is answered from the
watch's pods: the fixture's log shows one list in all, then only watch
requests, each from the version of the event before it. A plain
`cluster-resolver resolve` on the same pods still fails as TensorFlow's
resolver does."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_harness as h  # noqa: E402
from test_k8s_watch import Watcher, pod_requests, wait_watches  # noqa: E402

PODS = [
    {'name': 'w-0', 'labels': {'job-name': 'w'}, 'phase': 'Running', 'podIP': '10.0.0.1'},
    {'name': 'w-1', 'labels': {'job-name': 'w'}, 'phase': 'Pending'},
]

CONF = ('resolvers = ( { plugin = "@PLUGIN@"; kubeconfig = "@DIR@/kubeconfig"; '
        'namespace = "default"; list_format = "%s"; port = 2222; '
        'jobs = { worker = [ "job-name=w" ]; }; } );\n')


def line(n, *addrs):
    return ('{"cluster": {"worker": [%s]}, "rpc_layer": "grpc", "master": "", '
            '"num_accelerators": {}, "generation": %d}'
            % (', '.join('"%s:2222"' % a for a in addrs), n))


def fixture():
    d = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'cr-k8s-pending-%d.json' % os.getpid())
    with open(d, 'w') as f:
        json.dump(PODS, f)
    fx = h.Fixture(pods=d, watch=True)
    os.unlink(d)
    return fx


def pending(res, form):
    fx = fixture()
    path = os.path.join(fx.dir, 'cli.conf')
    with open(path, 'w') as f:
        f.write(fx.subst(CONF % form))
    plain = subprocess.run([os.environ['CR_CLI'], '--config', path, 'resolve'],
                           capture_output=True, env=h.base_env(fx))
    res.check('%s: a plain resolve still fails on the Pending pod' % form,
              plain.returncode == 1 and b'"w-1" is not running' in plain.stderr, repr(plain))
    n0 = len(fx.requests())
    p = subprocess.Popen([os.environ['CR_CLI'], '--config', path, 'watch', '--format', 'json',
                          '--count', '3', '--timeout', '30'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=h.base_env(fx))
    w = Watcher.__new__(Watcher)
    w.proc, w.buf = p, b''
    got = [w.line()]
    ok = wait_watches(fx, 1)
    # a newcomer Pending and gone again: no generation, no list
    fx.op(op='add', pod={'name': 'w-9', 'labels': {'job-name': 'w'}, 'phase': 'Pending'})
    fx.op(op='delete', name='w-9')
    fx.op(op='ip', name='w-1', ip='10.0.0.2')        # still Pending: nothing
    fx.op(op='phase', name='w-1', phase='Running')
    got.append(w.line())
    ok = ok and wait_watches(fx, 2)
    fx.op(op='delete', name='w-0')
    got.append(w.line())
    rc, rest, err = w.finish()
    want = [line(1, '10.0.0.1'), line(2, '10.0.0.1', '10.0.0.2'), line(3, '10.0.0.2')]
    res.check('%s: Pending is no member and no failure; Running is seen by the watch' % form,
              ok and got == want and rc == 0 and err == '',
              'got %r\nwant %r\nrc %s rest %r stderr %s' % (got, want, rc, rest, err))
    reqs = [r for r in pod_requests(fx)][sum(1 for r in fx.requests()[:n0]
                                             if r['path'].endswith('/pods')):]
    lists = sum(1 for r in reqs if r[0] == 'list')
    res.check('%s: one list in all, no list for a change' % form,
              lists == 1 and reqs[0] == ('list',) and len(reqs) >= 3,
              'requests %r' % reqs)
    fx.stop()


def main():
    h.ensure_hermetic()
    h.need('CR_CLI')
    res = h.Results()
    for form in ('json', 'protobuf'):
        pending(res, form)
    res.finish()


if __name__ == '__main__':
    main()
