#!/bin/sh
# package-check.sh [--deb-only|--rpm-only|--user-only] - build the
# Debian and RPM packages from the working tree and try them as an admin and
# a plugin author would; install into ~/.local as a user without root.
#
#   1. Stages the tree (git's tracked and unignored files) in a scratch
#      directory, with packaging/debian/ copied to debian/ at its root
#      (where dpkg-buildpackage wants it; the tree keeps it under packaging/).
#   2. dpkg-buildpackage -us -uc -b (symbols checked: dh_makeshlibs -c4),
#      then lintian on the result: no errors and no warnings.
#   3. Installs the .debs into a fresh root: each is extracted (dpkg-deb -x)
#      into ROOT, and ROOT/usr and ROOT/etc are overlaid on /usr and /etc in
#      a private mount namespace (unshare -m, overlayfs with a throw-away
#      upper layer), inside the loopback-only network namespace of
#      hermetic.sh. The installed files sit at their real paths there, so the
#      installed CLI finds its library, plugins and /etc config as on a
#      machine with the packages installed, and nothing outside the scratch
#      directory changes (the machine's own /usr and /etc are untouched).
#   4. Runs the packages' autopkgtests (debian/tests: cli-static, the
#      installed CLI on static configs and the default one; spank-plugin; sdk-template, the
#      plugin template built, tested and installed against the installed SDK;
#      python-import, the installed Python package on the installed library).
#   5. rpmbuild -bb packaging/rpm/cluster-resolver.spec (--nodeps: Debian's
#      rpm database has none of the BuildRequires), then checks each RPM's
#      file list.
#   6. A user without root (nobody, HOME in the scratch directory) builds
#      with -DCMAKE_INSTALL_PREFIX=~/.local, installs, and runs
#      ~/.local/bin/cluster-resolver with no environment help: it finds its
#      library (RPATH), its plugins and ~/.local/etc/cluster-resolver; then
#      builds the installed template against ~/.local, whose cmake --install
#      puts the plugin where that CLI lists it.
# Needs root (the private mounts, the switch to nobody) and what
# `scripts/deps.sh package` installs (it is run first).
# About 2 minutes on 2 cores (three builds); the suite runs it as the ctest
# test package-check (normal build only, label package-build).
set -eu
# Nothing of a build tree (the suite's plugin path, a config) leaks in.
unset CLUSTER_RESOLVER_PLUGIN_PATH CLUSTER_RESOLVER_CONFIG
src=$(cd "$(dirname "$0")/.." && pwd)
deb=1 rpm=1 user=1
for a in "$@"; do
	case $a in
	--deb-only) rpm=0 user=0 ;;
	--rpm-only) deb=0 user=0 ;;
	--user-only) deb=0 rpm=0 ;;
	*) echo "usage: $0 [--deb-only|--rpm-only|--user-only]" >&2; exit 2 ;;
	esac
done
fail() { echo "package-check: FAIL: $*" >&2; exit 1; }
step() { echo "package-check: $*"; }
"$src/scripts/deps.sh" package || fail "scripts/deps.sh package"
for t in dpkg-buildpackage dh lintian fakeroot rpmbuild git; do
	command -v "$t" >/dev/null || fail "$t is not installed (scripts/deps.sh package)"
done
version=$(sed -n 's/^project(cluster-resolver VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$version" ] || fail "no project version in CMakeLists.txt"
work=$(mktemp -d "${TMPDIR:-/tmp}/cr-package-check.XXXXXX")
trap '[ -n "${KEEP:-}" ] && echo "package-check: kept $work" || rm -rf "$work"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)

# 1. The staged source tree.
stage="$work/cluster-resolver-$version"
mkdir -p "$stage"
# shellcheck disable=SC2016
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - -cf -) | tar -xf - -C "$stage"
[ ! -e "$stage/debian" ] || fail "the tree has a debian/ of its own"

