#!/bin/sh
# test-file-length.sh SOURCE_DIR [MAX] - no source file of the tree is longer
# than MAX lines (600): C, headers, Python, shell, CMake, the layers checker.
# A file that long holds more than one idea; split it along them (the
# layers files say where each piece goes). The frozen copies of old ABI
# headers (tests/abi/sdk-*/) are not ours to split. Build trees are skipped.
# Prints each file over the limit with its length, longest first.
set -u
src=$1
max=${2:-600}
cd "$src" || exit 2
over=$(find . \( -path './build*' -o -path './.git' -o -path './tests/abi/sdk-*' \) -prune -o \
	-type f \( -name '*.c' -o -name '*.h' -o -name '*.py' -o -name '*.sh' -o \
	-name 'CMakeLists.txt' -o -name '*.cmake' -o -path './tests/style/layers' \) -print |
	sed 's|^\./||' | sort | while read -r f; do
		n=$(wc -l <"$f")
		[ "$n" -gt "$max" ] && printf '%s %s\n' "$n" "$f"
	done | sort -rn)
if [ -n "$over" ]; then
	printf '%s\n' "$over" | while read -r n f; do
		echo "file-length: $f has $n lines (at most $max)"
	done
	exit 1
fi
echo "file-length: every source file has at most $max lines"
