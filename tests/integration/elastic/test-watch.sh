#!/bin/sh
# `cluster-resolver watch` over a hosts_file: the current cluster, then one
# line (json, tf_config) or block (env-like) per new generation; --count,
# --timeout and SIGTERM end it with 0, a failing resolver with 1, bad
# options with 2. Exact outputs; the waits are bounds, never measures.
. "$(dirname "$0")/common.sh"
conf=$tmp/elastic.conf

# ---- JSON Lines: each generation once, with its number ----
hosts 127.0.0.1:2222 127.0.0.2:2222
rm -f "$tmp/out" "$tmp/err"
"$cli" -c "$conf" watch --format json --count 3 >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_lines "$tmp/out" 1
hosts 127.0.0.1:2222
wait_lines "$tmp/out" 2
# The same bytes written again are no new generation; a change is.
hosts 127.0.0.1:2222
hosts 127.0.0.1:2222 127.0.0.3:2222
wait_exit "$pid"
check "json: exit" 0 "$?"
check "json: lines" '{"cluster": {"worker": ["127.0.0.1:2222", "127.0.0.2:2222"]}, "master": "", "num_accelerators": {}, "generation": 1}
{"cluster": {"worker": ["127.0.0.1:2222"]}, "master": "", "num_accelerators": {}, "generation": 2}
{"cluster": {"worker": ["127.0.0.1:2222", "127.0.0.3:2222"]}, "master": "", "num_accelerators": {}, "generation": 3}' "$(cat "$tmp/out")"
check "json: stderr" "" "$(cat "$tmp/err")"

# A write in place (not a rename) is seen too; tf_config is the default.
hosts 127.0.0.1:2222
rm -f "$tmp/out" "$tmp/err"
"$cli" -c "$conf" --task-type worker --task-id 0 watch --count 2 >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_lines "$tmp/out" 1
printf 'worker 127.0.0.1:2222\nworker 127.0.0.4:2222\n' >"$tmp/hosts"
wait_exit "$pid"
check "in place: exit" 0 "$?"
check "in place: lines" '{"cluster": {"worker": ["127.0.0.1:2222"]}, "task": {"type": "worker", "index": 0}, "generation": 1}
{"cluster": {"worker": ["127.0.0.1:2222", "127.0.0.4:2222"]}, "task": {"type": "worker", "index": 0}, "generation": 2}' "$(cat "$tmp/out")"

# ---- blocks: the format's text, then a blank line; an empty world is a
# blank block and one warning ----
hosts 127.0.0.1:2222 127.0.0.2:2222
rm -f "$tmp/out" "$tmp/err"
"$cli" -c "$conf" watch --format hosts --count 2 >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_lines "$tmp/out" 3
hosts
wait_exit "$pid"
check "hosts: exit" 0 "$?"
check "hosts: blocks" '127.0.0.1:2222
127.0.0.2:2222


.' "$(cat "$tmp/out"; echo .)"
check "hosts: the empty world's warning" "cluster-resolver: warning: format 'hosts': no task in jobs chief, master, worker; printing nothing" "$(cat "$tmp/err")"

# ---- this task leaves the world of torch: the warning says so, and the
# watch goes on ----
hosts 127.0.0.1:2222 127.0.0.2:2222
rm -f "$tmp/out" "$tmp/err"
"$cli" -c "$conf" --task-type worker --task-id 1 watch --format torch --count 3 \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_lines "$tmp/out" 1
hosts 127.0.0.1:2222
wait_lines "$tmp/err" 1
hosts 127.0.0.1:2222 127.0.0.2:2222 127.0.0.3:2222
wait_exit "$pid"
check "task left: exit" 0 "$?"
check "task left: the warning" "cluster-resolver: warning: generation 2: this task is no longer in the cluster; format 'torch' has nothing to print for it" "$(cat "$tmp/err")"
check "task left: rank 1 in generations 1 and 3" "2" "$(grep -c "^export RANK='1'$" "$tmp/out")"

# ---- --timeout, SIGTERM, SIGINT: exit 0 ----
hosts 127.0.0.1:2222
"$cli" -c "$conf" watch --format hosts --timeout 0.3 >"$tmp/out" 2>"$tmp/err"
check "timeout: exit" 0 "$?"
check "timeout: output" "127.0.0.1:2222

." "$(cat "$tmp/out" "$tmp/err"; echo .)"
for sig in TERM INT; do
	: >"$tmp/out"
	env --default-signal=INT "$cli" -c "$conf" watch --format hosts >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	wait_lines "$tmp/out" 1
	kill -s "$sig" "$pid"
	wait_exit "$pid"
	check "SIG$sig: exit" 0 "$?"
	check "SIG$sig: output" "127.0.0.1:2222

." "$(cat "$tmp/out" "$tmp/err"; echo .)"
done

# ---- a resolver that fails: exit 1 and the usual message ----
rm -f "$tmp/hosts"
"$cli" -c "$conf" watch >"$tmp/out" 2>"$tmp/err"
check "failing resolver: exit" 1 "$?"
check "failing resolver: stderr" "cluster-resolver: resolver 'simple': hosts_file: cannot read $tmp/hosts: No such file or directory" "$(cat "$tmp/err")"
check "failing resolver: stdout" "" "$(cat "$tmp/out")"

# A file that turns bad while watched fails the next resolution: exit 1.
hosts 127.0.0.1:2222
rm -f "$tmp/out" "$tmp/err"
"$cli" -c "$conf" watch --format hosts >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_lines "$tmp/out" 1
printf 'worker\n' >"$tmp/hosts.new" && mv "$tmp/hosts.new" "$tmp/hosts"
wait_exit "$pid"
check "turned bad: exit" 1 "$?"
check "turned bad: stderr" "cluster-resolver: resolver 'simple': $tmp/hosts:1: expected \"JOB ADDRESS\" (one task a line)" "$(cat "$tmp/err")"

# ---- usage ----
hosts 127.0.0.1:2222
"$cli" -c "$conf" watch --format clusterdef 2>"$tmp/err"
check "clusterdef: exit" 2 "$?"
check "clusterdef: stderr" "cluster-resolver: watch: give one text format (clusterdef is binary)" "$(cat "$tmp/err")"
"$cli" -c "$conf" watch --format "json, env" 2>"$tmp/err"
check "two formats: exit" 2 "$?"
check "two formats: stderr" "cluster-resolver: watch: give one text format (a list cannot be told apart generation by generation)" "$(cat "$tmp/err")"
"$cli" -c "$conf" watch --count 0 2>"$tmp/err"
check "count 0: exit" 2 "$?"
check "count 0: stderr" 'cluster-resolver: watch: invalid count "0": expected an integer 1..2147483647' "$(cat "$tmp/err")"
"$cli" -c "$conf" watch --timeout x 2>"$tmp/err"
check "bad timeout: exit" 2 "$?"
check "bad timeout: stderr" 'cluster-resolver: watch: invalid timeout "x": expected seconds 0..86400' "$(cat "$tmp/err")"
for t in 1e1 0x10 " 5" -1; do
	"$cli" -c "$conf" watch --timeout "$t" 2>"$tmp/err"
	check "timeout '$t': exit" 2 "$?"
	check "timeout '$t': stderr" "cluster-resolver: watch: invalid timeout \"$t\": expected seconds 0..86400" "$(cat "$tmp/err")"
done
"$cli" -c "$conf" watch extra 2>/dev/null
check "an argument: exit" 2 "$?"

[ "$fail" = 0 ] && echo "ok: watch"
exit "$fail"
