#!/usr/bin/python3
"""gce.so against the GCP fixture: `cluster-resolver resolve --format json`
for each case of cases_gce.py, exact stdout, stderr and exit status, the
Compute requests it made, and no secret (tokens, keys, refresh tokens,
client secrets) on stdout or stderr, even at -vv. With CR_GCE_VALGRIND=1
the cases marked `vg` run under valgrind memcheck instead."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gce_harness as h  # noqa: E402
import gce_scenario  # noqa: E402
from cases_gce import CASES  # noqa: E402

SA_EMAIL = 'trainer@proj-1.iam.gserviceaccount.com'
USER = {'client_id': '764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com',
        'client_secret': 'd-FL95Q19q7MQmFpd7hHD0Ty', 'refresh_token': '1//0g-refresh-secret-tok'}
SECRETS = ['ya29.', USER['client_secret'], USER['refresh_token'], 'PRIVATE KEY']


def openssl(*args):
    subprocess.run(['openssl'] + list(args), check=True, capture_output=True)


def prepare(fx, scenario):
    """Keys and credential files; the scenario learns the public key."""
    d = fx.dir
    for name in ('sa', 'sa-bad'):
        openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out',
                os.path.join(d, name + '.key'))
    openssl('pkey', '-in', os.path.join(d, 'sa.key'), '-pubout', '-out', os.path.join(d, 'sa.pub'))
    scenario['tokens'] = {'static': [h.STATIC_TOKEN], 'lifetime': 3600,
                          'service_accounts': {SA_EMAIL: os.path.join(d, 'sa.pub')},
                          'authorized_users': [USER]}
    return scenario


def credential_files(fx):
    d = fx.dir
    token_uri = 'https://127.0.0.1:%d/token' % fx.api
    for name, key in (('sa', 'sa.key'), ('sa-bad', 'sa-bad.key')):
        sa = {'type': 'service_account', 'project_id': 'proj-1',
              'private_key_id': '3f1e5b0c9d2a7e4f8b6c1d0a9e8f7b6c5d4e3f2a',
              'private_key': open(os.path.join(d, key)).read(), 'client_email': SA_EMAIL,
              'client_id': '104512345678901234567',
              'auth_uri': 'https://accounts.google.com/o/oauth2/auth', 'token_uri': token_uri,
              'auth_provider_x509_cert_url': 'https://www.googleapis.com/oauth2/v1/certs',
              'universe_domain': 'googleapis.com'}
        h.write(os.path.join(d, name + '.json'), json.dumps(sa, indent=2), 0o600)
    user = dict(USER, type='authorized_user', token_uri=token_uri)
    h.write(os.path.join(d, 'user.json'), json.dumps(user, indent=2), 0o600)
    adc = os.path.join(d, 'adchome/.config/gcloud')
    os.makedirs(adc)
    h.write(os.path.join(adc, 'application_default_credentials.json'), json.dumps(user), 0o600)
    h.write(os.path.join(d, 'external.json'), json.dumps(
        {'type': 'external_account', 'audience': '//iam.googleapis.com/projects/1/x',
         'subject_token_type': 'urn:ietf:params:oauth:token-type:jwt',
         'token_url': 'https://sts.googleapis.com/v1/token',
         'credential_source': {'file': '/dev/null'}}), 0o600)
    h.write(os.path.join(d, 'stale'), 'ya29.stale-token-0000\n', 0o600)


def summary(r):
    keys = [k.split('=')[0] for k in r['query'].split('&') if k]
    return (r['method'], r['path'].rsplit('/', 1)[-1], keys)


def check_case(res, fx, case):
    fx.set_faults(case.get('faults', []))
    n0 = len(fx.requests())
    args = case.get('args', ['resolve', '--format', 'json'])
    rc, out, err, took = h.run_cli(fx, case['conf'], args, case.get('env'))
    new = fx.requests()[n0:]
    err = re.sub(r'after [0-9]+ ms', 'after 0 ms', err)  # curl's connect time varies
    verbose = ''
    if 'took' not in case and not h.VALGRIND:  # once more at -vv: what the logs show
        fx.set_faults(case.get('faults', []))
        verbose = h.run_cli(fx, case['conf'], ['-vv'] + args, case.get('env'))[2]
    fx.set_faults([])
    problems = []
    if rc != case.get('rc', 0):
        problems.append('exit %d, want %d' % (rc, case.get('rc', 0)))
    if out.rstrip('\n') != fx.subst(case.get('out', '')):
        problems.append('stdout:\n  got:  %s\n  want: %s' % (out.rstrip('\n'),
                                                           fx.subst(case.get('out', ''))))
    if err.strip('\n') != fx.subst(case.get('err', '')):
        problems.append('stderr:\n  got:  %s\n  want: %s' % (err.strip('\n'),
                                                           fx.subst(case.get('err', ''))))
    for s in SECRETS:
        if s in out or s in verbose:
            problems.append('secret %r printed' % s)
    if 'requests' in case:
        got = [summary(r) for r in new if r['path'].startswith('/compute/')]
        if got != case['requests']:
            problems.append('requests: got %s\n  want %s' % (got, case['requests']))
    if 'tokens' in case:
        got = [r['body']['grant_type'] for r in new if r['path'] == '/token']
        if got != case['tokens']:
            problems.append('token grants: got %s, want %s' % (got, case['tokens']))
    if case.get('meta_token'):
        if not any(r['path'].endswith('/service-accounts/default/token') for r in new):
            problems.append('no metadata token request')
    if case.get('name', '').startswith('off GCE without') and new:
        problems.append('off GCE, yet %d requests were made' % len(new))
    # The upper bound stretches with the tool (ASan) and a busy machine.
    if 'took' in case and not h.VALGRIND and not (
            case['took'][0] <= took <= case['took'][1] * h.harness.time_scale()):
        problems.append('took %.2f s, want %s' % (took, case['took']))
    for r in new:
        if r['path'].endswith('/instances') and 'filter' in r['query']:
            url = 'https://127.0.0.1:%d%s?%s' % (fx.api, r['path'], r['query'])
            if len(url) > 8000:
                problems.append('instances.list URL of %d bytes' % len(url))
    res.check(case['name'], not problems, '\n'.join('  ' + p for p in problems))


def main():
    h.ensure_hermetic()
    h.need('CR_CLI')
    if h.VALGRIND and os.environ.get('CR_SANITIZE_BUILD') == '1':
        print('SKIP: sanitizer build (ASan/UBSan binaries cannot run under valgrind)')
        sys.exit(77)
    res = h.Results()
    fx = h.Fixture(gce_scenario.scenario(), prepare)
    try:
        credential_files(fx)
        only = sys.argv[1:]
        for case in CASES:
            if h.VALGRIND and not case.get('vg'):
                continue
            if not only or case['name'] in only:
                check_case(res, fx, case)
    finally:
        fx.stop(keep=res.failed > 0)
    if res.failed:
        print('fixture directory kept: %s' % fx.dir)
    res.finish()


if __name__ == '__main__':
    main()
