#!/bin/sh
# run-fuzz.sh [SECONDS] - cr-testhost's HTTP and spawn script reader
# (fuzz-testhost-script.c) under libFuzzer (../fuzz-lib.sh) for SECONDS
# (default 10). The target includes cr-testhost.c and is built with the
# testhost library and the whole core but the curl module, all with clang,
# so it runs in the sanitizer build too.
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null # ../fuzz-lib.sh: sets src, out (fuzz_init)
. "$here/../fuzz-lib.sh"
fuzz_init testhost
sources=
# shellcheck disable=SC2154 # src: set by fuzz_init
for f in "$src"/core/*.c "$src"/core/testhost/testhost*.c; do
	case $f in */http-curl.c) ;; *) sources="$sources $f" ;; esac
done
pkgs="glib-2.0 json-c libconfig"
# shellcheck disable=SC2086,SC2046 # lists of words on purpose
fuzz_cc -fsanitize=fuzzer -I"$src/core" -I"$src/core/testhost" $(pkg-config --cflags $pkgs) \
	-DCR_DEFAULT_CONFIG=\"/nonexistent/cr.conf\" -DCR_HTTP_MODULE_PATH=\"/nonexistent/cr-http.so\" \
	-DCR_BUILTIN_PLUGINDIR=\"/nonexistent\" "$here/fuzz-testhost-script.c" $sources \
	$(pkg-config --libs $pkgs) -ldl -o "$out/fuzz-testhost-script"
fuzz_run fuzz-testhost-script "$here/corpus" "$secs" 2048
