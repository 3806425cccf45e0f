#!/bin/sh
# test-sge-real.sh - `cluster-resolver` inside a real Grid Engine cell
# (Debian's SoGE 8.1.9: sge_qmaster + sge_execd, started here by
# start-sge.sh and stopped by pid at the end, pass or fail): the job scripts
# of `qsub -pe mpi 3` and `qsub -pe mpi 4` run `explain` and `resolve`; a
# task that `qrsh -inherit` starts in the job; Open MPI's mpirun and MPICH's
# mpiexec.hydra, tightly integrated (they read the PE and start as many
# ranks as it has slots, no -np), whose ranks resolve through the mpi
# resolver to one cluster, ranks 0..N-1; and torchrun's workers in the job
# (where python3-torch is installed), which get torchrun's world through the
# shipped chain, not the job script's.
#
# The cell runs in namespaces of its own inside the hermetic one: a host
# name (crsge1, UTS) that a private /etc/hosts (mount) resolves to
# 127.0.0.1 (Grid Engine refuses a client whose address resolves to another
# name), loopback only (net: the default ports 6444/6445 collide with no
# other test, a Slurm test's included), and a PID namespace, so that nothing
# the cell started outlives the test. Skips (77) where the packages are
# missing or the namespaces cannot be made.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${CR_TEST_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
: "${CR_CLI:?CR_CLI must name the cluster-resolver binary}"
: "${CLUSTER_RESOLVER_PLUGIN_PATH:?must name the plugins of the build}"
for tool in /usr/sbin/sge_qmaster /usr/sbin/sge_execd qsub qconf mpirun mpiexec.hydra; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool not installed (Debian: gridengine-master gridengine-exec gridengine-client openmpi-bin mpich; scripts/deps.sh test)"
		exit 77
	fi
done
host=crsge1
if [ "${CR_SGE_NS:-}" != 1 ]; then
	user=
	[ "$(id -u)" -eq 0 ] || user=-r
	# shellcheck disable=SC2086
	if ! why=$(unshare $user -u -m -n -p -f --mount-proc true 2>&1); then
		echo "1..0 # SKIP cannot make the cell's namespaces (unshare -u -m -n -p): $why"
		exit 77
	fi
	export CR_SGE_NS=1
	# shellcheck disable=SC2086
	exec unshare $user -u -m -n -p -f --kill-child --mount-proc -- "$0" "$@"
fi

# Inside: PID 1 of a namespace of our own.
base=${CR_TEST_BUILD_DIR:-/tmp}/tests/integration/sge
mkdir -p "$base"
dir=$(mktemp -d "$base/run.XXXXXX")
trap '"$here/stop-sge.sh" "$dir/cell"; rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM
hostname "$host"
printf '127.0.0.1 %s localhost\n' "$host" >"$dir/hosts"
mount --bind "$dir/hosts" /etc/hosts
ip link set lo up

SGE_TEST_SLOTS=4 "$here/start-sge.sh" "$dir/cell"
. "$dir/cell/env.sh"

cat >"$dir/cr.conf" <<CONF
resolvers = (
  { plugin = "torch-env"; policy = "sufficient"; },
  { plugin = "mpi"; policy = "sufficient"; },
  { plugin = "sge"; policy = "sufficient"; },
  { plugin = "simple"; name = "local"; policy = "sufficient";
    cluster = { worker = [ "localhost:2222" ]; }; task_type = "worker"; task_id = 0;
    refuse_if_launched = true; }
);
CONF
sed 's/plugin = "sge"; policy = "sufficient";/plugin = "sge"; policy = "sufficient"; per_slot = true;/' \
	"$dir/cr.conf" >"$dir/per-slot.conf"
shipped=$src/config/cluster-resolver.conf

