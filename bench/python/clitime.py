#!/usr/bin/python3
"""clitime.py RUNS CMD... - run CMD RUNS times (output discarded); prints
"median_wall_s median_cpu_s" (CPU: user + system of the child)."""
import os
import statistics
import subprocess
import sys
import time

runs, cmd = int(sys.argv[1]), sys.argv[2:]
wall, cpu = [], []
for _ in range(runs):
    before = os.times()
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    wall.append(time.perf_counter() - t)
    after = os.times()
    cpu.append(after.children_user - before.children_user +
               after.children_system - before.children_system)
print(statistics.median(wall), statistics.median(cpu))
