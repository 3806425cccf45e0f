#!/bin/bash
# Compute Engine benchmark: gce.so resolving a managed instance group of N
# members (1,000 and 10,000) from the GCP fixture (tests/fixtures/gcp), with
# items shaped as listInstances and instances.list really return them,
# against
#   - curl making exactly the requests the plugin made (the metadata reads
#     and the same Compute pages, in one curl process on kept-alive
#     connections; target: plugin <= 1.5x curl),
#   - gcloud `compute instance-groups list-instances` + `compute instances
#     list --zones Z`, what a shell script would run (target: plugin >= 10x
#     faster; run once: it takes many seconds),
# the number of Compute requests (target: <= ceil(N/500) + ceil(N/chunk),
# chunk = the most names one filtered instances.list carried; TensorFlow
# makes N+1), the plugin's peak RSS at 10,000 vs 1,000 (target <= 1.1x),
# and a run off GCE (declines without a packet) vs `cluster-resolver
# --version` (target <= 1.1x; 300 runs each). Times are hyperfine's medians
# (RUNS runs); gcloud runs once. Loopback only.
#
#   bench/gce.sh [BUILD_DIR]      env: CR_GCE_SIZES="1000 10000" CR_BENCH_RUNS=20
#                                      CR_GCE_GCLOUD=0 skips gcloud
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
build=$(cd "${1:-$src/build}" && pwd)
cli="$build/bin/cluster-resolver"
sizes=${CR_GCE_SIZES:-1000 10000}
runs=${CR_BENCH_RUNS:-20}
token=ya29.bench-static-token
[ -x "$cli" ] || { echo "no $cli: build first" >&2; exit 1; }
command -v curl > /dev/null || { echo "curl is not installed" >&2; exit 1; }
command -v hyperfine > /dev/null || { echo "hyperfine is not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed (Debian: time)" >&2; exit 1; }
export CLUSTER_RESOLVER_PLUGIN_PATH="$build/lib/cluster-resolver/resolvers"
export CLUSTER_RESOLVER_CONFIG=
unset GOOGLE_APPLICATION_CREDENTIALS GCE_METADATA_ROOT GCE_METADATA_IP