# The job: every output in its own file under $out (the job's environment
# is execd's, not ours: what it needs is written in). A launcher that hangs
# is ended after 60 s, so the job ends and says so.
cat >"$dir/job.sh" <<JOB
#!/bin/sh
out=$dir/out.\$JOB_ID
mkdir -p "\$out"
. "$dir/cell/env.sh"
export CLUSTER_RESOLVER_PLUGIN_PATH="$CLUSTER_RESOLVER_PLUGIN_PATH" CLUSTER_RESOLVER_CONFIG=
cli="$CR_CLI"
cp "\$PE_HOSTFILE" "\$out/pe_hostfile"
env >"\$out/env"
"\$cli" --config "$dir/cr.conf" explain >"\$out/explain" 2>&1; echo "rc=\$?" >>"\$out/explain"
"\$cli" --config "$dir/cr.conf" resolve --format json >"\$out/json" 2>&1; echo "rc=\$?" >>"\$out/json"
"\$cli" --config "$shipped" resolve --format json >"\$out/shipped" 2>&1; echo "rc=\$?" >>"\$out/shipped"
"\$cli" --config "$dir/per-slot.conf" explain >"\$out/per-slot" 2>&1; echo "rc=\$?" >>"\$out/per-slot"
qrsh -inherit -nostdin "$host" /usr/bin/env CLUSTER_RESOLVER_PLUGIN_PATH="$CLUSTER_RESOLVER_PLUGIN_PATH" \
	"\$cli" --config "$dir/cr.conf" explain >"\$out/qrsh" 2>&1; echo "rc=\$?" >>"\$out/qrsh"
timeout 60 mpirun --allow-run-as-root --bind-to none sh -c \
	'"\$0" --config "\$1" resolve --format json >"\$2/ompi.\$OMPI_COMM_WORLD_RANK" 2>&1' \
	"\$cli" "$dir/cr.conf" "\$out" >"\$out/ompi.log" 2>&1; echo "rc=\$?" >>"\$out/ompi.log"
timeout 60 mpiexec.hydra sh -c \
	'"\$0" --config "\$1" resolve --format json >"\$2/hydra.\$PMI_RANK" 2>&1' \
	"\$cli" "$dir/cr.conf" "\$out" >"\$out/hydra.log" 2>&1; echo "rc=\$?" >>"\$out/hydra.log"
# torchrun (Debian's python3-torch) in the job of 3 slots: its 2 workers
# inherit PE_HOSTFILE; the shipped chain answers with torchrun's world.
# --redirects 2 --tee 2: Debian 12's torch 1.13 on Python 3.11 cannot read
# its default --redirects 0 (as launchers-torchrun).
if [ "\$NSLOTS" = 3 ] && /usr/bin/python3 -c 'import torch.distributed.run' 2>/dev/null; then
	timeout 120 /usr/bin/python3 -m torch.distributed.run --standalone --nproc_per_node 2 --max_restarts 0 \
		--redirects 2 --tee 2 --no_python sh -c 'printf "%s:%s\n" "\$MASTER_ADDR" "\$MASTER_PORT" >"\$1/torch.\$RANK.master"
"\$0" --config "\$2" resolve --format json >"\$1/torch.\$RANK" 2>&1' \
		"\$cli" "\$out" "$shipped" >"\$out/torch.log" 2>&1; echo "rc=\$?" >>"\$out/torch.log"
fi
echo done >"\$out/done"
JOB
chmod +x "$dir/job.sh"

count=0
fail=0
ok() { # NAME COND-STATUS [DETAIL FILE...]
	name=$1 st=$2
	shift 2
	count=$((count + 1))
	if [ "$st" -eq 0 ]; then
		echo "ok $count - $name"
	else
		echo "not ok $count - $name"
		fail=1
		for f in "$@"; do
			[ -f "$f" ] && { echo "# --- $f"; sed 's/^/# /' "$f"; }
		done
	fi
}
same() { # FILE WANT: exit status 0 when FILE holds exactly WANT (and a newline)
	[ -f "$1" ] && [ "$(cat "$1")" = "$2" ]
}
expect() { # NAME FILE WANT [FILE...]: ok when FILE holds exactly WANT
	name=$1 file=$2 want=$3
	shift 3
	if same "$file" "$want"; then
		ok "$name" 0
	else
		ok "$name" 1 "$file" "$@"
		printf '%s\n' "$want" | sed 's/^/# want: /'
	fi
}

