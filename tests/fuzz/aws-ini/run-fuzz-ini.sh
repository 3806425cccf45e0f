#!/bin/sh
# run-fuzz-ini.sh [SECONDS] - build fuzz-aws-ini.c with aws_profile.c using
# clang -fsanitize=fuzzer,address,undefined and run it for SECONDS (default
# 10) on a copy of the committed seed corpus. Any crash, leak, sanitizer
# report or broken property fails the test; the reproducer is kept under
# $CR_TEST_BUILD_DIR/fuzz-aws/.
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
src=${CR_TEST_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}
build=${CR_TEST_BUILD_DIR:?CR_TEST_BUILD_DIR must name the build tree}
cc=${CR_FUZZ_CC:-clang}
aws="$src/plugins/resolvers/aws"

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "1..0 # SKIP $cc not installed (Debian: clang)"
	exit 77
fi
out="$build/fuzz-aws"
mkdir -p "$out"
work=$(mktemp -d "$out/run-aws-ini.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2046
if ! "$cc" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$src/include" -I"$build/include" -I"$aws" \
	$(pkg-config --cflags glib-2.0) "$here/fuzz-aws-ini.c" "$aws/aws_profile.c" \
	$(pkg-config --libs glib-2.0) -o "$out/fuzz-aws-ini" 2>"$work/cc.log"; then
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
	"$out/fuzz-aws-ini" -max_total_time="$secs" -max_len=1024 -timeout=10 \
	-rss_limit_mb=2048 -artifact_prefix="$out/crash-aws-ini-" -print_final_stats=1 \
	"$work/corpus" 2>"$work/fuzz.log" || {
	tail -n 40 "$work/fuzz.log" >&2
	echo "not ok - fuzz-aws-ini: reproducer under $out/" >&2
	exit 1
}
grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$work/fuzz.log" | tail -n 2
echo "ok - fuzz-aws-ini: ${secs} s without a finding"
