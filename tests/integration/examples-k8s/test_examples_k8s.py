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
import json
import os
import subprocess
import sys
import tempfile

# The parts, lowest first (none imports this script; examples_k8s_common
# puts tests/integration/k8s, with k8s_harness.py, on sys.path):
#   examples_k8s_common.py   paths, the manifests read
#   examples_k8s_kubectl.py  1. kubectl's client dry run
#   examples_k8s_pods.py     2. the pods, run as the kubelet would
#   examples_k8s_schema.py   the fields, against the API schema
from examples_k8s_common import load_docs
from examples_k8s_kubectl import check_kubectl
from examples_k8s_pods import ADDRESS, check_pods, fixture_pods, job_pods, jobset_pods
from examples_k8s_schema import check_manifest_fields
from k8s_harness import Fixture, ensure_hermetic, need, Results


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
