"""The cases of test_gce.py: config, environment, faults -> exact output.

The scenario is gce_scenario.py. @API@, @META@, @SILENT@, @DIR@, @ROOT@,
@OFFROOT@ and @PLUGIN@ stand for the fixture's ports, directory, fake roots
(DMI Google / not Google) and the plugin's path. `requests` lists
(method, last path segment, query keys) of the Compute requests a case made;
`took` bounds its wall time in seconds; `vg` cases also run under valgrind
(gce-valgrind).
"""
import gce_scenario as s

COMPUTE = 'https://127.0.0.1:@API@/compute/v1/'
BASE = COMPUTE + 'projects/proj-1/zones/us-central1-a/'
ERR = "cluster-resolver: resolver 'gce': "
WARN = "cluster-resolver: warning: resolver 'gce': "
CREATE = "cluster-resolver: resolver 'gce' (@PLUGIN@): create failed: @DIR@/case.conf:1: "
TOKEN = 'access_token_file = "@DIR@/token"; '


def conf(opts, group='trainers', port=2222, creds=TOKEN, root='@ROOT@'):
    g = 'instance_group = "%s"; ' % group if group else ''
    p = 'port = %d; ' % port if port else ''
    return ('resolvers = ( { plugin = "gce"; policy = "required"; %s%s%sroot = "%s"; '
            'ca_file = "@DIR@/ca.crt"; compute_endpoint = "%s"; %s } );\n'
            'accelerators = ( );\n' % (g, p, creds, root, COMPUTE, opts))


def out(addrs, task=None, job='worker', rpc='grpc', master=None):
    cluster = '{"%s": [%s]}' % (job, ', '.join('"%s"' % a for a in addrs))
    t = '"task": {"type": "%s", "index": %d}, ' % (job, task) if task is not None else ''
    r = '"rpc_layer": "%s", ' % rpc if rpc else ''
    if master is None:
        master = ('%s://%s' % (rpc, addrs[task]) if rpc else addrs[task]) if task is not None \
            else ''
    return '{"cluster": %s, %s%s"master": "%s", "num_accelerators": {}}' % (cluster, t, r,
                                                                          master)


def ipnum(a):
    return tuple(int(x) for x in a.split('.'))


