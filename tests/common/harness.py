"""harness.py - what every Python integration test shares: run inside the
loopback-only namespace, skip outside ctest, find a built plugin, write a
file, and count checks. Imported by the k8s, gce, aws and tpu harnesses
(sys.path gets tests/common first)."""
import os
import sys

SRC = os.environ.get('CR_TEST_SOURCE_DIR',
                     os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   '../..')))


def ensure_hermetic():
    """Re-run this script under scripts/hermetic.sh unless already inside."""
    if os.environ.get('CR_HERMETIC') == '1':
        return
    os.execv('/bin/sh', ['/bin/sh', os.path.join(SRC, 'scripts/hermetic.sh'),
                         sys.executable] + sys.argv)


def need(env_var):
    """The path in @env_var, or skip (77) when ctest did not set it."""
    path = os.environ.get(env_var)
    if not path or not os.path.exists(path):
        print('SKIP: %s is not set or missing (run through ctest)' % env_var)
        sys.exit(77)
    return path


def plugin_file(name):
    """The build tree's NAME.so on CLUSTER_RESOLVER_PLUGIN_PATH."""
    for d in os.environ.get('CLUSTER_RESOLVER_PLUGIN_PATH', '').split(':'):
        if d and os.path.exists(os.path.join(d, name + '.so')):
            return os.path.join(d, name + '.so')
    return name + '.so'


def write(path, text, mode=0o644):
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, mode)


class Results:
    """`ok - NAME` / `not ok - NAME` lines, a summary, exit 1 on a failure."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=''):
        if ok:
            self.passed += 1
            print('ok - %s' % name)
        else:
            self.failed += 1
            print('not ok - %s\n%s' % (name, detail))
        sys.stdout.flush()

    def finish(self):
        print('%d passed, %d failed' % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)
