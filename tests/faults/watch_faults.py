#!/usr/bin/python3
"""watch_faults.py - the k8s watch variants of the fault matrix (cases.py
WATCH_CASES): each fault served to the plugin's watch requests through the
k8s fixture's control file, while k8s-watch-driver (cr_context_watch)
waits for a second generation. Checked: stdout exactly, every stderr line
against the case's pattern, the pod requests the fixture saw in order (a
failed watch op makes the host list again; a resumed stream does not), and
no hang (the driver's 4 s, bound 20 s; x3 in the sanitizer build)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fault_matrix as fm  # noqa: E402
from harness import ensure_hermetic, need, write, Results  # noqa: E402


def pod_requests(be, start):
    """'list' (a list's first page) or 'watch' for each pod request."""
    import json
    out = []
    with open(os.path.join(be.dir, 'requests.jsonl')) as f:
        for line in f.readlines()[start:]:
            r = json.loads(line)
            if r['path'].endswith('/pods') and not r['query'].get('continue'):
                out.append('watch' if r['query'].get('watch') else 'list')
    return out


def run_case(be, case, workdir):
    with open(os.path.join(be.dir, 'requests.jsonl')) as f:
        start = len(f.readlines())
    be.set_faults(case['faults'])
    conf = os.path.join(workdir, 'watch-%s.conf' % case['name'])
    write(conf, be.conf(be.port, be.ca))
    t0 = time.monotonic()
    try:
        p = subprocess.run([os.environ['CR_K8S_WATCH_DRIVER'], conf, '2', '4000'],
                           env=be.env(), capture_output=True, text=True, timeout=20 * fm.SLOW)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = 'hang', '', ''
    took = time.monotonic() - t0
    be.set_faults([])
    if os.environ.get('FAULTS_SHOW') == '1':
        print('# %s rc=%s %.2fs out=%r\n#   %s' % (case['name'], rc, took, out,
                                                 err.rstrip('\n').replace('\n', '\n#   ')))
    problems = []
    lines = out.splitlines()
    if rc != 0:
        problems.append('exit %s' % rc)
    if not lines or not lines[0].startswith('generation 1: ') or lines[1:] != case['out']:
        problems.append('stdout %r, want generation 1 then %r' % (out, case['out']))
    errs = err.splitlines()
    if case['warn'] is None:
        if errs:
            problems.append('stderr %r, want none' % err)
    else:
        want = fm.pattern(case['warn'], be.port)
        if not errs or not all(re.match(want, ln) for ln in errs):
            problems.append('stderr %r does not match %r' % (err, want))
    reqs, want_reqs = pod_requests(be, start), case['requests']
    if want_reqs[-1] == '...':
        ok = reqs[:len(want_reqs) - 1] == want_reqs[:-1]
    else:
        ok = reqs == want_reqs
    if not ok:
        problems.append('requests %r, want %r' % (reqs, want_reqs))
    if fm.K8S_TOKEN in out + err:
        problems.append('the token is in the output')
    return problems


def main():
    ensure_hermetic()
    need('CR_K8S_WATCH_DRIVER')
    import cases
    d = tempfile.mkdtemp(prefix='cr-watch-faults-')
    res = Results()
    be = None
    try:
        be = fm.K8s(d)
        for case in cases.WATCH_CASES:
            problems = run_case(be, case, d)
            res.check('k8s/%s' % case['name'], not problems, '  ' + '\n  '.join(problems))
    finally:
        if be is not None:
            be.stop()
        shutil.rmtree(d, ignore_errors=True)
    res.finish()


if __name__ == '__main__':
    main()
