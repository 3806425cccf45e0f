#!/bin/sh
# `exec --elastic --format torch` with a real framework: Debian's PyTorch
# (gloo) on loopback, members A, B, C (127.0.0.1-3) in a hosts_file, each
# agent on the default options. 2 -> 3 (C joins) -> 2 (C is removed and
# SIGTERMed at once, as a Kubernetes pod deletion does): both changes
# converge, one program start per member per change, no counted failure,
# one world id and port per membership, every all_reduce right; C exits 0.
# Then a member in the membership that never comes (D): A and B give up on
# that generation (their program's init_process_group is bounded by
# CR_JOIN_TIMEOUT) and exit 1 with a line naming it. Exact outcomes; every
# wait is a bound, never a measure.
. "$(dirname "$0")/common.sh"
py=/usr/bin/python3
if ! "$py" -c 'import torch.distributed' 2>/dev/null; then
	echo "skip: no torch for $py"; exit 77
fi
train=$(dirname "$0")/train.py
export GLOO_SOCKET_IFNAME=lo STOP_FILE="$tmp/stop"
conf=$tmp/elastic.conf
# agent M ID [OPTIONS...]: member M (task id ID) in the background.
agent() {
	m=$1 id=$2
	shift 2
	: >"$tmp/$m.err"
	LOG="$tmp/$m.log" CKPT="$tmp/ckpt" "$cli" -c "$conf" --task-type worker --task-id "$id" \
		exec --elastic --format torch "$@" -- "$py" "$train" 2>"$tmp/$m.err" &
	eval "pid_$m=\$!"
}
# inits M WS: how many worlds of WS member M's program joined.
inits() { count "\"ev\": \"init\", \"ws\": $2," "$tmp/$1.log"; }
# count PATTERN FILE: its lines matching PATTERN (0 when missing).
count() { if [ -f "$2" ]; then grep -c "$1" "$2"; else echo 0; fi; }
# wait_init M WS N: until member M joined N worlds of WS, at most ~180 s.
wait_init() {
	n=0
	while [ "$(inits "$1" "$2")" -lt "$3" ] && [ "$n" -lt 1800 ]; do sleep 0.1; n=$((n + 1)); done
	[ "$n" -lt 1800 ] || { echo "FAIL: $1 never joined world $3 of $2"; fail=1; }
}
# wait_steps M WS N: until member M stepped N times in worlds of WS.
wait_steps() {
	n=0
	while [ "$(count "\"ev\": \"step\", .*\"ws\": $2," "$tmp/$1.log")" -lt "$3" ] &&
		[ "$n" -lt 1800 ]; do sleep 0.1; n=$((n + 1)); done
}
# wait_pid PID: its exit status, at most ~180 s.
wait_pid() {
	n=0
	while kill -0 "$1" 2>/dev/null && [ "$n" -lt 1800 ]; do sleep 0.1; n=$((n + 1)); done
	[ "$n" -lt 1800 ] || { echo "FAIL: pid $1 still running"; fail=1; kill -KILL "$1"; }
	wait "$1"
}

# ---- 2 -> 3 -> 2 on the default options ----
hosts 127.0.0.1:29501 127.0.0.2:29502
agent A 0
agent B 1
wait_init A 2 1
wait_init B 2 1
wait_steps A 2 3
date +%s.%N >"$tmp/changes"
hosts 127.0.0.1:29501 127.0.0.2:29502 127.0.0.3:29503
agent C 2
wait_init A 3 1
wait_init B 3 1
wait_init C 3 1
wait_steps C 3 3
date +%s.%N >>"$tmp/changes"
hosts 127.0.0.1:29501 127.0.0.2:29502
kill -TERM "$pid_C"
wait_pid "$pid_C"
check "removed member (SIGTERMed): exit" 0 "$?"
check "removed member: its line" 1 "$(grep -c 'a clean leave' "$tmp/C.err")"
wait_init A 2 2
wait_init B 2 2
wait_steps A 2 10
touch "$STOP_FILE"
wait_pid "$pid_A"
check "A: exit" 0 "$?"
wait_pid "$pid_B"
check "B: exit" 0 "$?"
for m in A B; do
	check "$m: two restarts, one per change" 2 "$(grep -cE "generation [0-9]+ \([23] tasks\): (restarting|starting)" "$tmp/$m.err")"
	check "$m: no counted failure" 0 "$(grep -cE 'restart [0-9]+ of|no restart|--max-restarts|signal' "$tmp/$m.err")"
