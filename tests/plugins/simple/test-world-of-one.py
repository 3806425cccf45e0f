#!/usr/bin/python3
"""No silent world of one: the local fallback (simple with refuse_if_launched)
refuses when a launcher's or scheduler's size variable says this process is
one of several and no resolver before it placed the process; it answers the
local worker when nothing says so (a value of 1, a value that is not a
number, a size variable without the variable that must come with it).
Each case is exact: the variable, the count, the launcher and the plugin
that would read it (docs/launchers.md)."""
import os
import subprocess
import sys
import tempfile

CLI = os.environ["CR_CLI"]
SRC = os.environ["CR_TEST_SOURCE_DIR"]
PLUGINS = os.environ["CLUSTER_RESOLVER_PLUGIN_PATH"]
TMP = tempfile.mkdtemp(prefix="cr-world-of-one.")
failures = 0
count = 0

LOCAL = ('resolvers = ( { plugin = "simple"; name = "local"; policy = "sufficient"; '
         'cluster = { worker = [ "localhost:2222" ]; }; task_type = "worker"; task_id = 0; '
         'refuse_if_launched = true; } );\n')
LOCAL_WORKER = ('{"cluster": {"worker": ["localhost:2222"]}, "task": {"type": "worker", "index": 0}, '
                '"master": "", "num_accelerators": {}}\n')

# (variable, what it counts, who sets it, the plugin that reads it or None,
#  the variable that must come with it or None)
ROWS = [
    ("WORLD_SIZE", "processes", "torchrun or another torch env:// launcher", "torch-env", None),
    ("CROSS_SIZE", "nodes", "the DeepSpeed launcher", "torch-env", "WORLD_SIZE"),
    ("NUM_PROCESSES", "processes", "a Kubeflow JAXJob", "torch-env", "COORDINATOR_ADDRESS"),
    ("PET_NNODES", "nodes", "a Kubeflow TrainJob (torchrun's PET_ options)", "torch-env", None),
    ("OMPI_COMM_WORLD_SIZE", "processes", "Open MPI's mpirun", "mpi", None),
    ("PMI_SIZE", "processes", "a PMI launcher (MPICH's or Intel MPI's mpiexec, Flux)", "mpi",
     None),
    ("MV2_COMM_WORLD_SIZE", "processes", "MVAPICH2's mpirun_rsh", "mpi", None),
    ("JSM_NAMESPACE_SIZE", "processes", "an LSF jsrun launch", "lsf", None),
    ("FLUX_JOB_SIZE", "processes", "a Flux job", "flux", None),
    ("SLURM_STEP_NUM_TASKS", "processes", "a Slurm step (srun)", "slurm", None),
    ("SLURM_NTASKS", "tasks", "a Slurm job (sbatch, salloc)", "slurm", "SLURM_JOB_ID"),
    ("SLURM_JOB_NUM_NODES", "nodes", "a Slurm job (sbatch, salloc)", "slurm", "SLURM_JOB_ID"),
    ("PBS_NP", "processors", "a Torque job", "pbs", "PBS_JOBID"),
    ("PBS_NUM_NODES", "nodes", "a Torque job", "pbs", "PBS_JOBID"),
    ("NSLOTS", "slots", "a Grid Engine job", "sge", "JOB_ID"),
    ("NHOSTS", "hosts", "a Grid Engine job", "sge", "JOB_ID"),
    ("SKYPILOT_NUM_NODES", "nodes", "a SkyPilot cluster", "skypilot", None),
    ("AWS_BATCH_JOB_NUM_NODES", "nodes", "an AWS Batch multi-node parallel job", "aws-batch",
     None),
]


def ok(cond, name, detail=""):
    global failures, count
    count += 1
    if cond:
        print(f"ok {count} {name}")
    else:
        failures += 1
        print(f"not ok {count} {name}\n# {detail}".replace("\n", "\n# ", 1))


