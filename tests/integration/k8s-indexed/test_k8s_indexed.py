#!/usr/bin/python3
"""k8s-indexed.so beside k8s.so, against the fixture API server: the cluster
of an Indexed Job and of a JobSet, with no request at all.

The fixture serves the pods the controllers would make (tests/fixtures/k8s,
k8s_pods.generate: the Job controller's hostname <job>-<index> and the
Service's subdomain; for a JobSet, JobSet's child Jobs <jobset>-<rjob>-<n>,
its labels, and the JobSet's name as subdomain). Every run has what a pod
has: the in-cluster variables pointing at the fixture, and a kubeconfig for
it, so a request would reach it and be logged.

1. For pods of an Indexed Job of 1,000 and of a JobSet (ps 1 x 2, worker
   3 x 4), k8s.so with address = "dns" lists the pods and k8s-indexed builds
   the names from the environment: TF_CONFIG must be the same, byte for
   byte; the fixture's log grows for k8s.so and not by one line for
   k8s-indexed.
2. A 10,000-pod job: k8s-indexed gives 10,000 tasks; the fixture sees 0
   requests and serves 0 bytes (and how long it took is printed).
3. `explain` names the mode and why; a missing variable fails (exit 1)
   with a message that names it.
4. The same paths (a JobSet, an Indexed Job's explain, a missing variable,
   a config error) under valgrind memcheck, in a normal build.
"""
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('CR_TEST_SOURCE_DIR', os.path.normpath(os.path.join(HERE, '../../..')))
sys.path.insert(0, os.path.join(SRC, 'tests/integration/k8s'))
sys.path.insert(0, os.path.join(SRC, 'tests/fixtures/k8s'))
import k8s_harness as h  # noqa: E402
import k8s_pods  # noqa: E402
from harness import run_config, valgrind_prefix, valgrind_problems  # noqa: E402

NS = 'train'
JOB, N = 'trainer', 1000
JS = 'tr'
RJOBS = [('ps', 1, 2), ('worker', 3, 4)]  # name, replicas, completions