# One qsub -pe mpi N job: submit, wait for it to end (up to 180 s: mpirun
# and mpiexec on a busy machine, each ended after 60 s), check every output.
run_job() {
	n=$1
	id=$(qsub -terse -pe mpi "$n" -N "pe$n" -o "$dir/job$n.log" -j y "$dir/job.sh" 2>&1) || {
		ok "qsub -pe mpi $n" 1
		echo "# $id"
		return
	}
	out=$dir/out.$id
	t=0
	while [ ! -f "$out/done" ] || qstat -j "$id" >/dev/null 2>&1; do
		t=$((t + 1))
		if [ "$t" -gt 1800 ]; then
			ok "qsub -pe mpi $n: job $id ended" 1 "$dir/job$n.log"
			qstat -j "$id" 2>&1 | tail -5 | sed 's/^/# /'
			"$here/show-logs.sh" "$dir/cell"
			return
		fi
		sleep 0.1
	done
	ok "qsub -pe mpi $n: job $id ran" 0
	expect "job $id: PE_HOSTFILE is '$host $n all.q@$host UNDEFINED'" "$out/pe_hostfile" \
		"$host $n all.q@$host UNDEFINED"

	json="{\"cluster\": {\"worker\": [\"$host:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"master\": \"$host:8888\", \"num_accelerators\": {}}"
	expect "job $id script: resolve --format json is the one task of $host" "$out/json" "$json
rc=0" "$out/env"
	expect "job $id script: the shipped configuration gives the same" "$out/shipped" "$json
rc=0"
	pe=$(sed -n 's/^PE_HOSTFILE=//p' "$out/env")
	want="config: $dir/cr.conf
1. resolver 'torch-env' (plugin torch-env, sufficient, at $dir/cr.conf:2)
   declined: no torch launcher: TORCHELASTIC_RUN_ID (torchrun), CROSS_RANK and CROSS_SIZE (DeepSpeed), PET_MASTER_ADDR (Kubeflow), COORDINATOR_ADDRESS or JAX_COORDINATOR_ADDRESS (JAX) are not set
2. resolver 'mpi' (plugin mpi, sufficient, at $dir/cr.conf:3)
   declined: not launched by an MPI launcher: none of OMPI_COMM_WORLD_RANK with OMPI_MCA_orte_hnp_uri, PRTE_LAUNCHED, MV2_COMM_WORLD_RANK, PMI_RANK with PMI_FD, PMI_ID with PMI_PORT, PMIX_RANK with PMIX_NAMESPACE is set
3. resolver 'sge' (plugin sge, sufficient, at $dir/cr.conf:4)
   ok: 1 job, 1 task; this task worker:0
   fact launcher: \"Grid Engine\"
   fact pe: \"mpi\"
   fact pe_hostfile: \"$pe\"
4. resolver 'local' (plugin simple, sufficient, at $dir/cr.conf:5)
   skipped: resolver 'sge' (sufficient) answered first
result: $json
rc=0"
	expect "job $id script: explain" "$out/explain" "$want"
	st=0
	grep -qxF "   declined: in Grid Engine job $id of 1 hosts, but Grid Engine gives this process no rank among the $n tasks of $host (per_slot: one a slot): start the tasks with mpirun (the mpi resolver places each rank)" "$out/per-slot" &&
		grep -qxF "   error: NSLOTS=$n: this process is one of $n slots of a Grid Engine job, and no resolver placed it (the sge resolver reads these variables: is it in the config and installed? 'cluster-resolver explain' says why each resolver passed); refusing a world of one" "$out/per-slot" &&
		[ "$(tail -n 1 "$out/per-slot")" = rc=1 ] || st=1
	ok "job $id script, per_slot: sge declines ($n slots on $host), local refuses a world of one" $st "$out/per-slot"
	st=0
	grep -qxF "   declined: a task of Grid Engine job $id started by qrsh -inherit (JOB_SCRIPT=QRSH): Grid Engine gives it neither PE_HOSTFILE (the master task's only) nor a rank; start the tasks with mpirun (the mpi resolver places each rank)" "$out/qrsh" &&
		grep -qxF "   error: NSLOTS=$n: this process is one of $n slots of a Grid Engine job, and no resolver placed it (the sge resolver reads these variables: is it in the config and installed? 'cluster-resolver explain' says why each resolver passed); refusing a world of one" "$out/qrsh" &&
		[ "$(tail -n 1 "$out/qrsh")" = rc=1 ] || st=1
	ok "job $id: a qrsh -inherit task: sge declines, local refuses a world of one" $st "$out/qrsh"

	# The ranks of each MPI launcher: as many as the PE's slots, each its
	# own index, all one cluster (the mpi resolver: one node, port 8888 +
	# local rank).
	workers=
	r=0
	while [ "$r" -lt "$n" ]; do
		workers="$workers${workers:+, }\"$host:$((8888 + r))\""
		r=$((r + 1))
	done
	for mpi in ompi hydra; do
		st=0
		r=0
		while [ "$r" -lt "$n" ]; do
			same "$out/$mpi.$r" "{\"cluster\": {\"worker\": [$workers]}, \"task\": {\"type\": \"worker\", \"index\": $r}, \"master\": \"$host:$((8888 + r))\", \"num_accelerators\": {}}" || st=1
			r=$((r + 1))
		done
		[ -e "$out/$mpi.$n" ] && st=1
		[ "$(tail -n 1 "$out/$mpi.log")" = rc=0 ] || st=1
		ok "job $id: $mpi started $n ranks from the PE, ranks 0..$((n - 1)) of one cluster" $st "$out/$mpi.log" "$out/$mpi".*
	done
	# torchrun's 2 workers: torch-env's world (task 0 at torchrun's
	# MASTER_ADDR:MASTER_PORT, the other address unknown), not sge's.
	[ "$n" = 3 ] || return 0
	if [ ! -f "$out/torch.log" ]; then
		count=$((count + 1))
		echo "ok $count - job $id: torchrun # SKIP python3-torch not installed"
		return
	fi
	st=0
	for r in 0 1; do
		m=$(cat "$out/torch.$r.master" 2>/dev/null) || m=missing
		# master: this task's address, known for task 0 only.
		mine=
		[ "$r" = 0 ] && mine=$m
		same "$out/torch.$r" "{\"cluster\": {\"worker\": [\"$m\", null]}, \"task\": {\"type\": \"worker\", \"index\": $r}, \"master\": \"$mine\", \"num_accelerators\": {}}" || st=1
	done
	[ "$(tail -n 1 "$out/torch.log")" = rc=0 ] || st=1
	ok "job $id: torchrun's 2 workers inside the job get torchrun's world through the shipped chain" $st "$out/torch.log" "$out"/torch.*
}

run_job 3
run_job 4

# A recorded master-task environment on a host that PE_HOSTFILE lists
# second (the FQDN of this namespace's short host name): not the job script.
printf '%s\n' "node0.example 2 all.q@node0.example UNDEFINED" \
	"$host.example 2 all.q@$host.example UNDEFINED" >"$dir/pe-second"
st=0
why=$(env -i PATH=/usr/bin:/bin CLUSTER_RESOLVER_PLUGIN_PATH="$CLUSTER_RESOLVER_PLUGIN_PATH" \
	JOB_ID=9 PE=mpi PE_HOSTFILE="$dir/pe-second" NSLOTS=4 NHOSTS=2 \
	"$CR_CLI" --config "$dir/cr.conf" explain 2>&1) && st=1
printf '%s\n' "$why" >"$dir/second.out"
grep -qxF "   declined: in Grid Engine job 9, but this host ($host) is host 1 of PE_HOSTFILE, and the master task runs on the first (node0.example): not the job script; start the tasks with mpirun (the mpi resolver places each rank)" "$dir/second.out" || st=1
ok "this host second in PE_HOSTFILE (as $host.example): sge declines" $st "$dir/second.out"
echo "1..$count"
exit $fail