done
# Starts, ids, ports, ranks and sums, from the programs' own records.
check "worlds" "A starts 3, B starts 3, C starts 1
restart counts: 0
A and B: one id per world: True
C's id is the 3-world's: True
ids: 2-world, 3-world, 2-world again: x y x
ports follow the ids: True
3-world ranks: [0, 1, 2]
every sum is the world size: True
progress kept across the changes: True" "$("$py" - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
rec = {m: [json.loads(l) for l in open(f"{d}/{m}.log")] for m in "ABC"}
ev = lambda m, e: [r for r in rec[m] if r["ev"] == e]
print(", ".join(f"{m} starts {len(ev(m, 'start'))}" for m in "ABC"))
print("restart counts:", " ".join(sorted({r["restarts"] for m in "ABC" for r in ev(m, "start")})))
ga = [r["gid"] for r in ev("A", "init")]
print("A and B: one id per world:", ga == [r["gid"] for r in ev("B", "init")])
print("C's id is the 3-world's:", [r["gid"] for r in ev("C", "init")] == ga[1:2])
names = {}
print("ids: 2-world, 3-world, 2-world again:", " ".join(names.setdefault(g, "xyz"[len(names)]) for g in ga))
port = {r["gid"]: r["port"] for m in "ABC" for r in ev(m, "start")}
print("ports follow the ids:", len(set(port.values())) == 2 == len(port))
print("3-world ranks:", sorted(r["rank"] for m in "ABC" for r in ev(m, "init") if r["ws"] == 3))
print("every sum is the world size:", all(r["sum"] == r["ws"] for m in "ABC" for r in ev(m, "step")))
res = [r["resume"] for r in ev("A", "init")]
print("progress kept across the changes:", res[0] == 0 and res[1] > 0 and res[2] > res[1])
PY
)"

# CR_TEST_KEEP=DIR keeps the records of the 2 -> 3 -> 2 job (for figures).
[ -z "${CR_TEST_KEEP:-}" ] || cp "$tmp"/?.log "$tmp"/?.err "$tmp/changes" "$CR_TEST_KEEP"/

# ---- a member that never comes: given up on, with a line ----
rm -f "$STOP_FILE" "$tmp/ckpt" "$tmp"/A.log "$tmp"/B.log
hosts 127.0.0.1:29501 127.0.0.2:29502 127.0.0.4:29504
agent A 0 --join-timeout 8
agent B 1 --join-timeout 8
wait_pid "$pid_A"
check "never joins: A's exit" 1 "$?"
wait_pid "$pid_B"
check "never joins: B's exit" 1 "$?"
for m in A B; do
	check "never joins: $m's lines" "cluster-resolver: exec: '$py' exited with 1 T s after its start, about --join-timeout (8 s): generation 1 (3 tasks, id ID) may not have formed
cluster-resolver: exec: '$py' exited with 1; no restart (--max-restarts 0)" \
		"$(grep '^cluster-resolver:' "$tmp/$m.err" |
			sed -e 's/with 1 [0-9.]* s after/with 1 T s after/' -e 's/id [0-9a-f]*)/id ID)/')"
	check "never joins: $m started once" 1 "$(grep -c '"ev": "start"' "$tmp/$m.log")"
done

if [ "$fail" != 0 ]; then
	for m in A B C; do echo "== $m.err"; grep '^cluster-resolver:' "$tmp/$m.err"; done
fi
[ "$fail" = 0 ] && echo "ok: exec --elastic with PyTorch"
exit "$fail"
