#!/bin/sh
# Golden output of every `resolve --format` for the cluster of cluster.conf.
# cases.txt lists the cases; golden/ holds the exact expected text. A case
# whose arguments start with @FILE uses that config file instead; ARGS are
# split with the shell's quoting.
set -u
here=$(dirname "$0")
cli=${CR_CLI:?CR_CLI is not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
while read -r name code args; do
	case $name in '#'* | '') continue ;; esac
	n=$((n + 1))
	conf=cluster.conf
	case $args in @*) conf=${args%% *} conf=${conf#@} args=${args#* } ;; esac
	# ARGS are split as a shell would ("torch, jax" is one argument).
	eval "\"\$cli\" -c \"\$here/\$conf\" $args" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$code" ]; then
		echo "FAIL $name: exit $rc, expected $code"; cat "$tmp/err"; fail=1
	fi
	if ! cmp -s "$tmp/out" "$here/golden/$name.out"; then
		echo "FAIL $name: stdout differs from golden/$name.out"
		diff "$here/golden/$name.out" "$tmp/out"; fail=1
	fi
	experr=/dev/null
	[ -f "$here/golden/$name.err" ] && experr="$here/golden/$name.err"
	if ! cmp -s "$tmp/err" "$experr"; then
		echo "FAIL $name: stderr differs from $experr"; diff "$experr" "$tmp/err"; fail=1
	fi
done <"$here/cases.txt"
[ "$n" -gt 20 ] || { echo "FAIL: only $n cases read"; exit 1; }
[ "$fail" = 0 ] && echo "ok: $n format cases"
exit "$fail"
