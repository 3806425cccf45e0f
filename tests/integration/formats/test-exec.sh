#!/bin/sh
# `exec`: the program gets the chosen variables, its argv untouched, and its
# exit status becomes ours; a failed resolution runs nothing and exits 1.
set -u
here=$(dirname "$0")
cli=${CR_CLI:?CR_CLI is not set}
conf="$here/cluster.conf"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # NAME WANT GOT
	if [ "$2" != "$3" ]; then
		echo "FAIL $1: expected [$2], got [$3]"; fail=1
	fi
}

# Exit status and argv (blanks, quotes, $, an empty argument, a newline).
"$cli" -c "$conf" exec -- sh -c 'exit 7'
check "exit status" 7 "$?"
"$cli" -c "$conf" exec -- sh -c 'kill -TERM $$'
check "signal death" 143 "$?"
"$cli" -c "$conf" exec -- sh -c 'for a; do printf "<%s>" "$a"; done' sh 'a b' "it's" '$HOME' '' 'x
y' -v --format >"$tmp/argv"
check "argv" "<a b><it's><\$HOME><><x
y><-v><--format>" "$(cat "$tmp/argv")"

# Default: TF_CONFIG only, equal to the tf_config format.
want=$("$cli" -c "$conf" resolve --format tf_config)
got=$("$cli" -c "$conf" exec -- sh -c 'printf "%s" "$TF_CONFIG"; printf "|%s" "${RANK-unset}"')
check "default TF_CONFIG" "$want|unset" "$got"

# Several formats; the inherited environment passes through.
got=$(KEEP_ME='kept value' "$cli" -c "$conf" exec --format tf_config,torch,jax -- \
	sh -c 'echo "$MASTER_ADDR $MASTER_PORT $WORLD_SIZE $RANK $LOCAL_RANK $LOCAL_WORLD_SIZE $NODE_RANK $GROUP_RANK $JAX_COORDINATOR_ADDRESS $JAX_NUM_PROCESSES $JAX_PROCESS_ID ${TF_CONFIG:+tf} $KEEP_ME"')
check "torch+jax" "c0 2222 5 2 1 2 1 1 c0:2222 5 2 tf kept value" "$got"
got=$("$cli" -c "$conf" --task-type ps --task-id 0 exec --format=torch --jobs worker,ps -- \
	sh -c 'echo "$MASTER_ADDR:$MASTER_PORT $WORLD_SIZE $RANK $NODE_RANK"')
check "--jobs" "h1:2222 5 4 3" "$got"

# Usage errors exit 2 and run nothing.
for args in "--format hosts" "--format torch,nope" "--format ," "--format torch," "--dialect x"; do
	# shellcheck disable=SC2086
	"$cli" -c "$conf" exec $args -- touch "$tmp/ran" 2>"$tmp/err"
	check "exec $args: exit" 2 "$?"
	[ -e "$tmp/ran" ] && { echo "FAIL exec $args: the program ran"; fail=1; rm -f "$tmp/ran"; }
	[ "$(wc -l <"$tmp/err")" = 1 ] || { echo "FAIL exec $args: want one line on stderr"; cat "$tmp/err"; fail=1; }
done
"$cli" -c "$conf" exec 2>"$tmp/err"
check "no program: exit" 2 "$?"
"$cli" -c "$conf" exec -- /nonexistent/program 2>"$tmp/err"
check "missing program: exit" 127 "$?"
check "missing program: message" "cluster-resolver: exec: cannot run '/nonexistent/program': No such file or directory" "$(cat "$tmp/err")"

# A resolution failure (tfconfig required, TF_CONFIG broken) exits 1 with
# the reason and runs nothing.
cat >"$tmp/fail.conf" <<'EOC'
resolvers = ( { plugin = "tfconfig"; policy = "required"; } );
EOC
TF_CONFIG='{"cluster": ' "$cli" -c "$tmp/fail.conf" exec -- touch "$tmp/ran" 2>"$tmp/err"
check "resolution failure: exit" 1 "$?"
[ -e "$tmp/ran" ] && { echo "FAIL resolution failure: the program ran"; fail=1; }
[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q '^cluster-resolver: .*TF_CONFIG' "$tmp/err" ||
	{ echo "FAIL resolution failure: want one line naming TF_CONFIG"; cat "$tmp/err"; fail=1; }
# torch for a task outside the world: not a usage error, a failure (1).
"$cli" -c "$conf" --task-type ps --task-id 0 exec --format torch -- touch "$tmp/ran" 2>"$tmp/err"
check "task outside the world: exit" 1 "$?"
check "task outside the world: message" "cluster-resolver: exec: format 'torch': task 'ps' 0 is not in the world (jobs chief, master, worker; choose others with jobs=)" "$(cat "$tmp/err")"
[ -e "$tmp/ran" ] && { echo "FAIL outside the world: the program ran"; fail=1; }

[ "$fail" = 0 ] && echo "ok: exec"
exit "$fail"
