#!/usr/bin/python3
"""The fixture's watch streams are faithful: the real kubectl
(`get pods --watch --output-watch-events -o json`) and k8s.so's watch
(through cr_context_watch) follow the same timeline side by side. kubectl
prints exactly the events the timeline makes (its list's pods as ADDED,
then each change, in order, with the fields the plugin reads), and the
events the fixture wrote to kubectl's watch are the ones it wrote to the
plugin's watches, which made exactly the expected generations."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_harness as h  # noqa: E402
import test_k8s_watch as tw  # noqa: E402


def kubectl_events(text):
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        ev, i = dec.raw_decode(text, i)
        o = ev['object']
        out.append((ev['type'], o['metadata']['name'], o['status'].get('phase'),
                    o['status'].get('podIP'), o['metadata']['resourceVersion']))


def wait_for(pred, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return False


def main():
    h.ensure_hermetic()
    h.need('CR_K8S_WATCH_DRIVER')
    if not shutil.which('kubectl'):
        print('SKIP: no kubectl')
        sys.exit(77)
    res = h.Results()
    fx = tw.fixture()
    cache = tempfile.mkdtemp(prefix='kubectl-cache-', dir=fx.dir)
    kout = open(os.path.join(fx.dir, 'kubectl.out'), 'w+')
    kubectl = subprocess.Popen(
        ['kubectl', '--kubeconfig', fx.kubeconfig, '--cache-dir', cache, 'get', 'pods', '-n',
         'default', '-l', 'job-name=w', '--watch', '--output-watch-events', '-o', 'json'],
        stdout=kout, stderr=subprocess.PIPE, env=h.base_env(fx))
    w = tw.Watcher(fx, tw.CONF % ('json', 300), 5, 20000)

    def watching(agent):
        return any(r['query'].get('watch') and r['user_agent'].startswith(agent)
                   for r in fx.requests())

    got = [w.line()]
    ok = wait_for(lambda: watching('kubectl/')) and tw.wait_watches(fx, 2)
    fx.op(op='touch', name='w-1')
    fx.op(op='phase', name='w-1', phase='Failed')
    got.append(w.line())
    fx.op(op='add', pod={'name': 'x-1', 'labels': {'job-name': 'x'}, 'phase': 'Running',
                         'podIP': '10.0.1.2'})
    fx.op(op='add', pod={'name': 'w-2', 'labels': {'job-name': 'w'}, 'phase': 'Running',
                         'podIP': '10.0.0.3'})
    got.append(w.line())
    fx.op(op='ip', name='w-2', ip='10.0.0.9')
    got.append(w.line())
    fx.op(op='delete', name='w-0')
    got.append(w.line())
    rc, rest, err = w.finish()
    want_k = [('ADDED', 'w-0', 'Running', '10.0.0.1', '1000'),
              ('ADDED', 'w-1', 'Running', '10.0.0.2', '1001'),
              ('MODIFIED', 'w-1', 'Running', '10.0.0.2', '1005'),
              ('MODIFIED', 'w-1', 'Failed', '10.0.0.2', '1006'),
              ('ADDED', 'w-2', 'Running', '10.0.0.3', '1008'),
              ('MODIFIED', 'w-2', 'Running', '10.0.0.9', '1009'),
              ('DELETED', 'w-0', 'Running', '10.0.0.1', '1010')]
    kev = []
    wait_for(lambda: len(kubectl_events(open(kout.name).read() or ' ')) >= len(want_k), 10)
    kubectl.terminate()
    kerr = kubectl.communicate()[1].decode()
    kev = kubectl_events(open(kout.name).read())
    res.check('kubectl sees the timeline', ok and kev == want_k,
              'got %r\nwant %r\n%s' % (kev, want_k, kerr))
    want = [tw.gen(1, '10.0.0.1', '10.0.0.2'), tw.gen(2, '10.0.0.1'),
            tw.gen(3, '10.0.0.1', '10.0.0.3'), tw.gen(4, '10.0.0.1', '10.0.0.9'),
            tw.gen(5, '10.0.0.9')]
    res.check('the plugin makes the generations', got == want and rc == 0,
              'got %r\nwant %r\n%s' % (got, want, err))
    conns = {}
    for r in fx.requests():
        if r['query'].get('watch'):
            conns[r['conn']] = 'kubectl' if r['user_agent'].startswith('kubectl/') else 'plugin'
    sent = {'kubectl': [], 'plugin': []}
    with open(os.path.join(fx.dir, 'events.jsonl')) as f:
        for line in f:
            e = json.loads(line)
            sent[conns[e['conn']]].append((e['type'], e['rv']))
    # a watch the plugin ended may still be written an event before the
    # fixture sees it closed: the plugin's are compared as a set
    res.check('kubectl and the plugin were sent the same events',
              sent['kubectl'] == sorted(set(sent['plugin']), key=lambda e: e[1]) ==
              [(t, int(v)) for t, _, _, _, v in want_k[2:]], repr(sent))
    fx.stop()
    res.finish()


if __name__ == '__main__':
    main()
