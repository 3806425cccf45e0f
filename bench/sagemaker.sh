#!/bin/sh
# sagemaker.sh - the sagemaker resolver against `cluster-resolver --version`
# (process start-up and library loading only), each set measured in one
# hyperfine run with its own baseline, on a 64-host training job:
#   auto, SM_HOSTS     no configuration file: the built-in `auto` order
#                      reaches sagemaker from SM_HOSTS / SM_CURRENT_HOST
#   SM_HOSTS           { plugin = "sagemaker"; }
#   resourceconfig     the same hosts from a resourceconfig.json file
#   jobs               { jobs = { ps = "cpu"; worker = "gpu"; }; } from it
#   auto, elsewhere    no SageMaker variables or file: sagemaker declines
#                      (with every other auto resolver) and the local task
#                      answers
# Target from issue 14: sagemaker resolve vs --version <= 1.1x. Wall times
# on a shared machine swing; callgrind's instruction counts (when valgrind
# is there) are the stable figure, with a `simple` resolver of the same 64
# tasks beside them: what any resolve costs before the plugin's own work.
#
# Env: CR_CLI (bench/run.sh sets it), BENCH_RUNS (default 100).
set -eu
: "${CR_CLI:?CR_CLI must name the cluster-resolver binary}"
runs=${BENCH_RUNS:-100}
for tool in hyperfine /usr/bin/python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "sagemaker.sh: $tool is missing" >&2; exit 77; }
done
dir=$(mktemp -d /tmp/cr-bench-sagemaker.XXXXXX)
trap 'rm -rf "$dir"' EXIT
unset TF_CONFIG KUBERNETES_SERVICE_HOST KUBECONFIG SM_HOSTS SM_CURRENT_HOST
for v in $(env | sed -n 's/^\(SLURM_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export HOME="$dir" CLUSTER_RESOLVER_CONFIG=

# A 64-host job as SageMaker describes it: hosts sorted as strings, two
# instance groups (16 CPU hosts, 48 GPU hosts), this container algo-37.
/usr/bin/python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
hosts = sorted("algo-%d" % i for i in range(1, 65))
cpu = ["algo-%d" % i for i in range(1, 17)]
gpu = ["algo-%d" % i for i in range(17, 65)]
rc = {"current_host": "algo-37", "current_instance_type": "ml.p4d.24xlarge",
      "current_group_name": "gpu", "hosts": hosts,
      "instance_groups": [
          {"instance_group_name": "cpu", "instance_type": "ml.c5.18xlarge", "hosts": cpu[::-1]},
          {"instance_group_name": "gpu", "instance_type": "ml.p4d.24xlarge", "hosts": gpu[::-1]}],
      "network_interface_name": "eth0"}
json.dump(rc, open(d + "/resourceconfig.json", "w"), indent=4)
open(d + "/sm_hosts", "w").write(json.dumps(hosts))
PY
printf 'resolvers = ( { plugin = "sagemaker"; } );\n' >"$dir/env.conf"
/usr/bin/python3 -c 'import json, sys
h = json.load(open(sys.argv[1] + "/sm_hosts"))
print("resolvers = ( { plugin = \"simple\"; cluster = { worker = [ %s ]; }; task_type = \"worker\"; task_id = %d; } );"
      % (", ".join("\"%s:2223\"" % x for x in h), h.index("algo-37")))' "$dir" >"$dir/simple.conf"
printf 'resolvers = ( { plugin = "sagemaker"; resource_config = "%s/resourceconfig.json"; } );\n' \
	"$dir" >"$dir/file.conf"
printf 'resolvers = ( { plugin = "sagemaker"; resource_config = "%s/resourceconfig.json";\n  jobs = { ps = "cpu"; worker = "gpu"; }; } );\n' \
	"$dir" >"$dir/jobs.conf"

# Same answers first: a benchmark of wrong output is worthless.
check() { # expected-master command...
	want=$1
	shift
	got=$("$@")
	[ "$got" = "$want" ] || { echo "sagemaker.sh: '$*' gave '$got', expected '$want'" >&2; exit 1; }
}
check '{"cluster": {"worker": ["localhost:2222"]}, "task": {"type": "worker", "index": 0}}' \
	"$CR_CLI" resolve
check "algo-37:2223" "$CR_CLI" --config "$dir/file.conf" master
check "algo-37:2223" "$CR_CLI" --config "$dir/jobs.conf" master
check "algo-37:2223" "$CR_CLI" --config "$dir/simple.conf" master --task-type worker --task-id 30
# No SM_ variables: the file is what the plugin reads (with them, they win).
hyperfine -N --warmup 10 --runs "$runs" --export-json "$dir/file.json" \
	"$CR_CLI --version" "$CR_CLI --config $dir/file.conf resolve" \
	"$CR_CLI --config $dir/jobs.conf resolve" "$CR_CLI resolve" >/dev/null 2>"$dir/hf.log" ||
	{ cat "$dir/hf.log" >&2; exit 1; }

sm_env() {
	SM_HOSTS=$(cat "$dir/sm_hosts") SM_CURRENT_HOST=algo-37
	export SM_HOSTS SM_CURRENT_HOST
}
sm_env
check "algo-37:2223" "$CR_CLI" master
check "algo-37:2223" "$CR_CLI" --config "$dir/env.conf" master
hyperfine -N --warmup 10 --runs "$runs" --export-json "$dir/env.json" \
	"$CR_CLI --version" "$CR_CLI --config $dir/env.conf resolve" "$CR_CLI resolve" \
	>/dev/null 2>"$dir/hf.log" || { cat "$dir/hf.log" >&2; exit 1; }

/usr/bin/python3 - "$dir/env.json" "$dir/file.json" <<'PY'
import json, sys
env = json.load(open(sys.argv[1]))["results"]
file = json.load(open(sys.argv[2]))["results"]
print("sagemaker: 64 hosts; each block is one hyperfine run with its own baseline")
for title, rows, names in (
        ("SM_HOSTS and SM_CURRENT_HOST set", env,
         ["--version (baseline)", "SM_HOSTS", "auto (no config), SM_HOSTS"]),
        ("no SM_ variables", file,
         ["--version (baseline)", "resourceconfig.json", "jobs (ps 16, worker 48)",
          "auto (no config), elsewhere"])):
    base = rows[0]["median"]
    print(" %s" % title)
    for name, x in zip(names, rows):
        print("  %-30s median %6.2f ms  %5.2fx baseline" % (name, x["median"] * 1000, x["median"] / base))
PY

if command -v valgrind >/dev/null 2>&1; then
	count() {
		valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" "$@" >/dev/null 2>"$dir/cg.log"
		sed -n 's/^summary: //p' "$dir/cg.out"
	}
	row() { # name args...
		name=$1
		shift
		n=$(count "$CR_CLI" "$@")
		/usr/bin/python3 -c 'import sys; n, v = int(sys.argv[1]), int(sys.argv[2]); print("  %-30s %9d  %5.2fx" % (sys.argv[3], n, n / v))' \
			"$n" "$v" "$name"
	}
	v=$(count "$CR_CLI" --version)
	echo " instructions (callgrind), ratio to --version"
	row "--version" --version
	row "simple, the same 64 tasks" --config "$dir/simple.conf" resolve
	row "SM_HOSTS" --config "$dir/env.conf" resolve
	row "auto (no config), SM_HOSTS" resolve
	unset SM_HOSTS SM_CURRENT_HOST
	row "resourceconfig.json" --config "$dir/file.conf" resolve
	row "jobs (ps 16, worker 48)" --config "$dir/jobs.conf" resolve
	row "auto (no config), elsewhere" resolve
fi
