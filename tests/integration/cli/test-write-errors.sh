#!/bin/sh
# Output that cannot be written is an error, never a quiet success: every
# command that prints, with stdout on a full device or closed, exits 1 with
# one line naming the cause (issue #11, item 2). A command that failed
# before printing keeps its own status.
set -u
cli=${CR_CLI:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

. "${CR_TEST_SOURCE_DIR:?}/tests/common/expect.sh"

cat >"$tmp/static.conf" <<EOC
resolvers = ( { plugin = "simple"; cluster = { worker = [ "w0:2222", "w1:2222" ]; };
                task_type = "worker"; task_id = 1; } );
accelerators = ( );
EOC
full() { "$@" >/dev/full; }
closed() { "$@" >&-; }
nospace='cluster-resolver: write error: No space left on device'
badfd='cluster-resolver: write error: Bad file descriptor'

for cmd in resolve "resolve --format tf_config" "resolve --format torch" master \
	plugins "plugins --json" check-config explain "explain --json" accelerators; do
	# shellcheck disable=SC2086
	expect "full: $cmd" 1 '' "$nospace" -- full "$cli" -c "$tmp/static.conf" $cmd
done
expect "full: --version" 1 '' "$nospace" -- full "$cli" --version
expect "full: help" 1 '' "$nospace" -- full "$cli" --help
expect "full: hostlist expand" 1 '' "$nospace" -- full "$cli" hostlist expand 'n[1-100000]'
expect "full: hostlist compress" 1 '' "$nospace" -- full "$cli" hostlist compress n1 n2
expect "closed: resolve" 1 '' "$badfd" -- closed "$cli" -c "$tmp/static.conf" resolve
expect "closed: hostlist expand" 1 '' "$badfd" -- closed "$cli" hostlist expand 'n[1-3]'
# Failed before printing: the status is the command's own, no write error.
expect "full: config error keeps 2" 2 '' \
	"cluster-resolver: $tmp/missing.conf: cannot read the config file: No such file or directory" -- \
	full "$cli" -c "$tmp/missing.conf" resolve
# And the same commands succeed on a writable stdout.
expect "ok: resolve" 0 \
	'{"cluster": {"worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": 1}}' '' -- \
	"$cli" -c "$tmp/static.conf" resolve
exit $fail
