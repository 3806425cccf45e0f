#!/bin/sh
# Install the built project into a staging tree, then build
# examples/plugin-template outside the source tree twice, once with the
# installed CMake package and once with pkg-config alone, run its own tests
# (unit tests in the installed cr-testhost, and the installed CLI) and load
# it with the installed `cluster-resolver`. Nothing from the source or build
# tree is on any search path after the install.
set -u
src=${CR_TEST_SOURCE_DIR:?}
build=${CR_TEST_BUILD_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v pkg-config >/dev/null || fail "pkg-config is not installed"

# 1. Install: everything under $tmp/stage with prefix /opt/cr.
DESTDIR="$tmp/stage" cmake --install "$build" --prefix /opt/cr >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "cmake --install"; }
prefix="$tmp/stage/opt/cr"
pcdir=$(dirname "$(find "$prefix" -name cluster-resolver-plugin.pc | head -n 1)")
[ -f "$pcdir/cluster-resolver.pc" ] || fail "cluster-resolver.pc not installed"
[ -f "$pcdir/cr-testhost.pc" ] || fail "cr-testhost.pc not installed"
libdir=$(dirname "$pcdir")
[ -e "$libdir/libcr-testhost.so.1" ] || fail "libcr-testhost.so.1 not in \${libdir}"
for f in bin/cluster-resolver bin/cr-testhost include/cluster-resolver/plugin.h \
	include/cluster-resolver/version.h include/cluster-resolver/testhost.h \
	share/man/man1/cluster-resolver.1 share/man/man5/cluster-resolver.conf.5 \
	share/man/man7/cluster-resolver-plugin.7; do
	[ -e "$prefix/$f" ] || fail "$f not installed"
done
# The default config in the prefix's own etc/, and nothing outside the
# prefix; only a build configured for /usr puts it in /etc (GNUInstallDirs).
case $(sed -n 's/^CMAKE_INSTALL_PREFIX:[A-Z]*=//p' "$build/CMakeCache.txt") in
/usr | /usr/) conf="$tmp/stage/etc/cluster-resolver/cluster-resolver.conf" outside="etc opt" ;;
*) conf="$prefix/etc/cluster-resolver/cluster-resolver.conf" outside=opt ;;
esac
[ -f "$conf" ] || fail "default config not at $conf"
[ "$(ls -A "$tmp/stage" | tr '\n' ' ')" = "$outside " ] || fail "installed outside the prefix: $(ls -A "$tmp/stage")"
[ -f "$libdir/cluster-resolver/resolvers/simple.so" ] || fail "plugins not in \${libdir}/cluster-resolver/resolvers"
[ -f "$libdir/cluster-resolver/libcr-http.so" ] || fail "libcr-http.so not in \${libdir}/cluster-resolver"
if ldd "$libdir/libcluster-resolver.so.1" | grep -q libcurl; then
	fail "libcluster-resolver.so.1 links libcurl: it belongs in libcr-http.so"
fi
[ -f "$libdir/cmake/ClusterResolver/ClusterResolverConfig.cmake" ] || fail "CMake package not installed"
if grep -rl -e "$src" -e "$build" "$pcdir" "$libdir/cmake" >/dev/null 2>&1; then
	fail "installed SDK files name the source or build tree"
fi

# The installed executables find their library through their RPATH
# ($ORIGIN/../lib), whatever the prefix given at install time.
env -u LD_LIBRARY_PATH "$prefix/bin/cluster-resolver" --version >/dev/null ||
	fail "the installed CLI does not find libcluster-resolver.so.1 by itself"
env -u LD_LIBRARY_PATH "$prefix/bin/cr-testhost" --help >/dev/null ||
	fail "the installed cr-testhost does not find libcr-testhost.so.1 by itself"

