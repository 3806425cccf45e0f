#!/bin/bash
# Kubernetes benchmark: k8s.so resolving an Indexed Job of N realistic pods
# (tests/fixtures/k8s/k8s_pods.py: three managers' managedFields, three
# containers, ~10 KB each; 10,000 and 100,000 pods; pages of 500) from the
# fixture API server, which serves each page from memory once made
# (--page-cache, as kube-apiserver's watch cache: the server does not set
# the pace), against
#   - curl fetching the same protobuf pages from the same fixture, one curl
#     process, one kept-alive connection (target: the plugin's default,
#     full pods in protobuf, <= 1.0x curl);
#   - curl fetching the same pages in JSON (PodList) (target: the plugin
#     with list_format = "json" <= 1.2x curl);
#   - python3-kubernetes list_namespaced_pod with the same paging, as
#     TensorFlow's resolver does it (target: plugin >= 100x faster), at the
#     first size only (CR_K8S_PYTHON=0 skips it).
# The plugin runs three times: with the default options (full pods: per-task
# accelerators and index order need container limits and labels; asked for
# in protobuf), with `list_format = "json"` (the same full pods as JSON), and
# with `accelerators = false; order = "name"`, where it asks for Table rows
# (includeObject=None). Bytes per pod are what the fixture served.
#
# Then the API server's bill: 256 processes of a 1,000-pod job starting
# together. K of them (CR_K8S_BILL_PROCS, default 16) really run at once
# against the fixture; requests and bytes are counted from its log and
# scaled to 256 (and to a 10,000-pod job: x10 pods per list, x10 lists).
# Runs in the loopback-only namespace (scripts/hermetic.sh).
#
#   bench/k8s.sh [BUILD_DIR]      env: CR_K8S_SIZES="10000 100000" CR_BENCH_RUNS=3
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
build=$(cd "${1:-$src/build}" && pwd)
cli="$build/bin/cluster-resolver"
sizes=${CR_K8S_SIZES:-10000 100000}
runs=${CR_BENCH_RUNS:-3}
bill_procs=${CR_K8S_BILL_PROCS:-16}
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

# time_pair N: the plugin's default config and curl of the same protobuf
# pages, alternately (plugin, curl, curl, plugin, ...: the machine's speed
# drifts, and the ratio is the target); prints "plugin_median max_rss_kb
# curl_median"
time_pair() {
	local count=$1 i
	: > "$tmp/pair"
	for i in $(seq "$count"); do
		if [ $((i % 2)) = 1 ]; then
			/usr/bin/time -f 'p %e %M' -o "$tmp/t" "$cli" --config "$tmp/full.conf" resolve \
				--format json > "$tmp/plugin.out"
			cat "$tmp/t" >> "$tmp/pair"
			/usr/bin/time -f 'c %e %M' -o "$tmp/t" curl -K "$tmp/curl-pb.cfg"
			cat "$tmp/t" >> "$tmp/pair"
		else
			/usr/bin/time -f 'c %e %M' -o "$tmp/t" curl -K "$tmp/curl-pb.cfg"
			cat "$tmp/t" >> "$tmp/pair"
			/usr/bin/time -f 'p %e %M' -o "$tmp/t" "$cli" --config "$tmp/full.conf" resolve \
				--format json > "$tmp/plugin.out"
			cat "$tmp/t" >> "$tmp/pair"
		fi
	done
	/usr/bin/python3 -c '
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
p = [float(r[1]) for r in rows if r[0] == "p"]
c = [float(r[1]) for r in rows if r[0] == "c"]
print(statistics.median(p), max(int(r[2]) for r in rows if r[0] == "p"), statistics.median(c))' \
		"$tmp/pair"
}

