#!/usr/bin/python3
"""KubernetesClusterResolver (and ClusterResolver on a k8s configuration)
against the k8s fixture API server the C tests use, in the loopback-only
namespace: the issue's acceptance command, TensorFlow's own usage example
run verbatim with only its import line changed, TensorFlow's documented
behaviour (§9) with the fixes of §14, errors, and no secret in them."""
import json
import os
import subprocess
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyharness as ph  # noqa: E402

ph.setup()
sys.path.insert(0, os.path.join(ph.SRC, 'tests/integration/k8s'))
import k8s_harness as kh  # noqa: E402

import cluster_resolver as cr  # noqa: E402
from cluster_resolver import KubernetesClusterResolver  # noqa: E402

W = ['10.2.0.%d:8470' % (10 + i) for i in range(11)]   # worker-0 … worker-10 (train)

# TensorFlow's example selectors, as pods of the fixture's namespace `train`.
EXAMPLE_PODS = [
    {'name': 'wa-1', 'namespace': 'train', 'labels': {'job-name': 'worker-cluster-a'},
     'podIP': '10.9.0.2', 'hostIP': '192.168.9.1', 'node': 'n1'},
    {'name': 'wa-0', 'namespace': 'train', 'labels': {'job-name': 'worker-cluster-a'},
     'podIP': '10.9.0.1', 'hostIP': '192.168.9.1', 'node': 'n1'},
    {'name': 'wb-0', 'namespace': 'train', 'labels': {'job-name': 'worker-cluster-b'},
     'podIP': '10.9.1.1', 'hostIP': '192.168.9.2', 'node': 'n2'},
]

# What tf.distribute.experimental.MultiWorkerMirroredStrategy reads from its
# cluster_resolver when it is made (TensorFlow cannot be installed here):
# the normalized cluster spec, the task, the rpc layer and the master.
STAND_IN = '''
class _Strategy(object):
    seen = []

    def __init__(self, cluster_resolver):
        spec = cluster_resolver.cluster_spec().as_dict()
        task = (cluster_resolver.task_type, cluster_resolver.task_id)
        assert task[0] is not None and task[1] is not None, 'no task'
        _Strategy.seen.append((spec, task, cluster_resolver.rpc_layer,
                               cluster_resolver.master()))


class tf(object):
    class distribute(object):
        class experimental(object):
            MultiWorkerMirroredStrategy = _Strategy
'''


def tf_example():
    """TensorFlow's KubernetesClusterResolver docstring example, verbatim,
    with its import line: from cluster_resolver import ..."""
    return textwrap.dedent('''\
    from cluster_resolver import KubernetesClusterResolver

    # On worker 0
    cluster_resolver = KubernetesClusterResolver(
        {"worker": ["job-name=worker-cluster-a", "job-name=worker-cluster-b"]})
    cluster_resolver.task_type = "worker"
    cluster_resolver.task_id = 0
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(
        cluster_resolver=cluster_resolver)

    # On worker 1
    cluster_resolver = KubernetesClusterResolver(
        {"worker": ["job-name=worker-cluster-a", "job-name=worker-cluster-b"]})
    cluster_resolver.task_type = "worker"
    cluster_resolver.task_id = 1
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(
        cluster_resolver=cluster_resolver)
    ''')


