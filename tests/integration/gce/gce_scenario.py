"""The scenario the gce tests serve (tests/fixtures/gcp/gcp_fixture.py format).

Project proj-1 (number 123456789012). This VM is w-4 in us-central1-a.
  trainers    zonal, us-central1-a: w-0..w-11 RUNNING (listed out of order,
              internal IPs permuted so address, name and string orders differ)
              and w-12 TERMINATED; named ports grpc=2222, http=80
  trainers-r  regional, us-central1: r-0 (a), r-1 (b), r-2 (c), r-3 (b)
  noext       zonal: x-0 without an external address
  empty       zonal, no members
  big         zonal, us-central1-f: big-node-0000..big-node-1202 (paging, chunks)
"""

NUM = '123456789012'
IPS = [7, 12, 3, 10, 2, 11, 4, 9, 13, 5, 8, 6]
ORDER = [5, 0, 11, 3, 8, 1, 10, 4, 7, 2, 9, 6]   # listInstances order of w-*
BIG = 1203


def ip(i):
    return '10.128.0.%d' % IPS[i]


def scenario():
    inst = []
    for i in range(12):
        inst.append({'name': 'w-%d' % i, 'zone': 'us-central1-a', 'networkIP': ip(i),
                     'natIP': '34.66.%d.%d' % (i, 200 - i),
                     'ipv6Address': 'fd20:9c0:1c8a:2000:0:%x::' % (i + 1),
                     'created_by': 'projects/%s/zones/us-central1-a/instanceGroupManagers/'
                                   'trainers' % NUM})
    inst.append({'name': 'w-12', 'zone': 'us-central1-a', 'networkIP': '10.128.0.99',
                 'status': 'TERMINATED'})
    for i, z in enumerate('abcb'):
        inst.append({'name': 'r-%d' % i, 'zone': 'us-central1-' + z,
                     'networkIP': '10.130.%d.%d' % (i, 10 - i)})
    inst.append({'name': 'x-0', 'zone': 'us-central1-a', 'networkIP': '10.128.1.1'})
    for i in range(BIG):
        inst.append({'name': 'big-node-%04d' % i, 'zone': 'us-central1-f',
                     'networkIP': '10.140.%d.%d' % (i // 250, i % 250 + 2)})
    groups = [
        {'name': 'trainers', 'zone': 'us-central1-a',
         'members': ['w-%d' % i for i in ORDER] + ['w-12'],
         'namedPorts': [{'name': 'grpc', 'port': 2222}, {'name': 'http', 'port': 80}]},
        {'name': 'trainers-r', 'region': 'us-central1',
         'members': ['r-3', 'r-0', 'r-2', 'r-1']},
        {'name': 'noext', 'zone': 'us-central1-a', 'members': ['x-0']},
        {'name': 'empty', 'zone': 'us-central1-a', 'members': []},
        {'name': 'big', 'zone': 'us-central1-f',
         'members': ['big-node-%04d' % i for i in range(BIG)]},
    ]
    sa = NUM + '-compute@developer.gserviceaccount.com'
    account = {'aliases': 'default', 'email': sa,
               'scopes': 'https://www.googleapis.com/auth/cloud-platform\n'}
    metadata = {
        'instance': {
            'attributes': {'created-by': 'projects/%s/zones/us-central1-a/'
                                         'instanceGroupManagers/trainers' % NUM,
                           'instance-template': 'projects/%s/global/instanceTemplates/tmpl'
                                                % NUM},
            'hostname': 'w-4.us-central1-a.c.proj-1.internal',
            'id': 4500000000000000004,
            'machine-type': 'projects/%s/machineTypes/n2-standard-8' % NUM,
            'name': 'w-4',
            'network-interfaces': {'0': {'ip': ip(4), 'network': 'projects/%s/networks/default'
                                         % NUM}},
            'service-accounts': {'default': account, sa: account},
            'zone': 'projects/%s/zones/us-central1-a' % NUM,
        },
        'project': {'numeric-project-id': int(NUM), 'project-id': 'proj-1',
                    'attributes': {}},
        'universe': {'universe-domain': 'googleapis.com'},
    }
    return {'metadata': metadata,
            'compute': {'project': 'proj-1', 'instances': inst, 'groups': groups},
            'tokens': {'static': [], 'lifetime': 3600}}
