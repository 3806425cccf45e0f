#!/bin/sh
# test-compose.sh - which resolver places a process when a launcher runs
# inside a batch scheduler's job, with the shipped default configuration
# (config/cluster-resolver.conf) and real launchers on loopback
# (scripts/hermetic.sh): Open MPI's mpirun and MPICH's mpiexec inside a PBS
# job's and a Grid Engine job's recorded environment, Debian's torchrun
# inside both. The innermost launcher wins (docs/launchers.md): every rank
# gets mpirun's or torchrun's world, not the scheduler's hosts; the job
# script itself, where no launcher ran, gets the scheduler's answer. Each
# rank writes its own file; every wait is a bound, never a measure.
set -u
src=${CR_TEST_SOURCE_DIR:?}
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec sh "$src/scripts/hermetic.sh" sh "$0" "$@"
fi
cli=${CR_CLI:?}
py=/usr/bin/python3
for tool in mpirun mpiexec.mpich; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool is not installed (scripts/deps.sh)"
		exit 77
	fi
done
if ! "$py" -c 'import torch.distributed.run' 2>/dev/null; then
	echo "SKIP: no torch for $py (scripts/deps.sh installs python3-torch)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/common/expect.sh"

for v in $(env | sed -n 's/^\(OMPI_[A-Z_a-z]*\|PMIX_[A-Z_]*\|PMI_[A-Z_]*\|MPI_[A-Z_]*\|PBS_[A-Z_]*\|SLURM_[A-Z_]*\|JOB_ID\|PE_HOSTFILE\|NSLOTS\|NHOSTS\|TF_CONFIG\|RANK\|WORLD_SIZE\|MASTER_[A-Z]*\)=.*/\1/p'); do
	unset "$v"
done
export HOME="$tmp" OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
	OMPI_MCA_btl=self,vader,tcp
conf=$src/config/cluster-resolver.conf
ompi="timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3"
mpich="timeout 120 mpiexec.mpich -n 3"
ohost=$($ompi sh -c 'echo "$PMIX_HOSTNAME"' | head -n 1)
hhost=$($mpich sh -c 'echo "${MPIR_CVAR_CH3_INTERFACE_HOSTNAME:-$(hostname)}"' | head -n 1)
[ -n "$ohost" ] && [ -n "$hhost" ] || { echo "FAIL: no host name from the launchers"; exit 1; }
# Debian 12's torch 1.13 on Python 3.11 cannot read its default --redirects.
std=
if ! "$py" -c 'import sys
from torch.distributed.elastic.multiprocessing.api import Std
sys.exit(Std.from_str("0") is None)' 2>/dev/null; then
	std="--redirects 2 --tee 2"
fi

# A PBS job of two nodes (PBS_NODEFILE: one line a slot), its job script on
# node 0; a Grid Engine job of 4 slots on two hosts, its master task.
printf 'pbs-a\npbs-a\npbs-b\npbs-b\n' >"$tmp/nodefile"
printf 'sge-a.example 2 all.q@sge-a.example UNDEFINED\nsge-b.example 2 all.q@sge-b.example UNDEFINED\n' >"$tmp/pe_hostfile"
pbs="PBS_JOBID=7.server PBS_ENVIRONMENT=PBS_BATCH PBS_NODEFILE=$tmp/nodefile PBS_NODENUM=0"
sge="JOB_ID=8 PE_HOSTFILE=$tmp/pe_hostfile PE=mpi NSLOTS=4 NHOSTS=2 SGE_TASK_ID=undefined"

# Each launched process writes OUT.<its rank>: resolve's output and exit.
cat >"$tmp/rank.sh" <<'EOS'
r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${RANK:-x}}}
"$CR_CLI" -c "$CONF" resolve --format json >"$OUT.$r" 2>&1
echo "exit $?" >>"$OUT.$r"
[ -z "${MASTER_PORT:-}" ] || echo "$MASTER_PORT" >"$OUT.port"
EOS

# mpi_world NAME HOST: every rank of 3 has mpirun's world on HOST.
mpi_world() {
	for r in 0 1 2; do
		tasks="[\"$2:8888\", \"$2:8889\", \"$2:8890\"]"
		expect "$1-rank$r" 0 "{\"cluster\": {\"worker\": $tasks}, \"task\": {\"type\": \"worker\", \"index\": $r}, \"master\": \"$2:$((8888 + r))\", \"num_accelerators\": {}}
exit 0" '' -- cat "$tmp/$1.$r"
	done
}
# torch_world NAME: each of torchrun's 2 workers has torchrun's world (the
# coordinator, the other address unknown).
torch_world() {
	p=$(cat "$tmp/$1.port" 2>/dev/null)
	expect "$1-rank0" 0 "{\"cluster\": {\"worker\": [\"localhost:$p\", null]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"master\": \"localhost:$p\", \"num_accelerators\": {}}
exit 0" '' -- cat "$tmp/$1.0"
	expect "$1-rank1" 0 "{\"cluster\": {\"worker\": [\"localhost:$p\", null]}, \"task\": {\"type\": \"worker\", \"index\": 1}, \"master\": \"\", \"num_accelerators\": {}}
exit 0" '' -- cat "$tmp/$1.1"
}
launch() { # NAME SCHEDULER-ENV LAUNCHER...
	name=$1 senv=$2
	shift 2
	# shellcheck disable=SC2086
	env $senv CR_CLI="$cli" CONF="$conf" OUT="$tmp/$name" "$@" sh "$tmp/rank.sh" \
		>"$tmp/$name.log" 2>&1 ||
		{ echo "FAIL $name: launcher exit $?"; cat "$tmp/$name.log"; fail=1; }
}
torchrun="timeout 120 $py -m torch.distributed.run --standalone --nproc_per_node 2 --max_restarts 0 $std --no_python"

# PBS: the job script gets PBS's two nodes; mpirun's and torchrun's
# processes get their launcher's world.
expect pbs-job-script 0 '{"cluster": {"worker": ["pbs-a:8888", "pbs-b:8888"]}, "task": {"type": "worker", "index": 0}, "master": "pbs-a:8888", "num_accelerators": {}}' '' \
	-- env $pbs "$cli" -c "$conf" resolve --format json
launch pbs-ompi "$pbs" $ompi
mpi_world pbs-ompi "$ohost"
# Hydra reads a PBS job's node file itself (its pbs resource kernel) and
# would start the ranks on pbs-a and pbs-b: keep them on this host.
launch pbs-mpich "$pbs" $mpich -rmk user -launcher fork
mpi_world pbs-mpich "$hhost"
# shellcheck disable=SC2086
launch pbs-torchrun "$pbs" $torchrun
torch_world pbs-torchrun

# Grid Engine: the same for its master task's environment.
launch sge-ompi "$sge" $ompi
mpi_world sge-ompi "$ohost"
launch sge-mpich "$sge" $mpich
mpi_world sge-mpich "$hhost"
# shellcheck disable=SC2086
launch sge-torchrun "$sge" $torchrun
torch_world sge-torchrun
exit $fail
