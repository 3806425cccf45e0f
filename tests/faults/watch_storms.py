#!/usr/bin/python3
"""watch_storms.py - a hostile API server against the k8s watch (issue 36:
N2, N3, N4, N8, N11, N12), through the k8s fixture's control file.

Storms are counted, not timed: each storm case runs k8s-watch-driver
(cr_context_watch) for a fixed window of 10 s against a server that
answers every watch the same way, and counts the pod requests the fixture
logged. The bounds follow from the documented backoffs (a relist that
brought no change: 0.8 s doubling to 30 s; a reconnect: at most one watch
request a second), with room for a loaded machine; before the fix the same
windows saw thousands. The signal cases check that `cluster-resolver
watch` ends with exit 0 and says nothing when SIGTERM or SIGINT comes
during a request the server holds for 30 s (or a Retry-After of 30 s):
it must end long before the server answers."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fault_matrix as fm  # noqa: E402
from harness import ensure_hermetic, need, write, Results  # noqa: E402

WINDOW_MS = 10000
POD = {'kind': 'Pod', 'apiVersion': 'v1',
       'metadata': {'name': 'other-9', 'namespace': 'train', 'resourceVersion': '900',
                    'labels': {'job-name': 'other'}},
       'spec': {'containers': [{'name': 'c'}]},
       'status': {'phase': 'Running', 'podIP': '10.9.9.9'}}


def event(kind, obj):
    return json.dumps({'type': kind, 'object': obj}) + '\n'


def bookmark(version):
    return event('BOOKMARK', {'kind': 'Pod', 'apiVersion': 'v1',
                              'metadata': {'resourceVersion': version}})


# name, faults on the watch requests, the most LISTs and watches in the
# window, and a pattern every stderr line must match (None: no stderr).
STORMS = [
    # N2: every watch answered 410: lists at 0, 0.8, 2.4, 5.6 s (+ the first).
    ('watch-410-forever', [{'status': 410, 'count': -1, 'watch': True}], 7, 7, None),
    # N2: an ERROR event 410 on every watch: the same.
    ('error-event-410-forever', [{'body': event('ERROR', {
        'kind': 'Status', 'apiVersion': 'v1', 'status': 'Failure', 'reason': 'Expired',
        'message': 'too old resource version', 'code': 410}), 'count': -1, 'watch': True}],
     7, 7, None),
    # N2: every watch brings a pod outside the selector: no change at all.
    ('event-outside-selector', [{'body': event('ADDED', POD), 'count': -1, 'watch': True}],
     1, 12, None),
    # N4: every stream brings one BOOKMARK and closes: one watch a second.
    ('one-bookmark-then-close', [{'body': bookmark('101'), 'count': -1, 'watch': True}],
     1, 12, None),
]


def pod_requests(be, start):
    out = []
    with open(os.path.join(be.dir, 'requests.jsonl')) as f:
        for line in f.readlines()[start:]:
            r = json.loads(line)
            if r['path'].endswith('/pods') and not r['query'].get('continue'):
                out.append('watch' if r['query'].get('watch') else 'list')
    return out


def log_lines(be):
    with open(os.path.join(be.dir, 'requests.jsonl')) as f:
        return len(f.readlines())


def driver(be, workdir, name, count, timeout_ms, *more, conf_edit=None):
    conf = os.path.join(workdir, 'storm-%s.conf' % name)
    text = be.conf(be.port, be.ca)
    write(conf, conf_edit(text) if conf_edit else text)
    p = subprocess.run([os.environ['CR_K8S_WATCH_DRIVER'], conf, str(count), str(timeout_ms)]
                       + list(more), env=be.env(), capture_output=True, text=True,
                       timeout=60 * fm.SLOW)
    return p.returncode, p.stdout, p.stderr


def storm(be, workdir, case):
    name, faults, max_lists, max_watches, warn = case
    start = log_lines(be)
    be.set_faults(faults)
    rc, out, err = driver(be, workdir, name, 2, WINDOW_MS)
    be.set_faults([])
    reqs = pod_requests(be, start)
    lists, watches = reqs.count('list'), reqs.count('watch')
    if os.environ.get('FAULTS_SHOW') == '1':
        print('# %s: %d LISTs, %d watches in %d ms' % (name, lists, watches, WINDOW_MS))
    problems = []
    lines = out.splitlines()
    want = 'no change within %d ms' % WINDOW_MS
    if rc != 0 or len(lines) != 2 or not lines[0].startswith('generation 1: ') \
            or lines[1] != want:
        problems.append('exit %s, stdout %r: want generation 1 then %r' % (rc, out, want))
    if '10.9.9.9' in out:
        problems.append('a pod outside the selector joined the cluster')
    if (warn is None and err) or (warn and not all(re.match(warn, ln)
                                                   for ln in err.splitlines())):
        problems.append('stderr %r' % err)
    if lists > max_lists or watches > max_watches or lists < 1:
        problems.append('%d LISTs and %d watches in %d ms (at most %d and %d)'
                        % (lists, watches, WINDOW_MS, max_lists, max_watches))
    return problems


def token_in_type(be, workdir):
    """N8: an event whose type is the bearer token: named, redacted."""
    body = event(fm.K8S_TOKEN, dict(POD, metadata=dict(POD['metadata'],
                                                       labels={'job-name': 'worker'})))
    be.set_faults([{'body': body, 'count': 1, 'watch': True}])
    rc, out, err = driver(be, workdir, 'type-token', 2, 3000)
    be.set_faults([])
    problems = []
    if fm.K8S_TOKEN[:8] in out + err:
        problems.append('the token is in the output: %r' % err)
    if "event 1: unknown type '[redacted]'; resolving again" not in err:
        problems.append('stderr %r: want the type as [redacted]' % err)
    return problems


def token_in_phase(be, workdir):
    """N8, the list side: `resolve`, a pod whose phase is the bearer token
    (default not_running = "error"): TensorFlow's message, phase redacted."""
    pod = dict(POD, metadata=dict(POD['metadata'], name='w-0', labels={'job-name': 'worker'}),
               status={'phase': fm.K8S_TOKEN, 'podIP': '10.0.0.1'})
    body = json.dumps({'kind': 'PodList', 'apiVersion': 'v1',
                       'metadata': {'resourceVersion': '900'}, 'items': [pod]})
    be.set_faults([{'body': body, 'count': -1, 'watch': False}])
    conf = os.path.join(workdir, 'phase-token.conf')
    write(conf, be.conf(be.port, be.ca))
    p = subprocess.run([os.environ['CR_CLI'], '-c', conf, 'resolve'], env=be.env(),
                       capture_output=True, text=True, timeout=60 * fm.SLOW)
    rc, out, err = p.returncode, p.stdout, p.stderr
    be.set_faults([])
    want = 'Pod "w-0" is not running; phase: "[redacted]"'
    if rc == 1 and want in err and fm.K8S_TOKEN[:8] not in out + err:
        return []
    return ['exit %s, stderr %r: want 1 and %r' % (rc, err, want)]


