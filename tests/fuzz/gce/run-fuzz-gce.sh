#!/bin/sh
# run-fuzz-gce.sh [SECONDS] - build fuzz-gce-pages (gce.so's listInstances and
# instances.list page walks on the host's JSON slots) with clang
# -fsanitize=fuzzer,address,undefined and run it for SECONDS (default 10) on
# a copy of the committed seed corpus. A crash, leak, sanitizer report or a
# broken property fails the test; the reproducer is kept under
# $CR_TEST_BUILD_DIR/fuzz-gce/.
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
out="$build/fuzz-gce"
mkdir -p "$out"
work=$(mktemp -d "$out/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
gcp="$src/plugins/common/gcp"
# the harness includes gce_list.c; the gcp library and the core's JSON slots
sources="$here/fuzz-gce-pages.c $gcp/gcp.c $gcp/gcp_api.c $gcp/gcp_auth.c $gcp/gcp_meta.c"
sources="$sources $src/core/json.c $src/core/error.c"

# shellcheck disable=SC2086
if ! "$cc" -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$src/include" -I"$build/include" -I"$src/core" \
	-I"$gcp" -I"$src/plugins/resolvers/gce" \
	$(pkg-config --cflags glib-2.0 json-c libcrypto) $sources \
	$(pkg-config --libs glib-2.0 json-c) -o "$out/fuzz-gce-pages" 2>"$work/cc.log"; then
	if grep -q "fuzzer" "$work/cc.log" && grep -qi "cannot find\|no such file" "$work/cc.log"; then
		echo "1..0 # SKIP $cc has no libFuzzer runtime (Debian: libclang-rt-14-dev)"
		exit 77
	fi
	cat "$work/cc.log" >&2
	exit 1
fi
mkdir -p "$work/corpus"
cp "$here"/corpus/seed-* "$work/corpus/"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$out/fuzz-gce-pages" -max_total_time="$secs" -max_len=1024 -timeout=10 \
	-rss_limit_mb=2048 -artifact_prefix="$out/crash-" -print_final_stats=1 \
	"$work/corpus" 2>"$work/fuzz.log" || {
	tail -n 40 "$work/fuzz.log" >&2
	echo "not ok - fuzz-gce-pages: reproducer under $out/" >&2
	exit 1
}
grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$work/fuzz.log" | tail -n 2
echo "ok - fuzz-gce-pages: ${secs} s without a finding"
