#!/usr/bin/python3
"""pyclient.py KUBECONFIG NAMESPACE SELECTOR LIMIT - what TensorFlow's
KubernetesClusterResolver does with the Python client (python3-kubernetes):
list_namespaced_pod page by page, then "ip:port" per running pod, sorted by
name. Prints the number of tasks."""
import sys

from kubernetes import client, config

kc, ns, sel, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
config.load_kube_config(config_file=kc)
api = client.CoreV1Api()
pods, cont = [], None
while True:
    ret = api.list_namespaced_pod(ns, label_selector=sel, limit=limit, _continue=cont)
    pods.extend(ret.items)
    cont = ret.metadata._continue
    if not cont:
        break
tasks = ['%s:8470' % p.status.pod_ip for p in sorted(pods, key=lambda p: p.metadata.name)
         if p.status.phase == 'Running']
print(len(tasks))
