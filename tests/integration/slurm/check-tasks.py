#!/usr/bin/python3
"""check-tasks.py NAME NTASKS [GPUS] < lines: check what every task of one
srun step printed. Each line is PROCID|SLURMD_NODENAME|SLURM_LOCALID|CVD|
CVD-after-exec|JSON (JSON from `cluster-resolver resolve --format json`).

Every task must print the same cluster; its own address must be on the node
it really ran on, at port 8888 + its local id; its identity must be
worker:PROCID. With GPUS, each task reports that many GPUs and exec keeps
the CUDA_VISIBLE_DEVICES Slurm bound to it. Prints one TAP line per check.
"""
import json
import sys

name, ntasks = sys.argv[1], int(sys.argv[2])
gpus = int(sys.argv[3]) if len(sys.argv) > 3 else None
rows = [line.rstrip("\n").split("|", 5) for line in sys.stdin if line.strip()]
bad = []
procids = sorted(int(r[0]) for r in rows)
if procids != list(range(ntasks)):
    bad.append(f"procids {procids}, want 0..{ntasks - 1}")
clusters = set()
for procid, node, localid, cvd, cvd_exec, text in rows:
    try:
        doc = json.loads(text)
    except ValueError:
        bad.append(f"rank {procid}: not JSON: {text!r}")
        continue
    clusters.add(json.dumps(doc["cluster"]))
    want_task = {"type": "worker", "index": int(procid)}
    if doc.get("task") != want_task:
        bad.append(f"rank {procid}: task {doc.get('task')}, want {want_task}")
    workers = doc["cluster"].get("worker", [])
    mine = workers[int(procid)] if int(procid) < len(workers) else None
    if mine != f"{node}:{8888 + int(localid)}":
        bad.append(f"rank {procid} ran on {node} (local id {localid}) but is told {mine}")
    if doc.get("master") != f"grpc://{mine}":
        bad.append(f"rank {procid}: master {doc.get('master')}")
    want_acc = {} if gpus is None else {"GPU": gpus}
    if doc.get("num_accelerators") != want_acc:
        bad.append(f"rank {procid}: num_accelerators {doc.get('num_accelerators')}, want {want_acc}")
    if gpus is not None and cvd_exec != cvd:
        bad.append(f"rank {procid}: exec set CUDA_VISIBLE_DEVICES {cvd_exec!r}, Slurm bound {cvd!r}")
if len(clusters) > 1:
    bad.append(f"{len(clusters)} different clusters: {sorted(clusters)}")
for b in bad:
    print(f"# {name}: {b}")
print(f"{'not ok' if bad else 'ok'} - {name}: {len(rows)} tasks agree and are where Slurm put them")
sys.exit(1 if bad else 0)
