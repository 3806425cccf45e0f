#!/usr/bin/python3
"""test-gpus.py - `gpus_per_task` (core/pipeline/gpus.c) for every resolver,
through the command, each case's stdout, stderr and exit status exact.

The GPUs come from the accelerator layer on the suite's stand-ins: the fake
/proc root tests/fixtures/accel/roots/gpu-procfs (4 x V100, a fifth
excluded) and the stand-in NVML (tests/plugins/nvidia/fake-nvml) serving
tests/fixtures/accel/nvml/*.conf. Resolvers: `simple` with several tasks
on one host (and one on 10.0.0.10, which is not 10.0.0.1), `slurm` from a
real srun's environment without SLURM_STEP_GPUS (block-N2-n5: 4 tasks on
node1, 1 on node2); `reservation` is in tests/integration/reservation-client.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../common'))
import harness  # noqa: E402

harness.ensure_hermetic()
R = harness.Results()
CLI = harness.need('CR_CLI')
BUILD = harness.need('CR_TEST_BUILD_DIR')
FIX = os.path.join(harness.SRC, 'tests', 'fixtures', 'accel')
NVML = os.path.join(BUILD, 'tests', 'plugins', 'nvidia', 'fake-nvml', 'good')
if not os.path.exists(os.path.join(NVML, 'libnvidia-ml.so.1')):
    print('SKIP: the stand-in NVML is not built (%s)' % NVML)
    sys.exit(77)
TMP = tempfile.mkdtemp(prefix='cr-gpus.')
SH = ['sh', '-c', 'printf %s "${CUDA_VISIBLE_DEVICES-unset}"']

SIMPLE = ('resolvers = ( { plugin = "simple"; %s\n'
          '  cluster = { chief = [ "10.0.0.1:2222" ];\n'
          '              worker = [ "10.0.0.1:2223", "10.0.0.10:2222",\n'
          '                         "10.0.0.1:2224" ]; }; } );\n')
PROCFS = ('accelerators = ( { plugin = "nvidia"; library = "/nonexistent/libnvidia-ml.so.1";\n'
          '  root = "%s/roots/gpu-procfs"; } );\n' % FIX)
CPU_ONLY = ('accelerators = ( { plugin = "nvidia"; library = "/nonexistent/libnvidia-ml.so.1";\n'
            '  root = "%s/roots/cpu-only"; } );\n' % FIX)


def nvml(table, **more):
    # No /dev/nvidiactl here: nvidia.so is loaded without its manifest.
    env = {'LD_LIBRARY_PATH': NVML, 'FAKE_NVML_CONFIG': os.path.join(FIX, 'nvml', table),
           'CLUSTER_RESOLVER_PLUGIN_PATH': harness.plugin_path_without_manifest(TMP, 'nvidia')}
    env.update(more)
    return env


def task(job, index):
    return ['--task-type', job, '--task-id', str(index)]


def run(conf_text, args, extra=None):
    """(exit status, stdout, stderr), the config's path as @CONF@."""
    env = harness.clean_env(TMP, extra=extra)
    p = harness.run_config(TMP, conf_text, args, env)
    conf = os.path.join(TMP, 'case.conf')
    return p.returncode, p.stdout.replace(conf, '@CONF@'), p.stderr.replace(conf, '@CONF@')


def case(name, conf_text, args, want_out, want_err='', want_rc=0, extra=None):
    rc, out, err = run(conf_text, args, extra)
    R.check(name, (rc, out, err) == (want_rc, want_out, want_err),
            'want rc=%d out=%r err=%r\ngot  rc=%d out=%r err=%r'
            % (want_rc, want_out, want_err, rc, out, err))


