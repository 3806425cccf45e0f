"""cluster_resolver.spark - TensorFlowOnSpark's TFCluster.run()/shutdown() on
cluster-resolver's authenticated reservation server (docs/reservation.md).

    import cluster_resolver.spark as crs
    cluster = crs.run(sc, ['python3', 'train.py'], num_executors=4, num_ps=1,
                      master_node='chief')
    cluster.shutdown()          # waits; raises when a task or the server failed

The driver makes a 32-byte secret, starts `cluster-resolver reservation
serve` with TFoS's sizing, and runs one Spark task per executor (barrier
mode: all at once or not at all). Each task runs

    cluster-resolver exec --supervise -- ARGV...

with reservation.so configured: it registers, waits for the cluster, and
runs ARGV with TF_CONFIG set; its exit status goes back to the server, which
stops the ps and evaluator tasks once the workers are done.

Only the standard library and pyspark; pyspark is imported lazily, so the
task side (run_task) runs without it. InputMode.SPARK is not offered: write
the RDD as TFRecord or Parquet first and read it in the trainer. The one
small equivalent is run(..., feed_rdd=RDD): each partition of RDD (bytes
records, e.g. serialized tf.train.Example) is streamed to one worker's
stdin in TFRecord framing, read with tf.data.TFRecordDataset("/dev/stdin");
the end of the partition is EOF.
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading

__all__ = ['run', 'Cluster', 'normalize_default_fs', 'start_server', 'run_task',
           'partition_function', 'feed_targets', 'tfrecord', 'crc32c']

CLI = os.environ.get('CLUSTER_RESOLVER', 'cluster-resolver')


def normalize_default_fs(default_fs):
    """Hadoop fs.defaultFS as TFoS passes it on: a file:// value longer than
    7 characters that ends in '/' loses that one slash; others unchanged."""
    if default_fs and default_fs.startswith('file://') and len(default_fs) > 7 \
            and default_fs.endswith('/'):
        return default_fs[:-1]
    return default_fs


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C = _crc32c_table()


def crc32c(data):
    """CRC-32C (Castagnoli), as TFRecord uses it."""
    crc = 0xFFFFFFFF
    for b in data:
        crc = _CRC32C[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _masked(data):
    crc = crc32c(data)
    return struct.pack('<I', (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF)


def tfrecord(record):
    """One TFRecord frame: uint64 length, masked CRC-32C of the length,
    the data, masked CRC-32C of the data (little-endian)."""
    length = struct.pack('<Q', len(record))
    return length + _masked(length) + record + _masked(record)


def _write_secret(directory, secret):
    path = os.path.join(directory, 'secret')
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, 'wb') as f:
        f.write(secret)
    return path


def _sizing_args(num_executors, num_ps, master_node, eval_node):
    args = ['--num-executors', str(num_executors), '--num-ps', str(num_ps)]
    if master_node:
        args += ['--master-node', master_node]
    if eval_node:
        args.append('--eval-node')
    return args


def start_server(num_executors, num_ps, master_node=None, eval_node=False,
                 reservation_timeout=600, grace_secs=0, timeout=259200, workdir=None,
                 cli=None, secret=None, extra_args=()):
    """Start `reservation serve` with a fresh secret (0600 file in @workdir).
    Returns (process, info, secret, summary_path): info is the server's one
    line {address, cluster_id, cluster_template}. Raises RuntimeError with
    the server's message when it does not start."""
    workdir = workdir or tempfile.mkdtemp(prefix='cr-spark-')
    secret = secret or os.urandom(32)
    secret_file = _write_secret(workdir, secret)
    summary = os.path.join(workdir, 'summary.json')
    cmd = [cli or CLI, 'reservation', 'serve'] + \
        _sizing_args(num_executors, num_ps, master_node, eval_node) + \
        ['--timeout', str(reservation_timeout), '--grace-secs', str(grace_secs),
         '--shutdown-timeout', str(timeout), '--secret-file', secret_file,
         '--summary', summary] + list(extra_args)
    # The log goes to a file: a pipe nobody reads would stall a chatty server.
    log = open(os.path.join(workdir, 'server.log'), 'w+')
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True)
    proc.log = log
    line = proc.stdout.readline()
    if not line:
        proc.wait()
        raise RuntimeError('reservation server did not start (exit %s): %s'
                           % (proc.returncode, _server_log(proc)))
    return proc, json.loads(line), secret, summary


