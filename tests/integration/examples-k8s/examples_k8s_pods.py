"""examples_k8s_pods.py - part 2 of test_examples_k8s.py: the pods the Job
and JobSet controllers would make of each example (job_pods, jobset_pods;
fixture_pods serves them), each pod's container run as the kubelet would
(run_pod: downward API, service-account files and ConfigMap volumes mounted
in a private mount namespace), and the variables it must get (check_pods).
"""
import copy
import hashlib
import json
import os
import shlex
import subprocess
import tempfile

from examples_k8s_common import TOKEN


SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'
FORMAT_VARS = {
    'torch': ['MASTER_ADDR', 'MASTER_PORT', 'WORLD_SIZE', 'RANK', 'LOCAL_RANK',
              'LOCAL_WORLD_SIZE', 'NODE_RANK', 'GROUP_RANK'],
    'tf_config': ['TF_CONFIG'],
    'jax': ['JAX_COORDINATOR_ADDRESS', 'JAX_NUM_PROCESSES', 'JAX_PROCESS_ID'],
}


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
