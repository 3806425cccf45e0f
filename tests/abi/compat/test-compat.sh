#!/bin/sh
# Plugins compiled against the frozen ABI 1.0 headers (legacy.so, a
# resolver, and legacyaccel.so, an accelerator plugin) load and run on this
# host, in cr-testhost and in the CLI, with exact output.
set -u
th=${CR_TESTHOST:?}
cli=${CR_CLI:?}
dir=${CR_TEST_PLUGIN_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

. "${CR_TEST_SOURCE_DIR:?}/tests/common/expect.sh"

expect testhost-resolve 0 \
	'{"cluster": {"worker": ["legacy0:9000", "legacy1:9000"]}, "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc", "master": "legacy-master:8470", "num_accelerators": {"GPU": 1}}' \
	'' -- "$th" -e LEGACY_TASK=1 -c 'port = 9000;' "$dir/legacy.so" resolve --format json
# With no task asked, the master is the plugin's own (its 1.0 master op).
expect testhost-master 0 'legacy-master:8470' '' -- \
	"$th" -e LEGACY_TASK=1 "$dir/legacy.so" master
expect testhost-enumerate 0 \
	'{"num_accelerators": {"GPU": 2}, "devices": [{"plugin": "legacyaccel", "kind": "GPU", "vendor": "legacy", "model": "Legacy GPU", "index": 0, "physical_index": 0, "uuid": "GPU-1e9ac7-0", "memory_bytes": 1073741824}, {"plugin": "legacyaccel", "kind": "GPU", "vendor": "legacy", "model": "Legacy GPU", "index": 1, "physical_index": 1, "uuid": "GPU-1e9ac7-1", "memory_bytes": 1073741824}]}' \
	'' -- "$th" "$dir/legacyaccel.so" enumerate
# A 1.0 option table has no bounds: the host reads none past its entries,
# so port = -5 passes the schema, and the ClusterSpec refuses the address.
expect testhost-no-bounds 2 '' \
	"cr-testhost: resolver 'legacy': job 'worker': address \"legacy0:-5\" has a port outside 1..65535" -- \
	"$th" -e LEGACY_TASK=0 -c 'port = -5;' "$dir/legacy.so" resolve

cat >"$tmp/both.conf" <<EOC
plugin_path = [ "$dir" ];
resolvers = ( { plugin = "legacy"; job = "trainer"; port = 7000; } );
accelerators = ( { plugin = "legacyaccel"; } );
EOC
expect cli-resolve 0 \
	'{"cluster": {"trainer": ["legacy0:7000", "legacy1:7000"]}, "task": {"type": "trainer", "index": 0}, "rpc_layer": "grpc", "master": "legacy-master:8470", "num_accelerators": {"GPU": 1}}' \
	'' -- env LEGACY_TASK=0 "$cli" --config "$tmp/both.conf" resolve --format json
expect cli-exec 0 \
	'1 {"cluster": {"trainer": ["legacy0:7000", "legacy1:7000"]}, "task": {"type": "trainer", "index": 0}, "rpc_layer": "grpc"}' \
	'' -- env LEGACY_TASK=0 "$cli" --config "$tmp/both.conf" exec -- sh -c 'echo "$LEGACY_SEEN" "$TF_CONFIG"'
cat >"$tmp/accel.conf" <<EOC
plugin_path = [ "$dir" ];
resolvers = ( { plugin = "simple"; cluster = { worker = [ "w0:1" ]; }; task_type = "worker"; task_id = 0; } );
accelerators = ( { plugin = "legacyaccel"; } );
EOC
expect cli-accelerators 0 '{"GPU": 2}' '' -- "$cli" --config "$tmp/accel.conf" accelerators
exit $fail
