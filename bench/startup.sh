#!/bin/bash
# Start-up benchmark: `cluster-resolver resolve` on a three-resolver config
# (bench/startup.conf), 200 runs, median wall time as a ratio to
# `curl --version` measured in the same hyperfine run; plus callgrind
# instruction counts of both when valgrind is there.
#
#   bench/startup.sh [BUILD_DIR [BEFORE_DIR]]     (default: build)
#
# BEFORE_DIR: another build (its bin/ and lib/) timed in the same hyperfine
# run, with the same plugins, for a before/after comparison.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
cli="$build/bin/cluster-resolver"
before=${2:+$(cd "$2" && pwd)/bin/cluster-resolver}
conf="$src/bench/startup.conf"
runs=${CR_BENCH_RUNS:-200}
[ -x "$cli" ] || { echo "no $cli: build first (cmake -S . -B build && cmake --build build)" >&2; exit 1; }
command -v hyperfine > /dev/null || { echo "hyperfine is not installed" >&2; exit 1; }
command -v curl > /dev/null || { echo "curl is not installed" >&2; exit 1; }

export CLUSTER_RESOLVER_PLUGIN_PATH="$build/lib/cluster-resolver/resolvers:$build/lib/cluster-resolver/accelerators"
export TF_CONFIG='{"cluster": {"chief": ["c0:2222"]}}'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The command must work before it is timed.
"$cli" --config "$conf" resolve > "$tmp/out.json"
extra=()
if [ -n "$before" ]; then
	"$before" --config "$conf" resolve | cmp - "$tmp/out.json"
	extra=(-n before "$before --config $conf resolve")
fi

hyperfine -N --warmup 20 --runs "$runs" --export-json "$tmp/h.json" \
	-n cluster-resolver "$cli --config $conf resolve" \
	-n curl "curl --version" "${extra[@]}" > "$tmp/hyperfine.log"

python3 - "$tmp/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
cr, curl = r["cluster-resolver"], r["curl"]
if "before" in r:
    b = r["before"]
    print("  before (BEFORE_DIR)       median %7.3f ms  ratio %.2f x curl --version" %
          (b["median"] * 1e3, b["median"] / curl["median"]))
print("start-up benchmark: cluster-resolver resolve, 3 resolvers (tfconfig + 2 simple), %d runs" % len(cr["times"]))
print("  cluster-resolver resolve  median %7.3f ms  (mean %.3f ms, stddev %.3f ms)" %
      (cr["median"] * 1e3, cr["mean"] * 1e3, cr["stddev"] * 1e3))
print("  curl --version            median %7.3f ms  (mean %.3f ms, stddev %.3f ms)" %
      (curl["median"] * 1e3, curl["mean"] * 1e3, curl["stddev"] * 1e3))
print("  ratio (median / median)   %.2f x curl --version" % (cr["median"] / curl["median"]))
PY

if command -v valgrind > /dev/null; then
	count() {
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" > /dev/null 2> "$tmp/cg.log"
		sed -n 's/^summary: //p' "$tmp/cg.out"
	}
	a=$(count "$cli" --config "$conf" resolve)
	b=$(count curl --version)
	python3 -c "import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); print('  callgrind instructions: cluster-resolver %d, curl --version %d, ratio %.2f' % (a, b, a / b))" "$a" "$b"
	if [ -n "$before" ]; then
		c=$(count "$before" --config "$conf" resolve)
		python3 -c "import sys; c, b = int(sys.argv[1]), int(sys.argv[2]); print('  callgrind instructions: before %d, ratio %.2f' % (c, c / b))" "$c" "$b"
	fi
fi

# The shipped default configuration outside every cluster (no launcher, no
# scheduler variable): every resolver but the local fallback declines. The
# issue's yardstick is /bin/true; plugins with a manifest (NAME.applies)
# are never loaded here.
# Timed as installed (`cmake --install` into a scratch prefix): the build
# tree's executables carry CMake's build RUNPATH, whose padding adds an
# empty entry (the working directory) that every library lookup searches
# first, some forty failed opens a users' install does not make.
shipped="$src/config/cluster-resolver.conf"
cmake --install "$build" --prefix "$tmp/inst" > /dev/null
icli="$tmp/inst/bin/cluster-resolver"
(
	unset TF_CONFIG
	export CLUSTER_RESOLVER_PLUGIN_PATH="$tmp/inst/lib/cluster-resolver/resolvers:$tmp/inst/lib/cluster-resolver/accelerators"
	"$icli" --config "$shipped" resolve > /dev/null
	hyperfine -N --warmup 20 --runs "$runs" --export-json "$tmp/s.json" \
		-n shipped "$icli --config $shipped resolve" \
		-n version "$icli --version" \
		-n true "/bin/true" ${before:+-n before "$before --config $shipped resolve"} \
		> "$tmp/hyperfine-shipped.log"
)
python3 - "$tmp/s.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
t = r["true"]["median"]
print("start-up, shipped config outside every cluster (every resolver but local declines), installed:")
for name in ("shipped", "version", "before"):
    if name in r:
        print("  %-8s median %7.3f ms  ratio %.2f x /bin/true (%.3f ms)" %
              (name, r[name]["median"] * 1e3, r[name]["median"] / t, t * 1e3))
PY
if command -v valgrind > /dev/null; then
	a=$(env -u TF_CONFIG valgrind --tool=callgrind --callgrind-out-file="$tmp/cs.out" "$cli" --config "$shipped" resolve > /dev/null 2>&1; sed -n 's/^summary: //p' "$tmp/cs.out")
	echo "  callgrind instructions, shipped config: $a"
	if [ -n "$before" ]; then
		b=$(env -u TF_CONFIG valgrind --tool=callgrind --callgrind-out-file="$tmp/cb.out" "$before" --config "$shipped" resolve > /dev/null 2>&1; sed -n 's/^summary: //p' "$tmp/cb.out")
		python3 -c "import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); print('  callgrind instructions, before: %d (after / before %.2f)' % (b, a / b))" "$a" "$b"
	fi
fi
