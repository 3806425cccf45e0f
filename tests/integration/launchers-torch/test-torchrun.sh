#!/bin/sh
# torch-env under a real torchrun (Debian's python3-torch 1.13, its
# underscore options): 2 nodes x 2 processes on loopback, two agents meeting
# at a c10d rendezvous. In every worker `cluster-resolver resolve --format
# torch` (a config listing torch-env) prints exactly what torchrun set, and
# `--format tf_config` refuses with exit 1 and one line naming the
# launcher; `exec` without --format gives torch's variables instead of
# refusing. Each worker writes files of its own (worker.sh). Every wait is a
# bound, never a measure.
set -u
cli=${CR_CLI:?CR_CLI is not set}
py=/usr/bin/python3
if ! "$py" -c 'import torch.distributed.run' 2>/dev/null; then
	echo "skip: no torch for $py"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {
	if [ "$2" != "$3" ]; then
		printf 'FAIL %s:\n  expected [%s]\n  got      [%s]\n' "$1" "$2" "$3"; fail=1
	fi
}
printf 'resolvers = ( { plugin = "torch-env"; } );\n' >"$tmp/te.conf"
port=$((20000 + $$ % 20000))
# Debian 12's torch 1.13 on Python 3.11 cannot read its default --redirects
# 0 (scripts/framework-check.sh says why): tee stderr where that is so.
std=
if ! "$py" -c 'import sys
from torch.distributed.elastic.multiprocessing.api import Std
sys.exit(Std.from_str("0") is None)' 2>/dev/null; then
	std="--redirects 2 --tee 2"
fi
# agent N: one torchrun agent of the 2-node job, in the background. Both
# run on one host, so the rendezvous says which one hosts its store
# (is_host): each would take 127.0.0.1 for itself.
agent() {
	# shellcheck disable=SC2086
	TE_OUT=$tmp TE_CONF=$tmp/te.conf CR_CLI=$cli "$py" -m torch.distributed.run \
		--nnodes 2 --nproc_per_node 2 --rdzv_backend c10d \
		--rdzv_endpoint "127.0.0.1:$port" --rdzv_id "te-$$" --rdzv_conf "is_host=$2" \
		--max_restarts 0 $std \
		--no_python sh "$(dirname "$0")/worker.sh" >"$tmp/agent$1.log" 2>&1 &
	eval "pid$1=\$!"
}
agent 0 1
agent 1 0
for a in 0 1; do
	eval "p=\$pid$a"
	n=0
	while kill -0 "$p" 2>/dev/null && [ "$n" -lt 1800 ]; do sleep 0.1; n=$((n + 1)); done
	[ "$n" -lt 1800 ] || { echo "FAIL: agent $a still running after 180 s"; kill -TERM "$p"; fail=1; }
	wait "$p" || { echo "FAIL: agent $a exited $?"; cat "$tmp/agent$a.log"; fail=1; }
done
master=
for r in 0 1 2 3; do
	check "rank $r: resolve --format torch exit" 0 "$(cat "$tmp/$r.rc" 2>/dev/null)"
	check "rank $r: resolve --format torch stderr" "" "$(cat "$tmp/$r.err" 2>/dev/null)"
	check "rank $r: resolve --format torch = torchrun's variables" \
		"$(cat "$tmp/$r.want" 2>/dev/null)" "$(cat "$tmp/$r.got" 2>/dev/null)"
	check "rank $r: its RANK" "export RANK='$r'" "$(grep '^export RANK=' "$tmp/$r.got" 2>/dev/null)"
	m=$(grep '^export MASTER_' "$tmp/$r.got" 2>/dev/null | tr '\n' ' ')
	[ -n "$master" ] || master=$m
	check "rank $r: the same coordinator" "$master" "$m"
	check "rank $r: --format tf_config exit" 1 "$(cat "$tmp/$r.tfrc" 2>/dev/null)"
	check "rank $r: --format tf_config output" "" "$(cat "$tmp/$r.tf" 2>/dev/null)"
	check "rank $r: --format tf_config refusal" \
		"cluster-resolver: format 'tf_config' needs every task's address: resolver 'torch-env' (torchrun) gave the addresses of 1 of the 4 tasks of job 'worker', not the others' (use --format torch, torchrun, jax, env or json)" \
		"$(cat "$tmp/$r.tferr" 2>/dev/null)"
	check "rank $r: exec without --format gives torch's variables" \
		"$(sed -n "s/^export GROUP_RANK='\(.*\)'/\1/p" "$tmp/$r.want" 2>/dev/null) 4 unset
exit 0" "$(cat "$tmp/$r.exec" 2>/dev/null)"
done
check "world size in every worker" "4 4 4 4" \
	"$(for r in 0 1 2 3; do sed -n "s/^export WORLD_SIZE='\(.*\)'/\1/p" "$tmp/$r.got" 2>/dev/null; done | tr '\n' ' ' | sed 's/ $//')"
[ "$fail" = 0 ] && echo "ok: 2 agents x 2 workers, resolve --format torch = torchrun's variables, tf_config refused"
exit $fail
