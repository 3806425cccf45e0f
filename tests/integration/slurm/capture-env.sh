#!/bin/sh
# capture-env.sh OUTDIR - run srun/sbatch scenarios on a private Slurm and
# save every task's Slurm environment as OUTDIR/<scenario>/task-<PROCID>.env
# (the fixtures under tests/fixtures/slurm/ were made with it). Variables
# that name this run's temp dir or ports are left out.
set -eu
out=${1:?usage: capture-env.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$here/../../../scripts/hermetic.sh" "$0" "$@"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
dir=$(mktemp -d /tmp/cr-slurm-capture.XXXXXX)
trap '"$here/stop-slurm.sh" "$dir"' EXIT
"$here/start-slurm.sh" "$dir"
. "$dir/env.sh"

# The dumper runs as each task: it writes its filtered environment.
cat >"$dir/dump.sh" <<'DUMP'
#!/bin/sh
d=$1
mkdir -p "$d"
env | LC_ALL=C sort | grep -E '^(SLURM_|SLURMD_NODENAME=|CUDA_VISIBLE_DEVICES=|GPU_DEVICE_ORDINAL=)' |
	grep -Ev '^SLURM_(CONF|WORKING_CLUSTER|SRUN_COMM_PORT|STEP_LAUNCHER_PORT|TASK_PID|JOB_START_TIME|JOB_END_TIME|SUBMIT_DIR|HOSTFILE|SPANK_[A-Z_]*|JOB_USER|JOB_UID|JOB_GID|JOB_ACCOUNT)=' \
	>"$d/task-${SLURM_PROCID:-batch}.env"
DUMP
chmod +x "$dir/dump.sh"

run() {
	name=$1
	shift
	echo "capture: $name: srun $*" >&2
	srun --time=1 "$@" "$dir/dump.sh" "$out/$name"
}
run block-N2-n5 -N2 -n5
run block-N4-n8 -N4 -n8 -m block
run cyclic-N4-n8 -N4 -n8 -m cyclic
run cyclic-N3-n5 -N3 -n5 -m cyclic
run plane3-N4-n8 -N4 -n8 -m plane=3
run gpt1-N4-n8 -N4 -n8 --gpus-per-task=1
run gpn2-N2-n4 -N2 -n4 --gpus-per-node=2
run cpu-N2-n3 -N2 -n3
run blockcyclic-N2-n6 -N2 -n6 -m block:cyclic
printf 'node2\nnode1\nnode1\nnode3\nnode2\n' >"$dir/hostfile"
SLURM_HOSTFILE=$dir/hostfile run arbitrary-n5 -n5 -m arbitrary
cp "$dir/hostfile" "$out/arbitrary-n5/hostfile"

# A step inside an sbatch allocation, and the batch script itself.
cat >"$dir/job.sh" <<JOB
#!/bin/sh
"$dir/dump.sh" "$out/sbatch-N4-n8-batch"
srun -N2 -n3 "$dir/dump.sh" "$out/sbatch-N4-n8-step-N2-n3"
JOB
jobid=$(sbatch --parsable -N4 -n8 -o "$dir/job.out" "$dir/job.sh")
n=0
while squeue -h -j "$jobid" 2>/dev/null | grep -q .; do
	n=$((n + 1))
	[ "$n" -gt 300 ] && { echo "capture: job $jobid did not finish" >&2; exit 1; }
	sleep 0.1
done
cat "$dir/job.out" >&2
