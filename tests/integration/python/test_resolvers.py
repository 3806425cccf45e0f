#!/usr/bin/python3
"""TensorFlow's resolver classes through the Python package: TensorFlow's
documented values (shared reference §4-§11) with the fixes of §14, on the
fixtures the C tests use (Slurm step environments captured from a real
Slurm, Cloud TPU endpoints, the GCP fixture server); errors and their
exception types; nothing printed; no leak or reference cycle over 10,000
resolutions; concurrent cluster_spec() calls; the ImportError without the
library. TFConfigClusterResolver and SageMakerClusterResolver have
test_resolvers_env.py."""
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading
import tracemalloc
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyharness as ph  # noqa: E402

ph.setup()
import cluster_resolver as cr  # noqa: E402
from cluster_resolver import (ClusterSpec, SimpleClusterResolver,  # noqa: E402
                              TFConfigClusterResolver,
                              SlurmClusterResolver, TPUClusterResolver, GCEClusterResolver,
                              UnionResolver, ClusterResolver)

CLUSTER = {'ps': ['ps0:2222', 'ps1:2222'],
           'worker': ['worker0:2222', 'worker1:2222', 'worker2:2222']}
SLURM = os.path.join(ph.SRC, 'tests/fixtures/slurm')


def slurm_env(case, task):
    env = {}
    with open(os.path.join(SLURM, case, 'task-%d.env' % task)) as f:
        for line in f:
            k, _, v = line.rstrip('\n').partition('=')
            env[k] = v
    return env


class Simple(unittest.TestCase):
    """§4 and TensorFlow's SimpleClusterResolver tests."""

    def test_values(self):
        spec = ClusterSpec({'ps': ['ps0:2222'], 'worker': ['worker0:2222', 'worker1:2222',
                                                           'worker2:2222']})
        r = SimpleClusterResolver(spec)
        self.assertIs(r.cluster_spec(), spec)
        self.assertEqual(r.master('worker', 0, rpc_layer='grpc'), 'grpc://worker0:2222')
        self.assertEqual(r.master('worker', 2), 'worker2:2222')
        self.assertEqual(r.master(), '')
        self.assertEqual(SimpleClusterResolver(spec, rpc_layer='grpc').master(), '')  # §14.16
        r = SimpleClusterResolver(spec, master='m:1', task_type='worker', task_id=1,
                                  environment='cloud', num_accelerators={'GPU': 8},
                                  rpc_layer='grpc')
        self.assertEqual((r.master(), r.master(rpc_layer=''), r.task_type, r.task_id,
                          r.environment, r.num_accelerators('ps', 0)),
                         ('grpc://m:1', 'grpc://m:1', 'worker', 1, 'cloud', {'GPU': 8}))
        r.task_type, r.task_id, r.rpc_layer = 'ps', '0', 'test'
        self.assertEqual((r.task_type, r.task_id, r.master('ps', 0)),
                         ('ps', '0', 'test://ps0:2222'))
        with self.assertRaises(AttributeError):
            r.environment = 'x'

    def test_type_errors(self):
        with self.assertRaises(TypeError) as cm:
            SimpleClusterResolver({'worker': ['a:1']})
        self.assertEqual(str(cm.exception), 'cluster_spec must be a `tf.train.ClusterSpec`.')
        with self.assertRaises(TypeError) as cm:
            SimpleClusterResolver(ClusterSpec({}), master=1)
        self.assertEqual(str(cm.exception), 'master must be a string.')

    def test_configuration(self):
        r = SimpleClusterResolver(ClusterSpec({'worker': ['a:1', 'b:1']}), task_type='worker',
                                  task_id=1, rpc_layer='grpc')
        self.assertEqual(r.configuration,
                         'resolvers = ( { plugin = "simple"; cluster_json = "{\\"worker\\": '
                         '{\\"0\\": \\"a:1\\", \\"1\\": \\"b:1\\"}}"; task_type = "worker"; '
                         'task_id = 1; rpc_layer = "grpc"; } );\n')
        self.assertEqual(r.explain()['result']['task'], {'type': 'worker', 'index': 1})


