#!/bin/sh
# test-slurm-real.sh - SlurmClusterResolver in the tasks of a real Slurm
# (munge + slurmctld + 4 slurmd on 127.0.0.1, tests/integration/slurm's
# start-slurm.sh, stopped by pid at the end): in every task the Python
# package must give exactly what `cluster-resolver resolve --format json`
# gives there (cluster, task, master, accelerators) and, with GPUs bound,
# set CUDA_VISIBLE_DEVICES as `exec` does; the block layout is also checked
# against its literal cluster. In the sanitizer build only the tasks' Python
# gets the sanitizer runtime ($CR_PY_PRELOAD).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${CR_TEST_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
: "${CR_CLI:?CR_CLI must name the cluster-resolver binary}"
: "${CLUSTER_RESOLVER_LIBRARY:?run through ctest}"
for tool in munged slurmctld slurmd srun; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "SKIP: $tool not installed (Debian: munge slurmctld slurmd slurm-client)"
		exit 77
	fi
done
slurm=$src/tests/integration/slurm
dir=$(mktemp -d /tmp/cr-py-slurm.XXXXXX)
trap '"$slurm/stop-slurm.sh" "$dir"' EXIT
trap 'exit 1' INT TERM
SLURM_TEST_NODES=4 SLURM_TEST_CPUS=4 SLURM_TEST_GPUS=2 "$slurm/start-slurm.sh" "$dir"
. "$dir/env.sh"

printf 'resolvers = ( { plugin = "slurm"; } );\n' >"$dir/cr.conf"
cat >"$dir/task.py" <<PY
import json, os, subprocess, sys
sys.path.insert(0, "$src/python")
import cluster_resolver as cr
cli = json.loads(subprocess.run(["$CR_CLI", "--config", "$dir/cr.conf", "resolve",
                                 "--format", "json"], capture_output=True, text=True,
                                check=True).stdout)
cvd = subprocess.run(["$CR_CLI", "--config", "$dir/cr.conf", "exec", "--", "/bin/sh", "-c",
                      'printf %s "\${CUDA_VISIBLE_DEVICES-unset}"'], capture_output=True,
                     text=True, check=True).stdout
r = cr.SlurmClusterResolver()
spec = r.cluster_spec().as_dict()
mine = {"cluster": spec, "task": {"type": r.task_type, "index": r.task_id},
        "master": r.master(), "num_accelerators": r.num_accelerators()}
want = {k: cli.get(k) for k in mine}
print("%s|%s|%s|%s" % (os.environ["SLURM_PROCID"], json.dumps(spec),
                       "same" if mine == want else "DIFFERENT %r %r" % (mine, want),
                       "cvd-same" if os.environ.get("CUDA_VISIBLE_DEVICES", "unset") == cvd
                       else "cvd %r vs exec %r" % (os.environ.get("CUDA_VISIBLE_DEVICES"), cvd)))
PY

fail=0
run() { # NAME NTASKS EXPECTED-CLUSTER-OR-EMPTY -- SRUN ARGS
	name=$1 n=$2 want=$3
	shift 4
	if ! srun --immediate=30 --time=1 "$@" env ${CR_PY_PRELOAD:+LD_PRELOAD="$CR_PY_PRELOAD"} \
		/usr/bin/python3 "$dir/task.py" >"$dir/out" 2>"$dir/err"; then
		echo "not ok - $name: srun $* failed: $(cat "$dir/err")"
		fail=1
		return
	fi
	got=$(sort -t'|' -k1,1n "$dir/out" | cut -d'|' -f3,4 | sort | uniq -c | sed 's/^ *//')
	if [ "$got" != "$n same|cvd-same" ]; then
		echo "not ok - $name: $got"
		cat "$dir/out" "$dir/err"
		fail=1
		return
	fi
	if [ -n "$want" ] && [ "$(cut -d'|' -f2 "$dir/out" | sort -u)" != "$want" ]; then
		echo "not ok - $name: cluster $(cut -d'|' -f2 "$dir/out" | sort -u), want $want"
		fail=1
		return
	fi
	echo "ok - $name"
}

run "srun -N4 --ntasks-per-node=2" 8 '{"worker": ["node1:8888", "node1:8889", "node2:8888", "node2:8889", "node3:8888", "node3:8889", "node4:8888", "node4:8889"]}' -- -N4 --ntasks-per-node=2
run "srun -N3 -n5 -m cyclic" 5 '' -- -N3 -n5 --distribution=cyclic
run "srun -N4 -n8 --gpus-per-task=1" 8 '' -- -N4 -n8 --gpus-per-task=1
[ "$fail" = 0 ] && echo "3 passed, 0 failed" || echo "some failed"
exit $fail
