#!/bin/sh
# Config files that could hang, crawl or silently change the answer are
# refused with one line naming them (issue #11, items 11 and 12): a FIFO,
# a directory, more than 1 MiB, a NUL byte, a conf.d that cannot be listed.
# `-v` and check-config name every file read, in order.
set -u
cli=${CR_CLI:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

. "${CR_TEST_SOURCE_DIR:?}/tests/common/expect.sh"

P='cluster-resolver: '
good='resolvers = ( { plugin = "simple"; cluster = { worker = [ "w0:1" ]; }; } );
accelerators = ( );'
mkdir "$tmp/fifo" "$tmp/dropfifo" "$tmp/dropfile" "$tmp/big" "$tmp/nul" "$tmp/order"
mkfifo "$tmp/fifo/main.conf"
# timeout: before the fix, opening the FIFO blocked for ever.
expect fifo 2 '' "${P}$tmp/fifo/main.conf: not a regular file" -- \
	timeout 10 "$cli" -c "$tmp/fifo/main.conf" resolve
expect directory 2 '' "${P}$tmp/order: not a regular file" -- "$cli" -c "$tmp/order" resolve
printf '%s\n' "$good" >"$tmp/dropfifo/main.conf"
mkdir "$tmp/dropfifo/conf.d"
mkfifo "$tmp/dropfifo/conf.d/50-pipe.conf"
expect dropin-fifo 2 '' "${P}$tmp/dropfifo/conf.d/50-pipe.conf: not a regular file" -- \
	timeout 10 "$cli" -c "$tmp/dropfifo/main.conf" resolve
printf '%s\n' "$good" >"$tmp/dropfile/main.conf"
echo 'not a directory' >"$tmp/dropfile/conf.d"
expect dropin-dir-unreadable 2 '' \
	"${P}$tmp/dropfile/conf.d: cannot read the drop-in directory: Not a directory" -- \
	"$cli" -c "$tmp/dropfile/main.conf" resolve
if [ "$(id -u)" -ne 0 ]; then
	rm "$tmp/dropfile/conf.d" && mkdir -m 000 "$tmp/dropfile/conf.d"
	expect dropin-dir-mode-000 2 '' \
		"${P}$tmp/dropfile/conf.d: cannot read the drop-in directory: Permission denied" -- \
		"$cli" -c "$tmp/dropfile/main.conf" resolve
	chmod 700 "$tmp/dropfile/conf.d"
fi
# 1 MiB is fine; one byte more is refused before libconfig sees it.
{ printf '%s\n' "$good"; head -c $((1048576 - ${#good} - 2)) /dev/zero | tr '\0' '#'; echo; } \
	>"$tmp/big/main.conf"
expect size-limit 0 '{"cluster": {"worker": ["w0:1"]}}' '' -- "$cli" -c "$tmp/big/main.conf" resolve
echo '#' >>"$tmp/big/main.conf"
expect size-limit-plus-one 2 '' \
	"${P}$tmp/big/main.conf: larger than 1048576 bytes (the most a config file may have)" -- \
	"$cli" -c "$tmp/big/main.conf" resolve
# libconfig would stop at the NUL and drop the second resolver unseen.
{ printf '%s\n' "$good"; printf '\0resolvers = ( );\n'; } >"$tmp/nul/main.conf"
expect nul-byte 2 '' "${P}$tmp/nul/main.conf: contains a NUL byte at offset $((${#good} + 1))" -- \
	"$cli" -c "$tmp/nul/main.conf" resolve
# Every file read, in order, at -v and in check-config.
printf '%s\n' "$good" >"$tmp/order/main.conf"
mkdir "$tmp/order/conf.d"
echo 'rpc_layer = "grpc";' >"$tmp/order/conf.d/20-b.conf"
echo 'rpc_layer = "grpc+verbs";' >"$tmp/order/conf.d/10-a.conf"
expect verbose-files 0 '{"cluster": {"worker": ["w0:1"]}, "rpc_layer": "grpc"}' \
	"${P}config: read $tmp/order/main.conf
${P}config: read $tmp/order/conf.d/10-a.conf
${P}config: read $tmp/order/conf.d/20-b.conf
${P}resolver 'simple': resolved (required)" -- "$cli" -v -c "$tmp/order/main.conf" resolve
# @include (found by tests/fuzz/core fuzz-config): libconfig's scanner
# called exit() on a directory and blocked on a FIFO; each include is now
# read with the same checks first. A plain file still works.
mkdir "$tmp/inc" "$tmp/inc/sub"
mkfifo "$tmp/inc/pipe"
printf '@include ""\n' >"$tmp/inc/dir.conf"
expect include-directory 2 '' \
	"${P}$tmp/inc/dir.conf:1: @include: $tmp/inc/: not a regular file" -- \
	"$cli" -c "$tmp/inc/dir.conf" resolve
printf 'rpc_layer = "grpc";\n  @include "pipe"\n' >"$tmp/inc/fifo.conf"
expect include-fifo 2 '' "${P}$tmp/inc/fifo.conf:2: @include: $tmp/inc/pipe: not a regular file" -- \
	timeout 10 "$cli" -c "$tmp/inc/fifo.conf" resolve
printf '@include "sub"\n' >"$tmp/inc/nested.conf"
printf '@include "nested.conf"\n' >"$tmp/inc/outer.conf"
expect include-nested-directory 2 '' \
	"${P}$tmp/inc/nested.conf:1: @include: $tmp/inc/sub: not a regular file" -- \
	"$cli" -c "$tmp/inc/outer.conf" resolve
printf '%s\n' "$good" >"$tmp/inc/good.inc"
printf '@include "good.inc"\nrpc_layer = "grpc";\n' >"$tmp/inc/main.conf"
expect include-file 0 '{"cluster": {"worker": ["w0:1"]}, "rpc_layer": "grpc"}' '' -- \
	"$cli" -c "$tmp/inc/main.conf" resolve
# -v lists an included file after the file that includes it; what it says is
# named by the path it was read from, not by the name the @include wrote.
expect include-verbose 0 '{"cluster": {"worker": ["w0:1"]}, "rpc_layer": "grpc"}' \
	"${P}config: read $tmp/inc/main.conf
${P}config: read $tmp/inc/good.inc
${P}resolver 'simple': resolved (required)" -- "$cli" -v -c "$tmp/inc/main.conf" resolve
printf 'rpc_layer = ;\n' >"$tmp/inc/syntax.inc"
printf '@include "syntax.inc"\n' >"$tmp/inc/syntax.conf"
expect include-syntax-error 2 '' "${P}$tmp/inc/syntax.inc:1: syntax error" -- \
	"$cli" -c "$tmp/inc/syntax.conf" resolve
printf 'resolvers = ( { plugin = "simple"; bogus = 1; } );\n' >"$tmp/inc/key.inc"
printf '@include "key.inc"\n' >"$tmp/inc/key.conf"
expect include-unknown-key 2 '' "${P}$tmp/inc/key.inc:1: resolver 'simple': unknown key 'bogus'" -- \
	"$cli" -c "$tmp/inc/key.conf" resolve
# A task type that is not UTF-8 would make a TF_CONFIG no JSON reader takes
# (tests/fuzz/core fuzz-format).
printf '%s\ntask = { type = "w\377"; id = 0; };\n' "$good" >"$tmp/inc/type.conf"
expect task-type-not-utf8 2 '' "${P}$tmp/inc/type.conf:3: task type \"w\\xff\" is not valid UTF-8" -- \
	"$cli" -c "$tmp/inc/type.conf" resolve
exit $fail
