#!/bin/sh
# stop-slurm.sh DIR [--keep] - stop what start-slurm.sh started in DIR, by
# pid file (slurmd, then slurmctld, then munged), and remove DIR unless
# --keep. Safe to call twice and after a failed start.
set -u

dir=${1:?usage: stop-slurm.sh DIR [--keep]}
keep=${2:-}
[ -d "$dir" ] || exit 0

# A zombie still answers kill -0 until our late-reaping PID 1 gets to it.
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
	while alive "$pid" && [ "$n" -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	alive "$pid" && kill -KILL "$pid" 2>/dev/null
	return 0
}

if [ -f "$dir/env.sh" ] && [ -f "$dir/run/slurmctld.pid" ]; then
	(. "$dir/env.sh" && scancel --quiet --user=root) >/dev/null 2>&1 || :
fi
for f in "$dir"/run/slurmd-*.pid; do
	[ -e "$f" ] && stop_pid "$f"
done
stop_pid "$dir/run/slurmctld.pid"
stop_pid "$dir/run/munged.pid"
[ "$keep" = --keep ] || rm -rf "$dir"
exit 0
