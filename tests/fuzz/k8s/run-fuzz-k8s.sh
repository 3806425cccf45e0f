#!/bin/sh
# run-fuzz-k8s.sh [SECONDS] - fuzz-k8s-pages (k8s.so's PodList and Table
# and protobuf page reader, and the protobuf stream reader beside it) under
# libFuzzer (../fuzz-lib.sh) for SECONDS (default 10).
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init k8s
# the harness includes k8s_page.c, k8s_pb.c, k8s_pbstream.c, k8s_proto.c and k8s_view.c;
# the core's error_set
# shellcheck disable=SC2086
fuzz_cc -fsanitize=fuzzer -I"$src/core" -I"$src/plugins/resolvers/k8s" \
	$(pkg-config --cflags glib-2.0 json-c) "$here/fuzz-k8s-pages.c" "$src/core/values/error.c" \
	$(pkg-config --libs glib-2.0 json-c) -o "$out/fuzz-k8s-pages"
fuzz_run fuzz-k8s-pages "$here/corpus" "$secs" 16384
