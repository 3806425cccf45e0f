#!/bin/sh
# test-sge-compose.sh - recorded environments of launchers inside a Grid
# Engine job, through the CLI and a chain (config/sge.conf, the shipped
# config/cluster-resolver.conf, and one where every resolver is asked):
# torchrun's worker and mpirun's rank inherit the job script's PE_HOSTFILE,
# NSLOTS, NHOSTS; the innermost launcher answers (torch-env, mpi), and sge
# adds nothing: skipped after a sufficient launcher, declined when asked.
set -eu
: "${CR_CLI:?}" "${CR_TEST_SOURCE_DIR:?}" "${CLUSTER_RESOLVER_PLUGIN_PATH:?}"
src=$CR_TEST_SOURCE_DIR
pe=$src/tests/fixtures/sge/spool/node1/active_jobs/17.1/pe_hostfile
sge="JOB_ID=17 PE=mpi PE_HOSTFILE=$pe NSLOTS=9 NHOSTS=3 NQUEUES=4 SGE_TASK_ID=undefined"
torch="TORCHELASTIC_RUN_ID=none RANK=3 WORLD_SIZE=4 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 GROUP_RANK=1
GROUP_WORLD_SIZE=2 MASTER_ADDR=node1.cluster.example MASTER_PORT=29500"
ompi="OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_LOCAL_RANK=2
OMPI_COMM_WORLD_LOCAL_SIZE=3 OMPI_MCA_orte_hnp_uri=1234.0;tcp://127.0.0.1:40000"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Every resolver asked (optional): the union of what each gives.
printf '%s\n' 'resolvers = (' '  { plugin = "torch-env"; policy = "optional"; },' \
	'  { plugin = "mpi"; policy = "optional"; },' '  { plugin = "sge"; policy = "optional"; }' \
	');' >"$tmp/all.conf"

count=0 fail=0
run() { # NAME WANT-OUTPUT CONFIG ENV -- ARGS: exact stdout+stderr and exit status 0
	name=$1 want=$2 conf=$3 vars=$4
	shift 5
	count=$((count + 1))
	rc=0
	# shellcheck disable=SC2086
	got=$(env -i PATH=/usr/bin:/bin CLUSTER_RESOLVER_PLUGIN_PATH="$CLUSTER_RESOLVER_PLUGIN_PATH" \
		CLUSTER_RESOLVER_CONFIG= $vars "$CR_CLI" --config "$conf" "$@" 2>&1) || rc=$?
	if [ "$got" = "$want" ] && [ "$rc" -eq 0 ]; then
		echo "ok $count - $name"
	else
		echo "not ok $count - $name"
		printf '%s\nrc=%s\n' "$got" "$rc" | sed 's/^/# got:  /'
		printf '%s\n' "$want" | sed 's/^/# want: /'
		fail=1
	fi
}

w3='["node1.cluster.example:8888", "node2.cluster.example:8888", "node3.cluster.example:8888"]'
tjson='{"cluster": {"worker": ["node1.cluster.example:29500", null, null, null]}, "task": {"type": "worker", "index": 3}, "master": "", "num_accelerators": {}}'
run "the job script alone: sge's hosts, task 0" \
	"{\"cluster\": {\"worker\": $w3}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"master\": \"node1.cluster.example:8888\", \"num_accelerators\": {}}" \
	"$src/config/sge.conf" "$sge" -- resolve --format json
for conf in "$src/config/sge.conf" "$src/config/cluster-resolver.conf" "$tmp/all.conf"; do
	run "torchrun inside the job ($(basename "$conf")): torch-env's world, rank 3 of 4" \
		"$tjson" "$conf" "$torch $sge" -- resolve --format json
done
run "torchrun inside the job: --format torch is torchrun's own" "export MASTER_ADDR='node1.cluster.example'
export MASTER_PORT='29500'
export WORLD_SIZE='4'
export RANK='3'
export LOCAL_RANK='1'
export LOCAL_WORLD_SIZE='2'
export NODE_RANK='1'
export GROUP_RANK='1'" "$src/config/cluster-resolver.conf" "$torch $sge" -- resolve --format torch
ojson='{"cluster": {"worker": ["HOST:8888", "HOST:8889", "HOST:8890"]}, "task": {"type": "worker", "index": 2}, "master": "HOST:8890", "num_accelerators": {}}'
for conf in "$src/config/sge.conf" "$src/config/cluster-resolver.conf" "$tmp/all.conf"; do
	run "mpirun's rank inside the job ($(basename "$conf")): mpi's world, rank 2 of 3 on this node" \
		"$(printf '%s' "$ojson" | sed "s/HOST/$(hostname)/g")" "$conf" "$ompi $sge" -- resolve --format json
done
# What sge says when asked (every resolver optional).
count=$((count + 1))
# shellcheck disable=SC2086
out=$(env -i PATH=/usr/bin:/bin CLUSTER_RESOLVER_PLUGIN_PATH="$CLUSTER_RESOLVER_PLUGIN_PATH" \
	CLUSTER_RESOLVER_CONFIG= $torch $sge "$CR_CLI" --config "$tmp/all.conf" explain 2>&1) || :
line="   declined: in Grid Engine job 17, but WORLD_SIZE=4 says torchrun or another torch env:// launcher started this process (one of 4 processes), not the job script: the torch-env resolver places it"
if printf '%s\n' "$out" | grep -qxF -- "$line"; then
	echo "ok $count - asked in a torchrun worker, sge declines naming torchrun"
else
	echo "not ok $count - asked in a torchrun worker, sge declines naming torchrun"
	printf '%s\n' "$out" | sed 's/^/# /'
	fail=1
fi
echo "1..$count"
exit $fail
