#!/bin/sh
# Every built plugin exports exactly one dynamic symbol, cr_plugin_entry;
# libcluster-resolver.so exports only cr_* symbols (plus its version node);
# libcr-testhost.so only cr_testhost_* (none of the core it carries inside).
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
bad=$(nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | grep -v '^cr_' || true)
nodes=$(nm -D --defined-only "$lib" | awk '$2 == "A" {print $3}' | tr '\n' ' ')
if [ -n "$bad" ]; then
	echo "FAIL: $lib exports non-cr_ symbols: $bad"
	fail=1
elif [ "$nodes" != "CLUSTER_RESOLVER_1.0 " ]; then
	echo "FAIL: $lib version nodes: '$nodes'"
	fail=1
else
	echo "ok: $lib exports $(nm -D --defined-only "$lib" | grep -c ' T cr_') cr_* functions and nothing else"
fi
bad=$(nm -D --defined-only "$testhost" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | grep -v '^cr_testhost_' || true)
nodes=$(nm -D --defined-only "$testhost" | awk '$2 == "A" {print $3}' | tr '\n' ' ')
if [ -n "$bad" ]; then
	echo "FAIL: $testhost exports non-cr_testhost_ symbols: $bad"
	fail=1
elif [ "$nodes" != "CR_TESTHOST_1.0 CR_TESTHOST_1.1 " ]; then
	echo "FAIL: $testhost version nodes: '$nodes'"
	fail=1
else
	echo "ok: $testhost exports $(nm -D --defined-only "$testhost" | grep -c ' T cr_testhost_') cr_testhost_* functions and nothing else"
fi
exit $fail