# start_fixture N: an Indexed Job of N pods in namespace bench
start_fixture() {
	d="$tmp/fx-$1"
	rm -rf "$d"
	/usr/bin/python3 "$src/tests/fixtures/k8s/k8s_fixture.py" --dir "$d" \
		--generate "worker=$1:bench" --continue-ttl 3600 --page-cache > "$tmp/fixture.log" 2>&1 &
	fixture_pid=$!
	for _ in $(seq 3000); do [ -f "$d/port" ] && break; sleep 0.1; done
	[ -f "$d/port" ] || { echo "fixture did not start" >&2; cat "$tmp/fixture.log" >&2; exit 1; }
}
stop_fixture() {
	kill "$fixture_pid"
	wait "$fixture_pid" 2> /dev/null || true
	fixture_pid=
}
# conf FILE EXTRA: the benchmark's config
conf() {
	cat > "$1" <<-EOF
		resolvers = ( { plugin = "k8s"; kubeconfig = "$d/kubeconfig"; namespace = "bench";
		  page_size = 500; jobs = { worker = [ "job-name=worker" ]; }; $2 } );
	EOF
}
# served FROM: requests and bytes the fixture answered since log line FROM
served() {
	tail -n +"$(($1 + 1))" "$d/requests.jsonl" | /usr/bin/python3 -c '
import json, sys
rs = [json.loads(l) for l in sys.stdin if "/pods" in l]
print(len(rs), sum(r.get("bytes", 0) for r in rs))'
}
lines() { wc -l < "$d/requests.jsonl"; }

results=()
first=1
for n in $sizes; do
	start_fixture "$n"
	conf "$tmp/full.conf" ""
	conf "$tmp/json.conf" 'list_format = "json";'
	conf "$tmp/table.conf" 'accelerators = false; order = "name";'
	/usr/bin/python3 "$src/bench/k8s/pages.py" "$d" bench job-name=worker 500 > "$tmp/curl.cfg"
	/usr/bin/python3 "$src/bench/k8s/pages.py" "$d" bench job-name=worker 500 \
		application/vnd.kubernetes.protobuf > "$tmp/curl-pb.cfg"
	pages=$(grep -c '^url' "$tmp/curl.cfg")

	# everything must work (and warm the fixture's caches) before timing
	for c in full json table; do
		l0=$(lines)
		"$cli" --config "$tmp/$c.conf" resolve --format json > "$tmp/warm.json"
		got=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cluster"]["worker"]))' "$tmp/warm.json")
		[ "$got" = "$n" ] || { echo "plugin ($c) resolved $got tasks, want $n" >&2; exit 1; }
		read -r _ bytes < <(served "$l0")
		eval "${c}_bpp=\$((bytes / n))"
	done
	curl -K "$tmp/curl.cfg"
	curl -K "$tmp/curl-pb.cfg"

	read -r p_t p_m b_t < <(time_pair $((2 * runs + 1)))
	read -r j_t j_m < <(time_runs json "$runs" "$cli" --config "$tmp/json.conf" resolve --format json)
	read -r t_t t_m < <(time_runs table "$runs" "$cli" --config "$tmp/table.conf" resolve --format json)
	read -r c_t _ < <(time_runs curl "$runs" curl -K "$tmp/curl.cfg")
	y_t=nan
	if [ "${CR_K8S_PYTHON:-1}" != 0 ] && [ "$first" = 1 ]; then
		read -r y_t _ < <(time_runs python 1 /usr/bin/python3 "$src/bench/k8s/pyclient.py" \
			"$d/kubeconfig" bench job-name=worker 500)
		[ "$(cat "$tmp/python.out")" = "$n" ] ||
			{ echo "python client listed $(cat "$tmp/python.out")" >&2; exit 1; }
	fi
	first=0
	results+=("$n $pages $full_bpp $json_bpp $table_bpp $p_t $p_m $j_t $j_m $t_t $t_m $c_t $b_t $y_t")
	stop_fixture
done