# The installed CLI, its library and its plugins; not the build tree's.
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CLUSTER_RESOLVER_PLUGIN_PATH="$libdir/cluster-resolver/resolvers:$libdir/cluster-resolver/accelerators"
cli="$prefix/bin/cluster-resolver"
"$cli" --version >/dev/null || fail "the installed CLI does not run"

# pkg-config answers, relocated to the staging tree.
export PKG_CONFIG_PATH="$pcdir"
pc="pkg-config --define-prefix"
[ "$($pc --variable=abi_major cluster-resolver-plugin)" = "$(sed -n 's/^#define CR_ABI_MAJOR //p' "$prefix/include/cluster-resolver/version.h")" ] ||
	fail "abi_major differs from version.h"
[ "$($pc --variable=resolverdir cluster-resolver-plugin)" = "$libdir/cluster-resolver/resolvers" ] ||
	fail "resolverdir is $($pc --variable=resolverdir cluster-resolver-plugin)"
[ -z "$($pc --libs-only-l cluster-resolver-plugin)" ] || fail "the plugin SDK must not link anything"
[ "$($pc --libs-only-l cr-testhost | tr -d " ")" = "-lcr-testhost" ] || fail "cr-testhost.pc links [$($pc --libs-only-l cr-testhost)]"

# The template as installed with the SDK (pkg-config's templatedir).
tpl=$($pc --variable=templatedir cluster-resolver-plugin)
[ "$tpl" = "$prefix/share/cluster-resolver/plugin-template" ] || fail "templatedir is $tpl"
cp -r "$tpl" "$tmp/tpl" || fail "the plugin template is not installed"
for f in CMakeLists.txt Makefile README.md src/example.c tests/test-example.sh; do
	cmp -s "$src/examples/plugin-template/$f" "$tmp/tpl/$f" || fail "installed template: $f differs"
done

# 2. CMake package: configure, build, the template's own tests (unit tests
#    linked with ClusterResolver::testhost, then the CLI test), install.
cmake -S "$tmp/tpl" -B "$tmp/tpl/build" -DCMAKE_PREFIX_PATH="$prefix" \
	-DCMAKE_INSTALL_PREFIX="$tmp/plugins" -DCMAKE_C_FLAGS=-Werror >"$tmp/cmake.log" 2>&1 ||
	{ cat "$tmp/cmake.log"; fail "template: cmake configure"; }
cmake --build "$tmp/tpl/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "template: cmake build"; }
(cd "$tmp/tpl/build" && ctest --output-on-failure) >"$tmp/ctest.log" 2>&1 ||
	{ cat "$tmp/ctest.log"; fail "template: its own ctest"; }
grep -q "tests passed, 0 tests failed out of 2" "$tmp/ctest.log" ||
	{ cat "$tmp/ctest.log"; fail "template: expected its unit and CLI tests"; }
objdump -p "$tmp/tpl/build/test-example-unit" | grep -q 'NEEDED *libcr-testhost.so.1' ||
	fail "template: the unit tests do not link libcr-testhost.so.1"
if objdump -p "$tmp/tpl/build/example.so" | grep -q 'NEEDED *lib\(cr-testhost\|cluster-resolver\)'; then
	fail "template: example.so links a cluster-resolver library"
fi
cmake --install "$tmp/tpl/build" >/dev/null || fail "template: cmake --install"
# cr_add_plugin installs into the host's own resolver directory, not under
# the template's CMAKE_INSTALL_PREFIX.
so="$libdir/cluster-resolver/resolvers/example.so"
[ -f "$so" ] || fail "template: example.so not in the host's resolver directory ($(find "$tmp" -name example.so))"
[ -z "$(find "$tmp/plugins" -name example.so 2>/dev/null)" ] || fail "template: example.so under its own prefix"
exports=$(nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }')
[ "$exports" = cr_plugin_entry ] || fail "example.so exports [$exports], want cr_plugin_entry only"

