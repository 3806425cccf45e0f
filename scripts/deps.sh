#!/bin/sh
# deps.sh [build|test|package] - install the Debian packages cluster-resolver needs.
#   build: compiler, CMake and the libraries (GLib, json-c, libcurl, libconfig;
#          libyaml for k8s, libxml2 for aws, OpenSSL's libcrypto for gcp's RS256,
#          libpmix-dev's headers for mpi, which opens libpmix2 at run time)
#   test:  build + everything the test suite and benchmarks run for real
#          (Slurm + munge, libslurm-dev for the SPANK plugin, protoc, valgrind,
#          clang/libFuzzer, abigail, the AWS CLI v2, zsh for the completion test,
#          Debian's botocore/boto3, google-api-python-client, google-auth,
#          stress-ng for scripts/stress-test.sh (the suite on a busy machine), and
#          the launchers the formats and the Python package are checked
#          against: PyTorch (torchrun, torch.distributed), Open MPI, MPICH
#          and mpi4py; libmpich-dev for the MPI program of the mpi tests;
#          Grid Engine's master, exec and client for sge-real, which starts
#          a cell of its own: debconf is told not to configure one)
# Installs only what is missing; needs root (or sudo) the first time.
#   package: build + what scripts/package-check.sh runs (dpkg-buildpackage with
#          debhelper, lintian, fakeroot, rpmbuild); `test` includes them, as the
#          suite runs package-check.sh.
set -eu
what=${1:-build}

build_pkgs="cmake make gcc pkg-config libglib2.0-dev libjson-c-dev libcurl4-openssl-dev
  libconfig-dev libyaml-dev libxml2-dev libssl-dev libpmix-dev ca-certificates"
test_pkgs="$build_pkgs clang libclang-rt-14-dev valgrind protobuf-compiler python3-protobuf iproute2
  util-linux openssl curl python3 munge slurmctld slurmd slurm-client libslurm-dev clustershell
  python3-kubernetes python3-torch abigail-tools man-db hyperfine time clang-format
  awscli python3-boto3 python3-botocore python3-googleapi python3-google-auth
  zsh openmpi-bin mpich libmpich-dev python3-mpi4py stress-ng
  gridengine-master gridengine-exec gridengine-client
  python3-setuptools python3-wheel python3-build python3-venv python3-pip"

package_tools="dpkg-dev debhelper fakeroot lintian rpm git iproute2 util-linux libslurm-dev"
case $what in
build) pkgs=$build_pkgs ;;
test) pkgs="$test_pkgs $package_tools" ;;
package) pkgs="$build_pkgs $package_tools" ;;
*) echo "usage: $0 [build|test|package]" >&2; exit 2 ;;
esac

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "deps.sh: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
case $missing in *gridengine*)
	# Grid Engine's packages ask for a cell (its master host, its name) at
	# install: no cell (sge-real makes its own under the build tree), so
	# the postinst neither asks nor creates one; invoke-rc.d's start of the
	# daemons then finds nothing to run (and policy-rc.d blocks it in a
	# container).
	for p in gridengine-common gridengine-client gridengine-master gridengine-exec; do
		printf '%s shared/gridengineconfig boolean false\n' "$p"
		printf '%s shared/gridenginemaster string localhost\n' "$p"
		printf '%s shared/gridenginecell string default\n' "$p"
	done | $SUDO debconf-set-selections
	;;
esac
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
