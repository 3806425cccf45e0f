#!/bin/sh
# run-fuzz-gce.sh [SECONDS] - fuzz-gce-pages (gce.so's listInstances and
# instances.list page walks on the host's JSON slots) under libFuzzer
# (../fuzz-lib.sh) for SECONDS (default 10).
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init gce
gcp="$src/plugins/common/gcp"
ra="$src/plugins/common/httpanswer"
# the harness includes gce_list.c; the gcp and httpanswer libraries and the
# core's JSON slots
sources="$here/fuzz-gce-pages.c $gcp/gcp.c $gcp/gcp_meta.c $gcp/gcp_http.c $gcp/gcp_auth.c $gcp/gcp_api.c"
sources="$sources $ra/retryafter.c $ra/status.c $ra/urltext.c"
sources="$sources $src/core/values/json.c $src/core/values/error.c"
# shellcheck disable=SC2086
fuzz_cc -fsanitize=fuzzer -I"$src/core" -I"$gcp" -I"$ra" -I"$src/plugins/resolvers/gce" \
	$(pkg-config --cflags glib-2.0 json-c libcrypto) $sources \
	$(pkg-config --libs glib-2.0 json-c) -o "$out/fuzz-gce-pages"
fuzz_run fuzz-gce-pages "$here/corpus" "$secs" 1024