tmp=$(mktemp -d)
fixture_pid=
cleanup() {
	[ -n "$fixture_pid" ] && kill "$fixture_pid" 2> /dev/null && wait "$fixture_pid" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/root/sys/class/dmi/id" "$tmp/off/sys/class/dmi/id" "$tmp/home"
echo "Google Compute Engine" > "$tmp/root/sys/class/dmi/id/product_name"
echo "Standard PC (Q35 + ICH9, 2009)" > "$tmp/off/sys/class/dmi/id/product_name"
echo "$token" > "$tmp/token"

# time_runs NAME N CMD...: N timed runs; prints "median_seconds max_rss_kb"
time_runs() {
	local name=$1 count=$2
	shift 2
	for _ in $(seq "$count"); do
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" > "$tmp/$name.out"
		cat "$tmp/t"
	done | sort -n | awk '{ t[NR] = $1; if ($2 > m) m = $2 } END { print t[int((NR + 1) / 2)], m }'
}

count_tasks() {
	/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cluster"]["worker"]))' "$1"
}

results=()
for n in $sizes; do
	d="$tmp/fx-$n"
	mkdir -p "$d"
	/usr/bin/python3 "$src/bench/gce/scenario.py" "$n" "$d/scenario.json" "$token"
	/usr/bin/python3 "$src/tests/fixtures/gcp/gcp_fixture.py" --dir "$d" \
		--scenario "$d/scenario.json" > "$tmp/fixture.log" 2>&1 &
	fixture_pid=$!
	for _ in $(seq 600); do [ -f "$d/silent.port" ] && break; sleep 0.1; done
	[ -f "$d/silent.port" ] || { echo "fixture did not start" >&2; cat "$tmp/fixture.log" >&2; exit 1; }
	api=$(cat "$d/api.port")
	export GCE_METADATA_HOST="127.0.0.1:$(cat "$d/metadata.port")"
	cat > "$tmp/gce.conf" <<-EOF
		resolvers = ( { plugin = "gce"; instance_group = "trainers"; port = 2222;
		  root = "$tmp/root"; access_token_file = "$tmp/token"; ca_file = "$d/ca.crt";
		  compute_endpoint = "https://127.0.0.1:$api/compute/v1/"; } );
		accelerators = ( );
	EOF

	# everything must work (and warm the fixture's caches) before timing
	"$cli" --config "$tmp/gce.conf" resolve --format json > "$tmp/warm.json"
	: > "$d/requests.jsonl"
	"$cli" --config "$tmp/gce.conf" resolve --format json > "$tmp/warm.json"
	got=$(count_tasks "$tmp/warm.json")
	[ "$got" = "$n" ] || { echo "plugin resolved $got tasks, want $n" >&2; exit 1; }
	/usr/bin/python3 "$src/bench/gce/curlcfg.py" "$d" "$token" > "$tmp/curl.cfg" 2> "$tmp/counts"
	read -r lists chunks maxnames < "$tmp/counts"
	curl -K "$tmp/curl.cfg"

	# wall times: hyperfine, medians of RUNS runs each, plugin and curl in one
	# invocation; peak RSS: /usr/bin/time over 3 runs
	hyperfine -N -w 2 -r "$runs" --export-json "$tmp/times.json" \
		"$cli --config $tmp/gce.conf resolve --format json" "curl -K $tmp/curl.cfg" > /dev/null
	read -r p_t c_t < <(/usr/bin/python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["results"]
print(r[0]["median"], r[1]["median"])' "$tmp/times.json")
	read -r _ p_m < <(time_runs plugin 3 "$cli" --config "$tmp/gce.conf" resolve --format json)
	g_t=nan
	if [ "${CR_GCE_GCLOUD:-1}" != 0 ] && [ -x /usr/bin/gcloud ]; then
		cat > "$tmp/gcloud.sh" <<-EOF
			export PATH=/usr/bin:/bin HOME="$tmp/home" CLOUDSDK_CONFIG="$tmp/gcloud-$n"
			export CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE="https://127.0.0.1:$api/compute/v1/"
			export CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE="$d/ca.crt" CLOUDSDK_AUTH_ACCESS_TOKEN_FILE="$tmp/token"
			export GCE_METADATA_ROOT="$GCE_METADATA_HOST" GCE_METADATA_IP="$GCE_METADATA_HOST"
			export CLOUDSDK_CORE_DISABLE_PROMPTS=1 CLOUDSDK_CORE_DISABLE_USAGE_REPORTING=1
			export CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=1 CLOUDSDK_CORE_PROJECT=proj-1
			gcloud compute instance-groups list-instances trainers --zone us-central1-a \
				--filter=status=RUNNING --format='value(instance)' | wc -l
			gcloud compute instances list --zones us-central1-a \
				--format='value(name,networkInterfaces[0].networkIP)' | wc -l
		EOF
		read -r g_t _ < <(time_runs gcloud 1 env -i sh "$tmp/gcloud.sh")
		[ "$(cat "$tmp/gcloud.out")" = "$(printf '%s\n%s' "$n" "$n")" ] ||
			{ echo "gcloud listed: $(cat "$tmp/gcloud.out")" >&2; exit 1; }
	fi
	results+=("$n $lists $chunks $maxnames $p_t $p_m $c_t $g_t")
	if [ "$n" = "${sizes%% *}" ]; then # off GCE: declines without a packet (no request)
		cat > "$tmp/off.conf" <<-EOF
			resolvers = ( { plugin = "gce"; policy = "sufficient"; instance_group = "trainers";
			  port = 2222; root = "$tmp/off"; } );
			accelerators = ( );
		EOF
		: > "$d/requests.jsonl"
		# many short runs, medians: the machine is shared and noisy
		printf 'resolvers = ( );\naccelerators = ( );\n' > "$tmp/none.conf"
		hyperfine -N -i -w 20 -r 300 --export-json "$tmp/off.json" \
			"$cli --config $tmp/off.conf resolve" "$cli --version" \
			"$cli --config $tmp/none.conf resolve" > /dev/null 2>&1
		read -r o_t v_t e_t < <(/usr/bin/python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["results"]
print(r[0]["median"], r[1]["median"], r[2]["median"])' "$tmp/off.json")
		[ ! -s "$d/requests.jsonl" ] || { echo "off GCE, yet requests were made:" >&2; cat "$d/requests.jsonl" >&2; exit 1; }
	fi
	kill "$fixture_pid"
	wait "$fixture_pid" 2> /dev/null || true
	fixture_pid=
done

printf '%s\n' "${results[@]}" | /usr/bin/python3 -c '
import math, sys
rows = [l.split() for l in sys.stdin]
print("gce benchmark: resolve a managed instance group from the GCP fixture, medians of '"$runs"' runs")
print("%6s | %5s %6s %5s %5s | %8s %9s | %7s %8s | %8s %12s" % ("N", "lists", "chunks",
      "names", "bound", "plugin s", "peak RSS", "curl s", "gcloud s", "vs curl", "vs gcloud"))
for n, l, c, mx, pt, pm, ct, gt in rows:
    n, pt, ct, gt = int(n), float(pt), float(ct), float(gt)
    bound = math.ceil(n / 500) + math.ceil(n / int(mx))
    vs_g = "%5.1fx faster" % (gt / pt) if gt == gt else "%12s" % "not run"
    g_s = "%8.2f" % gt if gt == gt else "%8s" % "-"
    print("%6d | %5s %6s %5s %5d | %8.4f %5.1f MiB | %7.4f %s | %7.2fx %s" %
          (n, l, c, mx, bound, pt, int(pm) / 1024, ct, g_s, pt / ct, vs_g))
if len(rows) > 1:
    print("peak RSS at N=%s vs N=%s: %.2fx" % (rows[-1][0], rows[0][0], int(rows[-1][5]) / int(rows[0][5])))
print("off GCE (declined; median of 300): %.2f ms vs --version %.2f ms: %.2fx (an empty configuration: %.2f ms)" % (1000 * '"$o_t"', 1000 * '"$v_t"', '"$o_t"' / '"$v_t"', 1000 * '"$e_t"'))
print("requests: lists + chunks; TensorFlow: N+1")
print("targets: plugin <= 1.5x curl; >= 10x faster than gcloud; requests <= bound; RSS <= 1.1x; off GCE <= 1.1x --version")
'
