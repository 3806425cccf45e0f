#!/bin/sh
# Reservation benchmark: formation of 16, 256 and 1,024 local clients
# (`cluster-resolver resolve` with reservation.so, all started at once,
# until every one holds its cluster) against as many `cluster-resolver
# --version` started the same way, in the same run; and the server's peak
# RSS at each size. Runs in the loopback-only namespace.
#
#   bench/reservation.sh [BUILD_DIR]     (default: build)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
[ -x "$build/bin/cluster-resolver" ] || { echo "no $build/bin/cluster-resolver: build first" >&2; exit 1; }
exec "$src/scripts/hermetic.sh" /usr/bin/python3 "$src/bench/reservation/formation.py" "$build"
