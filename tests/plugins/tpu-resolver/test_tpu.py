#!/usr/bin/python3
"""test_tpu.py - resolvers/tpu.so against the gcp fixture (TPU API over HTTPS with
the test CA, metadata over HTTP), with gcloud 528 as the proof that the fixture
answers as the real Cloud TPU API does: `gcloud compute tpus tpu-vm describe`
and `gcloud compute tpus queued-resources describe` read the same nodes and
queued resource, and the plugin must resolve the endpoints gcloud shows.

Runs under scripts/hermetic.sh (loopback only). Cases: READY (64 hosts,
ports as numbers and as strings, the legacy top-level ipAddress/port),
CREATING, PREEMPTED, STOPPED, an absent node, a TPU VM's metadata, a
multislice job of 3 slices through a queued resource (and without it),
explain's facts, and exec with a reserved coordinator port.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('CR_TEST_SOURCE_DIR', os.path.normpath(os.path.join(HERE, '../../..')))
sys.path.insert(0, os.path.join(SRC, 'tests/common'))
from harness import ensure_hermetic, time_scale, VALGRIND as MEMCHECK  # noqa: E402,F401
GCP = os.path.join(SRC, 'tests/fixtures/gcp')
sys.path.insert(0, GCP)
import gcp_tpu  # noqa: E402

PROJECT, ZONE = 'tpu-proj', 'us-central2-b'
TOKEN = 'ya29.fixture-static-token-for-tpu'
GCLOUD = shutil.which('gcloud') or '/usr/bin/gcloud'
FAILED = []
# CR_TPU_VALGRIND=1: every CLI run under memcheck (normal build only); any
# memory error or definite leak fails (exit 99), gcloud is not run.
VALGRIND = list(MEMCHECK) if os.environ.get('CR_TPU_VALGRIND') == '1' else []




def check(name, got, want):
    if got == want:
        print('ok - %s' % name)
    else:
        FAILED.append(name)
        print('not ok - %s\n  got:  %r\n  want: %r' % (name, got, want))


NODES = [
    {'name': 'ready', 'type': 'v4-32'},
    {'name': 'strport', 'type': 'v5litepod-16', 'port_as': 'string', 'subnet': '10.130.4'},
    {'name': 'legacy', 'type': 'v3-8', 'legacy': True, 'subnet': '10.240.1'},
    {'name': 'big', 'type': 'v4-512', 'subnet': '10.132.0', 'first': 10},
    {'name': 'creating', 'type': 'v4-8', 'state': 'CREATING'},
    {'name': 'spot', 'type': 'v4-8', 'state': 'PREEMPTED'},
    {'name': 'stopped', 'type': 'v4-8', 'state': 'STOPPED'},
    {'name': 'flaky', 'type': 'v4-16', 'subnet': '10.130.7'},
    {'name': 'noscope', 'type': 'v4-8'},
]
QR = {'name': 'qr', 'slices': 3, 'prefix': 'ms', 'type': 'v4-16'}


def scenario():
    vm_spec = gcp_tpu.slice_specs(QR)[1]
    md = gcp_tpu.vm_metadata(PROJECT, ZONE, vm_spec, 1, extra_env={
        'MEGASCALE_NUM_SLICES': '3', 'MEGASCALE_SLICE_ID': '1',
        'MEGASCALE_COORDINATOR_ADDRESS': '10.131.0.2:8080'})
    faults = [
        # two 429s with Retry-After, then the node: retried, resolved
        {'path': '/nodes/flaky', 'status': 429, 'retry_after': '1', 'count': 2},
        # a token without the cloud-platform scope: Google's 403, not retried
        {'path': '/nodes/noscope', 'status': 403, 'count': -1,
         'message': 'Request had insufficient authentication scopes.',
         'reason': 'ACCESS_TOKEN_SCOPE_INSUFFICIENT'},
    ]
    return {'metadata': md, 'tokens': {'static': [TOKEN]}, 'faults': faults,
            'tpu': {'project': PROJECT, 'zone': ZONE, 'nodes': NODES,
                    'queued_resources': [QR]}}


class Fixture:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix='cr-tpu-')
        path = os.path.join(self.dir, 'scenario.json')
        with open(path, 'w') as f:
            json.dump(scenario(), f)
        self.log = open(os.path.join(self.dir, 'fixture.log'), 'w')
        self.proc = subprocess.Popen(
            ['/usr/bin/python3', os.path.join(GCP, 'gcp_fixture.py'), '--dir', self.dir,
             '--scenario', path], stdout=self.log, stderr=subprocess.STDOUT)
        ports = [os.path.join(self.dir, n) for n in ('api.port', 'metadata.port')]
        for _ in range(400):
            if all(os.path.exists(p) for p in ports):
                break
            if self.proc.poll() is not None:
                raise RuntimeError('fixture exited: see %s/fixture.log' % self.dir)
            time.sleep(0.05)
        self.api = int(open(ports[0]).read())
        self.md = int(open(ports[1]).read())
        self.ca = os.path.join(self.dir, 'ca.crt')
        self.token = os.path.join(self.dir, 'token')
        with open(self.token, 'w') as f:
            f.write(TOKEN + '\n')
        # Machine roots: a GCE VM (DMI says Google) and a laptop (empty).
        self.gce = os.path.join(self.dir, 'gce')
        os.makedirs(os.path.join(self.gce, 'sys/class/dmi/id'))
        with open(os.path.join(self.gce, 'sys/class/dmi/id/product_name'), 'w') as f:
            f.write('Google Compute Engine\n')
        self.laptop = os.path.join(self.dir, 'laptop')
        os.makedirs(self.laptop)

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir)

    def config(self, extra, on_gce=False):
        md = '' if 'metadata_host' in extra else 'metadata_host = "127.0.0.1:%d"; ' % self.md
        text = ('resolvers = ( { plugin = "tpu"; tpu_endpoint = "https://127.0.0.1:%d/"; '
                'ca_file = "%s"; access_token_file = "%s"; %sroot = "%s"; %s } );\n'
                % (self.api, self.ca, self.token, md, self.gce if on_gce else self.laptop,
                   extra))
        path = os.path.join(self.dir, 'cr.conf')
        with open(path, 'w') as f:
            f.write(text)
        return path


def cli(fx, extra, *args, on_gce=False, env=None):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith(('TPU_', 'MEGASCALE_', 'KUBE_GOOGLE', 'GCE_METADATA')):
            del e[k]
    e.update(env or {})
    p = subprocess.run(VALGRIND + [os.environ['CR_CLI'], '--config', fx.config(extra, on_gce)] +
                       list(args), capture_output=True, text=True, env=e, timeout=120)
    if p.returncode == 99 and VALGRIND:
        FAILED.append('valgrind')
        print('not ok - valgrind: %s\n%s' % (' '.join(args), p.stderr))
    return p.returncode, p.stdout, p.stderr


def node_cfg(name):
    v1 = ' api_version = "v1";' if name == 'legacy' else ''
    return 'tpu = "%s"; project = "%s"; zone = "%s";%s' % (name, PROJECT, ZONE, v1)


def workers(spec):
    n = (gcp_tpu.node_v1 if spec.get('legacy') else gcp_tpu.node)(PROJECT, ZONE, spec)
    eps = n.get('networkEndpoints') or [{'ipAddress': n['ipAddress'], 'port': n['port']}]
    return ['%s:%s' % (e['ipAddress'], e['port']) for e in eps]


def resolved(ws, index, tpus):
    return json.dumps({'cluster': {'worker': ws}, 'task': {'type': 'worker', 'index': index},
                       'rpc_layer': 'grpc', 'master': 'grpc://' + ws[index],
                       'num_accelerators': {'TPU': tpus}}) + '\n'


def test_nodes(fx):
    for spec, tpus in ((NODES[0], 4), (NODES[1], 4), (NODES[2], 8), (NODES[3], 4)):
        rc, out, err = cli(fx, node_cfg(spec['name']), 'resolve', '--format', 'json')
        check('node %s (%s)' % (spec['name'], spec['type']), (rc, out, err),
              (0, resolved(workers(spec), 0, tpus), ''))
    for name, state in (('creating', 'CREATING'), ('spot', 'PREEMPTED'), ('stopped', 'STOPPED')):
        rc, out, err = cli(fx, node_cfg(name), 'resolve')
        check('node %s' % name, (rc, out, err),
              (1, '', 'cluster-resolver: resolver \'tpu\': TPU "%s" is not yet ready; '
               'state: "%s"\n' % (name, state)))
    rc, out, err = cli(fx, node_cfg('gone'), 'resolve')
    check('absent node', (rc, out, err),
          (1, '', "cluster-resolver: resolver 'tpu': GET https://127.0.0.1:%d/v2/projects/%s/"
           "locations/%s/nodes/gone: HTTP 404: Resource 'projects/%s/locations/%s/nodes/gone' "
           "was not found\n" % (fx.api, PROJECT, ZONE, PROJECT, ZONE)))


def requests_to(fx, path):
    with open(os.path.join(fx.dir, 'requests.jsonl')) as f:
        return [json.loads(line)['status'] for line in f if path in line]


def test_faults(fx):
    rc, out, err = cli(fx, node_cfg('flaky'), 'resolve', '--format', 'json')
    check('429 with Retry-After twice, then the node', (rc, out, err, requests_to(fx, 'flaky')),
          (0, resolved(workers(NODES[7]), 0, 4), '', [429, 429, 200]))
    rc, out, err = cli(fx, node_cfg('noscope'), 'resolve')
    check('403 insufficient scopes: named, not retried',
          (rc, out, err, requests_to(fx, 'noscope')),
          (1, '', "cluster-resolver: resolver 'tpu': GET https://127.0.0.1:%d/v2/projects/%s/"
           "locations/%s/nodes/noscope: HTTP 403: Request had insufficient authentication "
           "scopes.\n" % (fx.api, PROJECT, ZONE), [403]))


def test_explain(fx):
    rc, out, err = cli(fx, node_cfg('ready'), 'explain', '--json')
    n = gcp_tpu.node(PROJECT, ZONE, NODES[0])
    facts = json.loads(out)['resolvers'][0]['facts'] if rc == 0 else None
    url = 'https://127.0.0.1:%d/v2/projects/%s/locations/%s/nodes/ready' % (fx.api, PROJECT,
                                                                           ZONE)
    check('explain facts of a READY node', (rc, facts), (0, {
        'tpu_name': 'ready', 'api': url, 'node': n['name'], 'state': 'READY',
        'health': 'HEALTHY', 'accelerator_type': 'v4-32', 'source': 'api',
        'job_name': 'worker', 'coordination_service_leader': '/job:worker/task:0',
        'endpoints': [{'ipAddress': e['ipAddress'], 'port': str(e['port'])}
                      for e in n['networkEndpoints']]}))
    rc, out, err = cli(fx, node_cfg('creating'), 'explain', '--json')
    facts = json.loads(out)['resolvers'][0]['facts'] if out else None
    check('explain keeps the facts of a failed resolve', (rc, facts), (1, {
        'tpu_name': 'creating', 'api': url.replace('/ready', '/creating'),
        'node': 'projects/%s/locations/%s/nodes/creating' % (PROJECT, ZONE),
        'state': 'CREATING', 'accelerator_type': 'v4-8', 'source': 'api'}))


def test_tpu_vm(fx):
    slices = [workers(s) for s in gcp_tpu.slice_specs(QR)]
    everyone = slices[0] + slices[1] + slices[2]
    rc, out, err = cli(fx, 'queued_resource = "qr";', 'resolve', '--format', 'json',
                       on_gce=True)
    check('TPU VM, multislice of 3 through the queued resource', (rc, out, err),
          (0, resolved(everyone, 3, 4), ''))
    facts = plugin_facts(fx, 'queued_resource = "qr";', on_gce=True)
    names = ['projects/%s/locations/%s/nodes/ms-%d' % (PROJECT, ZONE, i) for i in range(3)]
    check('TPU VM facts', {k: facts.get(k) for k in ('source', 'tpu_name', 'accelerator_type',
                                                     'queued_resource', 'slices',
                                                     'megascale_coordinator')},
          {'source': 'metadata', 'tpu_name': 'ms-1', 'accelerator_type': 'v4-16',
           'queued_resource': 'qr', 'slices': names,
           'megascale_coordinator': '10.131.0.2:8080'})
    rc, out, err = cli(fx, '', 'resolve', on_gce=True)
    check('TPU VM, multislice without queued_resource', (rc, out, err),
          (1, '', "cluster-resolver: resolver 'tpu': multislice job of 3 slices "
           "(MEGASCALE_NUM_SLICES): only slice 1 (TPU \"ms-1\", 2 workers) is known; set "
           "'queued_resource' to list every slice\n"))
    rc, out, err = cli(fx, '', 'resolve', '--format', 'json', on_gce=True,
                       env={'MEGASCALE_NUM_SLICES': '1', 'MEGASCALE_SLICE_ID': '0'})
    check('TPU VM, one slice (the environment wins over tpu-env)', (rc, out, err),
          (0, resolved(slices[1], 1, 4), ''))
    rc, out, err = cli(fx, '', 'resolve', on_gce=True, env={'TPU_SKIP_MDS_QUERY': '1'})
    check('TPU_SKIP_MDS_QUERY declines', (rc, out, err),
          (1, '', 'cluster-resolver: no resolver applies here (declined: tpu)\n'))
    rc, out, err = cli(fx, '', 'resolve')
    check('off GCE declines', (rc, out, err),
          (1, '', 'cluster-resolver: no resolver applies here (declined: tpu)\n'))


def test_devices_file(fx):
    """TensorFlow's own test value (reference §11.3): 8 TPU devices over tasks
    0..3, two each, give {"TPU": 2} and its device map."""
    devs = [{'name': '/job:worker/replica:0/task:%d/device:TPU:%d' % (t, c),
             'device_type': 'TPU'} for t, c in ((0, 0), (1, 1), (2, 0), (3, 1),
                                                 (0, 4), (1, 5), (2, 4), (3, 5))]
    devs.append({'name': '/job:worker/replica:0/task:0/device:TPU_SYSTEM:0',
                 'device_type': 'TPU_SYSTEM'})
    path = os.path.join(fx.dir, 'devices.json')
    with open(path, 'w') as f:
        json.dump(devs, f)
    ws = ['10.1.2.%d:8470' % i for i in range(3, 7)]
    rc, out, err = cli(fx, 'tpu = "%s"; devices_file = "%s";' % (','.join(ws), path),
                       'explain', '--json')
    doc = json.loads(out) if rc == 0 else {}
    check("TensorFlow's device list: {TPU: 2} and its device map",
          (rc, doc.get('resolvers', [{}])[0].get('facts', {}).get('tpu_device_map'),
           doc.get('result', {}).get('num_accelerators')),
          (0, {'0': ['0', '4'], '1': ['1', '5'], '2': ['0', '4'], '3': ['1', '5']},
           {'TPU': 2}))


def test_silent_metadata(fx):
    """A metadata server that never answers (TF #34564, JAX #40854): the
    probe gives up after metadata_timeout and the resolver declines."""
    silent = int(open(os.path.join(fx.dir, 'silent.port')).read())
    t0 = time.monotonic()
    rc, out, err = cli(fx, 'metadata_host = "127.0.0.1:%d"; metadata_timeout = 0.5;' % silent,
                       'resolve', on_gce=True)
    took = time.monotonic() - t0
    check('silent metadata server: declined after metadata_timeout',
          (rc, out, err, took < 3 * time_scale(valgrind=VALGRIND)),
          (1, '', 'cluster-resolver: no resolver applies here (declined: tpu)\n', True))


def test_coordinator(fx):
    rc, out, err = cli(fx, 'coordinator_name = "coordinator"; ', 'exec', '--', 'sh', '-c',
                       'echo "$CR_COORDINATOR_PORT"; echo "$TF_CONFIG"', on_gce=True,
                       env={'MEGASCALE_NUM_SLICES': '1', 'MEGASCALE_SLICE_ID': '0'})
    lines = out.split('\n')
    port = lines[0]
    ws = workers(gcp_tpu.slice_specs(QR)[1])
    want = {'cluster': {'worker': ws, 'coordinator': ['%s:%s' % (ws[1].split(':')[0], port)]},
            'task': {'type': 'worker', 'index': 1}, 'rpc_layer': 'grpc'}
    check('coordinator port reserved and exported', (rc, port.isdigit() and port != '0',
                                                     json.loads(lines[1]) if rc == 0 else None,
                                                     err), (0, True, want, ''))


def count_requests(fx):
    with open(os.path.join(fx.dir, 'requests.jsonl')) as f:
        return sum(1 for _ in f)


def test_tf_rules(fx):
    """TensorFlow's rules where the plugin differed (issue 27 section 2):
    an endpoint list makes no request, this host found among the endpoints
    by its own interface addresses; master with a task is that task, a
    task the cluster lacks is TF's error; --rpc-layer '' is the resolver's
    own layer (grpc), a task given or not."""
    eps = 'tpu = "grpc://10.0.0.1:8470,grpc://127.0.0.1:8470";'
    before = count_requests(fx)
    rc, out, err = cli(fx, eps, 'resolve', on_gce=True)
    check('endpoint list on GCE: this host by its interfaces, no request',
          (rc, out, err, count_requests(fx) - before),
          (0, '{"cluster": {"worker": ["10.0.0.1:8470", "127.0.0.1:8470"]}, "task": '
              '{"type": "worker", "index": 1}, "rpc_layer": "grpc"}\n', '', 0))
    eps = 'tpu = "grpc://10.0.0.1:8470,grpc://10.0.0.2:8470";'
    for args, want in (
            (['master'], (0, 'grpc://10.0.0.1:8470\n', '')),
            (['master', '--task-id', '1'], (0, 'grpc://10.0.0.2:8470\n', '')),
            (['master', '--task-type', 'worker', '--task-id', '1'],
             (0, 'grpc://10.0.0.2:8470\n', '')),
            (['master', '--task-id', '4'],
             (1, '', "cluster-resolver: warning: this process's task worker:4 is not in the "
                     "cluster\ncluster-resolver: No task with index 4 in job 'worker'\n")),
            (['master', '--task-type', 'worker', '--task-id', '0', '--rpc-layer', ''],
             (0, 'grpc://10.0.0.1:8470\n', '')),
            (['master', '--rpc-layer', ''], (0, 'grpc://10.0.0.1:8470\n', '')),
            (['master', '--task-type', 'worker', '--task-id', '1', '--rpc-layer', 'grpc+verbs'],
             (0, 'grpc+verbs://10.0.0.2:8470\n', ''))):
        before = count_requests(fx)
        rc, out, err = cli(fx, eps, *args)
        check('endpoint list: %s' % ' '.join(repr(a) if a == '' else a for a in args),
              (rc, out, err, count_requests(fx) - before), want + (0,))


def test_plugins_list():
    """Two plugins are called tpu: `plugins` tells them apart by kind and file."""
    out = subprocess.run(VALGRIND + [os.environ['CR_CLI'], 'plugins'], capture_output=True,
                         text=True, timeout=120).stdout
    rows = sorted(tuple(line.split()[i] for i in (1, 5)) for line in out.splitlines()
                  if line.startswith('tpu '))
    plugin_dir = os.environ['CR_PLUGIN_BUILD_DIR']
    check('plugins lists both tpu plugins with their kind', rows,
          [('accelerator', os.path.join(plugin_dir, 'accelerators/tpu.so')),
           ('resolver', os.path.join(plugin_dir, 'resolvers/tpu.so'))])
    out = subprocess.run(VALGRIND + [os.environ['CR_CLI'], 'plugins', '--json'],
                         capture_output=True, text=True, timeout=120).stdout
    kinds = sorted(p['kind'] for p in json.loads(out) if p.get('name') == 'tpu')
    check('plugins --json: both tpu plugins, by kind', kinds, ['accelerator', 'resolver'])


def gcloud(fx, *args):
    cfg = os.path.join(fx.dir, 'gcloud')
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'HOME': fx.dir,
           'CLOUDSDK_CONFIG': cfg, 'CLOUDSDK_CORE_DISABLE_PROMPTS': '1',
           'CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE': fx.ca,
           'CLOUDSDK_AUTH_ACCESS_TOKEN_FILE': fx.token,
           'CLOUDSDK_API_ENDPOINT_OVERRIDES_TPU': 'https://127.0.0.1:%d/' % fx.api,
           'CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK': '1',
           'CLOUDSDK_CORE_DISABLE_USAGE_REPORTING': '1',
           'GCE_METADATA_HOST': '127.0.0.1:%d' % fx.md}
    p = subprocess.run([GCLOUD] + list(args) + ['--project', PROJECT, '--format', 'json'],
                       capture_output=True, text=True, env=env, timeout=120)
    if p.returncode != 0:
        print('# gcloud %s: exit %d: %s' % (' '.join(args), p.returncode, p.stderr[-2000:]))
        return None
    return json.loads(p.stdout)


def plugin_facts(fx, extra, on_gce=False):
    rc, out, err = cli(fx, extra, 'explain', '--json', on_gce=on_gce)
    return json.loads(out)['resolvers'][0]['facts'] if out else {}


def test_gcloud(fx):
    """Four gcloud calls: the 64-host node, the legacy one (`compute tpus
    describe`, API v1), a CREATING one, the queued resource. gcloud and the
    plugin must agree."""
    for name in ('big', 'legacy', 'creating'):
        # A node with the legacy top-level address is a TPU Node, not a TPU
        # VM: gcloud reads it with `compute tpus describe` (API v1).
        group = ['tpus'] if name == 'legacy' else ['tpus', 'tpu-vm']
        g = gcloud(fx, 'compute', *group, 'describe', name, '--zone', ZONE)
        facts = plugin_facts(fx, node_cfg(name))
        if g is None:
            check('gcloud describe %s' % name, None, 'a node')
            continue
        eps = g.get('networkEndpoints') or ([{'ipAddress': g['ipAddress'], 'port': g['port']}]
                                            if 'ipAddress' in g else [])
        check('gcloud and the plugin agree on %s (%d endpoints, state %s)' %
              (name, len(eps), g.get('state')),
              (facts.get('state'), facts.get('endpoints'), facts.get('accelerator_type')),
              (g.get('state'), [{'ipAddress': e['ipAddress'], 'port': str(e['port'])}
                                for e in eps] if g.get('state') == 'READY' else None,
               g.get('acceleratorType')))
    g = gcloud(fx, 'compute', 'tpus', 'queued-resources', 'describe', 'qr', '--zone', ZONE)
    facts = plugin_facts(fx, 'queued_resource = "qr";', on_gce=True)
    ms = g['tpu']['nodeSpec'][0]['multisliceParams'] if g else {}
    parent = g['tpu']['nodeSpec'][0]['parent'] if g else ''
    check('gcloud and the plugin agree on the queued resource\'s slices',
          facts.get('slices'), ['%s/nodes/%s-%d' % (parent, ms.get('nodeIdPrefix'), i)
                                for i in range(int(ms.get('nodeCount', 0)))])
    check('the queued resource has 3 slices', len(facts.get('slices', [])), 3)


def main():
    ensure_hermetic()
    if not os.environ.get('CR_CLI'):
        print('SKIP: CR_CLI is not set (run through ctest)')
        return 77
    if VALGRIND and os.environ.get('CR_SANITIZE_BUILD') == '1':
        print('SKIP: sanitizer build (ASan/UBSan binaries cannot run under valgrind)')
        return 77
    if VALGRIND and not shutil.which('valgrind'):
        print('FAIL: valgrind is not installed (scripts/deps.sh installs it)')
        return 1
    if VALGRIND:
        os.environ['CLUSTER_RESOLVER_NO_DLCLOSE'] = '1'

    fx = Fixture()
    try:
        test_plugins_list()
        test_nodes(fx)
        test_explain(fx)
        test_faults(fx)
        test_tpu_vm(fx)
        test_devices_file(fx)
        test_silent_metadata(fx)
        test_coordinator(fx)
        test_tf_rules(fx)
        if VALGRIND:
            print('# under valgrind: gcloud is not run')
        elif os.path.exists(GCLOUD):
            test_gcloud(fx)
        else:
            print('# gcloud is not installed: the fixture is not proven here')
    finally:
        fx.close()
    print('%d failed' % len(FAILED) if FAILED else 'all passed')
    return 1 if FAILED else 0


if __name__ == '__main__':
    sys.exit(main())