class Union(unittest.TestCase):
    """§5 and TensorFlow's UnionClusterResolver tests, with the §14 fixes."""

    def simple(self, cluster, **kw):
        return SimpleClusterResolver(ClusterSpec(cluster), **kw)

    def test_merge(self):
        a = self.simple({'worker': ['w4:1', 'w5:1'], 'ps': ['p0:1']}, task_type='worker',
                        task_id=1, rpc_layer='grpc', environment='cloud',
                        num_accelerators={'GPU': 2})
        b = self.simple({'worker': ['w0:1', 'w1:1', 'w2:1'], 'chief': ['c:1']})
        u = UnionResolver(a, b)
        self.assertEqual(u.cluster_spec().as_dict(),
                         {'worker': ['w4:1', 'w5:1', 'w0:1', 'w1:1', 'w2:1'], 'ps': ['p0:1'],
                          'chief': ['c:1']})
        self.assertEqual((u.task_type, u.task_id, u.rpc_layer, u.environment,
                          u.num_accelerators()), ('worker', 1, 'grpc', 'cloud', {'GPU': 2}))
        self.assertEqual(u.master('worker', 4), 'grpc://w2:1')
        self.assertEqual(u.master(), '')
        sparse = UnionResolver(a, self.simple({'worker': {3: 'x3:1', 6: 'x6:1', 7: 'x7:1'}}))
        self.assertEqual(sparse.cluster_spec().as_dict()['worker'],
                         {0: 'w4:1', 1: 'w5:1', 3: 'x3:1', 6: 'x6:1', 7: 'x7:1'})

    def test_duplicate_key(self):
        u = UnionResolver(self.simple({'worker': ['w4:1', 'w5:1']}),
                          self.simple({'worker': {1: 'x1:1', 2: 'x2:1'}}))
        with self.assertRaises(KeyError) as cm:
            u.cluster_spec()
        self.assertIsInstance(cm.exception, cr.errors.ConflictError)
        self.assertIn('1', str(cm.exception))

    def test_fixes(self):
        empty = self.simple({'worker': []})
        u = UnionResolver(empty, self.simple({'worker': ['a:1']}),
                          self.simple({'worker': ['b:1']}), task_type='', task_id=0,
                          rpc_layer='test')
        self.assertEqual(u.cluster_spec().as_dict(), {'worker': ['a:1', 'b:1']})   # §14.10
        self.assertEqual((u.task_type, u.task_id), ('', 0))                      # §14.8
        self.assertEqual(u.master('worker', 1), 'test://b:1')                    # §14.9

    def test_errors(self):
        with self.assertRaises(ValueError) as cm:
            UnionResolver(self.simple({}), foo=1)
        self.assertEqual(str(cm.exception), "Unexpected kwargs provided {'foo': 1}")
        with self.assertRaises(ValueError) as cm:
            UnionResolver()
        self.assertEqual(str(cm.exception), 'At least one ClusterResolver is required.')
        with self.assertRaises(TypeError) as cm:
            UnionResolver(self.simple({}), 'x')
        self.assertEqual(str(cm.exception),
                         'All arguments must be a sub-class of `ClusterResolver.`')

    def test_with_tfconfig(self):
        with ph.Env(TF_CONFIG=json.dumps({'cluster': CLUSTER,
                                          'task': {'type': 'worker', 'index': 0}})):
            u = UnionResolver(TFConfigClusterResolver(), self.simple({'chief': ['c:1']}))
            self.assertEqual(u.cluster_spec().as_dict(), dict(CLUSTER, chief=['c:1']))
            self.assertEqual((u.task_type, u.task_id, u.master()),
                             ('worker', 0, 'worker0:2222'))


