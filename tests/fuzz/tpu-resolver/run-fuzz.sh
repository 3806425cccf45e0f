#!/bin/sh
# run-fuzz.sh [SECONDS] - the tpu resolver's parsers under libFuzzer
# (../fuzz-lib.sh) for SECONDS (default 10).
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init tpu-resolver
plugin="$src/plugins/resolvers/tpu"
sources="$here/fuzz-tpu-resolver.c $plugin/tpu_env.c $plugin/tpu_source.c $plugin/tpu_api.c $plugin/tpu_count.c"
# shellcheck disable=SC2086
fuzz_cc -fsanitize=fuzzer -I"$plugin" -I"$src/plugins/common/gcp" \
	$(pkg-config --cflags glib-2.0 json-c) $sources $(pkg-config --libs glib-2.0 json-c) \
	-o "$out/fuzz-tpu-resolver"
fuzz_run fuzz-tpu-resolver "$here/corpus" "$secs" 2048
