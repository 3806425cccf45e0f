#!/bin/sh
# test-layers.sh SOURCE_DIR - the layers checker fails on what it is for:
# a planted loop between two files of one layer, a file that calls up a
# layer and a file in no layer, each named with its symbols; passes on a
# tree that keeps the rules; and leaves a moved file's old object alone.
# Plants real objects (cc -c) in a scratch tree laid out as CMake lays
# out ours, and checks against the real docs/layers.txt; then the same for
# plugin folders (--folders, each with its own layers.txt), a common folder
# that uses a plugin, and an import loop in the Python package.
set -u
src=$1
check="$src/tests/style/layers"
rules="$src/docs/layers.txt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$src/tests/common/expect.sh"

# plant FILE BODY: FILE (core/pipeline/a.c) in the tree and its object.
plant() {
	mkdir -p "$tree/$(dirname "$1")"
	printf '%s\n' "$2" >"$tree/$1"
	obj="$tree/build/$(dirname "$1" | cut -d/ -f1)/CMakeFiles/t.dir/$(dirname "$1" | cut -s -d/ -f2-)"
	mkdir -p "$obj"
	cc -c -o "$obj/$(basename "$1").o" "$tree/$1"
}

tree=$tmp/good
plant core/values/v.c 'int v_get(void) { return 1; }'
plant core/pipeline/a.c 'int v_get(void); int a_run(void) { return v_get(); }'
plant core/pipeline/b.c 'int a_run(void); int b_run(void) { return a_run(); }'
plant cli/main.c 'int b_run(void); int main(void) { return b_run(); }'
expect clean 0 "layers: 4 files in 6 layers, 3 uses between files; no loop, no call up" "" -- \
	"$check" "$rules" "$tree/build" "$tree"

# An object left behind by a file moved away is not read.
mkdir -p "$tree/build/core/CMakeFiles/t.dir"
cp "$tree/build/core/CMakeFiles/t.dir/pipeline/a.c.o" "$tree/build/core/CMakeFiles/t.dir/old.c.o"
expect leftover-object 0 "layers: 4 files in 6 layers, 3 uses between files; no loop, no call up" "" -- \
	"$check" "$rules" "$tree/build" "$tree"

tree=$tmp/loop
plant core/pipeline/a.c 'int b_step(void); int a_run(void) { return b_step(); }
int a_back(void) { return 2; }'
plant core/pipeline/b.c 'int c_step(void); int b_step(void) { return c_step(); }'
plant core/pipeline/c.c 'int a_back(void); int c_step(void) { return a_back(); }'
expect loop 1 "layers: a loop: these 3 files reach each other through these uses:
  core/pipeline/a.c -> core/pipeline/b.c: b_step
  core/pipeline/b.c -> core/pipeline/c.c: c_step
  core/pipeline/c.c -> core/pipeline/a.c: a_back
layers: 1 problem(s); the rule is $rules" "" -- "$check" "$rules" "$tree/build" "$tree"

tree=$tmp/up
plant core/host/http.c 'int ctx_run(void); int http_get(void) { return ctx_run(); }'
plant core/pipeline/context.c 'int ctx_run(void) { return 0; }'
plant core/stray.c 'int stray(void) { return 0; }'
expect call-up-and-stray 1 "layers: core/stray.c belongs to no layer of $rules
layers: core/host/http.c (host) calls up into core/pipeline/context.c (pipeline):
  core/host/http.c -> core/pipeline/context.c: ctx_run
layers: 2 problem(s); the rule is $rules" "" -- "$check" "$rules" "$tree/build" "$tree"

# --folders: each plugin folder, plugins/common/* and the Python package
# against the layers.txt in the folder.
# folder DIR LAYERS: a folder the checker reads (a CMakeLists.txt) and its rule.
folder() {
	mkdir -p "$tree/$1"
	: >"$tree/$1/CMakeLists.txt"
	printf '%s\n' "$2" >"$tree/$1/layers.txt"
}
# module FILE TEXT: a module of the Python package.
module() {
	mkdir -p "$tree/python/cluster_resolver"
	printf '%s\n' "$2" >"$tree/python/cluster_resolver/$1"
}

