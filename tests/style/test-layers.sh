#!/bin/sh
# test-layers.sh SOURCE_DIR - the layers checker fails on what it is for:
# a planted loop between two files of one layer, a file that calls up a
# layer and a file in no layer, each named with its symbols; passes on a
# tree that keeps the rules; and leaves a moved file's old object alone.
# Plants real objects (cc -c) in a scratch tree laid out as CMake lays
# out ours, and checks against the real docs/layers.txt.
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

exit $fail
