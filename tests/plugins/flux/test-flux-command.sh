#!/bin/sh
# flux.so through the real CLI, with the job's R from a stand-in `flux`
# command on the PATH (stand-in/flux; Flux is not in Debian) that prints R
# (RFC 20's example), fails, hangs, prints garbage or too much; and the
# command named by the `flux` option. Each case checks the exact output,
# message and exit status. The hung case waits for `timeout` (1 s), never
# for the stand-in (60 s): its process group is killed.
set -u
cli=${CR_CLI:?CR_CLI is not set}
src=${CR_TEST_SOURCE_DIR:?CR_TEST_SOURCE_DIR is not set}
here=$src/tests/plugins/flux
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {
	if [ "$2" != "$3" ]; then
		printf 'FAIL %s:\n  expected [%s]\n  got      [%s]\n' "$1" "$2" "$3"; fail=1
	else
		printf 'ok %s\n' "$1"
	fi
}
id=$(printf '\306\222D2e73NP') # ƒD2e73NP, F58
# run NAME CONFIG [VAR=value ...]: resolve --format json in a Flux task
# (rank 5 of 8 on 4 nodes), the stand-in first on the PATH.
run() {
	name=$1 conf=$2
	shift 2
	printf 'resolvers = ( { plugin = "flux"; %s } );\n' "$conf" >"$tmp/$name.conf"
	env LANGUAGE= LC_ALL=C.UTF-8 PATH="$here/stand-in:$PATH" FLUX_JOB_ID="$id" FLUX_TASK_RANK=5 FLUX_JOB_SIZE=8 \
		FLUX_JOB_NNODES=4 FLUX_TASK_LOCAL_ID=1 \
		FLUX_STANDIN_JOB="$id" FLUX_STANDIN_R="$src/tests/fixtures/flux/R/example1.json" "$@" \
		"$cli" -c "$tmp/$name.conf" resolve --format json >"$tmp/out" 2>"$tmp/err"
	echo $? >"$tmp/rc"
}
result() { printf '%s|%s|%s' "$(cat "$tmp/rc")" "$(cat "$tmp/out")" "$(cat "$tmp/err")"; }
E="cluster-resolver: resolver 'flux': Flux:"
Q="\`flux job info $id R\`"

W8='0|{"cluster": {"worker": ["node186:8888", "node186:8889", "node187:8888", "node187:8889", "node188:8888", "node188:8889", "node189:8888", "node189:8889"]}, "task": {"type": "worker", "index": 5}, "master": "node188:8889", "num_accelerators": {}}|'
run found-on-path ""
check "flux on the PATH prints RFC 20's example R" "$W8" "$(result)"

run fails "" FLUX_STANDIN_MODE=fail
check "flux fails: its status and first line of stderr" \
	"1||$E $Q exited with status 1: flux-job: flux_open: Connection refused" "$(result)"

run hangs "timeout = 1;" FLUX_STANDIN_MODE=slow
check "flux hangs: killed at the timeout" \
	"1||$E $Q: no answer after 1 s (timeout): killed" "$(result)"

run garbage "" FLUX_STANDIN_MODE=garbage
check "flux prints no JSON" \
	"1||$E R of $Q: invalid JSON at line 1, column 1 (offset 0): unexpected character" \
	"$(result)"

run huge "" FLUX_STANDIN_MODE=huge
check "flux prints more than 16 MiB" \
	"1||$E $Q: more than 16777216 bytes of output: killed" "$(result)"

run other-job "" FLUX_STANDIN_JOB=fXYZ
check "flux knows no such job" \
	"1||$E $Q exited with status 1: flux-job: $id: no such job" \
	"$(result)"

run option-path "flux = \"$here/stand-in/flux\";" PATH=/usr/bin:/bin
check "the flux option names the command off the PATH" "$W8" "$(result)"

run missing 'flux = "/nonexistent/flux";'
# GLib's own words, untranslated (LC_ALL above), with its quotes.
# shellcheck disable=SC1111
check "a flux that is not there" \
	"1||$E cannot run \`/nonexistent/flux job info $id R\`: Failed to execute child process “/nonexistent/flux” (No such file or directory) (set flux to the command, or r_file to a copy of R)" \
	"$(result)"

run r-file "r_file = \"$src/tests/fixtures/flux/R/several-entries.json\";" \
	FLUX_STANDIN_MODE=fail FLUX_TASK_RANK=2 FLUX_JOB_SIZE=3 FLUX_JOB_NNODES=3 FLUX_TASK_LOCAL_ID=0
check "r_file: flux is not run" \
	'0|{"cluster": {"worker": ["node01.cluster.example.org:8888", "node02.cluster.example.org:8888", "gpu7:8888"]}, "task": {"type": "worker", "index": 2}, "master": "gpu7:8888", "num_accelerators": {}}|' \
	"$(result)"
# Why it declines (explain): nodes of unequal cores and an uneven count.
printf 'resolvers = ( { plugin = "flux"; r_file = "%s"; } );\n' \
	"$src/tests/fixtures/flux/R/unequal-cores.json" >"$tmp/unequal.conf"
got=$(env FLUX_JOB_ID="$id" FLUX_TASK_RANK=0 FLUX_JOB_SIZE=3 FLUX_JOB_NNODES=2 FLUX_TASK_LOCAL_ID=0 \
	"$cli" -c "$tmp/unequal.conf" explain 2>/dev/null | sed -n 's/^   declined: //p')
check "unequal cores, uneven count: declined, saying why" \
	"in Flux job $id, 3 tasks on 2 nodes of unequal cores: where the job shell put the extra tasks depends on the jobspec, which a task does not see; the mpi resolver places Flux tasks through its PMI (on unless -o pmi=off)" \
	"$got"
exit $fail
