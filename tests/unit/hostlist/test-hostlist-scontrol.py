#!/usr/bin/python3
"""`cluster-resolver hostlist expand` against `scontrol show hostnames`.

Where the two agree, the outputs must be identical, name for name. Where
scontrol is wrong (docs/slurm.md lists each case), our exact answer is
asserted and scontrol's is shown as a comment. scontrol needs only a
parseable slurm.conf, no daemon; SLURM_CONF is always exported (without it a
Slurm client goes looking for its controller in DNS), and the test runs in a
loopback-only namespace.
"""
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get("CR_TEST_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
if os.environ.get("CR_HERMETIC") != "1":
    hermetic = os.path.join(SRC, "scripts", "hermetic.sh")
    os.execv(hermetic, [hermetic, sys.executable, os.path.abspath(__file__)])
if shutil.which("scontrol") is None:
    print("1..0 # SKIP scontrol not installed (Debian: slurm-client)")
    sys.exit(77)

CLI = os.environ["CR_CLI"]
tmp = tempfile.mkdtemp(prefix="cr-scontrol.")
conf = os.path.join(tmp, "slurm.conf")
with open(conf, "w") as f:
    f.write("ClusterName=x\nSlurmctldHost=localhost\nNodeName=n1\nAuthType=auth/none\n")
env = dict(os.environ, SLURM_CONF=conf)

# Both must give exactly the same names.
AGREE = [
    "", "n1", "a,", "n1,n1", "n[1-3,2]", "n[2,1]", "x[0]", "n[00-02]", "n[0-2]",
    "n[01-3]", "n[1-010]", "n[098-101]", "n[009-1000]", "rack[1-2]-n[01-02]",
    "a[1-2]b[3-4]", "n[1-2][3-4]", "n[1-2]x[1-2]", "r[1,3]n[1-2]", "a b",
    "node[1-2],gpu[01-02],login", "t02n[13,41,43]", "n[0-65535]",
    "n[1-50000,50001-100000]", "host-[001-128]",
]
# Both must refuse (scontrol says "Invalid hostlist", and exits 0).
# A bad item after good ones prints no name either (ours checks the whole
# expression before streaming the first name).
REFUSE = ["n[3-1]", "n[]", "n[1,,2]", "n[-1]", "n[1-2-3]", "n[a-b]", "n[[1]]", "n[1-3/2]",
          "n[1-3],m[3-1]", "n[1-50000],m[a]"]
# scontrol gets these wrong: (expression, our exact stdout or None for an error,
# our exact stderr).
OURS = [
    ("n[1-2", None, "cluster-resolver: invalid hostlist \"n[1-2\": unterminated '[' at position 2\n"),
    ("n]", None, "cluster-resolver: invalid hostlist \"n]\": unexpected ']' at position 2\n"),
    ("n[1-3]-ib", "n1-ib\nn2-ib\nn3-ib\n", ""),
    ("gpu-[1-2]x", "gpu-1x\ngpu-2x\n", ""),
    ("rack[1-2]-n[1-2]-ib", "rack1-n1-ib\nrack1-n2-ib\nrack2-n1-ib\nrack2-n2-ib\n", ""),
    ("n[ 1-2]", None, "cluster-resolver: invalid hostlist \"n[ 1-2]\": expected a digit, found ' ' at position 3\n"),
    ("n[+1]", None, "cluster-resolver: invalid hostlist \"n[+1]\": expected a digit, found '+' at position 3\n"),
    ("a,,b", None, "cluster-resolver: invalid hostlist \"a,,b\": empty host name at position 3\n"),
    (",a", None, "cluster-resolver: invalid hostlist \",a\": empty host name at position 1\n"),
]

count = 0
failures = 0


def ok(cond, name, detail=""):
    global count, failures
    count += 1
    print(f"{'ok' if cond else 'not ok'} {count} {name}")
    if not cond:
        failures += 1
        for line in str(detail).splitlines()[:12]:
            print(f"# {line}")


def ours(expr):
    p = subprocess.run([CLI, "hostlist", "expand", expr], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def scontrol(expr):
    p = subprocess.run(["scontrol", "show", "hostnames", expr], capture_output=True, text=True,
                       env=env)
    return p.returncode, p.stdout, p.stderr


for expr in AGREE:
    o, s = ours(expr), scontrol(expr)
    ok(o[0] == 0 and s[2] == "" and o[1] == s[1], f"same as scontrol: {expr!r}",
       f"ours rc={o[0]} {o[1][:200]!r} {o[2]!r}\nscontrol {s[1][:200]!r} {s[2]!r}")
for expr in REFUSE:
    o, s = ours(expr), scontrol(expr)
    ok(o[0] == 2 and o[1] == "" and o[2].startswith(f'cluster-resolver: invalid hostlist "{expr}": ')
       and "Invalid hostlist" in s[2], f"both refuse: {expr!r}", f"ours {o!r}\nscontrol {s!r}")
for expr, out, err in OURS:
    o, s = ours(expr), scontrol(expr)
    print(f"# scontrol show hostnames {expr!r}: rc={s[0]} stdout={s[1][:80]!r} stderr={s[2].strip()[:80]!r}")
    want = (0 if out is not None else 2, out or "", err)
    ok(o == want, f"scontrol differs, ours is right: {expr!r}", f"got  {o!r}\nwant {want!r}")
# A single range above 65,536 hosts: scontrol refuses, we expand it.
o = ours("n[0-65536]")
ok(o[0] == 0 and o[1].count("\n") == 65537 and o[1].endswith("n65535\nn65536\n"),
   "n[0-65536]: 65,537 names (scontrol: Too many hosts in range)", o[2])

shutil.rmtree(tmp)
print(f"1..{count}")
sys.exit(1 if failures else 0)
