#!/usr/bin/python3
"""test_examples_k8s.py - the manifests of examples/k8s/, for real.

1. kubectl parses every manifest: `kubectl apply --dry-run=client
   --validate=false -f FILE` for each file. A client dry-run still needs an
   API server (discovery maps each kind to its resource; apply GETs the
   object to choose between create and patch), so kubectl talks to the k8s
   fixture (tests/fixtures/k8s) inside the loopback-only namespace. The
   fixture serves discovery for core v1 pods only; the discovery documents
   of the groups the manifests use (core v1 namespaces, serviceaccounts,
   configmaps; batch/v1; rbac.authorization.k8s.io/v1; and
   jobset.x-k8s.io/v1alpha2, which a cluster serves once the JobSet CRD is
   installed) are given to it as `body` faults, shaped like a v1.30
   kube-apiserver's, and each object's GET is answered 404 NotFound, as for
   a cluster that does not have it yet. kubectl must print
   `KIND.GROUP/NAME created (dry run)` for every object and GET exactly the
   REST path of each (kind, namespace, name), and its namespace. Schema validation
   (--validate=true) would need the server's OpenAPI documents, which the
   fixture does not serve: every field is checked instead against the API
   schema python3-kubernetes's generated models carry (JobSet's own few
   fields against its API reference), and the fields that matter (the
   Role's rules, the binding, the service account, POD_NAME) by value.

2. What each pod is given resolves correctly. From every Indexed Job and
   JobSet, the pods their controllers would create (names, hostnames,
   subdomains, the controllers' labels, the completion index), each Running
   with its own IP, are served by the fixture. Each pod's container is then
   run as the kubelet would: its `command` (cluster-resolver exec ...; the
   first word is the CLI under test) with `args` replaced by /usr/bin/env,
   its `env` with the downward API resolved (POD_NAME, POD_NAMESPACE, the
   JobSet labels), the Job controller's JOB_COMPLETION_INDEX, HOSTNAME and
   the in-cluster KUBERNETES_SERVICE_HOST/PORT, its ConfigMap volume at its
   mountPath, and, unless the spec says automountServiceAccountToken:
   false, the service-account files (the fixture's token, CA and the
   namespace) at /var/run/secrets/kubernetes.io/serviceaccount, both mounted
   in a private mount namespace (unshare -m; overlays, nothing on the host
   changes). Every pod must get exactly the variables of its --format list,
   with values worked out here from the pods, the containerPort and the
   documented order (completion index), and nothing else. Pods with a token
   send nothing but pod lists of their namespace; pods without one
   (indexed-job-dns.yaml, jobset-dns.yaml: k8s-indexed) send no request.
   The Indexed Jobs run again with their pods labelled as before Kubernetes
   1.27 (job-name and controller-uid only, the index only as the
   annotation): every pod must get the same variables.

Nothing of the manifests is copied here: commands, env, ports, volumes,
selectors' targets and counts are read from examples/k8s/*.yaml.
"""
import copy
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

import kubernetes.client
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('CR_TEST_SOURCE_DIR', os.path.normpath(os.path.join(HERE, '../../..')))
sys.path.insert(0, os.path.join(SRC, 'tests/integration/k8s'))
from k8s_harness import Fixture, TOKEN, ensure_hermetic, need, Results  # noqa: E402

EXAMPLES = os.path.join(SRC, 'examples/k8s')
SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'
FORMAT_VARS = {
    'torch': ['MASTER_ADDR', 'MASTER_PORT', 'WORLD_SIZE', 'RANK', 'LOCAL_RANK',
              'LOCAL_WORLD_SIZE', 'NODE_RANK', 'GROUP_RANK'],
    'tf_config': ['TF_CONFIG'],
    'jax': ['JAX_COORDINATOR_ADDRESS', 'JAX_NUM_PROCESSES', 'JAX_PROCESS_ID'],
}

