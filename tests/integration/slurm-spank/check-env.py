#!/usr/bin/python3
"""check-env.py NAME NTASKS FORMATS DIR: check the environment of every task
of one srun step, one file DIR/task-PROCID.env per task (`env` output).

FORMATS (comma-separated: torch, tf_config, jax, or "none") are the formats
srun --cluster-resolver was given. The expected values are worked out here
from where Slurm put each task (SLURMD_NODENAME, SLURM_LOCALID, SLURM_NODEID
in the same file) and the `slurm` resolver's rule (port 8888 + local id,
identity worker:PROCID, rpc layer grpc); every variable of the formats must
have exactly that value and no other variable of any format may be set;
where Slurm bound GPUs (GPU_DEVICE_ORDINAL), CUDA_VISIBLE_DEVICES is theirs.
Prints one TAP line.
"""
import json
import os
import sys

name, ntasks, formats, d = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
formats = [] if formats == "none" else formats.split(",")
NAMES = {
    "torch": ["MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK",
              "LOCAL_WORLD_SIZE", "NODE_RANK", "GROUP_RANK"],
    "tf_config": ["TF_CONFIG"],
    "jax": ["JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID"],
}
ALL = {v for names in NAMES.values() for v in names}

bad = []
tasks = {}
for p in range(ntasks):
    path = os.path.join(d, f"task-{p}.env")
    try:
        with open(path, encoding="utf-8") as f:
            env = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
    except OSError as e:
        bad.append(f"task {p}: {e}")
        continue
    if env.get("SLURM_PROCID") != str(p):
        bad.append(f"{path}: SLURM_PROCID {env.get('SLURM_PROCID')}")
    tasks[p] = env
extra = sorted(set(os.listdir(d)) - {f"task-{p}.env" for p in range(ntasks)})
if extra:
    bad.append(f"unexpected files {extra}")

if len(tasks) == ntasks:
    node = {p: e["SLURMD_NODENAME"] for p, e in tasks.items()}
    local = {p: int(e["SLURM_LOCALID"]) for p, e in tasks.items()}
    nodeid = {p: int(e["SLURM_NODEID"]) for p, e in tasks.items()}
    workers = [f"{node[p]}:{8888 + local[p]}" for p in range(ntasks)]
    for p, env in tasks.items():
        want = {}
        if "torch" in formats:
            want.update({
                "MASTER_ADDR": node[0], "MASTER_PORT": str(8888 + local[0]),
                "WORLD_SIZE": str(ntasks), "RANK": str(p), "LOCAL_RANK": str(local[p]),
                "LOCAL_WORLD_SIZE": str(sum(1 for q in node if node[q] == node[p])),
                "NODE_RANK": str(nodeid[p]), "GROUP_RANK": str(nodeid[p])})
        if "tf_config" in formats:
            want["TF_CONFIG"] = json.dumps({"cluster": {"worker": workers},
                                            "task": {"type": "worker", "index": p},
                                            "rpc_layer": "grpc"})
        if "jax" in formats:
            want.update({"JAX_COORDINATOR_ADDRESS": workers[0],
                         "JAX_NUM_PROCESSES": str(ntasks), "JAX_PROCESS_ID": str(p)})
        if "GPU_DEVICE_ORDINAL" in env and env.get("CUDA_VISIBLE_DEVICES") != env["GPU_DEVICE_ORDINAL"]:
            bad.append(f"task {p}: CUDA_VISIBLE_DEVICES {env.get('CUDA_VISIBLE_DEVICES')!r}, "
                       f"Slurm bound {env['GPU_DEVICE_ORDINAL']!r}")
        got = {k: v for k, v in env.items() if k in ALL}
        if got != want:
            for k in sorted(set(got) | set(want)):
                if got.get(k) != want.get(k):
                    bad.append(f"task {p} on {node[p]}: {k}={got.get(k)!r}, want {want.get(k)!r}")

for b in bad:
    print(f"# {name}: {b}")
print(f"{'not ok' if bad else 'ok'} - {name}: {ntasks} tasks have exactly the variables of "
      f"{','.join(formats) or 'no format'}")
sys.exit(1 if bad else 0)
