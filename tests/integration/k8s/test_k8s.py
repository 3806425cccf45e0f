#!/usr/bin/python3
"""k8s.so against the fixture API server: `cluster-resolver resolve --format
json` for each case, exact stdout, stderr and exit status.

@PORT@ and @DIR@ in configs, environments and expectations stand for the
fixture's port and directory. Every case also checks that no secret
(bearer tokens, the client key) appears on stdout or stderr.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_harness as h
from harness import write  # noqa: E402
from cases_resolve import CASES  # noqa: E402

SECRETS = [h.TOKEN, 'sa-token-A', 'sa-token-B', 'exec-token-v1', 'exec-token-beta',
           'stale-token', 'merged-token', 'hunter2']




def b64(path):
    import base64
    with open(path, 'rb') as f:
        return base64.b64encode(f.read()).decode()


def kubeconfig(fx, users, current='c', cluster_extra='', name='kc', ns='train',
               server=None, cluster_name='fixture'):
    """A kubeconfig with one cluster, context `c` per user entry."""
    server = server or 'https://127.0.0.1:%d' % fx.port
    ctxs = ''.join('- context:\n    cluster: %s\n    namespace: %s\n    user: %s\n  name: %s\n'
                   % (cluster_name, ns, u, c) for c, u, _ in users)
    usrs = ''.join('- name: %s\n  user:\n%s' % (u, body) for _, u, body in users)
    text = ('apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n'
            '    certificate-authority: ca.crt\n    server: %s\n%s  name: %s\n'
            'contexts:\n%scurrent-context: %s\nusers:\n%s'
            % (server, cluster_extra, cluster_name, ctxs, current, usrs))
    path = os.path.join(fx.dir, name)
    write(path, text, 0o600)
    return path


def setup_files(fx):
    """Service-account files, exec plugins and kubeconfigs the cases use."""
    d = fx.dir
    os.makedirs(os.path.join(d, 'sa'))
    write(os.path.join(d, 'sa/token'), 'sa-token-A\n')
    write(os.path.join(d, 'sa/namespace'), 'train')
    write(os.path.join(d, 'sa/ca.crt'), open(os.path.join(d, 'ca.crt')).read())
    cred = ('#!/bin/sh\nprintf "%%s" "$KUBERNETES_EXEC_INFO" > "%s/exec-info.$1"\n'
            'case "$1" in\n'
            'v1) echo \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",'
            '"status":{"token":"exec-token-v1"}}\' ;;\n'
            'beta) echo \'{"apiVersion":"client.authentication.k8s.io/v1beta1",'
            '"kind":"ExecCredential","status":{"token":"exec-token-beta",'
            '"expirationTimestamp":"2030-01-01T00:00:00Z"}}\' ;;\n'
            'cert) printf \'{"apiVersion":"client.authentication.k8s.io/v1",'
            '"kind":"ExecCredential","status":{"clientCertificateData":"%%s",'
            '"clientKeyData":"%%s"}}\' "$(awk 1 ORS=\'\\\\n\' %s/client.crt)" '
            '"$(awk 1 ORS=\'\\\\n\' %s/client.key)" ;;\n'
            'fail) echo "login required" >&2; exit 3 ;;\n'
            'garbage) echo \'{"apiVersion": \' ;;\n'
            'sleep) sleep 30 > /dev/null 2>&1 & echo $! > "%s/exec-sleep.pid"; wait ;;\n'
            'esac\n') % (d, d, d, d)
    os.makedirs(os.path.join(d, 'bin'))
    write(os.path.join(d, 'bin/get-token'), cred, 0o755)

    def exec_user(version, arg, cluster_info='false', command='./bin/get-token'):
        return ('    exec:\n      apiVersion: client.authentication.k8s.io/%s\n'
                '      command: %s\n      args:\n      - %s\n'
                '      env:\n      - name: FOO\n        value: bar\n'
                '      installHint: install get-token\n      provideClusterInfo: %s\n'
                '      interactiveMode: Never\n' % (version, command, arg, cluster_info))
    kubeconfig(fx, [('c', 'tok', '    token: %s\n' % h.TOKEN),
                    ('cert', 'cert', '    client-certificate: client.crt\n'
                                     '    client-key: client.key\n'),
                    ('certdata', 'certdata', '    client-certificate-data: %s\n'
                                             '    client-key-data: %s\n'
                     % (b64(os.path.join(d, 'client.crt')), b64(os.path.join(d, 'client.key')))),
                    ('tokenfile', 'tokenfile', '    tokenFile: sa/token\n'),
                    ('stale', 'stale', '    token: stale-token\n'),
                    ('nouser', 'nouser', '    {}\n'),
                    ('exec-v1', 'exec-v1', exec_user('v1', 'v1', 'true')),
                    ('exec-beta', 'exec-beta', exec_user('v1beta1', 'beta')),
                    ('exec-cert', 'exec-cert', exec_user('v1', 'cert')),
                    ('exec-fail', 'exec-fail', exec_user('v1', 'fail')),
                    ('exec-garbage', 'exec-garbage', exec_user('v1', 'garbage')),
                    ('exec-sleep', 'exec-sleep', exec_user('v1', 'sleep')),
                    ('exec-alpha', 'exec-alpha', exec_user('v1alpha1', 'v1')),
                    ('exec-missing', 'exec-missing',
                     exec_user('v1', 'v1', command='no-such-credential-helper')),
                    ('authprov', 'authprov', '    auth-provider:\n      name: gcp\n')],
              name='kc')
    kubeconfig(fx, [('c', 'tok', '    token: %s\n' % h.TOKEN)], name='kc-insecure',
               cluster_extra='    insecure-skip-tls-verify: true\n')
    kubeconfig(fx, [('c', 'tok', '    token: %s\n' % h.TOKEN)], name='kc-default-ns', ns='default')
    kubeconfig(fx, [('c', 'tok', '    token: %s\n' % h.TOKEN)], name='kc-userinfo',
               server='https://admin:hunter2@127.0.0.1:%d' % fx.port)
    # libyaml is quadratic in flow nesting; a kubeconfig over 1 MiB is refused.
    write(os.path.join(d, 'kc-deep'), 'apiVersion: v1\nclusters: ' + '[' * 400000 + '\n')
    write(os.path.join(d, 'kc-huge'), '#' * (1 << 20) + '\n')
    # A token with a line break would add a header: refused before sending.
    kubeconfig(fx, [('c', 'tok', '    token: "%s\\r\\nX-Injected: 1"\n' % h.TOKEN)],
               name='kc-crlf-token')
    # KUBECONFIG merge: m1 has the context and the right cluster, m2 the user
    # and a cluster of the same name that must lose.
    write(os.path.join(d, 'm1'), 'apiVersion: v1\nkind: Config\ncurrent-context: merged\n'
          'clusters:\n- name: fixture\n  cluster:\n    server: https://127.0.0.1:%d\n'
          '    certificate-authority: ca.crt\ncontexts:\n- name: merged\n  context:\n'
          '    cluster: fixture\n    user: merged-user\n    namespace: train\n' % fx.port)
    write(os.path.join(d, 'm2'), 'apiVersion: v1\nkind: Config\ncurrent-context: other\n'
          'clusters:\n- name: fixture\n  cluster:\n    server: https://127.0.0.1:1\n'
          'users:\n- name: merged-user\n  user:\n    token: merged-token\n')
    fx.set_tokens(['sa-token-A', 'exec-token-v1', 'exec-token-beta', 'merged-token'])


def check_case(res, fx, case):
    if case.get('before'):
        case['before'](fx)
    fx.set_faults(case.get('faults', []))
    n0 = len(fx.requests())
    rc, out, err = h.run_cli(fx, case['conf'], case.get('args', ['resolve', '--format', 'json']),
                             case.get('env'))
    new = fx.requests()[n0:]
    fx.set_faults([])
    want_out = fx.subst(case.get('out', ''))
    want_err = fx.subst(case.get('err', ''))
    err = re.sub(r'after [0-9]+ ms', 'after 0 ms', err)  # curl's connect time varies
    problems = []
    if rc != case.get('rc', 0):
        problems.append('exit %d, want %d' % (rc, case.get('rc', 0)))
    if out.rstrip('\n') != want_out:
        problems.append('stdout:\n  got:  %s\n  want: %s' % (out.rstrip('\n'), want_out))
    if case.get('check_err'):  # stderr that varies (a random wait): the case checks it
        problems += case['check_err'](fx, err)
    elif err.rstrip('\n') != want_err:
        problems.append('stderr:\n  got:  %s\n  want: %s' % (err.rstrip('\n'), want_err))
    for s in SECRETS:
        if s in out or s in err:
            problems.append('secret %r printed' % s)
    if 'requests' in case:
        got = [(r['code'], r['query'].get('limit', [''])[0], 'continue' in r['query'])
               for r in new if r['path'].endswith('/pods')]
        if got != case['requests']:
            problems.append('requests: got %s, want %s' % (got, case['requests']))
    if 'forms' in case:  # asked for (table/protobuf/json), answer's status and type
        def form(media):
            return ('table' if 'as=Table' in media else
                    'protobuf' if media.startswith('application/vnd.kubernetes.protobuf')
                    else 'json')
        got = [('json' if form(r['accept']) == 'table' and
                r['query'].get('includeObject') != ['None'] else form(r['accept']), r['code'],
                form(r.get('type') or '')) for r in new if r['path'].endswith('/pods')]
        if got != case['forms']:
            problems.append('forms: got %s, want %s' % (got, case['forms']))
    if 'queries' in case:  # extra query parameters of each list request
        got = [{k: v[0] for k, v in r['query'].items() if k in case['queries'][0]}
               for r in new if r['path'].endswith('/pods')]
        if got != case['queries']:
            problems.append('queries: got %s, want %s' % (got, case['queries']))
    if 'conns' in case:  # same letter: same TCP connection
        ids = [r['conn'] for r in new if r['path'].endswith('/pods')]
        labels = {}
        got = ''.join(labels.setdefault(c, chr(ord('A') + len(labels))) for c in ids)
        if got != case['conns']:
            problems.append('connections: got %s, want %s' % (got, case['conns']))
    if case.get('after'):
        problems += case['after'](fx)
    res.check(case['name'], not problems, '\n'.join('  ' + p for p in problems))


# Keys of a case that depend on how the pods were asked for or answered.
WIRE_KEYS = ('faults', 'forms', 'requests', 'queries', 'conns', 'before', 'after', 'check_err')


def json_twins(cases):
    """Each case that reads pods as the server serves them, again with full
    JSON pods (list_format = "json") instead of protobuf or Table rows: the
    two readers fill the plugin's pod view each in its own way (k8s_view.c,
    k8s_proto.c), and every answer must be the same."""
    twins = []
    for case in cases:
        if (any(k in case for k in WIRE_KEYS) or 'list_format' in case['conf'] or
                case.get('rc', 0) == 2 or 'plugin = "k8s"; ' not in case['conf']):
            continue
        twin = dict(case, name=case['name'] + '-json')
        twin['conf'] = case['conf'].replace('plugin = "k8s"; ',
                                            'plugin = "k8s"; list_format = "json"; ', 1)
        twins.append(twin)
    return twins


def main():
    h.ensure_hermetic()
    h.need('CR_CLI')
    res = h.Results()
    fx = h.Fixture(pods=os.path.join(h.HERE, 'pods.json'))
    try:
        setup_files(fx)
        only = sys.argv[1:]
        for case in CASES + json_twins(CASES):
            if not only or case['name'] in only:
                check_case(res, fx, case)
    finally:
        fx.stop(keep=res.failed > 0)
    if res.failed:
        print('fixture directory kept: %s' % fx.dir)
    res.finish()


if __name__ == '__main__':
    main()
