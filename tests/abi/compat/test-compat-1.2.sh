#!/bin/sh
# A plugin compiled against the frozen ABI 1.2 headers (legacy12.so) loads
# and runs on this host, with its 1.2 watch op (which never sees the 1.3
# slots), in cr-testhost and in the CLI, with exact output.
set -u
th=${CR_TESTHOST:?}
cli=${CR_CLI:?}
dir=${CR_TEST_PLUGIN_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

. "${CR_TEST_SOURCE_DIR:?}/tests/common/expect.sh"

expect testhost-resolve 0 \
	'{"cluster": {"worker": ["l12-0:7070"]}, "master": "", "num_accelerators": {}}' \
	'' -- "$th" "$dir/legacy12.so" resolve --format json

cat >"$tmp/l12.conf" <<EOC
plugin_path = [ "$dir" ];
resolvers = ( { plugin = "legacy12"; } );
accelerators = ();
EOC
expect cli-plugins 0 'legacy12     resolver    ABI 1.2  1.2.0    '"$dir"'/legacy12.so' '' -- \
	sh -c "\"$cli\" --config \"$tmp/l12.conf\" plugins | grep '^legacy12'"
# Watched: its watch op runs (a thread of the host) until --timeout ends it.
expect cli-watch 0 \
	'{"cluster": {"worker": ["l12-0:7070"]}, "master": "", "num_accelerators": {}, "generation": 1}' \
	'' -- "$cli" --config "$tmp/l12.conf" watch --format json --timeout 1
exit $fail
