"""pyharness.py - what the tests of the Python package share: the package
and its library from the build tree, the loopback-only namespace, the
fixtures of the C tests, and a unittest runner whose last line is
"N passed, N failed" (exit 77 when every test was skipped)."""
import io
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('CR_TEST_SOURCE_DIR', os.path.normpath(os.path.join(HERE, '../../..')))
# CR_TEST_PYTHON_INSTALLED=1 (python-wheel): the package installed in the
# running interpreter's environment (a venv) is tested, not python/.
INSTALLED = os.environ.get('CR_TEST_PYTHON_INSTALLED') == '1'
PYTHON = sys.executable if INSTALLED else '/usr/bin/python3'
sys.path.insert(0, os.path.join(SRC, 'tests/common'))
if not INSTALLED:
    sys.path.insert(0, os.path.join(SRC, 'python'))
from harness import ensure_hermetic, need, write, clean_env  # noqa: E402,F401 (write: tests)


def setup(hermetic=True, sanitizer=True):
    """Skip outside ctest (no built library), or in the sanitizer build when
    not @sanitizer; re-run in the namespace."""
    need('CLUSTER_RESOLVER_LIBRARY')
    if not sanitizer and os.environ.get('CR_SANITIZE_BUILD') == '1':
        print('SKIP: not in the sanitizer build (the normal build runs it)')
        sys.exit(77)
    if hermetic:
        ensure_hermetic()


def python_env(home, extra=None):
    """A clean environment for a child Python using the package."""
    env = clean_env(home, extra=extra, keep=('CLUSTER_RESOLVER_LIBRARY',))
    if not INSTALLED:
        env['PYTHONPATH'] = os.path.join(SRC, 'python')
    return env


class Env(object):
    """Set and unset variables for a block; restores os.environ."""

    def __init__(self, **kv):
        self.kv = kv

    def __enter__(self):
        self.saved = dict(os.environ)
        for k, v in self.kv.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def __exit__(self, *exc):
        os.environ.clear()
        os.environ.update(self.saved)


class _Result(unittest.TextTestResult):
    pass


def main():
    """Run this module's tests; print the closing line CI reads."""
    stream = io.StringIO()
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules['__main__'])
    runner = unittest.TextTestRunner(stream=stream, verbosity=2, resultclass=_Result)
    res = runner.run(suite)
    sys.stdout.write(stream.getvalue())
    failed = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    skipped = len(res.skipped)
    passed = res.testsRun - failed - skipped
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
    if failed:
        sys.exit(1)
    sys.exit(77 if res.testsRun and skipped == res.testsRun else 0)
