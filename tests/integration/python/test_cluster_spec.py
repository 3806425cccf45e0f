#!/usr/bin/python3
"""cluster_resolver.ClusterSpec: TensorFlow's tf.train.ClusterSpec (shared
reference §1; TensorFlow's server_lib_test and sparse-job test values) with
the fixes of §14.17, exact values and messages; as_cluster_def() bytes
against protoc's encoding of the same ClusterDef."""
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyharness as ph  # noqa: E402

ph.setup(hermetic=False)
from cluster_resolver import ClusterSpec  # noqa: E402

BAD = ('`cluster` must be a dictionary mapping one or more job names to lists of network '
       'addresses, or a `ClusterDef` protocol buffer')


class FakeJobDef(object):
    def __init__(self, name, tasks):
        self.name, self.tasks = name, tasks


class FakeClusterDef(object):
    """Duck-typed tf.train.ClusterDef (job: repeated JobDef)."""

    def __init__(self, jobs):
        self.job = [FakeJobDef(n, t) for n, t in jobs]

    def SerializeToString(self):
        return b''


class Construct(unittest.TestCase):
    def test_dense_and_sparse(self):
        spec = ClusterSpec({'ps': ['ps0:2222', 'ps1:2222'],
                            'worker': ['worker0:2222', 'worker1:2222', 'worker2:2222']})
        self.assertEqual(spec.jobs, ['ps', 'worker'])
        self.assertEqual(spec.num_tasks('worker'), 3)
        self.assertEqual(spec.task_indices('ps'), [0, 1])
        self.assertEqual(spec.task_address('worker', 2), 'worker2:2222')
        self.assertEqual(spec.job_tasks('ps'), ['ps0:2222', 'ps1:2222'])
        sparse = ClusterSpec({'worker': {1: 'worker1:2222', 3: 'worker3:2222'}})
        self.assertEqual(sparse.num_tasks('worker'), 2)
        self.assertEqual(sparse.task_indices('worker'), [1, 3])
        self.assertEqual(sparse.job_tasks('worker'), [None, 'worker1:2222', None,
                                                      'worker3:2222'])
        self.assertEqual(sparse.as_dict(), {'worker': {1: 'worker1:2222', 3: 'worker3:2222'}})

    def test_string_keys_and_insertion_order(self):
        spec = ClusterSpec({'worker': {'1': 'a:1', '3': 'b:1'}, 'chief': ['c:1']})
        self.assertEqual(spec.jobs, ['worker', 'chief'])
        self.assertEqual(spec.task_indices('worker'), [1, 3])
        self.assertEqual(list(spec.as_dict()), ['worker', 'chief'])

    def test_dense_dict_comes_back_as_list(self):
        self.assertEqual(ClusterSpec({'worker': {0: 'a', 1: 'b'}}).as_dict(),
                         {'worker': ['a', 'b']})
        self.assertEqual(ClusterSpec({'w': {1: 'a', 2: 'b'}}).as_dict(), {'w': {1: 'a', 2: 'b'}})

    def test_empty_job(self):
        spec = ClusterSpec({'worker': []})
        self.assertEqual(spec.as_dict(), {'worker': {}})
        self.assertEqual(spec.num_tasks('worker'), 0)
        self.assertEqual(spec.job_tasks('worker'), [])      # §14.17: TF raises
        self.assertTrue(spec)
        self.assertFalse(ClusterSpec({}))

    def test_copy_from_spec_and_cluster_def(self):
        spec = ClusterSpec({'worker': ['w0:1'], 'chief': ['c0:1']})
        self.assertEqual(ClusterSpec(spec).jobs, ['chief', 'worker'])
        self.assertEqual(ClusterSpec(spec), spec)
        cd = FakeClusterDef([('worker', {0: 'w0:1', 2: 'w2:1'}), ('ps', {0: 'p:1'})])
        from_def = ClusterSpec(cd)
        self.assertEqual(from_def.jobs, ['worker', 'ps'])
        self.assertEqual(from_def.as_dict(), {'worker': {0: 'w0:1', 2: 'w2:1'},
                                              'ps': ['p:1']})

    def test_errors(self):
        cases = [
            (lambda: ClusterSpec(['a']), TypeError, BAD),
            (lambda: ClusterSpec(None), TypeError, BAD),
            (lambda: ClusterSpec({'worker': 'a:1'}), TypeError,
             "The tasks for job 'worker' must be a list or a dictionary from integers to "
             "strings."),
            (lambda: ClusterSpec({3: ['a:1']}), TypeError, 'Job name 3 must be bytes or unicode'),
            (lambda: ClusterSpec({'w': [None]}), TypeError,
             'Task address None must be bytes or unicode'),
            (lambda: ClusterSpec({'w': [7]}), TypeError, 'Task address 7 must be bytes or unicode'),
            (lambda: ClusterSpec({'w': {-1: 'a:1'}}), ValueError,
             "Task index -1 of job 'w' is negative"),
            (lambda: ClusterSpec({'w': {2**31: 'a:1'}}), ValueError,
             "Task index 2147483648 of job 'w' is out of range (0..2147483647)"),
        ]
        for fn, exc, msg in cases:
            with self.assertRaises(exc) as cm:
                fn()
            self.assertEqual(str(cm.exception), msg)
        with self.assertRaises(ValueError):
            ClusterSpec({'w': {'x': 'a:1'}})

    def test_lookup_errors(self):
        spec = ClusterSpec({'worker': ['w0:2222']})
        for fn in (spec.num_tasks, spec.task_indices, spec.job_tasks):
            with self.assertRaises(ValueError) as cm:
                fn('ps')
            self.assertEqual(str(cm.exception), "No such job in cluster: 'ps'")
        with self.assertRaises(ValueError) as cm:
            spec.task_address('worker', 5)
        self.assertEqual(str(cm.exception), "No task with index 5 in job 'worker'")
        with self.assertRaises(ValueError) as cm:
            spec.task_address(None, None)
        self.assertEqual(str(cm.exception), 'No such job in cluster: None')