class Slurm(unittest.TestCase):
    """§8 on step environments captured from a real Slurm (tests/fixtures/slurm)."""

    def test_block(self):
        with ph.Env(**slurm_env('block-N2-n5', 2)):
            r = SlurmClusterResolver(gpus_per_node=0)
            self.assertEqual(r.cluster_spec().as_dict(), {'worker': [
                'node1:8888', 'node1:8889', 'node1:8890', 'node1:8891', 'node2:8888']})
            self.assertEqual((r.task_type, r.task_id, r.get_task_info()),
                             ('worker', 2, ('worker', 2)))
            self.assertEqual(r.master(), 'grpc://node1:8890')
            self.assertEqual(r.master('worker', 4, 'test'), 'test://node2:8888')
        with ph.Env(**slurm_env('block-N2-n5', 4)):
            r = SlurmClusterResolver(jobs={'ps': 1, 'worker': 4}, port_base=2222,
                                     gpus_per_node=0)
            self.assertEqual(r.cluster_spec().as_dict(), {
                'ps': ['node1:2222'],
                'worker': ['node1:2223', 'node1:2224', 'node1:2225', 'node2:2222']})
            self.assertEqual((r.task_type, r.task_id), ('worker', 3))

    def test_rpc_layer_none_is_no_layer(self):
        with ph.Env(**slurm_env('block-N2-n5', 2)):
            r = SlurmClusterResolver(gpus_per_node=0, rpc_layer=None)
            self.assertIsNone(r.rpc_layer)
            self.assertEqual(r.master(), 'node1:8890')
            self.assertEqual(r.master('worker', 4), 'node2:8888')
            self.assertEqual(r.master('worker', 4, 'test'), 'test://node2:8888')
            self.assertEqual(SlurmClusterResolver(gpus_per_node=0).master(), 'grpc://node1:8890')
            r.rpc_layer = 'grpc'
            self.assertEqual(r.master(), 'grpc://node1:8890')

    def test_gpus(self):
        env = slurm_env('block-N2-n5', 1)
        env['CUDA_VISIBLE_DEVICES'] = '0,1,2,3'
        with ph.Env(**env):
            r = SlurmClusterResolver(gpus_per_task=1)
            r.cluster_spec()
            self.assertEqual(os.environ['CUDA_VISIBLE_DEVICES'], '1')
            self.assertEqual(r.num_accelerators(), {'GPU': 1})

    def test_jobs_in_name_order(self):
        # TensorFlow walks `jobs` sorted by name: chief, evaluator, ps, worker.
        with ph.Env(**slurm_env('block-N2-n5', 2)):
            r = SlurmClusterResolver(jobs={'worker': 2, 'chief': 1, 'evaluator': 1, 'ps': 1},
                                     gpus_per_node=0)
            spec = r.cluster_spec()
            self.assertEqual(spec.jobs, ['chief', 'evaluator', 'ps', 'worker'])
            self.assertEqual(spec.as_dict(), {
                'chief': ['node1:8888'], 'evaluator': ['node1:8889'], 'ps': ['node1:8890'],
                'worker': ['node1:8891', 'node2:8888']})
            self.assertEqual((r.task_type, r.task_id, r.master()), ('ps', 0, 'grpc://node1:8890'))

    def test_own_gpus_are_no_outside_binding(self):
        # The first resolver sets CUDA_VISIBLE_DEVICES to this task's GPUs, as
        # TensorFlow does; a second one in the process must not read that as
        # the node's. A value set from outside still binds.
        env = slurm_env('block-N2-n5', 1)
        env['CUDA_VISIBLE_DEVICES'] = None
        with ph.Env(**env):
            SlurmClusterResolver(gpus_per_node=8, gpus_per_task=2).cluster_spec()
            self.assertEqual(os.environ['CUDA_VISIBLE_DEVICES'], '2,3')
            r = SlurmClusterResolver(gpus_per_node=8, gpus_per_task=2)
            self.assertEqual(r.cluster_spec().num_tasks('worker'), 5)
            self.assertEqual(os.environ['CUDA_VISIBLE_DEVICES'], '2,3')
            self.assertEqual(r.num_accelerators(), {'GPU': 2})
            os.environ['CUDA_VISIBLE_DEVICES'] = '4,5,6,7'           # set by the user
            SlurmClusterResolver(gpus_per_task=1).cluster_spec()
            self.assertEqual(os.environ['CUDA_VISIBLE_DEVICES'], '5')
            os.environ['CUDA_VISIBLE_DEVICES'] = '1'                  # set by the user
            with self.assertRaises(cr.ClusterResolverError) as cm:
                SlurmClusterResolver(gpus_per_node=2, gpus_per_task=1).cluster_spec()
            self.assertIn('CUDA_VISIBLE_DEVICES "1" lists 1 GPUs', str(cm.exception))

    def test_mismatch(self):
        with ph.Env(**slurm_env('block-N2-n5', 0)):
            with self.assertRaises(cr.ClusterResolverError) as cm:
                SlurmClusterResolver(jobs={'worker': 3}, gpus_per_node=0).cluster_spec()
            self.assertIn('3', str(cm.exception))


