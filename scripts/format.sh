#!/bin/sh
# format.sh [--check] - apply the house style (.clang-format) to every C
# source and header git knows of, except the frozen ABI 1.0 headers
# (tests/abi/sdk-1.0), which stay exactly as released, and the CMake template
# version.h.in. With --check, change
# nothing and fail, listing the files, when one is not in the style.
set -eu
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format}
command -v "$fmt" >/dev/null || { echo "format.sh: $fmt is not installed (scripts/deps.sh test)" >&2; exit 2; }
files=$(git ls-files --cached --others --exclude-standard '*.c' '*.h' | grep -v '^tests/abi/sdk-1.0/')
if [ "${1:-}" = --check ]; then
	bad=
	for f in $files; do
		"$fmt" --dry-run --Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
	done
	if [ -n "$bad" ]; then
		echo "format.sh: not in the house style (run scripts/format.sh):$bad" >&2
		exit 1
	fi
	echo "format.sh: $(echo "$files" | wc -l) files in the house style"
	exit 0
fi
# shellcheck disable=SC2086
"$fmt" -i $files