def long_version(be, workdir):
    """N11: a BOOKMARK with a 300-byte resourceVersion is refused, named."""
    be.set_faults([{'body': bookmark('9' * 300), 'count': 1, 'watch': True}])
    rc, out, err = driver(be, workdir, 'long-version', 2, 3000)
    be.set_faults([])
    want = (': event 1: resourceVersion of 300 bytes (more than 256): refused; '
            'resolving again')
    return [] if want in err and '9' * 300 not in err else ['stderr %r: want %r' % (err, want)]


def controls_escaped(be, workdir):
    """Item 11: a server's text with a newline and an escape sequence: one
    line, each control character as \\xNN (the one rule of every message)."""
    body = event('ERROR', {'kind': 'Status', 'apiVersion': 'v1', 'status': 'Failure',
                           'reason': 'InternalError', 'code': 500,
                           'message': 'line one\nline two \x1b[31mred\r'})
    be.set_faults([{'body': body, 'count': 1, 'watch': True}])
    rc, out, err = driver(be, workdir, 'controls', 2, 3000)
    be.set_faults([])
    want = 'ERROR event: InternalError: line one\\x0aline two \\x1b[31mred\\x0d; resolving'
    lines = err.splitlines()
    if len(lines) == 1 and want in lines[0] and '\x1b' not in err:
        return []
    return ['stderr %r: want one line with %r' % (err, want)]


