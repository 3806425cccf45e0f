# daemons.sh - sourced by the stop scripts of the real daemons the suite
# starts (tests/integration/slurm, tests/integration/sge): stop one daemon
# by its pid file, never by name.

# cr_alive PID: whether PID still runs. A zombie answers kill -0 until a
# late-reaping PID 1 (a test's own namespace) gets to it: it does not run.
cr_alive() {
	[ -d "/proc/$1" ] || return 1
	state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ]
}

# cr_stop_pidfile FILE TENTHS: SIGTERM the pid in FILE, wait up to TENTHS
# tenths of a second for it to end, then SIGKILL. Nothing when FILE is
# missing, holds no pid, or its process is gone.
cr_stop_pidfile() {
	[ -f "$1" ] || return 0
	pid=$(cat "$1" 2>/dev/null)
	case "$pid" in '' | *[!0-9]*) return 0 ;; esac
	cr_alive "$pid" || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	n=0
	while cr_alive "$pid" && [ "$n" -lt "$2" ]; do
		sleep 0.1
		n=$((n + 1))
	done
	cr_alive "$pid" && kill -KILL "$pid" 2>/dev/null
	return 0
}
