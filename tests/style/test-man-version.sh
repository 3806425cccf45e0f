#!/bin/sh
# test-man-version.sh SRCDIR VERSION: every man page's footer (.TH's fourth
# field) names the package version CMake builds, so `man cluster-resolver`
# says which release it documents.
set -u
src=$1 version=$2
fail=0 n=0
for page in "$src"/docs/man/*.[1-9]; do
	n=$((n + 1))
	got=$(sed -n '1s/^\.TH [^ ]* [0-9] [^ ]* "\([^"]*\)".*/\1/p' "$page")
	if [ "$got" != "cluster-resolver $version" ]; then
		echo "FAIL ${page#"$src"/}: footer '$got', expected 'cluster-resolver $version'"
		fail=1
	fi
done
[ "$fail" = 0 ] && echo "ok: $n man pages carry cluster-resolver $version"
exit "$fail"
