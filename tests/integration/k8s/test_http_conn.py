#!/usr/bin/python3
"""The host's http_request against the fixture API server: test-http-conn
makes a table of requests through two plugin instances (and one without an
instance); this script checks its exact output (status per request, then
the debug log) and, from the fixture's request log, which requests shared a
TCP connection. Under a normal build the program also runs under valgrind
(memory errors and definite leaks fail: the handles are freed with the
instances)."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_harness as h  # noqa: E402

# (case, expected line): requests in order
LINES = [
    ('token-1', '200 body'),
    ('token-2', '200 body'),
    ('head', '501 no-body'),        # the fixture has no HEAD: curl sent one
    ('after-head', '200 body'),     # ... and this GET has a body again
    ('header-dropped', '401 body'),  # no Authorization left over
    ('cert-file-1', '200 body'),
    ('cert-file-2', '200 body'),
    ('cert-gone', '401 body'),      # not the connection with the client cert
    ('cert-pem', '200 body'),
    ('cert-pem-gone', '401 body'),
    ('other-instance', '200 body'),
    ('ca-copy-1', '200 body'),
    ('ca-copy-2', '200 body'),
    ('ca-copy-rewritten', '200 body'),
    ('insecure', '200 body'),
    ('verify-again', 'error authentication failed: GET https://127.0.0.1:@PORT@/version?'
                     'case=verify-again: SSL certificate problem: self-signed certificate '
                     'in certificate chain'),
    ('no-instance', '200 body'),
    ('head-large', '200 no-body'),  # 1 GiB announced to HEAD, nothing sent: not refused
]

# Requests the fixture saw, labelled by connection: the same letter means
# the same TCP connection, different letters different connections.
# `head` is answered 501 by the HTTP library before the fixture logs it, and
# closes that connection; `verify-again` never gets past TLS; the fixture
# does not log `head-large` either.
CONNS = [
    ('token-1', 'A'), ('token-2', 'A'),
    ('after-head', 'B'), ('header-dropped', 'B'),
    ('cert-file-1', 'C'), ('cert-file-2', 'C'),
    ('cert-gone', 'D'),
    ('cert-pem', 'E'),
    ('cert-pem-gone', 'F'),
    ('other-instance', 'G'),
    ('ca-copy-1', 'H'), ('ca-copy-2', 'H'),
    ('ca-copy-rewritten', 'I'),
    ('insecure', 'J'),
    ('no-instance', 'K'),
]

# The debug log, in order: each request, and after it when instance a's TLS
# material changed for it (its connections are dropped then). Header values
# never appear.
X = "resolver 'a': TLS settings changed: closing kept-alive connections"
LOG = [
    "resolver 'a': GET /version?case=token-1",
    "resolver 'a': GET /version?case=token-2",
    "resolver 'a': HEAD /version?case=head",
    "resolver 'a': GET /version?case=after-head",
    "resolver 'a': GET /version?case=header-dropped",
    "resolver 'a': GET /version?case=cert-file-1", X,
    "resolver 'a': GET /version?case=cert-file-2",
    "resolver 'a': GET /version?case=cert-gone", X,
    "resolver 'a': GET /version?case=cert-pem", X,
    "resolver 'a': GET /version?case=cert-pem-gone", X,
    "resolver 'b': GET /version?case=other-instance",
    "resolver 'a': GET /version?case=ca-copy-1", X,
    "resolver 'a': GET /version?case=ca-copy-2",
    "resolver 'a': GET /version?case=ca-copy-rewritten", X,
    "resolver 'a': GET /version?case=insecure", X,
    "resolver 'a': GET /version?case=verify-again", X,
    "resolver 'b': HEAD /version?case=head-large",
]


def check_conns(reqs):
    seen = {r['query']['case'][0]: r['conn'] for r in reqs if 'case' in r['query']}
    problems = []
    if sorted(seen) != sorted(c for c, _ in CONNS):
        problems.append('fixture saw %s' % sorted(seen))
        return problems
    by_label = {}
    for case, label in CONNS:
        by_label.setdefault(label, set()).add(seen[case])
    for label, conns in by_label.items():
        if len(conns) != 1:
            problems.append('connection %s: requests came on %d connections' % (label, len(conns)))
    firsts = [min(c) for c in by_label.values()]
    if len(set(firsts)) != len(firsts):
        problems.append('different connections expected, got %s' %
                        {c: seen[c] for c, _ in CONNS})
    return problems


def run(fx, cmd, scale):
    """@cmd on the fixture; its requests get 10 s, times @scale."""
    env = dict(os.environ, CR_TEST_TIMEOUT_MS='%d' % (10000 * scale))
    p = subprocess.run(cmd + [fx.dir], capture_output=True, text=True, timeout=90 * scale,
                       env=env)
    return p.returncode, p.stdout, p.stderr


def main():
    h.ensure_hermetic()
    prog = h.need('CR_HTTP_CONN')
    res = h.Results()
    fx = h.Fixture(pods=os.path.join(h.HERE, 'pods.json'))
    want = [fx.subst('%s: %s' % (c, line)) for c, line in LINES]
    want += ['log 3 ' + line.replace(' /', ' https://127.0.0.1:%d/' % fx.port)
             for line in LOG]
    try:
        modes = [('plain', [])]
        if os.environ.get('CR_SANITIZE_BUILD') != '1' and shutil.which('valgrind'):
            modes.append(('valgrind', [
                'valgrind', '-q', '--error-exitcode=99', '--leak-check=full',
                '--errors-for-leak-kinds=definite', '--show-leak-kinds=definite',
                '--suppressions=/usr/share/glib-2.0/valgrind/glib.supp']))
        for mode, prefix in modes:
            n0 = len(fx.requests())
            rc, out, err = run(fx, prefix + [prog], h.time_scale(valgrind=bool(prefix)))
            got = out.splitlines()
            problems = []
            if rc != 0:
                problems.append('exit %d' % rc)
            if err:
                problems.append('stderr:\n%s' % err)
            if got != want:
                problems.append('stdout:\n  got:\n    %s\n  want:\n    %s'
                                % ('\n    '.join(got), '\n    '.join(want)))
            if 'fixture-token' in out or 'BEGIN' in out:
                problems.append('a secret was printed')
            problems += check_conns(fx.requests()[n0:])
            res.check('http connection reuse and credential separation (%s)' % mode,
                      not problems, '\n'.join('  ' + p for p in problems))
    finally:
        fx.stop(keep=res.failed > 0)
    if res.failed:
        print('fixture directory kept: %s' % fx.dir)
    res.finish()


if __name__ == '__main__':
    main()
