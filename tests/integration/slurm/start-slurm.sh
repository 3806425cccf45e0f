#!/bin/sh
# start-slurm.sh DIR - start munge, slurmctld and $SLURM_TEST_NODES slurmd
# (node1..nodeN, each `slurmd -N nodeX` on its own 127.0.0.1 port), all under
# DIR: key, socket, config, spool, logs, pid files. Writes DIR/env.sh to be
# sourced by clients (SLURM_CONF, LD_PRELOAD shim). Must run inside a
# loopback-only namespace (scripts/hermetic.sh). On failure it stops what it
# started and prints the logs.
#
# Env: SLURM_TEST_NODES (4), SLURM_TEST_CPUS (4 per node), SLURM_TEST_GPUS
# (2 fake GPUs per node: gres files that are symlinks to /dev/null).
set -eu

dir=${1:?usage: start-slurm.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
nodes=${SLURM_TEST_NODES:-4}
cpus=${SLURM_TEST_CPUS:-4}
gpus=${SLURM_TEST_GPUS:-2}

if [ "${CR_HERMETIC:-}" != 1 ]; then
	echo "start-slurm.sh: run me inside scripts/hermetic.sh (loopback only)" >&2
	exit 2
fi
for tool in munged slurmctld slurmd srun scontrol sinfo cc; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "start-slurm.sh: $tool not installed (Debian: munge slurmctld slurmd slurm-client)" >&2
		exit 77
	}
done

case $nodes in [1-9] | 1[0-5]) ;; *)
	echo "start-slurm.sh: SLURM_TEST_NODES must be 1-15" >&2
	exit 2 ;;
esac
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/dev"
chmod 700 "$dir/munge"

fail() {
	echo "start-slurm.sh: $*" >&2
	"$here/show-logs.sh" "$dir" >&2
	"$here/stop-slurm.sh" "$dir" --keep >/dev/null 2>&1 || :
	exit 1
}

# The getaddrinfo shim (real-components §0): Slurm passes AI_ADDRCONFIG,
# which fails when only loopback exists.
cc -shared -fPIC -O2 -o "$dir/noaddrconfig.so" "$here/noaddrconfig.c" -ldl ||
	fail "cannot build the getaddrinfo shim"

# munge with its own key and socket.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$dir/munge/munge.key"
munged --force --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
	--pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
	--seed-file="$dir/munge/munged.seed" || fail "munged did not start"

# Ports: slurmctld, then one per slurmd, below the ephemeral range
# (32768-60999) that every client and port-0 fixture of the suite draws
# from. The namespace is shared by the tests that run in parallel, two of
# which may start a Slurm at once: blocks of 16 chosen by pid, and a block
# any port of which is already bound is skipped.
port_free() {
	/usr/bin/python3 -c 'import socket,sys
s=socket.socket()
try: s.bind(("127.0.0.1",int(sys.argv[1])))
except OSError: sys.exit(1)' "$1"
}
block=$(($$ % 750))
tries=0
while :; do
	base=$((20000 + block * 16))
	p=$base
	while [ "$p" -le $((base + nodes)) ] && port_free "$p"; do
		p=$((p + 1))
	done
	[ "$p" -gt $((base + nodes)) ] && break
	tries=$((tries + 1))
	[ "$tries" -gt 20 ] && fail "no free block of $((nodes + 1)) ports in 20000-31999"
	block=$(((block + 37) % 750))
done
ctld_port=$base

gres_line=
[ "$gpus" -gt 0 ] && gres_line="GresTypes=gpu"
{
	cat <<CONF
ClusterName=crtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
ProctrackType=proctrack/pgid
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
ReturnToService=2
SlurmdParameters=config_overrides
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
TmpFS=$dir/run
PlugStackConfig=$dir/plugstack.conf
InactiveLimit=0
KillWait=2
MinJobAge=30
$gres_line
CONF
	i=1
	while [ "$i" -le "$nodes" ]; do
		g=
		[ "$gpus" -gt 0 ] && g=" Gres=gpu:$gpus"
		echo "NodeName=node$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((base + i)) CPUs=$cpus$g State=UNKNOWN"
		i=$((i + 1))
	done
	echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
} >"$dir/slurm.conf"
: >"$dir/plugstack.conf"

# Fake GPUs: Slurm wants character devices; /dev/null is one.
: >"$dir/gres.conf"
if [ "$gpus" -gt 0 ]; then
	g=0
	while [ "$g" -lt "$gpus" ]; do
		ln -sf /dev/null "$dir/dev/nvidia$g"
		g=$((g + 1))
	done
	echo "NodeName=node[1-$nodes] Name=gpu File=$dir/dev/nvidia[0-$((gpus - 1))]" >"$dir/gres.conf"
fi

cat >"$dir/env.sh" <<ENV
export SLURM_CONF=$dir/slurm.conf
export LD_PRELOAD=$dir/noaddrconfig.so\${LD_PRELOAD:+:\$LD_PRELOAD}
ENV
. "$dir/env.sh"

slurmctld -i -f "$dir/slurm.conf" || fail "slurmctld did not start"
i=1
while [ "$i" -le "$nodes" ]; do
	mkdir -p "$dir/spool/node$i"
	slurmd -N "node$i" -f "$dir/slurm.conf" || fail "slurmd node$i did not start"
	i=$((i + 1))
done

# Wait (up to 20 s) until every node is idle.
tries=0
until [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -eq "$nodes" ]; do
	tries=$((tries + 1))
	[ "$tries" -gt 200 ] && fail "nodes not idle after 20 s: $(sinfo -N 2>&1 | tr '\n' ' ')"
	sleep 0.1
done
# --immediate: a job that cannot start (a node that does not answer) fails
# in 30 s instead of pending until ctest's timeout.
out=$(srun --immediate=30 -N"$nodes" -n"$nodes" --time=1 hostname 2>&1) ||
	fail "smoke srun failed: $out"
