#!/bin/sh
# The sagemaker resolver through the cluster-resolver command: the built-in
# `auto` configuration (no config file) picks it inside a SageMaker-like
# environment and passes over it silently elsewhere; exit statuses, stdout
# empty on errors, config errors naming FILE:LINE, `explain` facts; the
# main paths again under valgrind in the normal build. Runs under
# scripts/hermetic.sh (loopback only): `auto` also probes the cloud
# resolvers, which must fail fast, never reach out.
set -u
src=${CR_TEST_SOURCE_DIR:?}
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec sh "$src/scripts/hermetic.sh" sh "$0" "$@"
fi
cli=${CR_CLI:?}
files=$src/tests/plugins/sagemaker/files
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

. "$src/tests/common/expect.sh"

# Nothing of another environment leaks in: no TF_CONFIG, Slurm, Kubernetes,
# cloud variables or kubeconfig.
for v in $(env | sed -n 's/^\(TF_CONFIG\|SLURM_[A-Z_]*\|KUBERNETES_[A-Z_]*\|KUBECONFIG\|AWS_[A-Z_]*\|GCE_[A-Z_]*\|TPU_[A-Z_]*\|SM_[A-Z_]*\)=.*/\1/p'); do
	unset "$v"
done
export HOME="$tmp" CLUSTER_RESOLVER_CONFIG=

hosts='["algo-1", "algo-2", "algo-3"]'
three='{"cluster": {"worker": ["algo-1:2223", "algo-2:2223", "algo-3:2223"]}, "task": {"type": "worker", "index": 1}}'
local='{"cluster": {"worker": ["localhost:2222"]}, "task": {"type": "worker", "index": 0}}'

# auto: no config file at all
expect auto-picks-sagemaker 0 "$three" '' -- \
	env SM_HOSTS="$hosts" SM_CURRENT_HOST=algo-2 "$cli" resolve
expect auto-master-no-prefix 0 'algo-2:2223' '' -- \
	env SM_HOSTS="$hosts" SM_CURRENT_HOST=algo-2 "$cli" master
expect auto-master-rpc-layer 0 'grpc://algo-2:2223' '' -- \
	env SM_HOSTS="$hosts" SM_CURRENT_HOST=algo-2 "$cli" --rpc-layer grpc master
expect auto-master-rpc-layer-empty 0 'algo-2:2223' '' -- \
	env SM_HOSTS="$hosts" SM_CURRENT_HOST=algo-2 "$cli" --rpc-layer '' master
expect auto-single-host 0 '{"cluster": {"worker": ["algo-1:2223"]}, "task": {"type": "worker", "index": 0}, "master": "", "num_accelerators": {}}' '' -- \
	env SM_HOSTS='["algo-1"]' SM_CURRENT_HOST=algo-1 "$cli" resolve --format json
expect auto-elsewhere-silent 0 "$local" '' -- "$cli" resolve
expect auto-sm-hosts-empty-silent 0 "$local" '' -- \
	env SM_HOSTS= SM_CURRENT_HOST=algo-1 "$cli" resolve
expect auto-not-listed-warned 0 "$local" \
	"cluster-resolver: warning: resolver 'sagemaker': current host 'algo-9' is not one of the tasks of SM_HOSTS; declining" -- \
	env SM_HOSTS="$hosts" SM_CURRENT_HOST=algo-9 "$cli" resolve
expect auto-only-sm-hosts 1 '' \
	"cluster-resolver: resolver 'sagemaker': not a SageMaker environment: SM_CURRENT_HOST is unset" -- \
	env SM_HOSTS="$hosts" "$cli" resolve
expect auto-only-current-host 1 '' \
	"cluster-resolver: resolver 'sagemaker': not a SageMaker environment: SM_HOSTS is unset" -- \
	env SM_CURRENT_HOST=algo-1 "$cli" resolve
expect auto-bad-sm-hosts 1 '' \
	"cluster-resolver: resolver 'sagemaker': SM_HOSTS is not a JSON list of strings: 'algo-1 algo-2'" -- \
	env SM_HOSTS='algo-1 algo-2' SM_CURRENT_HOST=algo-1 "$cli" resolve
expect auto-tfconfig-first 0 '{"cluster": {"chief": ["c:1"]}}' '' -- \
	env TF_CONFIG='{"cluster": {"chief": ["c:1"]}}' SM_HOSTS="$hosts" SM_CURRENT_HOST=algo-2 "$cli" resolve

