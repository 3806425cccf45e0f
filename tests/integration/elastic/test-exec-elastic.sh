#!/bin/sh
# `exec --elastic` over a hosts_file, end to end: a 3-task job whose
# program appends CR_GENERATION, CR_RESTART_COUNT and TF_CONFIG to a log;
# a member leaves (2 tasks, this task's index follows it), two join (4),
# this task leaves (exit 0, one line); a file flapping every 100 ms for 3 s
# gives one restart once settled; a program that fails twice under
# --max-restarts 1 ends with its status; --min-tasks, --max-tasks and
# torchrun's range. Exact outputs; every wait is a bound, never a measure.
. "$(dirname "$0")/common.sh"
conf=$tmp/elastic.conf
log=$tmp/log
# The program: one log line per start, then wait to be stopped.
prog='printf "%s %s %s\n" "$CR_GENERATION" "$CR_RESTART_COUNT" "$TF_CONFIG" >>"$1"; exec sleep 300'

# ---- leave, join, leave: this task is 127.0.0.2 (--task-id 1 pins the
# first generation; later ones follow its address) ----
hosts 127.0.0.1:1 127.0.0.2:1 127.0.0.3:1
"$cli" -c "$conf" --task-type worker --task-id 1 exec --elastic --settle 0.2 -- \
	sh -c "$prog" sh "$log" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_lines "$log" 1
hosts 127.0.0.2:1 127.0.0.3:1
wait_lines "$log" 2
hosts 127.0.0.2:1 127.0.0.3:1 127.0.0.4:1 127.0.0.5:1
wait_lines "$log" 3
hosts 127.0.0.3:1 127.0.0.4:1 127.0.0.5:1
wait_exit "$pid"
check "membership: exit" 0 "$?"
check "membership: log" '1 0 {"cluster": {"worker": ["127.0.0.1:1", "127.0.0.2:1", "127.0.0.3:1"]}, "task": {"type": "worker", "index": 1}}
2 0 {"cluster": {"worker": ["127.0.0.2:1", "127.0.0.3:1"]}, "task": {"type": "worker", "index": 0}}
3 0 {"cluster": {"worker": ["127.0.0.2:1", "127.0.0.3:1", "127.0.0.4:1", "127.0.0.5:1"]}, "task": {"type": "worker", "index": 0}}' "$(cat "$log")"
check "membership: stderr" "cluster-resolver: exec: generation 2 (2 tasks): restarting 'sh'
cluster-resolver: exec: generation 3 (4 tasks): restarting 'sh'
cluster-resolver: exec: this task is no longer in the cluster (generation 4); stopping 'sh'" "$(cat "$tmp/err")"
check "membership: stdout" "" "$(cat "$tmp/out")"

# ---- flapping every 100 ms for 3 s, then a new membership: one restart.
# The settle time (1.5 s) is far above the flapping period, so a slow
# machine only makes the flapping slower, never a restart. ----
rm -f "$log"
hosts 127.0.0.1:1 127.0.0.2:1 127.0.0.3:1
"$cli" -c "$conf" --task-type worker --task-id 0 exec --elastic --settle 1.5 -- \
	sh -c "$prog" sh "$log" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_lines "$log" 1
i=0
while [ "$i" -lt 30 ]; do
	if [ $((i % 2)) = 0 ]; then hosts 127.0.0.1:1 127.0.0.2:1; else hosts 127.0.0.1:1 127.0.0.2:1 127.0.0.3:1; fi
	sleep 0.1
	i=$((i + 1))
done
hosts 127.0.0.1:1 127.0.0.3:1
wait_lines "$log" 2
kill -TERM "$pid"
wait_exit "$pid"
check "flapping: exit (the program's, SIGTERM)" 143 "$?"
check "flapping: one restart" '1 0 {"cluster": {"worker": ["127.0.0.1:1", "127.0.0.2:1", "127.0.0.3:1"]}, "task": {"type": "worker", "index": 0}}
G 0 {"cluster": {"worker": ["127.0.0.1:1", "127.0.0.3:1"]}, "task": {"type": "worker", "index": 0}}' "$(sed '2s/^[0-9]* /G /' "$log")"
check "flapping: stderr" "cluster-resolver: exec: generation G (2 tasks): restarting 'sh'
cluster-resolver: exec: 'sh' ended with 143 after signal 15 was passed on" "$(sed 's/generation [0-9]*/generation G/' "$tmp/err")"

# ---- failures: restarted with the same cluster up to --max-restarts ----
rm -f "$log"
hosts 127.0.0.1:1
"$cli" -c "$conf" --task-type worker --task-id 0 exec --elastic --settle 0 --max-restarts 1 -- \
	sh -c 'echo "$CR_GENERATION $CR_RESTART_COUNT" >>"$1"; exit 3' sh "$log" 2>"$tmp/err"
