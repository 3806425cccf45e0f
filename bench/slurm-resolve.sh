#!/bin/sh
# slurm-resolve.sh - `cluster-resolver resolve` for one task of a 16,384-node
# Slurm step (from its environment: SLURM_STEP_NODELIST, tasks per node,
# SLURM_GTIDS), against `cluster-resolver --version` (process start-up and
# library loading only), measured in the same run. Target: under 1.5x.
# Two steps: 1 task per node (16,384 tasks, block) and 4 per node
# (65,536 tasks, cyclic). Peak memory from /usr/bin/time -v.
#
# Env: CR_CLI, CLUSTER_RESOLVER_PLUGIN_PATH (the built slurm.so),
# BENCH_RUNS (default 30).
set -eu
: "${CR_CLI:?CR_CLI must name the cluster-resolver binary}"
: "${CLUSTER_RESOLVER_PLUGIN_PATH:?CLUSTER_RESOLVER_PLUGIN_PATH must hold slurm.so}"
runs=${BENCH_RUNS:-30}
for tool in hyperfine /usr/bin/time /usr/bin/python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "slurm-resolve.sh: $tool is missing" >&2; exit 77; }
done
dir=$(mktemp -d /tmp/cr-bench-slurm.XXXXXX)
trap '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$dir"' EXIT
printf 'resolvers = ( { plugin = "slurm"; } );\n' >"$dir/cr.conf"

# step ENVFILE TPN DIST GTIDS: the environment of rank 0 on node00001.
step() {
	cat >"$1" <<ENV
SLURM_JOB_ID=42
SLURM_STEP_ID=0
SLURM_PROCID=0
SLURM_LOCALID=0
SLURM_NODEID=0
SLURMD_NODENAME=node00001
SLURM_STEP_NODELIST=node[00001-16384]
SLURM_STEP_NUM_NODES=16384
SLURM_STEP_TASKS_PER_NODE=$2(x16384)
SLURM_STEP_NUM_TASKS=$((16384 * $2))
SLURM_DISTRIBUTION=$3
SLURM_GTIDS=$4
ENV
}
step "$dir/block.env" 1 block 0
step "$dir/cyclic.env" 4 cyclic 0,16384,32768,49152

median() {
	/usr/bin/python3 -c 'import json,sys; print("%.5f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"
}
peak_kb() {
	/usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'
}
for s in block cyclic; do
	out=$(env $(cat "$dir/$s.env") "$CR_CLI" --config "$dir/cr.conf" resolve --format json)
	case "$out" in
	'{"cluster": {"worker": ["node00001:8888", '*) ;;
	*) echo "slurm-resolve.sh: unexpected output for $s: $(printf %s "$out" | head -c 200)" >&2; exit 1 ;;
	esac
	printf '%s\n' "exec env $(sed "s/.*/'&'/" "$dir/$s.env" | tr '\n' ' ') \"$CR_CLI\" --config \"$dir/cr.conf\" resolve --format json >/dev/null" >"$dir/$s.sh"
done
printf '%s\n' "exec \"$CR_CLI\" --version >/dev/null" >"$dir/version.sh"

hyperfine -N --runs "$runs" --warmup 3 --export-json "$dir/version.json" "sh $dir/version.sh" >/dev/null
base=$(median "$dir/version.json")
base_kb=$(peak_kb "$CR_CLI" --version)
echo "slurm-resolve: median of $runs runs; baseline cluster-resolver --version: $(/usr/bin/python3 -c "print('%.2f ms' % (float('$base') * 1000))"), $base_kb KiB"
for s in block cyclic; do
	hyperfine -N --runs "$runs" --warmup 3 --export-json "$dir/$s.json" "sh $dir/$s.sh" >/dev/null
	t=$(median "$dir/$s.json")
	kb=$(peak_kb sh "$dir/$s.sh")
	tasks=16384
	[ "$s" = cyclic ] && tasks=65536
	/usr/bin/python3 -c 'import sys
s, tasks, t, base, kb = sys.argv[1:]
r = float(t) / float(base)
print("16,384 nodes, %6s tasks (%-6s): %6.2f ms, %6.1f MiB peak, %.2fx --version (target < 1.5x: %s)" % (
    tasks, s, float(t) * 1000, int(kb) / 1024, r, "met" if r < 1.5 else "NOT met"))' "$s" "$tasks" "$t" "$base" "$kb"
done
