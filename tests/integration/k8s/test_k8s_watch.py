#!/usr/bin/python3
"""k8s.so's watch against the fixture API server's watch streams, through
cr_context_watch (k8s-watch-driver): a timeline of pod changes in JSON and
in protobuf gives exactly the generations it should, a heartbeat and a pod
outside the selector cost no list; the watch resumes from the last version
(a bookmark's too) after a dropped connection, a stream cut mid-event and a
silent stream's timeoutSeconds; garbage fails the watch op and the host
lists again; 410 Expired lists again; a cancel returns within 100 ms. The
requests the fixture saw are checked exactly (list or watch, version).
Last, `cluster-resolver watch --format json` prints each generation once,
and an ERROR event whose Status echoes the Bearer token (and holds a
newline and a tab), in JSON and in protobuf, is printed as exactly one
warning line with the token cut out, the newline \\x0a and the tab \\x09
(cr_text_escape: the one rule of every message, error_setv and the log),
with -vv (every -v line and the debug ones) as without. Several selectors
(a worker and a ps job) are watched with one stream each: a change of
either job is a generation within the watch's latency, from the watch's
pods, with one list per selector in all (no 30 s re-list)."""
import json
import os
import re
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_harness as h  # noqa: E402

PODS = [
    {'name': 'w-0', 'labels': {'job-name': 'w'}, 'phase': 'Running', 'podIP': '10.0.0.1'},
    {'name': 'w-1', 'labels': {'job-name': 'w'}, 'phase': 'Running', 'podIP': '10.0.0.2'},
    {'name': 'x-0', 'labels': {'job-name': 'x'}, 'phase': 'Running', 'podIP': '10.0.1.1'},
]

CONF = ('resolvers = ( { plugin = "@PLUGIN@"; kubeconfig = "@DIR@/kubeconfig"; '
        'namespace = "default"; not_running = "skip"; list_format = "%s"; watch_timeout = %d; '
        'port = 2222; jobs = { worker = [ "job-name=w" ]; }; } );\n')


def gen(n, *addrs):
    return ('generation %d: {"cluster": {"worker": [%s]}, "rpc_layer": "grpc", "master": "", '
            '"num_accelerators": {}}' % (n, ', '.join('"%s:2222"' % a for a in addrs)))


class Watcher:
    """k8s-watch-driver in the background, its lines read as they come."""

    def __init__(self, fx, conf, count, timeout_ms, extra=()):
        path = os.path.join(fx.dir, 'watch.conf')
        with open(path, 'w') as f:
            f.write(fx.subst(conf))
        self.proc = subprocess.Popen(
            [os.environ['CR_K8S_WATCH_DRIVER'], path, str(count), str(timeout_ms)] + list(extra),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=h.base_env(fx))
        self.buf = b''

    def line(self, timeout=20.0):
        end = time.monotonic() + timeout
        while b'\n' not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                return '(no line within %.0f s)' % timeout
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return '(end of output)'
            self.buf += chunk
        line, self.buf = self.buf.split(b'\n', 1)
        return line.decode()

    def finish(self):
        try:
            out, err = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        return self.proc.returncode, (self.buf + out).decode(), err.decode()


def pod_requests(fx):
    """('list', version) / ('watch', version asked from) of each pod request."""
    out = []
    for r in fx.requests():
        if not r['path'].endswith('/pods'):
            continue
        q = r['query']
        if q.get('watch'):
            out.append(('watch', q['resourceVersion'][0]))
        else:
            out.append(('list',))
    return out


def wait_watches(fx, n, timeout=15.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if sum(1 for r in pod_requests(fx) if r[0] == 'watch') >= n:
            return True
        time.sleep(0.02)
    return False


def fixture():
    d = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'cr-k8s-watch-pods-%d.json' % os.getpid())
    with open(d, 'w') as f:
        json.dump(PODS, f)
    fx = h.Fixture(pods=d, watch=True)
    os.unlink(d)
    return fx


