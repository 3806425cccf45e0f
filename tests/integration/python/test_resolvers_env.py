#!/usr/bin/python3
"""TensorFlow's TFConfigClusterResolver and SageMakerClusterResolver through
the Python package: TensorFlow's documented values (shared reference §6,
§11) from TF_CONFIG and SageMaker's variables, a task without an index, an
empty SM_HOSTS, and their errors. The other classes are test_resolvers.py's."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyharness as ph  # noqa: E402

ph.setup()
import cluster_resolver as cr  # noqa: E402
from cluster_resolver import (ClusterSpec, TFConfigClusterResolver,  # noqa: E402
                              SageMakerClusterResolver)

CLUSTER = {'ps': ['ps0:2222', 'ps1:2222'],
           'worker': ['worker0:2222', 'worker1:2222', 'worker2:2222']}
Env = ph.Env


def tf_config(cluster=CLUSTER, task=('ps', 0), **extra):
    d = {'cluster': cluster}
    if task:
        d['task'] = {'type': task[0], 'index': task[1]}
    d.update(extra)
    return json.dumps(d)


class TFConfig(unittest.TestCase):
    """§6 and TensorFlow's TFConfigClusterResolver tests."""

    def test_master_values(self):
        with Env(TF_CONFIG=tf_config()):
            r = TFConfigClusterResolver()
            self.assertEqual(r.cluster_spec().as_dict(), CLUSTER)
            self.assertEqual((r.task_type, r.task_id, r.rpc_layer, r.environment),
                             ('ps', 0, None, None))
            self.assertEqual(r.master(), 'ps0:2222')
            self.assertEqual(r.master('worker', 1), 'worker1:2222')
        with Env(TF_CONFIG=tf_config(rpc_layer='grpc')):
            self.assertEqual(TFConfigClusterResolver().master(), 'grpc://ps0:2222')
            self.assertEqual(TFConfigClusterResolver().master(rpc_layer=''), 'ps0:2222')
        with Env(TF_CONFIG=tf_config(session_master='sessionmaster:2222')):
            r = TFConfigClusterResolver()
            self.assertEqual(r.master(), 'sessionmaster:2222')
            self.assertEqual(r.master('worker', 1, 'grpc'), 'sessionmaster:2222')
        with Env(TF_CONFIG='{}'):
            self.assertEqual(TFConfigClusterResolver().master(), '')
        with Env(TF_CONFIG=tf_config({'worker': ['worker0:2222']}, None)):
            r = TFConfigClusterResolver()
            self.assertEqual((r.master(), r.master('worker', 0)), ('', ''))
        with Env(TF_CONFIG=None):
            r = TFConfigClusterResolver()
            self.assertEqual((r.cluster_spec(), r.master(), r.task_type, r.task_id),
                             (ClusterSpec({}), '', None, None))

    def test_overrides(self):
        with Env(TF_CONFIG=tf_config(task=('worker', 2))):
            r = TFConfigClusterResolver(task_type='ps', task_id=0, rpc_layer='grpc')
            self.assertEqual(r.master(), 'grpc://ps0:2222')
            r.task_type, r.task_id, r.rpc_layer = 'worker', 1, 'test'
            self.assertEqual(r.master(), 'test://worker1:2222')
            r.task_type, r.task_id = 123456, '1'
            self.assertEqual((r.task_type, r.task_id), ('123456', 1))
            r.task_id = 0
            self.assertEqual(r.task_id, 0)

    def test_reread_each_access(self):
        r = TFConfigClusterResolver()
        with Env(TF_CONFIG=tf_config(task=('worker', 2))):
            self.assertEqual((r.task_type, r.task_id), ('worker', 2))
        with Env(TF_CONFIG=tf_config(task=('ps', 1))):
            self.assertEqual((r.task_type, r.task_id, r.master()), ('ps', 1, 'ps1:2222'))

    def test_sparse_and_environment(self):
        with Env(TF_CONFIG=tf_config({'worker': {'1': 'w1:2222', '3': 'w3:2222'}},
                                     ('worker', 3))):
            r = TFConfigClusterResolver(environment='cloud')
            self.assertEqual(r.cluster_spec().as_dict(), {'worker': {1: 'w1:2222',
                                                                     3: 'w3:2222'}})
            self.assertEqual((r.environment, r.master()), ('cloud', 'w3:2222'))

    def test_no_task(self):
        with Env(TF_CONFIG=tf_config(task=None)):
            r = TFConfigClusterResolver()
            self.assertEqual(r.master(), '')
            with self.assertRaises(ValueError) as cm:
                r.master('worker', None)
            self.assertEqual(str(cm.exception), "No task with index None in job 'worker'")

    def test_task_type_without_index(self):
        # TensorFlow reads the type and leaves task_id None; master() then
        # looks up index None and raises its ValueError.
        cfg = json.dumps({'cluster': CLUSTER, 'task': {'type': 'worker'}, 'rpc_layer': 'grpc'})
        with Env(TF_CONFIG=cfg):
            r = TFConfigClusterResolver()
            self.assertEqual((r.task_type, r.task_id, r.rpc_layer), ('worker', None, 'grpc'))
            self.assertEqual(r.cluster_spec(), ClusterSpec(CLUSTER))
            self.assertEqual(r.cluster_spec().jobs, ['ps', 'worker'])
            with self.assertRaises(ValueError) as cm:
                r.master()
            self.assertEqual(str(cm.exception), "No task with index None in job 'worker'")
            self.assertEqual(r.master('worker', 1), 'grpc://worker1:2222')
            self.assertEqual(r.master('ps', 0, rpc_layer=''), 'ps0:2222')
            r.task_id = 2
            self.assertEqual((r.task_id, r.master()), (2, 'grpc://worker2:2222'))
            self.assertEqual(TFConfigClusterResolver(task_type='ps', task_id='1').master(),
                             'grpc://ps1:2222')
        with Env(TF_CONFIG=json.dumps({'cluster': {'worker': {'3': 'w3:1'}},
                                       'task': {'type': 'worker'}})):
            r = TFConfigClusterResolver()
            self.assertEqual((r.master(), r.rpc_layer), ('', None))
            self.assertEqual(r.cluster_spec().as_dict(), {'worker': {3: 'w3:1'}})
        with Env(TF_CONFIG=json.dumps({'task': {'type': 7}, 'session_master': 's:1'})):
            r = TFConfigClusterResolver()
            self.assertEqual((r.task_type, r.master(), r.cluster_spec()),
                             ('7', 's:1', ClusterSpec({})))

    def test_environment_is_the_constructors(self):
        # TensorFlow's TFConfigClusterResolver.environment returns the
        # constructor's argument (default None), never TF_CONFIG's key.
        with Env(TF_CONFIG=tf_config(environment='cloud')):
            self.assertIsNone(TFConfigClusterResolver().environment)
            self.assertEqual(TFConfigClusterResolver(environment='google').environment,
                             'google')

    def test_bad_json(self):
        with Env(TF_CONFIG='{"cluster": '):
            with self.assertRaises(ValueError) as cm:
                TFConfigClusterResolver().cluster_spec()
            e = cm.exception
            self.assertEqual((type(e), e.code, e.status),
                             (cr.errors.ParseError, 11, 'CR_ERR_PARSE'))
            self.assertTrue(str(e).startswith("resolver 'tfconfig': TF_CONFIG"), str(e))


