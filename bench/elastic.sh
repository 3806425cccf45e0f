#!/bin/sh
# A PyTorch job under an elastic agent (issue 35): Debian's torch (gloo) on
# loopback, members A, B, C in a hosts_file, 2 -> 3 -> 2 REPS times (default
# 5 scale-ups and 5 scale-downs), under `exec --elastic --format torch` on
# the default options (scale-down the Kubernetes way: C dropped and its agent
# SIGTERMed at once) and under torchrun's own agent (c10d; scale-down: SIGTERM
# to C's torchrun). Per row: the latency of each change (median, max: the
# change to the first all_reduce of the new world on its last member), the
# program starts per member and the counted failures. One run, in the
# loopback-only namespace (scripts/hermetic.sh).
#
#   bench/elastic.sh [BUILD_DIR]    env: REPS (default 5), MODES ("ours torchrun"),
#                                   CR_BENCH_KEEP=1 keeps the records
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
build=$(cd "${1:-$src/build}" && pwd)
[ -x "$build/bin/cluster-resolver" ] || { echo "build first" >&2; exit 1; }
/usr/bin/python3 -c 'import torch.distributed' || { echo "needs Debian's python3-torch" >&2; exit 1; }
export CLUSTER_RESOLVER_CONFIG=
export CLUSTER_RESOLVER_PLUGIN_PATH="$build/lib/cluster-resolver/resolvers:$build/lib/cluster-resolver/accelerators"
# shellcheck disable=SC2086
exec /usr/bin/python3 "$src/bench/elastic/torch.py" "$build/bin/cluster-resolver" \
	"$src/tests/integration/elastic/train.py" "${REPS:-5}" ${MODES:-ours torchrun}