class TPU(unittest.TestCase):
    """§11 without the Cloud TPU API: endpoint lists."""

    def test_endpoints(self):
        with ph.Env(KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS=None, TPU_NAME=None):
            r = TPUClusterResolver(tpu='grpc://10.1.2.3:8470')
            self.assertEqual(r.cluster_spec().as_dict(), {'worker': ['10.1.2.3:8470']})
            self.assertEqual(r.master(), 'grpc://10.1.2.3:8470')
            self.assertEqual(r.master(rpc_layer='test'), 'grpc://10.1.2.3:8470')
            self.assertEqual((r.get_job_name(), r.get_coordination_service_leader()),
                             ('worker', '/job:worker/task:0'))
        eps = ','.join('grpc://10.120.27.%d:8470' % i for i in range(5, 9))
        with ph.Env(KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS=eps):
            r = TPUClusterResolver()
            self.assertEqual(r.cluster_spec().as_dict(),
                             {'worker': ['10.120.27.%d:8470' % i for i in range(5, 9)]})
            self.assertEqual(r.master(), 'grpc://10.120.27.5:8470')
            r.task_id = 3
            self.assertEqual(r.master(), 'grpc://10.120.27.8:8470')

    def test_cloud_tpu_api(self):
        """A node name read through the Cloud TPU API of the GCP fixture, as
        tests/plugins/tpu-resolver runs it (TF's tpu/zone/project)."""
        sys.path.insert(0, os.path.join(ph.SRC, 'tests/plugins/tpu-resolver'))
        import test_tpu as tt
        fx = tt.Fixture()
        try:
            opts = {'tpu_endpoint': 'https://127.0.0.1:%d/' % fx.api, 'ca_file': fx.ca,
                    'access_token_file': fx.token, 'metadata_host': '127.0.0.1:%d' % fx.md,
                    'root': fx.laptop}
            clean = {k: None for k in os.environ
                     if k.startswith(('TPU_', 'MEGASCALE_', 'KUBE_GOOGLE', 'GCE_METADATA'))}
            with ph.Env(**clean):
                r = TPUClusterResolver(tpu='ready', zone=tt.ZONE, project=tt.PROJECT,
                                       options=opts)
                ws = tt.workers(tt.NODES[0])
                self.assertEqual(r.cluster_spec().as_dict(), {'worker': ws})
                self.assertEqual((r.master(), r.task_type, r.task_id, r.num_accelerators()),
                                 ('grpc://' + ws[0], 'worker', 0, {'TPU': 4}))
                self.assertEqual(r.master('worker', 2, rpc_layer='test'), 'grpc://' + ws[2])
                with self.assertRaises(RuntimeError) as cm:
                    TPUClusterResolver(tpu='creating', zone=tt.ZONE, project=tt.PROJECT,
                                       options=opts).cluster_spec()
                self.assertEqual(str(cm.exception), 'resolver \'tpu\': TPU "creating" is not '
                                 'yet ready; state: "CREATING"')
                self.assertNotIn(tt.TOKEN, str(cm.exception))
        finally:
            fx.close()

    def test_arguments(self):
        with self.assertRaises(ValueError) as cm:
            TPUClusterResolver(tpu=[])
        self.assertEqual(str(cm.exception), 'At least one TPU must be specified.')
        with self.assertRaises(NotImplementedError):
            TPUClusterResolver(tpu=['a', 'b'])
        with self.assertRaisesRegex(ValueError, '^credentials is not supported'):
            TPUClusterResolver(tpu='grpc://10.1.2.3:8470', credentials=object())
        with self.assertRaisesRegex(ValueError, '^service is not supported'):
            TPUClusterResolver(tpu='grpc://10.1.2.3:8470', service=object())


