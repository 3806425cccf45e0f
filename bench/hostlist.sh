#!/bin/sh
# hostlist.sh - `cluster-resolver hostlist` against `scontrol show hostnames`
# / `scontrol show hostlist` and clustershell's `nodeset`, measured in the
# same run: expanding 1,000,000 hosts and compressing 100,000 names. Prints
# each median (hyperfine), the ratio to ours, and peak memory
# (/usr/bin/time -v). scontrol caps a single range at 65,536 hosts, so the
# 1M expression is 20 ranges of 50,000.
#
# Env: CR_CLI (the built cluster-resolver), BENCH_RUNS (default 5).
set -eu
: "${CR_CLI:?CR_CLI must name the cluster-resolver binary}"
runs=${BENCH_RUNS:-5}
for tool in hyperfine scontrol /usr/bin/time /usr/bin/python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "hostlist.sh: $tool is missing" >&2; exit 77; }
done
dir=$(mktemp -d /tmp/cr-bench-hostlist.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# scontrol needs a parseable slurm.conf, and without SLURM_CONF a Slurm
# client asks DNS for its controller.
printf 'ClusterName=x\nSlurmctldHost=localhost\nNodeName=n1\nAuthType=auth/none\n' >"$dir/slurm.conf"
export SLURM_CONF="$dir/slurm.conf"

expr=n[$(/usr/bin/python3 -c 'print(",".join("%d-%d" % (1 + 50000 * i, 50000 * (i + 1)) for i in range(20)))')]
# 100,000 names on 100 racks, one per line (the order a nodelist has).
/usr/bin/python3 -c '
for r in range(1, 101):
    for n in range(1, 1001):
        print("rack%d-n%04d" % (r, n))' >"$dir/names"

# Same answers first: a benchmark of wrong output is worthless.
n_ours=$("$CR_CLI" hostlist expand "$expr" | wc -l)
n_scontrol=$(scontrol show hostnames "$expr" | wc -l)
[ "$n_ours" = 1000000 ] && [ "$n_scontrol" = 1000000 ] || {
	echo "hostlist.sh: expansions differ: ours $n_ours, scontrol $n_scontrol" >&2
	exit 1
}
c_ours=$("$CR_CLI" hostlist compress <"$dir/names")
[ "$("$CR_CLI" hostlist expand "$c_ours" | cmp - "$dir/names" && echo same)" = same ] || {
	echo "hostlist.sh: compress does not round-trip" >&2
	exit 1
}

have_nodeset=0
command -v nodeset >/dev/null 2>&1 && have_nodeset=1

median() { # hyperfine JSON -> median seconds
	/usr/bin/python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"
}
peak_kb() { # CMD... -> max RSS in KiB
	/usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'
}
bench() { # NAME CMD (a shell command line)
	hyperfine -N --runs "$runs" --warmup 1 --export-json "$dir/$1.json" "$2" >/dev/null 2>&1 ||
		hyperfine --runs "$runs" --warmup 1 --export-json "$dir/$1.json" "$2" >/dev/null
	median "$dir/$1.json"
}
report() { # WHAT OURS_S BASE_NAME BASE_S OURS_KB BASE_KB
	/usr/bin/python3 -c 'import sys
what, ours, name, base, okb, bkb = sys.argv[1:]
print("%-9s ours %7.3f s %7.1f MiB | %-26s %7.3f s %7.1f MiB | %s/ours = %.2fx" % (
    what, float(ours), int(okb) / 1024, name, float(base), int(bkb) / 1024, name.split()[0], float(base) / float(ours)))' "$@"
}

cat >"$dir/expand-ours.sh" <<X
"$CR_CLI" hostlist expand '$expr' >/dev/null
X
cat >"$dir/expand-scontrol.sh" <<X
scontrol show hostnames '$expr' >/dev/null
X
cat >"$dir/expand-nodeset.sh" <<X
nodeset -e '$expr' >/dev/null
X
cat >"$dir/compress-ours.sh" <<X
"$CR_CLI" hostlist compress <"$dir/names" >/dev/null
X
cat >"$dir/compress-scontrol.sh" <<X
scontrol show hostlist "$dir/names" >/dev/null
X
cat >"$dir/compress-nodeset.sh" <<X
nodeset -f - <"$dir/names" >/dev/null
X

echo "hostlist: median of $runs runs; ratio > 1 means ours is faster"
# Streaming: the memory of `expand` must not grow with the number of names.
small_kb=$(peak_kb "$CR_CLI" hostlist expand 'n[1-10]')
big_kb=$(peak_kb "$CR_CLI" hostlist expand "$expr")
/usr/bin/python3 -c 'import sys
s, b = (int(x) for x in sys.argv[1:])
print("expand peak RSS: 10 names %.1f MiB, 1,000,000 names %.1f MiB (%+d KiB)" % (s / 1024, b / 1024, b - s))' "$small_kb" "$big_kb"
for op in expand compress; do
	o=$(bench "$op-ours" "sh $dir/$op-ours.sh")
	okb=$(peak_kb sh "$dir/$op-ours.sh")
	s=$(bench "$op-scontrol" "sh $dir/$op-scontrol.sh")
	skb=$(peak_kb sh "$dir/$op-scontrol.sh")
	label="1M hosts"
	[ "$op" = compress ] && label="100k names"
	report "$op" "$o" "scontrol ($label)" "$s" "$okb" "$skb"
	if [ "$have_nodeset" = 1 ]; then
		n=$(bench "$op-nodeset" "sh $dir/$op-nodeset.sh")
		nkb=$(peak_kb sh "$dir/$op-nodeset.sh")
		report "$op" "$o" "nodeset ($label)" "$n" "$okb" "$nkb"
	else
		echo "$op: nodeset not installed (Debian: clustershell), baseline skipped"
	fi
done
