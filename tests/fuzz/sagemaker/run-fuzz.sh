#!/bin/sh
# run-fuzz.sh TARGET [SECONDS] - build the sagemaker or tfdevices plugin with
# clang's coverage and ASan/UBSan, and a libFuzzer driver that runs it
# through the build tree's libcr-testhost, then fuzz it for SECONDS
# (default 10) on a copy of its committed seed corpus. Any crash, leak,
# sanitizer report or broken property fails; the reproducer is kept under
# $CR_TEST_BUILD_DIR/fuzz-sagemaker/.
set -eu
target=${1:?usage: run-fuzz.sh sagemaker|tfdevices [SECONDS]}
secs=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
src=${CR_TEST_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}
build=${CR_TEST_BUILD_DIR:?CR_TEST_BUILD_DIR must name the build tree}
cc=${CR_FUZZ_CC:-clang}

if [ "${CR_SANITIZE_BUILD:-0}" = 1 ]; then
	# libcr-testhost of an ASan build pulls in GCC's ASan runtime, which
	# cannot share a process with clang's.
	echo "1..0 # SKIP sanitizer build: the normal build runs this target"
	exit 77
fi
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "1..0 # SKIP $cc not installed (Debian: clang)"
	exit 77
fi
case "$target" in
sagemaker) plugin_src="$src/plugins/resolvers/sagemaker/sagemaker.c $src/plugins/resolvers/sagemaker/source.c" ;;
tfdevices) plugin_src="$src/plugins/accelerators/tfdevices/tfdevices.c" ;;
*) echo "run-fuzz.sh: unknown target '$target'" >&2; exit 2 ;;
esac
out="$build/fuzz-sagemaker"
mkdir -p "$out"
chmod 755 "$out"
work=$(mktemp -d "$out/run-$target.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
inc="-I$src/include -I$build/include"

# shellcheck disable=SC2086
if ! "$cc" -g -O1 -std=c11 -D_GNU_SOURCE -shared -fPIC -fvisibility=hidden \
	-fsanitize=fuzzer-no-link $san $inc $plugin_src -o "$work/$target.so" 2>"$work/cc.log" ||
	! "$cc" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer $san $inc "$here/fuzz-$target.c" \
	-L"$build/lib" -lcr-testhost -Wl,-rpath,"$build/lib" -o "$out/fuzz-$target" 2>>"$work/cc.log"; then
	if grep -q "fuzzer" "$work/cc.log" && grep -qi "cannot find\|no such file" "$work/cc.log"; then
		echo "1..0 # SKIP $cc has no libFuzzer runtime (Debian: libclang-rt-14-dev)"
		exit 77
	fi
	cat "$work/cc.log" >&2
	exit 1
fi
chmod 755 "$work/$target.so"
mkdir -p "$work/corpus"
cp "$here/corpus-$target"/* "$work/corpus/"
CR_FUZZ_PLUGIN="$work/$target.so" CLUSTER_RESOLVER_NO_DLCLOSE=1 \
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0" \
	"$out/fuzz-$target" -max_total_time="$secs" -max_len=2048 -timeout=10 \
	-rss_limit_mb=2048 -artifact_prefix="$out/crash-$target-" -print_final_stats=1 \
	"$work/corpus" 2>"$work/fuzz.log" || {
	tail -n 40 "$work/fuzz.log" >&2
	echo "not ok - fuzz-$target: reproducer under $out/" >&2
	exit 1
}
grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$work/fuzz.log" | tail -n 2
echo "ok - fuzz-$target: ${secs} s without a finding"
