#!/usr/bin/python3
"""inproc.py CONF RUNS - ClusterResolver(CONF).cluster_spec() in this
process, RUNS times, each with a new resolver (context, plugins, resolve,
ClusterSpec); then RUNS more calls on one resolver. Prints
"median_new_s median_reuse_s tasks"."""
import statistics
import sys
import time

import cluster_resolver as cr

conf, runs = sys.argv[1], int(sys.argv[2])
fresh, reuse = [], []
for _ in range(runs):
    t = time.perf_counter()
    r = cr.ClusterResolver(conf)
    spec = r.cluster_spec()
    fresh.append(time.perf_counter() - t)
for _ in range(runs):
    t = time.perf_counter()
    spec = r.cluster_spec()
    reuse.append(time.perf_counter() - t)
r.close()
print(statistics.median(fresh), statistics.median(reuse),
      sum(spec.num_tasks(j) for j in spec.jobs))
