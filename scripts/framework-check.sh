#!/bin/sh
# framework-check.sh - launch real PyTorch and JAX jobs through
# `cluster-resolver exec`, with no glue: each process gets its variables from
# `exec --format torch|torchrun|jax` and the framework's own initialisation
# must form the job (torch.distributed with env://, torchrun's static
# rendezvous from PET_*, jax.distributed.initialize()); and MPI jobs from
# `resolve --format hostfile` (Open MPI with mpi4py, MPICH's Hydra).
# Checked with Debian 12's python3-torch 1.13 (the suite's test `framework-check`),
# and with PyTorch 2.11 and JAX 0.11.2 on a GPU host.
#
#   CR_CLI=$PWD/build/bin/cluster-resolver \
#   CLUSTER_RESOLVER_PLUGIN_PATH=$PWD/build/lib/cluster-resolver/resolvers \
#   scripts/framework-check.sh [NPROC]
#
# The plugin path must be absolute: relative entries are ignored by design.
# The Python is $PYTHON, else the first of /usr/bin/python3 and python3
# that imports torch (else jax). Everything listens on 127.0.0.1, 127.0.0.2
# and ::1 only. Exit status: 0 all agree, 1 a mismatch, 77 none of PyTorch,
# JAX, Open MPI with mpi4py and MPICH is installed.
set -u
cli=${CR_CLI:-cluster-resolver}
n=${1:-4}
py=${PYTHON:-}
if [ -z "$py" ]; then
	for p in /usr/bin/python3 python3; do
		if "$p" -c 'import torch' 2>/dev/null || "$p" -c 'import jax' 2>/dev/null; then
			py=$p
			break
		fi
	done
	py=${py:-python3}
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 ran=0

# jobconf HOST FILE: one worker job of $n tasks on HOST (ports 29511...).
jobconf() {
	{
		printf 'resolvers = ( { plugin = "simple"; cluster = { worker = [ '
		i=0
		while [ "$i" -lt "$n" ]; do
			[ "$i" -gt 0 ] && printf ', '
			printf '"%s:%d"' "$1" $((29511 + i))
			i=$((i + 1))
		done
		printf ' ]; }; } );\n'
	} >"$2"
}
jobconf 127.0.0.1 "$tmp/job.conf"
jobconf '[::1]' "$tmp/job6.conf"

# launch FORMAT SCRIPT [CONF]: one process per task, each through `exec`;
# their sorted output is left in $tmp/out.
launch() {
	i=0
	while [ "$i" -lt "$n" ]; do
		"$cli" -c "${3:-$tmp/job.conf}" --task-type worker --task-id "$i" \
			exec --format "$1" -- "$py" -c "$2" >"$tmp/out.$i" 2>"$tmp/err.$i" &
		i=$((i + 1))
	done
	wait
	cat "$tmp"/out.* | sort >"$tmp/out"
	rm -f "$tmp"/out.*
}

expect() {
	if [ "$2" = "$(cat "$tmp/out")" ]; then
		echo "ok: $1"
	else
		echo "FAIL $1: expected"
		printf '%s\n' "$2"
		echo "got"
		cat "$tmp/out"
		cat "$tmp"/err.*
		fail=1
	fi
}

lines() { # lines TEMPLATE: one line per rank, @ replaced by it, sorted
	i=0
	while [ "$i" -lt "$n" ]; do
		printf '%s\n' "$1" | sed "s/@/$i/g"
		i=$((i + 1))
	done | sort
}

if "$py" -c 'import torch.distributed' 2>/dev/null; then
	ran=1
	torch_job='
import os, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=__import__("datetime").timedelta(seconds=60))
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
print("rank %d of %d, local rank %s of %s, node %s: sum %d" % (dist.get_rank(),
      dist.get_world_size(), os.environ["LOCAL_RANK"], os.environ["LOCAL_WORLD_SIZE"],
      os.environ["NODE_RANK"], t.item()))
