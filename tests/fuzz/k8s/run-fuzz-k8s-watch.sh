#!/bin/sh
# run-fuzz-k8s-watch.sh [SECONDS] - fuzz-k8s-watch (k8s.so's watch stream
# reader: JSON Lines and protobuf WatchEvent frames in pieces) under
# libFuzzer (../fuzz-lib.sh) for SECONDS (default 10).
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init k8s-watch
ra="$src/plugins/common/httpanswer"
# the harness includes k8s_watch.c, k8s_watched.c, k8s_pb.c, k8s_proto.c and k8s_view.c; the core's error_set;
# httpanswer's urltext.c (redact_secrets, for an ERROR event's Status)
# shellcheck disable=SC2086
fuzz_cc -fsanitize=fuzzer -I"$src/core" -I"$src/plugins/resolvers/k8s" -I"$ra" \
	$(pkg-config --cflags glib-2.0 json-c) "$here/fuzz-k8s-watch.c" "$src/core/values/error.c" \
	"$ra/urltext.c" $(pkg-config --libs glib-2.0 json-c) -o "$out/fuzz-k8s-watch"
fuzz_run fuzz-k8s-watch "$here/corpus-watch" "$secs" 16384