tree=$tmp/folders-good
folder plugins/common/util 'util util.c'
plant plugins/common/util/util.c 'int util_get(void) { return 1; }'
folder plugins/resolvers/demo 'low a.c
plugin demo.c'
# cr_host is the SDK's (CR_PLUGIN_DEFINE puts it beside the descriptor): a
# lower file that reads it does not call up.
plant plugins/resolvers/demo/a.c 'extern const void *cr_host; int util_get(void);
int a_get(void) { return cr_host != 0 ? util_get() : 0; }'
plant plugins/resolvers/demo/demo.c 'const void *cr_host; int a_get(void); int demo_run(void) { return a_get(); }'
module layers.txt 'base errors.py
top resolver.py'
module errors.py 'class Error(Exception): pass'
module resolver.py 'from .errors import Error
def f():
    from cluster_resolver import errors
    return errors, Error'
expect folders-clean 0 "layers: 3 files in 2 folders, 1 uses between files of a folder; 2 Python modules, 1 imports; no loop, no call up" "" -- \
	"$check" --folders "$tree/build" "$tree"

tree=$tmp/folders-bad
folder plugins/common/util 'util util.c'
plant plugins/common/util/util.c 'int demo_run(void); int util_get(void) { return demo_run(); }'
folder plugins/resolvers/demo 'low a.c
plugin demo.c'
plant plugins/resolvers/demo/a.c 'int demo_back(void); int a_get(void) { return demo_back(); }'
plant plugins/resolvers/demo/demo.c 'int a_get(void); int util_get(void);
int demo_back(void) { return 2; } int demo_run(void) { return a_get() + util_get(); }'
plant plugins/resolvers/demo/stray.c 'int stray(void) { return 0; }'
mkdir -p "$tree/plugins/resolvers/other" && : >"$tree/plugins/resolvers/other/CMakeLists.txt"
module layers.txt 'base errors.py
top resolver.py'
module errors.py 'def f():
    from . import resolver
    return resolver'
module resolver.py 'from .errors import f'
expect folders-loops-and-call-ups 1 "layers: plugins/resolvers/demo/stray.c belongs to no layer of plugins/resolvers/demo/layers.txt
layers: plugins/resolvers/other/ has no layers.txt
layers: a loop: these 2 files reach each other through these uses:
  plugins/resolvers/demo/a.c -> plugins/resolvers/demo/demo.c: demo_back
  plugins/resolvers/demo/demo.c -> plugins/resolvers/demo/a.c: a_get
layers: plugins/resolvers/demo/a.c (low) calls up into plugins/resolvers/demo/demo.c (plugin):
  plugins/resolvers/demo/a.c -> plugins/resolvers/demo/demo.c: demo_back
layers: a loop: these 2 folders reach each other through these uses:
  plugins/common/util -> plugins/resolvers/demo: demo_run (util.c -> demo.c)
  plugins/resolvers/demo -> plugins/common/util: util_get (demo.c -> util.c)
layers: plugins/common/util (common) calls up into plugins/resolvers/demo (plugin):
  plugins/common/util -> plugins/resolvers/demo: demo_run (util.c -> demo.c)
layers: a loop: these 2 files reach each other through these imports:
  python/cluster_resolver/errors.py -> python/cluster_resolver/resolver.py: from . import resolver
  python/cluster_resolver/resolver.py -> python/cluster_resolver/errors.py: from .errors import f
layers: python/cluster_resolver/errors.py (base) calls up into python/cluster_resolver/resolver.py (top):
  python/cluster_resolver/errors.py -> python/cluster_resolver/resolver.py: from . import resolver
layers: 8 problem(s); the rules are each folder's layers.txt" "" -- \
	"$check" --folders "$tree/build" "$tree"

exit $fail
