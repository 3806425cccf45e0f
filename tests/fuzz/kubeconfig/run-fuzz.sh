#!/bin/sh
# run-fuzz.sh [SECONDS] - the k8s resolver's kubeconfig reader under
# libFuzzer (../fuzz-lib.sh), SECONDS (default 10). The plugin's sources
# are linked whole (the target calls k8s_conn_load); nothing reaches a
# network.
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fuzz-lib.sh"
fuzz_init kubeconfig
k8s="$src/plugins/resolvers/k8s"
common="$src/plugins/common"
pkgs="glib-2.0 json-c yaml-0.1"
# k8s.so's sources with the common libraries it links (natural, httpanswer)
# shellcheck disable=SC2046,SC2086
fuzz_cc -fsanitize=fuzzer -I"$k8s" -I"$common/natural" -I"$common/httpanswer" \
	$(pkg-config --cflags $pkgs) "$here/fuzz-kubeconfig.c" "$k8s"/*.c "$k8s"/client/*.c \
	"$common"/natural/*.c "$common"/httpanswer/*.c "$src/core/values/error.c" -I"$src/core" \
	$(pkg-config --libs $pkgs) -o "$out/fuzz-kubeconfig"
fuzz_run fuzz-kubeconfig "$here/corpus" "$secs" 4096