# a config file
cat >"$tmp/hetero.conf" <<CONF
resolvers = ( { plugin = "sagemaker"; port = 2222; rpc_layer = "grpc";
                resource_config = "$files/hetero.json";
                jobs = { ps = "cpu-group"; worker = "gpu-group"; }; } );
CONF
expect hetero 0 '{"cluster": {"ps": ["algo-1:2222", "algo-3:2222"], "worker": ["algo-2:2222", "algo-4:2222", "algo-5:2222"]}, "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc"}' '' -- \
	"$cli" --config "$tmp/hetero.conf" resolve
expect hetero-master 0 'grpc://algo-4:2222' '' -- "$cli" --config "$tmp/hetero.conf" master
expect hetero-exec 0 'worker 1' '' -- \
	"$cli" --config "$tmp/hetero.conf" exec -- sh -c 'echo "$TF_CONFIG" | sed "s/.*\"type\": \"\([a-z]*\)\", \"index\": \([0-9]*\).*/\1 \2/"'
expect hetero-explain-facts 0 '   fact source: "'"$files"'/hetero.json"
   fact current_host: "algo-4"
   fact current_group_name: "gpu-group"
   fact network_interface_name: "eth0"' '' -- \
	sh -c '"$0" --config "$1" explain | grep -E "fact (source|current_host|current_group_name|network_interface_name):"' "$cli" "$tmp/hetero.conf"

expect example-config 0 'config/sagemaker.conf: ok' '' -- \
	sh -c 'cd "$1" && "$0" check-config config/sagemaker.conf | head -n 1' "$cli" "$src"

cat >"$tmp/broken.conf" <<CONF
resolvers = ( { plugin = "sagemaker"; resource_config = "$files/invalid.json"; } );
CONF
expect file-malformed 1 '' \
	"cluster-resolver: resolver 'sagemaker': $files/invalid.json: invalid JSON at line 2, column 21 (offset 47): array value separator ',' expected" -- \
	"$cli" --config "$tmp/broken.conf" resolve
cat >"$tmp/absent.conf" <<CONF
resolvers = ( { plugin = "sagemaker"; resource_config = "$tmp/none.json"; } );
CONF
expect required-declines 1 '' "cluster-resolver: no resolver applies here (declined: sagemaker)" -- \
	"$cli" --config "$tmp/absent.conf" resolve
printf 'resolvers = ( { plugin = "sagemaker";\n  port = 70000; } );\n' >"$tmp/port.conf"
expect config-port 2 '' \
	"cluster-resolver: $tmp/port.conf:2: resolver 'sagemaker': key 'port' is 70000, out of its range 1..65535" -- \
	"$cli" --config "$tmp/port.conf" resolve
printf 'resolvers = ( { plugin = "sagemaker";\n  jobs = { ps = "g";\n    worker = "g"; }; } );\n' >"$tmp/twice.conf"
expect config-group-twice 2 '' \
	"cluster-resolver: resolver 'sagemaker' ($CR_PLUGIN_BUILD_DIR/resolvers/sagemaker.so): create failed: $tmp/twice.conf:3: instance group 'g' is mapped to both job 'ps' and job 'worker'" -- \
	"$cli" --config "$tmp/twice.conf" resolve

# valgrind: the paths above that read the environment, the file and the jobs
if [ "${CR_SANITIZE_BUILD:-0}" != 1 ] && command -v valgrind >/dev/null 2>&1; then
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --suppressions=/usr/share/glib-2.0/valgrind/glib.supp"
	export CLUSTER_RESOLVER_NO_DLCLOSE=1
	# shellcheck disable=SC2086
	expect vg-auto 0 "$three" '' -- env SM_HOSTS="$hosts" SM_CURRENT_HOST=algo-2 $vg "$cli" resolve
	# shellcheck disable=SC2086
	expect vg-hetero 0 'grpc://algo-4:2222' '' -- $vg "$cli" --config "$tmp/hetero.conf" master
	# shellcheck disable=SC2086
	expect vg-malformed 1 '' \
		"cluster-resolver: resolver 'sagemaker': $files/invalid.json: invalid JSON at line 2, column 21 (offset 47): array value separator ',' expected" -- \
		$vg "$cli" --config "$tmp/broken.conf" resolve
	# shellcheck disable=SC2086
	expect vg-not-listed 0 "$local" \
		"cluster-resolver: warning: resolver 'sagemaker': current host 'algo-9' is not one of the tasks of SM_HOSTS; declining" -- \
		env SM_HOSTS="$hosts" SM_CURRENT_HOST=algo-9 $vg "$cli" resolve
fi
exit $fail
