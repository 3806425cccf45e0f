#!/bin/sh
# `exec --supervise`, descriptors passed by a resolver, and exec's exit
# codes against resolve's. Every check compares exact text or an exact exit
# status; the stop timeout is checked by its outcome (SIGKILL), never timed.
set -u
cli=${CR_CLI:?CR_CLI is not set}
plugins=${CR_EXEC_TEST_PLUGINS:?CR_EXEC_TEST_PLUGINS is not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # NAME WANT GOT
	if [ "$2" != "$3" ]; then
		printf 'FAIL %s:\n  expected [%s]\n  got      [%s]\n' "$1" "$2" "$3"; fail=1
	fi
}
# conf NAME OPTIONS: a config with the supervisor resolver and OPTIONS.
conf() {
	printf 'plugin_path = "%s";\naccelerators = ( );\nresolvers = ( { plugin = "supervisor"; %s } );\n' \
		"$plugins" "$2" >"$tmp/$1.conf"
}
# wait_for FILE: until it exists (the program is ready), at most ~30 s.
wait_for() {
	n=0
	while [ ! -e "$1" ] && [ "$n" -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
}
ev="$tmp/events"
conf plain "events = \"$ev\";"
conf stop2 "events = \"$ev\"; stop_after = 2;"
conf stop1 "events = \"$ev\"; stop_after = 1;"
conf stop0 "events = \"$ev\"; stop_after = 0;"
conf failing "fail = true;"
printf 'passed content\n' >"$tmp/passed"
conf pass "pass_file = \"$tmp/passed\";"
conf pass-bad-name "pass_file = \"$tmp/passed\"; pass_env = \"1BAD\";"
conf pass-missing "pass_file = \"$tmp/missing\";"
printf 'accelerators = ( );\nresolvers = ( { plugin = "simple"; task_id = 1; } );\n' >"$tmp/create-fails.conf"

# ---- exit status passthrough; the resolver hears STARTED and EXITED ----
rm -f "$ev"
"$cli" -c "$tmp/plain.conf" exec --supervise -- sh -c 'exit 7' >"$tmp/out" 2>"$tmp/err"
check "passthrough: exit" 7 "$?"
check "passthrough: events" "started (own group)
exited 7" "$(cat "$ev")"
check "passthrough: stdout+stderr" "" "$(cat "$tmp/out" "$tmp/err")"

rm -f "$ev"
"$cli" -c "$tmp/plain.conf" exec --supervise -- sh -c 'kill -TERM $$'
check "killed by its own signal: exit" 143 "$?"
check "killed by its own signal: events" "started (own group)
exited 143" "$(cat "$ev")"

rm -f "$ev"
"$cli" -c "$tmp/plain.conf" exec --supervise -- /nonexistent/program 2>"$tmp/err"
check "missing program: exit" 127 "$?"
check "missing program: message" "cluster-resolver: exec: cannot run '/nonexistent/program': No such file or directory" "$(cat "$tmp/err")"
check "missing program: events" "started (own group)
exited 127" "$(cat "$ev")"

# ---- signals reach the program's whole group ----
# The shell's trap answers; `sleep` (same group) dies of the signal too, or
# the trap would wait for it (the shell's note about that death is silenced
# inside the program, so our own stderr stays exact). env --default-signal undoes the SIG_IGN that
# sh gives INT and QUIT in background jobs.
for sig in INT TERM HUP QUIT; do
	rm -f "$tmp/ready"
	env --default-signal=INT,QUIT "$cli" -c "$tmp/plain.conf" exec --supervise -- \
		sh -c 'exec 2>/dev/null; trap "echo got $1; exit 3" "$1"; : >"$2"; while :; do sleep 5; done' sh "$sig" \
		"$tmp/ready" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	wait_for "$tmp/ready"
	kill -s "$sig" "$pid"
	wait "$pid"
	check "forward $sig: exit" 3 "$?"
	check "forward $sig: output" "got $sig" "$(cat "$tmp/out" "$tmp/err")"
done
# 128+N when the forwarded signal kills the program.
for sig in INT:130 HUP:129; do
	rm -f "$ev"
	env --default-signal=INT,QUIT "$cli" -c "$tmp/plain.conf" exec --supervise -- sleep 60 &
	pid=$!
	wait_for "$ev"
	kill -s "${sig%:*}" "$pid"
	wait "$pid"
	check "killed by forwarded ${sig%:*}: exit" "${sig#*:}" "$?"
	check "killed by forwarded ${sig%:*}: events" "started (own group)
exited ${sig#*:}" "$(cat "$ev")"
done

# The supervisor killed outright (no forwarding possible): the kernel sends
# the program SIGTERM (parent-death signal); before, it ran on alone.
rm -f "$tmp/ready" "$tmp/got"
"$cli" -c "$tmp/plain.conf" exec --supervise -- \
	sh -c 'trap "kill \$!; echo got TERM >\"\$2\"; exit 0" TERM; echo $$ >"$1"; sleep 60 & wait $!' \
	sh "$tmp/ready" "$tmp/got" >/dev/null 2>&1 &
pid=$!
wait_for "$tmp/ready"
kill -KILL "$pid"
wait "$pid"
check "supervisor killed: its exit" 137 "$?"
wait_for "$tmp/got"
check "supervisor killed: the program got SIGTERM" "got TERM" "$(cat "$tmp/got" 2>&1)"
kill -KILL "$(cat "$tmp/ready")" 2>/dev/null

# On a terminal the program's group is the foreground one, so it can read
# the terminal (in a background group it would stop on SIGTTIN and hang).
got=$(printf 'hello\n' | timeout 60 script -qec \
	"'$cli' -c '$tmp/plain.conf' exec --supervise -- sh -c 'read x; echo got \$x; exit 5'" /dev/null)
check "terminal: exit" 5 "$?"
check "terminal: the program read it" "hello
got hello" "$(printf '%s\n' "$got" | tr -d '\r')"

# ---- a resolver stops the program ----
rm -f "$ev"
"$cli" -c "$tmp/stop2.conf" exec --supervise -- sleep 60 2>"$tmp/err"
check "stop on the 2nd RUNNING: exit (SIGTERM)" 143 "$?"
check "stop on the 2nd RUNNING: events" "started (own group)
running 1
running 2 (stop)
exited 143" "$(cat "$ev")"
check "stop on the 2nd RUNNING: stderr" "" "$(cat "$tmp/err")"

rm -f "$ev"
"$cli" -c "$tmp/stop0.conf" exec --supervise -- sleep 60 2>"$tmp/err"
check "stop on STARTED (default timeout): exit" 143 "$?"
check "stop on STARTED: events" "started (own group)
exited 143" "$(cat "$ev")"

# A program that ignores SIGTERM gets SIGKILL after the stop timeout.
rm -f "$ev" "$tmp/ready"
"$cli" -c "$tmp/stop1.conf" exec --supervise --stop-timeout 0.5 -- \
	sh -c 'trap "" TERM; : >"$1"; while :; do sleep 1; done' sh "$tmp/ready" 2>"$tmp/err"
check "SIGTERM ignored: exit (SIGKILL)" 137 "$?"
check "SIGTERM ignored: events" "started (own group)
running 1 (stop)
exited 137" "$(cat "$ev")"
check "SIGTERM ignored: stderr" "cluster-resolver: warning: exec: 'sh' did not stop on SIGTERM; sending SIGKILL" "$(cat "$tmp/err")"

# A failing supervise op is logged; the program is not stopped for it.
"$cli" -c "$tmp/failing.conf" exec --supervise -- sh -c 'exit 4' 2>"$tmp/err"
check "failing supervise: exit" 4 "$?"
check "failing supervise: stderr" "cluster-resolver: warning: resolver 'supervisor': supervise (started): supervise fails on purpose
cluster-resolver: warning: resolver 'supervisor': supervise (exited): supervise fails on purpose" "$(cat "$tmp/err")"

# ---- descriptors passed by a resolver ----
# The program has the file open at $CR_TEST_FD, and no descriptor other than
# those any program this script starts inherits. (The listing goes to a file:
# in a pipeline the shell would hold the pipes' descriptors meanwhile.)
sh -c 'ls /proc/$$/fd >"$1"' sh "$tmp/fds"
others=$( (cat "$tmp/fds"; echo N) | sort | tr "\n" " ")
fds_of_program() { # the program's listing, its passed descriptor as N
	sed "s/^$1\$/N/" "$tmp/fds" | sort | tr "\n" " "
}
got=$("$cli" -c "$tmp/pass.conf" exec -- sh -c \
	'cat /proc/self/fd/$CR_TEST_FD; readlink /proc/$$/fd/$CR_TEST_FD; echo $CR_TEST_FD >"$1.n"
	 ls /proc/$$/fd >"$1"' sh "$tmp/fds")
check "pass_fd, plain exec" "passed content
$tmp/passed" "$got"
n=$(cat "$tmp/fds.n")
check "pass_fd, plain exec: descriptors" "$others" "$(fds_of_program "$n")"
[ "$n" -ge 3 ] || { echo "FAIL pass_fd: descriptor $n"; fail=1; }
# --supervise: the program has it; our copy is no longer the file.
got=$("$cli" -c "$tmp/pass.conf" exec --supervise -- sh -c \
	'cat /proc/self/fd/$CR_TEST_FD; readlink /proc/$$/fd/$CR_TEST_FD; readlink /proc/$PPID/fd/$CR_TEST_FD
	 echo $CR_TEST_FD >"$1.n"; ls /proc/$$/fd >"$1"' sh "$tmp/fds")
check "pass_fd, exec --supervise" "passed content
$tmp/passed
/dev/null" "$got"
check "pass_fd, exec --supervise: descriptors" "$others" "$(fds_of_program "$(cat "$tmp/fds.n")")"
# Other paths pass nothing on: resolve prints no variable for it.
check "pass_fd, resolve" '{"cluster": {"worker": ["127.0.0.1:1"]}, "task": {"type": "worker", "index": 0}}' \
	"$("$cli" -c "$tmp/pass.conf" resolve)"
check "pass_fd, resolve --format env" "" "$("$cli" -c "$tmp/pass.conf" resolve --format env | grep CR_TEST_FD)"

# ---- exit codes: exec answers as resolve does ----
for cmd in resolve master "exec -- true" "exec --supervise -- true"; do
	# shellcheck disable=SC2086
	"$cli" -c "$tmp/pass-bad-name.conf" $cmd >"$tmp/out" 2>"$tmp/err"
	check "$cmd, plugin passes a bad name (its failure, not ours): exit" 1 "$?"
	check "$cmd, plugin passes a bad name: stderr" "cluster-resolver: resolver 'supervisor': result_pass_fd: \"1BAD\" is not a variable name ([A-Za-z_][A-Za-z0-9_]*)" "$(cat "$tmp/err")"
	# shellcheck disable=SC2086
	"$cli" -c "$tmp/create-fails.conf" $cmd >"$tmp/out" 2>"$tmp/err"
	check "$cmd, create fails (configuration): exit" 2 "$?"
	# shellcheck disable=SC2086
	"$cli" -c "$tmp/pass-missing.conf" $cmd >"$tmp/out" 2>"$tmp/err"
	check "$cmd, resolver fails: exit" 1 "$?"
	check "$cmd, resolver fails: stderr" "cluster-resolver: resolver 'supervisor': cannot open $tmp/missing" "$(cat "$tmp/err")"
	check "$cmd, nothing on stdout" "" "$(cat "$tmp/out")"
done

# ---- exec --elastic tells the resolvers each start and end (no RUNNING) ----
rm -f "$ev"
"$cli" -c "$tmp/plain.conf" exec --elastic --max-restarts 1 -- sh -c 'exit 3' 2>"$tmp/err"
check "elastic: exit" 3 "$?"
check "elastic: events" "started (own group)
exited 3
started (own group)
exited 3" "$(cat "$ev")"

# ---- the supervisor owns the program's whole process group ----
# gone PIDFILE: "gone" once the process is no more (reaped: we are its
# subreaper), else "alive".
gone() { kill -0 "$(cat "$1")" 2>/dev/null && echo alive || echo gone; }
# What the program leaves running in its group when it ends is stopped and
# reaped; the status stays the program's.
"$cli" -c "$tmp/plain.conf" exec --supervise -- sh -c 'sleep 300 & echo $! >"$1"; exit 3' sh \
	"$tmp/bg" >"$tmp/out" 2>"$tmp/err"
check "left behind: exit" 3 "$?"
check "left behind: the background sleep" gone "$(gone "$tmp/bg")"
check "left behind: output" "" "$(cat "$tmp/out" "$tmp/err")"
# The supervisor told to stop: the whole group goes, the sleep with it.
rm -f "$tmp/bg"
"$cli" -c "$tmp/plain.conf" exec --supervise -- sh -c 'sleep 300 & echo $! >"$1"; wait' sh \
	"$tmp/bg" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_for "$tmp/bg"
kill -TERM "$pid"
wait "$pid"
check "stopped: exit" 143 "$?"
check "stopped: the background sleep" gone "$(gone "$tmp/bg")"
# One that ignores SIGTERM gets SIGKILL after the stop timeout.
rm -f "$tmp/bg"
"$cli" -c "$tmp/plain.conf" exec --supervise --stop-timeout 0.2 -- \
	sh -c 'sh -c "trap \"\" TERM; echo \$\$ >\"\$1\"; exec sleep 300" sh "$1" &
		while [ ! -s "$1" ]; do sleep 0.05; done; exit 4' sh "$tmp/bg" 2>"$tmp/err"
check "deaf to SIGTERM: exit" 4 "$?"
check "deaf to SIGTERM: the sleep" gone "$(gone "$tmp/bg")"
check "deaf to SIGTERM: stderr" "cluster-resolver: warning: exec: what 'sh' left in its group did not stop on SIGTERM; sending SIGKILL" "$(cat "$tmp/err")"
# A daemon that leaves the group (setsid) is not ours: it escapes.
rm -f "$tmp/bg"
"$cli" -c "$tmp/plain.conf" exec --supervise -- sh -c 'setsid sleep 300 & echo $! >"$1"; sleep 0.2; exit 0' sh "$tmp/bg"
check "setsid daemon: exit" 0 "$?"
check "setsid daemon: escapes" alive "$(gone "$tmp/bg")"
kill "$(cat "$tmp/bg")" 2>/dev/null

# ---- usage ----
"$cli" -c "$tmp/plain.conf" exec --stop-timeout 1 -- true 2>"$tmp/err"
check "stop timeout without supervise: exit" 2 "$?"
check "stop timeout without supervise: stderr" "cluster-resolver: exec: --stop-timeout needs --supervise" "$(cat "$tmp/err")"
"$cli" -c "$tmp/plain.conf" exec --supervise --stop-timeout -1 -- true 2>"$tmp/err"
check "bad stop timeout: exit" 2 "$?"
check "bad stop timeout: stderr" "cluster-resolver: exec: invalid stop timeout \"-1\": expected seconds 0..86400" "$(cat "$tmp/err")"

[ "$fail" = 0 ] && echo "ok: exec --supervise, passed descriptors, exit codes"
exit "$fail"
