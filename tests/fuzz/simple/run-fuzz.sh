#!/bin/sh
# run-fuzz.sh [SECONDS] - the simple resolver's hosts_file reader under
# libFuzzer (../fuzz-lib.sh), through the build tree's libcr-testhost with
# the plugin built with coverage, SECONDS (default 10).
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
if [ "${CR_SANITIZE_BUILD:-0}" = 1 ]; then
	# libcr-testhost of an ASan build pulls in GCC's ASan runtime, which
	# cannot share a process with clang's.
	echo "1..0 # SKIP sanitizer build: the normal build runs this target"
	exit 77
fi
. "$here/../fuzz-lib.sh"
fuzz_init simple-hosts
chmod 755 "$out" "$work"
fuzz_cc -shared -fPIC -fvisibility=hidden -fsanitize=fuzzer-no-link \
	-I"$src/plugins/common/launchers" "$src/plugins/common/launchers/launchers.c" \
	"$src/plugins/resolvers/simple/simple.c" "$src/plugins/resolvers/simple/simple-hosts.c" \
	-o "$work/simple.so"
# shellcheck disable=SC2046 # a list of words on purpose
fuzz_cc -fsanitize=fuzzer $(pkg-config --cflags json-c) "$here/fuzz-simple-hosts.c" \
	-L"$build/lib" -lcr-testhost -Wl,-rpath,"$build/lib" $(pkg-config --libs json-c) \
	-o "$out/fuzz-simple-hosts"
chmod 755 "$work/simple.so"
export CR_FUZZ_PLUGIN="$work/simple.so" CLUSTER_RESOLVER_NO_DLCLOSE=1
fuzz_run fuzz-simple-hosts "$here/corpus" "$secs" 2048
