#!/bin/sh
# run-fuzz-aws.sh TARGET [SECONDS] - one of aws.so's libFuzzer targets
# (sigv4: the SigV4 canonicaliser; ec2-xml: the walks of DescribeInstances
# pages and error answers) under ../fuzz-lib.sh for SECONDS (default 10).
set -eu
target=${1:?usage: run-fuzz-aws.sh sigv4|ec2-xml [SECONDS]}
secs=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init aws
aws="$src/plugins/resolvers/aws"
ra="$src/plugins/common/httpanswer"
case "$target" in
sigv4)
	sources="$here/fuzz-sigv4.c $aws/aws_sigv4.c"
	corpus="$here/corpus"
	max_len=512
	;;
ec2-xml)
	sources="$here/../ec2-xml/fuzz-ec2-xml.c $aws/aws_xml.c $aws/aws_query.c $aws/aws_retry.c"
	sources="$sources $aws/aws_sigv4.c $ra/urltext.c"
	corpus="$here/../ec2-xml/corpus"
	max_len=8192
	;;
*) echo "run-fuzz-aws.sh: unknown target '$target'" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
fuzz_cc -fsanitize=fuzzer -I"$aws" -I"$ra" $(pkg-config --cflags glib-2.0 libxml-2.0) $sources \
	$(pkg-config --libs glib-2.0 libxml-2.0) -lm -o "$out/fuzz-$target"
fuzz_run "fuzz-$target" "$corpus" "$secs" "$max_len"
