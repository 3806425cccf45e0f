#!/bin/sh
# run-fuzz.sh [SECONDS] - the format options (fuzz-format-options.c) under
# libFuzzer (../fuzz-lib.sh) for SECONDS (default 10). The target needs a
# result and the formats, so it is built from the whole core but the curl
# module.
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null # ../fuzz-lib.sh: sets src, out (fuzz_init)
. "$here/../fuzz-lib.sh"
fuzz_init format-options
fuzz_core_cc "$here/fuzz-format-options.c" -o "$out/fuzz-format-options"
fuzz_run fuzz-format-options "$here/corpus" "$secs" 512