def simple_several_per_host():
    """Four tasks, three on 10.0.0.1: the local index counts only those
    (jobs in order, then indices; the whole host compared)."""
    tasks = [('chief', 0), ('worker', 0), ('worker', 1), ('worker', 2)]
    want = {1: ['0', '1', '0', '2'], 2: ['0,1', '2,3', '0,1', '0,1'],
            3: ['0,1,2'] * 4, 4: ['0,1,2,3'] * 4, 0: [''] * 4}
    for n, cvds in sorted(want.items()):
        conf = 'gpus_per_task = %d;\n' % n + SIMPLE % '' + PROCFS
        for (job, index), cvd in zip(tasks, cvds):
            case('simple, /proc root, gpus_per_task = %d: %s:%d gets %r' % (n, job, index, cvd),
                 conf, task(job, index) + ['exec', '--'] + SH, cvd)
    conf = 'gpus_per_task = 5;\n' + SIMPLE % '' + PROCFS
    case('simple: too few GPUs is TFoS\'s message, naming the key', conf,
         task('worker', 0) + ['exec', '--'] + SH, '',
         'cluster-resolver: @CONF@:1: gpus_per_task = 5: unable to allocate 5 GPU(s) from '
         'available GPUs: [0, 1, 2, 3]\n', 1)
    conf = 'gpus_per_task = 2;\n' + SIMPLE % '' + PROCFS
    case('simple: accelerators counts the task\'s GPUs', conf,
         task('worker', 0) + ['accelerators'], '{"GPU": 2}\n')
    case('simple: --format env exports CUDA_VISIBLE_DEVICES', conf,
         task('worker', 2) + ['resolve', '--format', 'env', '--jobs', 'worker'],
         'export TF_CONFIG=\'{"cluster": {"chief": ["10.0.0.1:2222"], "worker": '
         '["10.0.0.1:2223", "10.0.0.10:2222", "10.0.0.1:2224"]}, "task": {"type": "worker", '
         '"index": 2}}\'\n'
         'export MASTER_ADDR=\'10.0.0.1\'\nexport MASTER_PORT=\'2223\'\n'
         'export WORLD_SIZE=\'3\'\nexport RANK=\'2\'\nexport LOCAL_RANK=\'1\'\n'
         'export LOCAL_WORLD_SIZE=\'2\'\nexport NODE_RANK=\'0\'\nexport GROUP_RANK=\'0\'\n'
         'export JAX_COORDINATOR_ADDRESS=\'10.0.0.1:2223\'\nexport JAX_NUM_PROCESSES=\'3\'\n'
         'export JAX_PROCESS_ID=\'2\'\nexport CUDA_VISIBLE_DEVICES=\'0,1\'\n')
    conf = 'gpus_per_task = 0;\n' + SIMPLE % '' + PROCFS
    case('simple: gpus_per_task = 0 counts no GPU', conf, task('worker', 0) + ['accelerators'],
         '{}\n')
    conf = 'gpus_per_task = 2;\nnum_accelerators = { GPU = 8; };\n' + SIMPLE % '' + PROCFS
    case('simple: the config\'s num_accelerators still wins the count', conf,
         task('worker', 0) + ['accelerators'], '{"GPU": 8}\n')
    case('simple: ... and the GPUs are still chosen', conf,
         task('worker', 0) + ['exec', '--'] + SH, '2,3')


def explain():
    conf = 'gpus_per_task = 2;\n' + SIMPLE % '' + PROCFS
    case('explain says which GPUs and why', conf, task('worker', 2) + ['explain'],
         'config: @CONF@\n'
         '1. resolver \'simple\' (plugin simple, required, at @CONF@:2)\n'
         '   ok: 2 jobs, 4 tasks\n'
         '   fact defined_at: "cluster at @CONF@:3"\n'
         'gpus: gpus_per_task = 2 (at @CONF@:1)\n'
         '   local index 2 of 3 tasks on host 10.0.0.1\n'
         '   GPUs from accelerator \'nvidia\': 0, 1, 2, 3\n'
         '   CUDA_VISIBLE_DEVICES=0,1\n'
         'result: {"cluster": {"chief": ["10.0.0.1:2222"], "worker": ["10.0.0.1:2223", '
         '"10.0.0.10:2222", "10.0.0.1:2224"]}, "task": {"type": "worker", "index": 2}, '
         '"master": "", "num_accelerators": {"GPU": 2}}\n')
    rc, out, err = run(conf, task('worker', 0) + ['explain', '--json'])
    got = json.loads(out).get('gpus') if rc == 0 else None
    want = {'gpus_per_task': 2, 'at': '@CONF@:1',
            'skip_busy_gpus': False, 'host': '10.0.0.1', 'local_index': 1, 'host_tasks': 3,
            'source': "accelerator 'nvidia'", 'available': ['0', '1', '2', '3'], 'busy': [],
            'CUDA_VISIBLE_DEVICES': '2,3'}
    R.check('explain --json: "gpus"', got == want and err == '',
            'rc=%d\n%s\n%s' % (rc, out, err))
    conf = SIMPLE % '' + PROCFS
    rc, out, err = run(conf, task('worker', 0) + ['explain', '--json'])
    R.check('explain --json: no "gpus" without gpus_per_task',
            rc == 0 and 'gpus' not in json.loads(out), out)
    conf = 'gpus_per_task = 1;\n' + SIMPLE % '' + PROCFS
    case('explain: no task of this process: local index 0', conf, ['explain'],
         'config: @CONF@\n'
         '1. resolver \'simple\' (plugin simple, required, at @CONF@:2)\n'
         '   ok: 2 jobs, 4 tasks\n'
         '   fact defined_at: "cluster at @CONF@:3"\n'
         'gpus: gpus_per_task = 1 (at @CONF@:1)\n'
         '   local index 0: this process\'s task is not in the cluster\n'
         '   GPUs from accelerator \'nvidia\': 0, 1, 2, 3\n'
         '   CUDA_VISIBLE_DEVICES=0\n'
         'result: {"cluster": {"chief": ["10.0.0.1:2222"], "worker": ["10.0.0.1:2223", '
         '"10.0.0.10:2222", "10.0.0.1:2224"]}, "master": "", "num_accelerators": {"GPU": 1}}\n')


