#!/bin/sh
# test-torch-elastic.sh's 2 -> 3 -> 2 job with the membership from the
# Kubernetes fixture API server (tests/fixtures/k8s) instead of a hosts
# file: Debian's PyTorch (gloo) on loopback, pods w-0, w-1, w-2 with the
# IPs 127.0.0.1-3, one `exec --elastic --format torch` agent a pod on the
# default options, each knowing its pod by POD_NAME as the downward API
# gives it. The scale-up as a Kubernetes scale-up goes: w-2 is created
# Pending (no member yet, and no failure), then turns Running, and its
# agent starts then, as its container would. The scale-down as a pod
# deletion goes: w-2 is deleted and its agent SIGTERMed at the same time.
# Both changes converge, one program start per member per change, no
# counted failure, one world id and port per membership, every all_reduce
# right; w-2's agent exits 0 with one line. Exact outcomes; every wait is
# a bound, never a measure.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/torch-common.sh"
fixture=$CR_TEST_SOURCE_DIR/tests/fixtures/k8s/k8s_fixture.py
ctl=$tmp/watch.jsonl
: >"$ctl"
printf '[%s,\n %s]\n' \
	'{"name": "w-0", "labels": {"job-name": "w"}, "phase": "Running", "podIP": "127.0.0.1"}' \
	'{"name": "w-1", "labels": {"job-name": "w"}, "phase": "Running", "podIP": "127.0.0.2"}' \
	>"$tmp/pods.json"
"$py" "$fixture" --dir "$tmp/api" --pods "$tmp/pods.json" --watch-control "$ctl" \
	>"$tmp/fixture.log" 2>&1 &
fixture_pid=$!
trap 'kill "$fixture_pid" 2>/dev/null; wait "$fixture_pid"; rm -rf "$tmp"' EXIT
n=0
while [ ! -s "$tmp/api/port" ] && [ "$n" -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
[ -s "$tmp/api/port" ] || { echo "FAIL: the fixture did not start"; cat "$tmp/fixture.log"; exit 1; }
conf=$tmp/k8s.conf
printf '%s\n' 'accelerators = ( );' \
	"resolvers = ( { plugin = \"k8s\"; kubeconfig = \"$tmp/api/kubeconfig\"; namespace = \"default\";" \
	'  port = 2222; jobs = { worker = [ "job-name=w" ]; }; } );' >"$conf"
# op JSON: one change of the pods (the fixture's watch timeline).
op() { printf '%s\n' "$1" >>"$ctl"; }
# written TYPE N: until the fixture wrote N events of TYPE to a watch (its
# store has the change then), at most ~60 s.
written() {
	n=0
	while [ "$(count "\"type\": \"$1\"" "$tmp/api/events.jsonl")" -lt "$2" ] &&
		[ "$n" -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
	[ "$n" -lt 600 ] || { echo "FAIL: no $1 event written"; fail=1; }
}
# agent M POD: member M, the agent of pod POD, in the background.
agent() {
	: >"$tmp/$1.err"
	POD_NAME=$2 LOG="$tmp/$1.log" CKPT="$tmp/ckpt" "$cli" -c "$conf" \
		exec --elastic --format torch -- "$py" "$train" 2>"$tmp/$1.err" &
	eval "pid_$1=\$!"
}
unset HOSTNAME POD_IP POD_NAMESPACE KUBECONFIG KUBERNETES_SERVICE_HOST

agent A w-0
agent B w-1
wait_init A 2 1
wait_init B 2 1
wait_steps A 2 3
# scale-up: created Pending (a member to come), then Running; its
# container (the agent) starts once it runs
op '{"op": "add", "pod": {"name": "w-2", "labels": {"job-name": "w"}, "phase": "Pending", "podIP": "127.0.0.3"}}'
written ADDED 1
op '{"op": "phase", "name": "w-2", "phase": "Running"}'
written MODIFIED 1
agent C w-2
wait_init A 3 1
wait_init B 3 1
wait_init C 3 1
wait_steps C 3 3
# scale-down: the pod deleted, its container SIGTERMed as the watch hears of it
op '{"op": "delete", "name": "w-2"}'
kill -TERM "$pid_C"
wait_pid "$pid_C"
check "removed member (SIGTERMed): exit" 0 "$?"
check "removed member: its line" 1 "$(grep -c 'a clean leave' "$tmp/C.err")"
check "removed member: one line" 1 "$(grep -c '^cluster-resolver:' "$tmp/C.err")"
wait_init A 2 2
wait_init B 2 2
wait_steps A 2 10
touch "$STOP_FILE"
wait_pid "$pid_A"
check "A: exit" 0 "$?"
wait_pid "$pid_B"
check "B: exit" 0 "$?"
check_job
check "no warning, no error of ours" 0 "$(cat "$tmp"/?.err | grep -c '^cluster-resolver: \(warning\|error\)')"
# CR_TEST_KEEP=DIR keeps the records of the job and the fixture's requests.
[ -z "${CR_TEST_KEEP:-}" ] || cp "$tmp"/?.log "$tmp"/?.err "$tmp/api/requests.jsonl" "$CR_TEST_KEEP"/

if [ "$fail" != 0 ]; then
	for m in A B C; do echo "== $m.err"; cat "$tmp/$m.err"; done
fi
[ "$fail" = 0 ] && echo "ok: exec --elastic with PyTorch on Kubernetes"
exit "$fail"
