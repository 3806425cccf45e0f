#!/bin/sh
# Why lsf.so declines, through the real CLI's `explain`: the exact reason
# for a job script among several tasks a host, among the slots, on a CSM
# system's launch node, and outside LSF (the manifest's reason: lsf.so is
# not loaded). Each names what would place the process.
set -u
cli=${CR_CLI:?CR_CLI is not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# declined NAME OPTIONS WANT VAR=value...: explain's "declined:" line.
declined() {
	name=$1 opts=$2 want=$3
	shift 3
	printf 'resolvers = ( { plugin = "lsf"; %s } );\n' "$opts" >"$tmp/c.conf"
	got=$(env -i PATH=/usr/bin:/bin CLUSTER_RESOLVER_PLUGIN_PATH="$CLUSTER_RESOLVER_PLUGIN_PATH" \
		"$@" "$cli" -c "$tmp/c.conf" explain 2>/dev/null | sed -n 's/^   declined: //p')
	if [ "$got" = "$want" ]; then
		echo "ok $name"
	else
		printf 'FAIL %s:\n  expected [%s]\n  got      [%s]\n' "$name" "$want" "$got"
		fail=1
	fi
}
J="LSB_JOBID=4711"
declined "two tasks a host" "tasks_per_host = 2;" \
	"in LSF job 4711 of 2 hosts, but LSF gives this process no rank among several tasks a host: start the tasks with jsrun or mpirun (the mpi resolver places each rank)" \
	"$J" "LSB_MCPU_HOSTS=hA 2 hB 2"
declined "one task a slot" "per_slot = true;" \
	"in LSF job 4711 of 2 hosts, but LSF gives this process no rank among the slots: start the tasks with jsrun or mpirun (the mpi resolver places each rank)" \
	"$J" "LSB_MCPU_HOSTS=hA 2 hB 2"
declined "the launch node of a CSM job" "" \
	"in LSF job 4711 of 2 compute hosts, on its launch node (a jsrun job's script runs there, no task does): start the tasks with jsrun or mpirun (the mpi resolver places each rank)" \
	"$J" "CSM_ALLOCATION_ID=7" "LSB_MCPU_HOSTS=batch1 1 a01n01 42 a01n02 42"
declined "outside LSF" "" "not in an LSF job: LSB_JOBID is not set" "LSB_MCPU_HOSTS=hA 2"
exit $fail
