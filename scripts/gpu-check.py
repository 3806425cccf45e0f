#!/usr/bin/env python3
"""gpu-check.py - compare nvidia.so with the real NVIDIA driver.

Run on a host with an NVIDIA GPU (the test suite cannot: CI has none):

    CR_CLI=build/bin/cluster-resolver \
    CLUSTER_RESOLVER_PLUGIN_PATH=build/lib/cluster-resolver/resolvers:build/lib/cluster-resolver/accelerators \
    python3 scripts/gpu-check.py

For each binding (none, CUDA_VISIBLE_DEVICES by index, UUID, UUID prefix,
empty, out of range, NVIDIA_VISIBLE_DEVICES) it runs
`cluster-resolver accelerators --json` and checks every device against
`nvidia-smi --query-gpu` (UUID, name, memory, PCI bus id), and the count
against the CUDA driver's own `cuDeviceGetCount` under the same environment
(libcuda.so.1 through ctypes; PyTorch's count is not used: it re-implements
the parsing and differs from the driver, e.g. for "0,1,0"). It also checks the
/proc/driver/nvidia fallback with NVML hidden. Exit status: 0 all agree,
1 a mismatch (each printed), 77 no NVIDIA GPU here.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

CLI = os.environ.get("CR_CLI", "cluster-resolver")
CONF = """resolvers = ( { plugin = "simple"; cluster = { worker = [ "localhost:2222" ]; };
  task_type = "worker"; task_id = 0; } );
accelerators = ( { plugin = "nvidia"; library = "%s"; } );
"""
failures = 0


def fail(what, expected, got):
    global failures
    failures += 1
    print(f"FAIL {what}: expected {expected!r}, got {got!r}")


def smi():
    out = subprocess.run(
        ["nvidia-smi", "--query-gpu=index,uuid,name,memory.total,pci.bus_id",
         "--format=csv,noheader,nounits"],
        check=True, capture_output=True, text=True).stdout
    gpus = []
    for line in out.strip().splitlines():
        idx, uuid, name, mem, bus = [f.strip() for f in line.split(",")]
        gpus.append({"index": int(idx), "uuid": uuid, "name": name,
                     "mem_mib": int(mem), "bus": bus.lower()})
    return gpus


DRIVER_COUNT = r"""
import ctypes
cuda = ctypes.CDLL("libcuda.so.1")
n = ctypes.c_int(0)
if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(n)) != 0:
    n.value = 0
