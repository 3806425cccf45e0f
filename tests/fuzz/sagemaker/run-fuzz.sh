#!/bin/sh
# run-fuzz.sh TARGET [SECONDS] - build the sagemaker or tfdevices plugin with
# clang's coverage and ASan/UBSan, and a libFuzzer driver that runs it
# through the build tree's libcr-testhost, then fuzz it for SECONDS
# (default 10) on a copy of its committed seed corpus. Any crash, leak,
# sanitizer report or broken property fails; the reproducer is kept under
# $CR_TEST_BUILD_DIR/fuzz-sagemaker/ (../fuzz-lib.sh).
set -eu
target=${1:?usage: run-fuzz.sh sagemaker|tfdevices [SECONDS]}
secs=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
if [ "${CR_SANITIZE_BUILD:-0}" = 1 ]; then
	# libcr-testhost of an ASan build pulls in GCC's ASan runtime, which
	# cannot share a process with clang's.
	echo "1..0 # SKIP sanitizer build: the normal build runs this target"
	exit 77
fi
. "$here/../fuzz-lib.sh"
fuzz_init sagemaker
case "$target" in
sagemaker) plugin_src="$src/plugins/resolvers/sagemaker/sagemaker.c $src/plugins/resolvers/sagemaker/source.c" ;;
tfdevices) plugin_src="$src/plugins/accelerators/tfdevices/tfdevices.c" ;;
*) echo "run-fuzz.sh: unknown target '$target'" >&2; exit 2 ;;
esac
# The plugin, with coverage, is loaded by the driver through the build
# tree's libcr-testhost; the loader wants its directory safe (0755).
chmod 755 "$out" "$work"
# shellcheck disable=SC2086
fuzz_cc -shared -fPIC -fvisibility=hidden -fsanitize=fuzzer-no-link $plugin_src \
	-o "$work/$target.so"
fuzz_cc -fsanitize=fuzzer "$here/fuzz-$target.c" -L"$build/lib" -lcr-testhost \
	-Wl,-rpath,"$build/lib" -o "$out/fuzz-$target"
chmod 755 "$work/$target.so"
export CR_FUZZ_PLUGIN="$work/$target.so" CLUSTER_RESOLVER_NO_DLCLOSE=1
fuzz_run "fuzz-$target" "$here/corpus-$target" "$secs" 2048
