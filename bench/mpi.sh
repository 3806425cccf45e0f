#!/bin/sh
# mpi.sh - what asking the launcher costs: `mpirun -np 16 --oversubscribe
# cluster-resolver resolve` against `mpirun -np 16 --oversubscribe true`,
# measured with hyperfine in the same run, for each query the mpi resolver
# makes (`query = "always"`, so the ranks on one node still ask):
#   pmix   Open MPI 4.1's mpirun (PMIx_Init, PMIx_Get of 16 hosts, Finalize)
#   pmi1   MPICH 4.0's mpiexec (Hydra; PMI-1 put, barrier, 16 gets, finalize)
# and, for comparison, `query = "auto"` (one node: nothing asked).
# Goal from issue 37: the ratio <= 1.3x.
#
# Env: CR_CLI (bench/run.sh sets it), BENCH_RUNS (default 20), BENCH_NP
# (default 16). Run under scripts/hermetic.sh (loopback only).
set -eu
: "${CR_CLI:?CR_CLI must name the cluster-resolver binary}"
runs=${BENCH_RUNS:-20}
np=${BENCH_NP:-16}
for tool in hyperfine mpirun mpiexec.mpich; do
	command -v "$tool" >/dev/null 2>&1 || { echo "mpi.sh: $tool is missing" >&2; exit 77; }
done
dir=$(mktemp -d /tmp/cr-bench-mpi.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo CLUSTER_RESOLVER_CONFIG=
printf 'resolvers = ( { plugin = "mpi"; policy = "required"; query = "always"; } );\n' >"$dir/always.conf"
printf 'resolvers = ( { plugin = "mpi"; policy = "required"; } );\n' >"$dir/auto.conf"
# timeout: PMIx_Init now and then never returns in one of 16 ranks under
# Open MPI 4.1.4 on 2 busy cores, in any PMIx client (docs/launchers.md);
# fail, do not hang.
ompi="timeout 60 mpirun --allow-run-as-root --oversubscribe -np $np"
mpich="timeout 60 mpiexec.mpich -n $np"

# Same answers first: every rank names $np tasks.
for run in "$ompi" "$mpich"; do
	got=$($run "$CR_CLI" -c "$dir/always.conf" resolve --format json | grep -c "\"index\"")
	[ "$got" = "$np" ] || { echo "mpi.sh: $run: $got answers, expected $np" >&2; exit 1; }
done

hyperfine -N --warmup 2 --runs "$runs" --export-markdown "$dir/pmix.md" \
	-n "mpirun true" "$ompi true" \
	-n "mpirun resolve (pmix)" "$ompi $CR_CLI -c $dir/always.conf resolve" \
	-n "mpirun resolve (auto: no query)" "$ompi $CR_CLI -c $dir/auto.conf resolve"
hyperfine -N --warmup 2 --runs "$runs" --export-markdown "$dir/pmi1.md" \
	-n "mpiexec.mpich true" "$mpich true" \
	-n "mpiexec.mpich resolve (pmi1)" "$mpich $CR_CLI -c $dir/always.conf resolve" \
	-n "mpiexec.mpich resolve (auto: no query)" "$mpich $CR_CLI -c $dir/auto.conf resolve"
cat "$dir/pmix.md" "$dir/pmi1.md"
