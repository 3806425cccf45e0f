#!/bin/sh
# `resolve --format clusterdef` decoded by the real protoc against
# tests/fixtures/proto/cluster.proto: jobs sorted by name, tasks by index.
set -u
here=$(dirname "$0")
cli=${CR_CLI:?CR_CLI is not set}
proto_dir="${CR_TEST_SOURCE_DIR:?}/tests/fixtures/proto"
command -v protoc >/dev/null || { echo "FAIL: protoc is not installed (scripts/deps.sh)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cli" -c "$here/cluster.conf" resolve --format clusterdef >"$tmp/def.bin" || exit 1
protoc -I"$proto_dir" --decode=tensorflow.ClusterDef cluster.proto <"$tmp/def.bin" >"$tmp/def.txt" ||
	{ echo "FAIL: protoc could not decode the output"; exit 1; }
if ! cmp -s "$tmp/def.txt" "$here/golden/clusterdef.txt"; then
	echo "FAIL: decoded ClusterDef differs from golden/clusterdef.txt"
	diff "$here/golden/clusterdef.txt" "$tmp/def.txt"
	exit 1
fi
echo "ok: clusterdef decoded by protoc"
