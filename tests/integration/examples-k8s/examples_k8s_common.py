"""examples_k8s_common.py - what the parts of test_examples_k8s.py share:
the source tree (SRC; tests/integration/k8s, where k8s_harness.py is, goes
on sys.path), the fixture's token (TOKEN), the manifests' folder
examples/k8s (EXAMPLES), the manifests read (load_docs) and the one
manifest of a kind (one).
"""
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('CR_TEST_SOURCE_DIR', os.path.normpath(os.path.join(HERE, '../../..')))
sys.path.insert(0, os.path.join(SRC, 'tests/integration/k8s'))
import k8s_harness  # noqa: E402

TOKEN = k8s_harness.TOKEN  # the service-account token (the fixture's)
EXAMPLES = os.path.join(SRC, 'examples/k8s')


def load_docs():
    """(file, [documents]) for every manifest, in name order."""
    out = []
    for name in sorted(os.listdir(EXAMPLES)):
        if name.endswith('.yaml'):
            with open(os.path.join(EXAMPLES, name)) as f:
                out.append((name, [d for d in yaml.safe_load_all(f) if d is not None]))
    return out


def one(docs, kind):
    found = [d for _, ds in docs for d in ds if d['kind'] == kind]
    assert len(found) == 1, '%d %s manifests' % (len(found), kind)
    return found[0]
