#!/bin/sh
# `exec --format torchrun`: the exact PET_* environment each node's torchrun
# gets (one torchrun per node; the node rank comes from the task's host),
# static and c10d rendezvous, the interface variables. The real torchrun
# run is scripts/framework-check.sh (needs PyTorch).
set -u
here=$(dirname "$0")
cli=${CR_CLI:?CR_CLI is not set}
fail=0

# node TASK-ID ARGS...: the PET_/NCCL_/GLOO_ variables PROGRAM sees, sorted.
node() {
	id=$1
	shift
	"$cli" -c "$here/loopback.conf" --task-id "$id" exec "$@" -- \
		sh -c 'env | grep -E "^(PET_|NCCL_SOCKET|GLOO_SOCKET|MASTER_|WORLD_SIZE)" | sort' 2>&1
}

check() {
	if [ "$2" != "$3" ]; then
		printf 'FAIL %s: expected\n%s\ngot\n%s\n' "$1" "$2" "$3"
		fail=1
	fi
}

check "node 0, static" "PET_MASTER_ADDR=127.0.0.1
PET_MASTER_PORT=29400
PET_NNODES=2
PET_NODE_RANK=0" "$(node 0 --format torchrun)"
check "node 1, static" "PET_MASTER_ADDR=127.0.0.1
PET_MASTER_PORT=29400
PET_NNODES=2
PET_NODE_RANK=1" "$(node 1 --format torchrun)"
check "node 1, c10d" "PET_NNODES=2
PET_RDZV_BACKEND=c10d
PET_RDZV_ENDPOINT=127.0.0.1:29400
PET_RDZV_ID=77" "$(node 1 --format torchrun --rdzv c10d --job-id 77)"
check "node 0, ifname auto, Slurm job port" "GLOO_SOCKET_IFNAME=lo
NCCL_SOCKET_IFNAME=lo
PET_MASTER_ADDR=127.0.0.1
PET_MASTER_PORT=20042
PET_NNODES=2
PET_NODE_RANK=0" "$(SLURM_JOB_ID=10042 node 0 --format torchrun --ifname auto --master-port auto)"
check "node 1, torch and torchrun together" "MASTER_ADDR=127.0.0.1
MASTER_PORT=29500
PET_MASTER_ADDR=127.0.0.1
PET_MASTER_PORT=29500
PET_NNODES=2
PET_NODE_RANK=1
WORLD_SIZE=2" "$(node 1 --format "torchrun, torch" --master-port 29500)"
check "rdzv on a format without it" "cluster-resolver: exec: --rdzv needs --format torchrun
exit 2" "$(node 0 --format torch --rdzv c10d; echo "exit $?")"
[ "$fail" = 0 ] && echo "ok: torchrun environments"
exit "$fail"
