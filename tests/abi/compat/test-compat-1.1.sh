#!/bin/sh
# A plugin compiled against the frozen ABI 1.1 headers (legacy11.so) loads
# and runs on this host, with its 1.1 slots (a bounded option, a cluster
# added as JSON, a fact, the clock, the supervise op), in cr-testhost and in
# the CLI, with exact output.
set -u
th=${CR_TESTHOST:?}
cli=${CR_CLI:?}
dir=${CR_TEST_PLUGIN_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

. "${CR_TEST_SOURCE_DIR:?}/tests/common/expect.sh"

expect testhost-resolve 0 \
	'{"cluster": {"worker": ["l11-0:7070"]}, "master": "", "num_accelerators": {}}' \
	'' -- "$th" -c 'workers = 1;' "$dir/legacy11.so" resolve --format json
# Its option's bounds (ABI 1.1) are the host's to check.
expect testhost-bounds 2 '' \
	"cr-testhost: (string):1: resolver 'legacy11': key 'workers' is 3, out of its range 1..2" -- \
	"$th" -c 'workers = 3;' "$dir/legacy11.so" resolve

cat >"$tmp/l11.conf" <<EOC
plugin_path = [ "$dir" ];
resolvers = ( { plugin = "legacy11"; } );
accelerators = ();
EOC
expect cli-explain 0 "config: $tmp/l11.conf
1. resolver 'legacy11' (plugin legacy11, required, at $tmp/l11.conf:2)
   ok: 1 job, 2 tasks
   fact built_for: \"ABI 1.1\"
result: {\"cluster\": {\"worker\": [\"l11-0:7070\", \"l11-1:7070\"]}, \"master\": \"\", \"num_accelerators\": {}}" \
	'' -- "$cli" --config "$tmp/l11.conf" explain
# Supervised: its 1.1 supervise op is called and lets the program run.
expect cli-supervise 0 '{"cluster": {"worker": ["l11-0:7070", "l11-1:7070"]}}' '' -- \
	"$cli" --config "$tmp/l11.conf" exec --supervise -- sh -c 'echo "$TF_CONFIG"'
# A 1.1 plugin has no watch interval of its own: the host's range holds.
cat >"$tmp/bad.conf" <<EOC
plugin_path = [ "$dir" ];
resolvers = ( { plugin = "legacy11"; watch_interval = 4; } );
EOC
expect cli-watch-interval 2 '' \
	"cluster-resolver: $tmp/bad.conf:2: resolver 'legacy11': watch_interval must be between 5 and 86400 seconds, not 4" -- \
	"$cli" --config "$tmp/bad.conf" resolve
exit $fail
