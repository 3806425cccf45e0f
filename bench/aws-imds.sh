#!/bin/bash
# IMDS benchmark: aws.so on an "EC2 instance" with no credentials in any
# file, getting its identity and credentials from the instance metadata
# service (tests/fixtures/aws/aws_meta_fixture.py, IMDSv2) and listing a
# small fleet (3 instances) from the EC2 fixture, against curl making the
# same calls the way AWS's documentation does them from a shell:
#   TOKEN=$(curl -X PUT .../latest/api/token -H "X-aws-ec2-metadata-token-ttl-seconds: 21600")
#   curl -H "X-aws-ec2-metadata-token: $TOKEN" .../meta-data/iam/security-credentials/
#   curl -H ... .../meta-data/iam/security-credentials/ROLE
#   curl -H ... .../meta-data/instance-id
#   curl --aws-sigv4 "aws:amz:us-west-2:ec2" -H "X-Amz-Security-Token: ..." -d Action=DescribeInstances...
# (target: plugin <= 1.5x curl). A second pair isolates IMDS: the plugin's
# extra time over the same resolve with environment credentials and IMDS
# off, against the four IMDS curls alone. Each is run RUNS times (default
# 20); medians. Runs in the loopback-only namespace (scripts/hermetic.sh).
#
#   bench/aws-imds.sh [BUILD_DIR]      env: CR_BENCH_RUNS=20
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
build=$(cd "${1:-$src/build}" && pwd)
cli="$build/bin/cluster-resolver"
[ -x "$cli" ] || { echo "no $cli: build first" >&2; exit 1; }
command -v curl > /dev/null || { echo "curl is not installed" >&2; exit 1; }
export CR_CLI="$cli" CR_TEST_SOURCE_DIR="$src" CR_BENCH_RUNS="${CR_BENCH_RUNS:-20}"
export CLUSTER_RESOLVER_PLUGIN_PATH="$build/lib/cluster-resolver/resolvers"

exec /usr/bin/python3 - << 'EOF'
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.environ['CR_TEST_SOURCE_DIR'], 'tests/integration/aws'))
import creds_harness as h  # noqa: E402

RUNS = int(os.environ['CR_BENCH_RUNS'])
CONF = '''resolvers = ( { plugin = "aws"; policy = "required"; port = 2222;
  endpoint = "@EP@"; jobs = { worker = ( { name = "tag:role"; values = [ "worker" ]; } ); }; } );
'''
TTL = 'X-aws-ec2-metadata-token-ttl-seconds: 21600'
BODY = ('Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3Arole&'
        'Filter.1.Value.1=worker&Filter.2.Name=instance-state-name&'
        'Filter.2.Value.1=running&MaxResults=1000')


def median(fn):
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    fx = h.Fixtures()
    try:
        conf = fx.write('bench.conf', CONF)
        env_imds = h.clean_env(fx)
        env_keys = h.clean_env(fx, {'AWS_ACCESS_KEY_ID': h.USER_AKID,
                                    'AWS_SECRET_ACCESS_KEY': h.USER_SECRET,
                                    'AWS_EC2_METADATA_DISABLED': 'true'})
        cmd = [os.environ['CR_CLI'], '--config', conf, 'resolve', '--format', 'json']

        def plugin(env):
            p = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if p.returncode != 0 or '10.0.1.12:2222' not in p.stdout:
                sys.exit('plugin failed: %s' % p.stderr)

        def curl(*args, env=env_imds):
            p = subprocess.run(['curl', '-sS', '--fail'] + list(args), env=env,
                               capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit('curl %s failed: %s' % (args[-1], p.stderr))
            return p.stdout

        def curl_imds():
            tok = curl('-X', 'PUT', '-H', TTL, fx.imds + 'latest/api/token')
            hdr = 'X-aws-ec2-metadata-token: ' + tok
            base = fx.imds + 'latest/meta-data/'
            role = curl('-H', hdr, base + 'iam/security-credentials/')
            doc = curl('-H', hdr, base + 'iam/security-credentials/' + role)
            curl('-H', hdr, base + 'instance-id')
            return doc

        def curl_all():
            import json
            doc = json.loads(curl_imds())
            out = curl('--cacert', fx.ca, '--aws-sigv4', 'aws:amz:us-west-2:ec2', '--user',
                       '%s:%s' % (doc['AccessKeyId'], doc['SecretAccessKey']), '-H',
                       'X-Amz-Security-Token: ' + doc['Token'], '-H',
                       'Content-Type: application/x-www-form-urlencoded; charset=utf-8',
                       '-d', BODY, fx.endpoint + '/')
            if '10.0.1.12' not in out:
                sys.exit('curl DescribeInstances: no instances')

        plugin(env_imds)
        curl_all()
        t_plugin = median(lambda: plugin(env_imds))
        t_curl = median(curl_all)
        t_keys = median(lambda: plugin(env_keys))
        t_imds = median(curl_imds)
        print('runs: %d (medians)' % RUNS)
        print('resolve, IMDS credentials + identity: plugin %.1f ms, curl (5 calls) %.1f ms: '
              '%.2fx (target <= 1.5x)' % (t_plugin * 1e3, t_curl * 1e3, t_plugin / t_curl))
        print('IMDS part: plugin %.1f ms (%.1f - %.1f ms with env keys), curl (4 calls) '
              '%.1f ms: %.2fx' % ((t_plugin - t_keys) * 1e3, t_plugin * 1e3, t_keys * 1e3,
                                  t_imds * 1e3, (t_plugin - t_keys) / t_imds))
        return 0 if t_plugin <= 1.5 * t_curl else 1
    finally:
        fx.stop()


sys.exit(main())
EOF