if [ "$deb" = 1 ]; then
	# 2. Debian packages and lintian.
	deb_version=$(dpkg-parsechangelog -l "$src/packaging/debian/changelog" -S Version)
	[ "$deb_version" = "$version" ] || fail "packaging/debian/changelog is at $deb_version, the project at $version"
	cp -r "$stage" "$work/debsrc"
	cp -r "$src/packaging/debian" "$work/debsrc/debian"
	step "dpkg-buildpackage -us -uc -b"
	(cd "$work/debsrc" && DEB_BUILD_OPTIONS="parallel=$jobs" \
		dpkg-buildpackage -us -uc -b) >"$work/deb.log" 2>&1 ||
		{ tail -n 60 "$work/deb.log"; fail "dpkg-buildpackage (log above)"; }
	changes=$(ls "$work"/cluster-resolver_"$version"_*.changes)
	for p in libcluster-resolver1 libcluster-resolver-dev cluster-resolver cluster-resolver-plugins \
		cluster-resolver-k8s cluster-resolver-cloud cluster-resolver-slurm cluster-resolver-mpi libcr-testhost1 cr-testhost \
		python3-cluster-resolver; do
		ls "$work/${p}_${version}_"*.deb >/dev/null 2>&1 || fail "no $p .deb"
	done
	step "lintian"
	lintian --fail-on error,warning \
		"$changes" >"$work/lintian.log" 2>&1 || { cat "$work/lintian.log"; fail "lintian"; }
	cat "$work/lintian.log"

	# Contents of the split, as a reviewer would check them.
	has() {
		dpkg-deb -c "$work/${1}_${version}_"*.deb >"$work/contents" || fail "dpkg-deb -c $1"
		grep -q -- "$2" "$work/contents" || fail "$1 lacks $2"
	}
	has libcluster-resolver1 '/usr/lib/[^/]*/libcluster-resolver.so.1 -> '
	has libcluster-resolver1 '/cluster-resolver/libcr-http.so$'
	has cluster-resolver-k8s '/resolvers/k8s.so$'
	has cluster-resolver-mpi '/resolvers/mpi.so$'
	has cluster-resolver-cloud '/resolvers/aws.so$'
	has cluster-resolver-plugins '/accelerators/nvidia.so$'
	has cluster-resolver '/etc/cluster-resolver/cluster-resolver.conf$'
	has cluster-resolver '/usr/share/doc/cluster-resolver/examples/k8s.conf$'
	has cr-testhost '/usr/share/man/man1/cr-testhost.1.gz$'
	has cluster-resolver-slurm '/usr/lib/[^/]*/slurm-wlm/spank_cluster_resolver.so$'
	has cluster-resolver '/usr/share/doc/cluster-resolver/examples/slurm/train.sbatch$'
	has cluster-resolver '/usr/share/doc/cluster-resolver/examples/k8s/indexed-job.yaml$'
	has libcluster-resolver-dev '/usr/share/cluster-resolver/plugin-template/Makefile$'
	has libcluster-resolver-dev '/cmake/ClusterResolver/ClusterResolverConfig.cmake$'
	has python3-cluster-resolver '/usr/lib/python3/dist-packages/cluster_resolver/__init__.py$'
	has python3-cluster-resolver '/usr/lib/python3/dist-packages/cluster_resolver/torch.py$'
	dpkg-deb -f "$work/cluster-resolver-k8s_${version}_"*.deb Depends | grep -q 'libyaml' ||
		fail "cluster-resolver-k8s does not depend on libyaml"
	dpkg-deb -f "$work/cluster-resolver-cloud_${version}_"*.deb Depends | grep -q 'libxml2' ||
		fail "cluster-resolver-cloud does not depend on libxml2"
	if dpkg-deb -f "$work/cluster-resolver-plugins_${version}_"*.deb Depends | grep -q 'libyaml\|libxml2\|libssl'; then
		fail "cluster-resolver-plugins pulls a heavy dependency"
	fi

	# 3 + 4. Install and run the autopkgtests.
	tests="$src/packaging/debian/tests"
	root="$work/root"
	mkdir -p "$root"
	for f in "$work"/*.deb; do
		case $f in *-dbgsym_*) ;; *) dpkg-deb -x "$f" "$root" ;; esac
	done
	mkdir -p "$work/ov/usr.up" "$work/ov/usr.work" "$work/ov/etc.up" "$work/ov/etc.work"
	step "autopkgtests in a fresh root ($root over /usr and /etc, private mounts)"
	# shellcheck disable=SC2016
	"$src/scripts/hermetic.sh" unshare -m -- sh -eu -c '
		w=$1 root=$2 tests=$3
		mount --make-rprivate /
		mount -t overlay overlay -o "lowerdir=$root/usr:/usr,upperdir=$w/ov/usr.up,workdir=$w/ov/usr.work" /usr
		mount -t overlay overlay -o "lowerdir=$root/etc:/etc,upperdir=$w/ov/etc.up,workdir=$w/ov/etc.work" /etc
		for t in cli-static sdk-template spank-plugin python-import; do
			AUTOPKGTEST_TMP=$(mktemp -d "$w/t.XXXXXX") "$tests/$t"
		done' sh "$work" "$root" "$tests" || fail "autopkgtests"
fi

if [ "$rpm" = 1 ]; then
	# 5. RPM packages.
	top="$work/rpm"
	mkdir -p "$top/SOURCES"
	tar -C "$work" -czf "$top/SOURCES/cluster-resolver-$version.tar.gz" "cluster-resolver-$version"
	spec_version=$(sed -n 's/^Version: *//p' "$src/packaging/rpm/cluster-resolver.spec")
	[ "$spec_version" = "$version" ] || fail "the spec's Version $spec_version is not $version"
	step "rpmbuild -bb"
	rpmbuild -bb --nodeps --define "_topdir $top" --define "debug_package %{nil}" \
		--define "_smp_mflags -j$jobs" "$src/packaging/rpm/cluster-resolver.spec" \
		>"$work/rpm.log" 2>&1 || { tail -n 60 "$work/rpm.log"; fail "rpmbuild (log above)"; }
	rpms="$top/RPMS/$(rpm --eval '%{_arch}')"
	rhas() {
		f=$(ls "$rpms/$1-$version-1"*.rpm 2>/dev/null) || fail "no $1 RPM"
		rpm -qlp "$f" 2>/dev/null | grep -q -- "$2" || fail "$1 RPM lacks $2"
	}
	rhas cluster-resolver '^/usr/bin/cluster-resolver$'
	rhas cluster-resolver '^/etc/cluster-resolver/cluster-resolver.conf$'
	rhas cluster-resolver '^/usr/share/bash-completion/completions/cluster-resolver$'
	rhas cluster-resolver-libs '/libcluster-resolver.so.1$'
	rhas cluster-resolver-plugins '/resolvers/simple.so$'
	rhas cluster-resolver-k8s '/resolvers/k8s.so$'
	rhas cluster-resolver-mpi '/resolvers/mpi.so$'
	rhas cluster-resolver-cloud '/resolvers/gce.so$'
	rhas cluster-resolver-testhost '^/usr/bin/cr-testhost$'
	rhas cluster-resolver-slurm '/slurm/spank_cluster_resolver.so$'
	rhas cluster-resolver-devel '/plugin-template/CMakeLists.txt$'
	f=$(ls "$top"/RPMS/noarch/python3-cluster-resolver-"$version"-1*.rpm 2>/dev/null) ||
		fail "no python3-cluster-resolver RPM"
	rpm -qlp "$f" 2>/dev/null | grep -q '/site-packages/cluster_resolver/__init__.py$' ||
		fail "python3-cluster-resolver RPM lacks cluster_resolver/__init__.py"
	rpm -qp --requires "$(ls "$rpms"/cluster-resolver-k8s-"$version"-1*.rpm)" 2>/dev/null |
		grep -q '^libyaml' || fail "the k8s RPM does not require libyaml"
	ls "$rpms"
