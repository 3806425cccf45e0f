#!/usr/bin/python3
"""A Volcano pod is a Kubernetes pod: volcano comes before k8s (the shipped
chain's order, config/cluster-resolver.conf), so a pod of a Volcano Job is
placed from what Volcano gave it with no request to the API server. Here the
API server is a listener on 127.0.0.1 that counts connections: none may come.
The chain is the shipped one with hosts_dir pointed at the fixture ConfigMap
(tests/fixtures/volcano/etc/volcano); each output exact."""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.environ["CR_TEST_SOURCE_DIR"], "tests", "common"))
import harness  # noqa: E402

CLI = os.environ["CR_CLI"]
SRC = os.environ["CR_TEST_SOURCE_DIR"]
FIX = os.path.join(SRC, "tests", "fixtures", "volcano", "etc", "volcano")
TMP = tempfile.mkdtemp(prefix="cr-volcano-chain.")
RESULTS = harness.Results()
connections = 0




def listen():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)

    def accept():
        global connections
        while True:
            c, _ = s.accept()
            connections += 1
            c.close()
    threading.Thread(target=accept, daemon=True).start()
    return s.getsockname()[1]


def shipped_with_hosts_dir():
    with open(os.path.join(SRC, "config", "cluster-resolver.conf")) as f:
        text = f.read()
    line = '{ plugin = "volcano";   policy = "sufficient"; },'
    assert line in text
    text = text.replace(line, '{ plugin = "volcano"; policy = "sufficient"; hosts_dir = "%s"; },'
                        % FIX)
    path = os.path.join(TMP, "shipped.conf")
    with open(path, "w") as f:
        f.write(text)
    return path


def check(cond, name, detail):
    RESULTS.check(name, cond, detail)


def run(conf, env, *args):
    full = harness.clean_env(TMP, extra=env)
    p = subprocess.run([CLI, "--config", conf, *args], env=full, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    port = listen()
    conf = shipped_with_hosts_dir()
    pod = {"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": str(port),
           "HOSTNAME": "myjob-worker-2", "VC_TASK_INDEX": "2", "VK_TASK_INDEX": "2",
           "VC_WORKER_HOSTS": "myjob-worker-0.myjob,myjob-worker-1.myjob,myjob-worker-2.myjob",
           "VC_WORKER_NUM": "3"}
    rc, out, err = run(conf, pod, "resolve", "--format", "json")
    w = [f"myjob-worker-{i}.myjob:2222" for i in range(3)]
    want = json.dumps({"cluster": {"master": ["myjob-master-0.myjob:2222"],
                                   "param-server": ["myjob-param-server-0.myjob:2222"],
                                   "worker": w},
                       "task": {"type": "worker", "index": 2}, "master": w[2],
                       "num_accelerators": {}}) + "\n"
    check(rc == 0 and out == want and err == "", "a Volcano pod: volcano's cluster",
          f"rc={rc} err={err!r}\n got {out!r}\nwant {want!r}")
    rc, out, err = run(conf, pod, "explain")
    m = re.search(r"resolver 'k8s' \(plugin k8s,[^\n]*\n([^\n]*)", out)
    check(rc == 0 and m is not None
          and m.group(1) == "   skipped: resolver 'volcano' (sufficient) answered first",
          "explain: k8s not asked", f"rc={rc} {out!r} {err!r}")
    check(connections == 0, "no connection to the API server", f"{connections} connections")
    # The shipped file as it is: outside a Volcano pod volcano declines first.
    rc, out, err = run(os.path.join(SRC, "config", "cluster-resolver.conf"), {}, "explain")
    m = re.search(r"resolver 'volcano' \(plugin volcano,[^\n]*\n([^\n]*)", out)
    want = ("   declined: not in a Volcano job: VC_TASK_INDEX and VK_TASK_INDEX are not set "
            "and /etc/volcano has no <task>.host file")
    check(rc == 0 and m is not None and m.group(1) == want, "shipped config: volcano declines",
          f"rc={rc} {m.group(1) if m else out!r}")


if __name__ == "__main__":
    harness.ensure_hermetic()
    main()
    RESULTS.finish()
