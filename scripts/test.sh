#!/bin/sh
# test.sh - install what is missing, build twice (normal, and ASan+UBSan)
# and run the whole test suite of each build in a loopback-only network
# namespace. Warnings are errors. This is exactly what CI runs.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

./scripts/deps.sh test

cmake -S . -B build -DCR_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
cmake -S . -B build-asan -DCR_WERROR=ON -DCR_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"

echo "== ASan+UBSan build =="
./scripts/hermetic.sh ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE valgrind
echo "== normal build (valgrind included) =="
./scripts/hermetic.sh ctest --test-dir build --output-on-failure -j"$jobs"
