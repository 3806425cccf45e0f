#!/bin/bash
# EC2 benchmark: aws.so resolving N running instances tagged role=worker
# (10,000 and 100,000; full EC2 instance descriptions, about 3.7 MB of XML a
# page of 1,000) from the HTTPS fixture (tests/fixtures/aws), against
#   - curl --aws-sigv4 "aws:amz:us-east-1:ec2" posting exactly the same pages
#     (one curl process, one kept-alive connection; target: plugin <= 1.5x),
#   - the aws CLI v1 (pip), the aws CLI v2 (Debian) and boto3's paginator
#     with the same filters and pages of 1,000 (target: plugin >= 10x
#     faster). They need minutes at 100,000 instances, so by default they
#     run at 10,000 only (CR_AWS_CLIENT_SIZES), once each.
# Plugin and curl run RUNS times (default 3): median wall time; the plugin's
# peak RSS at both sizes (target: 100,000 <= 1.1x 10,000). Runs in the
# loopback-only namespace (scripts/hermetic.sh).
#
#   bench/aws.sh [BUILD_DIR]   env: CR_AWS_SIZES="10000 100000" CR_BENCH_RUNS=3
#                                   CR_AWS_CLIENT_SIZES="10000" ("" skips them)
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
build=$(cd "${1:-$src/build}" && pwd)
cli="$build/bin/cluster-resolver"
sizes=${CR_AWS_SIZES:-10000 100000}
client_sizes=${CR_AWS_CLIENT_SIZES-10000}
runs=${CR_BENCH_RUNS:-3}
[ -x "$cli" ] || { echo "no $cli: build first" >&2; exit 1; }
command -v curl > /dev/null || { echo "curl is not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed (Debian: time)" >&2; exit 1; }
export CLUSTER_RESOLVER_PLUGIN_PATH="$build/lib/cluster-resolver/resolvers"
export CLUSTER_RESOLVER_CONFIG=
akid=AKIABENCH0000000000X
secret=benchSecret/0123456789abcdefghijklmnop
tmp=$(mktemp -d)
export HOME="$tmp" AWS_ACCESS_KEY_ID="$akid" AWS_SECRET_ACCESS_KEY="$secret"
export AWS_EC2_METADATA_DISABLED=true AWS_CONFIG_FILE="$tmp/none" AWS_SHARED_CREDENTIALS_FILE="$tmp/none"
export AWS_PAGER=
fixture_pid=
cleanup() {
	[ -n "$fixture_pid" ] && kill "$fixture_pid" 2> /dev/null && wait "$fixture_pid" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# time_runs NAME N CMD...: N timed runs; prints "median_seconds max_rss_kb"
time_runs() {
	local name=$1 count=$2
	shift 2
	for _ in $(seq "$count"); do
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
		cat "$tmp/t"
	done | sort -n | awk '{ t[NR] = $1; if ($2 > m) m = $2 } END { print t[int((NR + 1) / 2)], m }'
}

# client_run NAME N CMD...: one timed run that must list N instances
client_run() {
	local name=$1 n=$2
	shift 2
	read -r t _ < <(time_runs "$name" 1 "$@")
	[ "$(tr -d '[:space:]' < "$tmp/$name.out")" = "$n" ] ||
		{ echo "$name listed $(cat "$tmp/$name.out"), want $n" >&2; exit 1; }
	echo "$t"
}

filters=(--filters Name=tag:role,Values=worker Name=instance-state-name,Values=running)
results=()
for n in $sizes; do
	d="$tmp/fx-$n"
	mkdir -p "$d"
	/usr/bin/python3 "$src/tests/fixtures/aws/aws_fixture.py" --dir "$d" --generate "$n:worker" \
		--key "$akid:$secret" --token-ttl 3600 > "$tmp/fixture.log" 2>&1 &
	fixture_pid=$!
	for _ in $(seq 600); do [ -f "$d/port" ] && break; sleep 0.1; done
	[ -f "$d/port" ] || { echo "fixture did not start" >&2; cat "$tmp/fixture.log" >&2; exit 1; }
	port=$(cat "$d/port")
	url="https://127.0.0.1:$port"
	cat > "$tmp/aws.conf" <<-EOF
		resolvers = ( { plugin = "aws"; port = 2222; region = "us-east-1"; endpoint = "$url";
		  ca_file = "$d/ca.crt"; page_size = 1000;
		  jobs = { worker = ( { name = "tag:role"; values = [ "worker" ]; } ); }; } );
	EOF
	/usr/bin/python3 "$src/bench/aws/pages.py" "$d" "$port" "$akid" "$secret" 1000 > "$tmp/curl.cfg"
	pages=$(grep -c '^url' "$tmp/curl.cfg")

	# everything must work (and warm the fixture's caches) before timing
	"$cli" --config "$tmp/aws.conf" resolve --format json > "$tmp/warm.json" 2> /dev/null
	got=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cluster"]["worker"]))' "$tmp/warm.json")
	[ "$got" = "$n" ] || { echo "plugin resolved $got tasks, want $n" >&2; exit 1; }
	curl -K "$tmp/curl.cfg"

	read -r p_t p_m < <(time_runs plugin "$runs" "$cli" --config "$tmp/aws.conf" resolve --format json)
	read -r c_t _ < <(time_runs curl "$runs" curl -K "$tmp/curl.cfg")
	v1=nan v2=nan b3=nan
	if [[ " $client_sizes " == *" $n "* ]]; then
		export AWS_CA_BUNDLE="$d/ca.crt"
		# the CLI applies --query to each page: count the ids it prints
		args="ec2 describe-instances ${filters[*]} --page-size 1000 --endpoint-url $url"
		args="$args --region us-east-1 --query Reservations[].Instances[].InstanceId --output text"
		v1=$(client_run cli-v1 "$n" sh -c "/root/.pyenv/versions/3.11.7/bin/aws $args | wc -w")
		v2=$(client_run cli-v2 "$n" sh -c "/usr/bin/aws $args | wc -w")
		b3=$(client_run boto3 "$n" /root/.pyenv/versions/3.11.7/bin/python3 -c '
import sys, boto3
ec2 = boto3.client("ec2", region_name="us-east-1", endpoint_url=sys.argv[1], verify=sys.argv[2])
f = [{"Name": "tag:role", "Values": ["worker"]}, {"Name": "instance-state-name", "Values": ["running"]}]
print(sum(len(r["Instances"]) for p in ec2.get_paginator("describe_instances").paginate(
    Filters=f, PaginationConfig={"PageSize": 1000}) for r in p["Reservations"]))' "$url" "$d/ca.crt")
		unset AWS_CA_BUNDLE
	fi
	results+=("$n $pages $p_t $p_m $c_t $v1 $v2 $b3")
	kill "$fixture_pid"
	wait "$fixture_pid" 2> /dev/null || true
	fixture_pid=
done

printf '%s\n' "${results[@]}" | /usr/bin/python3 -c '
import sys
print("aws benchmark: resolve N running instances from the EC2 fixture, pages of 1,000, median of '"$runs"' runs (clients: 1 run)")
print("%7s %5s | %8s %10s | %7s %8s | %9s %9s %9s" % ("inst", "pages", "plugin s", "peak RSS",
      "curl s", "vs curl", "CLI v1", "CLI v2", "boto3"))
rss = {}
for line in sys.stdin:
    n, pages, pt, pm, ct, v1, v2, b3 = line.split()
    pt, ct = float(pt), float(ct)
    rss[int(n)] = int(pm)
    def vs(x):
        x = float(x)
        return "%8.1fx" % (x / pt) if x == x else "%9s" % "not run"
    print("%7s %5s | %8.2f %6.1f MiB | %7.2f %7.2fx | %s %s %s" %
          (n, pages, pt, int(pm) / 1024, ct, pt / ct, vs(v1), vs(v2), vs(b3)))
if 10000 in rss and 100000 in rss:
    print("peak RSS 100,000 / 10,000: %.2fx" % (rss[100000] / rss[10000]))
print("targets: plugin <= 1.5x curl; clients >= 10x slower than the plugin; RSS ratio <= 1.1x")
'
