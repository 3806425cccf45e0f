#!/bin/sh
# Elastic membership benchmarks (issue 26 §6), the hosts_file part; the
# Kubernetes part is bench/watch.sh. One run, in the loopback-only
# namespace (scripts/hermetic.sh):
#  - `watch --format json` on a hosts_file: from the file's replacement
#    (rename) to the new generation's line read from watch's stdout;
#  - `exec --elastic`: from the replacement to the new program's start, minus
#    --settle (goal: median <= 100 ms), the old program stopped in between.
# Median, p90 and max over ROUNDS changes each (default 40).
#
#   bench/watch-elastic.sh [BUILD_DIR]    env: ROUNDS, SETTLE (seconds, default 0.5)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
build=$(cd "${1:-$src/build}" && pwd)
[ -x "$build/bin/cluster-resolver" ] || { echo "build first" >&2; exit 1; }
export CLUSTER_RESOLVER_CONFIG=
export CLUSTER_RESOLVER_PLUGIN_PATH="$build/lib/cluster-resolver/resolvers:$build/lib/cluster-resolver/accelerators"
exec /usr/bin/python3 "$src/bench/elastic/watch.py" "$build/bin/cluster-resolver"