print(n.value)
"""


def driver_count(env):
    """GPUs the CUDA driver gives a process with @env (None: no libcuda)."""
    r = subprocess.run([sys.executable, "-c", DRIVER_COUNT], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return int(r.stdout.strip())


def ours(env, library="libnvidia-ml.so.1"):
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
        f.write(CONF % library)
        f.flush()
        r = subprocess.run([CLI, "-c", f.name, "accelerators", "--json"],
                           env=env, capture_output=True, text=True)
    if r.returncode != 0:
        fail("exit status", 0, (r.returncode, r.stderr.strip()))
        return None, r.stderr
    return json.loads(r.stdout), r.stderr


def check_case(name, extra_env, gpus, expect_phys, library=None, nvml=True):
    env = dict(os.environ)
    for k in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"):
        env.pop(k, None)
    env.update(extra_env)
    got, err = ours(env, library or "libnvidia-ml.so.1")
    if got is None:
        return
    devices = got.get("devices", [])
    count = got.get("num_accelerators", {}).get("GPU", 0)
    print(f"-- {name}: {len(devices)} device(s) {json.dumps(got)}")
    if err.strip():
        print(f"   stderr: {err.strip()}")
    if count != len(expect_phys):
        fail(f"{name}: GPU count", len(expect_phys), count)
    if "NVIDIA_VISIBLE_DEVICES" not in extra_env:  # the runtime's, not CUDA's
        dc = driver_count(env)
        if dc is not None and dc != count:
            fail(f"{name}: count vs the driver's cuDeviceGetCount", dc, count)
    for i, (dev, phys) in enumerate(zip(devices, expect_phys)):
        g = gpus[phys]
        if dev.get("index") != i:
            fail(f"{name}: device {i} index", i, dev.get("index"))
        if dev.get("physical_index") not in (None, phys):
            fail(f"{name}: device {i} physical_index", phys,
                 dev.get("physical_index"))
        if not nvml:
            continue  # /proc gives the model and bus id only
        if dev.get("uuid") != g["uuid"]:
            fail(f"{name}: device {i} uuid", g["uuid"], dev.get("uuid"))
        if dev.get("model") != g["name"]:
            fail(f"{name}: device {i} model", g["name"], dev.get("model"))
        mem = dev.get("memory_bytes", 0) // (1024 * 1024)
        if mem != g["mem_mib"]:
            fail(f"{name}: device {i} memory MiB", g["mem_mib"], mem)
        bus = dev.get("pci_bus_id", "").lower()
        if bus[-len("00:00.0"):] != g["bus"][-len("00:00.0"):]:
            fail(f"{name}: device {i} pci_bus_id", g["bus"], bus)


def main():
    if shutil.which("nvidia-smi") is None:
        print("skip: nvidia-smi not found")
        return 77
    try:
        gpus = smi()
    except subprocess.CalledProcessError:
        print("skip: nvidia-smi finds no GPU")
        return 77
    if not gpus:
        print("skip: no NVIDIA GPU")
        return 77
    n = len(gpus)
    everything = list(range(n))
    print(f"nvidia-smi: {n} GPU(s): " +
          ", ".join(f"{g['index']} {g['name']} {g['uuid']}" for g in gpus))
    last = gpus[-1]
    cases = [
        ("no binding", {}, everything),
        ("CUDA_VISIBLE_DEVICES=<last index>",
         {"CUDA_VISIBLE_DEVICES": str(n - 1)}, [n - 1]),
        ("CUDA_VISIBLE_DEVICES=<uuid>",
         {"CUDA_VISIBLE_DEVICES": last["uuid"]}, [n - 1]),
        ("CUDA_VISIBLE_DEVICES=<uuid prefix>",
         {"CUDA_VISIBLE_DEVICES": last["uuid"][:12]}, [n - 1]),
        ("CUDA_VISIBLE_DEVICES=''", {"CUDA_VISIBLE_DEVICES": ""}, []),
        ("CUDA_VISIBLE_DEVICES=<out of range>",
         {"CUDA_VISIBLE_DEVICES": str(n)}, []),
        ("CUDA_VISIBLE_DEVICES=<valid>,<out of range>,0",
         {"CUDA_VISIBLE_DEVICES": f"{n - 1},{n},0"}, [n - 1]),
        ("CUDA_VISIBLE_DEVICES=-1", {"CUDA_VISIBLE_DEVICES": "-1"}, []),
        ("CUDA_VISIBLE_DEVICES=<last>,<last> (refused)",
         {"CUDA_VISIBLE_DEVICES": f"{n - 1},{n - 1}"}, []),
        ("CUDA_VISIBLE_DEVICES=<last>,<last uuid>",
         {"CUDA_VISIBLE_DEVICES": f"{n - 1},{last['uuid']}"}, [n - 1]),
        ("CUDA_VISIBLE_DEVICES=<last uuid>,<last>",
         {"CUDA_VISIBLE_DEVICES": f"{last['uuid']},{n - 1}"}, [n - 1]),
        ("CUDA_VISIBLE_DEVICES=+<last>", {"CUDA_VISIBLE_DEVICES": f"+{n - 1}"},
         [n - 1]),
        ("CUDA_VISIBLE_DEVICES=<last>a", {"CUDA_VISIBLE_DEVICES": f"{n - 1}a"},
         [n - 1]),
        ("CUDA_VISIBLE_DEVICES=GPU-", {"CUDA_VISIBLE_DEVICES": "GPU-"}, []),
        ("CUDA_VISIBLE_DEVICES=G", {"CUDA_VISIBLE_DEVICES": "G"}, []),
        ("NVIDIA_VISIBLE_DEVICES=all", {"NVIDIA_VISIBLE_DEVICES": "all"},
         everything),
        ("NVIDIA_VISIBLE_DEVICES=void", {"NVIDIA_VISIBLE_DEVICES": "void"},
         []),
        ("NVIDIA_VISIBLE_DEVICES=none", {"NVIDIA_VISIBLE_DEVICES": "none"},
         []),
    ]
    for name, env, expect in cases:
        check_case(name, env, gpus, expect)
    if os.path.isdir("/proc/driver/nvidia/gpus"):
        check_case("NVML hidden: /proc/driver/nvidia fallback", {}, gpus,
                   everything, library="/nonexistent/libnvidia-ml.so.1", nvml=False)
    else:
        print("-- /proc/driver/nvidia/gpus absent: fallback not checked")
    print("ok: nvidia.so agrees with the driver" if failures == 0
          else f"{failures} mismatch(es)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
