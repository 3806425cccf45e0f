# fuzz-lib.sh - sourced by every tests/fuzz/*/run-*.sh: one way to build a
# libFuzzer target with clang and run it briefly on a copy of its committed
# seed corpus. Any crash, leak, sanitizer report or broken property fails the
# test (exit 1) and leaves the reproducer under $CR_TEST_BUILD_DIR/fuzz-NAME/;
# no clang, or clang without its libFuzzer runtime, skips it (exit 77).
#
#   fuzz_init NAME           src, build, cc, out (= $build/fuzz-NAME) and a
#                            scratch dir $work removed on exit
#   fuzz_cc ARGS...          clang with the fuzzer and sanitizer flags and the
#                            public and build include dirs; skips or fails
#   fuzz_core_cc ARGS...     fuzz_cc -fsanitize=fuzzer for a target linked
#                            with the whole core built here
#   fuzz_run BIN CORPUS SECS MAX_LEN
#                            run $out/BIN for SECS on a copy of CORPUS/*
#
# With CR_FUZZ_BUILD_ONLY=1 fuzz_run runs nothing: it keeps the scratch dir
# and prints the binary, corpus, max_len and CR_FUZZ_PLUGIN as shell
# assignments (tests/fuzz/campaign.sh reads them for long runs).
#
# The caller sets `here` (its own directory) and `set -eu` first.
fuzz_san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"

fuzz_init() {
	src=${CR_TEST_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}
	build=${CR_TEST_BUILD_DIR:?CR_TEST_BUILD_DIR must name the build tree}
	cc=${CR_FUZZ_CC:-clang}
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "1..0 # SKIP $cc not installed (Debian: clang)"
		exit 77
	fi
	out="$build/fuzz-$1"
	mkdir -p "$out"
	work=$(mktemp -d "$out/run.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$work'" EXIT
}

# fuzz_cc ARGS...: ARGS name the sources, libraries and -o; -fsanitize=fuzzer
# (or fuzzer-no-link for a plugin built with coverage) comes from the caller.
fuzz_cc() {
	# shellcheck disable=SC2086
	if ! "$cc" -g -O1 -std=c11 -D_GNU_SOURCE $fuzz_san -I"$src/include" -I"$build/include" \
		"$@" 2>>"$work/cc.log"; then
		if grep -q "fuzzer" "$work/cc.log" && grep -qi "cannot find\|no such file" "$work/cc.log"; then
			echo "1..0 # SKIP $cc has no libFuzzer runtime (Debian: libclang-rt-14-dev)"
			exit 77
		fi
		cat "$work/cc.log" >&2
		exit 1
	fi
}

# fuzz_core_cc ARGS...: a libFuzzer target linked with the whole core,
# built here with clang: every .c of the core's layer folders but the libcurl
# module, which the library loads at run time (core/CMakeLists.txt), so no
# list here to drift; the test host (core/testhost/) is not the core.
# ARGS name the target's own sources, include dirs and -o.
fuzz_core_cc() {
	core=""
	for f in "$src"/core/*/*.c; do
		case $f in
		*/testhost/* | */http-curl.c) ;;
		*) core="$core $f" ;;
		esac
	done
	pkgs="glib-2.0 json-c libconfig"
	# shellcheck disable=SC2086,SC2046 # lists of words on purpose
	fuzz_cc -fsanitize=fuzzer -I"$src/core" $(pkg-config --cflags $pkgs) \
		-DCR_BUILTIN_PLUGINDIR="\"$work/none\"" -DCR_DEFAULT_CONFIG="\"$work/none.conf\"" \
		-DCR_HTTP_MODULE_PATH="\"$work/none.so\"" "$@" $core $(pkg-config --libs $pkgs) -ldl
}

fuzz_run() {
	bin=$1 corpus=$2 secs=$3 max_len=$4
	if [ "${CR_FUZZ_BUILD_ONLY:-0}" = 1 ]; then
		trap - EXIT
		printf "fz_bin='%s' fz_corpus='%s' fz_max_len=%s fz_plugin='%s'\n" \
			"$out/$bin" "$corpus" "$max_len" "${CR_FUZZ_PLUGIN:-}"
		exit 0
	fi
	mkdir -p "$work/corpus"
	cp "$corpus"/* "$work/corpus/"
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0" \
		"$out/$bin" -max_total_time="$secs" -max_len="$max_len" -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$out/crash-$bin-" -print_final_stats=1 \
		"$work/corpus" 2>"$work/fuzz.log" || {
		tail -n 40 "$work/fuzz.log" >&2
		echo "not ok - $bin: reproducer under $out/" >&2
		exit 1
	}
	grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$work/fuzz.log" | tail -n 2
	echo "ok - $bin: $secs s without a finding"
}