class Compare(unittest.TestCase):
    def test_eq(self):
        self.assertEqual(ClusterSpec({'job': {0: 'host:2222'}}),
                         ClusterSpec({'job': ['host:2222']}))
        self.assertEqual(ClusterSpec({'a': ['x'], 'b': ['y']}), ClusterSpec({'b': ['y'],
                                                                             'a': ['x']}))
        self.assertNotEqual(ClusterSpec({'job': ['a']}), ClusterSpec({'job': ['b']}))
        self.assertEqual(ClusterSpec({'job': ['a']}), {'job': {0: 'a'}})
        self.assertNotEqual(ClusterSpec({'job': ['a']}), {'job': ['a']})

    def test_repr(self):
        self.assertEqual(
            str(ClusterSpec({'worker': ['worker0:3333', 'worker1:4444'], 'ps': ['ps0:1111']})),
            "ClusterSpec({'ps': ['ps0:1111'], 'worker': ['worker0:3333', 'worker1:4444']})")
        self.assertEqual(repr(ClusterSpec({'worker': {1: 'w1:2222', 3: 'w3:2222'}})),
                         "ClusterSpec({'worker': {1: 'w1:2222', 3: 'w3:2222'}})")
        self.assertEqual(str(ClusterSpec({})), 'ClusterSpec({})')


class ClusterDefBytes(unittest.TestCase):
    def test_encoding(self):
        spec = ClusterSpec({'worker': {3: 'w3:2222', 1: 'w1:2222'}, 'ps': ['ps0:2222']})
        got = spec.as_cluster_def()
        self.assertIsInstance(got, bytes)
        self.assertEqual(got, b'\n\x12\n\x02ps\x12\x0c\x08\x00\x12\x08ps0:2222'
                              b'\n"\n\x06worker\x12\x0b\x08\x01\x12\x07w1:2222'
                              b'\x12\x0b\x08\x03\x12\x07w3:2222')
        self.assertEqual(ClusterSpec({}).as_cluster_def(), b'')
        protoc = shutil.which('protoc')
        if protoc is None:
            self.skipTest('protoc is not installed')
        text = ('job { name: "ps" tasks { key: 0 value: "ps0:2222" } }\n'
                'job { name: "worker" tasks { key: 1 value: "w1:2222" } '
                'tasks { key: 3 value: "w3:2222" } }\n')
        proto = os.path.join(ph.SRC, 'tests/fixtures/proto')
        p = subprocess.run([protoc, '-I', proto, '--encode=tensorflow.ClusterDef',
                            os.path.join(proto, 'cluster.proto')], input=text.encode(),
                           capture_output=True, check=True)
        self.assertEqual(got, p.stdout)

    def test_any_address_as_tensorflow(self):
        # TensorFlow stores any string and fails only when a server starts
        # (server_lib_test: "localhost:0"; a placeholder "host:port").
        spec = ClusterSpec({'local': ['localhost:0']})
        self.assertEqual(spec.as_cluster_def(),
                         b'\n\x18\n\x05local\x12\x0f\x08\x00\x12\x0blocalhost:0')
        spec = ClusterSpec({'job': {0: 'host:port'}})
        self.assertEqual(spec.as_dict(), {'job': ['host:port']})
        self.assertEqual(spec.as_cluster_def(),
                         b'\n\x14\n\x03job\x12\r\x08\x00\x12\thost:port')
        sparse = ClusterSpec({'worker': {1: 'a b', 7: ''}, '': ['x']})
        self.assertEqual(sparse.task_address('worker', 1), 'a b')
        self.assertEqual(sparse.job_tasks('worker'), [None, 'a b'] + [None] * 5 + [''])
        self.assertEqual(sparse.as_cluster_def(),
                         b'\n\x07\x12\x05\x08\x00\x12\x01x'
                         b'\n\x17\n\x06worker\x12\x07\x08\x01\x12\x03a b'
                         b'\x12\x04\x08\x07\x12\x00')

    def test_same_bytes_as_the_library(self):
        # Where the library takes the addresses, its encoding and ours agree.
        from cluster_resolver import _native as n
        cluster = {'worker': {3: 'w3:2222', 1: 'w1:2222', 2**31 - 1: 'big:1'},
                   'ps': ['ps0:2222', '[::1]:2'], '': ['e:1'], 'chief': [], 'é': ['h']}
        text = n.enc(ClusterSpec(cluster)._to_json())
        err = n.new_error()
        c = n.lib.cr_spec_from_json(text, len(text), b'test', err)
        self.assertTrue(c, err.message)
        try:
            buf = n.ctypes.c_void_p()
            size = n.ctypes.c_size_t()
            n.check(n.lib.cr_spec_to_clusterdef(c, n.ctypes.byref(buf), n.ctypes.byref(size),
                                                err), err)
            want = n.take_string(buf.value, size.value)
        finally:
            n.lib.cr_spec_free(c)
        self.assertEqual(ClusterSpec(cluster).as_cluster_def(), want)

if __name__ == '__main__':
    ph.main()