W = [s.ip(i) for i in range(12)]
BY_ADDR = sorted(W, key=ipnum)
ZONAL = out(['%s:2222' % a for a in BY_ADDR], BY_ADDR.index(s.ip(4)))
BY_NAME = out(['%s:2222' % a for a in W], 4)
BY_STRING = sorted('%s:2222' % a for a in W)
NAT = sorted(('34.66.%d.%d' % (i, 200 - i) for i in range(12)), key=ipnum)
V6 = ['[fd20:9c0:1c8a:2000:0:%x::]:2222' % (i + 1) for i in range(12)]
REGIONAL = ['10.130.0.10:2222', '10.130.1.9:2222', '10.130.2.8:2222', '10.130.3.7:2222']
BIG = sorted(('10.140.%d.%d' % (i // 250, i % 250 + 2) for i in range(s.BIG)), key=ipnum)
LIST = ('POST', 'listInstances', ['maxResults', 'fields'])
LIST_NEXT = ('POST', 'listInstances', ['maxResults', 'fields', 'pageToken'])
ADDR = ('GET', 'instances', ['filter', 'fields', 'maxResults'])
ADDR_NEXT = ('GET', 'instances', ['filter', 'fields', 'maxResults', 'pageToken'])
ADDR5 = [ADDR, ADDR_NEXT, ADDR_NEXT]   # 12 names, 5 a page
LISTMSG = 'POST ' + BASE + 'instanceGroups/trainers/listInstances: '
SCOPES = 'Request had insufficient authentication scopes.'
UNAUTH = ('Request had invalid authentication credentials. Expected OAuth 2 access token, '
          'login cookie or other valid authentication credential. See '
          'https://developers.google.com/identity/sign-in/web/devconsole-project.')
GAC = {'GOOGLE_APPLICATION_CREDENTIALS': '@DIR@/sa.json'}
NOT_MEMBER = WARN + ('this VM (w-4) is not a RUNNING member of instance group %s: identity '
                     'unknown (set task_id)')

CASES = [
    # -- where the group is, the order, the address
    {'name': 'zonal, numeric address order, this VM from metadata', 'vg': True,
     'conf': conf('zone = "us-central1-a"; project = "proj-1";'), 'out': ZONAL,
     'requests': [LIST, ADDR]},
    {'name': 'project and zone from metadata', 'conf': conf(''), 'out': ZONAL},
    {'name': 'instance_group auto: created-by', 'conf': conf('', group='auto'), 'out': ZONAL},
    {'name': 'order name: digit runs as numbers', 'conf': conf('order = "name";'),
     'out': BY_NAME},
    {'name': 'order string: TensorFlow\'s sort',
     'conf': conf('order = "string";'), 'out': out(BY_STRING, BY_STRING.index(s.ip(4) + ':2222'))},
    {'name': 'address external', 'conf': conf('address = "external";'),
     'out': out(['%s:2222' % a for a in NAT], NAT.index('34.66.4.196'))},
    {'name': 'address ipv6 in brackets', 'conf': conf('address = "ipv6";'), 'out': out(V6, 4)},
    {'name': 'no external address', 'conf': conf('address = "external";', group='noext'),
     'rc': 1, 'err': ERR + 'instance x-0 (zone us-central1-a) has no external address '
                           '(networkInterfaces[0].accessConfigs[0].natIP)'},
    {'name': 'regional group, members in three zones, task_id', 'vg': True,
     'conf': conf('region = "us-central1"; task_id = 2;', group='trainers-r'),
     'out': out(REGIONAL, 2),
     'requests': [LIST, ADDR, ADDR, ADDR]},
    {'name': 'regional group, this VM not a member',
     'conf': conf('region = "us-central1";', group='trainers-r'), 'out': out(REGIONAL),
     'err': NOT_MEMBER % 'trainers-r'},
    {'name': 'empty group: a page without items', 'conf': conf('', group='empty'),
     'out': out([]), 'err': NOT_MEMBER % 'empty', 'requests': [LIST]},
    {'name': 'task_type "" and rpc_layer ""', 'conf': conf('task_type = ""; rpc_layer = "";'),
     'out': out(['%s:2222' % a for a in BY_ADDR], 0, job='', rpc='')},
    {'name': '--rpc-layer wins over rpc_layer', 'conf': conf('rpc_layer = "grpc";'),
     'args': ['--rpc-layer', 'grpc+verbs', 'resolve', '--format', 'json'],
     'out': out(['%s:2222' % a for a in BY_ADDR], 0, rpc='grpc+verbs')},
    # TensorFlow's `rpc_layer or self._rpc_layer`: '' is the resolver's own
    # layer, a task given or not (issue 27 section 2); a task given is that
    # task, and one the group lacks is TF's error.
    {'name': "master --rpc-layer '' with a task: the own layer", 'conf': conf('task_id = 0;'),
     'args': ['master', '--task-type', 'worker', '--task-id', '2', '--rpc-layer', ''],
     'out': 'grpc://%s:2222' % BY_ADDR[2]},
    {'name': "master --rpc-layer '': the own layer", 'conf': conf('task_id = 1;'),
     'args': ['master', '--rpc-layer', ''], 'out': 'grpc://%s:2222' % BY_ADDR[1]},
    {'name': 'master --task-id 3: that task', 'conf': conf('task_id = 0;'),
     'args': ['master', '--task-id', '3'], 'out': 'grpc://%s:2222' % BY_ADDR[3]},
    {'name': 'master --task-id 99: no such task', 'conf': conf('task_id = 0;'),
     'args': ['master', '--task-id', '99'], 'rc': 1,
     'err': "cluster-resolver: warning: this process's task worker:99 is not in the cluster\n"
            "cluster-resolver: No task with index 99 in job 'worker'"},
    {'name': 'task_id fixes the identity', 'conf': conf('task_id = 7;'),
     'out': out(['%s:2222' % a for a in BY_ADDR], 7)},
    {'name': 'named port', 'conf': conf('port_name = "grpc";', port=0), 'out': ZONAL,
     'requests': [('GET', 'trainers', ['fields']), LIST, ADDR]},
    {'name': 'unknown named port', 'vg': True, 'conf': conf('port_name = "nccl";', port=0), 'rc': 1,
     'err': ERR + 'instance group trainers has no named port "nccl" (named ports: grpc, http)'},
    {'name': 'paged: page_size 5', 'conf': conf('page_size = 5;'), 'out': ZONAL,
     'requests': [LIST, LIST_NEXT, LIST_NEXT] + ADDR5},
    {'name': 'item-less page in the middle', 'vg': True, 'conf': conf('page_size = 5;'), 'out': ZONAL,
     'faults': [{'path': 'listInstances', 'query_has': 'pageToken', 'itemless': True}],
     'requests': [LIST, LIST_NEXT, LIST_NEXT, LIST_NEXT] + ADDR5},
    {'name': '1203 members: 3 pages, names chunked under 8 KiB URLs', 'vg': True, 'conf': conf(
        'task_id = 0;', group='big', creds=TOKEN + 'zone = "us-central1-f";'),
     'out': out(['%s:2222' % a for a in BIG], 0),
     'requests': [LIST, LIST_NEXT, LIST_NEXT, ADDR, ADDR, ADDR]},
    {'name': 'min_instances met', 'conf': conf('min_instances = 12;'), 'out': ZONAL},
    {'name': 'min_instances not met within wait_timeout',
     'conf': conf('min_instances = 13; wait_timeout = 0.3; wait_interval = 0.1;'), 'rc': 1,
     'err': ERR + 'instance group trainers (zones/us-central1-a): 12 RUNNING instances, fewer '
                  'than min_instances 13 after wait_timeout 0.3 s'},
    {'name': 'member gone between the calls: listed again', 'vg': True,
     'conf': conf(''), 'out': ZONAL,
     'faults': [{'path': 'listInstances', 'extra_members': ['w-gone']}],
     'requests': [LIST, ADDR, LIST, ADDR]},
    {'name': 'member gone for good: named', 'vg': True,
     'conf': conf(''), 'rc': 1,
     'faults': [{'path': 'listInstances', 'extra_members': ['w-gone'], 'count': -1}],
     'err': ERR + 'instance group trainers lists w-gone (zone us-central1-a), but '
                  'instances.list does not find it (deleted?)'},
    {'name': 'project not found', 'conf': conf('project = "nope";'), 'rc': 1,
     'err': ERR + 'POST ' + COMPUTE + 'projects/nope/zones/us-central1-a/instanceGroups/'
                  'trainers/listInstances: HTTP 404: The resource \'projects/nope\' was not '
                  'found'},

    # -- credentials
    {'name': 'service account: RS256 JWT grant', 'vg': True, 'conf': conf('', creds=''), 'env': GAC,
     'out': ZONAL, 'tokens': ['urn:ietf:params:oauth:grant-type:jwt-bearer']},
    {'name': 'service account with a key the project does not know', 'vg': True,
     'conf': conf('', creds=''), 'env': {'GOOGLE_APPLICATION_CREDENTIALS': '@DIR@/sa-bad.json'},
     'rc': 1, 'err': ERR + 'POST https://127.0.0.1:@API@/token: HTTP 400: invalid_grant: Invalid '
                           'JWT Signature. (service_account GOOGLE_APPLICATION_CREDENTIALS '
                           '@DIR@/sa-bad.json)'},
    {'name': 'authorized_user: refresh grant', 'vg': True, 'conf': conf('', creds=''),
     'env': {'GOOGLE_APPLICATION_CREDENTIALS': '@DIR@/user.json'}, 'out': ZONAL,
     'tokens': ['refresh_token']},
    {'name': 'gcloud application default credentials file', 'conf': conf('', creds=''),
     'env': {'HOME': '@DIR@/adchome'}, 'out': ZONAL, 'tokens': ['refresh_token']},
    {'name': 'external_account refused by name', 'vg': True, 'conf': conf('', creds=''),
     'env': {'GOOGLE_APPLICATION_CREDENTIALS': '@DIR@/external.json'}, 'rc': 1,
     'err': ERR + 'GOOGLE_APPLICATION_CREDENTIALS @DIR@/external.json: credential type '
                  '"external_account" is not supported (service_account or authorized_user)'},
    {'name': 'missing credentials file', 'conf': conf('', creds=''),
     'env': {'GOOGLE_APPLICATION_CREDENTIALS': '@DIR@/nope.json'}, 'rc': 1,
     'err': ERR + 'GOOGLE_APPLICATION_CREDENTIALS @DIR@/nope.json: no such file'},
    {'name': 'metadata service-account token', 'vg': True, 'conf': conf('', creds=''), 'out': ZONAL,
     'meta_token': True},
    {'name': 'token expiry mid-list: a new token, the list goes on', 'vg': True,
     'conf': conf('page_size = 5;', creds=''), 'env': GAC, 'out': ZONAL,
     'faults': [{'path': 'listInstances', 'query_has': 'pageToken', 'expire_tokens': True}],
     'tokens': ['urn:ietf:params:oauth:grant-type:jwt-bearer'] * 2,
     'requests': [LIST, LIST_NEXT, LIST_NEXT, LIST_NEXT] + ADDR5},
    {'name': 'token file refused: read again once, then the 401 is named',
     'conf': conf('', creds='access_token_file = "@DIR@/stale";'), 'rc': 1,
     'err': ERR + LISTMSG + 'HTTP 401: ' + UNAUTH, 'requests': [LIST, LIST]},

    # -- faults
    {'name': '429 with Retry-After: 1', 'conf': conf(''), 'out': ZONAL,
     'faults': [{'path': 'listInstances', 'status': 429, 'retry_after': 1}],
     'requests': [LIST, LIST, ADDR], 'took': (1.0, 10)},
    {'name': 'huge Retry-After saturates at max_retry_wait', 'conf': conf('max_retry_wait = 0.2;'),
     'out': ZONAL, 'faults': [{'path': 'listInstances', 'status': 429,
                               'retry_after': '99999999999999999999999'}],
     'requests': [LIST, LIST, ADDR], 'took': (0.2, 5)},
    {'name': '503 twice, then the answer', 'conf': conf('max_retry_wait = 0.1;'), 'out': ZONAL,
     'faults': [{'path': '/instances', 'status': 503, 'count': 2}],
     'requests': [LIST, ADDR, ADDR, ADDR]},
    {'name': '403 rateLimitExceeded is retried', 'conf': conf('max_retry_wait = 0.1;'),
     'out': ZONAL, 'faults': [{'path': 'listInstances', 'status': 403,
                               'reason': 'rateLimitExceeded',
                               'message': 'Rate Limit Exceeded'}],
     'requests': [LIST, LIST, ADDR]},
    {'name': '429 until the retries run out', 'vg': True, 'conf': conf('retries = 2; max_retry_wait = 0.1;'),
     'rc': 1, 'faults': [{'path': 'listInstances', 'status': 429, 'count': -1,
                          'message': 'Quota exceeded for quota metric \'Read requests\''}],
     'err': ERR + LISTMSG + 'HTTP 429: Quota exceeded for quota metric \'Read requests\' '
                            '(after 3 attempts)', 'requests': [LIST, LIST, LIST]},
    {'name': '403 insufficient scopes: not retried', 'conf': conf(''), 'rc': 1,
     'faults': [{'path': 'listInstances', 'status': 403, 'reason': 'insufficientPermissions',
                 'message': SCOPES, 'count': -1}],
     'err': ERR + LISTMSG + 'HTTP 403: ' + SCOPES, 'requests': [LIST]},
    {'name': 'truncated answer: tried again', 'vg': True, 'conf': conf('max_retry_wait = 0.1;'),
     'out': ZONAL, 'faults': [{'path': '/instances', 'truncate': True}],
     'requests': [LIST, ADDR, ADDR]},
    {'name': 'slow answer past request_timeout', 'conf': conf('request_timeout = 0.5; retries = 0;'),
     'rc': 1, 'faults': [{'path': 'listInstances', 'delay': 2}],
     'err': ERR + LISTMSG + 'no answer within request_timeout 0.5 s', 'took': (0.4, 3)},

    # -- the metadata server
    {'name': 'silent metadata server: fails after metadata_timeout', 'vg': True,
     'conf': conf('metadata_timeout = 1;'), 'env': {'GCE_METADATA_HOST': '127.0.0.1:@SILENT@'},
     'rc': 1, 'took': (0.9, 4),
     'err': ERR + 'project (metadata project/project-id): GET http://127.0.0.1:@SILENT@/'
                  'computeMetadata/v1/project/project-id: no answer from the metadata server '
                  'within metadata_timeout 1.0 s (1 try)'},
    {'name': 'default metadata address: unreachable in the loopback-only namespace, fast',
     'conf': conf(''), 'env': {'GCE_METADATA_HOST': None}, 'rc': 1, 'took': (0, 3),
     'err': ERR + 'project (metadata project/project-id): GET http://169.254.169.254/'
                  'computeMetadata/v1/project/project-id: Failed to connect to 169.254.169.254 '
                  'port 80 after 0 ms: Couldn\'t connect to server'},
    {'name': 'metadata_host option wins over GCE_METADATA_HOST',
     'conf': conf('metadata_host = "127.0.0.1:@META@";'),
     'env': {'GCE_METADATA_HOST': '127.0.0.1:@SILENT@'}, 'out': ZONAL},
    {'name': 'GCE_METADATA_IP', 'conf': conf(''),
     'env': {'GCE_METADATA_HOST': None, 'GCE_METADATA_IP': '127.0.0.1:@META@'}, 'out': ZONAL},
    {'name': 'an answer without Metadata-Flavor is refused', 'conf': conf(''), 'rc': 1,
     'faults': [{'server': 'metadata', 'no_flavor': True}],
     'err': ERR + 'project (metadata project/project-id): GET http://127.0.0.1:@META@/'
                  'computeMetadata/v1/project/project-id: HTTP 200 without Metadata-Flavor: '
                  'Google: not a metadata server'},
    {'name': 'created-by absent: instance_group auto fails', 'conf': conf('', group='auto'),
     'faults': [{'server': 'metadata', 'path': 'created-by', 'status': 404}], 'rc': 1,
     'err': ERR + 'instance_group = "auto" (metadata instance/attributes/created-by): GET '
                  'http://127.0.0.1:@META@/computeMetadata/v1/instance/attributes/created-by: '
                  'HTTP 404: no such key'},

    # -- declining, off GCE
    {'name': 'no instance_group: declined', 'conf': conf('', group=None, port=0), 'rc': 1,
     'err': 'cluster-resolver: no resolver applies here (declined: gce)'},
    {'name': 'off GCE without project and zone: declined', 'vg': True, 'conf': conf('', root='@OFFROOT@'),
     'rc': 1, 'err': 'cluster-resolver: no resolver applies here (declined: gce)',
     'requests': []},
    {'name': 'off GCE with project and zone: no metadata, identity by local address',
     'conf': conf('project = "proj-1"; zone = "us-central1-a";', root='@OFFROOT@'),
     'env': {'GCE_METADATA_HOST': None},
     'out': out(['%s:2222' % a for a in BY_ADDR]),
     'err': WARN + 'this VM (no metadata; none of its addresses is a member\'s) is not a RUNNING '
                   'member of instance group trainers: identity unknown (set task_id)'},

    # -- configuration errors
    {'name': 'zone with region', 'vg': True, 'conf': conf('zone = "a"; region = "b";'), 'rc': 2,
     'err': CREATE + 'zone and region are exclusive (a group is zonal or regional)'},
    {'name': 'no port', 'conf': conf('', port=0), 'rc': 2,
     'err': CREATE + 'instance_group needs port or port_name'},
    {'name': 'unknown address', 'conf': conf('address = "public";'), 'rc': 2,
     'err': CREATE + 'address "public" is not one of internal, external or ipv6'},
    {'name': 'unknown order', 'conf': conf('order = "random";'), 'rc': 2,
     'err': CREATE + 'order "random" is not one of address, name or string'},
]
