#!/usr/bin/python3
"""The GCP fixture as google-auth and curl see it.

google-auth (Debian python3-google-auth) makes a service_account RS256 JWT
grant and an authorized_user refresh grant against the fixture's token
endpoint (the fixture verifies the JWT with the account's public key: a key
it does not know is refused as Google refuses it), reads the metadata
server through GCE_METADATA_HOST (ping, project id, the recursive
service-account listing and its token), and the granted token lists the
group. curl checks the metadata server's rules: Metadata-Flavor required,
X-Forwarded-For refused, directory listings, ?recursive=true and ?alt=text.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gce_harness as h  # noqa: E402
import gce_scenario  # noqa: E402
import test_gce  # noqa: E402

SCOPE = 'https://www.googleapis.com/auth/cloud-platform'


def curl(fx, path, *extra):
    p = subprocess.run(['curl', '-sS', '-o', '-', '-w', '\n%{http_code}', *extra,
                        'http://127.0.0.1:%d/computeMetadata/v1/%s' % (fx.meta, path)],
                       capture_output=True, text=True, timeout=30)
    body, _, code = p.stdout.rpartition('\n')
    return int(code), body


def google_auth_checks(res, fx):
    os.environ['GCE_METADATA_HOST'] = '127.0.0.1:%d' % fx.meta
    os.environ['GCE_METADATA_ROOT'] = '127.0.0.1:%d' % fx.meta  # older google-auth
    os.environ['GCE_METADATA_IP'] = '127.0.0.1:%d' % fx.meta
    os.environ['REQUESTS_CA_BUNDLE'] = fx.ca
    import google.auth.exceptions
    import google.auth.transport.requests
    from google.auth import compute_engine
    from google.auth.compute_engine import _metadata
    from google.oauth2 import credentials as user_creds
    from google.oauth2 import service_account
    req = google.auth.transport.requests.Request()

    sa = service_account.Credentials.from_service_account_file(
        os.path.join(fx.dir, 'sa.json'), scopes=[SCOPE])
    sa.refresh(req)
    res.check('google-auth service_account JWT grant', sa.token.startswith('ya29.sa-'),
              repr(sa.expiry))
    bad = service_account.Credentials.from_service_account_file(
        os.path.join(fx.dir, 'sa-bad.json'), scopes=[SCOPE])
    try:
        bad.refresh(req)
        res.check('google-auth: a JWT signed by an unknown key is refused', False, 'granted')
    except google.auth.exceptions.RefreshError as e:
        res.check('google-auth: a JWT signed by an unknown key is refused',
                  'invalid_grant: Invalid JWT Signature.' in str(e), str(e))
    info = json.load(open(os.path.join(fx.dir, 'user.json')))
    user = user_creds.Credentials(None, refresh_token=info['refresh_token'],
                                  token_uri=info['token_uri'], client_id=info['client_id'],
                                  client_secret=info['client_secret'])
    user.refresh(req)
    res.check('google-auth authorized_user refresh grant', user.token.startswith('ya29.user-'))

    res.check('google-auth finds the metadata server', _metadata.ping(req))
    res.check('google-auth reads project/project-id',
              _metadata.get_project_id(req) == 'proj-1')
    gce = compute_engine.Credentials()
    gce.refresh(req)
    res.check('google-auth compute_engine credentials: recursive listing, then the token',
              gce.token.startswith('ya29.meta-') and
              gce.service_account_email == '123456789012-compute@developer.gserviceaccount.com',
              gce.service_account_email)

    authed = google.auth.transport.requests.AuthorizedSession(sa)
    r = authed.post('https://127.0.0.1:%d/compute/v1/projects/proj-1/zones/us-central1-a/'
                    'instanceGroups/trainers/listInstances' % fx.api,
                    json={'instanceState': 'RUNNING'}, params={'maxResults': 5})
    body = r.json()
    res.check('the granted token lists the group, paged',
              r.status_code == 200 and len(body['items']) == 5 and 'nextPageToken' in body,
              r.text)


def curl_checks(res, fx):
    flavor = ('-H', 'Metadata-Flavor: Google')
    res.check('curl: 403 without Metadata-Flavor',
              curl(fx, 'instance/name')[0] == 403)
    res.check('curl: 403 with X-Forwarded-For',
              curl(fx, 'instance/name', *flavor, '-H', 'X-Forwarded-For: 10.0.0.1')[0] == 403)
    res.check('curl: a leaf is text', curl(fx, 'instance/name', *flavor) == (200, 'w-4'))
    res.check('curl: absent key 404', curl(fx, 'instance/nope', *flavor)[0] == 404)
    code, body = curl(fx, 'instance/network-interfaces/', *flavor)
    res.check('curl: a directory lists its entries', (code, body) == (200, '0/\n'), body)
    code, body = curl(fx, 'instance/network-interfaces/?recursive=true', *flavor)
    res.check('curl: ?recursive=true is JSON in camelCase',
              code == 200 and json.loads(body) == {
                  '0': {'ip': gce_scenario.ip(4),
                        'network': 'projects/123456789012/networks/default'}}, body)
    code, body = curl(fx, 'instance/attributes/?recursive=true', *flavor)
    res.check('curl: attribute names are kept as they are',
              code == 200 and 'created-by' in json.loads(body), body)
    code, body = curl(fx, 'project/?recursive=true&alt=text', *flavor)
    res.check('curl: ?alt=text lines', code == 200 and 'project-id proj-1\n' in body, body)


def main():
    h.ensure_hermetic()
    res = h.Results()
    fx = h.Fixture(gce_scenario.scenario(), test_gce.prepare)
    try:
        test_gce.credential_files(fx)
        curl_checks(res, fx)
        try:
            import google.auth  # noqa: F401
        except ImportError:
            print('SKIP: python3-google-auth is not installed')
            sys.exit(77)
        google_auth_checks(res, fx)
    finally:
        fx.stop(keep=res.failed > 0)
    res.finish()


if __name__ == '__main__':
    main()
