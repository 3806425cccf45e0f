#!/bin/sh
# stop-sge.sh DIR [--keep] - stop what start-sge.sh started in DIR: every
# job (qdel), then sge_execd and sge_qmaster by their pid files, and remove
# DIR unless --keep. Safe to call twice and after a failed start.
set -u

dir=${1:?usage: stop-sge.sh DIR [--keep]}
keep=${2:-}
[ -d "$dir" ] || exit 0

. "$(dirname "$0")/../../common/daemons.sh"
stop_pid() { cr_stop_pidfile "$1" 100; }

if [ -f "$dir/env.sh" ] && [ -f "$dir/spool/qmaster/qmaster.pid" ]; then
	(. "$dir/env.sh" && qdel -u root) >/dev/null 2>&1 || :
fi
for f in "$dir"/spool/execd/*/execd.pid; do
	[ -e "$f" ] && stop_pid "$f"
done
stop_pid "$dir/spool/qmaster/qmaster.pid"
[ "$keep" = --keep ] || rm -rf "$dir"
exit 0
