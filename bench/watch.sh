#!/bin/bash
# Watch benchmarks (issue 26 §6), one run. The k8s part (bench/k8s/watch.py):
# the time from the fixture API server writing a membership-changing event
# to k8s.so's watch noticing it, to the new generation, and to
# `kubectl get pods --watch` printing it, at 10,000 realistic pods (median,
# p99); RSS growth of a watch over 100,000 events; the API server's bill per
# hour for a 1,000-pod job, watch + bookmarks against re-listing every
# watch_interval. Runs in the loopback-only namespace (scripts/hermetic.sh).
#
#   bench/watch.sh [BUILD_DIR]    env: see bench/k8s/watch.py
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
build=$(cd "${1:-$src/build}" && pwd)
[ -x "$build/tests/integration/k8s/k8s-watch-driver" ] || { echo "build first" >&2; exit 1; }
command -v kubectl > /dev/null || { echo "kubectl is not installed" >&2; exit 1; }
export CLUSTER_RESOLVER_CONFIG=
unset POD_NAME HOSTNAME POD_IP KUBECONFIG KUBERNETES_SERVICE_HOST
tmp=$(mktemp -d)
trap '[ -n "${CR_WATCH_KEEP:-}" ] || rm -rf "$tmp"' EXIT
/usr/bin/python3 "$src/bench/k8s/watch.py" "$build" "$tmp"
