#!/bin/sh
# run-fuzz.sh TARGET [SECONDS] - the core's output formats (format) and
# config reader (config) under libFuzzer (../fuzz-lib.sh), each SECONDS
# (default 10). Both link the whole core, built here with clang.
set -eu
target=${1:?usage: run-fuzz.sh format|config [SECONDS]}
secs=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init core

case "$target" in
format) max_len=1024 ;;
config) max_len=2048 ;;
*) echo "run-fuzz.sh: unknown target '$target'" >&2; exit 2 ;;
esac
fuzz_core_cc "$here/fuzz-$target.c" -o "$out/fuzz-$target"
fuzz_run "fuzz-$target" "$here/corpus-$target" "$secs" "$max_len"