def run(env, conf, *args):
    full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "CLUSTER_RESOLVER_PLUGIN_PATH": PLUGINS,
            "CLUSTER_RESOLVER_CONFIG": ""}
    full.update(env)
    p = subprocess.run([CLI, "--config", conf, *args], env=full, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def refusal(var, n, unit, launcher, plugin):
    head = f"cluster-resolver: resolver 'local': {var}={n}: this process is one of {n} {unit} of {launcher}, "
    if plugin is None:
        return (head + "and no resolver of this version reads that: describe the cluster in the "
                "config (a simple resolver's cluster or hosts_file) with --task-type and "
                "--task-id; refusing a world of one\n")
    return (head + f"and no resolver placed it (the {plugin} resolver reads these variables: is "
            "it in the config and installed? 'cluster-resolver explain' says why each resolver "
            "passed); refusing a world of one\n")


def main():
    conf = os.path.join(TMP, "local.conf")
    with open(conf, "w") as f:
        f.write(LOCAL)
    for var, unit, launcher, plugin, with_ in ROWS:
        base = {with_: "x"} if with_ else {}
        rc, out, err = run(dict(base, **{var: "4"}), conf, "resolve", "--format", "json")
        want = refusal(var, 4, unit, launcher, plugin)
        ok(rc == 1 and out == "" and err == want, f"{var}=4: refused",
           f"rc={rc} out={out!r}\n got {err!r}\nwant {want!r}")
        for value in ("1", "0", "four", "4 ", ""):
            rc, out, err = run(dict(base, **{var: value}), conf, "resolve", "--format", "json")
            ok(rc == 0 and out == LOCAL_WORKER and err == "", f"{var}={value!r}: the local worker",
               f"rc={rc} {out!r} {err!r}")
        if with_:
            rc, out, err = run({var: "4"}, conf, "resolve", "--format", "json")
            ok(rc == 0 and out == LOCAL_WORKER and err == "",
               f"{var}=4 without {with_}: the local worker", f"rc={rc} {out!r} {err!r}")
    # The innermost launcher is named when several say so (torchrun inside srun).
    rc, out, err = run({"WORLD_SIZE": "8", "SLURM_STEP_NUM_TASKS": "2"}, conf, "resolve")
    want = refusal("WORLD_SIZE", 8, "processes", "torchrun or another torch env:// launcher",
                   "torch-env")
    ok(rc == 1 and err == want, "torchrun inside srun: torchrun is named", f"{rc} {err!r}")
    # explain shows the refusal as the local resolver's error.
    rc, out, err = run({"OMPI_COMM_WORLD_SIZE": "2"}, conf, "explain")
    line = "   error: " + refusal("OMPI_COMM_WORLD_SIZE", 2, "processes", "Open MPI's mpirun",
                                  "mpi")[len("cluster-resolver: resolver 'local': "):]
    ok(rc == 1 and line in out, "explain: the local resolver's error", f"{rc} {out!r} {err!r}")
    # An LSF job says its slots only as LSB_MCPU_HOSTS's "host slots" pairs.
    lsf = {"LSB_JOBID": "4711", "LSB_MCPU_HOSTS": "hA 2 hB.example.org 3"}
    rc, out, err = run(lsf, conf, "resolve", "--format", "json")
    want = refusal("LSB_MCPU_HOSTS's slots", 5, "slots", "an LSF job", "lsf")
    ok(rc == 1 and out == "" and err == want, "LSB_MCPU_HOSTS of 5 slots: refused",
       f"rc={rc} out={out!r}\n got {err!r}\nwant {want!r}")
    for value in ("hA 1", "hA", "hA two hB 2", "hA -2 hB 2", ""):
        rc, out, err = run(dict(lsf, LSB_MCPU_HOSTS=value), conf, "resolve", "--format", "json")
        ok(rc == 0 and out == LOCAL_WORKER and err == "",
           f"LSB_MCPU_HOSTS={value!r}: the local worker", f"rc={rc} {out!r} {err!r}")
    rc, out, err = run({"LSB_MCPU_HOSTS": "hA 2 hB 2"}, conf, "resolve", "--format", "json")
    ok(rc == 0 and out == LOCAL_WORKER and err == "",
       "LSB_MCPU_HOSTS without LSB_JOBID: the local worker", f"rc={rc} {out!r} {err!r}")
    # The shipped default configuration: a task that Grid Engine's qrsh -inherit
    # started in a job of 4 slots (no PE_HOSTFILE, no rank: sge declines).
    shipped = os.path.join(SRC, "config", "cluster-resolver.conf")
    rc, out, err = run({"JOB_ID": "7", "PE": "mpi", "NSLOTS": "4", "NHOSTS": "2",
                        "JOB_SCRIPT": "QRSH"}, shipped, "resolve")
    want = refusal("NSLOTS", 4, "slots", "a Grid Engine job", "sge")
    ok(rc == 1 and out == "" and err == want,
       "shipped config: a qrsh -inherit task of Grid Engine's NSLOTS=4 refused",
       f"{rc} {out!r} {err!r}")
    rc, out, err = run({}, shipped, "resolve", "--format", "json")
    ok(rc == 0 and out == LOCAL_WORKER, "shipped config, no launcher: the local worker",
       f"{rc} {out!r} {err!r}")
    print(f"1..{count}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
