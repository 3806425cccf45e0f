#!/usr/bin/python3
"""Vertex AI in the shipped chain (config/cluster-resolver.conf), through the
command line. Vertex sets CLUSTER_SPEC on every replica and, for TensorFlow,
TF_CONFIG as well: both describe the same cluster, and tfconfig (first in the
chain) answers with TF_CONFIG, which is what TensorFlow itself reads
(docs/semantics.md); vertex is not asked. With CLUSTER_SPEC alone, vertex
answers, and torch's coordinator is the primary replica. Each output exact."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["CR_TEST_SOURCE_DIR"], "tests", "common"))
import harness  # noqa: E402

CLI = os.environ["CR_CLI"]
SRC = os.environ["CR_TEST_SOURCE_DIR"]
SHIPPED = os.path.join(SRC, "config", "cluster-resolver.conf")
TMP = tempfile.mkdtemp(prefix="cr-vertex-chain.")
RESULTS = harness.Results()

ID = "d604929a6a"
P0 = [f"cmle-training-workerpool0-{ID}-0:2222"]
P1 = [f"cmle-training-workerpool1-{ID}-0:2222", f"cmle-training-workerpool1-{ID}-1:2222"]
P2 = [f"cmle-training-workerpool2-{ID}-0:2222"]
P3 = [f"cmle-training-workerpool3-{ID}-0:2222"]
# A worker replica's two variables: CLUSTER_SPEC by pool, TF_CONFIG by role
# (Vertex leaves the evaluator out of TF_CONFIG's cluster).
CLUSTER_SPEC = json.dumps({"cluster": {"workerpool0": P0, "workerpool1": P1, "workerpool2": P2,
                                       "workerpool3": P3},
                           "environment": "cloud", "task": {"type": "workerpool1", "index": 1},
                           "job": {}})
TF_CONFIG = json.dumps({"cluster": {"chief": P0, "worker": P1, "ps": P2},
                        "environment": "cloud", "task": {"type": "worker", "index": 1},
                        "job": {}})


def check(cond, name, detail):
    RESULTS.check(name, cond, detail)


def run(env, *args):
    full = harness.clean_env(TMP, extra=env)
    p = subprocess.run([CLI, "--config", SHIPPED, *args], env=full, capture_output=True,
                       text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    both = {"CLUSTER_SPEC": CLUSTER_SPEC, "TF_CONFIG": TF_CONFIG}
    rc, out, err = run(both, "resolve", "--format", "json")
    want = json.dumps({"cluster": {"chief": P0, "worker": P1, "ps": P2},
                       "task": {"type": "worker", "index": 1}, "environment": "cloud",
                       "master": P1[1], "num_accelerators": {}}) + "\n"
    check(rc == 0 and out == want and err == "", "both set: TF_CONFIG's cluster (tfconfig first)",
          f"rc={rc} err={err!r}\n got {out!r}\nwant {want!r}")
    rc, out, err = run(both, "explain")
    lines = out.splitlines()
    at = [i for i, l in enumerate(lines) if "resolver 'vertex' (plugin vertex," in l]
    verdict = lines[at[0] + 1] if len(at) == 1 and at[0] + 1 < len(lines) else ""
    check(rc == 0 and verdict == "   skipped: resolver 'tfconfig' (sufficient) answered first",
          "both set: explain says vertex was not asked", f"rc={rc} {out!r} {err!r}")

    rc, out, err = run({"CLUSTER_SPEC": CLUSTER_SPEC}, "resolve", "--format", "json")
    want = json.dumps({"cluster": {"chief": P0, "worker": P1, "ps": P2, "evaluator": P3},
                       "task": {"type": "worker", "index": 1}, "master": P1[1],
                       "num_accelerators": {}}) + "\n"
    check(rc == 0 and out == want and err == "", "CLUSTER_SPEC alone: vertex's four jobs",
          f"rc={rc} err={err!r}\n got {out!r}\nwant {want!r}")
    rc, out, err = run({"CLUSTER_SPEC": CLUSTER_SPEC}, "resolve", "--format", "torch")
    want = (f"export MASTER_ADDR='cmle-training-workerpool0-{ID}-0'\nexport MASTER_PORT='2222'\n"
            "export WORLD_SIZE='3'\nexport RANK='2'\nexport LOCAL_RANK='0'\n"
            "export LOCAL_WORLD_SIZE='1'\nexport NODE_RANK='2'\nexport GROUP_RANK='2'\n")
    check(rc == 0 and out == want and err == "", "CLUSTER_SPEC alone: torch's coordinator",
          f"rc={rc} err={err!r}\n got {out!r}\nwant {want!r}")
    rc, out, err = run({"CLUSTER_SPEC": "{\"cluster\": "}, "resolve")
    want = ("cluster-resolver: resolver 'vertex': CLUSTER_SPEC: invalid JSON at line 1, "
            "column 13 (offset 12): unexpected end of data\n")
    check(rc == 1 and out == "" and err == want, "a malformed CLUSTER_SPEC is an error",
          f"rc={rc} out={out!r}\n got {err!r}\nwant {want!r}")


if __name__ == "__main__":
    harness.ensure_hermetic()
    main()
    RESULTS.finish()