class K8s(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fx = kh.Fixture(pods=os.path.join(ph.SRC, 'tests/integration/k8s/pods.json'))
        pods = os.path.join(cls.fx.dir, 'example-pods.json')
        with open(pods, 'w') as f:
            json.dump(EXAMPLE_PODS, f)
        cls.fx2 = kh.Fixture(pods=pods)
        cls.saved = dict(os.environ)
        for k in ('POD_NAME', 'HOSTNAME', 'POD_IP', 'KUBERNETES_SERVICE_HOST', 'TF_CONFIG'):
            os.environ.pop(k, None)
        os.environ['HOME'] = cls.fx.home
        os.environ['KUBECONFIG'] = cls.fx.kubeconfig

    @classmethod
    def tearDownClass(cls):
        os.environ.clear()
        os.environ.update(cls.saved)
        cls.fx.stop()
        cls.fx2.stop()

    def test_acceptance_command(self):
        """The issue's `python3 -c` line, as a separate process."""
        cmd = ("from cluster_resolver import KubernetesClusterResolver as K; "
               "print(K({'worker': ['job-name=worker']}).cluster_spec())")
        p = subprocess.run([ph.PYTHON, '-c', cmd], capture_output=True, text=True,
                           env=ph.python_env(self.fx.home, {'KUBECONFIG': self.fx.kubeconfig}),
                           timeout=60)
        self.assertEqual((p.returncode, p.stderr), (0, ''))
        self.assertEqual(p.stdout, 'ClusterSpec({%r: %r})\n' % ('worker', W))

    def test_tf_usage_example_verbatim(self):
        ns = {}
        exec(STAND_IN, ns)
        env = {'KUBECONFIG': self.fx2.kubeconfig}
        old = os.environ['KUBECONFIG']
        os.environ.update(env)
        try:
            exec(tf_example(), ns)
        finally:
            os.environ['KUBECONFIG'] = old
        cluster = {'worker': ['10.9.0.1:8470', '10.9.0.2:8470', '10.9.1.1:8470']}
        self.assertEqual(ns['_Strategy'].seen, [
            (cluster, ('worker', 0), 'grpc', 'grpc://10.9.0.1:8470'),
            (cluster, ('worker', 1), 'grpc', 'grpc://10.9.0.2:8470')])

    def test_defaults_and_master(self):
        r = KubernetesClusterResolver({'worker': ['job-name=worker'], 'ps': ['app=ps']})
        spec = r.cluster_spec()
        self.assertEqual(spec.as_dict(), {'worker': W, 'ps': ['10.2.1.10:8470', '10.2.1.11:8470',
                                                                '10.2.1.12:8470']})
        self.assertEqual(spec.jobs, ['worker', 'ps'])
        self.assertIsNone(r.task_type)
        self.assertIsNone(r.task_id)
        self.assertEqual(r.rpc_layer, 'grpc')
        self.assertEqual(r.environment, '')
        self.assertEqual(r.master(), '')           # no task: TensorFlow's ''
        self.assertEqual(r.master('worker', 2), 'grpc://10.2.0.12:8470')
        self.assertEqual(r.master('ps', 1, rpc_layer='test'), 'test://10.2.1.11:8470')
        r.task_type, r.task_id = 'worker', 10
        self.assertEqual(r.master(), 'grpc://10.2.0.20:8470')
        r.rpc_layer = ''
        self.assertEqual(r.master(), '10.2.0.20:8470')
        self.assertEqual(r.num_accelerators(), {'GPU': 2})
        self.assertEqual(r.num_accelerators('ps', 0), {})

    def test_port_and_layer(self):
        r = KubernetesClusterResolver({'chief': ['role=chief']}, tf_server_port=2222,
                                      rpc_layer='grpc+verbs')
        self.assertEqual(r.cluster_spec(), cr.ClusterSpec({'chief': ['10.2.2.1:2222']}))
        self.assertEqual(r.master('chief', 0), 'grpc+verbs://10.2.2.1:2222')

    def test_rpc_layer_none_is_no_layer(self):
        # TensorFlow stores rpc_layer as given: an explicit None formats no
        # prefix; only the omitted argument is "grpc".
        r = KubernetesClusterResolver({'worker': ['job-name=worker']}, rpc_layer=None)
        self.assertIsNone(r.rpc_layer)
        self.assertEqual(r.master('worker', 1), '10.2.0.11:8470')
        self.assertEqual(r.master('worker', 1, rpc_layer='test'), 'test://10.2.0.11:8470')
        r.rpc_layer = 'grpc'
        self.assertEqual(r.master('worker', 1), 'grpc://10.2.0.11:8470')
        r.rpc_layer = None
        self.assertEqual(r.master('worker', 1, rpc_layer=''), '10.2.0.11:8470')

    def test_default_mapping_all_namespaces(self):
        """{} means {'worker': ['job-name=tensorflow']}; TensorFlow's test pods."""
        r = KubernetesClusterResolver({}, options={'namespace': '*'})
        self.assertEqual(r.cluster_spec().as_dict(),
                         {'worker': ['10.1.2.5:8470', '10.1.2.3:8470', '10.1.2.4:8470']})
        r = KubernetesClusterResolver(
            {'worker': ['job-name=worker1', 'job-name=worker2']}, options={'namespace': '*'})
        self.assertEqual(r.cluster_spec().as_dict(),
                         {'worker': ['10.1.3.1:8470', '10.1.3.2:8470', '10.1.4.1:8470']})

    def test_empty_selector_is_empty_job(self):
        r = KubernetesClusterResolver({'worker': ['job-name=none']})
        spec = r.cluster_spec()
        self.assertEqual((spec.as_dict(), spec.job_tasks('worker'), bool(spec)),
                         ({'worker': {}}, [], True))

    def test_not_running_pod(self):
        r = KubernetesClusterResolver({'evaluator': ['job-name=evaluator']})
        with self.assertRaises(RuntimeError) as cm:
            r.cluster_spec()
        e = cm.exception
        self.assertIsInstance(e, cr.errors.BackendError)
        self.assertEqual((e.code, e.status), (13, 'CR_ERR_BACKEND'))
        self.assertIn('evaluator-1', str(e))
        self.assertNotIn(kh.TOKEN, str(e))

    def test_refused_arguments(self):
        with self.assertRaises(ValueError) as cm:
            KubernetesClusterResolver(override_client=object())
        self.assertIn('override_client is not supported by cluster_resolver', str(cm.exception))
        self.assertIn('KUBECONFIG', str(cm.exception))
        with self.assertRaisesRegex(ValueError, r'^The executable location provided is invalid'):
            KubernetesClusterResolver(executable_location=7)

    def test_auth_failure_carries_no_secret(self):
        self.fx.set_tokens(['another-token'])
        try:
            r = KubernetesClusterResolver({'worker': ['job-name=worker']})
            r_bad = cr.ClusterResolver(
                'resolvers = ( { plugin = "k8s"; kubeconfig = "%s"; '
                'jobs = { worker = [ "job-name=worker" ]; }; } );' % self.fx.kubeconfig)
            for res in (r, r_bad):
                try:
                    res.cluster_spec()
                except cr.ClusterResolverError as e:
                    self.assertNotIn(kh.TOKEN, str(e))
        finally:
            self.fx.set_tokens([])

    def test_generic_resolver_and_explain(self):
        conf = ('resolvers = ( { plugin = "k8s"; jobs = { worker = [ "job-name=worker" ]; }; } );'
                '\naccelerators = ( );\n')
        r = cr.ClusterResolver(conf, task_type='worker', task_id=3)
        self.assertEqual(r.cluster_spec().as_dict(), {'worker': W})
        self.assertEqual(r.master(), 'grpc://10.2.0.13:8470')
        doc = r.explain()
        self.assertEqual([x['verdict'] for x in doc['resolvers']], ['ok'])
        self.assertEqual(doc['result']['cluster'], {'worker': W})
        self.assertIsNone(doc['error'])


if __name__ == '__main__':
    ph.main()
