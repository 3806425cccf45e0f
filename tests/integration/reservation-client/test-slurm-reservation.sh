#!/bin/sh
# test-slurm-reservation.sh - Slurm as a bare launcher, no cluster manager
# plugin: `srun -n4 cluster-resolver exec --supervise -- PROGRAM` with only
# reservation.so configured (executor id = SLURM_PROCID through
# CR_EXECUTOR_ID) against `reservation serve --num-executors 4 --num-ps 1
# --master-node chief`. The cluster forms, the chief and the workers run and
# exit, and the server stops the ps, which would otherwise run forever.
# A real munge + slurmctld + 4 slurmd on 127.0.0.1 (tests/integration/slurm).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${CR_TEST_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
: "${CR_CLI:?CR_CLI must name the cluster-resolver binary}"
for tool in munged slurmctld slurmd srun; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool not installed (Debian: munge slurmctld slurmd slurm-client)"
		exit 77
	fi
done
if "$CR_CLI" reservation plan --num-executors 1 --num-ps 0 2>&1 >/dev/null |
	grep -q "unknown command 'reservation'"; then
	echo "1..0 # SKIP this cluster-resolver has no \`reservation serve\` command yet"
	exit 77
fi
slurm=$src/tests/integration/slurm
dir=$(mktemp -d /tmp/cr-rsv-slurm.XXXXXX)
srv_pid=
show_logs() { "$slurm/show-logs.sh" "$dir" "$dir/server.log" "$dir/out" "$dir/err"; }
cleanup() {
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
	"$slurm/stop-slurm.sh" "$dir"
}
trap cleanup EXIT
trap 'echo "not ok - stopped by a signal"; show_logs; exit 1' INT TERM
SLURM_TEST_NODES=4 SLURM_TEST_CPUS=2 SLURM_TEST_GPUS=0 "$slurm/start-slurm.sh" "$dir"
. "$dir/env.sh"

head -c 32 /dev/urandom >"$dir/secret"
chmod 600 "$dir/secret"
printf 'resolvers = ( { plugin = "reservation"; secret_file = "%s"; timeout = 60.0; } );\n' \
	"$dir/secret" >"$dir/cr.conf"
mkfifo "$dir/line"
# Every wait is bounded, so a stuck step fails here, with the logs, well
# before ctest's 180 s: formation 60 s, the whole job 100 s on the server;
# srun may wait 30 s for its nodes and is killed at 120 s.
"$CR_CLI" reservation serve --num-executors 4 --num-ps 1 --master-node chief \
	--listen 127.0.0.1:0 --advertise 127.0.0.1 --secret-file "$dir/secret" --timeout 60 \
	--shutdown-timeout 100 --summary "$dir/summary.json" >"$dir/line" 2>"$dir/server.log" &
srv_pid=$!
if ! read -r line <"$dir/line"; then
	echo "not ok - reservation serve did not start"
	show_logs
	exit 1
fi
server=$(printf '%s' "$line" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["address"])')

# PROGRAM: record TF_CONFIG; the ps then serves until it is stopped.
cat >"$dir/program.sh" <<'PROG'
#!/bin/sh
printf '%s\n' "$TF_CONFIG" >"$OUT/task-$CR_EXECUTOR_ID.json"
case $TF_CONFIG in
*'"type": "ps"'*) trap 'echo stopped >"$OUT/ps-stopped"; exit 0' TERM
	while :; do sleep 0.1; done ;;
esac
PROG
chmod +x "$dir/program.sh"
cat >"$dir/task.sh" <<TASK
#!/bin/sh
CR_EXECUTOR_ID=\$SLURM_PROCID OUT="$dir" CR_RESERVATION_SERVER=$server \
	exec "$CR_CLI" --config "$dir/cr.conf" exec --supervise -- "$dir/program.sh"
TASK
chmod +x "$dir/task.sh"

fail=0
if ! timeout -k 5 120 srun --immediate=30 --time=2 -n4 "$dir/task.sh" >"$dir/out" 2>"$dir/err"; then
	echo "not ok - srun -n4 exec --supervise: $(cat "$dir/err")"
	fail=1
fi
wait "$srv_pid" && rc=0 || rc=$?
srv_pid=
if [ "$rc" -ne 0 ]; then
	echo "not ok - reservation serve exited $rc: $(cat "$dir/server.log")"
	fail=1
fi
/usr/bin/python3 - "$dir" <<'PY' || fail=1
import json, os, sys
d = sys.argv[1]
tasks = [json.load(open(os.path.join(d, 'task-%d.json' % e))) for e in range(4)]
roles = [(t['task']['type'], t['task']['index']) for t in tasks]
ok = roles == [('ps', 0), ('chief', 0), ('worker', 0), ('worker', 1)] and \
    all(t['cluster'] == tasks[0]['cluster'] for t in tasks) and \
    [len(tasks[0]['cluster'][j]) for j in ('ps', 'chief', 'worker')] == [1, 1, 2]
print('%s - srun -n4: one cluster, roles %s' % ('ok' if ok else 'not ok', roles))
stopped = os.path.exists(os.path.join(d, 'ps-stopped'))
summ = json.load(open(os.path.join(d, 'summary.json')))
by = sorted((x['executor_id'], x['exit_status'], x['stopped_by_server']) for x in summ)
ok2 = stopped and by == [(0, 0, True), (1, 0, False), (2, 0, False), (3, 0, False)]
print('%s - the server stopped the ps after the workers: %s' % ('ok' if ok2 else 'not ok', by))
sys.exit(0 if ok and ok2 else 1)
PY
[ "$fail" -eq 0 ] || show_logs
exit $fail