def nvml_rules():
    """The stand-in NVML: indices where nothing masked; UUIDs where a binding
    variable numbered the GPUs or MIG instances are listed (the child's
    CUDA_VISIBLE_DEVICES replaces ours, so our indices would mislead)."""
    conf = 'gpus_per_task = 2;\n' + SIMPLE % ''
    case('NVML, 8 GPUs: worker:2 is local 2: 4,5', conf, task('worker', 2) + ['exec', '--'] + SH,
         '4,5', extra=nvml('dgx-a100.conf'))
    conf = 'gpus_per_task = 1;\n' + SIMPLE % ''
    case('NVML + CUDA_VISIBLE_DEVICES=3,1,0: by UUID', conf,
         task('worker', 0) + ['exec', '--'] + SH, 'GPU-1c6f3a2d-8b55-4f1c-a4e2-7a3b9d2e5f81',
         extra=nvml('dgx-a100.conf', CUDA_VISIBLE_DEVICES='3,1,0'))
    case('NVML, MIG: instances and the whole GPU by UUID', conf,
         task('worker', 2) + ['exec', '--'] + SH, 'MIG-2a3b4c5d-6e7f-5a8b-ac9d-1e2f3a4b5c6d',
         extra=nvml('mig.conf'))
    conf = 'gpus_per_task = 2;\n' + SIMPLE % ''
    case('NVML, MIG: a slot of two', conf, task('worker', 0) + ['exec', '--'] + SH,
         'MIG-2a3b4c5d-6e7f-5a8b-ac9d-1e2f3a4b5c6d,GPU-8d4b2c3e-5f6a-4b7c-ad8e-9f0a1b2c3d4e',
         extra=nvml('mig.conf'))
    case('NVML in a container given GPUs 4 and 5 (NVIDIA_VISIBLE_DEVICES)', conf,
         task('chief', 0) + ['exec', '--'] + SH,
         'GPU-4f9c6d5a-be88-4c4f-97b5-ad6ec05b8cb4,GPU-5a0d7e6b-cf99-4d5a-a8c6-be7fd16c9dc5',
         extra=nvml('container-4-5.conf', NVIDIA_VISIBLE_DEVICES='4,5'))