class GCE(unittest.TestCase):
    """§10 against the GCP fixture server of tests/integration/gce."""

    def test_instance_group(self):
        sys.path.insert(0, os.path.join(ph.SRC, 'tests/integration/gce'))
        import gce_harness as gh
        import gce_scenario as gs

        def prepare(fx, scenario):
            scenario['tokens'] = {'static': [gh.STATIC_TOKEN], 'lifetime': 3600,
                                  'service_accounts': {}, 'authorized_users': []}
            return scenario
        fx = gh.Fixture(gs.scenario(), prepare)
        try:
            opts = {'access_token_file': os.path.join(fx.dir, 'token'), 'root': fx.root,
                    'ca_file': fx.ca,
                    'compute_endpoint': 'https://127.0.0.1:%d/compute/v1/' % fx.api}
            with ph.Env(GCE_METADATA_HOST='127.0.0.1:%d' % fx.meta, HOME=fx.home):
                r = GCEClusterResolver('proj-1', 'us-central1-a', 'trainers', 2222,
                                       options=opts)
                ips = sorted((gs.ip(i) for i in range(12)),
                             key=lambda a: tuple(int(x) for x in a.split('.')))
                want = ['%s:2222' % a for a in ips]
                self.assertEqual(r.cluster_spec().as_dict(), {'worker': want})
                self.assertEqual((r.task_type, r.task_id), ('worker', 0))
                self.assertEqual(r.master(), 'grpc://' + want[0])
                self.assertEqual(r.master('worker', 2, 'test'), 'test://' + want[2])
                r.task_id = 3
                self.assertEqual(r.master(), 'grpc://' + want[3])
                with self.assertRaises(RuntimeError) as cm:
                    r.task_type = 'ps'
                self.assertEqual(str(cm.exception), 'You cannot reset the task_type of the '
                                 'GCEClusterResolver after it has been created.')
                r = GCEClusterResolver('proj-1', 'us-central1-a', 'trainers', 2222,
                                       options=dict(opts, order='string'))
                self.assertEqual(r.cluster_spec().as_dict(), {'worker': sorted(want)})
                r = GCEClusterResolver('proj-1', 'us-central1-a', 'trainers', 2222,
                                       rpc_layer=None, options=opts)
                self.assertIsNone(r.rpc_layer)
                self.assertEqual((r.master(), r.master('worker', 2, 'test')),
                                 (want[0], 'test://' + want[2]))
        finally:
            fx.stop()

    def test_refused(self):
        with self.assertRaisesRegex(ValueError, 'access_token_file'):
            GCEClusterResolver('p', 'z', 'g', 1, credentials=object())


