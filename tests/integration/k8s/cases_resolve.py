#!/usr/bin/python3
"""The cases of test_k8s.py: config, environment, faults -> exact output.

Pods are in pods.json. Namespace `default` holds TensorFlow's own test pods
(tf-semantics.md §9); namespace `train` an Indexed Job of 11 workers
(worker-<i>-<suffix>, pod IP 10.2.0.<10+i>, 2 GPUs each, two per node), a
StatefulSet `ps`, a chief with a DNS name, pods that are not Running, TPU,
AMD and IPv6 pods; namespace `other` one more `job-name=worker` pod.
"""
import cases_resolve_auth
import cases_resolve_lists
import cases_resolve_pods

# In this order: a case may see what the one before it left (a request the
# fixture logs late, see cases_resolve_common.delay_logged).
CASES = cases_resolve_pods.CASES + cases_resolve_lists.CASES + cases_resolve_auth.CASES
