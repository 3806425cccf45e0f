#!/bin/sh
# stop-sge.sh DIR [--keep] - stop what start-sge.sh started in DIR: every
# job (qdel), then sge_execd and sge_qmaster by their pid files, and remove
# DIR unless --keep. Safe to call twice and after a failed start.
set -u

dir=${1:?usage: stop-sge.sh DIR [--keep]}
keep=${2:-}
[ -d "$dir" ] || exit 0

# A zombie still answers kill -0 until a late-reaping PID 1 gets to it.
alive() {
	[ -d "/proc/$1" ] || return 1
	state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ]
}

stop_pid() {
	pidfile=$1
	[ -f "$pidfile" ] || return 0
	pid=$(cat "$pidfile" 2>/dev/null)
	case "$pid" in '' | *[!0-9]*) return 0 ;; esac
	alive "$pid" || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	n=0
	while alive "$pid" && [ "$n" -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	alive "$pid" && kill -KILL "$pid" 2>/dev/null
	return 0
}

if [ -f "$dir/env.sh" ] && [ -f "$dir/spool/qmaster/qmaster.pid" ]; then
	(. "$dir/env.sh" && qdel -u root) >/dev/null 2>&1 || :
fi
for f in "$dir"/spool/execd/*/execd.pid; do
	[ -e "$f" ] && stop_pid "$f"
done
stop_pid "$dir/spool/qmaster/qmaster.pid"
[ "$keep" = --keep ] || rm -rf "$dir"
exit 0