def timeline(res, form):
    fx = fixture()
    w = Watcher(fx, CONF % (form, 300), 5, 20000)
    got = [w.line()]
    wait_watches(fx, 1)
    fx.op(op='touch', name='w-1')                      # rv 1005: no change
    fx.op(op='phase', name='w-1', phase='Failed')      # rv 1006
    got.append(w.line())
    wait_watches(fx, 2)
    fx.op(op='add', pod={'name': 'x-1', 'labels': {'job-name': 'x'}, 'phase': 'Running',
                         'podIP': '10.0.1.2'})        # rv 1007: not selected
    fx.op(op='add', pod={'name': 'w-2', 'labels': {'job-name': 'w'}, 'phase': 'Running',
                         'podIP': '10.0.0.3'})        # rv 1008
    got.append(w.line())
    wait_watches(fx, 3)
    fx.op(op='ip', name='w-2', ip='10.0.0.9')          # rv 1009
    got.append(w.line())
    wait_watches(fx, 4)
    fx.op(op='delete', name='w-0')                     # rv 1010
    got.append(w.line())
    rc, rest, err = w.finish()
    want = [gen(1, '10.0.0.1', '10.0.0.2'), gen(2, '10.0.0.1'), gen(3, '10.0.0.1', '10.0.0.3'),
            gen(4, '10.0.0.1', '10.0.0.9'), gen(5, '10.0.0.9')]
    res.check('%s: timeline: the generations' % form, got == want and rc == 0,
              'got %r\nwant %r\nrc %d stderr %s' % (got, want, rc, err))
    reqs = pod_requests(fx)
    # One list in all: each generation is answered from the watch's pods
    # (ABI 1.3, a watched resolution), and the next watch resumes from the
    # version of the event that changed it (the last one may not have
    # started before the watcher ended).
    want_reqs = [('list',), ('watch', '1004'), ('watch', '1006'), ('watch', '1008'),
                 ('watch', '1009')]
    res.check('%s: timeline: one list, no list a generation, watches from its version' % form,
              reqs[:5] == want_reqs and reqs[5:] in ([], [('watch', '1010')]),
              'got %r\nwant %r' % (reqs, want_reqs))
    accept = [r['accept'] for r in fx.requests() if r['query'].get('watch')]
    want_accept = ('application/vnd.kubernetes.protobuf, application/json' if form == 'protobuf'
                   else 'application/json')
    res.check('%s: watch asks for %s' % (form, want_accept),
              accept and all(a == want_accept for a in accept), repr(accept))
    res.check('%s: no token in the output' % form, h.TOKEN not in err + rest, err)
    fx.stop()


def faults(res):
    fx = fixture()
    w = Watcher(fx, CONF % ('json', 300), 2, 30000)
    got = [w.line()]
    ok = wait_watches(fx, 1)
    fx.op(op='touch', name='x-0')      # rv 1005, outside the selector
    fx.op(op='bookmark')               # BOOKMARK 1005
    time.sleep(0.3)
    fx.op(op='drop')                   # resumed from the bookmark's 1005
    ok = ok and wait_watches(fx, 2)
    fx.op(op='cut')                    # half an event, hung up: resumed from 1005
    ok = ok and wait_watches(fx, 3)
    fx.op(op='garbage')                # the watch op fails; the host lists again
    ok = ok and wait_watches(fx, 4, timeout=30)
    fx.op(op='expire')                 # ERROR 410: the host lists again
    ok = ok and wait_watches(fx, 5, timeout=30)
    fx.op(op='delete', name='w-1')     # rv 1006
    got.append(w.line(timeout=30))
    rc, rest, err = w.finish()
    want = [gen(1, '10.0.0.1', '10.0.0.2'), gen(2, '10.0.0.1')]
    res.check('faults: the generations', ok and got == want and rc == 0,
              'got %r\nwant %r\nrc %d stderr %s' % (got, want, rc, err))
    reqs = pod_requests(fx)
    # The change after them is answered from the watch's pods: no list.
    want_reqs = [('list',), ('watch', '1004'), ('watch', '1005'), ('watch', '1005'),
                 ('list',), ('watch', '1005'), ('list',), ('watch', '1005')]
    res.check('faults: resumed from the bookmark, listed after garbage and 410 only',
              reqs[:8] == want_reqs and reqs[8:] in ([], [('watch', '1006')]),
              'got %r\nwant %r' % (reqs, want_reqs))
    res.check('faults: the garbage named', 'event 1 is not a JSON watch event' in err, err)
    fx.stop()


