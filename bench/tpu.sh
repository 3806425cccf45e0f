#!/bin/bash
# Cloud TPU benchmark: resolvers/tpu.so against the gcp fixture
# (tests/fixtures/gcp, TPU routes in gcp_tpu.py), each figure a ratio to a
# baseline measured in the same run:
#   - a 64-host node (v4-512) read through the TPU API, vs `gcloud compute
#     tpus tpu-vm describe` of the same node (target: plugin >= 10x faster);
#   - the TPU-VM path (agent-worker-number, worker-network-endpoints,
#     accelerator-type, tpu-env from the metadata server), vs one curl
#     process fetching the same four keys on one connection (target <= 1.5x);
#   - an off-GCE run (the resolver declines without a packet, a local task
#     answers), vs `cluster-resolver --version` (target <= 1.1x), and vs the
#     same resolve without the tpu entry (what tpu.so itself adds).
# Medians of RUNS runs (default 11; gcloud 3; the off-GCE rows, a few ms
# each, 10 x RUNS interleaved). Loopback only (hermetic.sh).
#
#   bench/tpu.sh [BUILD_DIR]          env: CR_BENCH_RUNS=11
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
build=$(cd "${1:-$src/build}" && pwd)
cli="$build/bin/cluster-resolver"
runs=${CR_BENCH_RUNS:-11}
[ -x "$cli" ] || { echo "no $cli: build first" >&2; exit 1; }
command -v curl > /dev/null || { echo "curl is not installed" >&2; exit 1; }
command -v gcloud > /dev/null || { echo "gcloud is not installed" >&2; exit 1; }
export CLUSTER_RESOLVER_PLUGIN_PATH="$build/lib/cluster-resolver/resolvers:$build/lib/cluster-resolver/accelerators"
export CLUSTER_RESOLVER_CONFIG=
unset TPU_NAME TPU_CONFIG KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS TPU_WORKER_HOSTNAMES \
	TPU_PROCESS_ADDRESSES MEGASCALE_NUM_SLICES GCE_METADATA_HOST TPU_SKIP_MDS_QUERY

tmp=$(mktemp -d)
fixture_pid=
cleanup() {
	[ -n "$fixture_pid" ] && kill "$fixture_pid" 2> /dev/null && wait "$fixture_pid" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# time_runs N CMD...: the median wall time of N runs, in seconds.
time_runs() {
	local count=$1
	shift
	for _ in $(seq "$count"); do
		local t0 t1
		t0=$(date +%s%N)
		"$@" > /dev/null 2>&1 || true
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000))
	done | sort -n | awk '{ t[NR] = $1 } END { printf "%.6f\n", t[int((NR + 1) / 2)] / 1e6 }'
}

token=ya29.bench-static-token
SRC="$src" /usr/bin/python3 - "$tmp" "$token" <<'EOF'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ['SRC'], 'tests/fixtures/gcp'))
import gcp_tpu
tmp, token = sys.argv[1], sys.argv[2]
vm = {'name': 'vm', 'type': 'v4-16', 'subnet': '10.130.9'}
json.dump({'metadata': gcp_tpu.vm_metadata('bench', 'us-central2-b', vm, 1),
           'tokens': {'static': [token]},
           'tpu': {'project': 'bench', 'zone': 'us-central2-b',
                   'nodes': [{'name': 'big', 'type': 'v4-512', 'subnet': '10.132.0',
                              'first': 10}]}},
          open(os.path.join(tmp, 'scenario.json'), 'w'))
EOF
printf '%s\n' "$token" > "$tmp/token"
mkdir -p "$tmp/fx" "$tmp/gce/sys/class/dmi/id" "$tmp/laptop"
echo "Google Compute Engine" > "$tmp/gce/sys/class/dmi/id/product_name"
/usr/bin/python3 "$src/tests/fixtures/gcp/gcp_fixture.py" --dir "$tmp/fx" \
	--scenario "$tmp/scenario.json" > "$tmp/fixture.log" 2>&1 &
fixture_pid=$!
for _ in $(seq 300); do [ -f "$tmp/fx/api.port" ] && [ -f "$tmp/fx/metadata.port" ] && break; sleep 0.05; done
[ -f "$tmp/fx/api.port" ] || { echo "fixture did not start" >&2; cat "$tmp/fixture.log" >&2; exit 1; }
api=$(cat "$tmp/fx/api.port")
md=$(cat "$tmp/fx/metadata.port")

cat > "$tmp/node.conf" <<EOF
resolvers = ( { plugin = "tpu"; tpu = "big"; project = "bench"; zone = "us-central2-b";
  tpu_endpoint = "https://127.0.0.1:$api/"; ca_file = "$tmp/fx/ca.crt";
  access_token_file = "$tmp/token"; root = "$tmp/laptop"; } );
