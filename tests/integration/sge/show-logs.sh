#!/bin/sh
# show-logs.sh DIR [FILE...] - what a failed Grid Engine test needs to be
# understood from CI's log alone: the last 25 lines of each FILE, then of
# the qmaster's and the execd's messages under DIR/spool, as TAP comments.
dir=${1:?usage: show-logs.sh DIR [FILE...]}
shift
for f in "$@" "$dir/init.log" "$dir"/spool/qmaster/messages "$dir"/spool/execd/*/messages; do
	[ -s "$f" ] && { echo "# --- $f"; tail -n 25 "$f" | sed 's/^/# /'; }
done
exit 0