printf '%s\n' "${results[@]}" | /usr/bin/python3 -c '
import sys
print("k8s benchmark: resolve an Indexed Job from the fixture API server, pages of 500, median of '"$runs"' runs"
      " (the default and curl of the protobuf pages: '"$((2 * runs + 1))"' each, alternately)")
print("%7s %5s %8s | %-28s | %-21s | %-28s | %-15s | %s" % ("pods", "pages", "JSON MB",
      "plugin, full pods, protobuf", "plugin, full pods JSON", "plugin, Table rows", "curl s",
      "python s"))
print("%7s %5s %8s | %6s %7s %6s %6s | %6s %7s %6s | %6s %7s %6s %6s | %7s %7s | %s" % (
      "", "", "", "s", "RSS MiB", "xcurl", "B/pod", "s", "RSS MiB", "xcurl", "s", "RSS MiB",
      "xcurl", "B/pod", "protobf", "JSON", "(x table)"))
for line in sys.stdin:
    n, pages, fb, jb, tb, pt, pm, jt, jm, tt, tm, ct, bt, yt = line.split()
    n, fb, jb, tb = int(n), int(fb), int(jb), int(tb)
    pt, jt, tt, ct, bt, yt = float(pt), float(jt), float(tt), float(ct), float(bt), float(yt)
    py = "%8.1f (%.0fx)" % (yt, yt / tt) if yt == yt else "%8s" % "-"
    # protobuf against curl of the same protobuf pages; JSON and Table
    # rows against curl of the JSON pages
    print("%7d %5s %8.1f | %6.2f %7.1f %5.2fx %6d | %6.2f %7.1f %5.2fx | %6.2f %7.1f %5.2fx %6d"
          " | %7.2f %7.2f | %s" % (n, pages, n * jb / 1e6, pt, int(pm) / 1024, pt / bt, fb, jt,
          int(jm) / 1024, jt / ct, tt, int(tm) / 1024, tt / ct, tb, bt, ct, py))
print("targets: the default (full pods, protobuf) <= 1.0x curl of the same protobuf pages;"
      " >= 100x faster than python3-kubernetes; RSS <= 32 MiB")
'

# ---- the API server's bill: 256 processes of a 1,000-pod job at once ------
[ "${CR_K8S_BILL:-1}" = 0 ] && exit 0
start_fixture 1000
echo
echo "API server bill: $bill_procs processes of a 1,000-pod job listing at once (fixture log), scaled to 256"
printf '%-34s %9s %9s %12s %14s\n' "client" "req/proc" "KB/proc" "256 procs MB" "10k-pod job GB"
bill() { # NAME CMD...: K at once
	local name=$1 l0
	shift
	l0=$(lines)
	local pids=()
	for _ in $(seq "$bill_procs"); do
		"$@" > /dev/null &
		pids+=($!)
	done
	wait "${pids[@]}"
	read -r reqs bytes < <(served "$l0")
	/usr/bin/python3 -c '
import sys
name, k, reqs, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print("%-34s %9.1f %9.0f %12.0f %14.1f" % (name, reqs / k, b / k / 1e3, b / k * 256 / 1e6,
      b / k * 10 * 10000 / 1e9))' "$name" "$bill_procs" "$reqs" "$bytes"
}
for c in "full:" "full-json:list_format = \"json\";" "table:accelerators = false; order = \"name\";" \
	"full-cache:list_from_cache = true;" \
	"table-cache:accelerators = false; order = \"name\"; list_from_cache = true;"; do
	conf "$tmp/bill.conf" "${c#*:}"
	bill "plugin, ${c%%:*}" "$cli" --config "$tmp/bill.conf" resolve --format json
done
bill "python3-kubernetes (TensorFlow)" /usr/bin/python3 "$src/bench/k8s/pyclient.py" \
	"$d/kubeconfig" bench job-name=worker 500
echo "(a 10,000-pod job: 10,000 processes, each listing 10x the pods of one here)"
stop_fixture
