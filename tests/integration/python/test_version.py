#!/usr/bin/python3
"""The package's release is the C library's: cluster_resolver.__version__ (and
the wheel's version, read from the same _version.py) equals the top
CMakeLists.txt's project(VERSION), `cluster-resolver --version` and
cr_version(); the import stays fast."""
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyharness as ph  # noqa: E402

ph.setup()
import cluster_resolver as cr  # noqa: E402


def project_version():
    with open(os.path.join(ph.SRC, 'CMakeLists.txt')) as f:
        m = re.search(r'project\(cluster-resolver\s+VERSION\s+([0-9.]+)', f.read())
    return m.group(1)


class Version(unittest.TestCase):
    def test_one_version(self):
        want = project_version()
        self.assertRegex(want, r'^\d+\.\d+\.\d+$')
        self.assertEqual(cr.__version__, want)
        self.assertIn('__version__', cr.__all__)
        self.assertEqual(cr.library_version, want)
        p = subprocess.run([os.environ['CR_CLI'], '--version'], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(p.stdout.split()[:2], ['cluster-resolver', want])

    def test_installed_or_source(self):
        where = os.path.dirname(os.path.abspath(cr.__file__))
        if ph.INSTALLED:
            self.assertTrue(where.startswith(os.path.realpath(sys.prefix)) or
                            where.startswith(sys.prefix), where)
            self.assertNotEqual(sys.prefix, sys.base_prefix)     # a venv
        else:
            self.assertEqual(where, os.path.join(ph.SRC, 'python', 'cluster_resolver'))


if __name__ == '__main__':
    ph.main()
