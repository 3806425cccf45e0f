#!/usr/bin/python3
"""slurm.so against the environments a real srun/sbatch gave its tasks.

tests/fixtures/slurm/<scenario>/task-<PROCID>.env were captured by
tests/integration/slurm/capture-env.sh on a real Slurm 22.05 (4 slurmd). The
expected cluster is built from those captures alone, not from our code: rank
r's address is SLURMD_NODENAME:8888+SLURM_LOCALID of the task that really ran
as rank r. Every task must print exactly that cluster and its own identity.
Then: the TensorFlow examples (tf-semantics §8.5), the §14 fixes, and every
error message, each exact.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

CLI = os.environ["CR_CLI"]
SRC = os.environ["CR_TEST_SOURCE_DIR"]
PLUGINS = os.environ["CLUSTER_RESOLVER_PLUGIN_PATH"]
FIXTURES = os.path.join(SRC, "tests", "fixtures", "slurm")
TMP = tempfile.mkdtemp(prefix="cr-slurm-env.")
failures = 0
count = 0


def ok(cond, name, detail=""):
    global failures, count
    count += 1
    if cond:
        print(f"ok {count} {name}")
    else:
        failures += 1
        print(f"not ok {count} {name}\n# {detail}".replace("\n", "\n# ", 1))


def config(text):
    path = os.path.join(TMP, f"c{count}.conf")
    with open(path, "w") as f:
        f.write(text)
    return path


def run(env, conf, *args):
    full = {"CLUSTER_RESOLVER_PLUGIN_PATH": PLUGINS, "CLUSTER_RESOLVER_CONFIG": ""}
    full.update(env)
    p = subprocess.run([CLI, "--config", conf, *args], env=full, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def load_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            env[k] = v
    return env


def dumps(obj):
    return json.dumps(obj) + "\n"


SLURM_ONLY = 'resolvers = ( { plugin = "slurm"; } );\n'
# GPUs per task each scenario reports (tf-semantics §8.4: gpus // most tasks
# on a node); None: Slurm said nothing about GPUs.
GPUS = {"gpt1-N4-n8": 1, "gpn2-N2-n4": 0}


def scenario_tests():
    conf = config(SLURM_ONLY)
    for scen in sorted(os.listdir(FIXTURES)):
        d = os.path.join(FIXTURES, scen)
        if not os.path.isdir(d) or scen.endswith("-batch"):
            continue
        tasks = {}
        for name in os.listdir(d):
            if name.startswith("task-") and name.endswith(".env"):
                env = load_env(os.path.join(d, name))
                tasks[int(env["SLURM_PROCID"])] = env
        ranks = sorted(tasks)
        ok(ranks == list(range(len(ranks))), f"{scen}: fixture has ranks 0..n-1", ranks)
        workers = [f'{tasks[r]["SLURMD_NODENAME"]}:{8888 + int(tasks[r]["SLURM_LOCALID"])}'
                   for r in ranks]
        for r in ranks:
            env = dict(tasks[r])
            if scen.startswith("arbitrary"):
                env["SLURM_HOSTFILE"] = os.path.join(d, "hostfile")
            want = {"cluster": {"worker": workers}, "task": {"type": "worker", "index": r},
                    "rpc_layer": "grpc", "master": f"grpc://{workers[r]}",
                    "num_accelerators": {} if GPUS.get(scen) is None else {"GPU": GPUS[scen]}}
            rc, out, err = run(env, conf, "resolve", "--format", "json")
            ok(rc == 0 and out == dumps(want) and err == "", f"{scen}: rank {r}",
               f"rc={rc}\n got {out!r}\nwant {dumps(want)!r}\nstderr {err!r}")


BATCH_DECLINED = (
    "in Slurm job 12 but not in a task of a step (SLURM_STEP_ID is unset: a batch script "
    "or an salloc shell, whose allocation is not a task); start the tasks with srun (srun "
    "cluster-resolver exec -- PROGRAM) or a launcher such as mpirun or torchrun")
LOCAL_GUARD = ('{ plugin = "simple"; name = "local"; policy = "sufficient"; '
               'cluster = { worker = [ "localhost:2222" ]; }; task_type = "worker"; '
               'task_id = 0; refuse_if_launched = true; }')


def batch_test():
    """The batch script of `sbatch -N4 -n8` is not a task: slurm declines, and
    the shipped local fallback refuses rather than answer task 0 of 1."""
    env = load_env(os.path.join(FIXTURES, "sbatch-N4-n8-batch", "task-0.env"))
    rc, out, err = run(env, config(SLURM_ONLY), "resolve", "--format", "json")
    want = "cluster-resolver: no resolver applies here (declined: slurm)\n"
    ok(rc == 1 and out == "" and err == want, "sbatch batch script: slurm declines",
       f"{rc} {out!r} {err!r}")
    rc, out, err = run(env, config(SLURM_ONLY), "explain")
    ok(f"   declined: {BATCH_DECLINED}\n" in out, "sbatch batch script: explain says why",
       f"{rc} {out!r} {err!r}")
    conf = config('resolvers = ( { plugin = "slurm"; policy = "sufficient"; }, '
                  + LOCAL_GUARD + ' );\n')
    rc, out, err = run(env, conf, "resolve", "--format", "json")
    want = ("cluster-resolver: resolver 'local': SLURM_NTASKS=8: this process is one of 8 "
            "tasks of a Slurm job (sbatch, salloc), and no resolver placed it (the slurm "
            "resolver reads these variables: is it in the config and installed? "
            "'cluster-resolver explain' says why each resolver passed); refusing a world "
            "of one\n")
    ok(rc == 1 and out == "" and err == want, "sbatch batch script: no silent world of one",
       f"{rc} {out!r} {err!r}")
    # salloc's shell of a one-task job: a world of one is the truth there.
    one = dict(env, SLURM_NTASKS="1", SLURM_NPROCS="1", SLURM_JOB_NUM_NODES="1")
    rc, out, err = run(one, conf, "resolve", "--format", "json")
    want = ('{"cluster": {"worker": ["localhost:2222"]}, "task": {"type": "worker", "index": 0}, '
            '"master": "", "num_accelerators": {}}\n')
    ok(rc == 0 and out == want and err == "", "one-task allocation: the local worker",
       f"{rc} {out!r} {err!r}")


def exec_gpu(env, conf):
    rc, out, err = run(env, conf, "exec", "--", "/usr/bin/printenv", "CUDA_VISIBLE_DEVICES")
    return rc, out.rstrip("\n") if rc == 0 else None, err


def gpu_binding_tests():
    conf = config(SLURM_ONLY)
    for r in range(8):
        env = load_env(os.path.join(FIXTURES, "gpt1-N4-n8", f"task-{r}.env"))
        rc, got, err = exec_gpu(env, conf)
        ok(got == env["CUDA_VISIBLE_DEVICES"], f"--gpus-per-task=1: rank {r} keeps Slurm's GPU",
           f"{rc} {got!r} {err!r}")
    # --gpus-per-node=2 with 3 tasks on node1: 2 // 3 = 0 GPUs each (§14.2), empty list
    env = load_env(os.path.join(FIXTURES, "gpn2-N2-n4", "task-1.env"))
    rc, got, err = exec_gpu(env, conf)
    ok(got == "", "--gpus-per-node=2, 3 tasks: empty GPU list", f"{rc} {got!r} {err!r}")
    # a CPU-only allocation: Slurm says nothing, so nothing is set
    env = load_env(os.path.join(FIXTURES, "cpu-N2-n3", "task-0.env"))
    rc, got, err = exec_gpu(env, conf)
    ok(rc == 1 and got is None, "CPU-only step: CUDA_VISIBLE_DEVICES left alone", f"{rc} {err!r}")
    # auto_set_gpu = false: the binding is reported, not set
    env = load_env(os.path.join(FIXTURES, "gpn2-N2-n4", "task-3.env"))
    rc, got, err = exec_gpu(env, config('resolvers = ( { plugin = "slurm"; auto_set_gpu = false; } );\n'))
    ok(got == "0,1", "auto_set_gpu = false keeps the inherited value", f"{rc} {got!r} {err!r}")


TF = "t02n13,t02n41,t02n43"
CASES = [
    # (name, config body, env, args, want rc, want stdout, want stderr)
    ("tf §8.5: jobs ps+worker, tasks_per_node per host, gpn 2, gpt 1",
     'jobs = { ps = 1; worker = 4; }; tasks_per_node = { t02n13 = 2; t02n41 = 2; t02n43 = 1; };'
     ' gpus_per_node = 2; gpus_per_task = 1;',
     {"SLURM_PROCID": "1"}, ("resolve", "--format", "json"), 0,
     '{"cluster": {"ps": ["t02n13:8888"], "worker": ["t02n13:8889", "t02n41:8888", '
     '"t02n41:8889", "t02n43:8888"]}, "task": {"type": "worker", "index": 0}, "rpc_layer": '
     '"grpc", "master": "grpc://t02n13:8889", "num_accelerators": {"GPU": 1}}\n', ""),
    ("tf §8.5: rank 1 gets GPU 1",
     'jobs = { ps = 1; worker = 4; }; tasks_per_node = { t02n13 = 2; t02n41 = 2; t02n43 = 1; };'
     ' gpus_per_node = 2; gpus_per_task = 1;',
     {"SLURM_PROCID": "1"}, ("exec", "--", "/usr/bin/printenv", "CUDA_VISIBLE_DEVICES"), 0,
     "1\n", ""),
    ("tf §8.5: gpn 4, gpt 2: rank 1 gets 2,3",
     'jobs = { ps = 1; worker = 4; }; tasks_per_node = { t02n13 = 2; t02n41 = 2; t02n43 = 1; };'
     ' gpus_per_node = 4; gpus_per_task = 2;',
     {"SLURM_PROCID": "1"}, ("exec", "--", "/usr/bin/printenv", "CUDA_VISIBLE_DEVICES"), 0,
     "2,3\n", ""),
    ("tf §8.5: env only, 1(x3), CUDA_VISIBLE_DEVICES=0",
     "", {"SLURM_PROCID": "0", "SLURM_STEP_NODELIST": TF, "SLURM_STEP_NUM_TASKS": "3",
          "SLURM_STEP_TASKS_PER_NODE": "1(x3)", "CUDA_VISIBLE_DEVICES": "0"},
     ("resolve", "--format", "json"), 0,
     '{"cluster": {"worker": ["t02n13:8888", "t02n41:8888", "t02n43:8888"]}, "task": '
     '{"type": "worker", "index": 0}, "rpc_layer": "grpc", "master": "grpc://t02n13:8888", '
     '"num_accelerators": {"GPU": 1}}\n', ""),
    ("tf README: port_base 1337, tasks_per_node 2, ps 1 + worker 3",
     "port_base = 1337; tasks_per_node = 2; jobs = { ps = 1; worker = 3; };",
     {"SLURM_PROCID": "3", "SLURM_STEP_NODELIST": "t02n[13,41]"},
     ("resolve",), 0,
     '{"cluster": {"ps": ["t02n13:1337"], "worker": ["t02n13:1338", "t02n41:1337", '
     '"t02n41:1338"]}, "task": {"type": "worker", "index": 2}, "rpc_layer": "grpc"}\n', ""),
    # issue #11 item 3: the environment's GPU count is capped like gpus_per_node
    ("SLURM_GPUS_ON_NODE over 2^20 is refused at once",
     "", {"SLURM_PROCID": "0", "SLURM_STEP_NODELIST": "n1", "SLURM_STEP_TASKS_PER_NODE": "1",
          "SLURM_GPUS_ON_NODE": "4294967295"}, ("resolve",), 1, "",
     'cluster-resolver: resolver \'slurm\': SLURM_GPUS_ON_NODE "4294967295" is more than '
     '1048576 GPUs\n'),
    ("§14.1: nodelist order kept (n[9-10]: rank 0 is n9)",
     "", {"SLURM_PROCID": "0", "SLURM_STEP_NODELIST": "n[9-10]",
          "SLURM_STEP_TASKS_PER_NODE": "1(x2)"}, ("resolve",), 0,
     '{"cluster": {"worker": ["n9:8888", "n10:8888"]}, "task": {"type": "worker", "index": 0}, '
     '"rpc_layer": "grpc"}\n', ""),
    ("§14.1: mixed widths n[8-10] keep order",
     "", {"SLURM_PROCID": "2", "SLURM_STEP_NODELIST": "n[8-10]",
          "SLURM_STEP_TASKS_PER_NODE": "1(x3)"}, ("master",), 0, "grpc://n10:8888\n", ""),
    ("§14.2: 1 GPU, 2 tasks per node: CPU-only lists, no crash",
     "gpus_per_node = 1;", {"SLURM_PROCID": "1", "SLURM_STEP_NODELIST": "n1",
                            "SLURM_STEP_TASKS_PER_NODE": "2"},
     ("resolve", "--format", "json"), 0,
     '{"cluster": {"worker": ["n1:8888", "n1:8889"]}, "task": {"type": "worker", "index": 1}, '
     '"rpc_layer": "grpc", "master": "grpc://n1:8889", "num_accelerators": {"GPU": 0}}\n', ""),
    ("§14.3: CUDA_VISIBLE_DEVICES empty is 0 GPUs",
     "", {"SLURM_PROCID": "0", "SLURM_STEP_NODELIST": "n1", "SLURM_STEP_TASKS_PER_NODE": "1",
          "CUDA_VISIBLE_DEVICES": ""},
     ("resolve", "--format", "json"), 0,
     '{"cluster": {"worker": ["n1:8888"]}, "task": {"type": "worker", "index": 0}, '
     '"rpc_layer": "grpc", "master": "grpc://n1:8888", "num_accelerators": {"GPU": 0}}\n', ""),
    ("rpc_layer and an empty job",
     'rpc_layer = "grpc+verbs"; jobs = { chief = 1; ps = 0; worker = 1; };',
     {"SLURM_PROCID": "1", "SLURM_STEP_NODELIST": "a,b", "SLURM_STEP_TASKS_PER_NODE": "1(x2)"},
     ("resolve",), 0,
     '{"cluster": {"chief": ["a:8888"], "ps": [], "worker": ["b:8888"]}, "task": {"type": '
     '"worker", "index": 0}, "rpc_layer": "grpc+verbs"}\n', ""),
    ("salloc shell: an allocation is not a task",
     "", {"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "n[1-2]", "SLURM_TASKS_PER_NODE": "2,1",
          "SLURM_NTASKS": "3"}, ("resolve",), 1, "",
     "cluster-resolver: no resolver applies here (declined: slurm)\n"),
    ("declined outside Slurm", "", {}, ("resolve",), 1, "",
     "cluster-resolver: no resolver applies here (declined: slurm)\n"),
]

R = "cluster-resolver: resolver 'slurm': "
STEP = {"SLURM_PROCID": "0", "SLURM_STEP_NODELIST": "node[1-2]",
        "SLURM_STEP_TASKS_PER_NODE": "4,1", "SLURM_STEP_NUM_TASKS": "5",
        "SLURMD_NODENAME": "node1", "SLURM_GTIDS": "0,1,2,3"}


def step(**kw):
    env = dict(STEP)
    for k, v in kw.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


ERRORS = [
    ("§14.6: nodelist and tasks-per-node disagree", "", step(SLURM_STEP_TASKS_PER_NODE="5"),
     'SLURM_STEP_NODELIST "node[1-2]" names 2 nodes but SLURM_STEP_TASKS_PER_NODE "5" counts '
     "tasks for 1"),
    ("§14.6: rank past the tasks", "", step(SLURM_PROCID="5"),
     'SLURM_PROCID "5" is not below the 5 tasks of SLURM_STEP_TASKS_PER_NODE "4,1"'),
    ("SLURM_PROCID not a number", "", step(SLURM_PROCID="1x"),
     'SLURM_PROCID "1x" is not a non-negative integer'),
    ("SLURM_PROCID negative", "", step(SLURM_PROCID="-1"),
     'SLURM_PROCID "-1" is not a non-negative integer'),
    ("SLURM_PROCID on another node", "", step(SLURM_PROCID="4"),
     'SLURM_PROCID "4" runs on node2 by the block layout, but this is node1'),
    ("num tasks disagree", "", step(SLURM_STEP_NUM_TASKS="6"),
     'SLURM_STEP_NUM_TASKS "6" disagrees with SLURM_STEP_TASKS_PER_NODE "4,1" (5 tasks)'),
    ("bad nodelist", "", step(SLURM_STEP_NODELIST="node[1-2"),
     'SLURM_STEP_NODELIST: invalid hostlist "node[1-2": unterminated \'[\' at position 5'),
    ("bad tasks-per-node", "", step(SLURM_STEP_TASKS_PER_NODE="4,"),
     "SLURM_STEP_TASKS_PER_NODE: invalid tasks-per-node list \"4,\": trailing ',' at position 2"),
    ("bad tasks-per-node repeat", "", step(SLURM_STEP_TASKS_PER_NODE="4(2)"),
     "SLURM_STEP_TASKS_PER_NODE: invalid tasks-per-node list \"4(2)\": expected 'x', found '2' at "
     "position 3"),
    ("tasks-per-node missing", "", step(SLURM_STEP_TASKS_PER_NODE=None),
     'SLURM_STEP_TASKS_PER_NODE is not set (SLURM_STEP_NODELIST is "node[1-2]")'),
    ("GTIDS fit neither block nor cyclic", "", step(SLURM_GTIDS="0,3"),
     'SLURM_GTIDS "0,3" (the ranks on node1) do not fit a block or cyclic layout over '
     'SLURM_STEP_NODELIST "node[1-2]" and SLURM_STEP_TASKS_PER_NODE "4,1"'),
    ("GTIDS contradict SLURM_DISTRIBUTION", "",
     step(SLURM_DISTRIBUTION="cyclic", SLURM_STEP_TASKS_PER_NODE="2,2", SLURM_STEP_NUM_TASKS="4",
          SLURM_GTIDS="0,1"),
     'SLURM_GTIDS "0,1" (the ranks on node1) do not fit SLURM_DISTRIBUTION "cyclic" over '
     'SLURM_STEP_NODELIST "node[1-2]" and SLURM_STEP_TASKS_PER_NODE "2,2"'),
    ("GTIDS garbage", "", step(SLURM_GTIDS="0,x"),
     'SLURM_GTIDS "0,x" is not a list of task numbers'),
    ("unknown distribution", "", step(SLURM_DISTRIBUTION="random"),
     'SLURM_DISTRIBUTION "random" is not block, cyclic, plane or arbitrary'),
    ("plane without a size", "", step(SLURM_DISTRIBUTION="plane"),
     'SLURM_DISTRIBUTION "plane" without a plane size (SLURM_DIST_PLANESIZE is not set)'),
    ("arbitrary without a hostfile", "", step(SLURM_DISTRIBUTION="arbitrary"),
     'SLURM_DISTRIBUTION "arbitrary" needs SLURM_HOSTFILE, which is not set'),
    ("jobs do not add up", "jobs = { ps = 1; worker = 3; };", step(),
     'jobs ask for 4 tasks, but SLURM_STEP_TASKS_PER_NODE "4,1" gives 5'),
    ("more GPUs per task than the node has", "gpus_per_task = 2;",
     step(CUDA_VISIBLE_DEVICES="0,1,2,3"),
     "requested more GPUs per node than available: 4 tasks x 2 GPUs per task > 4 GPUs"),
    ("gpus_per_node above the bound list", "gpus_per_node = 4;",
     step(CUDA_VISIBLE_DEVICES="0,1"),
     'gpus_per_node = 4, but CUDA_VISIBLE_DEVICES "0,1" lists 2 GPUs'),
    ("ports past 65535", "port_base = 65534;", step(),
     "port_base 65534 + 4 tasks on a node passes port 65535"),
]


def table_tests():
    for name, body, env, args, rc_want, out_want, err_want in CASES:
        conf = config('resolvers = ( { plugin = "slurm"; %s } );\n' % body)
        rc, out, err = run(env, conf, *args)
        ok((rc, out, err) == (rc_want, out_want, err_want), name,
           f"got  {(rc, out, err)!r}\nwant {(rc_want, out_want, err_want)!r}")
    for name, body, env, msg in ERRORS:
        conf = config('resolvers = ( { plugin = "slurm"; %s } );\n' % body)
        rc, out, err = run(env, conf, "resolve")
        want_rc = 2 if name in ("jobs do not add up", "more GPUs per task than the node has",
                                "gpus_per_node above the bound list", "ports past 65535") else 1
        ok((rc, out, err) == (want_rc, "", R + msg + "\n"), name,
           f"got  {(rc, out, err)!r}\nwant {(want_rc, '', R + msg + chr(10))!r}")


def config_error_tests():
    cases = [
        ("jobs = { worker = -1; };", "jobs.worker must be between 0 and 4294967295, not -1"),
        ("jobs = { };", "jobs is empty"),
        ('tasks_per_node = "2";', "tasks_per_node must be an integer or a group of host = count"),
        ("tasks_per_node = 0;", "tasks_per_node must be between 1 and 4294967295, not 0"),
        ("port_base = 70000;", "port_base must be between 1 and 65535, not 70000"),
        ("gpus_per_task = -2;", "gpus_per_task must be between 0 and 1048576, not -2"),
    ]
    for body, msg in cases:
        conf = config('resolvers = ( { plugin = "slurm";\n  %s } );\n' % body)
        rc, out, err = run(step(), conf, "resolve")
        ok(rc == 2 and err.endswith(f"{conf}:2: resolver 'slurm': {msg}\n"),
           f"config error: {body}", f"rc={rc} {err!r}")


scenario_tests()
batch_test()
gpu_binding_tests()
table_tests()
config_error_tests()
shutil.rmtree(TMP)
print(f"1..{count}")
sys.exit(1 if failures else 0)
