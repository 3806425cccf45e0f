"""boto3_list.py - list instances with boto3's DescribeInstances paginator
(PageSize 5) for each case on stdin (JSON: [[name, filters], ...]) and print
JSON {name: [instance, ...]} with the fields test_clients.py compares. Run by
each python that has boto3 (pip 1.43 under pyenv, Debian's 1.26)."""
import json
import os
import sys

import boto3


def main():
    cases = json.load(sys.stdin)
    ec2 = boto3.client('ec2', region_name='us-east-1', endpoint_url=os.environ['FIXTURE_URL'],
                       verify=os.environ['AWS_CA_BUNDLE'])
    out = {'version': boto3.__version__, 'cases': {}}
    for name, filters in cases:
        insts = []
        pages = ec2.get_paginator('describe_instances').paginate(
            Filters=filters, PaginationConfig={'PageSize': 5})
        for page in pages:
            for res in page['Reservations']:
                insts.extend(res['Instances'])
        out['cases'][name] = insts
    json.dump(out, sys.stdout, default=str)


if __name__ == '__main__':
    main()
