"""harness.py - what every Python integration test shares: run inside the
loopback-only namespace, skip outside ctest, find a built plugin, write a
file, and count checks. Imported by the k8s, gce, aws and tpu harnesses
(sys.path gets tests/common first)."""
import os
import shutil
import subprocess
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


# Kept from the test's own environment: the build's plugins, the sanitizer
# settings, the namespace marker.
# memcheck for a pass of a suite under valgrind (normal build): any error or
# a definitely lost block makes the program exit 99, which a suite's exit
# status check catches.
VALGRIND = ['valgrind', '-q', '--error-exitcode=99', '--leak-check=full',
            '--errors-for-leak-kinds=definite', '--show-leak-kinds=definite',
            '--suppressions=/usr/share/glib-2.0/valgrind/glib.supp']


def valgrind_prefix(log):
    """The command prefix that runs a program under memcheck, its report in
    the file @log."""
    return VALGRIND + ['--log-file=' + log]


def valgrind_problems(rc, log):
    """[memcheck's report] when a run under valgrind_prefix(@log) exited 99
    (a memory error or a definite leak), else []."""
    if rc != 99:
        return []
    with open(log) as f:
        return ['valgrind:\n' + f.read()]


def time_scale(valgrind=False):
    """How many times longer a time bound must be for the program under
    test: 6 under valgrind, 3 in the sanitizer build (CR_SANITIZE_BUILD=1),
    else 1; times $CR_TIME_SCALE (scripts/stress-test.sh sets it for a busy
    machine). Every timeout a test gives a plugin, and every bound it
    checks, is multiplied by it, so a slow tool or a loaded machine never
    turns a time bound into a functional failure (issue 27 section 4)."""
    scale = 6.0 if valgrind else 3.0 if os.environ.get('CR_SANITIZE_BUILD') == '1' else 1.0
    try:
        scale *= max(1.0, float(os.environ.get('CR_TIME_SCALE', '1')))
    except ValueError:
        pass
    return scale


PASSTHROUGH = ('CLUSTER_RESOLVER_PLUGIN_PATH', 'ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS',
               'CR_HERMETIC', 'LD_PRELOAD', 'G_DEBUG', 'CR_TIME_SCALE')


def clean_env(home, fixed=None, extra=None, subst=str, lang='C', keep=()):
    """An environment with nothing of the machine's in it: PATH, HOME=@home,
    no config file, the PASSTHROUGH variables (and @keep), then @fixed, then
    @extra (a None value unsets; values go through @subst)."""
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'HOME': home, 'LANG': lang,
           'CLUSTER_RESOLVER_CONFIG': ''}
    env.update(fixed or {})
    for k in PASSTHROUGH + tuple(keep):
        if k in os.environ:
            env[k] = os.environ[k]
    for k, v in (extra or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = subst(v)
    return env


def plugin_path_without_manifest(directory, name):
    """CLUSTER_RESOLVER_PLUGIN_PATH with each folder that holds NAME.applies
    replaced by a copy under @directory without that manifest, so that the
    host loads NAME.so whatever the machine has: a stand-in (the fake NVML
    through LD_LIBRARY_PATH) is there where the manifest's files (a driver's
    /dev/nvidiactl) are not."""
    out = []
    for d in os.environ['CLUSTER_RESOLVER_PLUGIN_PATH'].split(':'):
        if not os.path.exists(os.path.join(d, name + '.applies')):
            out.append(d)
            continue
        copy = os.path.join(directory, 'no-manifest-' + os.path.basename(d))
        if not os.path.isdir(copy):
            os.makedirs(copy)
            for f in os.listdir(d):
                if f != name + '.applies' and os.path.isfile(os.path.join(d, f)):
                    shutil.copy2(os.path.join(d, f), os.path.join(copy, f))
        out.append(copy)
    return ':'.join(out)


def run_config(directory, conf_text, args, env, timeout=60, prefix=()):
    """Write @conf_text to DIRECTORY/case.conf and run `cluster-resolver
    --config` on it with @args (under @prefix, e.g. valgrind): the
    CompletedProcess."""
    conf = os.path.join(directory, 'case.conf')
    with open(conf, 'w') as f:
        f.write(conf_text)
    cmd = list(prefix) + [os.environ['CR_CLI'], '--config', conf] + list(args)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


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
