#!/bin/sh
# The mpi resolver under the real launchers, four ranks on loopback
# (scripts/hermetic.sh): Open MPI 4.1's mpirun (PMIx) and MPICH 4.0's
# mpiexec (Hydra, PMI-1). Every rank's `resolve --format json` names the
# same four tasks and its own index, with the default `query = "auto"`
# (one node: nothing asked) and with `query = "always"` (the PMIx query,
# the PMI-1 exchange); and after `exec --format tf_config` the program's
# own MPI works: an all-reduce of the ranks gives 6 (mpi4py under Open
# MPI, a C program built with mpicc.mpich under MPICH; under MPICH also
# after the PMI-1 exchange, which leaves the connection to the program).
# Each rank writes its own file.
set -u
src=${CR_TEST_SOURCE_DIR:?}
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec sh "$src/scripts/hermetic.sh" sh "$0" "$@"
fi
cli=${CR_CLI:?}
for tool in mpirun mpiexec.mpich mpicc.mpich; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool is not installed (scripts/deps.sh)"
		exit 77
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

. "$src/tests/common/expect.sh"

for v in $(env | sed -n 's/^\(OMPI_[A-Z_a-z]*\|PMIX_[A-Z_]*\|PMI_[A-Z_]*\|MPI_[A-Z_]*\|MV2_[A-Z_]*\|PRTE_[A-Z_]*\|MPIR_[A-Z_0-9]*\)=.*/\1/p'); do
	unset "$v"
done
export HOME="$tmp" CLUSTER_RESOLVER_CONFIG= OMPI_MCA_btl_tcp_if_include=lo \
	OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl=self,vader,tcp
printf 'resolvers = ( { plugin = "mpi"; policy = "required"; } );\n' >"$tmp/auto.conf"
printf 'resolvers = ( { plugin = "mpi"; policy = "required"; query = "always"; } );\n' >"$tmp/always.conf"
# A launch that hangs fails the test instead of stalling it (docs/launchers.md).
ompi="timeout 120 mpirun --allow-run-as-root --oversubscribe -np 4"
mpich="timeout 120 mpiexec.mpich -n 4"
# The name each launcher gives this host (Open MPI drops a domain unless
# told otherwise): what the resolver must report.
ohost=$($ompi sh -c 'echo "$PMIX_HOSTNAME"' | head -n 1)
hhost=$($mpich sh -c 'echo "${MPIR_CVAR_CH3_INTERFACE_HOSTNAME:-$(hostname)}"' | head -n 1)
[ -n "$ohost" ] && [ -n "$hhost" ] || { echo "FAIL: no host name from the launchers ('$ohost', '$hhost')"; exit 1; }
mpicc.mpich -o "$tmp/allreduce" "$src/tests/plugins/mpi/allreduce.c" || exit 1

# rank.sh OUT CMD...: run CMD with stdout and stderr to OUT.<rank>.
cat >"$tmp/rank.sh" <<'EOS'
r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-x}}
out=$1
shift
"$@" >"$out.$r" 2>&1
echo "exit $?" >>"$out.$r"
EOS

# expect_ranks NAME WHAT: each OUT.<r> holds WHAT with @R@, @P@ (its port,
# 8888 + r), @H@ (the launcher's host name) and @J@ (the JSON result of
# rank r) replaced.
expect_ranks() {
	for r in 0 1 2 3; do
		case $1 in ompi*) h=$ohost ;; *) h=$hhost ;; esac
		tasks="[\"$h:8888\", \"$h:8889\", \"$h:8890\", \"$h:8891\"]"
		want=$(printf '%s\n' "$2" | sed "s|@H@|$h|g; s|@R@|$r|g; s|@P@|$((8888 + r))|g; s|@J@|{\"cluster\": {\"worker\": $tasks}, \"task\": {\"type\": \"worker\", \"index\": $r}|g")
		expect "$1-rank$r" 0 "$want" '' -- cat "$tmp/$1.$r"
	done
}