def silent(res):
    fx = fixture()
    w = Watcher(fx, CONF % ('json', 1), 2, 3000)
    got = [w.line(), w.line()]
    rc, rest, err = w.finish()
    reqs = pod_requests(fx)
    tos = [r['query'].get('timeoutSeconds') for r in fx.requests() if r['query'].get('watch')]
    res.check('silent stream: reconnected after timeoutSeconds, from the same version',
              got == [gen(1, '10.0.0.1', '10.0.0.2'), 'no change within 3000 ms'] and
              reqs[:3] == [('list',), ('watch', '1004'), ('watch', '1004')] and
              len(reqs) >= 3 and all(t == ['1'] for t in tos),
              'got %r rc %d\nrequests %r timeouts %r\n%s' % (got, rc, reqs, tos, err))
    fx.stop()


def cancel(res):
    fx = fixture()
    w = Watcher(fx, CONF % ('json', 300), 2, -1, ['--cancel-after', '500'])
    got = [w.line(), w.line()]
    rc, rest, err = w.finish()
    res.check('cancel: the watch returns within 100 ms',
              got == [gen(1, '10.0.0.1', '10.0.0.2'), 'cancelled within 100 ms'] and rc == 0,
              'got %r rc %d %s' % (got, rc, err))
    fx.stop()


def cli(res):
    """`cluster-resolver watch --format json` on the same timeline."""
    fx = fixture()
    path = os.path.join(fx.dir, 'cli.conf')
    with open(path, 'w') as f:
        f.write(fx.subst(CONF % ('protobuf', 300)))
    p = subprocess.Popen([os.environ['CR_CLI'], '--config', path, 'watch', '--format', 'json',
                          '--count', '3', '--timeout', '30'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=h.base_env(fx))
    w = Watcher.__new__(Watcher)
    w.proc, w.buf = p, b''
    got = [w.line()]
    wait_watches(fx, 1)
    fx.op(op='touch', name='w-0')
    fx.op(op='delete', name='w-1')
    got.append(w.line())
    wait_watches(fx, 2)
    fx.op(op='add', pod={'name': 'w-7', 'labels': {'job-name': 'w'}, 'phase': 'Running',
                         'podIP': '10.0.0.7'})
    got.append(w.line())
    rc, rest, err = w.finish()

    def line(n, *addrs):
        return ('{"cluster": {"worker": [%s]}, "rpc_layer": "grpc", "master": "", '
                '"num_accelerators": {}, "generation": %d}'
                % (', '.join('"%s:2222"' % a for a in addrs), n))
    want = [line(1, '10.0.0.1', '10.0.0.2'), line(2, '10.0.0.1'), line(3, '10.0.0.1', '10.0.0.7')]
    res.check('cluster-resolver watch --format json: each generation once',
              got == want and rc == 0 and rest == '' and err == '',
              'got %r\nwant %r\nrc %s rest %r stderr %s' % (got, want, rc, rest, err))
    fx.stop()


def error_echo(res, form, verbose):
    """An ERROR event that echoes the token: `cluster-resolver watch` warns on
    one line, the token cut out, the newline a space and the tab \\x09; it
    lists again, watches again and goes on to the next generation."""
    fx = fixture()
    path = os.path.join(fx.dir, 'cli.conf')
    with open(path, 'w') as f:
        f.write(fx.subst(CONF % (form, 300)))
    args = [os.environ['CR_CLI']] + (['-vv'] if verbose else []) + [
        '--config', path, 'watch', '--format', 'json', '--count', '2', '--timeout', '30']
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=h.base_env(fx))
    w = Watcher.__new__(Watcher)
    w.proc, w.buf = p, b''
    got = [w.line()]
    ok = wait_watches(fx, 1)
    fx.op(op='error', code=403, reason='Forbidden',
          message='you sent Bearer %s\nthen %s\tagain' % (h.TOKEN, h.TOKEN))
    ok = ok and wait_watches(fx, 2)         # listed again, then watched again
    fx.op(op='delete', name='w-1')
    got.append(w.line())
    rc, rest, err = w.finish()
    tag = '%s%s' % (form, ' -vv' if verbose else '')
    want = ['{"cluster": {"worker": ["10.0.0.1:2222", "10.0.0.2:2222"]}, "rpc_layer": "grpc", '
            '"master": "", "num_accelerators": {}, "generation": 1}',
            '{"cluster": {"worker": ["10.0.0.1:2222"]}, "rpc_layer": "grpc", "master": "", '
            '"num_accelerators": {}, "generation": 2}']
    warning = ("cluster-resolver: warning: resolver 'k8s': watch failed: GET "
               "https://127.0.0.1:%d/api/v1/namespaces/default/pods?labelSelector=job-name=w "
               "(watch): ERROR event: Forbidden: you sent Bearer [redacted]\\x0athen [redacted]\\x09"
               "again; resolving again, next watch in N ms" % fx.port)
    lines = [re.sub(r'next watch in \d+ ms$', 'next watch in N ms', x)
             for x in err.splitlines()]
    res.check('%s: ERROR event echoing the token: the generations' % tag,
              ok and got == want and rc == 0 and rest == '',
              'got %r\nwant %r\nrc %s rest %r stderr %s' % (got, want, rc, rest, err))
    if verbose:
        res.check('%s: ERROR event echoing the token: the warning among the lines' % tag,
                  lines.count(warning) == 1, 'want %r\ngot\n%s' % (warning, err))
    else:
        res.check('%s: ERROR event echoing the token: exactly one warning line' % tag,
                  lines == [warning], 'want %r\ngot %r' % ([warning], lines))
    res.check('%s: ERROR event echoing the token: no token in the output' % tag,
              h.TOKEN not in err + rest + ''.join(got), err)
    fx.stop()


