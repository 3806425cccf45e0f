#!/usr/bin/python3
"""The fixture is faithful: the real kubectl lists pods from it, and k8s.so
resolves exactly the pods kubectl lists (same names and pod IPs), in the
order docs/k8s.md documents, applied here independently to kubectl's JSON.
Also checks that kubectl and the plugin send the selector verbatim.
"""
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_harness as h  # noqa: E402

# (namespace or "*", label selector, field selector, kubectl extra args)
CASES = [
    ('train', 'job-name=worker', '', []),
    ('train', 'job-name=worker', '', ['--chunk-size=3']),
    ('default', 'job-name=tensorflow', '', []),
    ('default', 'job-name in (worker1, worker2)', '', []),
    ('train', 'app', '', []),
    ('train', 'app,!role', '', []),
    ('train', 'app=tf,role notin (worker)', '', []),
    ('train', 'job-name!=worker', 'status.phase=Running', []),
    ('train', 'job-name==evaluator', 'status.phase!=Pending', []),
    ('train', '!job-name', '', ['--context', 'fixture-cert']),
    ('*', 'job-name=worker', '', []),
]


def natcmp(a, b):
    """Names compared with digit runs as numbers, else character by character."""
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i].isdigit() and b[j].isdigit():
            m, n = i, j
            while m < len(a) and a[m].isdigit():
                m += 1
            while n < len(b) and b[n].isdigit():
                n += 1
            x, y = int(a[i:m]), int(b[j:n])
            if x != y:
                return -1 if x < y else 1
            i, j = m, n
        elif a[i] != b[j]:
            return -1 if a[i] < b[j] else 1
        else:
            i, j = i + 1, j + 1
    return (len(a) - i > 0) - (len(b) - j > 0)


def pod_index(pod):
    meta = pod['metadata']
    for src, key in (('labels', 'batch.kubernetes.io/job-completion-index'),
                     ('annotations', 'batch.kubernetes.io/job-completion-index'),
                     ('labels', 'apps.kubernetes.io/pod-index')):
        v = meta.get(src, {}).get(key)
        if v is not None and v.isdigit():
            return int(v)
    for o in meta.get('ownerReferences', []):
        pre = o['name'] + '-'
        if o['kind'] == 'StatefulSet' and meta['name'].startswith(pre) \
                and meta['name'][len(pre):].isdigit():
            return int(meta['name'][len(pre):])
    return None


def documented_order(pods):
    def cmp(p, q):
        a, b = pod_index(p), pod_index(q)
        if (a is None) != (b is None):
            return -1 if a is not None else 1
        if a != b:
            return -1 if a < b else 1
        c = natcmp(p['metadata']['name'], q['metadata']['name'])
        if c:
            return c
        key = lambda x: (x['metadata']['name'], x['metadata']['namespace'])  # noqa: E731
        return (key(p) > key(q)) - (key(p) < key(q))
    return sorted(pods, key=functools.cmp_to_key(cmp))


TABLE_CASES = [('train', 'job-name=worker'), ('train', 'app=ps'), ('default', 'job-name')]


def kubectl(fx, ns, sel, fsel, extra):
    cache = tempfile.mkdtemp(prefix='kubectl-cache-', dir=fx.dir)
    cmd = ['kubectl', '--kubeconfig', fx.kubeconfig, '--cache-dir', cache, 'get', 'pods',
           '-o', 'json', '-l', sel] + (['-A'] if ns == '*' else ['-n', ns]) + extra
    if fsel:
        cmd += ['--field-selector', fsel]
    env = h.base_env(fx)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    shutil.rmtree(cache, ignore_errors=True)
    if p.returncode != 0:
        raise RuntimeError('kubectl failed: %s' % p.stderr.strip())
    return json.loads(p.stdout)['items']