class AWS(unittest.TestCase):
    """ClusterResolver on an aws.so configuration, against the EC2 fixture of
    tests/integration/aws; the plugin's warning goes to logging, not stderr."""

    def test_ec2(self):
        import logging
        sys.path.insert(0, os.path.join(ph.SRC, 'tests/integration/aws'))
        import aws_harness as ah
        fx = ah.Fixture()
        records = []

        class Keep(logging.Handler):
            def emit(self, record):
                records.append((record.levelname, record.getMessage()))
        keep = Keep()
        logging.getLogger('cluster_resolver').addHandler(keep)
        try:
            env = {k: v for k, v in ah.aws_env(fx).items() if k.startswith('AWS_')}
            with ph.Env(HOME=fx.home, **env):
                r = ClusterResolver(fx.subst(
                    'resolvers = ( { plugin = "aws"; port = 2222; region = "us-east-1"; '
                    'endpoint = "@URL@"; ca_file = "@CA@"; page_size = 5; jobs = { worker = '
                    '( { name = "tag:role"; values = [ "worker" ]; } ); }; } );\n'
                    'accelerators = ( );\n'))
                self.assertEqual(r.cluster_spec().as_dict(), {'worker': [
                    '10.0.%s:2222' % x for x in ('1.9', '1.10', '1.12', '1.13', '1.100',
                                                 '2.1')]})
                self.assertEqual((r.task_type, r.task_id, r.rpc_layer, r.master()),
                                 (None, None, 'grpc', ''))
                self.assertEqual(r.master('worker', 5), 'grpc://10.0.2.1:2222')
        finally:
            logging.getLogger('cluster_resolver').removeHandler(keep)
            fx.stop()
        self.assertIn(('WARNING', "resolver 'aws': this instance (addresses 127.0.0.1) is in "
                       'no job: task type and id unknown'), records)
        self.assertFalse([m for _, m in records if ah.SECRET in m])


