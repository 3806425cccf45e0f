#!/bin/bash
# Run the CLI's main paths under valgrind memcheck: any memory error or
# definite leak fails (exit 99 from valgrind), and each output is checked.
set -euo pipefail

if [ "${CR_SANITIZE_BUILD:-0}" = 1 ]; then
	echo "SKIP: sanitizer build (ASan/UBSan binaries cannot run under valgrind)"
	exit 77
fi
command -v valgrind > /dev/null || { echo "FAIL: valgrind is not installed (scripts/deps.sh installs it)"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CLUSTER_RESOLVER_NO_DLCLOSE=1
unset TF_CONFIG
vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
    --show-leak-kinds=definite --suppressions=/usr/share/glib-2.0/valgrind/glib.supp)
fail=0

cat > "$tmp/three.conf" <<'CONF'
accelerators = ( );
resolvers = (
  { plugin = "tfconfig"; },
  { plugin = "simple"; name = "a"; cluster = { worker = [ "w1:2222" ];
      ps = ( { index = 1; address = "p1:2222"; } ); }; rpc_layer = "grpc"; },
  { plugin = "simple"; name = "b"; cluster_json = "{\"evaluator\": [\"e0:2222\"]}";
      num_accelerators = { GPU = 2; }; environment = "cloud"; }
);
CONF
cat > "$tmp/bad.conf" <<'CONF'
resolvers = ( { plugin = "simple"; clustr = { }; } );
CONF
export TF_CONFIG='{"cluster": {"worker": ["w0:2222"]}, "task": {"type": "worker", "index": 0}}'

# check NAME EXPECTED_RC EXPECTED_STDOUT -- ARGS...
check() {
	local name=$1 want_rc=$2 want_out=$3
	shift 4
	local rc=0
	"${vg[@]}" --log-file="$tmp/$name.vg" "$CR_CLI" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" || rc=$?
	if [ -s "$tmp/$name.vg" ] || [ "$rc" = 99 ]; then
		echo "FAIL: $name: valgrind reported errors:"; cat "$tmp/$name.vg"; fail=1; return
	fi
	if [ "$rc" != "$want_rc" ]; then
		echo "FAIL: $name: exit $rc, expected $want_rc"; cat "$tmp/$name.err"; fail=1; return
	fi
	if [ -n "$want_out" ] && [ "$(cat "$tmp/$name.out")" != "$want_out" ]; then
		echo "FAIL: $name: stdout:"; cat "$tmp/$name.out"; echo "expected: $want_out"; fail=1; return
	fi
	echo "ok: $name"
}

cluster='{"cluster": {"worker": ["w0:2222", "w1:2222"], "ps": {"1": "p1:2222"}, "evaluator": ["e0:2222"]}, "task": {"type": "worker", "index": 0}, "rpc_layer": "grpc", "environment": "cloud"'
check resolve-tf-config 0 "$cluster}" -- --config "$tmp/three.conf" resolve
check resolve-json 0 "$cluster, \"master\": \"\", \"num_accelerators\": {\"GPU\": 2}}" \
	-- --config "$tmp/three.conf" resolve --format json
check resolve-clusterdef 0 "" -- --config "$tmp/three.conf" resolve --format clusterdef
check master 0 "grpc://w1:2222" -- --config "$tmp/three.conf" master --task-type worker --task-id 1
check master-missing 1 "" -- --config "$tmp/three.conf" master --task-type chief --task-id 0
check plugins 0 "" -- plugins
check plugins-json 0 "" -- plugins --json
check check-config 0 "" -- check-config "$tmp/three.conf"
check config-error 2 "" -- --config "$tmp/bad.conf" resolve
TF_CONFIG='{"cluster": ' check tfconfig-error 1 "" -- --config "$tmp/three.conf" resolve
check usage-error 2 "" -- frobnicate
check explain 0 "" -- --config "$tmp/three.conf" explain
check explain-json 0 "" -- --config "$tmp/three.conf" explain --json
TF_CONFIG='{"cluster": ' check explain-error 1 "" -- --config "$tmp/three.conf" explain
check exec 0 "w0:2222" -- --config "$tmp/three.conf" exec -- sh -c 'echo "$TF_CONFIG" | sed "s/.*\\[\"\\(w0:2222\\)\".*/\\1/"'
check exec-supervise 3 "child" -- --config "$tmp/three.conf" exec --supervise -- sh -c 'echo child; exit 3'
check exec-supervise-signal 143 "" -- --config "$tmp/three.conf" exec --supervise -- sh -c 'kill -TERM $$'
# The GOption command lines, the torchrun format and the completion script.
cat > "$tmp/fmt.conf" <<'CONF'
accelerators = ( );
formats = { master_port = "auto"; port_range = "30000-30099"; };
resolvers = ( { plugin = "simple"; cluster = { worker = [ "127.0.0.1:1", "127.0.0.2:1" ]; };
    task_type = "worker"; task_id = 0; } );
CONF
check torchrun 0 "export PET_NNODES='2'
export PET_NODE_RANK='0'
export PET_MASTER_ADDR='127.0.0.1'
export PET_MASTER_PORT='30042'
export NCCL_SOCKET_IFNAME='lo'
export GLOO_SOCKET_IFNAME='lo'" -- -vc"$tmp/fmt.conf" resolve --format torchrun --job-id 42 --ifname auto
check format-list 0 "" -- --config "$tmp/fmt.conf" resolve --format "torchrun, jax" --rdzv c10d
check format-twice 2 "" -- --config "$tmp/fmt.conf" resolve --format torch --format jax
check command-help 0 "" -- exec --help
check completion-bash 0 "" -- completion bash
check plugins-named 0 "" -- plugins simple --json
# watch and exec --elastic over a hosts_file (issue 26): the watch threads,
# the digest, a restart after a failure and the generation's variables.
printf 'worker 127.0.0.1:1\nworker 127.0.0.2:1\n' > "$tmp/hosts"
printf 'accelerators = ( );\nresolvers = ( { plugin = "simple"; hosts_file = "%s"; } );\n' \
	"$tmp/hosts" > "$tmp/elastic.conf"
check watch 0 "127.0.0.1:1
127.0.0.2:1" -- --config "$tmp/elastic.conf" watch --format hosts --timeout 0.5
check exec-elastic 3 "1 0
1 1" -- --config "$tmp/elastic.conf" --task-type worker --task-id 0 exec --elastic \
	--max-restarts 1 -- sh -c 'echo "$CR_GENERATION $CR_RESTART_COUNT"; exit 3'
exit $fail
