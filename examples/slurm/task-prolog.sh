#!/bin/sh
# task-prolog.sh - a Slurm TaskProlog that puts the cluster into the
# environment of each task whose job asks for it, for sites that would
# rather not load the SPANK plugin (docs/slurm.md, "TaskProlog").
#
#   slurm.conf:  TaskProlog=/etc/slurm/task-prolog.sh
#   a job:       CLUSTER_RESOLVER_FORMATS=torch,tf_config srun -N2 -n4 python3 train.py
#
# slurmstepd runs it as the job's user, with the task's environment, just
# before the program; every "export NAME=VALUE" line it prints goes into the
# task's environment, VALUE taken as it is (no shell quoting). Jobs that do
# not set CLUSTER_RESOLVER_FORMATS are left alone. A failed resolution fails
# the task, with the error on the TaskProlog's stderr (slurmd's log).
formats=${CLUSTER_RESOLVER_FORMATS:-}
[ -n "$formats" ] || exit 0
# What `exec` would give the program, less what the task already has.
new=$(cluster-resolver exec --format "$formats" -- env) || exit 1
printf '%s\n' "$new" | awk '
	BEGIN { for (k in ENVIRON) old[k "=" ENVIRON[k]] = 1 }
	/^[A-Za-z_][A-Za-z0-9_]*=/ && !($0 in old) { print "export " $0 }'
