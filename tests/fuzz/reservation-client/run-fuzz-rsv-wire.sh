#!/bin/sh
# run-fuzz-rsv-wire.sh [SECONDS] - reservation.so's frame reader under
# ../fuzz-lib.sh for SECONDS (default 10).
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init rsv-wire
rsv="$src/plugins/resolvers/reservation"
proto="$src/plugins/common/reservation"
# shellcheck disable=SC2086
fuzz_cc -fsanitize=fuzzer -I"$rsv" -I"$proto" $(pkg-config --cflags json-c libcrypto glib-2.0) \
	"$here/fuzz-rsv-wire.c" "$rsv/rsv_wire.c" "$proto/rsv-proto.c" \
	$(pkg-config --libs json-c libcrypto glib-2.0) -o "$out/fuzz-rsv-wire"
fuzz_run fuzz-rsv-wire "$here/corpus" "$secs" 4096
