# Shared by the PyTorch elastic tests (test-torch-elastic.sh on a hosts
# file, test-torch-elastic-k8s.sh on the Kubernetes fixture): the trainer,
# waiting for what the members' programs wrote (train.py's JSON lines),
# and the check of the 2 -> 3 -> 2 job's worlds. Sourced after common.sh.
py=/usr/bin/python3
if ! "$py" -c 'import torch.distributed' 2>/dev/null; then
	echo "skip: no torch for $py"; exit 77
fi
train=$(dirname "$0")/train.py
export GLOO_SOCKET_IFNAME=lo STOP_FILE="$tmp/stop"
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
# check_job: after a 2 -> 3 -> 2 job of A, B (both throughout) and C (the
# 3-world only) whose agents all ended: A and B restarted once a change,
# no counted failure; then, from the programs' own records, starts, ids,
# ports, ranks and sums.
check_job() {
	for m in A B; do
		check "$m: two restarts, one per change" 2 "$(grep -cE "generation [0-9]+ \([23] tasks\): (restarting|starting)" "$tmp/$m.err")"
		check "$m: no counted failure" 0 "$(grep -cE 'restart [0-9]+ of|no restart|--max-restarts|signal' "$tmp/$m.err")"
	done
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
}
