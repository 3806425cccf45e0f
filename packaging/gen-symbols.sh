#!/bin/sh
# gen-symbols.sh LIBRARY MAPFILE PACKAGE DEVPACKAGE - print the Debian
# symbols file of a shared library built with a version script.
#
# Each exported symbol is listed with its version node; its minimal
# package version is the node's (CLUSTER_RESOLVER_1.1 -> 1.1.0), so the
# file follows from the map: a function added in a later release goes in
# a new node, and packages using it depend on that release. The committed
# files (packaging/debian/*.symbols) are this script's output; the package
# build (dh_makeshlibs -c4) fails when the library and the file disagree.
#   packaging/gen-symbols.sh build/lib/libcluster-resolver.so.1 \
#     core/libcluster-resolver.map libcluster-resolver1 libcluster-resolver-dev
set -eu
lib=$1 map=$2 pkg=$3 dev=$4
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
[ -n "$soname" ] || { echo "gen-symbols.sh: $lib has no SONAME" >&2; exit 1; }
nodes=$(sed -n 's/^\([A-Z][A-Z0-9_]*_[0-9][0-9.]*\) *{.*/\1/p' "$map")
[ -n "$nodes" ] || { echo "gen-symbols.sh: no version nodes in $map" >&2; exit 1; }
printf '%s %s #MINVER#\n' "$soname" "$pkg"
printf '* Build-Depends-Package: %s\n' "$dev"
for node in $nodes; do
	ver=${node##*_}
	case $ver in *.*.*) ;; *) ver=$ver.0 ;; esac
	printf ' %s@%s %s\n' "$node" "$node" "$ver"
	# Dynamic symbols defined in this node (objdump -T: "... Base NODE  sym"
	# for the default version, "(NODE)" for a hidden one).
	objdump -T "$lib" | awk -v n="$node" 'NF >= 6 && $0 !~ /\*UND\*/ && ($(NF-1) == n || $(NF-1) == "(" n ")") && $NF != n { print $NF }' |
		sort -u | while read -r sym; do
		printf ' %s@%s %s\n' "$sym" "$node" "$ver"
	done
done