for launcher in ompi mpich; do
	eval "run=\$$launcher"
	for q in auto always; do
		rm -f "$tmp"/res.*
		$run sh "$tmp/rank.sh" "$tmp/res" "$cli" -c "$tmp/$q.conf" resolve --format json >"$tmp/launch.out" 2>&1 ||
			{ echo "FAIL $launcher $q: launcher exit $?"; cat "$tmp/launch.out"; fail=1; }
		for r in 0 1 2 3; do
			[ -f "$tmp/res.$r" ] && mv "$tmp/res.$r" "$tmp/$launcher-resolve-$q.$r"
		done
		expect_ranks "$launcher-resolve-$q" "@J@, \"master\": \"@H@:@P@\", \"num_accelerators\": {}}
exit 0"
	done
done

# interface = "lo": the ranks exchange their addresses (PMIx_Put + Fence;
# the PMI-1 put).
printf 'resolvers = ( { plugin = "mpi"; policy = "required"; query = "always"; interface = "lo"; } );\n' >"$tmp/lo.conf"
for launcher in ompi mpich; do
	eval "run=\$$launcher"
	$run sh "$tmp/rank.sh" "$tmp/$launcher-lo" "$cli" -c "$tmp/lo.conf" resolve >"$tmp/launch.out" 2>&1 ||
		{ echo "FAIL $launcher lo: launcher exit $?"; cat "$tmp/launch.out"; fail=1; }
	expect_ranks "$launcher-lo" '{"cluster": {"worker": ["127.0.0.1:8888", "127.0.0.1:8889", "127.0.0.1:8890", "127.0.0.1:8891"]}, "task": {"type": "worker", "index": @R@}}
exit 0'
done

# explain in every rank: the launcher, the variables read, the query.
facts() { # launcher query variables
	printf '   fact launcher: "%s"\n   fact variables: "%s"\n   fact query: "%s"' "$1" "$3" "$2"
	[ "$2" = "${2#none}" ] && printf '\n   fact query_ms: N'
	printf '\nexit 0\n'
}
ovars="OMPI_MCA_orte_hnp_uri, OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_SIZE, PMIX_RANK"
hvars="PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS, PMI_FD"
for launcher in ompi mpich; do
	eval "run=\$$launcher"
	for q in auto always; do
		$run sh "$tmp/rank.sh" "$tmp/explain" sh -c \
			'"$0" -c "$1" explain | sed -n "s/query_ms: [0-9]*\$/query_ms: N/; /   fact /p"' \
			"$cli" "$tmp/$q.conf" >"$tmp/launch.out" 2>&1 ||
			{ echo "FAIL $launcher explain $q: launcher exit $?"; cat "$tmp/launch.out"; fail=1; }
		for r in 0 1 2 3; do
			[ -f "$tmp/explain.$r" ] && mv "$tmp/explain.$r" "$tmp/$launcher-explain-$q.$r"
		done
		case $launcher-$q in
		ompi-auto) want=$(facts "Open MPI 4 (ORTE)" "none (one node: local size = size)" "$ovars") ;;
		ompi-always) want=$(facts "Open MPI 4 (ORTE)" pmix "$ovars") ;;
		mpich-auto) want=$(facts "MPICH or Intel MPI (Hydra)" "none (one node: local size = size)" "$hvars") ;;
		mpich-always) want=$(facts "MPICH or Intel MPI (Hydra)" pmi1 "$hvars") ;;
		esac
		expect_ranks "$launcher-explain-$q" "$want"
	done
done

# Open MPI: mpi4py after exec (the default query: a PMIx query before the
# program's MPI_Init breaks it, see docs/launchers.md).
$ompi "$cli" -c "$tmp/auto.conf" exec --format tf_config -- \
	/usr/bin/python3 "$src/tests/plugins/mpi/allreduce.py" "$tmp/ompi-exec" >"$tmp/launch.out" 2>&1 ||
	{ echo "FAIL ompi exec: launcher exit $?"; cat "$tmp/launch.out"; fail=1; }
expect_ranks ompi-exec "rank @R@ of 4 sum 6
@J@}"
# MPICH: the C program after exec, with and without the PMI-1 exchange.
for q in auto always; do
	$mpich "$cli" -c "$tmp/$q.conf" exec --format tf_config -- "$tmp/allreduce" "$tmp/mpich-exec-$q" \
		>"$tmp/launch.out" 2>&1 ||
		{ echo "FAIL mpich exec $q: launcher exit $?"; cat "$tmp/launch.out"; fail=1; }
	expect_ranks "mpich-exec-$q" "rank @R@ of 4 sum 6
@J@}"
done
exit $fail
