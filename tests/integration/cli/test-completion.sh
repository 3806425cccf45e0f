#!/bin/sh
# Shell completion made by `cluster-resolver completion bash|zsh` from the
# option tables: bash completes commands, options, formats (also inside a
# list), dialects, rdzv kinds and subcommands; the installed build file is
# the command's output; zsh's script is checked by zsh -n where zsh exists.
set -u
cli=${CR_CLI:?CR_CLI is not set}
build=${CR_TEST_BUILD_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$cli" completion bash >"$tmp/bash" || { echo "FAIL: completion bash exit $?"; exit 1; }
"$cli" completion zsh >"$tmp/zsh" || { echo "FAIL: completion zsh exit $?"; exit 1; }
cmp -s "$tmp/bash" "$build/share/completion/cluster-resolver" || { echo "FAIL: build file differs"; fail=1; }
cmp -s "$tmp/zsh" "$build/share/completion/_cluster-resolver" || { echo "FAIL: zsh build file differs"; fail=1; }

# complete WORDS...: the candidates bash offers for the last word.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _cluster_resolver
		printf "%s\n" "${COMPREPLY[@]}"' sh "$tmp/bash" cluster-resolver "$@"
}

check() {
	want=$1
	shift
	got=$(complete_words "$@" | tr '\n' ' ')
	if [ "$got" != "$want" ]; then
		echo "FAIL [$*]: expected [$want], got [$got]"
		fail=1
	fi
}

check "resolve reservation " res
check "resolve " reso
check "check-config " che
check "--format " resolve --for
check "--format " exec --format=torch --form
check "torch torchrun " resolve --format to
check "torch,json torch,jax " resolve --format torch,j
check "torch torchrun " resolve --format = tor
check "torchrun " -c x.conf exec -f torchr
# exec offers only the formats that set variables, and no --dialect.
check "tf_config torch torchrun jax env " exec --format ""
check "torch torchrun " exec --format to
check "json " resolve --format js
check " " exec --format js
check "mpich " resolve --dialect mp
check "c10d " exec --rdzv c
check "expand " hostlist ex
check "serve " reservation se
check "--json " -v plugins --js
# Plugin names come from `plugins --json` of the cluster-resolver on PATH.
PATH=$(dirname "$cli"):$PATH
export PATH
check "sagemaker sge simple skypilot slurm " plugins s
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$tmp/zsh" || { echo "FAIL: zsh -n"; fail=1; }
	# The script run with _arguments stubbed to print what it is given,
	# as zsh would call it for `cluster-resolver resolve --format <TAB>`.
	# shellcheck disable=SC2016 # zsh expands these
	got=$(zsh -f -c '
n=0
_arguments() { n=$((n + 1)); if [ $n = 1 ]; then state=args; return 1; fi; print -rl -- "$@"; }
words=(resolve --format)
. "$1"' zsh "$tmp/zsh" | grep -e '--format=' -e '--dialect=' -e '^-s$')
	want="-s
(-f --format)--format=[output format(s), a comma-separated list given once\: tf_config, json, clusterdef, env, torch, torchrun, jax, hostfile, horovod, hosts]:F(,F...):_values -s , format tf_config json clusterdef env torch torchrun jax hostfile horovod hosts
--dialect=[hostfile dialect\: openmpi, mpich, deepspeed]:D:_values -s , dialect openmpi mpich deepspeed"
	[ "$got" = "$want" ] || { printf 'FAIL zsh resolve specs: expected\n%s\ngot\n%s\n' "$want" "$got"; fail=1; }
else
	echo "note: zsh is not installed; its script is only compared with the build's"
fi
[ "$fail" = 0 ] && echo "ok: completion"
exit "$fail"