# 3. pkg-config alone (the template's Makefile): build, unit tests,
#    installed with DESTDIR.
make -s -C "$tmp/tpl" PKG_CONFIG="$pc" CFLAGS="-O2 -Wall -Wextra -Werror" >"$tmp/make.log" 2>&1 ||
	{ cat "$tmp/make.log"; fail "template: make with pkg-config"; }
make -s -C "$tmp/tpl" PKG_CONFIG="$pc" CFLAGS="-O2 -Wall -Wextra -Werror" check >"$tmp/check.log" 2>&1 ||
	{ cat "$tmp/check.log"; fail "template: make check with pkg-config"; }
grep -q "^0 of 8 cases failed$" "$tmp/check.log" || { cat "$tmp/check.log"; fail "template: make check ran no cases"; }
make -s -C "$tmp/tpl" PKG_CONFIG="$pc" DESTDIR="$tmp/pcinst" install >/dev/null || fail "make install"
so2="$tmp/pcinst$libdir/cluster-resolver/resolvers/example.so"
[ -f "$so2" ] || fail "make install did not use resolverdir ($so2)"
# Without pkg-config (or the SDK) the Makefile stops with a message instead
# of installing example.so into /.
if out=$(make -C "$tmp/tpl" PKG_CONFIG=/nonexistent/pkg-config DESTDIR="$tmp/nopc" install 2>&1); then
	fail "template: make install without pkg-config succeeded"
fi
case $out in
*"'/nonexistent/pkg-config --modversion cluster-resolver-plugin' found nothing: install pkg-config and the cluster-resolver SDK"*) ;;
*) echo "$out"; fail "template: make without pkg-config: no message" ;;
esac
[ ! -e "$tmp/nopc" ] || fail "template: make without pkg-config installed something"

# 4. Both builds loaded by the installed CLI.
conf="$tmp/use.conf"
printf 'resolvers = ( { plugin = "example"; file = "%s"; job = "trainer"; } );\n' \
	"$tmp/tpl/tests/hosts.txt" >"$conf"
for dir in "$(dirname "$so")" "$(dirname "$so2")"; do
	got=$(CLUSTER_RESOLVER_PLUGIN_PATH="$dir:$CLUSTER_RESOLVER_PLUGIN_PATH" EXAMPLE_TASK_INDEX=1 \
		"$cli" -c "$conf" resolve --format torch --jobs trainer 2>&1)
	want="export MASTER_ADDR='node0'
export MASTER_PORT='2222'
export WORLD_SIZE='3'
export RANK='1'
export LOCAL_RANK='0'
export LOCAL_WORLD_SIZE='1'
export NODE_RANK='1'
export GROUP_RANK='1'"
	[ "$got" = "$want" ] || { echo "$got"; fail "installed CLI with $dir/example.so"; }
	CLUSTER_RESOLVER_PLUGIN_PATH="$dir:$CLUSTER_RESOLVER_PLUGIN_PATH" "$cli" plugins |
		grep -q "example" || fail "plugins does not list $dir/example.so"
done
# 5. The installed cr-testhost command drives the plugin from a shell.
got=$("$prefix/bin/cr-testhost" "$so" resolve --config 'file = "/hosts";' \
	--file '/hosts=n0:1
n1:1' --env EXAMPLE_TASK_INDEX=1 --format tf_config 2>&1)
[ "$got" = '{"cluster": {"worker": ["n0:1", "n1:1"]}, "task": {"type": "worker", "index": 1}}' ] ||
	{ echo "$got"; fail "installed cr-testhost resolve"; }
got=$("$prefix/bin/cr-testhost" "$so" probe --config 'file = "/hosts";' 2>&1)
rc=$?
[ "$rc" = 3 ] && [ "$got" = "cr-testhost: declined: EXAMPLE_TASK_INDEX is not set" ] ||
	{ echo "$got"; fail "installed cr-testhost probe: exit $rc, expected 3 (declined, with the reason)"; }
echo "ok: installed SDK builds, tests and loads the template (CMake, pkg-config, cr-testhost)"
