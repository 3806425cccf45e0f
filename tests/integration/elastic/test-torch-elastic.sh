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
. "$(dirname "$0")/torch-common.sh"
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
check_job

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
