#!/bin/sh
# accelerators.sh - `cluster-resolver accelerators` against
# `cluster-resolver --version` (process start-up and library loading only),
# measured in the same run, on three machines:
#   this host     the built-in plugin list (nvidia, tpu) on the real /, which
#                 here has no NVIDIA driver and no TPU: both must decline fast
#   8 GPUs        nvidia.so with the test-built fake NVML (8 x A100)
#   8 TPU chips   tpu.so on the v5e fake root (VFIO + sysfs)
# Target from issue 6: a CPU-only host answers {} in a few milliseconds.
#
# Env: CR_CLI, CR_TEST_SOURCE_DIR, CR_TEST_BUILD_DIR (bench/run.sh sets
# them), BENCH_RUNS (default 50).
set -eu
: "${CR_CLI:?CR_CLI must name the cluster-resolver binary}"
: "${CR_TEST_SOURCE_DIR:?}" "${CR_TEST_BUILD_DIR:?}"
runs=${BENCH_RUNS:-50}
for tool in hyperfine /usr/bin/python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "accelerators.sh: $tool is missing" >&2; exit 77; }
done
fix="$CR_TEST_SOURCE_DIR/tests/fixtures/accel"
nvml="$CR_TEST_BUILD_DIR/tests/plugins/nvidia/fake-nvml/good/libnvidia-ml.so.1"
[ -f "$nvml" ] || { echo "accelerators.sh: $nvml is not built" >&2; exit 77; }
dir=$(mktemp -d /tmp/cr-bench-accel.XXXXXX)
trap 'rm -rf "$dir"' EXIT
unset CUDA_VISIBLE_DEVICES NVIDIA_VISIBLE_DEVICES TPU_VISIBLE_CHIPS TPU_CHIPS_PER_PROCESS_BOUNDS

simple='resolvers = ( { plugin = "simple"; cluster = { worker = [ "localhost:2222" ]; }; task_type = "worker"; task_id = 0; } );'
printf '%s\n' "$simple" >"$dir/host.conf"
printf '%s\naccelerators = ( { plugin = "nvidia"; root = "%s/roots/cpu-only"; library = "%s"; } );\n' \
	"$simple" "$fix" "$nvml" >"$dir/gpu8.conf"
printf '%s\naccelerators = ( { plugin = "tpu"; root = "%s/roots/tpu-v5e"; } );\n' \
	"$simple" "$fix" >"$dir/tpu8.conf"
export FAKE_NVML_CONFIG="$fix/nvml/dgx-a100.conf"

# Same answers first: a benchmark of wrong output is worthless.
check() { # config expected
	got=$("$CR_CLI" --config "$dir/$1" accelerators)
	[ "$got" = "$2" ] || { echo "accelerators.sh: $1 gave '$got', expected '$2'" >&2; exit 1; }
}
if [ ! -e /proc/driver/nvidia/gpus ] && ! ls /dev/accel* /dev/vfio/[0-9]* >/dev/null 2>&1; then
	check host.conf '{}'
fi
check gpu8.conf '{"GPU": 8}'
check tpu8.conf '{"TPU": 8}'

hyperfine -N --warmup 5 --runs "$runs" --export-json "$dir/h.json" \
	"$CR_CLI --version" \
	"$CR_CLI --config $dir/host.conf accelerators" \
	"$CR_CLI --config $dir/gpu8.conf accelerators" \
	"$CR_CLI --config $dir/tpu8.conf accelerators" >/dev/null
/usr/bin/python3 - "$dir/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]["median"]
names = ["--version (baseline)", "this host (declines)", "8 GPUs (fake NVML)", "8 TPU chips (v5e root)"]
for name, x in zip(names, r):
    print("%-24s median %6.2f ms  %5.2fx baseline" % (name, x["median"] * 1000, x["median"] / base))
PY