# Discovery of a v1.30 kube-apiserver (and the JobSet CRD), trimmed to the
# resources the manifests use and their neighbours.
CORE_V1 = {'kind': 'APIResourceList', 'groupVersion': 'v1', 'resources': [
    {'name': 'configmaps', 'singularName': 'configmap', 'namespaced': True,
     'kind': 'ConfigMap', 'verbs': ['create', 'delete', 'deletecollection', 'get', 'list',
                                    'patch', 'update', 'watch'],
     'shortNames': ['cm'], 'storageVersionHash': 'qFsyl6wFWjQ='},
    {'name': 'namespaces', 'singularName': 'namespace', 'namespaced': False,
     'kind': 'Namespace', 'verbs': ['create', 'delete', 'get', 'list', 'patch', 'update',
                                    'watch'],
     'shortNames': ['ns'], 'storageVersionHash': 'Q3oi5N2YM8M='},
    {'name': 'pods', 'singularName': 'pod', 'namespaced': True, 'kind': 'Pod',
     'verbs': ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update',
               'watch'], 'shortNames': ['po'], 'categories': ['all'],
     'storageVersionHash': 'xPOwRZ+Yhw8='},
    {'name': 'serviceaccounts', 'singularName': 'serviceaccount', 'namespaced': True,
     'kind': 'ServiceAccount', 'verbs': ['create', 'delete', 'deletecollection', 'get',
                                         'list', 'patch', 'update', 'watch'],
     'shortNames': ['sa'], 'storageVersionHash': 'pbx9ZvyFpBE='},
    {'name': 'services', 'singularName': 'service', 'namespaced': True, 'kind': 'Service',
     'verbs': ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update',
               'watch'], 'shortNames': ['svc'], 'categories': ['all'],
     'storageVersionHash': '0/CO1lhkEBI='}]}
GROUPS = {
    'batch': ('v1', [
        {'name': 'cronjobs', 'singularName': 'cronjob', 'namespaced': True,
         'kind': 'CronJob', 'verbs': ['create', 'delete', 'deletecollection', 'get', 'list',
                                      'patch', 'update', 'watch'],
         'shortNames': ['cj'], 'categories': ['all'], 'storageVersionHash': 'sd5LIXh4Fjs='},
        {'name': 'jobs', 'singularName': 'job', 'namespaced': True, 'kind': 'Job',
         'verbs': ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update',
                   'watch'], 'categories': ['all'], 'storageVersionHash': 'mudhfqk/qZY='}]),
    'rbac.authorization.k8s.io': ('v1', [
        {'name': 'clusterrolebindings', 'singularName': 'clusterrolebinding',
         'namespaced': False, 'kind': 'ClusterRoleBinding',
         'verbs': ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update',
                   'watch'], 'storageVersionHash': '48tpQ8gZHFc='},
        {'name': 'clusterroles', 'singularName': 'clusterrole', 'namespaced': False,
         'kind': 'ClusterRole', 'verbs': ['create', 'delete', 'deletecollection', 'get',
                                          'list', 'patch', 'update', 'watch'],
         'storageVersionHash': 'bYE5ZWDrJ44='},
        {'name': 'rolebindings', 'singularName': 'rolebinding', 'namespaced': True,
         'kind': 'RoleBinding', 'verbs': ['create', 'delete', 'deletecollection', 'get',
                                          'list', 'patch', 'update', 'watch'],
         'storageVersionHash': 'eGsCzGH6b1g='},
        {'name': 'roles', 'singularName': 'role', 'namespaced': True, 'kind': 'Role',
         'verbs': ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update',
                   'watch'], 'storageVersionHash': '7FuwZcIIItM='}]),
    'jobset.x-k8s.io': ('v1alpha2', [
        {'name': 'jobsets', 'singularName': 'jobset', 'namespaced': True, 'kind': 'JobSet',
         'verbs': ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update',
                   'watch'], 'storageVersionHash': 'a5WZf7sPWXw='},
        {'name': 'jobsets/status', 'singularName': '', 'namespaced': True, 'kind': 'JobSet',
         'verbs': ['get', 'patch', 'update']}]),
}


def load_docs():
    """(file, [documents]) for every manifest, in name order."""
    out = []
    for name in sorted(os.listdir(EXAMPLES)):
        if name.endswith('.yaml'):
            with open(os.path.join(EXAMPLES, name)) as f:
                out.append((name, [d for d in yaml.safe_load_all(f) if d is not None]))
    return out


def rest_path(doc):
    """(kubectl's `kind.group/name`, the object's REST path) from discovery."""
    api = doc['apiVersion']
    group, version = api.split('/') if '/' in api else ('', api)
    resources = CORE_V1['resources'] if not group else GROUPS[group][1]
    res = next(r for r in resources if r['kind'] == doc['kind'] and '/' not in r['name'])
    base = '/api/v1' if not group else '/apis/%s/%s' % (group, version)
    ns = doc['metadata'].get('namespace')
    path = base + ('/namespaces/%s' % ns if res['namespaced'] else '') + '/%s/%s' % (
        res['name'], doc['metadata']['name'])
    shown = doc['kind'].lower() + ('.' + group if group else '')
    return '%s/%s' % (shown, doc['metadata']['name']), path, res['name']