MANY = ('resolvers = ( { plugin = "@PLUGIN@"; kubeconfig = "@DIR@/kubeconfig"; '
        'namespace = "default"; not_running = "skip"; list_format = "%s"; watch_timeout = 300; '
        'port = 2222; jobs = { worker = [ "job-name=w" ]; ps = [ "job-name=x" ]; }; } );\n')


def many(n, workers, ps):
    return ('generation %d: {"cluster": {"worker": [%s], "ps": [%s]}, "rpc_layer": "grpc", '
            '"master": "", "num_accelerators": {}}'
            % (n, ', '.join('"%s:2222"' % a for a in workers),
               ', '.join('"%s:2222"' % a for a in ps)))


def several_selectors(res, form):
    fx = fixture()
    w = Watcher(fx, MANY % form, 3, 20000)
    got = [w.line()]
    wait_watches(fx, 2)
    fx.op(op='phase', name='x-0', phase='Failed')      # the ps job's only pod
    got.append(w.line())
    wait_watches(fx, 4)
    fx.op(op='add', pod={'name': 'w-2', 'labels': {'job-name': 'w'}, 'phase': 'Running',
                         'podIP': '10.0.0.3'})
    got.append(w.line())
    rc, rest, err = w.finish()
    want = [many(1, ['10.0.0.1', '10.0.0.2'], ['10.0.1.1']),
            many(2, ['10.0.0.1', '10.0.0.2'], []),
            many(3, ['10.0.0.1', '10.0.0.2', '10.0.0.3'], [])]
    res.check('%s: several selectors: a generation for a change of either job' % form,
              got == want and rc == 0, 'got %r\nwant %r\nrc %d stderr %s' % (got, want, rc, err))
    reqs = pod_requests(fx)
    lists = [r for r in reqs if r[0] == 'list']
    res.check('%s: several selectors: one list per selector, then only watches' % form,
              len(lists) == 2 and reqs[:2] == [('list',), ('list',)],
              'got %r' % reqs)
    fx.stop()


def main():
    h.ensure_hermetic()
    h.need('CR_K8S_WATCH_DRIVER')
    res = h.Results()
    for form in ('json', 'protobuf'):
        timeline(res, form)
        several_selectors(res, form)
    faults(res)
    silent(res)
    cancel(res)
    cli(res)
    for form in ('json', 'protobuf'):
        for verbose in (False, True):
            error_echo(res, form, verbose)
    res.finish()


if __name__ == '__main__':
    main()
