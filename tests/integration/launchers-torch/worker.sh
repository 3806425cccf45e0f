#!/bin/sh
# One torchrun worker (started with --no_python): what torchrun set, in
# `resolve --format torch`'s spelling (its NODE_RANK is torchrun's
# GROUP_RANK), beside what `cluster-resolver resolve --format torch` prints
# here, and `--format tf_config`'s refusal; each rank writes its own files.
set -u
out=${TE_OUT:?}/$RANK
{
	printf "export MASTER_ADDR='%s'\n" "$MASTER_ADDR"
	printf "export MASTER_PORT='%s'\n" "$MASTER_PORT"
	printf "export WORLD_SIZE='%s'\n" "$WORLD_SIZE"
	printf "export RANK='%s'\n" "$RANK"
	printf "export LOCAL_RANK='%s'\n" "$LOCAL_RANK"
	printf "export LOCAL_WORLD_SIZE='%s'\n" "$LOCAL_WORLD_SIZE"
	printf "export NODE_RANK='%s'\n" "$GROUP_RANK"
	printf "export GROUP_RANK='%s'\n" "$GROUP_RANK"
} >"$out.want"
"$CR_CLI" -c "$TE_CONF" resolve --format torch >"$out.got" 2>"$out.err"
echo $? >"$out.rc"
"$CR_CLI" -c "$TE_CONF" resolve --format tf_config >"$out.tf" 2>"$out.tferr"
echo $? >"$out.tfrc"
# exec without --format: torch's variables (NODE_RANK is ours, not
# torchrun's), no TF_CONFIG.
"$CR_CLI" -c "$TE_CONF" exec -- sh -c 'printf "%s %s %s\n" "$NODE_RANK" "$WORLD_SIZE" "${TF_CONFIG-unset}"' \
	>"$out.exec" 2>&1
echo "exit $?" >>"$out.exec"