def discovery_faults(docs, groups=None):
    groups = GROUPS if groups is None else groups
    faults = []
    for _, ds in docs:
        for d in ds:
            _, path, resource = rest_path(d)
            faults.append({'path': path, 'status': 404, 'count': -1,
                           'message': '%s "%s" not found' % (resource, d['metadata']['name'])})
    for group, (version, resources) in groups.items():
        faults.append({'path': '/apis/%s/%s' % (group, version), 'count': -1, 'body': json.dumps(
            {'kind': 'APIResourceList', 'apiVersion': 'v1',
             'groupVersion': '%s/%s' % (group, version), 'resources': resources})})
    faults.append({'path': '/api/v1', 'count': -1, 'body': json.dumps(CORE_V1)})
    gv = lambda g, v: {'groupVersion': '%s/%s' % (g, v), 'version': v}  # noqa: E731
    faults.append({'path': '/apis', 'count': -1, 'body': json.dumps(
        {'kind': 'APIGroupList', 'apiVersion': 'v1', 'groups': [
            {'name': g, 'versions': [gv(g, v)], 'preferredVersion': gv(g, v)}
            for g, (v, _) in groups.items()]})})
    return faults


def check_kubectl(fx, docs, res):
    fx.set_faults(discovery_faults(docs))
    cache = tempfile.mkdtemp(prefix='kubectl-cache-', dir=fx.dir)
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'HOME': fx.home}
    for name, ds in docs:
        before = len(fx.requests())
        p = subprocess.run(['kubectl', '--kubeconfig', fx.kubeconfig, '--cache-dir', cache,
                            'apply', '--dry-run=client', '--validate=false', '-f',
                            os.path.join(EXAMPLES, name)],
                           capture_output=True, text=True, env=env, timeout=60)
        want = ''.join('%s created (dry run)\n' % rest_path(d)[0] for d in ds)
        gets = sorted({r['path'] for r in fx.requests()[before:]
                       if r['code'] == 404 and r['method'] == 'GET'})
        # kubectl also looks for the namespace of a namespaced object.
        want_gets = sorted({rest_path(d)[1] for d in ds} | {
            '/api/v1/namespaces/' + d['metadata']['namespace']
            for d in ds if d['metadata'].get('namespace')})
        res.check('kubectl apply --dry-run=client -f %s' % name,
                  p.returncode == 0 and p.stdout == want and gets == want_gets,
                  'rc %d, stdout %r (want %r), stderr %r, 404 GETs %s (want %s)'
                  % (p.returncode, p.stdout, want, p.stderr, gets, want_gets))
    # A cluster without the JobSet CRD: kubectl says so (README's claim).
    fx.set_faults(discovery_faults(docs, {g: v for g, v in GROUPS.items()
                                          if g != 'jobset.x-k8s.io'}))
    p = subprocess.run(['kubectl', '--kubeconfig', fx.kubeconfig, '--cache-dir',
                        tempfile.mkdtemp(prefix='kubectl-cache-', dir=fx.dir), 'apply',
                        '--dry-run=client', '--validate=false', '-f',
                        os.path.join(EXAMPLES, 'jobset.yaml')],
                       capture_output=True, text=True, env=env, timeout=60)
    want = 'no matches for kind "JobSet" in version "jobset.x-k8s.io/v1alpha2"'
    res.check('without the JobSet CRD kubectl refuses jobset.yaml',
              p.returncode != 0 and p.stdout == '' and want in p.stderr,
              'rc %d, stdout %r, stderr %r' % (p.returncode, p.stdout, p.stderr))
    fx.set_faults([])


def one(docs, kind):
    found = [d for _, ds in docs for d in ds if d['kind'] == kind]
    assert len(found) == 1, '%d %s manifests' % (len(found), kind)
    return found[0]


def suffix(*parts):
    """The 5 random characters of a generated pod name, made stable."""
    alphabet = 'bcdfghjklmnpqrstvwxz2456789'
    h = int(hashlib.sha256('/'.join(parts).encode()).hexdigest(), 16)
    return ''.join(alphabet[(h >> (5 * i)) % len(alphabet)] for i in range(5))


