#!/bin/sh
# run.sh - build (if needed) and run every benchmark in bench/. Each prints
# its own figures as ratios against a baseline measured in the same run.
# Benchmarks talk only to 127.0.0.1 and run in a loopback-only namespace.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh test
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
export CR_CLI="$PWD/build/bin/cluster-resolver"
export CLUSTER_RESOLVER_PLUGIN_PATH="$PWD/build/lib/cluster-resolver/resolvers:$PWD/build/lib/cluster-resolver/accelerators"
export CR_TEST_SOURCE_DIR="$PWD" CR_TEST_BUILD_DIR="$PWD/build"
status=0
for b in bench/*.sh; do
	[ "$b" = bench/run.sh ] && continue
	[ -n "${1:-}" ] && [ "$b" != "bench/$1.sh" ] && continue
	echo "== $b"
	./scripts/hermetic.sh "$b" || status=1
done
exit $status