dist.destroy_process_group()'
	want=$(lines "rank @ of $n, local rank @ of $n, node 0: sum $((n * (n + 1) / 2))")
	launch torch "$torch_job"
	expect "torch.distributed (gloo, env://), $n processes" "$want"
	# MASTER_ADDR of an IPv6 rank 0 comes without brackets.
	launch torch "$torch_job" "$tmp/job6.conf"
	expect "torch.distributed over IPv6 ([::1]), $n processes" "$want"
	# torchrun: 2 nodes (127.0.0.1 and 127.0.0.2) x 2 processes, one
	# torchrun per node started by `exec --format torchrun`, which reads
	# PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT.
	printf 'resolvers = ( { plugin = "simple"; cluster = { worker = [ "127.0.0.1:29621", "127.0.0.2:29621" ]; }; } );\n' >"$tmp/nodes.conf"
	cat >"$tmp/torchrun_job.py" <<'EOF_PY'
import os, datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
# a file of its own: a node's two ranks share torchrun's stdout, and their
# lines came out cut into each other on a busy machine
with open(os.path.join(os.environ["CR_FW_OUT"], "out.rank%d" % dist.get_rank()), "w") as f:
    f.write("rank %d of %d, local rank %s, group %s, PET_NNODES=%s PET_NODE_RANK=%s "
            "PET_MASTER=%s:%s: sum %d\n"
            % (dist.get_rank(), dist.get_world_size(), os.environ["LOCAL_RANK"],
               os.environ["GROUP_RANK"], os.environ["PET_NNODES"], os.environ["PET_NODE_RANK"],
               os.environ["PET_MASTER_ADDR"], os.environ["PET_MASTER_PORT"], t.item()))
dist.destroy_process_group()
EOF_PY
	# torchrun is `python3 -m torch.distributed.run` (its console script):
	# run that, so it is $py's torch. --nproc_per_node: PyTorch 1.13's
	# torchrun rejects --nproc-per-node.
	#
	# Debian 12's torch 1.13 on Python 3.11: torchrun's Std.from_str("0")
	# gives None (3.11 iterates only an IntFlag's one-bit members, and 1.13
	# looks the value up by iterating), so every run with the default
	# --redirects 0 --tee 0 dies with "'NoneType' object has no attribute
	# 'get'". Work around it where it happens: tee stderr (2 is a one-bit
	# value), which leaves stdout alone.
	if "$py" -c 'import sys
from torch.distributed.elastic.multiprocessing.api import Std
sys.exit(Std.from_str("0") is None)' 2>/dev/null; then
		unset PET_REDIRECTS PET_TEE
	else
		echo "note: this torchrun cannot read --redirects 0 (torch 1.13 on Python 3.11): using --redirects 2 --tee 2"
		export PET_REDIRECTS=2 PET_TEE=2
	fi
	rm -f "$tmp"/out.*
	for node in 0 1; do
		CR_FW_OUT=$tmp "$cli" -c "$tmp/nodes.conf" --task-type worker --task-id "$node" \
			exec --format torchrun --ifname lo -- "$py" -m torch.distributed.run \
			--nproc_per_node 2 "$tmp/torchrun_job.py" >"$tmp/stdout.$node" 2>"$tmp/err.$node" &
	done
	wait
	cat "$tmp"/out.* "$tmp"/stdout.* 2>/dev/null | sort >"$tmp/out"
	rm -f "$tmp"/out.* "$tmp"/stdout.*
	pet="PET_NNODES=2 PET_NODE_RANK=@ PET_MASTER=127.0.0.1:29621: sum 10"
	expect "torchrun, 2 nodes x 2 processes, static rendezvous from PET_*" \
		"$(printf '%s\n' "rank 0 of 4, local rank 0, group 0, $pet" \
			"rank 1 of 4, local rank 1, group 0, $pet" \
			"rank 2 of 4, local rank 0, group 1, $pet" \
			"rank 3 of 4, local rank 1, group 1, $pet" |
			awk '{ r = substr($2, 1, 1); g = (r >= 2) ? 1 : 0; sub(/PET_NODE_RANK=@/, "PET_NODE_RANK=" g); print }' | sort)"
else
	echo "skip: PyTorch is not installed"
fi

if "$py" -c 'import jax' 2>/dev/null; then
	ran=1
	JAX_PLATFORMS=cpu launch jax '
