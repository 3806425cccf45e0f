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
# The library's sources: every core/*.c but the libcurl module, which the
# library loads at run time (core/CMakeLists.txt), so no list here to drift.
core=""
for f in "$src"/core/*.c; do
	[ "$(basename "$f")" = http-curl.c ] || core="$core $f"
done
pkgs="glib-2.0 json-c libconfig"
# shellcheck disable=SC2086
fuzz_cc -fsanitize=fuzzer -I"$src/core" $(pkg-config --cflags $pkgs) \
	-DCR_BUILTIN_PLUGINDIR="\"$work/none\"" -DCR_DEFAULT_CONFIG="\"$work/none.conf\"" \
	-DCR_HTTP_MODULE_PATH="\"$work/none.so\"" "$here/fuzz-$target.c" $core \
	$(pkg-config --libs $pkgs) -ldl -o "$out/fuzz-$target"
fuzz_run "fuzz-$target" "$here/corpus-$target" "$secs" "$max_len"
