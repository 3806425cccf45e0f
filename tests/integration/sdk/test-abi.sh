#!/bin/sh
# ABI guard: abidiff compares the built libcluster-resolver, libcr-testhost
# (the fake host plugin tests link) and the plugin SDK (the types reachable
# from cr_plugin_entry, seen through simple.so) with the baselines committed
# in packaging/abi/. An incompatible change
# fails until the ABI is bumped on purpose, which changes the baseline's
# name (SONAME / CR_ABI_MAJOR) and so needs a new recorded baseline.
# Compatible additions are reported and pass. A negative control (a plugin
# built against a header with a slot inserted into cr_host_api) proves the
# guard catches a break.
set -u
src=${CR_TEST_SOURCE_DIR:?}
build=${CR_TEST_BUILD_DIR:?}
command -v abidiff >/dev/null || { echo "FAIL: abidiff (abigail-tools) is not installed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib="$build/lib/libcluster-resolver.so"
testhost="$build/lib/libcr-testhost.so"
plugin="$build/lib/cluster-resolver/resolvers/simple.so"
hdrs="--headers-dir $src/include/cluster-resolver --headers-dir $build/include/cluster-resolver"
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
th_soname=$(objdump -p "$testhost" | awk '$1 == "SONAME" { print $2 }')
major=$(sed -n 's/^#define CR_ABI_MAJOR //p' "$build/include/cluster-resolver/version.h")
fail=0

# dump BINARY OUT: the ABI as abidw sees it, without paths or line numbers.
dump() {
	# shellcheck disable=SC2086
	abidw --no-show-locs --no-corpus-path $hdrs --out-file "$2" "$1" || {
		echo "FAIL: abidw $1"; exit 1; }
}

# compare WHAT BASELINE CURRENT: fails on removed or changed functions and
# variables (a changed type reaches them as a "Changed" entry); members
# appended at the end of a struct (append-only.suppr) and added symbols pass.
compare() {
	if [ ! -f "$2" ]; then
		echo "FAIL: no baseline $2 for $1; after an intended ABI bump record it with"
		echo "  abidw --no-show-locs --no-corpus-path --headers-dir include/cluster-resolver ... > $2"
		fail=1; return
	fi
	abidiff --suppressions "$src/packaging/abi/append-only.suppr" "$2" "$3" >"$tmp/report" 2>&1
	rc=$?
	bad=$(sed -n 's/^\(Functions\|Variables\) changes summary: \([0-9]*\) Removed[^,]*, \([0-9]*\) Changed.*/\2 \3/p' \
		"$tmp/report" | awk '{ n += $1 + $2 } END { print n + 0 }')
	if [ $((rc & 3)) -ne 0 ]; then
		echo "FAIL: abidiff could not compare $1 (status $rc)"; cat "$tmp/report"; fail=1
	elif [ $((rc & 8)) -ne 0 ] || [ "$bad" -ne 0 ]; then
		echo "FAIL: incompatible ABI change in $1 (bump the ABI and record a new baseline):"
		cat "$tmp/report"; fail=1
	elif [ $((rc & 4)) -ne 0 ]; then
		echo "note: compatible ABI additions in $1:"; cat "$tmp/report"
	fi
}

dump "$lib" "$tmp/lib.abi"
dump "$testhost" "$tmp/testhost.abi"
dump "$plugin" "$tmp/sdk.abi"
compare "$soname" "$src/packaging/abi/$soname.abi" "$tmp/lib.abi"
compare "$th_soname" "$src/packaging/abi/$th_soname.abi" "$tmp/testhost.abi"
compare "plugin SDK $major" "$src/packaging/abi/plugin-sdk-$major.abi" "$tmp/sdk.abi"

# Negative control: insert a slot at the head of cr_host_api.
mkdir -p "$tmp/inc/cluster-resolver"
cp "$src"/include/cluster-resolver/*.h "$build/include/cluster-resolver/version.h" "$tmp/inc/cluster-resolver/"
sed -i '/^typedef struct cr_host_api {$/,/struct_size;/ s/^\tsize_t struct_size;$/\tsize_t struct_size;\n\tvoid *inserted;/' \
	"$tmp/inc/cluster-resolver/plugin-host.h"
grep -q 'void \*inserted;' "$tmp/inc/cluster-resolver/plugin-host.h" || { echo "FAIL: control edit did not apply"; exit 1; }
${CC:-cc} -g -std=c11 -D_GNU_SOURCE -fPIC -shared -fvisibility=hidden -I"$tmp/inc" \
	-I"$src/plugins/common/launchers" -o "$tmp/broken.so" "$src/plugins/common/launchers/launchers.c" "$src/plugins/resolvers/simple/simple.c" "$src/plugins/resolvers/simple/simple-hosts.c" || { echo "FAIL: control build"; exit 1; }
abidw --no-show-locs --no-corpus-path --headers-dir "$tmp/inc/cluster-resolver" \
	--out-file "$tmp/broken.abi" "$tmp/broken.so" || exit 1
before=$fail
fail=0
compare "control" "$src/packaging/abi/plugin-sdk-$major.abi" "$tmp/broken.abi" >/dev/null
[ "$fail" != 0 ] || { echo "FAIL: the guard missed an inserted host-table slot"; before=1; }
fail=0
# ... while a slot appended at the end of cr_host_api is a compatible change.
cp "$src/include/cluster-resolver/plugin-host.h" "$tmp/inc/cluster-resolver/plugin-host.h"
sed -i '/^typedef struct cr_host_api {$/,/^} cr_host_api;$/ s/^} cr_host_api;$/\tvoid *appended;\n} cr_host_api;/' \
	"$tmp/inc/cluster-resolver/plugin-host.h"
grep -q 'void \*appended;' "$tmp/inc/cluster-resolver/plugin-host.h" || { echo "FAIL: control edit did not apply"; exit 1; }
${CC:-cc} -g -std=c11 -D_GNU_SOURCE -fPIC -shared -fvisibility=hidden -I"$tmp/inc" \
	-I"$src/plugins/common/launchers" -o "$tmp/grown.so" "$src/plugins/common/launchers/launchers.c" "$src/plugins/resolvers/simple/simple.c" "$src/plugins/resolvers/simple/simple-hosts.c" || { echo "FAIL: control build"; exit 1; }
abidw --no-show-locs --no-corpus-path --headers-dir "$tmp/inc/cluster-resolver" \
	--out-file "$tmp/grown.abi" "$tmp/grown.so" || exit 1
compare "control (appended slot)" "$src/packaging/abi/plugin-sdk-$major.abi" "$tmp/grown.abi" >"$tmp/grown.log"
[ "$fail" = 0 ] || { cat "$tmp/grown.log"; echo "FAIL: an appended host-table slot was called incompatible"; before=1; }
fail=$before

[ "$fail" = 0 ] && echo "ok: ABI matches packaging/abi ($soname, $th_soname, plugin SDK $major); the control break is caught"
exit "$fail"
