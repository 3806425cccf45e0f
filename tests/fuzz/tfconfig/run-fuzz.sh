#!/bin/sh
# run-fuzz.sh [SECONDS] - the tfconfig resolver's TF_CONFIG parser under
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
fuzz_init tfconfig
chmod 755 "$out" "$work"
fuzz_cc -shared -fPIC -fvisibility=hidden -fsanitize=fuzzer-no-link \
	"$src/plugins/resolvers/tfconfig/tfconfig.c" -o "$work/tfconfig.so"
fuzz_cc -fsanitize=fuzzer "$here/fuzz-tfconfig.c" -L"$build/lib" -lcr-testhost \
	-Wl,-rpath,"$build/lib" -o "$out/fuzz-tfconfig"
chmod 755 "$work/tfconfig.so"
export CR_FUZZ_PLUGIN="$work/tfconfig.so" CLUSTER_RESOLVER_NO_DLCLOSE=1
fuzz_run fuzz-tfconfig "$here/corpus" "$secs" 2048
