"""examples_k8s_kubectl.py - part 1 of test_examples_k8s.py: kubectl parses
every manifest (`kubectl apply --dry-run=client`) against the k8s fixture,
which serves the discovery documents of a v1.30 kube-apiserver with the
JobSet CRD (as `body` faults) and answers each object's GET 404; and
without the CRD kubectl refuses jobset.yaml.
"""
import json
import os
import subprocess
import tempfile

from examples_k8s_common import EXAMPLES


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
