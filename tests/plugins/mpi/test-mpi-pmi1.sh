#!/bin/sh
# The mpi resolver's PMI-1 client through the cluster-resolver command,
# against a fake PMI-1 server (fake-pmi1.py: Hydra's wire protocol on a
# socketpair, or on a 127.0.0.1 port): the exchange, the requests checked
# line by line, `exec` leaving the connection open and unfinalized for the
# program, `explain` facts, and each wrong answer (short, wrong cmd=,
# silence past the timeout, a 64 KiB value) giving a clear error.
set -u
src=${CR_TEST_SOURCE_DIR:?}
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec sh "$src/scripts/hermetic.sh" sh "$0" "$@"
fi
cli=${CR_CLI:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

. "$src/tests/common/expect.sh"

for v in $(env | sed -n 's/^\(OMPI_[A-Z_a-z]*\|PMIX_[A-Z_]*\|PMI_[A-Z_]*\|MPI_[A-Z_]*\|MV2_[A-Z_]*\|PRTE_[A-Z_]*\|MPIR_[A-Z_0-9]*\)=.*/\1/p'); do
	unset "$v"
done
export HOME="$tmp" CLUSTER_RESOLVER_CONFIG=
conf=$tmp/mpi.conf
printf 'resolvers = ( { plugin = "mpi"; policy = "required"; query = "always"; timeout = 1; } );\n' >"$conf"
fake="python3 $src/tests/plugins/mpi/fake-pmi1.py"
two='{"cluster": {"worker": ["node0:8888", "node1:8888"]}, "task": {"type": "worker", "index": 0}}'
e="cluster-resolver: resolver 'mpi': PMI-1 server on PMI_FD 9:"

expect exchange-fd 0 "$two" '' -- $fake good "$cli" -c "$conf" resolve
expect exchange-port 0 "$two" '' -- $fake port "$cli" -c "$conf" resolve
expect exec-keeps-connection 0 "$two" '' -- \
	$fake exec "$cli" -c "$conf" exec -- sh -c 'echo cmd=program-was-here >&"$PMI_FD"; echo "$TF_CONFIG"'
expect explain-facts 0 "config: $conf
1. resolver 'mpi' (plugin mpi, required, at $conf:1)
   ok: 1 job, 2 tasks; this task worker:0
   fact launcher: \"MPICH or Intel MPI (Hydra)\"
   fact variables: \"PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS, PMI_FD\"
   fact query: \"pmi1\"
   fact query_ms: N
result: {\"cluster\": {\"worker\": [\"node0:8888\", \"node1:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"master\": \"node0:8888\", \"num_accelerators\": {}}" '' -- \
	sh -c '"$@" | sed "s/query_ms: [0-9]*$/query_ms: N/"' sh $fake good "$cli" -c "$conf" explain
expect short-answer 1 '' "$e connection closed after 15 bytes of the answer to cmd=init" -- \
	$fake short "$cli" -c "$conf" resolve
expect wrong-cmd 1 '' "$e answered 'cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024' to cmd=init (expected cmd=response_to_init)" -- \
	$fake wrongcmd "$cli" -c "$conf" resolve
expect silence 1 '' "$e no answer to cmd=barrier_in within 1000 ms" -- \
	$fake silence "$cli" -c "$conf" resolve
expect value-64k 1 '' "$e answer to cmd=get is longer than 4095 bytes" -- \
	$fake bigvalue "$cli" -c "$conf" resolve
expect example-config 0 'config/mpi.conf: ok' '' -- \
	sh -c 'cd "$1" && "$0" check-config config/mpi.conf | head -n 1' "$cli" "$src"
exit $fail
