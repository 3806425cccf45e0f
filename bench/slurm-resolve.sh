#!/bin/sh
# slurm-resolve.sh - `cluster-resolver resolve` for one task of a 16,384-node
# Slurm step (from its environment: SLURM_STEP_NODELIST, tasks per node,
# SLURM_GTIDS), against `cluster-resolver --version` (process start-up and
# library loading only), measured in the same run. Target: under 1.5x.
# Since ABI 1.1 `--version` no longer loads libcurl and OpenSSL, so it got
# about five times cheaper; the step is also given against `curl --version`
# (the start-up benchmark's baseline), which stays comparable across such
# changes in the tool itself.
# Two steps: 1 task per node (16,384 tasks, block) and 4 per node
# (65,536 tasks, cyclic). Peak memory from /usr/bin/time -v.
#
# The machine is shared and its load drifts within seconds, so the three
# commands run interleaved (--version, block, cyclic, --version, ...; each
# started directly with posix_spawn, its wall time taken around it) and
# each ratio is taken against the --version run next to it. The report gives
# the median of those ratios over all runs and the range of the per-round
# medians.
#
# Env: CR_CLI, CLUSTER_RESOLVER_PLUGIN_PATH (the built slurm.so),
# BENCH_ROUNDS (default 5), BENCH_RUNS (runs of each command per round,
# default 20).
set -eu
: "${CR_CLI:?CR_CLI must name the cluster-resolver binary}"
: "${CLUSTER_RESOLVER_PLUGIN_PATH:?CLUSTER_RESOLVER_PLUGIN_PATH must hold slurm.so}"
rounds=${BENCH_ROUNDS:-5}
runs=${BENCH_RUNS:-20}
for tool in /usr/bin/time /usr/bin/python3; do
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
/usr/bin/python3 - "$dir" "$rounds" "$runs" "$CR_CLI" "$(peak_kb "$CR_CLI" --version)" \
	"$(peak_kb sh "$dir/block.sh")" "$(peak_kb sh "$dir/cyclic.sh")" <<'PY'
import os, shutil, statistics, sys, time
d, rounds, runs, cli, base_kb, block_kb, cyclic_kb = sys.argv[1:]
rounds, runs = int(rounds), int(runs)
conf = os.path.join(d, "cr.conf")
def step_env(name):
    env = dict(os.environ)
    for line in open(os.path.join(d, name + ".env")):
        k, v = line.rstrip("\n").split("=", 1)
        env[k] = v
    return env
cmds = {
    "version": ([cli, "--version"], dict(os.environ)),
    "curl": ([shutil.which("curl") or "/usr/bin/curl", "--version"], dict(os.environ)),
    "block": ([cli, "--config", conf, "resolve", "--format", "json"], step_env("block")),
    "cyclic": ([cli, "--config", conf, "resolve", "--format", "json"], step_env("cyclic")),
}
null = os.open(os.devnull, os.O_WRONLY)
def once(name):
    argv, env = cmds[name]
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
    _, status = os.waitpid(pid, 0)
    t = time.perf_counter() - t0
    if status != 0:
        sys.exit("slurm-resolve.sh: %s failed (status %d)" % (name, status))
    return t
for name in cmds:  # warm-up
    for _ in range(3):
        once(name)
t = {name: [] for name in cmds}
ratios = {"block": [], "cyclic": []}
curl_ratios = {"block": [], "cyclic": []}
round_med = {"block": [], "cyclic": []}
for r in range(rounds):
    rr = {"block": [], "cyclic": []}
    for i in range(runs):
        base = once("version")
        t["version"].append(base)
        curl = once("curl")
        t["curl"].append(curl)
        for name in ("block", "cyclic"):
            x = once(name)
            t[name].append(x)
            rr[name].append(x / base)
            curl_ratios[name].append(x / curl)
    for name in rr:
        ratios[name] += rr[name]
        round_med[name].append(statistics.median(rr[name]))
ms = lambda xs: "%.1f ms" % (statistics.median(xs) * 1000)
print("slurm-resolve: %d rounds of %d interleaved runs; baseline cluster-resolver --version: %s, %.1f MiB peak; curl --version: %s"
      % (rounds, runs, ms(t["version"]), int(base_kb) / 1024, ms(t["curl"])))
for name, tasks, kb in (("block", 16384, block_kb), ("cyclic", 65536, cyclic_kb)):
    med = statistics.median(ratios[name])
    print("16,384 nodes, %6d tasks (%-6s): %s, %5.1f MiB peak, %.2fx --version (round medians %.2f-%.2fx; target < 1.5x: %s), %.2fx curl --version"
          % (tasks, name, ms(t[name]), int(kb) / 1024, med, min(round_med[name]), max(round_med[name]),
             "met" if med < 1.5 else "NOT met", statistics.median(curl_ratios[name])))
PY
