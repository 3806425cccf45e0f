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
# CR_CORE_SOURCES of core/CMakeLists.txt
core=""
for f in accel builder config context error explain format host http inventory io-real json \
	loader loader-schema spawn result spec spec-address spec-codec supervise union hostlist \
	hostlist-compress tasks-per-node format-frameworks; do
	core="$core $src/core/$f.c"
done
pkgs="glib-2.0 json-c libconfig"
# shellcheck disable=SC2086
fuzz_cc -fsanitize=fuzzer -I"$src/core" $(pkg-config --cflags $pkgs) \
	-DCR_BUILTIN_PLUGINDIR="\"$work/none\"" -DCR_DEFAULT_CONFIG="\"$work/none.conf\"" \
	-DCR_HTTP_MODULE_PATH="\"$work/none.so\"" "$here/fuzz-$target.c" $core \
	$(pkg-config --libs $pkgs) -ldl -o "$out/fuzz-$target"
fuzz_run "fuzz-$target" "$here/corpus-$target" "$secs" "$max_len"
