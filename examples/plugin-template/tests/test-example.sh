#!/bin/sh
# test-example.sh CLI PLUGIN_DIR - the example plugin loaded by a real
# `cluster-resolver`: schema, declining, resolving, and a bad index.
set -u
cli=$1
export CLUSTER_RESOLVER_PLUGIN_PATH="$2${CLUSTER_RESOLVER_PLUGIN_PATH:+:$CLUSTER_RESOLVER_PLUGIN_PATH}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { [ "$2" = "$3" ] || { echo "FAIL $1: expected [$2], got [$3]"; fail=1; }; }

cat >"$tmp/test.conf" <<EOC
resolvers = (
  { plugin = "example"; policy = "sufficient"; file = "$here/hosts.txt"; job = "worker"; },
  { plugin = "simple"; policy = "sufficient"; cluster = { worker = [ "local:1" ]; };
    task_type = "worker"; task_id = 0; }
);
EOC
"$cli" plugins --json | grep -q '"name": *"example"' || { echo "FAIL: plugin not listed"; fail=1; }
"$cli" check-config "$tmp/test.conf" >/dev/null || { echo "FAIL: check-config"; fail=1; }

got=$(EXAMPLE_TASK_INDEX=2 "$cli" -c "$tmp/test.conf" resolve)
check resolve '{"cluster": {"worker": ["node0:2222", "node1:2222", "node2:2223"]}, "task": {"type": "worker", "index": 2}}' "$got"
got=$(EXAMPLE_TASK_INDEX=2 "$cli" -c "$tmp/test.conf" --rpc-layer grpc master)
check master 'grpc://node2:2223' "$got"

# Unset variable: the plugin declines and the simple fallback answers.
got=$(env -u EXAMPLE_TASK_INDEX "$cli" -c "$tmp/test.conf" resolve)
check declined '{"cluster": {"worker": ["local:1"]}, "task": {"type": "worker", "index": 0}}' "$got"

got=$(EXAMPLE_TASK_INDEX=two "$cli" -c "$tmp/test.conf" resolve 2>&1)
check "bad index: exit" 1 "$?"
check "bad index: message" "cluster-resolver: resolver 'example': EXAMPLE_TASK_INDEX=\"two\" is not a task index (0..2147483647)" "$got"

echo 'resolvers = ( { plugin = "example"; } );' >"$tmp/bad.conf"
"$cli" check-config "$tmp/bad.conf" >/dev/null 2>&1
check "missing file option: exit" 2 "$?"
[ "$fail" = 0 ] && echo "ok: example plugin"
exit "$fail"
