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
fuzz_core_cc -I"$src/core/testhost" "$here/fuzz-testhost-script.c" \
	"$src"/core/testhost/testhost*.c -o "$out/fuzz-testhost-script"
fuzz_run fuzz-testhost-script "$here/corpus" "$secs" 2048
