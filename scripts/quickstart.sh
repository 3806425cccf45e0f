#!/bin/sh
# quickstart.sh - install what is missing, build, and print the TF_CONFIG
# that the shipped default configuration gives this machine.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
# The uninstalled CLI finds the freshly built plugins through this variable.
export CLUSTER_RESOLVER_PLUGIN_PATH="$PWD/build/lib/cluster-resolver/resolvers:$PWD/build/lib/cluster-resolver/accelerators"
exec build/bin/cluster-resolver --config config/cluster-resolver.conf resolve
