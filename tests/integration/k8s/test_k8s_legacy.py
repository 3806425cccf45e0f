#!/usr/bin/python3
"""Clusters before Kubernetes 1.27: the documented selectors still work.

The Job controller labels its pods batch.kubernetes.io/job-name and
batch.kubernetes.io/controller-uid only since 1.27; before, only job-name
and controller-uid, with the completion index only as an annotation. The
fixture plays both: `--legacy-job-labels` generates an Indexed Job's pods
as a v1.26 cluster labels them, without it as v1.30 does (both keys).

1. kubectl proves the legacy fixture faithful: `-l job-name=trainer` lists
   the Job's four pods, `-l batch.kubernetes.io/job-name=trainer` none; on
   the new one both list them.
2. The CLI against each, exact output and the exact list requests the
   fixture logged: on the old cluster a prefixed selector (`=`, `==`,
   controller-uid, with other requirements) is listed once more under the
   legacy keys and resolves the Job by its completion index, with this
   pod's task; on the new cluster the same config costs exactly the one
   request it did before; a selector matching nothing gives the empty job
   on both after exactly one request more; `not_running = "wait"`; explain
   shows the fact `legacy_selectors`; `-v` says what happened.
3. The watch (k8s-watch-driver, cr_context_watch) after the fallback
   watches the legacy selector from the legacy list's version, and the
   list after a change is the legacy one alone: no doubled request.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_harness as h  # noqa: E402
from test_k8s_watch import Watcher, wait_watches  # noqa: E402

sys.path.insert(0, os.path.join(h.SRC, 'tests/fixtures/k8s'))
import k8s_pods  # noqa: E402

JOB, NS = 'trainer', 'train'
NAMES = [p['name'] for p in k8s_pods.generate(JOB, 4, NS)]  # trainer-<i>-<hash>
JOB_UID = k8s_pods._uid(NS, 'Job', JOB)
PREFIXED = 'batch.kubernetes.io/job-name=trainer'
LEGACY = 'job-name=trainer'


def conf(selector, extra=''):
    # No local accelerator plugins: the counts come from the pods alone.
    return ('resolvers = ( { plugin = "k8s"; kubeconfig = "@DIR@/kubeconfig"; '
            'namespace = "train"; port = 2222; %sjobs = { worker = [ "%s" ]; }; } );\n'
            'accelerators = ( );\n' % (extra, selector))


WORKERS = ('{"cluster": {"worker": ["10.64.0.0:2222", "10.64.0.1:2222", "10.64.0.2:2222", '
           '"10.64.0.3:2222"]}, ')
# POD_NAME of the pod with completion index 2: task worker:2 (the master
# is its own address), its 8 GPUs.
OUT_SELF = (WORKERS + '"task": {"type": "worker", "index": 2}, "rpc_layer": "grpc", '
            '"master": "grpc://10.64.0.2:2222", "num_accelerators": {"GPU": 8}}')
OUT_ANON = WORKERS + '"rpc_layer": "grpc", "master": "", "num_accelerators": {}}'
OUT_NONE = '{"cluster": {"worker": []}, "rpc_layer": "grpc", "master": "", "num_accelerators": {}}'
SELF = {'POD_NAME': NAMES[2]}
FOUND = ('cluster-resolver: resolver \'k8s\': no pod matches "%s"; "%s" matches 4: a cluster '
         'before Kubernetes 1.27 (Job labels without batch.kubernetes.io/); listing "%s" '
         'from now on')
EXPLAIN = ('config: @DIR@/case.conf\n'
           "1. resolver 'k8s' (plugin k8s, required, at @DIR@/case.conf:1)\n"
           '   ok: 1 job, 4 tasks\n'
           '   fact api_server: "https://127.0.0.1:@PORT@"\n'
           '''   fact config_source: "kubeconfig @DIR@/kubeconfig context 'fixture'"\n'''
           '   fact namespace: "train"\n'
           '%s'
           '   fact pods_listed: 4\n'
           'result: ' + OUT_ANON)

# name, config, args, environment, stdout on the old cluster, on the new,
# then the labelSelector of each list request: on the old, on the new.
CASES = [
    ('prefixed', conf(PREFIXED), None, SELF, OUT_SELF, OUT_SELF,
     [PREFIXED, LEGACY], [PREFIXED]),
    ('prefixed-double-equals', conf('batch.kubernetes.io/job-name==trainer'), None, SELF,
     OUT_SELF, OUT_SELF, ['batch.kubernetes.io/job-name==trainer', 'job-name==trainer'],
     ['batch.kubernetes.io/job-name==trainer']),
    ('controller-uid', conf('batch.kubernetes.io/controller-uid=' + JOB_UID), None, SELF,
     OUT_SELF, OUT_SELF, ['batch.kubernetes.io/controller-uid=' + JOB_UID,
                          'controller-uid=' + JOB_UID],
     ['batch.kubernetes.io/controller-uid=' + JOB_UID]),
    ('with-other-requirements', conf('app in (tensorflow, torch),' + PREFIXED), None, SELF,
     OUT_SELF, OUT_SELF, ['app in (tensorflow, torch),' + PREFIXED,
                          'app in (tensorflow, torch),' + LEGACY],
     ['app in (tensorflow, torch),' + PREFIXED]),
    ('legacy-written', conf(LEGACY), None, SELF, OUT_SELF, OUT_SELF, [LEGACY], [LEGACY]),
    ('matches-nothing', conf('batch.kubernetes.io/job-name=nope'), None, SELF,
     OUT_NONE, OUT_NONE, ['batch.kubernetes.io/job-name=nope', 'job-name=nope'],
     ['batch.kubernetes.io/job-name=nope', 'job-name=nope']),
    # the wait's list finds the legacy form; the resolve's list uses it
    ('wait', conf(PREFIXED, 'not_running = "wait"; '), None, SELF, OUT_SELF, OUT_SELF,
     [PREFIXED, LEGACY, LEGACY], [PREFIXED, PREFIXED]),
    # nothing: the wait tries both forms, the resolve's list one (today: 2)
    ('wait-matches-nothing', conf('batch.kubernetes.io/job-name=nope', 'not_running = "wait"; '),
     None, SELF, OUT_NONE, OUT_NONE,
     ['batch.kubernetes.io/job-name=nope', 'job-name=nope', 'batch.kubernetes.io/job-name=nope'],
     ['batch.kubernetes.io/job-name=nope', 'job-name=nope', 'batch.kubernetes.io/job-name=nope']),
    ('explain', conf(PREFIXED), ['explain'], None,
     EXPLAIN % '   fact legacy_selectors: {"%s":"%s"}\n' % (PREFIXED, LEGACY), EXPLAIN % '',
     [PREFIXED, LEGACY], [PREFIXED]),
]


def kubectl(fx, selector):
    cache = tempfile.mkdtemp(prefix='kubectl-cache-', dir=fx.dir)
    p = subprocess.run(['kubectl', '--kubeconfig', fx.kubeconfig, '--cache-dir', cache, 'get',
                        'pods', '-n', NS, '-o', 'name', '-l', selector], env=h.base_env(fx),
                       capture_output=True, text=True, timeout=60)
    shutil.rmtree(cache, ignore_errors=True)
    return p.returncode, p.stdout, p.stderr.strip()


def check_kubectl(res, fx, legacy):
    everyone = ''.join('pod/%s\n' % n for n in NAMES)
    none = (0, '', '')  # -o name: nothing at all for no pod
    for sel, want in ((LEGACY, (0, everyone, '')),
                      (PREFIXED, none if legacy else (0, everyone, ''))):
        got = kubectl(fx, sel)
        res.check('%s cluster: kubectl get pods -l %s lists %s'
                  % ('old' if legacy else 'new', sel, 'none' if got == none else 'them'),
                  got == want, 'got  %r\nwant %r' % (got, want))


def list_selectors(requests):
    return [r['query'].get('labelSelector', [''])[0] for r in requests
            if r['path'].endswith('/pods') and not r['query'].get('watch')]


def check_case(res, fx, legacy, case):
    name, text, args, env, out_old, out_new, reqs_old, reqs_new = case
    n0 = len(fx.requests())
    rc, out, err = h.run_cli(fx, text, args or ['resolve', '--format', 'json'], env)
    got_reqs = list_selectors(fx.requests()[n0:])
    want_out = fx.subst(out_old if legacy else out_new)
    want_reqs = reqs_old if legacy else reqs_new
    problems = []
    if rc != 0 or err != '':
        problems.append('exit %d, stderr %s' % (rc, err))
    if out.rstrip('\n') != want_out:
        problems.append('stdout:\n  got:  %s\n  want: %s' % (out.rstrip('\n'), want_out))
    if got_reqs != want_reqs:
        problems.append('requests: got %s, want %s' % (got_reqs, want_reqs))
    res.check('%s cluster: %s: %d request%s' % ('old' if legacy else 'new', name,
                                                len(want_reqs), 's' if len(want_reqs) > 1
                                                else ''),
              not problems, '\n'.join('  ' + p for p in problems))


def check_verbose(res, fx, legacy):
    rc, out, err = h.run_cli(fx, conf(PREFIXED), ['-v', 'resolve', '--format', 'json'], SELF)
    lines = [ln for ln in err.splitlines() if 'Kubernetes 1.27' in ln]
    want = [FOUND % (PREFIXED, LEGACY, LEGACY)] if legacy else []
    res.check('%s cluster: -v %s' % ('old' if legacy else 'new',
                                     'says the legacy form is used' if legacy else
                                     'says nothing of legacy labels'),
              rc == 0 and lines == want, 'rc %d\ngot  %r\nwant %r' % (rc, lines, want))


def check_watch(res, fx, legacy):
    """One generation, a pod's IP changes, the second: what was sent."""
    n0 = len(fx.requests())
    w = Watcher(fx, conf(PREFIXED), 2, 20000)
    first = w.line()
    wait_watches(fx, 1)
    fx.op(op='ip', namespace=NS, name=NAMES[1], ip='10.64.9.9')
    second = w.line()
    rc, rest, err = w.finish()
    sel = LEGACY if legacy else PREFIXED
    got = []
    for r in fx.requests()[n0:]:
        if r['path'].endswith('/pods'):
            q = r['query']
            got.append(('watch' if q.get('watch') else 'list', q['labelSelector'][0]) +
                       ((q['resourceVersion'][0],) if q.get('watch') else ()))
    # The second generation comes from the watch's pods: no list (the
    # watch after it may have started before the watcher ended).
    want = ([('list', PREFIXED), ('list', LEGACY)] if legacy else [('list', PREFIXED)]) + [
        ('watch', sel, '1005')]
    if got[len(want):] == [('watch', sel, '1006')]:
        got = got[:len(want)]
    gens = ['generation 1: ' + OUT_ANON,
            'generation 2: ' + OUT_ANON.replace('10.64.0.1:', '10.64.9.9:')]
    res.check('%s cluster: the watch follows %s, no list for a change'
              % ('old' if legacy else 'new', sel),
              [first, second] == gens and rc == 0 and got == want,
              'generations %r\nwant %r\nrc %d %s\nrequests %r\nwant     %r'
              % ([first, second], gens, rc, err, got, want))


def main():
    h.ensure_hermetic()
    h.need('CR_CLI')
    h.need('CR_K8S_WATCH_DRIVER')
    res = h.Results()
    for legacy in (True, False):
        fx = h.Fixture(extra=['--generate', '%s=4:%s' % (JOB, NS)] +
                       (['--legacy-job-labels'] if legacy else []), watch=True)
        try:
            check_kubectl(res, fx, legacy)
            for case in CASES:
                check_case(res, fx, legacy, case)
            check_verbose(res, fx, legacy)
            check_watch(res, fx, legacy)
        finally:
            fx.stop(keep=res.failed > 0)
    res.finish()


if __name__ == '__main__':
    main()
