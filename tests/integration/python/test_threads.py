#!/usr/bin/python3
"""The Python package against its own callers' threads, forks and numbers
(issue 36 N1, N7, N10), exact outcomes, also under ASan (the library
instrumented, the runtime preloaded: CMakeLists.txt):
- close() from one thread while another is inside a call (a list the k8s
  fixture delays) waits for it: the call returns the cluster, later calls
  raise ValueError('this ClusterResolver is closed'); a watch() generator
  blocked in another thread raises the same;
- a fork while another thread is inside a call: the child's resolver
  answers (a fresh lock and a fresh C context), the parent's call too;
- task ids and indices: a float is a TypeError, an int outside 0..2^31-1 a
  ValueError (never wrapped to 64 bits: 2**64+1 is not task 1); a huge
  watch() timeout waits (it is not wrapped into an instant end)."""
import json
import os
import signal
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyharness as ph  # noqa: E402

ph.setup()
sys.path.insert(0, os.path.join(ph.SRC, 'tests/integration/k8s'))
import k8s_harness as kh  # noqa: E402

from cluster_resolver import ClusterResolver, TFConfigClusterResolver  # noqa: E402

PODS = [
    {'name': 'w-0', 'labels': {'job-name': 'w'}, 'phase': 'Running', 'podIP': '10.0.0.1'},
    {'name': 'w-1', 'labels': {'job-name': 'w'}, 'phase': 'Running', 'podIP': '10.0.0.2'},
]
K8S = ('resolvers = ( { plugin = "k8s"; kubeconfig = "%s"; namespace = "default"; '
       'port = 2222; jobs = { worker = [ "job-name=w" ]; }; } );\naccelerators = ();\n')
SPEC = {'worker': ['10.0.0.1:2222', '10.0.0.2:2222']}
CLOSED = 'this ClusterResolver is closed'
# A hang bound, never a measure.
BOUND = 60


def wait_held(lock):
    """Until another thread holds @lock (it is inside a call)."""
    end = time.monotonic() + BOUND
    while time.monotonic() < end:
        if not lock.acquire(blocking=False):
            return True
        lock.release()
        time.sleep(0.005)
    return False


class Threads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        pods = os.path.join(cls.dir.name, 'pods.json')
        with open(pods, 'w') as f:
            json.dump(PODS, f)
        cls.fx = kh.Fixture(pods=pods)
        cls.saved = dict(os.environ)
        os.environ['HOME'] = cls.fx.home
        cls.conf = K8S % cls.fx.kubeconfig

    @classmethod
    def tearDownClass(cls):
        os.environ.clear()
        os.environ.update(cls.saved)
        cls.fx.stop()
        cls.dir.cleanup()

    def slow_call(self, r, seconds, fn):
        """@fn(r) in a thread whose list the fixture answers @seconds late;
        returns (thread, outcome list) once the thread holds the lock."""
        self.fx.set_faults([{'delay': seconds, 'count': 1}])
        out = []

        def run():
            try:
                out.append(('ok', fn(r)))
            except BaseException as e:  # noqa: B902 (the outcome is the test)
                out.append((type(e).__name__, str(e)))
        t = threading.Thread(target=run)
        t.start()
        self.assertTrue(wait_held(r._lock), 'the call never began')
        time.sleep(0.3)  # inside the fixture's delay now
        return t, out

    def test_close_during_a_call_waits_for_it(self):
        for name, fn, want in (
                ('cluster_spec', lambda r: r.cluster_spec().as_dict(), SPEC),
                ('explain', lambda r: r.explain()['result']['cluster'], SPEC)):
            r = ClusterResolver(self.conf)
            t, out = self.slow_call(r, 2, fn)
            r.close()
            t.join(BOUND)
            self.assertEqual(out, [('ok', want)], name)
            for later in (r.cluster_spec, r.explain, r.master, lambda: next(r.watch())):
                with self.assertRaises(ValueError) as cm:
                    later()
                self.assertEqual(str(cm.exception), CLOSED)
            r.close()  # idempotent

    def test_close_ends_a_watch_in_another_thread(self):
        hosts = os.path.join(self.dir.name, 'hosts')
        with open(hosts, 'w') as f:
            f.write('worker a:1\n')
        r = ClusterResolver('resolvers = ( { plugin = "simple"; hosts_file = "%s"; } );\n'
                            'accelerators = ();\n' % hosts)
        w = r.watch(timeout=BOUND)
        self.assertEqual(next(w)[0].as_dict(), {'worker': ['a:1']})
        out = []
        started = threading.Event()

        def run():
            started.set()
            try:
                out.append(('ok', next(w)))
            except BaseException as e:  # noqa: B902
                out.append((type(e).__name__, str(e)))
        t = threading.Thread(target=run)
        t.start()
        started.wait()
        time.sleep(0.3)
        r.close()
        t.join(BOUND)
        self.assertEqual(out, [('ValueError', CLOSED)])

    def test_fork_during_a_call(self):
        r = ClusterResolver(self.conf)
        t, out = self.slow_call(r, 3, lambda r: r.cluster_spec().as_dict())
        rd, wr = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: this thread only; the other one's call never ends here
            os.close(rd)
            signal.alarm(BOUND)
            try:
                got = json.dumps(['ok', r.cluster_spec().as_dict()])
            except BaseException as e:  # noqa: B902
                got = json.dumps([type(e).__name__, str(e)])
            os.write(wr, got.encode())
            os._exit(0)
        os.close(wr)
        with os.fdopen(rd) as f:
            child = json.loads(f.read() or '["no answer"]')
        _, status = os.waitpid(pid, 0)
        self.assertEqual((os.waitstatus_to_exitcode(status), child), (0, ['ok', SPEC]))
        t.join(BOUND)
        self.assertEqual(out, [('ok', SPEC)])
        self.assertEqual(r.cluster_spec().as_dict(), SPEC)
        r.close()


