#!/bin/sh
# run-fuzz.sh [SECONDS] - build the tpu resolver's parser target with clang
# -fsanitize=fuzzer,address,undefined and run it for SECONDS (default 10) on
# a copy of its committed seed corpus. A crash, leak, sanitizer report or
# broken property fails; the reproducer is kept under
# $CR_TEST_BUILD_DIR/fuzz-tpu-resolver/.
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
src=${CR_TEST_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}
build=${CR_TEST_BUILD_DIR:?CR_TEST_BUILD_DIR must name the build tree}
cc=${CR_FUZZ_CC:-clang}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "1..0 # SKIP $cc not installed (Debian: clang)"
	exit 77
fi
out="$build/fuzz-tpu-resolver"
mkdir -p "$out"
work=$(mktemp -d "$out/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
plugin="$src/plugins/resolvers/tpu"
sources="$here/fuzz-tpu-resolver.c $plugin/tpu_source.c $plugin/tpu_api.c $plugin/tpu_count.c"
# shellcheck disable=SC2086
if ! "$cc" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$src/include" -I"$build/include" -I"$plugin" \
	-I"$src/plugins/common/gcp" $(pkg-config --cflags glib-2.0 json-c) $sources \
	$(pkg-config --libs glib-2.0 json-c) -o "$out/fuzz-tpu-resolver" 2>"$work/cc.log"; then
	if grep -q "fuzzer" "$work/cc.log" && grep -qi "cannot find\|no such file" "$work/cc.log"; then
		echo "1..0 # SKIP $cc has no libFuzzer runtime (Debian: libclang-rt-14-dev)"
		exit 77
	fi
	cat "$work/cc.log" >&2
	exit 1
fi
mkdir -p "$work/corpus"
cp "$here/corpus"/* "$work/corpus/"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$out/fuzz-tpu-resolver" -max_total_time="$secs" -max_len=2048 -timeout=10 \
	-rss_limit_mb=2048 -artifact_prefix="$out/crash-" -print_final_stats=1 \
	"$work/corpus" 2>"$work/fuzz.log" || {
	tail -n 40 "$work/fuzz.log" >&2
	echo "not ok - fuzz-tpu-resolver: reproducer under $out/" >&2
	exit 1
}
grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$work/fuzz.log" | tail -n 2
echo "ok - fuzz-tpu-resolver: ${secs} s without a finding"