EOF
cat > "$tmp/vm.conf" <<EOF
resolvers = ( { plugin = "tpu"; metadata_host = "127.0.0.1:$md"; root = "$tmp/gce"; } );
EOF
cat > "$tmp/off.conf" <<EOF
resolvers = ( { plugin = "tpu"; policy = "sufficient"; root = "$tmp/laptop"; },
  { plugin = "simple"; name = "local"; cluster = { worker = [ "localhost:2222" ]; };
    task_type = "worker"; task_id = 0; } );
EOF
cat > "$tmp/local.conf" <<EOF
resolvers = ( { plugin = "simple"; name = "local"; cluster = { worker = [ "localhost:2222" ]; };
    task_type = "worker"; task_id = 0; } );
EOF
gcloud_env=(env -i PATH="$PATH" HOME="$tmp" CLOUDSDK_CONFIG="$tmp/gcloud" CLOUDSDK_CORE_DISABLE_PROMPTS=1
	CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE="$tmp/fx/ca.crt"
	CLOUDSDK_AUTH_ACCESS_TOKEN_FILE="$tmp/token"
	CLOUDSDK_API_ENDPOINT_OVERRIDES_TPU="https://127.0.0.1:$api/"
	CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=1 GCE_METADATA_HOST="127.0.0.1:$md")
keys="agent-worker-number worker-network-endpoints accelerator-type tpu-env"
curl_args=(-s -H "Metadata-Flavor: Google")
for k in $keys; do curl_args+=("http://127.0.0.1:$md/computeMetadata/v1/instance/attributes/$k" -o /dev/null); done

# Everything must work before anything is timed.
n=$("$cli" --config "$tmp/node.conf" resolve --format json |
	/usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["cluster"]["worker"]))')
[ "$n" = 64 ] || { echo "plugin resolved $n workers of the 64-host node" >&2; exit 1; }
g=$("${gcloud_env[@]}" gcloud compute tpus tpu-vm describe big --zone us-central2-b \
	--project bench --format json |
	/usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["networkEndpoints"]))')
[ "$g" = 64 ] || { echo "gcloud shows $g endpoints" >&2; exit 1; }
"$cli" --config "$tmp/vm.conf" resolve --format json | grep -q '"index": 1' ||
	{ echo "TPU-VM path failed" >&2; exit 1; }
curl "${curl_args[@]}" --fail
"$cli" --config "$tmp/off.conf" resolve > /dev/null

node_t=$(time_runs "$runs" "$cli" --config "$tmp/node.conf" resolve --format json)
gcloud_t=$(time_runs 3 "${gcloud_env[@]}" gcloud compute tpus tpu-vm describe big \
	--zone us-central2-b --project bench --format json)
vm_t=$(time_runs "$runs" "$cli" --config "$tmp/vm.conf" resolve --format json)
curl_t=$(time_runs "$runs" curl "${curl_args[@]}")
# A few milliseconds each: ten times the runs, interleaved so that the load
# of the (shared) machine falls on all three alike.
off_runs=$((runs * 10))
: > "$tmp/off.t"
for _ in $(seq "$off_runs"); do
	printf '%s %s %s\n' "$(time_runs 1 "$cli" --config "$tmp/off.conf" resolve)" \
		"$(time_runs 1 "$cli" --version)" \
		"$(time_runs 1 "$cli" --config "$tmp/local.conf" resolve)" >> "$tmp/off.t"
done
med() { awk -v c="$1" '{ print $c }' "$tmp/off.t" | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'; }
off_t=$(med 1)
ver_t=$(med 2)
local_t=$(med 3)

/usr/bin/python3 - "$node_t" "$gcloud_t" "$vm_t" "$curl_t" "$off_t" "$ver_t" "$local_t" "$runs" <<'EOF'
import sys
node, gc, vm, curl, off, ver, local = (float(x) for x in sys.argv[1:8])
print('tpu benchmark: median of %s runs (gcloud: 3; off-GCE rows: 10x as many)' % sys.argv[8])
print('%-44s %9s %9s %9s  %s' % ('', 'plugin s', 'base s', 'ratio', 'target'))
print('%-44s %9.4f %9.4f %8.1fx  >= 10x faster' % ('64-host node vs gcloud tpu-vm describe', node, gc,
                                                     gc / node))
print('%-44s %9.4f %9.4f %8.2fx  <= 1.5x' % ('TPU-VM metadata vs curl of the 4 keys', vm, curl,
                                                vm / curl))
print('%-44s %9.4f %9.4f %8.2fx  <= 1.1x' % ('off GCE (declines) vs --version', off, ver, off / ver))
print('%-44s %9.4f %9.4f %8.2fx  (what tpu.so adds)' % ('off GCE vs the same resolve without tpu',
                                                          off, local, off / local))
EOF
