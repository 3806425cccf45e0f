#!/bin/sh
# test-slurm-spank.sh - spank_cluster_resolver.so ($CR_SPANK_PLUGIN) in a
# real Slurm (munge + slurmctld + 2 slurmd on 127.0.0.1, started by
# ../slurm/start-slurm.sh, stopped by pid at the end, pass or fail), loaded
# from plugstack.conf with the `config=` argument:
#   - `srun -N2 -n4 --cluster-resolver=torch,tf_config env`: every task has
#     exactly the variables of those formats, with the values Slurm's
#     placement gives (check-env.py), also cyclic, jax, the default format
#     a list with spaces, and with GPUs bound (CUDA_VISIBLE_DEVICES kept);
#   - without the option, the plugin sets nothing and the step runs;
#   - errors (unknown format, empty list entry, bad config) come from
#     slurm_error on stderr, name the cause, and leave stdout empty;
#   - examples/slurm/train.sbatch, submitted with sbatch;
#   - the TaskProlog recipe of docs/slurm.md (examples/slurm/task-prolog.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${CR_TEST_SOURCE_DIR:-$(cd "$here/../../.." && pwd)}
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
: "${CR_CLI:?CR_CLI must name the cluster-resolver binary}"
: "${CR_SPANK_PLUGIN:?CR_SPANK_PLUGIN must name spank_cluster_resolver.so}"
slurm=$src/tests/integration/slurm
for tool in munged slurmctld slurmd srun sbatch; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "1..0 # SKIP $tool not installed (Debian: munge slurmctld slurmd slurm-client)"
		exit 77
	fi
done
# Nothing from the caller's environment may pass for the plugin's work.
unset TF_CONFIG MASTER_ADDR MASTER_PORT WORLD_SIZE RANK LOCAL_RANK LOCAL_WORLD_SIZE \
	NODE_RANK GROUP_RANK JAX_COORDINATOR_ADDRESS JAX_NUM_PROCESSES JAX_PROCESS_ID \
	CLUSTER_RESOLVER_FORMATS
export CLUSTER_RESOLVER_CONFIG=

dir=$(mktemp -d /tmp/cr-spank-test.XXXXXX)
trap '"$slurm/stop-slurm.sh" "$dir"' EXIT
trap 'exit 1' INT TERM
SLURM_TEST_NODES=2 SLURM_TEST_CPUS=4 SLURM_TEST_GPUS=2 "$slurm/start-slurm.sh" "$dir"
. "$dir/env.sh"

printf 'resolvers = ( { plugin = "slurm"; } );\n' >"$dir/cr.conf"
# srun and slurmstepd read plugstack.conf at every step: no restart needed.
printf 'required %s config=%s\n' "$CR_SPANK_PLUGIN" "$dir/cr.conf" >"$dir/plugstack.conf"

fail=0
n=0
# step NAME NTASKS FORMATS -- SRUN ARGS: run `srun ARGS env`, each task's
# output in its own file (srun -o %t), and check them.
step() {
	name=$1 ntasks=$2 formats=$3
	shift 4
	n=$((n + 1))
	out=$dir/step$n
	mkdir -p "$out"
	if ! srun --time=1 -o "$out/task-%t.env" "$@" env 2>"$dir/err"; then
		echo "not ok - $name: srun $* env failed: $(cat "$dir/err")"
		for f in "$dir"/log/slurmd-*.log; do
			echo "# --- $f"
			tail -n 15 "$f" | sed 's/^/# /'
		done
		fail=1
		return
	fi
	/usr/bin/python3 "$here/check-env.py" "$name" "$ntasks" "$formats" "$out" || fail=1
}

step "srun -N2 -n4 --cluster-resolver=torch,tf_config" 4 torch,tf_config -- \
	-N2 -n4 --cluster-resolver=torch,tf_config
step "srun -N2 -n4 -m cyclic --cluster-resolver=jax" 4 jax -- \
	-N2 -n4 -m cyclic --cluster-resolver=jax
step "srun -N2 -n3 --cluster-resolver (default tf_config)" 3 tf_config -- \
	-N2 -n3 --cluster-resolver
# srun hands a bare option to the nodes as an empty value: the default,
# with not one error line in any slurmd log.
if grep -h -e 'cluster-resolver' "$dir"/log/slurmd-*.log | grep -e 'error' >"$dir/bare.log"; then
	echo "not ok - bare --cluster-resolver: slurmd logged errors:"
	sed 's/^/# /' "$dir/bare.log"
	fail=1
else
	echo "ok - bare --cluster-resolver: no error in the slurmd logs"
