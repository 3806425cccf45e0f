"""examples_k8s_schema.py - what kubectl's dry run cannot check, for
test_examples_k8s.py: every field of every manifest against the API schema
of python3-kubernetes's models (JobSet's few fields against its API
reference), the Role, the binding, the service account, POD_NAME or
POD_NAMESPACE and the container's security by value, and
examples/k8s/Dockerfile.
"""
import os
import re

import kubernetes.client

from examples_k8s_common import EXAMPLES, one


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
