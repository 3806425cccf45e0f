#!/bin/sh
# hermetic.sh CMD [ARGS...] - run CMD in a network namespace that has only
# loopback, so no test can reach DNS, a cloud endpoint or 169.254.169.254.
# Already inside one (CR_HERMETIC=1)? Run CMD directly.
set -eu
if [ "${CR_HERMETIC:-}" = 1 ]; then
	exec "$@"
fi
export CR_HERMETIC=1
exec unshare -n -- sh -c 'ip link set lo up && exec "$@"' hermetic "$@"