def busy():
    """skip_busy_gpus: GPUs 1 and 2 run compute processes."""
    conf = 'gpus_per_task = 2;\n' + SIMPLE % ''
    case('busy GPUs are used unless asked', conf, task('worker', 0) + ['exec', '--'] + SH,
         '2,3', extra=nvml('dgx-a100-busy.conf'))
    conf = 'gpus_per_task = 2;\nskip_busy_gpus = true;\n' + SIMPLE % ''
    case('skip_busy_gpus = true: 0,3,4,5,6,7 are left', conf,
         task('worker', 0) + ['exec', '--'] + SH, '4,5', extra=nvml('dgx-a100-busy.conf'))
    case('skip_busy_gpus in explain', conf, task('worker', 0) + ['explain'],
         'config: @CONF@\n'
         '1. resolver \'simple\' (plugin simple, required, at @CONF@:3)\n'
         '   ok: 2 jobs, 4 tasks\n'
         '   fact defined_at: "cluster at @CONF@:4"\n'
         'gpus: gpus_per_task = 2 (at @CONF@:1), busy GPUs skipped\n'
         '   local index 1 of 3 tasks on host 10.0.0.1\n'
         '   GPUs from accelerator \'nvidia\': 0, 3, 4, 5, 6, 7\n'
         '   busy, left out: 1, 2\n'
         '   CUDA_VISIBLE_DEVICES=4,5\n'
         'result: {"cluster": {"chief": ["10.0.0.1:2222"], "worker": ["10.0.0.1:2223", '
         '"10.0.0.10:2222", "10.0.0.1:2224"]}, "task": {"type": "worker", "index": 0}, '
         '"master": "", "num_accelerators": {"GPU": 2}}\n',
         extra=nvml('dgx-a100-busy.conf'))
    conf = 'gpus_per_task = 7;\nskip_busy_gpus = true;\n' + SIMPLE % ''
    case('skip_busy_gpus: too few free GPUs names the busy ones', conf,
         task('worker', 0) + ['exec', '--'] + SH, '',
         'cluster-resolver: @CONF@:1: gpus_per_task = 7: unable to allocate 7 GPU(s) from '
         'available GPUs: [0, 3, 4, 5, 6, 7] (busy: [1, 2])\n', 1,
         extra=nvml('dgx-a100-busy.conf'))
    conf = 'gpus_per_task = 1;\nskip_busy_gpus = true;\n' + SIMPLE % '' + PROCFS
    case('skip_busy_gpus without NVML: none known busy', conf,
         task('worker', 0) + ['exec', '--'] + SH, '1')


def per_resolver():
    conf = 'gpus_per_task = 2;\n' + SIMPLE % 'gpus_per_task = 1;' + PROCFS
    case('a resolver\'s gpus_per_task beats the top level', conf,
         task('worker', 2) + ['exec', '--'] + SH, '2')
    conf = SIMPLE % 'gpus_per_task = 1; skip_busy_gpus = true;'
    case('a resolver\'s skip_busy_gpus', conf, task('chief', 0) + ['exec', '--'] + SH, '0',
         extra=nvml('dgx-a100-busy.conf'))
    case('... local index 1 skips busy 1 and 2', conf, task('worker', 0) + ['exec', '--'] + SH,
         '3', extra=nvml('dgx-a100-busy.conf'))
    conf = 'gpus_per_task = 1;\nskip_busy_gpus = true;\n' + SIMPLE % 'skip_busy_gpus = false;'
    case('each key on its own: the group\'s skip_busy_gpus, the top-level gpus_per_task',
         conf, task('worker', 0) + ['exec', '--'] + SH, '1', extra=nvml('dgx-a100-busy.conf'))


def cvd_only():
    """No accelerator plugin reported a GPU: CUDA_VISIBLE_DEVICES's entries
    as written, up to the first empty or negative one."""
    conf = 'gpus_per_task = 2;\n' + SIMPLE % '' + CPU_ONLY
    case('no GPU from the plugins: CUDA_VISIBLE_DEVICES=0,1,2,3 is split', conf,
         task('worker', 0) + ['exec', '--'] + SH, '2,3',
         extra={'CUDA_VISIBLE_DEVICES': '0,1,2,3'})
    case('... up to the first -1', conf, task('worker', 0) + ['exec', '--'] + SH, '',
         'cluster-resolver: @CONF@:1: gpus_per_task = 2: unable to allocate 2 GPU(s) from '
         'available GPUs: [0]\n', 1, extra={'CUDA_VISIBLE_DEVICES': '0,-1,2,3'})
    case('no GPU anywhere', conf, task('worker', 0) + ['exec', '--'] + SH, '',
         'cluster-resolver: @CONF@:1: gpus_per_task = 2: unable to allocate 2 GPU(s) from '
         'available GPUs: []\n', 1)