def jobset_specs():
    """JobSet's pods: child Job <jobset>-<rjob>-<n> (GenJobName), each an
    Indexed Job whose pods the Job controller names <job>-<index>, so
    <jobset>-<rjob>-<n>-<index> (GenPodName); subdomain: the JobSet's name."""
    out = []
    for rj, replicas, completions in RJOBS:
        for n in range(replicas):
            for spec in k8s_pods.generate('%s-%s-%d' % (JS, rj, n), completions, NS, gpus=0):
                spec['subdomain'] = JS
                spec['labels'].update({'jobset.sigs.k8s.io/jobset-name': JS,
                                       'jobset.sigs.k8s.io/replicatedjob-name': rj,
                                       'jobset.sigs.k8s.io/replicatedjob-replicas':
                                           str(replicas),
                                       'jobset.sigs.k8s.io/job-index': str(n)})
                spec['podIP'] = '10.9.%d.%d' % (len(out) // 250, len(out) % 250 + 1)
                out.append(spec)
    return out


def pod_env(fx, extra):
    """What every pod of the job has, and a way to the API server."""
    env = {'KUBERNETES_SERVICE_HOST': '127.0.0.1', 'KUBERNETES_SERVICE_PORT': str(fx.port),
           'KUBECONFIG': fx.kubeconfig, 'POD_NAMESPACE': NS}
    env.update(extra)
    return env


LIST_JOB = ('plugin = "@PLUGIN@"; kubeconfig = "@DIR@/kubeconfig"; namespace = "%s";\n'
            'address = "dns"; port = 2222; accelerators = false;\njobs = { worker = [ "batch.kubernetes.io/job-name=%s" ]; };'
            % (NS, JOB))
INDEXED_JOB = ('plugin = "k8s-indexed"; completions = %d; subdomain = "%s"; port = 2222;'
               % (N, JOB))
LIST_SET = ('plugin = "@PLUGIN@"; kubeconfig = "@DIR@/kubeconfig"; namespace = "%s";\n'
            'address = "dns"; port = 2222; accelerators = false; order = "name";\njobs = { %s };'
            % (NS, ' '.join('%s = [ "jobset.sigs.k8s.io/jobset-name=%s,'
                            'jobset.sigs.k8s.io/replicatedjob-name=%s" ];' % (rj, JS, rj)
                            for rj, _, _ in RJOBS)))
INDEXED_SET = ('plugin = "k8s-indexed"; port = 2222;\nreplicated_jobs = {\n%s};'
               % ''.join('  %s = { replicas = %d; completions = %d; };\n' % r for r in RJOBS))


def conf(group):
    return 'resolvers = ( {\n  %s\n} );\n' % group.replace('\n', '\n  ')


def resolve(fx, group, env, args=('resolve',)):
    before = len(fx.requests())
    t = time.monotonic()
    rc, out, err = h.run_cli(fx, conf(group), list(args), pod_env(fx, env))
    took = time.monotonic() - t
    new = fx.requests()[before:]
    return rc, out, err, new, took


def same_cluster(fx, res, what, list_group, idx_group, env):
    rc1, out1, err1, req1, _ = resolve(fx, list_group, env)
    rc2, out2, err2, req2, _ = resolve(fx, idx_group, env)
    res.check('%s: k8s.so lists the pods (%d requests)' % (what, len(req1)),
              rc1 == 0 and err1 == '' and len(req1) > 0, 'rc %d: %s' % (rc1, err1))
    res.check('%s: k8s-indexed gives the same TF_CONFIG' % what,
              rc2 == 0 and err2 == '' and out2 == out1 and out1 != '',
              'rc %d: %s\nk8s.so:      %s\nk8s-indexed: %s' % (rc2, err2, out1[:300], out2[:300]))
    res.check('%s: k8s-indexed sends no request' % what, req2 == [], repr(req2[:3]))


def check_tenk(fx, res):
    group = 'plugin = "k8s-indexed"; completions = 10000; subdomain = "big"; port = 2222;'
    rc, out, err, req, took = resolve(fx, group, {'JOB_COMPLETION_INDEX': '9999',
                                                  'HOSTNAME': 'big-9999'})
    cluster = json.loads(out)['cluster']['worker'] if rc == 0 else []
    res.check('10,000-pod job: 10,000 tasks, the last big-9999',
              rc == 0 and len(cluster) == 10000 and
              cluster[9999] == 'big-9999.big.train.svc.cluster.local:2222', err)
    served = sum(r.get('bytes', 0) for r in req)
    res.check('10,000-pod job: 0 requests, 0 bytes', req == [] and served == 0,
              '%d requests, %d bytes' % (len(req), served))
    print('# 10,000-pod job: %d requests, %d bytes, %.3f s, %d bytes of TF_CONFIG'
          % (len(req), served, took, len(out)))


EXPLAIN = '''config: @DIR@/case.conf
1. resolver 'k8s-indexed' (plugin k8s-indexed, required, at @DIR@/case.conf:1)
   ok: 2 jobs, 14 tasks; this task worker:11
   fact mode: "jobset"
   fact why: "replicated_jobs is set (@DIR@/case.conf:3)"
   fact requests: 0
   fact jobset: "tr (JOBSET_NAME)"
   fact subdomain: "tr (the JobSet's name)"
   fact namespace: "train (POD_NAMESPACE)"
   fact hostname: "tr-worker-2-3"
'''


def check_explain(fx, res):
    env = {'JOBSET_NAME': JS, 'REPLICATED_JOB_NAME': 'worker', 'JOB_INDEX': '2',
           'JOB_COMPLETION_INDEX': '3', 'HOSTNAME': 'tr-worker-2-3'}
    rc, out, err, req, _ = resolve(fx, INDEXED_SET, env, args=('explain',))
    want = fx.subst(EXPLAIN)
    res.check('explain: the mode, why, and where each name came from',
              rc == 0 and out.startswith(want) and req == [],
              'rc %d, stderr %r\n%s' % (rc, err, out))
    env = {'JOB_COMPLETION_INDEX': '0', 'HOSTNAME': 'trainer-0', 'POD_NAMESPACE': None}
    rc, out, err, req, _ = resolve(fx, INDEXED_JOB, env, args=('explain',))
    res.check('explain: an Indexed Job that lacks POD_NAMESPACE says why it failed',
              rc == 1 and 'fact mode: "indexed_job"\n' in out
              and 'fact why: "no replicated_jobs in the config: one Indexed Job"\n' in out
              and 'POD_NAMESPACE is not set' in out and req == [], out + err)
    rc, out, err, req, _ = resolve(fx, INDEXED_JOB, env)
    want = ("cluster-resolver: resolver 'k8s-indexed': POD_NAMESPACE is not set (give it "
            "from the downward API, fieldPath: metadata.namespace, or set the namespace "
            "option)\n")
    res.check('a missing variable: exit 1, the message names it',
              rc == 1 and out == '' and err == want and req == [], 'rc %d: %r' % (rc, err))


def check_valgrind(fx, res):
    if os.environ.get('CR_SANITIZE_BUILD') == '1' or not os.path.exists('/usr/bin/valgrind'):
        print('# valgrind: skipped (sanitizer build, or no valgrind)')
        return
    jobset = {'JOBSET_NAME': JS, 'REPLICATED_JOB_NAME': 'worker', 'JOB_INDEX': '2',
              'JOB_COMPLETION_INDEX': '3', 'HOSTNAME': 'tr-worker-2-3'}
    job = {'JOB_COMPLETION_INDEX': '0', 'HOSTNAME': 'trainer-0'}
    runs = [('JobSet resolve', INDEXED_SET, jobset, ['resolve', '--format', 'json'], 0),
            ('Indexed Job explain', INDEXED_JOB, job, ['explain'], 0),
            ('missing POD_NAMESPACE', INDEXED_JOB, dict(job, POD_NAMESPACE=None), ['resolve'], 1),
            ('config error', INDEXED_SET + ' completions = 2;', jobset, ['resolve'], 2)]
    for k, (what, group, env, args, want_rc) in enumerate(runs):
        log = os.path.join(fx.dir, 'vg-%d.log' % k)
        p = run_config(fx.dir, fx.subst(conf(group)), args, h.base_env(fx, pod_env(fx, env)),
                       timeout=120, prefix=valgrind_prefix(log))
        problems = valgrind_problems(p.returncode, log)
        res.check('valgrind: %s (exit %d)' % (what, want_rc),
                  not problems and p.returncode == want_rc,
                  'rc %d, stderr %r %s' % (p.returncode, p.stderr, ''.join(problems)))


def main():
    h.ensure_hermetic()
    h.need('CR_CLI')
    res = h.Results()
    specs = k8s_pods.generate(JOB, N, NS, gpus=0) + jobset_specs()
    fx = None
    try:
        tmp = tempfile.mkdtemp(prefix='cr-kix-')
        pods = os.path.join(tmp, 'pods.json')
        with open(pods, 'w') as f:
            json.dump(specs, f)
        fx = h.Fixture(pods=pods)
        for i in (0, 7, N - 1):
            same_cluster(fx, res, 'Indexed Job of %d, pod %d' % (N, i), LIST_JOB, INDEXED_JOB,
                         {'JOB_COMPLETION_INDEX': str(i), 'HOSTNAME': '%s-%d' % (JOB, i)})
        for rj, n, i in (('ps', 0, 1), ('worker', 0, 0), ('worker', 2, 3)):
            host = '%s-%s-%d-%d' % (JS, rj, n, i)
            same_cluster(fx, res, 'JobSet, pod %s' % host, LIST_SET, INDEXED_SET,
                         {'JOBSET_NAME': JS, 'REPLICATED_JOB_NAME': rj, 'JOB_INDEX': str(n),
                          'JOB_COMPLETION_INDEX': str(i), 'HOSTNAME': host})
        check_tenk(fx, res)
        check_explain(fx, res)
        check_valgrind(fx, res)
    finally:
        if fx is not None:
            fx.stop(keep=res.failed)
    res.finish()


if __name__ == '__main__':
    main()
