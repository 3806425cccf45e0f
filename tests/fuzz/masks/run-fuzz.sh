#!/bin/sh
# run-fuzz.sh [SECONDS] - the visible-devices masks (nvidia mask.c, tpu
# visible.c) under libFuzzer (../fuzz-lib.sh), SECONDS (default 10).
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init masks
nv="$src/plugins/accelerators/nvidia"
tpu="$src/plugins/accelerators/tpu"
# shellcheck disable=SC2046
fuzz_cc -fsanitize=fuzzer -I"$nv" -I"$tpu" -I"$src/core" $(pkg-config --cflags glib-2.0 json-c) \
	"$here/fuzz-masks.c" "$nv/mask.c" "$tpu/visible.c" "$src/core/values/error.c" \
	$(pkg-config --libs glib-2.0) -o "$out/fuzz-masks"
fuzz_run fuzz-masks "$here/corpus" "$secs" 256
