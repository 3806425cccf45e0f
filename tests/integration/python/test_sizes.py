#!/usr/bin/python3
"""A cluster that knows only its coordinator (ABI 1.3) through the Python
package: under torchrun's variables (torch-env.so) job_size() is
WORLD_SIZE, unknown_tasks() the ranks without an address, cluster_spec()
holds task 0 alone (as TensorFlow's dense [addr]), env vars come from the launcher; TF_CONFIG is refused
with the launcher's name; a full cluster has no unknown task."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyharness as ph  # noqa: E402

ph.setup()
import cluster_resolver as cr  # noqa: E402
from cluster_resolver import ClusterResolver, ClusterSpec  # noqa: E402

CONF = 'resolvers = ( { plugin = "torch-env"; } );\n'
TORCHRUN = dict(TORCHELASTIC_RUN_ID='none', RANK='3', WORLD_SIZE='4', LOCAL_RANK='1',
                LOCAL_WORLD_SIZE='2', GROUP_RANK='1', GROUP_WORLD_SIZE='2',
                MASTER_ADDR='node-a', MASTER_PORT='29500')


class Sizes(unittest.TestCase):
    def test_torchrun_world(self):
        with ph.Env(**TORCHRUN):
            r = ClusterResolver(CONF)
            self.assertEqual(r.job_size(), 4)
            self.assertEqual(r.job_size('worker'), 4)
            self.assertEqual(r.unknown_tasks(), [1, 2, 3])
            self.assertEqual(r.cluster_spec().as_dict(), {'worker': ['node-a:29500']})
            self.assertEqual((r.task_type, r.task_id), ('worker', 3))
            self.assertEqual(dict(r._env_vars('torch')), {
                'MASTER_ADDR': 'node-a', 'MASTER_PORT': '29500', 'WORLD_SIZE': '4',
                'RANK': '3', 'LOCAL_RANK': '1', 'LOCAL_WORLD_SIZE': '2', 'NODE_RANK': '1',
                'GROUP_RANK': '1'})
            with self.assertRaises(cr.errors.ClusterResolverError) as cm:
                r._env_vars('tf_config')
            self.assertEqual(str(cm.exception),
                             "format 'tf_config' needs every task's address: resolver "
                             "'torch-env' (torchrun) gave the addresses of 1 of the 4 tasks "
                             "of job 'worker', not the others' (use --format torch, torchrun, "
                             "jax, env or json)")
            with self.assertRaises(cr.errors.NotFoundError):
                r.job_size('ps')
            r.close()

    def test_same_size_answer_fills_the_world(self):
        # A TF_CONFIG of WORLD_SIZE tasks after torch-env: the addresses
        # complete torchrun's world (task 0 stays the coordinator), the
        # node and local rank stay torchrun's.
        conf = ('resolvers = ( { plugin = "torch-env"; }, { plugin = "tfconfig"; } );\n')
        tf = '{"cluster": {"worker": ["a:1", "b:1", "c:1", "d:1"]}}'
        with ph.Env(TF_CONFIG=tf, **TORCHRUN):
            r = ClusterResolver(conf)
            self.assertEqual(r.job_size(), 4)
            self.assertEqual(r.unknown_tasks(), [])
            self.assertEqual(r.cluster_spec().as_dict(),
                             {'worker': ['node-a:29500', 'b:1', 'c:1', 'd:1']})
            self.assertEqual(dict(r._env_vars('tf_config')), {
                'TF_CONFIG': '{"cluster": {"worker": ["node-a:29500", "b:1", "c:1", "d:1"]}, '
                             '"task": {"type": "worker", "index": 3}}'})
            env = dict(r._env_vars('torch'))
            self.assertEqual((env['LOCAL_RANK'], env['LOCAL_WORLD_SIZE'], env['NODE_RANK']),
                             ('1', '2', '1'))
            r.close()

    def test_trainjob_node_world(self):
        # A TrainJob pod: torchrun is still to run, the pod is node 1 of 2
        # (job `node`); torchrun's variables come with jobs=node.
        env = dict(PET_NNODES='2', PET_NPROC_PER_NODE='auto', PET_NODE_RANK='1',
                   PET_MASTER_ADDR='tj-node-0-0.tj', PET_MASTER_PORT='29500')
        with ph.Env(**env):
            r = ClusterResolver(CONF)
            self.assertEqual((r.task_type, r.task_id), ('node', 1))
            self.assertEqual(r.job_size(), 2)
            self.assertEqual(r.unknown_tasks(), [1])
            self.assertEqual(dict(r._env_vars('torchrun', {'jobs': 'node'})), {
                'PET_NNODES': '2', 'PET_NODE_RANK': '1', 'PET_MASTER_ADDR': 'tj-node-0-0.tj',
                'PET_MASTER_PORT': '29500'})
            with self.assertRaises(cr.errors.NotFoundError) as cm:
                r._env_vars('torch')
            self.assertEqual(str(cm.exception),
                             "format 'torch': no task in jobs chief, master, worker")
            r.close()

    def test_full_cluster_has_none_unknown(self):
        r = ClusterResolver('resolvers = ( { plugin = "simple"; cluster_json = '
                            '"{\\"worker\\": [\\"a:1\\", \\"b:1\\"]}"; '
                            'task_type = "worker"; task_id = 1; } );\n')
        self.assertEqual(r.job_size(), 2)
        self.assertEqual(r.unknown_tasks(), [])
        r.close()

    def test_spec_from_json_with_null(self):
        spec = ClusterSpec._from_json('{"worker": ["m:1", null, "c:1"]}')
        self.assertEqual(spec.as_dict(), {'worker': {0: 'm:1', 2: 'c:1'}})


if __name__ == '__main__':
    ph.main()
