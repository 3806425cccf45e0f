"""_version - the release of cluster-resolver this package belongs to.

The one place the Python side states it: pyproject.toml reads it for the
wheel's version (setuptools' `attr`, parsed without importing the package),
`cluster_resolver.__version__` is it, and configuring the build fails when it
is not the top CMakeLists.txt's project(VERSION), which is what
`cluster-resolver --version` and cr_version() report (ctest python-version
checks those too)."""
__version__ = '1.3.0'
