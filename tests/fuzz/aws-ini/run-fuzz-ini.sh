#!/bin/sh
# run-fuzz-ini.sh [SECONDS] - fuzz-aws-ini.c on aws_profile.c (the AWS
# config and credentials file reader) under libFuzzer (../fuzz-lib.sh) for
# SECONDS (default 10).
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init aws
aws="$src/plugins/resolvers/aws"
# shellcheck disable=SC2046
fuzz_cc -fsanitize=fuzzer -I"$aws" $(pkg-config --cflags glib-2.0) "$here/fuzz-aws-ini.c" \
	"$aws/aws_profile.c" $(pkg-config --libs glib-2.0) -o "$out/fuzz-aws-ini"
fuzz_run fuzz-aws-ini "$here/corpus" "$secs" 1024
