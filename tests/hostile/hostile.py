#!/usr/bin/python3
"""hostile.py - the hostile inputs of issue #11 as tables (cases.py): each
input gives an exit status, the exact lines on stderr, and nothing on stdout
(unless a case says what stdout must be). Every case runs the real CLI in a
clean environment under scripts/hermetic.sh (loopback only), with a hang
bound (generous: it only catches a hang).

A case is a dict:
    area    config | options | env | address | task-id | plugins
    name    unique within its area
    conf    the configuration text (str or bytes) written to @CONF@, or
            FIFO / DIRECTORY / MISSING / DEVZERO (what @CONF@ is instead),
            or None: no --config (the built-in auto configuration)
    args    the command line after --config (default ["resolve"])
    env     variables on top of the clean environment
    rc      exit status
    err     stderr, exactly (placeholders below); a list: the lines
    out     stdout (default ""); out_has: pieces stdout must hold instead
    lacks   pieces neither stdout nor stderr may hold (a secret)
    err_re  stderr as a regular expression instead of err (placeholders are
            replaced by their escaped text)
    fifos   paths (placeholders allowed) made FIFOs before the run: a file
            a plugin reads that would block a reader forever
    files   {path: bytes} written (mode 0600) before the run; links {link:
            target} made as symlinks
    limit_as  bytes of address space (not in the sanitizer build): a case
            that must not copy what it is given
Placeholders: @CONF@ the config path, @DIR@ the case directory, @BROKEN@
the deliberately broken plugins (tests/abi), @RES@ the built resolvers,
@ACC@ the built accelerators, @FIX@ tests/fixtures, @NVML@ the fake NVML.
HOSTILE_SHOW=1 prints what each case got.
"""
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('CR_TEST_SOURCE_DIR', os.path.normpath(os.path.join(HERE, '../..')))
sys.path.insert(0, os.path.join(SRC, 'tests/common'))
sys.path.insert(0, HERE)
from harness import (ensure_hermetic, need, clean_env, Results, valgrind_prefix,  # noqa: E402
                     valgrind_problems, time_scale)

SANITIZED = os.environ.get('CR_SANITIZE_BUILD') == '1'
# CR_HOSTILE_VALGRIND=N: the valgrind pass (normal build): every Nth case,
# the CLI under memcheck (an error or a definite leak exits 99), except
# cases that cap the address space or feed megabytes (memcheck's own
# memory, and minutes).
EVERY = int(os.environ.get('CR_HOSTILE_VALGRIND', '0'))
# The hang bound: 10 s, scaled with the tool (valgrind, ASan) and a busy machine.
BOUND = 10 * time_scale(valgrind=EVERY > 0)


def placeholders(d, conf):
    build = os.environ.get('CR_TEST_BUILD_DIR', '')
    plug = os.environ.get('CR_PLUGIN_BUILD_DIR', os.path.join(build, 'lib/cluster-resolver'))
    return {'@CONF@': conf, '@DIR@': d, '@BROKEN@': os.path.join(build, 'tests/abi/broken'),
            '@RES@': os.path.join(plug, 'resolvers'), '@ACC@': os.path.join(plug, 'accelerators'),
            '@FIX@': os.path.join(SRC, 'tests/fixtures'),
            '@NVML@': os.path.join(build, 'tests/plugins/nvidia/fake-nvml')}


def subst(value, ph):
    if isinstance(value, bytes):
        for k, v in ph.items():
            value = value.replace(k.encode(), v.encode())
        return value
    if isinstance(value, str):
        for k, v in ph.items():
            value = value.replace(k, v)
        return value
    if isinstance(value, list):
        return [subst(x, ph) for x in value]
    if isinstance(value, dict):
        return {k: subst(v, ph) for k, v in value.items()}
    return value