check "crashes: exit (the program's)" 3 "$?"
check "crashes: log" "1 0
1 1" "$(cat "$log")"
check "crashes: stderr" "cluster-resolver: exec: 'sh' exited with 3; restart 1 of 1 in 1 s
cluster-resolver: exec: 'sh' exited with 3 after 1 restart (--max-restarts)" "$(cat "$tmp/err")"
"$cli" -c "$conf" exec --elastic --settle 0 --max-restarts 5 -- sh -c 'exit 0' 2>"$tmp/err"
check "exit 0 ends it: exit" 0 "$?"
check "exit 0 ends it: stderr" "" "$(cat "$tmp/err")"
"$cli" -c "$conf" exec --elastic --settle 0 -- sh -c 'kill -KILL $$' 2>"$tmp/err"
check "killed by a signal: exit" 137 "$?"
check "killed by a signal: stderr" "cluster-resolver: exec: 'sh' exited with 137; no restart (--max-restarts 0)" "$(cat "$tmp/err")"

"$cli" -c "$conf" exec --elastic --settle 0 --max-restarts 2 -- /nonexistent/program 2>"$tmp/err"
check "missing program: exit" 127 "$?"
# Not restarted: no restart would make it executable (one line).
check "missing program: stderr" "cluster-resolver: exec: cannot run '/nonexistent/program': No such file or directory (exit 127; not restarted)" "$(cat "$tmp/err")"

# ---- --min-tasks: wait for the tasks, up to --min-wait ----
hosts 127.0.0.1:1 127.0.0.2:1
"$cli" -c "$conf" exec --elastic --settle 0 --min-tasks 3 --min-wait 0.2 -- true 2>"$tmp/err"
check "too few: exit" 1 "$?"
check "too few: stderr" "cluster-resolver: exec: 2 tasks in the cluster, fewer than --min-tasks 3; waiting up to 0.2 s
cluster-resolver: exec: 2 tasks in the cluster after 0.2 s, fewer than --min-tasks 3" "$(cat "$tmp/err")"
rm -f "$log"
rm -f "$tmp/out" "$tmp/err"
"$cli" -c "$conf" --task-type worker --task-id 0 exec --elastic --min-tasks 3 --settle 0 -- \
	sh -c 'echo "$CR_GENERATION $TF_CONFIG" >>"$1"' sh "$log" 2>"$tmp/err" &
pid=$!
wait_lines "$tmp/err" 1
hosts 127.0.0.1:1 127.0.0.2:1 127.0.0.3:1
wait_exit "$pid"
check "recovered: exit" 0 "$?"
check "recovered: log" '2 {"cluster": {"worker": ["127.0.0.1:1", "127.0.0.2:1", "127.0.0.3:1"]}, "task": {"type": "worker", "index": 0}}' "$(cat "$log")"

# ---- --max-tasks: the first M in cluster order; a task after them waits ----
hosts 127.0.0.1:1 127.0.0.2:1 127.0.0.3:1 127.0.0.4:1
"$cli" -c "$conf" --task-type worker --task-id 1 exec --elastic --settle 0 --max-tasks 2 -- \
	sh -c 'echo "$TF_CONFIG"' >"$tmp/out" 2>"$tmp/err"
check "max tasks: exit" 0 "$?"
check "max tasks: TF_CONFIG" '{"cluster": {"worker": ["127.0.0.1:1", "127.0.0.2:1"]}, "task": {"type": "worker", "index": 1}}' "$(cat "$tmp/out")"
rm -f "$log"
rm -f "$tmp/out" "$tmp/err"
"$cli" -c "$conf" --task-type worker --task-id 3 exec --elastic --max-tasks 2 --settle 0 -- \
	sh -c 'echo "$TF_CONFIG" >>"$1"' sh "$log" 2>"$tmp/err" &
pid=$!
wait_lines "$tmp/err" 1
hosts 127.0.0.3:1 127.0.0.4:1
wait_exit "$pid"
check "spare: exit" 0 "$?"
check "spare: stderr" "cluster-resolver: exec: this task is after the first 2 (--max-tasks); waiting as a spare" "$(cat "$tmp/err")"
check "spare: started once in" '{"cluster": {"worker": ["127.0.0.3:1", "127.0.0.4:1"]}, "task": {"type": "worker", "index": 1}}' "$(cat "$log")"

# ---- torchrun's own agent agrees: PET_NNODES=MIN:MAX, PET_MAX_RESTARTS ----
hosts 127.0.0.1:1 127.0.0.2:1
"$cli" -c "$conf" --task-type worker --task-id 0 exec --elastic --format torchrun \
	--min-tasks 1 --max-tasks 4 --max-restarts 2 --settle 0 -- sh -c 'env | grep -E "^PET_(NNODES|MAX_RESTARTS)=" | sort' >"$tmp/out"
