#!/bin/sh
# Every built plugin exports exactly one dynamic symbol, cr_plugin_entry;
# libcluster-resolver.so exports exactly the functions that its public
# headers declare with CR_API (plus its version node), and libcr-testhost.so
# exactly those of testhost.h (none of the core it carries inside).
set -eu
lib="$1"
testhost="$2"
fail=0
count=0
for so in "$CR_PLUGIN_BUILD_DIR"/resolvers/*.so "$CR_PLUGIN_BUILD_DIR"/accelerators/*.so; do
	[ -e "$so" ] || continue
	count=$((count + 1))
	syms=$(nm -D --defined-only "$so" | awk '{print $3}' | sort | tr '\n' ' ')
	if [ "$syms" != "cr_plugin_entry " ]; then
		echo "FAIL: $so exports: $syms"
		fail=1
	else
		echo "ok: $so exports only cr_plugin_entry"
	fi
done
if [ "$count" -lt 2 ]; then
	echo "FAIL: expected at least the simple and tfconfig plugins in $CR_PLUGIN_BUILD_DIR"
	fail=1
fi
# The functions a public header declares with CR_API, by name.
declared() {
	for h in "$@"; do
		sed -n 's/^CR_API [^(]*[ *]\([a-z_0-9]*\)(.*/\1/p' "$h"
	done | sort -u
}
exported() {
	nm -D --defined-only "$1" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u
}
# compare LIB NODE HEADER... : the exports are exactly the declarations.
compare() {
	so=$1 node=$2
	shift 2
	declared "$@" >"$tmp/declared"
	exported "$so" >"$tmp/exported"
	nodes=$(nm -D --defined-only "$so" | awk '$2 == "A" {print $3}' | sort | tr '\n' ' ')
	extra=$(comm -13 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
	missing=$(comm -23 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
	if [ -n "$extra" ]; then
		echo "FAIL: $so exports what no public header declares: $extra"
		fail=1
	elif [ -n "$missing" ]; then
		echo "FAIL: $so lacks what its public headers declare: $missing"
		fail=1
	elif [ "$nodes" != "$node " ]; then
		echo "FAIL: $so version nodes: '$nodes'"
		fail=1
	else
		echo "ok: $so exports the $(wc -l <"$tmp/exported") functions its headers declare, and nothing else"
	fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc=${CR_TEST_SOURCE_DIR:?}/include/cluster-resolver
compare "$lib" "CLUSTER_RESOLVER_1.0 CLUSTER_RESOLVER_1.1 CLUSTER_RESOLVER_1.2 CLUSTER_RESOLVER_1.3" "$inc/cluster-resolver.h" "$inc/common.h" "$inc/spec.h" \
	"$inc/hostlist.h" "$inc/error.h"
compare "$testhost" "CR_TESTHOST_1.0 CR_TESTHOST_1.1 CR_TESTHOST_1.2 CR_TESTHOST_1.3" "$inc/testhost.h"
exit $fail
