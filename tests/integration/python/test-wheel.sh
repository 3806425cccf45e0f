#!/bin/sh
# python-wheel: `python3 -m build --no-isolation` makes the sdist and the
# wheel of python/ offline (Debian's setuptools; nothing fetched, in the
# loopback-only namespace); the wheel holds the Python files and nothing
# else; it is installed with pip --no-index into a fresh `python3 -m venv`
# (without the system's site-packages: the package and its tests need only
# the standard library), and the Python tests run from that venv against the
# build tree's library (CLUSTER_RESOLVER_LIBRARY) with the installed package,
# not python/. Last line: "N passed, N failed".
set -eu
src=${CR_TEST_SOURCE_DIR:?run through ctest}
: "${CLUSTER_RESOLVER_LIBRARY:?run through ctest}"
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec sh "$src/scripts/hermetic.sh" sh "$0" "$@"
fi
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() { # check WHAT COMMAND...: run it, count it
	what=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		passed=$((passed + 1))
		echo "ok: $what"
	else
		failed=$((failed + 1))
		echo "FAIL: $what"
		sed 's/^/  | /' "$tmp/out"
	fi
}

version=$(sed -n "s/^__version__ = '\([^']*\)'$/\1/p" "$src/python/cluster_resolver/_version.py")
# A copy: setuptools writes build/ and *.egg-info next to pyproject.toml.
mkdir "$tmp/src"
(cd "$src/python" && tar cf - --exclude=__pycache__ --exclude='*.egg-info' --exclude=build \
	--exclude=dist .) | (cd "$tmp/src" && tar xf -)
check "python3 -m build --no-isolation: sdist and wheel $version" \
	$py -m build --no-isolation --outdir "$tmp/dist" "$tmp/src"
wheel=$tmp/dist/cluster_resolver-$version-py3-none-any.whl
check "the sdist and the wheel are there" sh -c 'ls "$1"/cluster[-_]resolver-"$2".tar.gz "$3"' \
	sh "$tmp/dist" "$version" "$wheel"
check "the wheel holds the package's Python files and its metadata only" $py - "$wheel" "$src/python" "$version" <<'PYEOF'
import os, sys, zipfile
wheel, src, version = sys.argv[1:]
names = sorted(zipfile.ZipFile(wheel).namelist())
want = sorted(['cluster_resolver/' + f for f in os.listdir(os.path.join(src, 'cluster_resolver'))
               if f.endswith('.py')] + ['cluster_resolver_spark.py'])
info = 'cluster_resolver-%s.dist-info/' % version
got = [n for n in names if not n.startswith(info)]
assert got == want, (got, want)
meta = zipfile.ZipFile(wheel).read(info + 'METADATA').decode()
assert 'Version: %s\n' % version in meta and 'Name: cluster-resolver\n' in meta, meta
PYEOF
check "python3 -m venv (fresh, no system site-packages)" $py -m venv "$tmp/venv"
vpy=$tmp/venv/bin/python
check "pip install --no-index the wheel into the venv" \
	"$vpy" -m pip install --no-index --no-deps --disable-pip-version-check "$wheel"
check "the venv imports the installed package, version $version" sh -c '
	cd "$1" && "$2" -c "import cluster_resolver as c, sys
assert c.__file__.startswith(sys.prefix), c.__file__
assert (c.__version__, c.library_version) == (sys.argv[1], sys.argv[1]), c.__version__
import cluster_resolver_spark, cluster_resolver.spark
assert cluster_resolver_spark is cluster_resolver.spark" "$3"' sh "$tmp" "$vpy" "$version"
for t in test_version.py test_cluster_spec.py test_resolvers.py test_resolvers_env.py test_k8s.py test_watch.py; do
	check "$t from the venv" sh -c '
		cd "$1" && CR_TEST_PYTHON_INSTALLED=1 "$2" "$3" >"$1/log.txt" 2>&1
		rc=$?; tail -n 1 "$1/log.txt"; [ $rc = 0 ] || { cat "$1/log.txt"; exit 1; }
		tail -n 1 "$1/log.txt" | grep -Eq "^[1-9][0-9]* passed, 0 failed, 0 skipped$"' \
		sh "$tmp" "$vpy" "$src/tests/integration/python/$t"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
