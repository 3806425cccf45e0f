#!/bin/sh
# `resolve --format env` sourced by sh (dash) and bash, plain and --posix,
# must give every variable back byte for byte, for hostile values (quotes,
# blanks, $, backticks, backslashes, newlines, tabs, globs, UTF-8 in job
# names): see hostile.conf. References: the literal bytes below for
# MASTER_ADDR, the `tf_config` format for TF_CONFIG, and for every variable
# the value `exec` put into the environment directly (no shell parsing on
# that path). A hostile address never gets that far: hostile-address.conf.
set -u
here=$(dirname "$0")
cli=${CR_CLI:?CR_CLI is not set}
conf="$here/hostile.conf"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
vars="TF_CONFIG MASTER_ADDR MASTER_PORT WORLD_SIZE RANK LOCAL_RANK LOCAL_WORLD_SIZE
NODE_RANK GROUP_RANK JAX_COORDINATOR_ADDRESS JAX_NUM_PROCESSES JAX_PROCESS_ID"

"$cli" -c "$conf" resolve --format env >"$tmp/env.sh" || { echo "FAIL: resolve --format env"; exit 1; }
[ "$(grep -c '^export ' "$tmp/env.sh")" = 12 ] || { echo "FAIL: expected 12 export lines"; cat "$tmp/env.sh"; exit 1; }

# MASTER_ADDR: the chief's host, written out by hand.
printf 'c0.example-1' >"$tmp/want.MASTER_ADDR"
# TF_CONFIG: the tf_config format without its newline.
"$cli" -c "$conf" resolve --format tf_config | head -c -1 >"$tmp/want.TF_CONFIG"

for v in $vars; do
	"$cli" -c "$conf" exec --format env -- sh -c 'printf "%s" "$(printenv "$1"; echo .)"' sh "$v" \
		>"$tmp/exec.$v" || { echo "FAIL: exec for $v"; fail=1; }
	# printenv adds a newline and the trailing '.' protects trailing newlines.
	head -c -2 "$tmp/exec.$v" >"$tmp/ref.$v"
done
for f in "$tmp"/want.*; do
	v=${f##*/want.}
	cmp -s "$f" "$tmp/ref.$v" || { echo "FAIL: exec's $v differs from the literal"; od -c "$tmp/ref.$v" | head; fail=1; }
done

# The address of hostile-address.conf is refused, and nothing is printed.
"$cli" -c "$here/hostile-address.conf" resolve --format env >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
want="cluster-resolver: resolver 'simple' ($CR_PLUGIN_BUILD_DIR/resolvers/simple.so): create failed: $here/hostile-address.conf:5: cluster_json: job 'chief': address \"it's a \\\"host\\\" \$HOME \`id\` \\\\n;*\\nline two\\t''\\n:2222\" has a character that is not in a host name"
if [ "$rc" != 2 ] || [ -s "$tmp/bad.out" ] || [ "$(cat "$tmp/bad.err")" != "$want" ]; then
	echo "FAIL: hostile address: exit $rc"; cat "$tmp/bad.out"; echo "  stderr: $(cat "$tmp/bad.err")"; echo "    want: $want"; fail=1
fi

n=0
for shell in "sh" "bash" "bash --posix" "dash"; do
	set -- $shell
	command -v "$1" >/dev/null || { echo "FAIL: shell $1 not installed"; fail=1; continue; }
	for v in $vars; do
		# shellcheck disable=SC2086
		$shell -c '. "$1"; printf "%s" "$(printenv "$2"; echo .)"' sh "$tmp/env.sh" "$v" \
			>"$tmp/got" 2>"$tmp/err"
		head -c -2 "$tmp/got" >"$tmp/got.$v"
		if [ -s "$tmp/err" ] || ! cmp -s "$tmp/got.$v" "$tmp/ref.$v"; then
			echo "FAIL: $shell: $v does not round-trip"; cat "$tmp/err"
			od -c "$tmp/got.$v" | head -5; od -c "$tmp/ref.$v" | head -5; fail=1
		fi
		n=$((n + 1))
	done
done
[ "$fail" = 0 ] && echo "ok: $n variable round trips"
exit "$fail"
