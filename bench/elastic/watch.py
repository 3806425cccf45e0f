#!/usr/bin/env python3
"""The hosts_file part of the watch benchmarks (bench/watch-elastic.sh).

Each round replaces the hosts file by rename, as an inventory tool would,
alternating between two memberships, and times what follows on the
CLOCK_REALTIME clock of both sides:
  watch  -- the rename to `watch --format json` printing the new generation
            (the line as this process reads it from the pipe);
  exec   -- the rename to the restarted program's first instruction (it
            prints `date +%s%N`), minus --settle: stopping the old program,
            the environment and the fork/exec included.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

cli = sys.argv[1]
rounds = int(os.environ.get("ROUNDS", "40"))
settle = float(os.environ.get("SETTLE", "0.5"))
tmp = tempfile.mkdtemp()
hosts = os.path.join(tmp, "hosts")
conf = os.path.join(tmp, "elastic.conf")
with open(conf, "w") as f:
    f.write('accelerators = ( );\nresolvers = ( { plugin = "simple"; hosts_file = "%s"; } );\n' % hosts)


def write_hosts(n):
    new = hosts + ".new"
    with open(new, "w") as f:
        for i in range(n):
            f.write("worker 127.0.0.%d:2222\n" % (i + 1))
    t = time.time_ns()
    os.rename(new, hosts)
    return t


def summary(name, ms):
    ms = sorted(ms)
    p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
    print("%-44s median %7.2f ms   p90 %7.2f ms   max %7.2f ms   (%d changes)" %
          (name, statistics.median(ms), p90, ms[-1], len(ms)))


def bench_watch():
    write_hosts(3)
    p = subprocess.Popen([cli, "-c", conf, "watch", "--format", "json"], stdout=subprocess.PIPE, text=True)
    p.stdout.readline()  # generation 1
    out = []
    for r in range(rounds):
        time.sleep(0.05)
        t0 = write_hosts(2 if r % 2 == 0 else 3)
        line = p.stdout.readline()
        t1 = time.time_ns()
        assert '"generation": %d' % (r + 2) in line, line
        out.append((t1 - t0) / 1e6)
    p.terminate()
    p.wait()
    summary("hosts_file change -> watch prints it", out)


def bench_exec():
    log = os.path.join(tmp, "starts")
    write_hosts(3)
    prog = 'date +%s%N >> "$1"; exec sleep 300'
    p = subprocess.Popen([cli, "-c", conf, "--task-type", "worker", "--task-id", "0", "exec", "--elastic",
                          "--settle", str(settle), "--", "sh", "-c", prog, "sh", log],
                         stderr=subprocess.DEVNULL)

    def starts():
        try:
            with open(log) as f:
                return [int(x) for x in f.read().split()]
        except FileNotFoundError:
            return []

    def wait_starts(n):
        deadline = time.time() + 60
        while len(starts()) < n:
            if time.time() > deadline:
                raise SystemExit("exec --elastic did not restart the program")
            time.sleep(0.002)
        return starts()[n - 1]

    wait_starts(1)
    out = []
    for r in range(rounds // 2):
        time.sleep(0.05)
        t0 = write_hosts(2 if r % 2 == 0 else 3)
        t1 = wait_starts(r + 2)
        out.append((t1 - t0) / 1e6 - settle * 1000)
    p.terminate()
    p.wait()
    summary("exec --elastic: change -> new program - settle", out)


bench_watch()
bench_exec()
