#!/usr/bin/python3
"""ClusterResolver.watch() (ABI 1.2): the cluster of a `simple` hosts_file as
a stream of generations, exact values: the first at once, a new one for a
member lost and for two added (this task's index derived again), none for
the same file written again, the end at the timeout, cancel_watch() from
another thread, the member gone; cluster_spec() usable during a watch; a
SimpleClusterResolver's one generation."""
import os
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyharness as ph  # noqa: E402

ph.setup()
from cluster_resolver import (ClusterResolver, ClusterSpec, SimpleClusterResolver,  # noqa: E402
                             generation_id)


def write_hosts(path, lines):
    """Replace @path by a rename, as an inventory tool does."""
    time.sleep(0.02)
    with open(path + '.new', 'w') as f:
        f.write(''.join(line + '\n' for line in lines))
    os.rename(path + '.new', path)


class Watch(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.hosts = os.path.join(self.dir.name, 'hosts')
        self.config = ('resolvers = ( { plugin = "simple"; hosts_file = "%s"; } );\n'
                       'accelerators = ();\n' % self.hosts)

    def tearDown(self):
        self.dir.cleanup()

    def test_generations_follow_the_member(self):
        write_hosts(self.hosts, ['worker a:1', 'worker b:1', 'worker c:1'])
        r = ClusterResolver(self.config, task_type='worker', task_id=1)
        w = r.watch(timeout=30)
        first = next(w)
        spec, task_type, task_id = first  # still the 3-tuple it was
        self.assertEqual(spec.as_dict(), {'worker': ['a:1', 'b:1', 'c:1']})
        self.assertEqual((task_type, task_id), ('worker', 1))
        # The generation besides: this watch's count, and the world's id,
        # exec --elastic's CR_GENERATION_ID for the same cluster
        # (test-exec-elastic.sh checks the same value).
        self.assertEqual((first.generation, first.generation_id, first.task_id),
                         (1, '7c1f6463f0835c45', 1))
        self.assertEqual(generation_id({'worker': {0: 'a:1', 1: 'b:1', 2: 'c:1'}}),
                         '7c1f6463f0835c45')
        # The other methods keep working on their own context meanwhile.
        self.assertEqual(r.cluster_spec().as_dict(), {'worker': ['a:1', 'b:1', 'c:1']})
        write_hosts(self.hosts, ['worker b:1', 'worker c:1'])
        g = next(w)
        spec, task_type, task_id = g
        self.assertEqual(spec.as_dict(), {'worker': ['b:1', 'c:1']})
        self.assertEqual((task_type, task_id), ('worker', 0))
        self.assertEqual(g.generation, 2)
        self.assertEqual(g.generation_id, generation_id({'worker': ['b:1', 'c:1']}))
        write_hosts(self.hosts, ['worker d:1', 'worker e:1', 'worker b:1', 'worker c:1'])
        spec, task_type, task_id = next(w)
        self.assertEqual(spec.as_dict(), {'worker': ['d:1', 'e:1', 'b:1', 'c:1']})
        self.assertEqual((task_type, task_id), ('worker', 2))
        write_hosts(self.hosts, ['worker d:1', 'worker c:1'])
        spec, task_type, task_id = next(w)
        self.assertEqual(spec.as_dict(), {'worker': ['d:1', 'c:1']})
        self.assertEqual((task_type, task_id), (None, None))
        w.close()
        r.close()

    def test_same_file_is_no_generation_and_timeout_ends(self):
        write_hosts(self.hosts, ['worker a:1'])
        r = ClusterResolver(self.config)
        w = r.watch(timeout=0.5)
        self.assertEqual(next(w)[0].as_dict(), {'worker': ['a:1']})
        write_hosts(self.hosts, ['worker a:1'])
        self.assertEqual(list(w), [])
        r.close()

    def test_cancel_from_another_thread(self):
        write_hosts(self.hosts, ['worker a:1'])
        r = ClusterResolver(self.config)
        got = []
        started = threading.Event()

        def run():
            for gen in r.watch():
                got.append(gen[0].as_dict())
                started.set()
        t = threading.Thread(target=run)
        t.start()
        self.assertTrue(started.wait(30))
        r.cancel_watch()
        t.join(30)
        self.assertFalse(t.is_alive())
        self.assertEqual(got, [{'worker': ['a:1']}])
        r.close()

    def test_simple_resolver_one_generation(self):
        s = SimpleClusterResolver(ClusterSpec({'worker': ['w0:1']}), task_type='worker',
                                  task_id=0)
        w = s.watch(timeout=0.1)
        spec, task_type, task_id = next(w)
        self.assertEqual((spec.as_dict(), task_type, task_id),
                         ({'worker': ['w0:1']}, 'worker', 0))
        self.assertEqual(list(w), [])


if __name__ == '__main__':
    ph.main()
