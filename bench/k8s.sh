#!/bin/bash
# Kubernetes benchmark: k8s.so resolving an Indexed Job of N realistic pods
# (10,000 and 100,000; pages of 500) from the fixture API server, against
#   - curl fetching exactly the same pages from the same fixture (one curl
#     process, one kept-alive connection; target: plugin <= 1.5x curl), and
#   - python3-kubernetes list_namespaced_pod with the same paging, as
#     TensorFlow's resolver does it (target: plugin >= 10x faster).
# A second curl baseline starts one curl per page (a new connection and TLS
# handshake each time, as the host's http_request did before it kept one
# connection per plugin instance).
# Each is run RUNS times (default 3) and the median wall time is reported,
# with the plugin's peak RSS at both sizes; the Python client, which needs
# minutes at 100,000 pods, runs once. Runs in the loopback-only namespace
# (scripts/hermetic.sh).
#
#   bench/k8s.sh [BUILD_DIR]      env: CR_K8S_SIZES="10000 100000" CR_BENCH_RUNS=3
#                                      CR_K8S_PYTHON=0 skips the (slow) Python client
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
build=$(cd "${1:-$src/build}" && pwd)
cli="$build/bin/cluster-resolver"
sizes=${CR_K8S_SIZES:-10000 100000}
runs=${CR_BENCH_RUNS:-3}
[ -x "$cli" ] || { echo "no $cli: build first" >&2; exit 1; }
command -v curl > /dev/null || { echo "curl is not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed (Debian: time)" >&2; exit 1; }
/usr/bin/python3 -c 'import kubernetes' 2> /dev/null ||
	{ echo "python3-kubernetes is not installed" >&2; exit 1; }
export CLUSTER_RESOLVER_PLUGIN_PATH="$build/lib/cluster-resolver/resolvers"
export CLUSTER_RESOLVER_CONFIG=
unset POD_NAME HOSTNAME POD_IP KUBECONFIG KUBERNETES_SERVICE_HOST

tmp=$(mktemp -d)
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
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" > "$tmp/$name.out"
		cat "$tmp/t"
	done | sort -n | awk '{ t[NR] = $1; if ($2 > m) m = $2 } END { print t[int((NR + 1) / 2)], m }'
}

results=()
for n in $sizes; do
	d="$tmp/fx-$n"
	rm -f "$d/port"
	/usr/bin/python3 "$src/tests/fixtures/k8s/k8s_fixture.py" --dir "$d" \
		--generate "worker=$n:bench" --continue-ttl 3600 > "$tmp/fixture.log" 2>&1 &
	fixture_pid=$!
	for _ in $(seq 600); do [ -f "$d/port" ] && break; sleep 0.1; done
	[ -f "$d/port" ] || { echo "fixture did not start" >&2; cat "$tmp/fixture.log" >&2; exit 1; }
	cat > "$tmp/k8s.conf" <<-EOF
		resolvers = ( { plugin = "k8s"; kubeconfig = "$d/kubeconfig"; namespace = "bench";
		  page_size = 500; jobs = { worker = [ "job-name=worker" ]; }; } );
	EOF
	/usr/bin/python3 "$src/bench/k8s/pages.py" "$d" bench job-name=worker 500 > "$tmp/curl.cfg"
	pages=$(grep -c '^url' "$tmp/curl.cfg")

	# everything must work (and warm the fixture's caches) before timing
	"$cli" --config "$tmp/k8s.conf" resolve --format json > "$tmp/warm.json"
	got=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cluster"]["worker"]))' "$tmp/warm.json")
	[ "$got" = "$n" ] || { echo "plugin resolved $got tasks, want $n" >&2; exit 1; }
	curl -K "$tmp/curl.cfg"

	# one curl process per page: the same URLs, a new connection each
	head -4 "$tmp/curl.cfg" > "$tmp/curl-head.cfg"
	grep '^url' "$tmp/curl.cfg" | sed 's/^url = //; s/"//g' > "$tmp/urls"
	cat > "$tmp/curl-each.sh" <<-EOF
		while read -r u; do curl -K "$tmp/curl-head.cfg" -o /dev/null "\$u"; done < "$tmp/urls"
	EOF

	read -r p_t p_m < <(time_runs plugin "$runs" "$cli" --config "$tmp/k8s.conf" resolve --format json)
	read -r c_t _ < <(time_runs curl "$runs" curl -K "$tmp/curl.cfg")
	read -r e_t _ < <(time_runs curl-each "$runs" sh "$tmp/curl-each.sh")
	y_t=nan
	if [ "${CR_K8S_PYTHON:-1}" != 0 ]; then
		read -r y_t _ < <(time_runs python 1 /usr/bin/python3 "$src/bench/k8s/pyclient.py" \
			"$d/kubeconfig" bench job-name=worker 500)
		[ "$(cat "$tmp/python.out")" = "$n" ] ||
			{ echo "python client listed $(cat "$tmp/python.out")" >&2; exit 1; }
	fi
	results+=("$n $pages $p_t $p_m $c_t $e_t $y_t")
	kill "$fixture_pid"
	wait "$fixture_pid" 2> /dev/null || true
	fixture_pid=
done

printf '%s\n' "${results[@]}" | /usr/bin/python3 -c '
import sys
print("k8s benchmark: resolve an Indexed Job from the fixture API server, pages of 500, median of '"$runs"' runs")
print("%7s %5s | %8s %10s | %7s %8s | %8s | %8s %11s %13s" % ("pods", "pages", "plugin s",
      "peak RSS", "curl s", "curl/pg", "python s", "vs curl", "vs curl/pg", "vs python"))
for line in sys.stdin:
    n, pages, pt, pm, ct, et, yt = line.split()
    pt, ct, et, yt = float(pt), float(ct), float(et), float(yt)
    vs_py = "%6.1fx faster" % (yt / pt) if yt == yt else "%13s" % "not run"
    py_s = "%8.2f" % yt if yt == yt else "%8s" % "-"
    print("%7s %5s | %8.2f %6.1f MiB | %7.2f %8.2f | %s | %7.2fx %10.2fx %s" %
          (n, pages, pt, int(pm) / 1024, ct, et, py_s, pt / ct, pt / et, vs_py))
print("targets: plugin <= 1.5x curl; plugin >= 10x faster than python3-kubernetes")
'