def job_pods(job_name, ns, job_spec, extra_labels, first_ip, legacy=False):
    """The pods the Job controller makes for an Indexed Job (completions
    of them, all Running): its labels and annotation, hostname
    <job>-<index>, the template's subdomain. @legacy: as before Kubernetes
    1.27, job-name and controller-uid only, the index only the annotation."""
    assert job_spec.get('completionMode') == 'Indexed', job_name
    tmpl = job_spec['template']
    uid = str(hashlib.sha256(('job/' + job_name).encode()).hexdigest())[:32]
    pods = []
    for i in range(job_spec['completions']):
        labels = dict(tmpl.get('metadata', {}).get('labels', {}))
        labels.update(extra_labels)
        labels.update({'controller-uid': uid, 'job-name': job_name} if legacy else
                      {'batch.kubernetes.io/controller-uid': uid,
                       'batch.kubernetes.io/job-name': job_name,
                       'controller-uid': uid, 'job-name': job_name,
                       'batch.kubernetes.io/job-completion-index': str(i)})
        pods.append({
            'name': '%s-%d-%s' % (job_name, i, suffix(job_name, str(i))),
            'namespace': ns, 'labels': labels,
            'annotations': {'batch.kubernetes.io/job-completion-index': str(i)},
            'phase': 'Running', 'podIP': '10.244.%d.%d' % (first_ip + i // 2, 10 + i),
            'hostIP': '172.18.0.%d' % (2 + i // 2), 'node': 'node-%d' % (i // 2),
            'owner': {'kind': 'Job', 'name': job_name},
            'hostname': '%s-%d' % (job_name, i), 'subdomain': tmpl['spec'].get('subdomain'),
            'template': tmpl})
    return pods


def jobset_pods(js, first_ip):
    """The pods of a JobSet: one Indexed Job <jobset>-<rjob>-<n> per replica,
    JobSet's labels, subdomain = the JobSet's name (its headless Service)."""
    name, ns = js['metadata']['name'], js['metadata']['namespace']
    pods = []
    for rj in js['spec']['replicatedJobs']:
        for n in range(rj.get('replicas', 1)):
            child = '%s-%s-%d' % (name, rj['name'], n)
            spec = copy.deepcopy(rj['template']['spec'])
            spec['template']['spec'].setdefault('subdomain', name)
            labels = {'jobset.sigs.k8s.io/jobset-name': name,
                      'jobset.sigs.k8s.io/replicatedjob-name': rj['name'],
                      'jobset.sigs.k8s.io/replicatedjob-replicas': str(rj.get('replicas', 1)),
                      'jobset.sigs.k8s.io/job-index': str(n),
                      'jobset.sigs.k8s.io/job-key': hashlib.sha1(
                          ('%s/%s' % (ns, child)).encode()).hexdigest()}
            for p in job_pods(child, ns, spec, labels, first_ip + len(pods)):
                p['annotations'].update(labels)  # JobSet annotates with the same keys
                pods.append(p)
    return pods


def fixture_pods(pods):
    out = []
    for p in pods:
        q = {k: v for k, v in p.items() if k != 'template' and v is not None}
        c = p['template']['spec']['containers'][0]
        q['port'] = c['ports'][0]['containerPort']
        q['image'] = c['image']
        out.append(q)
    # Pods the selectors must leave out: another Job of the namespace, and
    # the same Job's labels in another namespace.
    out.append({'name': 'evaluator-0-q2x7z', 'namespace': 'train', 'phase': 'Running',
                'labels': {'batch.kubernetes.io/job-name': 'evaluator',
                           'job-name': 'evaluator'}, 'podIP': '10.244.9.9'})
    other = dict(out[0], name=out[0]['name'] + 'x', namespace='other', podIP='10.244.8.8')
    out.append(other)
    return out


def downward(field, pod):
    for meta in ('labels', 'annotations'):
        head = "metadata.%s['" % meta
        if field.startswith(head) and field.endswith("']"):
            return pod[meta][field[len(head):-2]]
    return {'metadata.name': pod['name'], 'metadata.namespace': pod['namespace'],
            'status.podIP': pod['podIP'], 'spec.nodeName': pod['node'],
            'spec.serviceAccountName': pod['template']['spec'].get('serviceAccountName')
            }[field]


def mount_script(mounts, scratch):
    """Shell lines that put each (dir, target) at target in this mount
    namespace: bound over it when it exists, else over a directory made in
    an overlay of its nearest existing ancestor (the host never changes)."""
    lines = ['set -e', 'mount -t tmpfs scratch %s' % shlex.quote(scratch)]
    for k, (src, target) in enumerate(mounts):
        real = os.path.realpath(target)
        anc = real
        while not os.path.exists(anc):
            anc = os.path.dirname(anc)
        assert anc != '/', target
        if anc != real:
            up, work = '%s/u%d' % (scratch, k), '%s/w%d' % (scratch, k)
            lines += ['mkdir -p %s %s' % (up, work),
                      'mount -t overlay overlay -o lowerdir=%s,upperdir=%s,workdir=%s %s'
                      % (anc, up, work, anc), 'mkdir -p %s' % shlex.quote(real)]
        lines.append('mount --bind %s %s' % (shlex.quote(src), shlex.quote(real)))
    lines.append('exec "$@"')
    return '\n'.join(lines)


def run_pod(fx, pod, configmaps, workdir):
    """Run the pod's container as the kubelet would, its program replaced by
    /usr/bin/env; returns (rc, environment dict, stderr)."""
    spec = pod['template']['spec']
    c = spec['containers'][0]
    argv = list(c['command']) + ['/usr/bin/env']
    assert argv[0] == 'cluster-resolver', argv
    argv[0] = os.environ['CR_CLI']
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'HOSTNAME': pod['hostname'],
           'HOME': '/root', 'KUBERNETES_SERVICE_HOST': '127.0.0.1',
           'KUBERNETES_SERVICE_PORT': str(fx.port), 'KUBERNETES_SERVICE_PORT_HTTPS': str(fx.port),
           # the build tree's plugins stand for the image's installed ones
           'CLUSTER_RESOLVER_PLUGIN_PATH': os.environ['CLUSTER_RESOLVER_PLUGIN_PATH']}
    for k in ('ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS'):
        if k in os.environ:
            env[k] = os.environ[k]
    # The Job controller adds JOB_COMPLETION_INDEX (downward API, the
    # completion-index annotation) to every container of an Indexed Job.
    env['JOB_COMPLETION_INDEX'] = pod['annotations']['batch.kubernetes.io/job-completion-index']
    for e in c.get('env', []):
        env[e['name']] = (e['value'] if 'value' in e
                          else downward(e['valueFrom']['fieldRef']['fieldPath'], pod))
    # The service-account volume every pod gets (unless the spec says
    # automountServiceAccountToken: false), then the container's own.
    mounts = []
    if spec.get('automountServiceAccountToken', True):
        sa = os.path.join(workdir, 'sa')
        os.makedirs(sa, exist_ok=True)
        for fname, text in (('token', TOKEN), ('namespace', pod['namespace']),
                            ('ca.crt', open(os.path.join(fx.dir, 'ca.crt')).read())):
            with open(os.path.join(sa, fname), 'w') as f:
                f.write(text)
        mounts.append((sa, SA_DIR))
    volumes = {v['name']: v for v in spec.get('volumes', [])}
    for vm in c.get('volumeMounts', []):
        cm = volumes[vm['name']]['configMap']
        d = os.path.join(workdir, 'vol-' + vm['name'])
        os.makedirs(d, exist_ok=True)
        data = configmaps[cm['name']]['data']
        for item in cm.get('items', [{'key': k, 'path': k} for k in data]):
            with open(os.path.join(d, item['path']), 'w') as f:
                f.write(data[item['key']])
        mounts.append((d, vm['mountPath']))
    scratch = os.path.join(workdir, 'scratch')
    os.makedirs(scratch, exist_ok=True)
    p = subprocess.run(['unshare', '-m', 'sh', '-c', mount_script(mounts, scratch), 'kubelet']
                       + argv, capture_output=True, text=True, env=env, timeout=60)
    got = dict(line.split('=', 1) for line in p.stdout.splitlines() if '=' in line)
    return p.returncode, got, p.stderr


def formats_of(pod):
    cmd = pod['template']['spec']['containers'][0]['command']
    return cmd[cmd.index('--format') + 1].split(',')


def expected_env(pods, jobs, pod, address):
    """The variables of the pod's formats. jobs: [(job, [pods in task order])]."""
    port = pod['template']['spec']['containers'][0]['ports'][0]['containerPort']
    cluster = {j: ['%s:%d' % (address(q), port) for q in ps] for j, ps in jobs}
    world = [q for _, ps in jobs for q in ps]
    task_type, index = next((j, ps.index(pod)) for j, ps in jobs if pod in ps)
    rank = world.index(pod)
    want = {}
    for f in formats_of(pod):
        if f == 'tf_config':
            want['TF_CONFIG'] = json.dumps({'cluster': cluster,
                                            'task': {'type': task_type, 'index': index},
                                            'rpc_layer': 'grpc'})
        elif f == 'torch':
            # One pod per address: every pod is its own node.
            want.update({'MASTER_ADDR': address(world[0]), 'MASTER_PORT': str(port),
                         'WORLD_SIZE': str(len(world)), 'RANK': str(rank), 'LOCAL_RANK': '0',
                         'LOCAL_WORLD_SIZE': '1', 'NODE_RANK': str(rank),
                         'GROUP_RANK': str(rank)})
        else:
            raise AssertionError('no expectation for format %s' % f)
    return want


def pod_env_names(pod):
    return {e['name'] for e in pod['template']['spec']['containers'][0].get('env', [])}


def check_pods(fx, name, pods, jobs, configmaps, address, res):
    names = {v for vs in FORMAT_VARS.values() for v in vs}
    before = len(fx.requests())
    for pod in pods:
        workdir = tempfile.mkdtemp(prefix='pod-', dir=fx.dir)
        rc, got, err = run_pod(fx, pod, configmaps, workdir)
        want = expected_env(pods, jobs, pod, address)
        mine = {k: v for k, v in got.items() if k in names}
        # POD_NAME, where the manifest passes it down, is the pod's name.
        ok = (rc == 0 and mine == want and err == '' and got.get('POD_NAME') ==
              (pod['name'] if 'POD_NAME' in pod_env_names(pod) else None))
        diff = ['%s=%r (want %r)' % (k, mine.get(k), want.get(k))
                for k in sorted(set(mine) | set(want)) if mine.get(k) != want.get(k)]
        res.check('%s: pod %s gets exactly %s' % (name, pod['name'], ','.join(formats_of(pod))),
                  ok, 'rc %d, stderr %r, %s' % (rc, err, '; '.join(diff)))
    # All the pods asked for is what the Role grants: list pods in their
    # namespace; pods with no service account token ask for nothing at all.
    asked = sorted({(r['method'], r['path']) for r in fx.requests()[before:]})
    want = sorted({('GET', '/api/v1/namespaces/%s/pods' % p['namespace']) for p in pods
                   if p['template']['spec'].get('automountServiceAccountToken', True)})
    res.check('%s: the pods %s' % (name, 'only list pods of their namespace' if want else
                                   'send no request at all'), asked == want,
              'requests %s, want %s' % (asked, want))


def dns_name(pod):
    return '%s.%s.%s.svc.cluster.local' % (pod['hostname'], pod['subdomain'], pod['namespace'])


# Where each example's config puts a task: the pod IP (k8s, address pod_ip)
# or its DNS name (k8s with address dns, and k8s-indexed).
ADDRESS = {'indexed-job.yaml': lambda p: p['podIP'], 'jobset.yaml': dns_name,
           'indexed-job-dns.yaml': dns_name, 'jobset-dns.yaml': dns_name}


def schema_errors(obj, type_name, path):
    """Every field of @obj against the Kubernetes API schema as
    python3-kubernetes's models (generated from the OpenAPI spec) carry it:
    an unknown or misspelt field, or a value of the wrong type, is an error."""
    models = kubernetes.client.models
    if type_name.startswith('list['):
        if not isinstance(obj, list):
            return ['%s: not a list' % path]
        return [e for i, v in enumerate(obj) for e in schema_errors(v, type_name[5:-1],
                                                                    '%s[%d]' % (path, i))]
    if type_name.startswith('dict('):
        if not isinstance(obj, dict):
            return ['%s: not a map' % path]
        inner = type_name[5:-1].split(', ', 1)[1]
        return [e for k, v in obj.items() for e in schema_errors(v, inner, '%s.%s' % (path, k))]
    prim = {'str': str, 'int': int, 'bool': bool, 'float': (int, float)}
    if type_name in prim:
        ok = isinstance(obj, prim[type_name]) and not (type_name == 'int'
                                                       and isinstance(obj, bool))
        return [] if ok else ['%s: %r is not %s' % (path, obj, type_name)]
    if type_name == 'object':
        return []
    cls = getattr(models, type_name)
    if not isinstance(obj, dict):
        return ['%s: not a %s' % (path, type_name)]
    by_key = {v: k for k, v in cls.attribute_map.items()}
    errors = []
    for k, v in obj.items():
        if k not in by_key:
            errors.append('%s.%s: no such field in %s' % (path, k, type_name))
        else:
            errors += schema_errors(v, cls.openapi_types[by_key[k]], '%s.%s' % (path, k))
    return errors


KINDS = {'Namespace': 'V1Namespace', 'ServiceAccount': 'V1ServiceAccount',
         'Role': 'V1Role', 'RoleBinding': 'V1RoleBinding', 'ConfigMap': 'V1ConfigMap',
         'Job': 'V1Job', 'Service': 'V1Service'}
# JobSet v1alpha2 (jobset.sigs.k8s.io API reference); its Job templates are
# batch/v1 JobTemplateSpecs and are checked as such.
JOBSET_SPEC = {'replicatedJobs', 'network', 'successPolicy', 'failurePolicy',
               'startupPolicy', 'suspend', 'coordinator', 'managedBy',
               'ttlSecondsAfterFinished'}
JOBSET_RJOB = {'name', 'replicas', 'template', 'dependsOn'}


def check_schemas(docs, res):
    for name, ds in docs:
        for d in ds:
            what = '%s %s' % (d['kind'], d['metadata']['name'])
            if d['kind'] == 'JobSet':
                errors = schema_errors(d['metadata'], 'V1ObjectMeta', 'metadata')
                errors += ['spec.%s: no such field in JobSetSpec' % k
                           for k in sorted(set(d['spec']) - JOBSET_SPEC)]
                for i, rj in enumerate(d['spec']['replicatedJobs']):
                    errors += ['spec.replicatedJobs[%d].%s: no such field' % (i, k)
                               for k in sorted(set(rj) - JOBSET_RJOB)]
                    errors += schema_errors(rj['template'], 'V1JobTemplateSpec',
                                            'spec.replicatedJobs[%d].template' % i)
            else:
                errors = schema_errors({k: v for k, v in d.items()
                                        if k not in ('apiVersion', 'kind')},
                                       KINDS[d['kind']], d['kind'])
            res.check('%s: %s has only fields of its API schema' % (name, what),
                      not errors, '\n'.join(errors))


def check_manifest_fields(docs, res):
    """What kubectl's dry run cannot check without the server's schemas."""
    check_schemas(docs, res)
    role = one(docs, 'Role')
    res.check('Role grants exactly list and watch on pods',
              role['rules'] == [{'apiGroups': [''], 'resources': ['pods'],
                                 'verbs': ['list', 'watch']}],
              'rules %r' % role['rules'])
    sa, rb = one(docs, 'ServiceAccount'), one(docs, 'RoleBinding')
    res.check('RoleBinding binds the Role to the ServiceAccount',
              rb['roleRef'] == {'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'Role',
                                'name': role['metadata']['name']}
              and rb['subjects'] == [{'kind': 'ServiceAccount', 'name': sa['metadata']['name'],
                                      'namespace': sa['metadata']['namespace']}],
              'roleRef %r subjects %r' % (rb['roleRef'], rb['subjects']))
    specs = [(n, d['spec']['template']['spec']) for n, ds in docs for d in ds
             if d['kind'] == 'Job'] + [
        (n, rj['template']['spec']['template']['spec']) for n, ds in docs for d in ds
        if d['kind'] == 'JobSet' for rj in d['spec']['replicatedJobs']]
    for name, s in specs:
        c = s['containers'][0]
        if s.get('automountServiceAccountToken', True):
            res.check('%s: pod template: service account %s, POD_NAME from metadata.name'
                      % (name, s.get('serviceAccountName')),
                      s.get('serviceAccountName') == sa['metadata']['name']
                      and {'name': 'POD_NAME', 'valueFrom': {'fieldRef': {
                          'fieldPath': 'metadata.name'}}} in c['env'],
                      'spec %r' % s)
            continue
        # No request at all: no service account, no token, and the namespace
        # from the downward API.
        res.check('%s: pod template: no service account or token, POD_NAMESPACE from '
                  'metadata.namespace' % name,
                  'serviceAccountName' not in s
                  and {'name': 'POD_NAMESPACE', 'valueFrom': {'fieldRef': {
                      'fieldPath': 'metadata.namespace'}}} in c['env'],
                  'spec %r' % s)
        res.check('container: GPU limit, non-root on a read-only root, no escalation',
                  c.get('resources') == {'limits': {'nvidia.com/gpu': '8'}}
                  and c.get('securityContext') == {
                      'runAsNonRoot': True, 'runAsUser': DOCKER_UID, 'runAsGroup': DOCKER_UID,
                      'readOnlyRootFilesystem': True, 'allowPrivilegeEscalation': False,
                      'capabilities': {'drop': ['ALL']}},
                  'resources %r securityContext %r' % (c.get('resources'),
                                                      c.get('securityContext')))
    check_dockerfile(res)


# The Dockerfile's user: the manifests' runAsUser and runAsGroup.
DOCKER_UID = 1000


def check_dockerfile(res):
    """examples/k8s/Dockerfile: Debian 12, the runtime packages that
    packaging/debian/control defines (each once), a numeric non-root USER
    that the manifests run as."""
    with open(os.path.join(EXAMPLES, 'Dockerfile')) as f:
        text = f.read()
    with open(os.path.join(os.environ['CR_TEST_SOURCE_DIR'], 'packaging', 'debian',
                           'control')) as f:
        packages = re.findall(r'^Package: (\S+)$', f.read(), re.M)
    froms = re.findall(r'^FROM (\S+)', text, re.M)
    debs = re.findall(r'/tmp/debs/([a-z0-9.-]+?)_\*\.deb', text)
    users = re.findall(r'^USER (\S+)', text, re.M)
    res.check('Dockerfile: FROM debian:12-slim', froms == ['debian:12-slim'], repr(froms))
    res.check('Dockerfile: installs the runtime packages the repository builds',
              sorted(debs) == sorted(['libcluster-resolver1', 'cluster-resolver-plugins',
                                      'cluster-resolver-k8s', 'cluster-resolver-cloud',
                                      'cluster-resolver'])
              and set(debs) <= set(packages), '%r of %r' % (debs, packages))
    res.check('Dockerfile: USER %d:%d, made by useradd' % (DOCKER_UID, DOCKER_UID),
              users == ['%d:%d' % (DOCKER_UID, DOCKER_UID)]
              and '--uid %d --user-group' % DOCKER_UID in text, repr(users))


def main():
    ensure_hermetic()
    need('CR_CLI')
    for tool in ('kubectl', 'unshare', 'mount'):
        if subprocess.run(['sh', '-c', 'command -v ' + tool], capture_output=True).returncode:
            print('SKIP: %s is not installed' % tool)
            sys.exit(77)
    docs = load_docs()
    configmaps = {d['metadata']['name']: d for _, ds in docs for d in ds
                  if d['kind'] == 'ConfigMap'}
    runs = []  # (what, pods, [(job, [pods in task order])], address)
    for name, ds in docs:
        for d in ds:
            first_ip = 1 + 4 * len(runs)
            if d['kind'] == 'Job':
                pods = job_pods(d['metadata']['name'], d['metadata']['namespace'], d['spec'],
                                {}, first_ip)
                jobs = [('worker', pods)]
            elif d['kind'] == 'JobSet':
                pods = jobset_pods(d, first_ip)
                jobs = [(rj['name'], [p for p in pods if p['labels'][
                    'jobset.sigs.k8s.io/replicatedjob-name'] == rj['name']])
                    for rj in d['spec']['replicatedJobs']]
            else:
                continue
            runs.append(('%s %s (%s)' % (d['kind'], d['metadata']['name'], name), pods, jobs,
                         ADDRESS[name]))
    tmp = tempfile.mkdtemp(prefix='cr-examples-k8s-')
    pods_json = os.path.join(tmp, 'pods.json')
    with open(pods_json, 'w') as f:
        json.dump(fixture_pods([p for _, pods, _, _ in runs for p in pods]), f)
    res = Results()
    fx = Fixture(pods=pods_json)
    try:
        check_manifest_fields(docs, res)
        check_kubectl(fx, docs, res)
        for what, pods, jobs, address in runs:
            check_pods(fx, what, pods, jobs, configmaps, address, res)
    finally:
        fx.stop(keep=res.failed)
    # The Indexed Jobs again on a cluster before Kubernetes 1.27, whose Job
    # controller labels the pods job-name and controller-uid only: the same
    # manifests and configs must give every pod the same variables (the
    # k8s resolver lists its batch.kubernetes.io/job-name selector again as
    # job-name; docs/k8s.md, "Clusters before Kubernetes 1.27").
    old = []
    for name, ds in docs:
        for d in ds:
            if d['kind'] == 'Job':
                pods = job_pods(d['metadata']['name'], d['metadata']['namespace'], d['spec'],
                                {}, 1 + 4 * len(old), legacy=True)
                old.append(('%s %s (%s) on a cluster before 1.27' % (
                    d['kind'], d['metadata']['name'], name), pods, [('worker', pods)],
                    ADDRESS[name]))
    with open(pods_json, 'w') as f:
        json.dump(fixture_pods([p for _, pods, _, _ in old for p in pods]), f)
    fx = Fixture(pods=pods_json)
    try:
        for what, pods, jobs, address in old:
            check_pods(fx, what, pods, jobs, configmaps, address, res)
    finally:
        fx.stop(keep=res.failed)
    res.finish()


if __name__ == '__main__':
    main()