fi
step "srun -N2 -n4 --cluster-resolver='tf_config, jax'" 4 tf_config,jax -- \
	-N2 -n4 "--cluster-resolver=tf_config, jax"
step "srun -N2 -n4 without the option" 4 none -- -N2 -n4
# Slurm's GPU binding is the task's before the plugin resolves: kept.
step "srun -N2 -n4 -m cyclic --gpus-per-task=1 --cluster-resolver=torch" 4 torch -- \
	-N2 -n4 -m cyclic --gpus-per-task=1 --cluster-resolver=torch

# fails NAME WANT -- SRUN ARGS: srun fails, stdout stays empty, stderr has WANT.
fails() {
	name=$1 want=$2
	shift 3
	if srun --time=1 "$@" >"$dir/out" 2>"$dir/err"; then
		echo "not ok - $name: srun $* succeeded"
		fail=1
	elif [ -s "$dir/out" ]; then
		echo "not ok - $name: output on stdout: $(cat "$dir/out")"
		fail=1
	elif ! grep -qF -- "$want" "$dir/err"; then
		echo "not ok - $name: stderr lacks '$want':"
		sed 's/^/# /' "$dir/err"
		fail=1
	else
		echo "ok - $name"
	fi
}
fails "unknown format" \
	"error: cluster-resolver: format 'nope' sets no environment variables" -- \
	-N1 -n1 --cluster-resolver=torch,nope env
fails "empty name in the list, refused by srun before any task" \
	"srun: error: cluster-resolver: empty name in format list 'torch,,jax'" -- \
	-N1 -n1 --cluster-resolver=torch,,jax env
fails "an empty list, refused by srun" \
	"srun: error: cluster-resolver: empty name in format list ''" -- \
	-N1 -n1 --cluster-resolver= env
printf 'resolvers = (\n  { plugin = "slurm"; bogus = 1; } );\n' >"$dir/bad.conf"
CLUSTER_RESOLVER_CONFIG=$dir/bad.conf fails "CLUSTER_RESOLVER_CONFIG beats config=, its error names file:line" \
	"error: cluster-resolver: $dir/bad.conf:2: resolver 'slurm': unknown key 'bogus'" -- \
	-N1 -n1 --cluster-resolver env
# Not asked for, a broken config is never read.
if out=$(CLUSTER_RESOLVER_CONFIG=$dir/bad.conf srun --time=1 -N2 -n2 echo fine 2>"$dir/err") &&
	[ "$out" = "fine
fine" ]; then
	echo "ok - without the option a broken config does not matter"
else
	echo "not ok - without the option: stdout $out, stderr $(cat "$dir/err")"
	fail=1
fi

# The sbatch example, with a program that saves each task's environment.
mkdir -p "$dir/sbatch"
cat >"$dir/dump.sh" <<DUMP
#!/bin/sh
env >"$dir/sbatch/task-\$SLURM_PROCID.env"
DUMP
chmod +x "$dir/dump.sh"
jobid=$(sbatch --parsable -o "$dir/sbatch.log" "$src/examples/slurm/train.sbatch" "$dir/dump.sh")
w=0
while squeue -h -j "$jobid" 2>/dev/null | grep -q .; do
	w=$((w + 1))
	if [ "$w" -gt 300 ]; then
		echo "not ok - sbatch: job $jobid did not finish in 30 s"
		fail=1
		break
	fi
	sleep 0.1
done
/usr/bin/python3 "$here/check-env.py" "sbatch examples/slurm/train.sbatch" 4 torch,tf_config \
	"$dir/sbatch" || { fail=1; sed 's/^/# /' "$dir/sbatch.log"; }

# The TaskProlog recipe, without the SPANK plugin: slurmd reads the new
# slurm.conf on reconfigure; the prolog finds the CLI on the task's PATH.
: >"$dir/plugstack.conf"
echo "TaskProlog=$src/examples/slurm/task-prolog.sh" >>"$dir/slurm.conf"
scontrol reconfigure
cli_dir=$(dirname "$CR_CLI")
PATH=$cli_dir:$PATH CLUSTER_RESOLVER_CONFIG=$dir/cr.conf CLUSTER_RESOLVER_FORMATS=torch,tf_config \
	step "TaskProlog, CLUSTER_RESOLVER_FORMATS=torch,tf_config srun -N2 -n4" 4 torch,tf_config -- -N2 -n4
PATH=$cli_dir:$PATH CLUSTER_RESOLVER_CONFIG=$dir/cr.conf \
	step "TaskProlog, a job that does not ask" 4 none -- -N2 -n4
exit $fail
