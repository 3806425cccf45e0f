#!/bin/sh
# The Debian symbols files in packaging/debian are what packaging/gen-symbols.sh
# makes of the built libraries and their version scripts: a function added to
# the API (or to libcr-testhost) without a new line there fails here, long
# before dh_makeshlibs -c4 would in a package build.
set -u
src=${CR_TEST_SOURCE_DIR:?}
build=${CR_TEST_BUILD_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # LIBRARY MAP PACKAGE
	sh "$src/packaging/gen-symbols.sh" "$build/lib/$1" "$src/$2" "$3" libcluster-resolver-dev \
		>"$tmp/$3.symbols" || { echo "FAIL: gen-symbols.sh $1"; fail=1; return; }
	if ! diff -u "$src/packaging/debian/$3.symbols" "$tmp/$3.symbols"; then
		echo "FAIL: packaging/debian/$3.symbols differs from $1 (regenerate:" \
			"packaging/gen-symbols.sh build/lib/$1 $2 $3 libcluster-resolver-dev)"
		fail=1
	fi
	n=$(grep -c '^ cr_' "$tmp/$3.symbols")
	[ "$n" -gt 20 ] || { echo "FAIL: only $n symbols for $1"; fail=1; }
}
check libcluster-resolver.so.1 core/libcluster-resolver.map libcluster-resolver1
check libcr-testhost.so.1 core/testhost/libcr-testhost.map libcr-testhost1
[ "$fail" = 0 ] && echo "ok: symbols files match the libraries"
exit "$fail"
