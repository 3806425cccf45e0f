#!/bin/sh
# campaign.sh NAME RUNS MAX_SECS RUN-SCRIPT [ARGS...] - a long libFuzzer
# campaign for docs/fuzzing.md, not part of the suite. RUN-SCRIPT (one of
# tests/fuzz/*/run-*.sh with its target argument) builds the target in
# CR_FUZZ_BUILD_ONLY mode; the campaign then runs RUNS inputs (or MAX_SECS,
# whichever comes first) at the lowest priority from a copy of the committed
# seeds, under $CR_FUZZ_CAMPAIGN_DIR/NAME (default /tmp/fuzz-campaign): log,
# the grown corpus (corpus/), a -merge=1 minimised one (min/) and any
# reproducer (crash-*). Prints the figures docs/fuzzing.md records.
# CR_FUZZ_RESUME=1 continues a campaign cut short by its time cap: the
# grown corpus is kept (the seeds are added to it), and docs/fuzzing.md
# records each segment's runs and their sum. Resume only on unchanged code.
#   CR_TEST_BUILD_DIR=build sh tests/fuzz/campaign.sh hostlist 10000000 3600 \
#       tests/fuzz/hostlist/run-fuzz.sh hostlist
set -eu
name=${1:?usage: campaign.sh NAME RUNS MAX_SECS RUN-SCRIPT [ARGS...]}
runs=$2 max_secs=$3
shift 3
dir=${CR_FUZZ_CAMPAIGN_DIR:-/tmp/fuzz-campaign}/$name
mkdir -p "$dir"
src=$(cd "$(dirname "$0")/../.." && pwd)
vars=$(CR_FUZZ_BUILD_ONLY=1 sh "$@" 0 | tail -n 1)
fz_bin='' fz_corpus='' fz_max_len='' fz_plugin=''
eval "$vars"
[ -n "$fz_bin" ] || { echo "campaign.sh: $* built nothing" >&2; exit 1; }
if [ "${CR_FUZZ_RESUME:-0}" = 1 ] && [ -d "$dir/corpus" ]; then
	rm -rf "$dir/min"
else
	rm -rf "$dir/corpus" "$dir/min" "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-*
fi
mkdir -p "$dir/corpus" "$dir/min"
cp "$fz_corpus"/* "$dir/corpus/"
if [ -n "$fz_plugin" ]; then
	export CR_FUZZ_PLUGIN="$fz_plugin" CLUSTER_RESOLVER_NO_DLCLOSE=1
fi
# CR_FUZZ_MALLOC_CONTEXT: the frames ASan records for each allocation (its
# default, 30, unless set). Its fast unwinder follows frame pointers into
# libraries built without them (Debian's libcrypto, under the reservation
# targets' HMAC) and records stacks that differ every run: its stack depot
# then grows by ~200 B a run until -rss_limit_mb stops the campaign. 1 keeps
# it flat; rerun a reproducer with the default for whole stacks.
export ASAN_OPTIONS=detect_leaks=1:malloc_context_size=${CR_FUZZ_MALLOC_CONTEXT:-30}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"
cmd="$fz_bin -runs=$runs -max_total_time=$max_secs -max_len=$fz_max_len -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$dir/crash- $dir/corpus"
echo "$cmd" >"$dir/command"
start=$(date +%s)
rc=0
# shellcheck disable=SC2086
nice -n 19 $cmd >"$dir/log" 2>&1 || rc=$?
end=$(date +%s)
# shellcheck disable=SC2086
nice -n 19 "$fz_bin" -merge=1 -max_len="$fz_max_len" "$dir/min" "$dir/corpus" >"$dir/merge.log" 2>&1 || true
last=$(grep -E '^#[0-9]+' "$dir/log" | tail -n 1)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log")
crashes=$(find "$dir" -maxdepth 1 -name 'crash-*' | wc -l)
echo "name=$name rc=$rc runs=$execs secs=$((end - start)) exec_s=$speed crashes=$crashes" \
	"corpus=$(ls "$dir/corpus" | wc -l) min=$(ls "$dir/min" | wc -l)/$(cat "$dir"/min/* 2>/dev/null | wc -c)B" \
	"last='$last'" | tee "$dir/summary"