def run_case(case, root):
    d = tempfile.mkdtemp(dir=root)
    conf = os.path.join(d, 'case.conf')
    ph = placeholders(d, conf)
    text = case.get('conf')
    if text == 'FIFO':
        os.mkfifo(conf)
    elif text == 'DIRECTORY':
        os.mkdir(conf)
    elif text == 'DEVZERO':
        os.symlink('/dev/zero', conf)
    elif text == 'MISSING' or text is None:
        pass
    else:
        text = subst(text, ph)
        with open(conf, 'wb') as f:
            f.write(text if isinstance(text, bytes) else text.encode())
    for fifo in subst(case.get('fifos', []), ph):
        os.mkfifo(fifo)
    for path, data in case.get('files', {}).items():
        path = subst(path, ph)
        with open(path, 'wb') as f:
            f.write(data)
        os.chmod(path, 0o600)
    for link, target in case.get('links', {}).items():
        link, target = subst(link, ph), subst(target, ph)
        os.symlink(target, link)
    vlog = os.path.join(d, 'valgrind.log')
    cmd = valgrind_prefix(vlog) if EVERY else []
    cmd += [os.environ['CR_CLI']] + (['--config', conf] if text is not None else [])
    cmd += subst(case.get('args', ['resolve']), ph)
    env = clean_env(d, extra=subst(case.get('env', {}), ph))
    limit = case.get('limit_as') if not SANITIZED else None

    def pre():
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, timeout=BOUND * 2,
                           preexec_fn=pre if limit else None)
        rc, out, err = p.returncode, p.stdout.decode(errors='replace'), \
            p.stderr.decode(errors='replace')
    except subprocess.TimeoutExpired:
        rc, out, err = 'hang', '', ''
    took = time.monotonic() - t0
    want_err = subst(case['err'], ph)
    if isinstance(want_err, list):
        want_err = ''.join(line + '\n' for line in want_err)
    want_out = subst(case.get('out', ''), ph)
    if 'err_re' in case:   # the regular expression's literal parts are escaped already
        want_err = None
        err_re = subst(case['err_re'], {k: re.escape(v) for k, v in ph.items()})
    if os.environ.get('HOSTILE_SHOW') == '1':
        print('# %s/%s: rc=%r %.2fs\n#   out=%r\n#   err=%r' % (
            case['area'], case['name'], rc, took, out, err.replace(d, '@DIR@')))
    problems = valgrind_problems(rc, vlog) if EVERY else []
    if rc != case['rc']:
        problems.append('exit %r, want %r' % (rc, case['rc']))
    if 'out_has' in case:
        for piece in subst(case['out_has'], ph):
            if piece not in out:
                problems.append('stdout lacks %r' % piece)
    elif out != want_out:
        problems.append('stdout %r, want %r' % (out[:2000], want_out[:2000]))
    for piece in case.get('lacks', []):
        if piece in out or piece in err:
            problems.append('the output holds %r' % piece)
    if want_err is None:
        if not re.fullmatch(err_re, err, re.S):
            problems.append('stderr %r does not match %r' % (err, err_re))
    elif err != want_err:
        problems.append('stderr %r\n  want   %r' % (err[:2000], want_err[:2000]))
    if took > BOUND:
        problems.append('took %.1f s (bound %.0f s)' % (took, BOUND))
    shutil.rmtree(d, ignore_errors=True)
    return problems


def main():
    ensure_hermetic()
    need('CR_CLI')
    import cases
    res = Results()
    root = tempfile.mkdtemp(prefix='cr-hostile-')
    counts = {}
    only = os.environ.get('HOSTILE_ONLY')
    seen = set()
    try:
        for case in cases.CASES:
            key = (case['area'], case['name'])
            assert key not in seen, 'duplicate case %s/%s' % key
            seen.add(key)
            if only and case['area'] != only:
                continue
            if EVERY and (len(seen) % EVERY or case.get('limit_as') or
                          len(case.get('conf') or '') > 65536 or
                          any(len(v) > 65536 for v in case.get('env', {}).values())):
                continue
            counts[case['area']] = counts.get(case['area'], 0) + 1
            problems = run_case(case, root)
            res.check('%s/%s' % key, not problems, '  ' + '\n  '.join(problems))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print('# hostile inputs: ' + ', '.join('%s %d' % kv for kv in sorted(counts.items())) +
          ' (%d in all)' % sum(counts.values()))
    res.finish()


if __name__ == '__main__':
    main()
