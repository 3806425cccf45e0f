#!/usr/bin/python3
"""The GCP fixture is what gcloud expects, and gce.so resolves what gcloud lists.

Under scripts/hermetic.sh, gcloud 528 talks only to the fixture: Compute
through CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE, the test CA through
CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE, the metadata server through
GCE_METADATA_HOST/ROOT/IP, a bearer token from CLOUDSDK_AUTH_ACCESS_TOKEN_FILE,
and a throw-away CLOUDSDK_CONFIG. Four gcloud calls (seconds each):
`config list`, `compute instance-groups list-instances` for the zonal and
the regional group, `compute instances list` (aggregated, three pages). The
RUNNING members gcloud lists, with the addresses gcloud shows for them, must
be exactly the tasks the plugin resolves for the same groups.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gce_harness as h  # noqa: E402
import gce_scenario  # noqa: E402

GCLOUD = '/usr/bin/gcloud'


def gcloud_env(fx):
    meta = '127.0.0.1:%d' % fx.meta
    return {'PATH': '/usr/bin:/bin', 'HOME': fx.home, 'LANG': 'C',
            'CLOUDSDK_CONFIG': os.path.join(fx.dir, 'gcloud-config'),
            'CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE': 'https://127.0.0.1:%d/compute/v1/' % fx.api,
            'CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE': fx.ca,
            'CLOUDSDK_AUTH_ACCESS_TOKEN_FILE': os.path.join(fx.dir, 'token'),
            'GCE_METADATA_HOST': meta, 'GCE_METADATA_ROOT': meta, 'GCE_METADATA_IP': meta,
            'CLOUDSDK_CORE_DISABLE_PROMPTS': '1', 'CLOUDSDK_CORE_DISABLE_USAGE_REPORTING': '1',
            'CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK': '1'}


def gcloud(fx, *args):
    p = subprocess.run([GCLOUD] + list(args) + ['--format=json'], env=gcloud_env(fx),
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError('gcloud %s: exit %d\n%s' % (' '.join(args), p.returncode, p.stderr))
    return json.loads(p.stdout)


def resolve(fx, opts):
    conf = ('resolvers = ( { plugin = "gce"; policy = "required"; root = "@ROOT@"; '
            'access_token_file = "@DIR@/token"; ca_file = "@DIR@/ca.crt"; port = 2222; '
            'compute_endpoint = "https://127.0.0.1:@API@/compute/v1/"; task_id = 0; %s } );\n'
            'accelerators = ( );\n' % opts)
    rc, out, err, _ = h.run_cli(fx, conf, ['resolve', '--format', 'json'])
    if rc != 0:
        raise RuntimeError('resolve (%s): exit %d: %s' % (opts, rc, err))
    return json.loads(out)['cluster']['worker']


def main():
    h.ensure_hermetic()
    h.need('CR_CLI')
    if not os.path.exists(GCLOUD):
        print('SKIP: %s is not installed' % GCLOUD)
        sys.exit(77)
    res = h.Results()
    fx = h.Fixture(gce_scenario.scenario(),
                   lambda f, s: dict(s, tokens={'static': [h.STATIC_TOKEN]}))
    try:
        conf = gcloud(fx, 'config', 'list')
        res.check('gcloud config list: endpoint, CA and token file from the environment',
                  conf.get('api_endpoint_overrides', {}).get('compute') ==
                  'https://127.0.0.1:%d/compute/v1/' % fx.api and
                  conf.get('auth', {}).get('access_token_file') ==
                  os.path.join(fx.dir, 'token'), json.dumps(conf))
        zonal = gcloud(fx, 'compute', 'instance-groups', 'list-instances', 'trainers',
                       '--zone', 'us-central1-a')
        regional = gcloud(fx, 'compute', 'instance-groups', 'list-instances', 'trainers-r',
                          '--region', 'us-central1')
        insts = gcloud(fx, 'compute', 'instances', 'list', '--filter', 'name ~ ^[rw]-')
        ip = {(i['zone'].rsplit('/', 1)[-1], i['name']): i['networkInterfaces'][0]['networkIP']
              for i in insts}
        reqs = [r for r in fx.requests() if r['server'] == 'api']
        res.check('gcloud read the project from the metadata server and listed through the '
                  'fixture', [r['path'].rsplit('/', 1)[-1] for r in reqs] ==
                  ['listInstances', 'listInstances'] + ['instances'] * 3 and
                  all('/projects/proj-1/' in r['path'] for r in reqs),
                  json.dumps(reqs, indent=1))
        res.check('gcloud lists TERMINATED w-12 too (instanceState ALL)',
                  [m['status'] for m in zonal].count('TERMINATED') == 1 and len(zonal) == 13,
                  json.dumps(zonal))
        for name, members, opts in (
                ('zonal', zonal, 'instance_group = "trainers";'),
                ('regional', regional, 'instance_group = "trainers-r"; region = "us-central1";')):
            want = []
            for m in members:
                if m['status'] != 'RUNNING':
                    continue
                parts = m['instance'].split('/')
                want.append('%s:2222' % ip[(parts[-3], parts[-1])])
            got = resolve(fx, opts + ' order = "name";')
            res.check('%s group: the plugin resolves exactly the RUNNING members gcloud lists '
                      '(%d)' % (name, len(want)), sorted(got) == sorted(want) and
                      len(got) == len(set(got)), 'plugin: %s\ngcloud: %s' % (got, want))
    finally:
        fx.stop(keep=res.failed > 0)
    res.finish()


if __name__ == '__main__':
    main()
