#!/bin/sh
# Every man page under docs/man renders with `man --warnings` and says nothing
# on stderr (groff -ww: bad macros, fonts, escapes, line breaks).
set -u
src=${CR_TEST_SOURCE_DIR:?CR_TEST_SOURCE_DIR is not set}
command -v man >/dev/null || { echo "FAIL: man (man-db) is not installed"; exit 1; }
fail=0
n=0
for page in "$src"/docs/man/*.[1-8]; do
	[ -f "$page" ] || continue
	n=$((n + 1))
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	if [ -n "$out" ]; then
		echo "FAIL: ${page##*/}:"; echo "$out"; fail=1
	fi
	# The page must render to text with its NAME line.
	LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q '^NAME' ||
		{ echo "FAIL: ${page##*/} renders no NAME section"; fail=1; }
done
[ "$n" = 4 ] || { echo "FAIL: expected 4 man pages, found $n"; fail=1; }
[ "$fail" = 0 ] && echo "ok: $n man pages without warnings"
exit "$fail"
