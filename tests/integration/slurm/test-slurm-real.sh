#!/bin/sh
# test-slurm-real.sh - `cluster-resolver resolve` in the tasks of a real Slurm
# (munge + slurmctld + 4 slurmd on 127.0.0.1, started here, stopped by pid at
# the end, pass or fail) under every distribution, with per-task GPUs, with
# an arbitrary hostfile, and in a step inside an sbatch allocation.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${CR_TEST_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
: "${CR_CLI:?CR_CLI must name the cluster-resolver binary}"
for tool in munged slurmctld slurmd srun sbatch; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool not installed (Debian: munge slurmctld slurmd slurm-client)"
		exit 77
	fi
done

dir=$(mktemp -d /tmp/cr-slurm-test.XXXXXX)
trap '"$here/stop-slurm.sh" "$dir"' EXIT
trap 'exit 1' INT TERM
SLURM_TEST_NODES=4 SLURM_TEST_CPUS=4 SLURM_TEST_GPUS=2 "$here/start-slurm.sh" "$dir"
. "$dir/env.sh"

printf 'resolvers = ( { plugin = "slurm"; } );\n' >"$dir/cr.conf"
cat >"$dir/task.sh" <<TASK
#!/bin/sh
# one line per task: PROCID|NODE|LOCALID|CVD|CVD-after-exec|JSON
json=\$("$CR_CLI" --config "$dir/cr.conf" resolve --format json 2>&1)
cvd=\$("$CR_CLI" --config "$dir/cr.conf" exec -- /bin/sh -c 'printf %s "\${CUDA_VISIBLE_DEVICES-unset}"' 2>&1)
printf '%s|%s|%s|%s|%s|%s\n' "\$SLURM_PROCID" "\$SLURMD_NODENAME" "\$SLURM_LOCALID" \
	"\${CUDA_VISIBLE_DEVICES-unset}" "\$cvd" "\$json"
TASK
chmod +x "$dir/task.sh"

fail=0
check() { # NAME NTASKS [GPUS] -- SRUN ARGS
	name=$1 n=$2
	shift 2
	gpus=
	[ "$1" != -- ] && { gpus=$1; shift; }
	shift
	if ! srun --immediate=30 --time=1 "$@" "$dir/task.sh" >"$dir/out" 2>"$dir/err"; then
		echo "not ok - $name: srun $* failed: $(cat "$dir/err")"
		fail=1
		return
	fi
	/usr/bin/python3 "$here/check-tasks.py" "$name" "$n" $gpus <"$dir/out" || fail=1
}

check "srun -N4 -n8" 8 -- -N4 -n8
check "srun -N4 -n8 -m block" 8 -- -N4 -n8 --distribution=block
check "srun -N4 -n8 -m cyclic" 8 -- -N4 -n8 --distribution=cyclic
check "srun -N4 -n8 -m plane=3" 8 -- -N4 -n8 --distribution=plane=3
check "srun -N3 -n5 -m cyclic" 5 -- -N3 -n5 --distribution=cyclic
check "srun -N4 -n8 --gpus-per-task=1" 8 1 -- -N4 -n8 --gpus-per-task=1
check "srun -N4 -n8 -m cyclic --gpus-per-task=1" 8 1 -- -N4 -n8 -m cyclic --gpus-per-task=1
printf 'node3\nnode1\nnode1\nnode2\nnode3\nnode4\n' >"$dir/hostfile"
SLURM_HOSTFILE="$dir/hostfile" check "srun -n6 -m arbitrary" 6 -- -n6 --distribution=arbitrary

# torchrun inside a step: the innermost launcher places its workers
# (docs/launchers.md). The step is one Slurm task; torchrun's two workers
# each get torchrun's world of 2, not Slurm's world of 1.
if /usr/bin/python3 -c 'import torch.distributed.run' 2>/dev/null; then
	printf '%s\n' 'resolvers = ( { plugin = "torch-env"; policy = "sufficient"; },' \
		'  { plugin = "slurm"; policy = "sufficient"; } );' >"$dir/torch.conf"
	cat >"$dir/torch-worker.sh" <<WORKER
#!/bin/sh
"$CR_CLI" --config "$dir/torch.conf" resolve --format json >"$dir/torch.\$RANK" 2>&1
echo "exit \$? \$MASTER_PORT \$SLURM_PROCID/\$SLURM_NTASKS" >>"$dir/torch.\$RANK"
WORKER
	std=
	/usr/bin/python3 -c 'import sys
