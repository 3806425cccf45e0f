#!/usr/bin/python3
"""tf_k8s.py KUBECONFIG NAMESPACE SELECTOR - TensorFlow's
KubernetesClusterResolver.cluster_spec() algorithm (shared reference §9),
written out because TensorFlow cannot be installed here: the Python client
(python3-kubernetes) lists the selector's pods, sorts them by name, refuses a
pod that is not Running, takes "host_ip:port" (TensorFlow's field) and makes
the job. The namespace is the fixture's (TensorFlow lists all namespaces,
which the same pods would answer). Prints "seconds tasks"."""
import sys
import time

from kubernetes import client, config

kc, ns, selector = sys.argv[1], sys.argv[2], sys.argv[3]
t = time.perf_counter()
config.load_kube_config(config_file=kc)
api = client.CoreV1Api()
pods = api.list_namespaced_pod(ns, label_selector=selector).items
tasks = []
for pod in sorted(pods, key=lambda p: p.metadata.name):
    if pod.status.phase != 'Running':
        raise RuntimeError('Pod "%s" is not running; phase: "%s"' % (pod.metadata.name,
                                                                     pod.status.phase))
    tasks.append('%s:%d' % (pod.status.host_ip, 8470))
spec = {'worker': tasks}
print(time.perf_counter() - t, len(spec['worker']))
