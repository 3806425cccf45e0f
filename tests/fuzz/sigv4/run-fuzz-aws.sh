#!/bin/sh
# run-fuzz-aws.sh TARGET [SECONDS] - build one of aws.so's libFuzzer targets
# (sigv4: the SigV4 canonicaliser; ec2-xml: the xmlReader walks of
# DescribeInstances pages and error answers) with clang
# -fsanitize=fuzzer,address,undefined and run it for SECONDS (default 10) on
# a copy of its committed seed corpus. Any crash, leak, sanitizer report or
# broken property fails the test; the reproducer is kept under
# $CR_TEST_BUILD_DIR/fuzz-aws/.
set -eu
target=${1:?usage: run-fuzz-aws.sh sigv4|ec2-xml [SECONDS]}
secs=${2:-10}
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
work=$(mktemp -d "$out/run-$target.XXXXXX")
trap 'rm -rf "$work"' EXIT

case "$target" in
sigv4)
	sources="$here/fuzz-sigv4.c $aws/aws_sigv4.c"
	corpus="$here/corpus"
	max_len=512
	;;
ec2-xml)
	sources="$here/../ec2-xml/fuzz-ec2-xml.c $aws/aws_xml.c $aws/aws_query.c $aws/aws_retry.c"
	sources="$sources $aws/aws_sigv4.c"
	corpus="$here/../ec2-xml/corpus"
	max_len=8192
	;;
*) echo "run-fuzz-aws.sh: unknown target '$target'" >&2; exit 2 ;;
esac

# shellcheck disable=SC2086
if ! "$cc" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$src/include" -I"$build/include" -I"$aws" \
	$(pkg-config --cflags glib-2.0 libxml-2.0) $sources \
	$(pkg-config --libs glib-2.0 libxml-2.0) -lm -o "$out/fuzz-$target" 2>"$work/cc.log"; then
	if grep -q "fuzzer" "$work/cc.log" && grep -qi "cannot find\|no such file" "$work/cc.log"; then
		echo "1..0 # SKIP $cc has no libFuzzer runtime (Debian: libclang-rt-14-dev)"
		exit 77
	fi
	cat "$work/cc.log" >&2
	exit 1
fi
mkdir -p "$work/corpus"
cp "$corpus"/* "$work/corpus/"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$out/fuzz-$target" -max_total_time="$secs" -max_len="$max_len" -timeout=10 \
	-rss_limit_mb=2048 -artifact_prefix="$out/crash-$target-" -print_final_stats=1 \
	"$work/corpus" 2>"$work/fuzz.log" || {
	tail -n 40 "$work/fuzz.log" >&2
	echo "not ok - fuzz-$target: reproducer under $out/" >&2
	exit 1
}
grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$work/fuzz.log" | tail -n 2
echo "ok - fuzz-$target: ${secs} s without a finding"