def plugin(fx, ns, sel, fsel):
    conf = ('resolvers = ( { plugin = "k8s"; kubeconfig = "%s"; namespace = "%s"; '
            'not_running = "skip"; address = "pod_ip"; page_size = 2; jobs = { x = [ %s ]; }; %s} );\n'
            % (fx.kubeconfig, ns, json.dumps(sel),
               'field_selector = %s; ' % json.dumps(fsel) if fsel else ''))
    rc, out, err = h.run_cli(fx, conf, ['resolve', '--format', 'json'])
    if rc != 0:
        raise RuntimeError('cluster-resolver failed: %s' % err.strip())
    return json.loads(out)['cluster']['x']


def kubectl_wide(fx, ns, sel):
    """`kubectl get pods -o wide`: kubectl itself asks for the Table form.
    Returns the rows (NAME ... STATUS ... IP) and the Accept header sent."""
    cache = tempfile.mkdtemp(prefix='kubectl-cache-', dir=fx.dir)
    n0 = len(fx.requests())
    cmd = ['kubectl', '--kubeconfig', fx.kubeconfig, '--cache-dir', cache, 'get', 'pods',
           '-o', 'wide', '--chunk-size', '2', '-n', ns, '-l', sel]
    p = subprocess.run(cmd, env=h.base_env(fx), capture_output=True, text=True, timeout=60)
    shutil.rmtree(cache, ignore_errors=True)
    if p.returncode != 0:
        raise RuntimeError('kubectl failed: %s' % p.stderr.strip())
    lines = p.stdout.splitlines()
    head = lines[0].split()
    rows = [dict(zip(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE'], ln.split()))
            for ln in lines[1:]]
    sent = [r for r in fx.requests()[n0:] if r['path'].endswith('/pods')]
    return head, rows, sent


def plugin_table(fx, ns, sel):
    conf = ('resolvers = ( { plugin = "k8s"; kubeconfig = "%s"; namespace = "%s"; '
            'accelerators = false; order = "name"; not_running = "skip"; page_size = 2; '
            'jobs = { x = [ %s ]; }; } );\n' % (fx.kubeconfig, ns, json.dumps(sel)))
    n0 = len(fx.requests())
    rc, out, err = h.run_cli(fx, conf, ['resolve', '--format', 'json'])
    if rc != 0:
        raise RuntimeError('cluster-resolver failed: %s' % err.strip())
    return json.loads(out)['cluster']['x'], [r for r in fx.requests()[n0:]]


def check_table(res, fx, ns, sel):
    """The fixture's Table form is what kubectl asks for and prints, and the
    plugin's Table rows give the same tasks as kubectl's rows."""
    head, rows, sent = kubectl_wide(fx, ns, sel)
    problems = []
    if head != ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED',
                'NODE', 'READINESS', 'GATES']:
        problems.append('kubectl header %s' % head)
    if not sent or any(not r['accept'].startswith('application/json;as=Table;v=v1;'
                                                  'g=meta.k8s.io') or
                       r.get('type') != 'application/json;as=Table;v=v1;g=meta.k8s.io'
                       for r in sent):
        problems.append('kubectl did not get the Table form: %s' %
                        [(r['accept'], r.get('type')) for r in sent])
    running = sorted((r for r in rows if r['STATUS'] == 'Running'),
                     key=functools.cmp_to_key(lambda a, b: natcmp(a['NAME'], b['NAME'])))
    want = ['%s:8470' % r['IP'] for r in running]
    got, ours = plugin_table(fx, ns, sel)
    if not running:
        problems.append('kubectl shows no Running pod (case selects nothing)')
    if got != want:
        problems.append('plugin %s\n  kubectl -o wide %s' % (got, want))
    if any(r.get('type') != 'application/json;as=Table;v=v1;g=meta.k8s.io' or
           r['query'].get('includeObject') != ['None'] for r in ours):
        problems.append('plugin did not list Table rows: %s' %
                        [(r['accept'], r['query']) for r in ours])
    res.check('kubectl get pods -o wide -n %s -l %r (Table form)' % (ns, sel), not problems,
              '\n'.join('  ' + p for p in problems))


# kubectl get --raw PATH: (what the fixture must answer, checked on kubectl's
# output: the number of items and whether a continue token came, or the
# error kubectl prints), as kube-apiserver does for the watch cache's rules.
RAW_CASES = [
    ('/api/v1/namespaces/train/pods?labelSelector=job-name%3Dworker&limit=4', (4, True)),
    ('/api/v1/namespaces/train/pods?labelSelector=job-name%3Dworker&limit=4'
     '&resourceVersion=0&resourceVersionMatch=NotOlderThan', (11, False)),
    ('/api/v1/namespaces/train/pods?limit=4&resourceVersionMatch=NotOlderThan',
     'resourceVersionMatch is forbidden unless resourceVersion is provided'),
    ('/api/v1/namespaces/train/pods?limit=4&resourceVersion=0&resourceVersionMatch=Exact',
     'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
    ('/api/v1/namespaces/train/pods?limit=4&resourceVersion=0&continue=CONT',
     'specifying resource version is not allowed when using continue'),
]


def check_raw(res, fx):
    cont = None
    for template, want in RAW_CASES:
        path = template.replace('CONT', cont or '')
        cache = tempfile.mkdtemp(prefix='kubectl-cache-', dir=fx.dir)
        p = subprocess.run(['kubectl', '--kubeconfig', fx.kubeconfig, '--cache-dir', cache,
                            'get', '--raw', path], env=h.base_env(fx), capture_output=True,
                           text=True, timeout=60)
        shutil.rmtree(cache, ignore_errors=True)
        if isinstance(want, tuple):
            ok = p.returncode == 0
            got = None
            if ok:
                body = json.loads(p.stdout)
                cont = body['metadata'].get('continue') or cont
                got = (len(body['items']), bool(body['metadata'].get('continue')))
            res.check('kubectl get --raw %s' % template, ok and got == want,
                      '  got %s (%s), want %s' % (got, p.stderr.strip(), want))
        else:
            res.check('kubectl get --raw %s refused' % template,
                      p.returncode != 0 and want in p.stderr,
                      '  rc %d, stderr %s' % (p.returncode, p.stderr.strip()))


def main():
    h.ensure_hermetic()
    h.need('CR_CLI')
    if not shutil.which('kubectl'):
        print('SKIP: kubectl is not installed')
        sys.exit(77)
    res = h.Results()
    fx = h.Fixture(pods=os.path.join(h.HERE, 'pods.json'))
    try:
        for ns, sel, fsel, extra in CASES:
            name = 'kubectl -n %s -l %r%s%s' % (ns, sel, ' --field-selector %s' % fsel
                                                 if fsel else '', ' ' + ' '.join(extra)
                                                 if extra else '')
            n0 = len(fx.requests())
            items = kubectl(fx, ns, sel, fsel, extra)
            sent = [r['query'].get('labelSelector', [''])[0] for r in fx.requests()[n0:]
                    if r['path'].endswith('/pods')]
            running = [p for p in items if p['status']['phase'] == 'Running']
            want = [('[%s]:8470' if ':' in p['status']['podIP'] else '%s:8470')
                    % p['status']['podIP'] for p in documented_order(running)]
            n1 = len(fx.requests())
            got = plugin(fx, ns, sel, fsel)
            ours = [r['query'].get('labelSelector', [''])[0] for r in fx.requests()[n1:]]
            problems = []
            if not items:
                problems.append('kubectl listed no pods (case selects nothing)')
            if got != want:
                problems.append('plugin %s\n  kubectl %s' % (got, want))
            if set(sent) != {sel} or set(ours) != {sel}:
                problems.append('selectors sent: kubectl %s, plugin %s' % (sent, ours))
            res.check(name, not problems, '\n'.join('  ' + p for p in problems))
        for ns, sel in TABLE_CASES:
            check_table(res, fx, ns, sel)
        check_raw(res, fx)
    finally:
        fx.stop(keep=res.failed > 0)
    res.finish()


if __name__ == '__main__':
    main()
