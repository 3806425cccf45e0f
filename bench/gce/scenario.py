#!/usr/bin/python3
"""scenario.py N OUT.json TOKEN - a GCP fixture scenario for bench/gce.sh: one
zonal managed instance group `trainers` of N RUNNING members in us-central1-a
(names as a MIG makes them: trainers-XXXX with a random suffix, listed in the
API's order, not by name), this VM being one of them."""
import json
import random
import sys

n, out, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rng = random.Random(n)
alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
names = set()
while len(names) < n:
    names.add('trainers-' + ''.join(rng.choice(alphabet) for _ in range(4)))
names = sorted(names)
rng.shuffle(names)
insts = [{'name': name, 'zone': 'us-central1-a',
          'networkIP': '10.%d.%d.%d' % (128 + i // 62500, i // 250 % 250, i % 250 + 2),
          'natIP': '34.%d.%d.%d' % (64 + i // 62500, i // 250 % 250, i % 250 + 2),
          'created_by': 'projects/123456789012/zones/us-central1-a/instanceGroupManagers/'
                        'trainers'} for i, name in enumerate(names)]
num = '123456789012'
meta = {'instance': {'name': names[0], 'zone': 'projects/%s/zones/us-central1-a' % num,
                     'attributes': {'created-by': 'projects/%s/zones/us-central1-a/'
                                                  'instanceGroupManagers/trainers' % num}},
        'project': {'project-id': 'proj-1', 'numeric-project-id': int(num)},
        'universe': {'universe-domain': 'googleapis.com'}}
scenario = {'metadata': meta,
            'compute': {'project': 'proj-1', 'instances': insts,
                        'groups': [{'name': 'trainers', 'zone': 'us-central1-a',
                                    'members': names}]},
            'tokens': {'static': [token]}}
with open(out, 'w') as f:
    json.dump(scenario, f)
