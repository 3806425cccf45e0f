#!/bin/sh
# hermetic.sh CMD [ARGS...] - run CMD in a network namespace that has only
# loopback, so no test can reach DNS, a cloud endpoint or 169.254.169.254.
# As root this is `unshare -n`; otherwise a user namespace (`unshare -rn`).
# Already inside one (CR_HERMETIC=1)? Run CMD directly.
set -eu
if [ "${CR_HERMETIC:-}" = 1 ]; then
	exec "$@"
fi
export CR_HERMETIC=1
if [ "$(id -u)" -eq 0 ]; then
	exec unshare -n -- sh -c 'ip link set lo up && exec "$@"' hermetic "$@"
fi
exec unshare -rn -- sh -c 'ip link set lo up && exec "$@"' hermetic "$@"
