#!/bin/sh
# run-fuzz-rsv-server.sh [SECONDS] - the reservation server's frame reader
# and handlers (cli/reservation/*.c) under ../fuzz-lib.sh for SECONDS
# (default 10).
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init rsv-server
cli="$src/cli"
rsv="$cli/reservation"
proto="$src/plugins/common/reservation"
# the harness includes reservation-server.c; the rest of the server links
# shellcheck disable=SC2086
fuzz_cc -fsanitize=fuzzer -I"$cli" -I"$proto" -I"$src/include" -I"$CR_TEST_BUILD_DIR/include" \
	$(pkg-config --cflags json-c libcrypto glib-2.0) \
	"$here/fuzz-rsv-server.c" "$rsv/reservation-state.c" "$rsv/reservation-plan.c" \
	"$rsv/reservation-listen.c" "$rsv/reservation-send.c" "$proto/rsv-proto.c" \
	$(pkg-config --libs json-c libcrypto glib-2.0) -o "$out/fuzz-rsv-server"
fuzz_run fuzz-rsv-server "$here/corpus" "$secs" 4096