class Errors(unittest.TestCase):
    def test_config_errors(self):
        with self.assertRaises(ValueError) as cm:
            ClusterResolver('resolvers = ( { plugin = "simple"; nosuch = 1; } );')
        e = cm.exception
        self.assertEqual((type(e), e.code, e.status), (cr.errors.ConfigError, 3,
                                                        'CR_ERR_CONFIG'))
        self.assertIn("'nosuch'", str(e))
        with self.assertRaises(cr.errors.ConfigError) as cm:
            ClusterResolver('/nonexistent/cluster-resolver.conf')
        self.assertEqual(str(cm.exception), '/nonexistent/cluster-resolver.conf: cannot read '
                         'the config file: No such file or directory')

    def test_no_resolver_applies(self):
        r = ClusterResolver('resolvers = ( { plugin = "tfconfig"; } );')
        with ph.Env(TF_CONFIG=None):
            with self.assertRaises(cr.errors.NotFoundError) as cm:
                r.cluster_spec()
        self.assertEqual(cm.exception.code, 6)

    def test_task_not_in_cluster(self):
        r = ClusterResolver('resolvers = ( { plugin = "simple"; cluster = { worker = '
                            '[ "a:1" ]; }; } );')
        with self.assertRaises(ValueError) as cm:
            r.master('worker', 5)
        self.assertEqual(str(cm.exception), "No task with index 5 in job 'worker'")

    def test_nothing_printed_no_secret(self):
        """A failing resolution with a secret option: no byte on fd 1 or 2,
        the secret in no message."""
        code = r'''
import cluster_resolver as cr
import os, sys
tok = os.path.join(os.path.dirname(sys.argv[1]), 'token')
open(tok, 'w').write('tok-hunter2\n')
conf = ('resolvers = ( { plugin = "k8s"; server = "https://127.0.0.1:9"; auth = "in_cluster"; '
        'token_file = "%s"; ca_file = "%s"; connect_timeout = 0.5; retries = 0; '
        'jobs = { worker = [ "a=b" ]; }; } );' % (tok, tok))
msgs = []
for c in (conf, 'resolvers = ( { plugin = "nosuch"; } );', '{'):
    try:
        cr.ClusterResolver(c).cluster_spec()
    except cr.ClusterResolverError as e:
        msgs.append((e.status, str(e)))
import json, sys
sys.stderr.flush()
open(sys.argv[1], 'w').write(json.dumps(msgs))
'''
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, 'msgs.json')
            p = subprocess.run([ph.PYTHON, '-c', code, out], capture_output=True,
                               env=ph.python_env(d), timeout=60)
            self.assertEqual((p.returncode, p.stdout, p.stderr), (0, b'', b''))
            msgs = json.load(open(out))
        self.assertEqual([m[0] for m in msgs], ['CR_ERR_NETWORK', 'CR_ERR_NOT_FOUND',
                                                'CR_ERR_CONFIG'], msgs)
        self.assertFalse([m for m in msgs if 'hunter2' in m[1]], msgs)

    def test_missing_library(self):
        env = ph.python_env(tempfile.gettempdir(),
                            {'CLUSTER_RESOLVER_LIBRARY': '/nonexistent/libcr.so.1'})
        p = subprocess.run([ph.PYTHON, '-c', 'import cluster_resolver'],
                           capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(p.returncode, 1)
        last = p.stderr.strip().splitlines()[-1]
        self.assertTrue(last.startswith('ImportError: cluster_resolver: cannot load the C '
                                        'library; tried: /nonexistent/libcr.so.1 ('), last)
        self.assertIn('libcluster-resolver.so.1 (', last)
        self.assertIn('set CLUSTER_RESOLVER_LIBRARY', last)


SIMPLE = ('resolvers = ( { plugin = "simple"; cluster = { worker = [ "a:1", "b:1" ]; '
          'ps = [ "p:1" ]; }; task_type = "worker"; task_id = 1; } );\naccelerators = ( );\n')


class Lifetime(unittest.TestCase):
    def test_no_leak_over_10000_resolutions(self):
        r = ClusterResolver(SIMPLE)
        want = {'worker': ['a:1', 'b:1'], 'ps': ['p:1']}
        for _ in range(200):
            r.cluster_spec()
        gc.collect()
        gc.disable()
        try:
            tracemalloc.start()
            before = tracemalloc.take_snapshot()
            for _ in range(10000):
                spec = r.cluster_spec()
                r.master()
                r.task_id
            after = tracemalloc.take_snapshot()
            tracemalloc.stop()
            self.assertEqual(gc.collect(), 0)    # no reference cycle was made
        finally:
            gc.enable()
        grown = sum(s.size_diff for s in after.compare_to(before, 'filename'))
        self.assertLess(grown, 64 * 1024, after.compare_to(before, 'lineno')[:5])
        self.assertEqual(spec.as_dict(), want)

    @unittest.skipIf(os.environ.get('CR_SANITIZE_BUILD') == '1',
                     "ASan's quarantine holds freed memory; LeakSanitizer's job there")
    def test_c_memory_bounded(self):
        """The process's RSS does not grow with resolutions (the C side)."""
        def rss():
            with open('/proc/self/statm') as f:
                return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')
        r = ClusterResolver(SIMPLE)
        for _ in range(2000):
            r.cluster_spec()
        base = rss()
        for _ in range(10000):
            r.cluster_spec()
        self.assertLess(rss() - base, 2 * 1024 * 1024)

    def test_threads(self):
        r = ClusterResolver(SIMPLE)
        want = {'worker': ['a:1', 'b:1'], 'ps': ['p:1']}
        bad = []

        def run():
            for _ in range(300):
                got = r.cluster_spec().as_dict()
                if got != want or r.master('ps', 0) != 'p:1' or r.task_id != 1:
                    bad.append(got)
        threads = [threading.Thread(target=run) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(bad, [])

    def test_close(self):
        r = ClusterResolver(SIMPLE)
        r.close()
        r.close()
        with self.assertRaises(ValueError):
            r.cluster_spec()
        with ClusterResolver(SIMPLE) as r2:
            self.assertEqual(r2.task_type, 'worker')


if __name__ == '__main__':
    ph.main()