def _server_log(proc):
    proc.log.seek(0)
    return proc.log.read().strip()


def _config_text(secret_file, release_port, gpus_per_task, reservation_timeout):
    lines = ['resolvers = ( { plugin = "reservation";',
             '  secret_file = "%s";' % secret_file,
             '  release_port = %s;' % ('true' if release_port else 'false'),
             '  timeout = %s;' % float(reservation_timeout)]
    if gpus_per_task is not None:
        # the core's keys (docs/accelerators.md): TFoS leaves out busy GPUs
        lines.append('  gpus_per_task = %d; skip_busy_gpus = true;' % gpus_per_task)
    return '\n'.join(lines) + ' } );\n'


def _gpus_per_task(num_gpus, spark_gpus):
    """TFoS's choice: the user's count; else all of Spark's GPU resources;
    else 1 where nvidia-smi is there; else GPUs are left alone."""
    if num_gpus is not None:
        return num_gpus
    if spark_gpus:
        return len(spark_gpus)
    if shutil.which('nvidia-smi'):
        return 1
    return None


def _feed(proc, rows, done):
    """Write @rows as TFRecord frames to the program's stdin, then EOF."""
    try:
        for row in rows:
            proc.stdin.write(tfrecord(bytes(row)))
        proc.stdin.close()
    except (BrokenPipeError, ValueError):
        pass  # the program stopped reading: its exit status tells
    done.append(True)


def _run_fed(cmd, env, cwd, rows, feed_timeout, stdout, stderr):
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=stdout, stderr=stderr,
                            cwd=cwd)
    done = []
    writer = threading.Thread(target=_feed, args=(proc, rows, done), daemon=True)
    writer.start()
    writer.join(feed_timeout)
    if not done:
        proc.send_signal(signal.SIGTERM)  # exec --supervise passes it to the program
        proc.wait()
        raise RuntimeError('Timeout while feeding partition (%s s)' % feed_timeout)
    return proc.wait()


def run_task(executor_id, meta, spark_gpus=None, stdout=None, stderr=None, rows=None):
    """One task: write the secret (0600) and a config, run
    `cluster-resolver exec --supervise -- ARGV` and return its exit status.
    @meta: what run() hands every task (argv, server, secret, ...);
    @spark_gpus: the task's resources()['gpu'].addresses, or None;
    @rows: (nullable) bytes records streamed to the program's stdin as
    TFRecord frames, within meta['feed_timeout'] seconds."""
    workdir = tempfile.mkdtemp(prefix='cr-task-%d-' % executor_id)
    try:
        secret_file = _write_secret(workdir, bytes.fromhex(meta['secret']))
        conf = os.path.join(workdir, 'task.conf')
        with open(conf, 'w') as f:
            f.write(_config_text(secret_file, meta['release_port'],
                                 _gpus_per_task(meta.get('num_gpus'), spark_gpus),
                                 meta['reservation_timeout']))
        env = dict(os.environ)
        env.update({'CR_RESERVATION_SERVER': meta['server'],
                    'CR_EXECUTOR_ID': str(executor_id)})
        if meta.get('default_fs'):
            env['CR_DEFAULT_FS'] = meta['default_fs']
        if spark_gpus:
            env['CUDA_VISIBLE_DEVICES'] = ','.join(spark_gpus)
        cmd = [meta.get('cli') or CLI, '--config', conf, 'exec', '--supervise', '--'] + \
            list(meta['argv'])
        cwd = meta.get('working_dir') or None
        if rows is not None:
            return _run_fed(cmd, env, cwd, rows, meta.get('feed_timeout', 600), stdout, stderr)
        return subprocess.call(cmd, env=env, stdout=stdout, stderr=stderr, cwd=cwd)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def partition_function(meta):
    """The mapPartitionsWithIndex function: the partition's index is the
    executor id (TFoS: the element, which parallelize(range(N), N) makes the
    same). With meta['feed'] the elements are (executor id, record) pairs
    whose records go to the program's stdin. A failing program fails the
    Spark task."""
    def task(index, iterator):
        executor_id = index
        rows = (record for _, record in iterator) if meta.get('feed') else None
        if rows is None:
            for _ in iterator:
                pass
        spark_gpus = None
        try:
            from pyspark import TaskContext
            ctx = TaskContext.get()
            res = ctx.resources() if ctx is not None else {}
            if 'gpu' in res:
                spark_gpus = list(res['gpu'].addresses)
        except ImportError:
            pass
        rc = run_task(executor_id, meta, spark_gpus, rows=rows)
        if rc != 0:
            raise RuntimeError('executor %d: program exited %d' % (executor_id, rc))
        yield (executor_id, rc)
    return task


