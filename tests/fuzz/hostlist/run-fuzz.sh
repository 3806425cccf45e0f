#!/bin/sh
# run-fuzz.sh TARGET [SECONDS] - the core's parsers under libFuzzer
# (../fuzz-lib.sh): hostlist, tpn (tasks per node) and cluster-json (the
# as_dict walk, from ../cluster-json), each SECONDS (default 10).
set -eu
target=${1:?usage: run-fuzz.sh hostlist|tpn|cluster-json [SECONDS]}
secs=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init hostlist

# The parsers and the core's error helper: no other part of the library.
core="$src/core/values/hostlist.c $src/core/values/hostlist-compress.c $src/core/values/tasks-per-node.c $src/core/values/error.c"
corpus="$here/corpus-$target"
pkgs=glib-2.0
max_len=256
case "$target" in
hostlist) sources="$here/fuzz-hostlist.c $core" ;;
tpn) sources="$here/fuzz-tpn.c $core" ;;
cluster-json)
	# the as_dict walk with the spec and JSON code it stands on
	sources="$here/../cluster-json/fuzz-cluster-json.c $src/core/values/spec-codec.c $src/core/values/spec.c $src/core/values/spec-size.c"
	sources="$sources $src/core/values/spec-address.c"
	sources="$sources $src/core/values/json.c $src/core/values/error.c"
	corpus="$here/../cluster-json/corpus"
	pkgs="glib-2.0 json-c"
	max_len=1024
	;;
*) echo "run-fuzz.sh: unknown target '$target'" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
fuzz_cc -fsanitize=fuzzer -I"$src/core" $(pkg-config --cflags $pkgs) $sources \
	$(pkg-config --libs $pkgs) -o "$out/fuzz-$target"
fuzz_run "fuzz-$target" "$corpus" "$secs" "$max_len"
