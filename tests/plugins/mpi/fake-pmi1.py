#!/usr/bin/env python3
"""fake-pmi1.py MODE CLI ARGS... - run CLI as rank 0 of 2 under a fake PMI-1
server (the wire protocol of MPICH's Hydra) on a socketpair (PMI_FD) or,
with MODE port, on a 127.0.0.1 port (PMI_PORT + PMI_ID). The server checks
every request it gets against what a correct client sends and answers
rightly, or wrongly as MODE says: short (closes mid-answer), wrongcmd (the
wrong cmd= to init), silence (no barrier_out), bigvalue (a 64 KiB value),
exec (no finalize expected; then the program's own line on the same fd).
Prints the CLI's stdout and stderr; exits with the CLI's status, or 3
with a message when the client's requests were not the expected ones."""
import os
import socket
import subprocess
import sys

mode, argv = sys.argv[1], sys.argv[2:]
KVS = "kvs_4242_0"
script = [
    ("cmd=init pmi_version=1 pmi_subversion=1", "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"),
    ("cmd=get_maxes", "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024"),
    ("cmd=get_my_kvsname", "cmd=my_kvsname kvsname=" + KVS),
    ("cmd=put kvsname=%s key=crhost0 value=0/node0" % KVS, "cmd=put_result rc=0 msg=success"),
    ("cmd=barrier_in", "cmd=barrier_out"),
    ("cmd=get kvsname=%s key=crhost0" % KVS, "cmd=get_result rc=0 msg=success value=0/node0"),
    ("cmd=get kvsname=%s key=crhost1" % KVS, "cmd=get_result rc=0 msg=success value=0/node1"),
    ("cmd=finalize", "cmd=finalize_ack"),
]
if mode == "exec":
    script[-1] = ("cmd=program-was-here", None)

env = dict(os.environ, PMI_RANK="0", PMI_SIZE="2", MPI_LOCALRANKID="0", MPI_LOCALNRANKS="1",
           MPIR_CVAR_CH3_INTERFACE_HOSTNAME="node0")
if mode == "port":
    lsn = socket.socket()
    lsn.bind(("127.0.0.1", 0))
    lsn.listen(1)
    env.update(PMI_PORT="127.0.0.1:%d" % lsn.getsockname()[1], PMI_ID="0")
    for k in ("PMI_RANK", "PMI_SIZE", "PMI_FD"):
        env.pop(k, None)
    child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    conn, _ = lsn.accept()
    script.insert(0, ("cmd=initack pmiid=0", "cmd=initack\ncmd=set size=2\ncmd=set rank=0\ncmd=set debug=0"))
else:
    conn, theirs = socket.socketpair()
    os.dup2(theirs.fileno(), 9)  # a fixed number, for exact messages
    theirs.close()
    env["PMI_FD"] = "9"
    child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             pass_fds=[9])
    os.close(9)
conn.settimeout(60)
f = conn.makefile("rb")
problem = None
for want, answer in script:
    line = f.readline().decode().rstrip("\n")
    if line == "" and want == "cmd=program-was-here":
        problem = "the program did not write on PMI_FD"
        break
    if line != want:
        problem = "request %r, expected %r" % (line, want)
        break
    if mode == "short" and want.startswith("cmd=init "):
        conn.sendall(b"cmd=response_to")
        break
    if mode == "wrongcmd" and want.startswith("cmd=init "):
        conn.sendall(b"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n")
        break
    if mode == "silence" and want == "cmd=barrier_in":
        break
    if mode == "bigvalue" and want.endswith("key=crhost1"):
        try:  # the client stops reading part way
            conn.sendall(("cmd=get_result rc=0 msg=success value=" + "x" * 65536 + "\n").encode())
        except OSError:
            pass
        break
    if answer is not None:
        conn.sendall((answer + "\n").encode())
if mode != "silence":
    f.close()
    conn.close()
out, err = child.communicate(timeout=120)
sys.stdout.write(out.decode())
sys.stderr.write(err.decode())
if problem:
    sys.stderr.write("fake-pmi1: " + problem + "\n")
    sys.exit(3)
sys.exit(child.returncode)