class SageMaker(unittest.TestCase):
    """§7."""

    def test_values(self):
        with Env(SM_HOSTS='["algo-2", "algo-1"]', SM_CURRENT_HOST='algo-1'):
            r = SageMakerClusterResolver()
            self.assertEqual(r.cluster_spec().as_dict(),
                             {'worker': ['algo-1:2223', 'algo-2:2223']})
            self.assertEqual((r.task_type, r.task_id, r.master()), ('worker', 0, 'algo-1:2223'))
            self.assertEqual(r.master('worker', 1), 'algo-2:2223')
            r = SageMakerClusterResolver(port=2222, rpc_layer='grpc', task_id=1)
            self.assertEqual(r.master(), 'grpc://algo-2:2222')


    def test_zero_hosts(self):
        # TensorFlow's testZeroItemsInClusterSpecMasterRead: SM_HOSTS "" or []
        # is an empty cluster, and so is a current host not among the hosts.
        for hosts, current in (('', 'algo-1'), ('[]', 'algo-1'), ('["algo-2"]', 'algo-1')):
            with Env(SM_HOSTS=hosts, SM_CURRENT_HOST=current):
                r = SageMakerClusterResolver()
                self.assertEqual(r.cluster_spec(), ClusterSpec({}))
                self.assertEqual(r.cluster_spec().as_dict(), {})
                self.assertEqual((r.master(), r.master('worker', 0)), ('', ''))
                self.assertEqual((r.task_type, r.task_id, r.rpc_layer), (None, None, None))
                r = SageMakerClusterResolver(task_type='worker', task_id=0, rpc_layer='grpc')
                self.assertEqual((r.master(), r.task_type, r.task_id), ('', 'worker', 0))
        with Env(SM_HOSTS=None, SM_CURRENT_HOST='algo-1'):   # not SageMaker: an error
            with self.assertRaises(cr.errors.NotFoundError):
                SageMakerClusterResolver().cluster_spec()


if __name__ == '__main__':
    ph.main()