class Numbers(unittest.TestCase):
    def setUp(self):
        self.conf = ('resolvers = ( { plugin = "simple"; cluster = { worker = [ "a:1", "b:1" ]; '
                     '}; } );\naccelerators = ();\n')

    def check(self, fn, exc, msg):
        with self.assertRaises(exc) as cm:
            fn()
        self.assertEqual(str(cm.exception), msg)

    def test_task_ids_are_not_wrapped_or_truncated(self):
        big = 2**64 + 1
        r = ClusterResolver(self.conf, task_type='worker', task_id=big)
        self.check(r.cluster_spec, ValueError,
                   'task_id 18446744073709551617 is out of range (0..2147483647)')
        r.task_id = 2**31
        self.check(r.cluster_spec, ValueError, 'task_id 2147483648 is out of range (0..2147483647)')
        r.task_id = 1.0
        self.check(r.cluster_spec, TypeError, 'task_id must be an integer, not float 1.0')
        r.task_id = 1
        self.assertEqual(r.master('worker', 1), 'b:1')
        self.assertEqual(r.master('worker', 0), 'a:1')
        self.check(lambda: r.master('worker', 1.9), TypeError,
                   'task_id must be an integer, not float 1.9')
        self.check(lambda: r.master('worker', big), ValueError,
                   'task_id 18446744073709551617 is out of range (0..2147483647)')
        self.check(lambda: r.master('worker', -1), ValueError,
                   'task_id -1 is out of range (0..2147483647)')
        self.check(lambda: r.num_accelerators('worker', 1.5), TypeError,
                   'task_id must be an integer, not float 1.5')
        self.check(lambda: r.num_accelerators('worker', big), ValueError,
                   'task_id 18446744073709551617 is out of range (0..2147483647)')
        r.close()
        # TF_CONFIG's resolver keeps TensorFlow's int() of a string, not of a float.
        with ph.Env(TF_CONFIG=json.dumps({'cluster': {'worker': ['a:1', 'b:1']}})):
            tf = TFConfigClusterResolver(task_type='worker', task_id='1')
            self.assertEqual((tf.task_id, tf.master()), (1, 'b:1'))
            tf.task_id = 1.9
            self.check(lambda: tf.task_id, TypeError, 'task_id must be an integer, not float 1.9')
            tf.task_id = big
            self.check(tf.cluster_spec, ValueError,
                       'task_id 18446744073709551617 is out of range (0..2147483647)')
            tf.close()

    def test_watch_timeouts(self):
        r = ClusterResolver(self.conf)
        self.check(lambda: next(r.watch(timeout=float('nan'))), ValueError,
                   'timeout must be a number of seconds or None, not nan')
        self.check(lambda: next(r.watch(timeout='soon')), TypeError,
                   "timeout must be a number of seconds or None, not str 'soon'")
        # 9223372036854775 s is just under 2^63 ms: it waits (for the cancel),
        # as a huge timeout should, instead of ending at once.
        for timeout in (9223372036854775, 1e300, float('inf')):
            w = r.watch(timeout=timeout)
            self.assertEqual(next(w)[0].as_dict(), {'worker': ['a:1', 'b:1']})
            cancelled = []

            def cancel():
                time.sleep(0.5)
                cancelled.append(True)
                r.cancel_watch()
            t = threading.Thread(target=cancel)
            t.start()
            self.assertEqual(list(w), [])
            self.assertEqual(cancelled, [True], timeout)
            t.join()
        r.close()


if __name__ == '__main__':
    ph.main()