fi
if [ "$user" = 1 ]; then
	# 6. ~/.local, as a user without root.
	[ "$(id -u)" = 0 ] || fail "the ~/.local check switches to nobody: run as root (or --deb-only/--rpm-only)"
	home="$work/home"
	mkdir -p "$home"
	chmod 755 "$work"
	cp -r "$stage" "$home/src"
	chown -R nobody:nogroup "$home"
	step "\$HOME/.local install as nobody (HOME=$home)"
	# shellcheck disable=SC2016
	"$src/scripts/hermetic.sh" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env -i PATH=/usr/bin:/bin HOME="$home" LC_ALL=C.UTF-8 sh -eu -c '
		fail() { echo "package-check: FAIL: $*" >&2; exit 1; }
		cd "$HOME/src"
		cmake -S . -B build -DCMAKE_INSTALL_PREFIX="$HOME/.local" -DBUILD_TESTING=OFF >"$HOME/user.log" 2>&1 &&
			cmake --build build -j"$1" >>"$HOME/user.log" 2>&1 &&
			cmake --install build >>"$HOME/user.log" 2>&1 || { tail -n 40 "$HOME/user.log"; fail "~/.local build or install"; }
		[ -f "$HOME/.local/etc/cluster-resolver/cluster-resolver.conf" ] || fail "no ~/.local/etc/cluster-resolver/cluster-resolver.conf"
		export PATH="$HOME/.local/bin:$PATH"
		got=$(cluster-resolver check-config | head -n 1)
		[ "$got" = "$HOME/.local/etc/cluster-resolver/cluster-resolver.conf: ok" ] || fail "check-config: [$got]"
		got=$(cluster-resolver resolve)
		[ "$got" = "{\"cluster\": {\"worker\": [\"localhost:2222\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}" ] ||
			fail "resolve with the ~/.local default config: [$got]"
		cluster-resolver plugins | grep -q " $HOME/.local/lib/cluster-resolver/resolvers/k8s.so\$" ||
			fail "plugins: k8s.so not from ~/.local"
		cp -r "$HOME/.local/share/cluster-resolver/plugin-template" "$HOME/tpl"
		cd "$HOME/tpl"
		cmake -S . -B build >"$HOME/tpl.log" 2>&1 && cmake --build build >>"$HOME/tpl.log" 2>&1 &&
			ctest --test-dir build >>"$HOME/tpl.log" 2>&1 && cmake --install build >>"$HOME/tpl.log" 2>&1 ||
			{ tail -n 40 "$HOME/tpl.log"; fail "the template against ~/.local"; }
		cluster-resolver plugins | grep -q "^example .* $HOME/.local/lib/cluster-resolver/resolvers/example.so\$" ||
			fail "plugins does not list the installed example.so"
		echo "ok: ~/.local"' sh "$jobs" || fail "\$HOME/.local install"
fi
step "ok"
