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
/proc/driver/nvidia fallback with NVML hidden. Then `gpus_per_task = 1`
(core/pipeline/gpus.c): the program `exec` starts must see, through the
driver, exactly the GPU chosen (by index, and by UUID under a binding),
and with `skip_busy_gpus` a GPU held by a CUDA context in another process
is left out (NVML's compute processes). Exit status: 0 all agree,
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


# The driver's view of a program: its GPU count and the UUID of device 0.
DRIVER_VIEW = r"""
import ctypes
cuda = ctypes.CDLL("libcuda.so.1")
n = ctypes.c_int(0)
if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(n)) != 0 or n.value == 0:
    print("0 -")
else:
    dev = ctypes.c_int(0)
    raw = (ctypes.c_ubyte * 16)()
    cuda.cuDeviceGet(ctypes.byref(dev), 0)
    cuda.cuDeviceGetUuid(raw, dev)
    h = bytes(raw).hex()
    print(n.value, "GPU-%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:]))
"""

# Holds a CUDA context on device 0 (NVML then lists a compute process on it)
# until its stdin closes.
HOLD = r"""
import ctypes, sys
cuda = ctypes.CDLL("libcuda.so.1")
ctx = ctypes.c_void_p()
dev = ctypes.c_int(0)
ok = cuda.cuInit(0) == 0 and cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0 and \
    cuda.cuCtxCreate_v2(ctypes.byref(ctx), 0, dev) == 0
print("held" if ok else "failed", flush=True)
sys.stdin.read()
"""

GPT_CONF = """gpus_per_task = 1;
skip_busy_gpus = %s;
resolvers = ( { plugin = "simple"; cluster = { worker = [ "localhost:2222" ]; };
  task_type = "worker"; task_id = 0; } );
accelerators = ( { plugin = "nvidia"; } );
"""


def gpus_per_task(name, extra_env, want_uuid, skip_busy=False, want_error=None):
    """exec under gpus_per_task = 1: the program sees one GPU, @want_uuid."""
    env = dict(os.environ)
    for k in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"):
        env.pop(k, None)
    env.update(extra_env)
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
        f.write(GPT_CONF % ("true" if skip_busy else "false"))
        f.flush()
        r = subprocess.run([CLI, "-c", f.name, "exec", "--", sys.executable, "-c",
                            DRIVER_VIEW], env=env, capture_output=True, text=True)
    print(f"-- gpus_per_task = 1, {name}: rc={r.returncode} {r.stdout.strip()} "
          f"{r.stderr.strip()}")
    if want_error is not None:
        if r.returncode != 1 or want_error not in r.stderr:
            fail(f"gpus_per_task, {name}", want_error, (r.returncode, r.stderr.strip()))
        return
    if r.returncode != 0 or r.stdout.split() != ["1", want_uuid]:
        fail(f"gpus_per_task, {name}: the program's GPUs", f"1 {want_uuid}",
             (r.returncode, r.stdout.strip(), r.stderr.strip()))


def gpus_per_task_cases(gpus):
    n = len(gpus)
    gpus_per_task("no binding", {}, gpus[0]["uuid"])
    gpus_per_task("CUDA_VISIBLE_DEVICES=<last index>", {"CUDA_VISIBLE_DEVICES": str(n - 1)},
                  gpus[-1]["uuid"])
    gpus_per_task("CUDA_VISIBLE_DEVICES=<last uuid prefix>",
                  {"CUDA_VISIBLE_DEVICES": gpus[-1]["uuid"][:12]}, gpus[-1]["uuid"])
    hold = subprocess.Popen([sys.executable, "-c", HOLD], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, CUDA_VISIBLE_DEVICES=gpus[0]["uuid"]))
    try:
        if hold.stdout.readline().strip() != "held":
            print("-- no CUDA context could be held: skip_busy_gpus not checked")
            return
        gpus_per_task("GPU 0 busy, not skipped", {}, gpus[0]["uuid"])
        if n > 1:
            gpus_per_task("GPU 0 busy, skip_busy_gpus", {}, gpus[1]["uuid"], skip_busy=True)
        else:
            gpus_per_task("the only GPU busy, skip_busy_gpus", {}, None, skip_busy=True,
                          want_error="unable to allocate 1 GPU(s) from available GPUs: [] "
                          "(busy: [0])")
    finally:
        hold.stdin.close()
        hold.wait()


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
    gpus_per_task_cases(gpus)
    print("ok: nvidia.so and gpus_per_task agree with the driver" if failures == 0
          else f"{failures} mismatch(es)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
