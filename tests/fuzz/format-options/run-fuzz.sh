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
sources=
# shellcheck disable=SC2154 # src: set by fuzz_init
for f in "$src"/core/*.c; do
	case $f in */http-curl.c) ;; *) sources="$sources $f" ;; esac
done
pkgs="glib-2.0 json-c libconfig"
# shellcheck disable=SC2086,SC2046 # lists of words on purpose
fuzz_cc -fsanitize=fuzzer -I"$src/core" $(pkg-config --cflags $pkgs) \
	-DCR_DEFAULT_CONFIG=\"/nonexistent/cr.conf\" -DCR_HTTP_MODULE_PATH=\"/nonexistent/cr-http.so\" \
	-DCR_BUILTIN_PLUGINDIR=\"/nonexistent\" "$here/fuzz-format-options.c" $sources $(pkg-config --libs $pkgs) -ldl \
	-o "$out/fuzz-format-options"
fuzz_run fuzz-format-options "$here/corpus" "$secs" 512