check "torchrun: exit" 0 "$?"
check "torchrun: variables" "PET_MAX_RESTARTS=2
PET_NNODES=1:4" "$(cat "$tmp/out")"

# ---- the world's id and its rendezvous port: the same for every member of
# one membership (the Python generation_id() gives the same id); an
# explicit --master-port wins ----
hosts a:1 b:1 c:1
"$cli" -c "$conf" --task-type worker --task-id 2 exec --elastic --settle 0 --format torch -- \
	sh -c 'echo "$CR_GENERATION_ID $MASTER_PORT $CR_JOIN_TIMEOUT"' >"$tmp/out"
check "world id: exit" 0 "$?"
check "world id and port (20000 + id mod 10000)" "7c1f6463f0835c45 24981 600" "$(cat "$tmp/out")"
"$cli" -c "$conf" --task-type worker --task-id 0 exec --elastic --settle 0 --format torch \
	--master-port 1234 --join-timeout 30 -- sh -c 'echo "$CR_GENERATION_ID $MASTER_PORT $CR_JOIN_TIMEOUT"' >"$tmp/out"
check "explicit --master-port wins" "7c1f6463f0835c45 1234 30" "$(cat "$tmp/out")"
"$cli" -c "$conf" --task-type worker --task-id 0 exec --elastic --settle 0 --format torch \
	--port-range 30000-30009 -- sh -c 'echo "$MASTER_PORT"' >"$tmp/out"
check "--port-range" "30001" "$(cat "$tmp/out")"

# ---- a program deaf to SIGTERM is killed after --stop-timeout, then
# started again with the new cluster ----
rm -f "$log"
hosts 127.0.0.1:1 127.0.0.2:1
"$cli" -c "$conf" --task-type worker --task-id 0 exec --elastic --settle 0 --stop-timeout 0.2 -- \
	sh -c 'trap "" TERM; echo "$CR_GENERATION" >>"$1"; echo $$ >"$2"; exec sleep 300' sh "$log" \
	"$tmp/pid" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_lines "$log" 1
hosts 127.0.0.1:1
wait_lines "$log" 2
# The restarted one (deaf too) killed outright: its status is the agent's.
kill -KILL "$(cat "$tmp/pid")"
wait_exit "$pid"
check "deaf program: exit" 137 "$?"
check "deaf program: restarted" "1
2" "$(cat "$log")"
check "deaf program: stderr" "cluster-resolver: exec: generation 2 (1 task): restarting 'sh'
cluster-resolver: warning: exec: 'sh' did not stop on SIGTERM; sending SIGKILL
cluster-resolver: exec: 'sh' exited with 137; no restart (--max-restarts 0)" "$(cat "$tmp/err")"

# ---- a format that cannot be written for the first cluster: as exec ----
"$cli" -c "$conf" exec --elastic --format torch --dialect mpich -- true 2>"$tmp/err"
check "bad format option: exit" 2 "$?"

# ---- on a terminal the program's group is the foreground one, so it can
# read it ----
hosts 127.0.0.1:1
got=$(printf 'hello\n' | timeout 60 script -qec \
	"'$cli' -c '$conf' exec --elastic --settle 0 -- sh -c 'read x; echo got \$x; exit 5'" /dev/null)
check "terminal: exit" 5 "$?"
check "terminal: the program read it" "hello
got hello
cluster-resolver: exec: 'sh' exited with 5; no restart (--max-restarts 0)" "$(printf '%s\n' "$got" | tr -d '\r')"

# ---- usage ----
"$cli" -c "$conf" exec --min-tasks 2 -- true 2>"$tmp/err"
check "min-tasks without --elastic: exit" 2 "$?"
check "min-tasks without --elastic: stderr" "cluster-resolver: exec: --min-tasks needs --elastic" "$(cat "$tmp/err")"
"$cli" -c "$conf" exec --elastic --min-tasks 3 --max-tasks 2 -- true 2>"$tmp/err"
check "max below min: exit" 2 "$?"
check "max below min: stderr" "cluster-resolver: exec: --max-tasks 2 is below --min-tasks 3" "$(cat "$tmp/err")"
"$cli" -c "$conf" exec --elastic --settle -1 -- true 2>"$tmp/err"
check "bad settle: exit" 2 "$?"
check "bad settle: stderr" 'cluster-resolver: exec: invalid settle time "-1": expected seconds 0..86400' "$(cat "$tmp/err")"
"$cli" -c "$conf" exec --elastic --max-restarts x -- true 2>"$tmp/err"
check "bad max-restarts: exit" 2 "$?"
check "bad max-restarts: stderr" 'cluster-resolver: exec: invalid --max-restarts "x": expected an integer 0..2147483647' "$(cat "$tmp/err")"

[ "$fail" = 0 ] && echo "ok: exec --elastic"
exit "$fail"
