#!/bin/sh
# stop-slurm.sh DIR [--keep] - stop what start-slurm.sh started in DIR, by
# pid file (slurmd, then slurmctld, then munged), and remove DIR unless
# --keep. Safe to call twice and after a failed start.
set -u

dir=${1:?usage: stop-slurm.sh DIR [--keep]}
keep=${2:-}
[ -d "$dir" ] || exit 0

. "$(dirname "$0")/../../common/daemons.sh"
stop_pid() { cr_stop_pidfile "$1" 50; }

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