import os, jax
# JAX reads only JAX_COORDINATOR_ADDRESS from the environment (checked with
# jax 0.11): the count and the id are passed on.
jax.distributed.initialize(num_processes=int(os.environ["JAX_NUM_PROCESSES"]),
                           process_id=int(os.environ["JAX_PROCESS_ID"]))
print("process %d of %d: %d devices in all" % (jax.process_index(),
      jax.process_count(), jax.device_count()))
jax.distributed.shutdown()'
	expect "jax.distributed.initialize(), $n processes on CPU" \
		"$(lines "process @ of $n: $n devices in all")"
else
	echo "skip: JAX is not installed"
fi

# MPI: the hostfiles of `resolve --format hostfile` as the launchers read
# them. Open MPI (mpi4py's allreduce over 4 ranks; a fifth rank finds no
# slot) and MPICH's Hydra (two hosts of 2 slots: local ranks 0 1 0 1).
if command -v mpirun.openmpi >/dev/null 2>&1 && "$py" -c 'import mpi4py' 2>/dev/null; then
	ran=1
	jobconf 127.0.0.1 "$tmp/mpi.conf"
	"$cli" -c "$tmp/mpi.conf" resolve --format hostfile >"$tmp/hosts.openmpi"
	# Run as root (a container, CI): Open MPI wants both variables.
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	# Each rank writes a file of its own: mpirun's forwarding of the ranks'
	# stdout may cut and interleave their lines on a busy machine.
	rm -f "$tmp"/out.*
	CR_FW_OUT=$tmp timeout 120 mpirun.openmpi -x CR_FW_OUT --hostfile "$tmp/hosts.openmpi" \
		-np "$n" "$py" -c '
import os
from mpi4py import MPI
c = MPI.COMM_WORLD
s = c.allreduce(c.Get_rank() + 1)
with open(os.path.join(os.environ["CR_FW_OUT"], "out.%d" % c.Get_rank()), "w") as f:
    f.write("rank %d of %d: sum %d\n" % (c.Get_rank(), c.Get_size(), s))' \
		>/dev/null 2>"$tmp/err.mpi"
	cat "$tmp"/out.* 2>/dev/null | sort >"$tmp/out"
	expect "Open MPI, --format hostfile ($(cat "$tmp/hosts.openmpi")), mpi4py allreduce" \
		"$(lines "rank @ of $n: sum $((n * (n + 1) / 2))")"
	timeout 60 mpirun.openmpi --hostfile "$tmp/hosts.openmpi" -np $((n + 1)) true \
		>/dev/null 2>&1 && echo "rank $n ran" >"$tmp/out" || : >"$tmp/out"
	expect "Open MPI keeps to the hostfile's slots ($((n + 1)) ranks refused)" ""
else
	echo "skip: Open MPI (mpirun.openmpi) or mpi4py is not installed"
fi
if command -v mpiexec.hydra >/dev/null 2>&1; then
	ran=1
	printf 'resolvers = ( { plugin = "simple"; cluster = { worker = [ "127.0.0.1:1", "127.0.0.1:2", "localhost:3", "localhost:4" ]; }; } );\n' >"$tmp/hydra.conf"
	"$cli" -c "$tmp/hydra.conf" resolve --format hostfile --dialect mpich >"$tmp/hosts.mpich"
	rm -f "$tmp"/out.*
	CR_FW_OUT=$tmp timeout 120 mpiexec.hydra -f "$tmp/hosts.mpich" -n 4 \
		sh -c 'echo "rank $PMI_RANK local $MPI_LOCALRANKID" >"$CR_FW_OUT/out.$PMI_RANK"' \
		>/dev/null 2>"$tmp/err.mpi"
	cat "$tmp"/out.* 2>/dev/null | sort >"$tmp/out"
	expect "MPICH Hydra, --dialect mpich ($(tr '\n' ' ' <"$tmp/hosts.mpich")), 2 slots each" \
		"$(printf 'rank %s local %s\n' 0 0 1 1 2 0 3 1)"
else
	echo "skip: MPICH (mpiexec.hydra) is not installed"
fi

[ "$ran" = 1 ] || exit 77
exit "$fail"