def huge_timeout(be, workdir):
    """N12: cr_context_watch(INT64_MAX ms) waits (until the cancel)."""
    rc, out, err = driver(be, workdir, 'huge-timeout', 2, 9223372036854775807,
                          '--cancel-after', '1500')
    lines = out.splitlines()
    if rc == 0 and len(lines) == 2 and lines[1] == 'cancelled within 100 ms':
        return []
    return ['exit %s, stdout %r, stderr %r: want the watch to wait for its cancel'
            % (rc, out, err)]


def signalled(be, workdir, name, faults, sig, conf_edit=None):
    """N3: `cluster-resolver watch`, SIGTERM/SIGINT 1.5 s in, while the
    server holds the request 30 s: exit 0, nothing said, long before."""
    conf = os.path.join(workdir, 'sig-%s.conf' % name)
    text = be.conf(be.port, be.ca, timeout=60)
    write(conf, conf_edit(text) if conf_edit else text)
    be.set_faults(faults)
    p = subprocess.Popen([os.environ['CR_CLI'], '-c', conf, 'watch'], env=be.env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    t0 = time.monotonic()
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        be.set_faults([])
        return ['still running 20 s after the signal']
    took = time.monotonic() - t0
    be.set_faults([])
    if os.environ.get('FAULTS_SHOW') == '1':
        print('# %s: exit %s %.3f s after the signal' % (name, p.returncode, took))
    problems = []
    if p.returncode != 0 or err:
        problems.append('exit %s, stderr %r: want 0 and nothing' % (p.returncode, err))
    if took > 10:  # the server answers after 30 s; before the fix it waited for it
        problems.append('ended %.1f s after the signal' % took)
    return problems


def main():
    ensure_hermetic()
    need('CR_K8S_WATCH_DRIVER')
    need('CR_CLI')
    d = tempfile.mkdtemp(prefix='cr-watch-storms-')
    res = Results()
    be = None
    slow_list = [{'delay': 30, 'status': 503, 'count': -1, 'watch': False}]
    retry_after = [{'status': 503, 'retry_after': 30, 'count': -1, 'watch': False}]
    long_waits = (lambda t: t.replace('max_retry_wait = 3', 'max_retry_wait = 60')
                  .replace('retries = 1', 'retries = 3'))
    try:
        be = fm.K8s(d)
        for case in STORMS:
            problems = storm(be, d, case)
            res.check('storm/%s' % case[0], not problems, '  ' + '\n  '.join(problems))
        for name, fn in (('token-as-event-type', token_in_type),
                         ('token-as-pod-phase', token_in_phase),
                         ('resource-version-too-long', long_version),
                         ('server-text-controls-escaped', controls_escaped),
                         ('huge-timeout-saturates', huge_timeout)):
            problems = fn(be, d)
            res.check('watch/%s' % name, not problems, '  ' + '\n  '.join(problems))
        for name, faults, sig, edit in (
                ('sigterm-list-held', slow_list, signal.SIGTERM, None),
                ('sigint-list-held', slow_list, signal.SIGINT, None),
                ('sigterm-retry-after-30', retry_after, signal.SIGTERM, long_waits),
                ('sigterm-watching', [], signal.SIGTERM, None)):
            problems = signalled(be, d, name, faults, sig, edit)
            res.check('signal/%s' % name, not problems, '  ' + '\n  '.join(problems))
    finally:
        if be is not None:
            be.stop()
        shutil.rmtree(d, ignore_errors=True)
    res.finish()


if __name__ == '__main__':
    main()