def feed_targets(template):
    """The executors that get data: all but ps and evaluator (TFoS feeds
    its worker_list)."""
    return sorted(e for job, ids in template.items() if job not in ('ps', 'evaluator')
                  for e in ids)


class Cluster(object):
    """What run() returns: the server, the Spark job's thread, and the
    server's summary once shutdown() has waited for both."""

    def __init__(self, server, info, job, summary_path):
        self.server = server
        self.info = info
        self.cluster_template = info.get('cluster_template')
        self.cluster_id = info.get('cluster_id')
        self._job = job
        self._summary_path = summary_path
        self.summary = None

    def shutdown(self):
        """Wait for the tasks and the server (which stops the ps and
        evaluator after the workers and grace_secs). Raises RuntimeError
        when the server or the Spark job failed."""
        self._job.join()
        rc = self.server.wait()
        err = _server_log(self.server)
        if os.path.exists(self._summary_path):
            with open(self._summary_path) as f:
                self.summary = json.load(f)
        if self._job.error is not None:
            raise RuntimeError('Spark job failed: %s' % self._job.error)
        if rc != 0:
            raise RuntimeError('reservation server exited %d: %s' % (rc, err.strip()))
        return self.summary


class _Job(threading.Thread):
    def __init__(self, rdd_fn):
        threading.Thread.__init__(self, daemon=True)
        self._fn = rdd_fn
        self.error = None
        self.result = None

    def run(self):
        try:
            self.result = self._fn()
        except Exception as e:  # the Spark job's failure, reported by shutdown()
            self.error = e


def run(sc, argv, num_executors, num_ps, master_node=None, eval_node=False,
        reservation_timeout=600, release_port=True, num_gpus=None, grace_secs=0,
        timeout=259200, barrier=True, feed_rdd=None, feed_timeout=600):
    """Start the server and the N tasks (TFoS's TFCluster.run). Returns a
    Cluster; call its shutdown() to wait for the end. barrier=False where
    Spark refuses barrier mode (dynamic allocation). @feed_rdd: bytes
    records, streamed to the workers' stdin in TFRecord framing, each
    worker one share of the partitions; the ps and evaluator get none."""
    proc, info, secret, summary = start_server(num_executors, num_ps, master_node, eval_node,
                                               reservation_timeout, grace_secs, timeout)
    default_fs = sc._jsc.hadoopConfiguration().get('fs.defaultFS')
    meta = {'argv': list(argv), 'server': info['address'], 'secret': secret.hex(),
            'release_port': release_port, 'num_gpus': num_gpus,
            'reservation_timeout': reservation_timeout, 'cli': CLI,
            'default_fs': normalize_default_fs(default_fs), 'working_dir': os.getcwd(),
            'cluster_id': info['cluster_id'], 'feed': feed_rdd is not None,
            'feed_timeout': feed_timeout}
    if feed_rdd is None:
        rdd = sc.parallelize(range(num_executors), num_executors)
    else:
        targets = feed_targets(info['cluster_template'])
        rdd = feed_rdd.repartition(len(targets)) \
            .mapPartitionsWithIndex(lambda k, it: ((targets[k], r) for r in it)) \
            .partitionBy(num_executors, lambda executor_id: executor_id)
    if barrier:
        rdd = rdd.barrier()
    fn = partition_function(meta)
    job = _Job(lambda: rdd.mapPartitionsWithIndex(fn).collect())
    job.start()
    return Cluster(proc, info, job, summary)


if __name__ == '__main__':
    sys.stderr.write('cluster_resolver.spark is a library: import it on the Spark driver\n')
    sys.exit(2)