from torch.distributed.elastic.multiprocessing.api import Std
sys.exit(Std.from_str("0") is None)' 2>/dev/null || std="--redirects 2 --tee 2"
	# shellcheck disable=SC2086
	if srun --immediate=30 --time=1 -N1 -n1 /usr/bin/python3 -m torch.distributed.run --standalone \
		--nproc_per_node 2 --max_restarts 0 $std --no_python sh "$dir/torch-worker.sh" \
		>"$dir/torch.log" 2>&1; then
		p=$(sed -n 's/^exit 0 \([0-9]*\) .*/\1/p' "$dir/torch.0")
		w="{\"cluster\": {\"worker\": [\"localhost:$p\", null]}, \"task\": {\"type\": \"worker\", \"index\":"
		if [ -n "$p" ] && [ "$(cat "$dir/torch.0")" = "$w 0}, \"master\": \"localhost:$p\", \"num_accelerators\": {}}
exit 0 $p 0/1" ] && [ "$(cat "$dir/torch.1")" = "$w 1}, \"master\": \"\", \"num_accelerators\": {}}
exit 0 $p 0/1" ]; then
			echo "ok - torchrun in a step: each worker gets torchrun's world of 2"
		else
			echo "not ok - torchrun in a step"
			cat "$dir/torch.0" "$dir/torch.1" >&2
			fail=1
		fi
	else
		echo "not ok - torchrun in a step: srun failed"
		cat "$dir/torch.log" >&2
		fail=1
	fi
else
	echo "ok - # SKIP torchrun in a step: no torch for /usr/bin/python3"
fi

# A smaller step inside an sbatch allocation. The batch script itself is not
# a task: slurm declines, and the shipped local fallback refuses (no silent
# world of one) rather than answer "task 0" for every rank a launcher in the
# script would start.
printf '%s\n' 'resolvers = ( { plugin = "slurm"; policy = "sufficient"; },' \
	'  { plugin = "simple"; name = "local"; policy = "sufficient";' \
	'    cluster = { worker = [ "localhost:2222" ]; }; task_type = "worker"; task_id = 0;' \
	'    refuse_if_launched = true; } );' >"$dir/guard.conf"
cat >"$dir/job.sh" <<JOB
#!/bin/sh
"$CR_CLI" --config "$dir/guard.conf" explain >"$dir/job-explain.out" 2>&1
echo "rc=\$?" >>"$dir/job-explain.out"
"$CR_CLI" --config "$dir/guard.conf" resolve --format json >"$dir/job-resolve.out" 2>&1
echo "rc=\$?" >>"$dir/job-resolve.out"
srun -N2 -n3 "$dir/task.sh" >"$dir/job-step.out" 2>"$dir/job-step.err"
JOB
jobid=$(sbatch --parsable -N4 -n8 --time=1 -o "$dir/job.log" "$dir/job.sh")
n=0
while [ ! -s "$dir/job-step.out" ] || squeue -h -j "$jobid" 2>/dev/null | grep -q .; do
	n=$((n + 1))
	if [ "$n" -gt 300 ]; then
		echo "not ok - sbatch: job $jobid did not finish in 30 s"
		fail=1
		break
	fi
	sleep 0.1
done
/usr/bin/python3 "$here/check-tasks.py" "sbatch -N4 -n8, step srun -N2 -n3" 3 \
	<"$dir/job-step.out" || { fail=1; cat "$dir/job-step.err" "$dir/job.log" >&2; }
declined="   declined: in Slurm job $jobid but not in a task of a step (SLURM_STEP_ID is unset: \
a batch script or an salloc shell, whose allocation is not a task); start the tasks with srun \
(srun cluster-resolver exec -- PROGRAM) or a launcher such as mpirun or torchrun"
refused="resolver 'local': SLURM_NTASKS=8: this process is one of 8 tasks of a Slurm job \
(sbatch, salloc), and no resolver placed it (the slurm resolver reads these variables: is it \
in the config and installed? 'cluster-resolver explain' says why each resolver passed); \
refusing a world of one"
if grep -qxF -- "$declined" "$dir/job-explain.out" && grep -qxF "   error: ${refused#resolver \'local\': }" "$dir/job-explain.out" &&
	[ "$(tail -n 1 "$dir/job-explain.out")" = rc=1 ]; then
	echo "ok - sbatch batch script: explain says slurm declined and local refused"
else
	echo "not ok - sbatch batch script: explain"
	cat "$dir/job-explain.out" >&2
	fail=1
fi
want=$(printf 'cluster-resolver: %s\nrc=1' "$refused")
if [ "$(cat "$dir/job-resolve.out")" = "$want" ]; then
	echo "ok - sbatch batch script: resolve refuses a world of one"
else
	echo "not ok - sbatch batch script: resolve"
	printf 'got:  %s\nwant: %s\n' "$(cat "$dir/job-resolve.out")" "$want" >&2
	fail=1
fi
exit $fail
