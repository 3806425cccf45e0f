#!/bin/sh
# run-fuzz.sh TARGET [SECONDS] - build one libFuzzer target (hostlist | tpn |
# cluster-json, the last from ../cluster-json)
# with clang -fsanitize=fuzzer,address,undefined and run it for SECONDS
# (default 10) on a copy of its committed seed corpus. Any crash, leak,
# sanitizer report or broken property fails the test; the reproducer is
# kept under $CR_TEST_BUILD_DIR/fuzz-hostlist/.
set -eu
target=${1:?usage: run-fuzz.sh hostlist|tpn|cluster-json [SECONDS]}
secs=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
src=${CR_TEST_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}
build=${CR_TEST_BUILD_DIR:?CR_TEST_BUILD_DIR must name the build tree}
cc=${CR_FUZZ_CC:-clang}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "1..0 # SKIP $cc not installed (Debian: clang)"
	exit 77
fi
out="$build/fuzz-hostlist"
mkdir -p "$out"
work=$(mktemp -d "$out/run-$target.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The parsers and the core's error helper: no other part of the library.
core="$src/core/hostlist.c $src/core/hostlist-compress.c $src/core/tasks-per-node.c $src/core/error.c"
corpus="$here/corpus-$target"
pkgs=glib-2.0
max_len=256
case "$target" in
hostlist) sources="$here/fuzz-hostlist.c $core" ;;
tpn) sources="$here/fuzz-tpn.c $core" ;;
cluster-json)
	# the as_dict walk with the spec and JSON code it stands on
	sources="$here/../cluster-json/fuzz-cluster-json.c $src/core/spec-codec.c $src/core/spec.c"
	sources="$sources $src/core/json.c $src/core/error.c"
	corpus="$here/../cluster-json/corpus"
	pkgs="glib-2.0 json-c"
	max_len=1024
	;;
*) echo "run-fuzz.sh: unknown target '$target'" >&2; exit 2 ;;
esac

# shellcheck disable=SC2086
if ! "$cc" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$src/include" -I"$build/include" -I"$src/core" \
	$(pkg-config --cflags $pkgs) $sources $(pkg-config --libs $pkgs) \
	-o "$out/fuzz-$target" 2>"$work/cc.log"; then
	if grep -q "fuzzer" "$work/cc.log" && grep -qi "cannot find\|no such file" "$work/cc.log"; then
		echo "1..0 # SKIP $cc has no libFuzzer runtime (Debian: libclang-rt-14-dev)"
		exit 77
	fi
	cat "$work/cc.log" >&2
	exit 1
fi
cp "$corpus"/* "$work/" 2>/dev/null || :
mkdir -p "$work/corpus"
mv "$work"/seed-* "$work/corpus/" 2>/dev/null || :
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
