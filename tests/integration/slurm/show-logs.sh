#!/bin/sh
# show-logs.sh DIR [FILE...] - what a failed Slurm test needs to be
# understood from CI's log alone: the last 25 lines of each FILE, then of
# each log under DIR/log (munged, slurmctld, every slurmd), as TAP comments
# on stdout. Empty and missing files are skipped.
dir=${1:?usage: show-logs.sh DIR [FILE...]}
shift
for f in "$@" "$dir"/log/*; do
	[ -s "$f" ] && { echo "# --- $f"; tail -n 25 "$f" | sed 's/^/# /'; }
done
exit 0