def slurm():
    """A real srun's environment without SLURM_STEP_GPUS or
    CUDA_VISIBLE_DEVICES (block-N2-n5: ranks 0-3 on node1, 4 on node2):
    the top-level gpus_per_task splits the accelerator layer's GPUs. The
    slurm group's own gpus_per_task stays slurm's (it splits what Slurm
    bound, and Slurm bound nothing here)."""
    d = os.path.join(harness.SRC, 'tests', 'fixtures', 'slurm', 'block-N2-n5')
    conf = 'gpus_per_task = 2;\nresolvers = ( { plugin = "slurm"; } );\n'
    for rank, cvd in enumerate(['0,1', '2,3', '4,5', '6,7', '0,1']):
        env = {}
        with open(os.path.join(d, 'task-%d.env' % rank)) as f:
            for line in f:
                k, _, v = line.rstrip('\n').partition('=')
                env[k] = v
        env.update(nvml('dgx-a100.conf'))
        case('slurm without SLURM_STEP_GPUS, NVML: rank %d gets %s' % (rank, cvd), conf,
             ['exec', '--'] + SH, cvd, extra=env)
        if rank == 1:
            case('slurm: rank 1 counts 2 GPUs', conf, ['accelerators'], '{"GPU": 2}\n',
                 extra=env)
            case('slurm\'s own gpus_per_task stays the plugin\'s',
                 'resolvers = ( { plugin = "slurm"; gpus_per_task = 1; } );\n',
                 ['exec', '--'] + SH, '',
                 'cluster-resolver: resolver \'slurm\': requested more GPUs per node than '
                 'available: 4 tasks x 1 GPUs per task > 0 GPUs\n', 2, extra=env)


def config_errors():
    top = SIMPLE % '' + PROCFS
    for text, msg in (('gpus_per_task = -1;', 'gpus_per_task must be an integer from 0 to 4096'),
                      ('gpus_per_task = 4097;',
                       'gpus_per_task must be an integer from 0 to 4096'),
                      ('gpus_per_task = "2";', 'gpus_per_task must be an integer from 0 to 4096'),
                      ('skip_busy_gpus = 1;', 'skip_busy_gpus must be true or false')):
        case('config: %s' % text, text + '\n' + top, ['resolve'], '',
             'cluster-resolver: @CONF@:1: %s\n' % msg, 2)
    case('config: a resolver\'s gpus_per_task out of range',
         SIMPLE % 'gpus_per_task = 5000;' + PROCFS, ['resolve'], '',
         'cluster-resolver: @CONF@:1: resolver \'simple\': key \'gpus_per_task\' is 5000, out '
         'of its range 0..4096\n', 2)
    case('config: a resolver\'s skip_busy_gpus of the wrong type',
         SIMPLE % 'skip_busy_gpus = "yes";' + PROCFS, ['resolve'], '',
         'cluster-resolver: @CONF@:1: resolver \'simple\': key \'skip_busy_gpus\' must be a '
         'boolean, not a string\n', 2)
    case('config: gpus_per_task is no accelerator\'s key',
         SIMPLE % '' + PROCFS.replace('library', 'gpus_per_task = 1; library'), ['resolve'], '',
         'cluster-resolver: @CONF@:5: accelerator \'nvidia\': unknown key \'gpus_per_task\'\n',
         2)


def example():
    """config/gpus.conf does what its comment says."""
    with open(os.path.join(harness.SRC, 'config', 'gpus.conf')) as f:
        text = f.read()
    # 8 GPUs: slot 2 mod 4 = 2; 2 GPUs (one slot): slot 0
    for table, cvd in (('dgx-a100.conf', '4,5'), ('container-4-5.conf', '0,1')):
        case('config/gpus.conf on %s: worker:1 gets %s' % (table, cvd), text,
             task('worker', 1) + ['exec', '--'] + SH, cvd, extra=nvml(table))


def torchrun():
    """torch-env: torchrun gives no host, only this task's node and local
    rank (LOCAL_RANK of LOCAL_WORLD_SIZE): the slot follows LOCAL_RANK."""
    conf = 'gpus_per_task = 2;\nresolvers = ( { plugin = "torch-env"; } );\n' + PROCFS
    for local, cvd in ((0, '0,1'), (1, '2,3')):
        env = dict(TORCHELASTIC_RUN_ID='x', RANK=str(2 + local), WORLD_SIZE='4',
                   LOCAL_RANK=str(local), LOCAL_WORLD_SIZE='2', GROUP_RANK='1',
                   GROUP_WORLD_SIZE='2', MASTER_ADDR='node-a', MASTER_PORT='29500')
        case('torch-env: torchrun LOCAL_RANK=%d gets %r' % (local, cvd), conf,
             ['exec', '--format', 'torch', '--'] + SH, cvd, extra=env)


simple_several_per_host()
torchrun()
example()
explain()
nvml_rules()
busy()
per_resolver()
cvd_only()
slurm()
config_errors()
R.finish()
