#!/usr/bin/python3
"""The TensorFlow and JAX paths of the package, run only where those import
(neither can be installed on the project's machines: each test is skipped
with the reason there, and docs/python.md says these paths are unproven).
TensorFlow: the classes are TensorFlow ClusterResolvers, cluster_spec() is a
tf.train.ClusterSpec, as_cluster_def() a tf.train.ClusterDef equal to our
bytes. JAX: environment() gives jax.distributed.initialize()'s arguments."""
import importlib.util
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyharness as ph  # noqa: E402

ph.setup()
HAVE_TF = importlib.util.find_spec('tensorflow') is not None
HAVE_JAX = importlib.util.find_spec('jax') is not None

CONF = ('resolvers = ( { plugin = "simple"; cluster = { chief = [ "c0:2222" ]; worker = '
        '[ "w0:2222", "w1:2222" ]; }; task_type = "worker"; task_id = 1; } );\n'
        'accelerators = ( );\n')


@unittest.skipUnless(HAVE_TF, 'TensorFlow is not installed (not installable here)')
class TensorFlow(unittest.TestCase):
    def test_registered_and_tf_types(self):
        import tensorflow as tf
        import cluster_resolver as cr
        r = cr.ClusterResolver(CONF)
        self.assertIsInstance(r, tf.distribute.cluster_resolver.ClusterResolver)
        spec = r.cluster_spec()
        self.assertIsInstance(spec, tf.train.ClusterSpec)
        self.assertEqual(spec.as_dict(), {'chief': ['c0:2222'], 'worker': ['w0:2222',
                                                                          'w1:2222']})
        ours = cr.ClusterSpec({'worker': ['w0:2222'], 'ps': ['p:1']})
        cd = ours.as_cluster_def()
        self.assertIsInstance(cd, tf.train.ClusterDef)
        self.assertEqual(cd.SerializeToString(deterministic=True), ours._encode())
        self.assertEqual(tf.train.ClusterSpec(cd).as_dict(), ours.as_dict())
        simple = cr.SimpleClusterResolver(tf.train.ClusterSpec({'worker': ['w:1']}))
        self.assertEqual(simple.master('worker', 0), 'w:1')


class JaxArguments(unittest.TestCase):
    """environment() needs no JAX: jax.distributed.initialize()'s arguments."""

    def test_environment(self):
        import cluster_resolver as cr
        import cluster_resolver.jax as crj
        self.assertEqual(crj.environment(cr.ClusterResolver(CONF)),
                         {'coordinator_address': 'c0:2222', 'num_processes': 3,
                          'process_id': 2, 'local_device_ids': None})
        gpus = CONF.replace('task_id = 1; }', 'task_id = 1; num_accelerators = { GPU = 2; }; }')
        self.assertEqual(crj.environment(cr.ClusterResolver(gpus))['local_device_ids'], [0, 1])


@unittest.skipUnless(HAVE_JAX, 'JAX is not installed (not installable here)')
class Jax(unittest.TestCase):
    def test_cluster_env(self):
        import cluster_resolver as cr
        import cluster_resolver.jax as crj
        env = crj.register_cluster_env(cr.ClusterResolver(CONF))
        self.assertEqual((env.is_env_present(), env.get_coordinator_address(None),
                          env.get_process_count(), env.get_process_id()),
                         (True, 'c0:2222', 3, 2))


if __name__ == '__main__':
    ph.main()
