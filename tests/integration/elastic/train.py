# train.py - the trainer of test-torch-elastic.sh (the study's, shortened):
# a gloo all_reduce of ones each step, a step counter checkpointed by rank
# 0 and resumed by every restart, one JSON line per event appended to
# $LOG. init_process_group's timeout is the agent's CR_JOIN_TIMEOUT: torch
# 1.13 reads no variable for it.
import json, os, sys, time
from datetime import timedelta

E = os.environ.get


def log(**kw):
    with open(E("LOG"), "a") as f:
        f.write(json.dumps(dict(pid=os.getpid(), t=time.time(), **kw)) + "\n")


log(ev="start", gen=E("CR_GENERATION"), gid=E("CR_GENERATION_ID"), restarts=E("CR_RESTART_COUNT"),
    port=E("MASTER_PORT"))
import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=timedelta(seconds=float(E("CR_JOIN_TIMEOUT", "1800"))))
ws, rank = dist.get_world_size(), dist.get_rank()
s = torch.zeros(1, dtype=torch.int64)
if rank == 0 and os.path.exists(E("CKPT")):
    s[0] = int(open(E("CKPT")).read())
dist.broadcast(s, 0)
step = int(s[0])
log(ev="init", ws=ws, rank=rank, resume=step, gid=E("CR_GENERATION_ID"))
while True:
    x = torch.tensor([1.0, 1.0 if os.path.exists(E("STOP_FILE")) else 0.0])
    dist.all_reduce(x)
    log(ev="step", step=step, ws=ws, rank=rank, sum=x[0].item())
    step += 1
    if rank == 0:
        open(E("CKPT") + ".tmp", "w").write(str(step))
        os.replace(E("CKPT") + ".tmp", E("CKPT"))
    if x[1] > 0:
        dist.destroy_process_group()
        sys.exit(0)
    time.sleep(0.25)
