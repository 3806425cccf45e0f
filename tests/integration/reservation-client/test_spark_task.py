#!/usr/bin/python3
"""test_spark_task.py - python/cluster_resolver_spark.py without Spark: the
driver side (start_server: secret file, `reservation serve`, its line) and
the very task function Spark runs (partition_function), in N local
processes, one per partition, as Spark's barrier stage would. Spark itself
runs in scripts/spark-check.sh where pyspark is installed."""
import json
import multiprocessing
import os
import shutil
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsv_harness as h  # noqa: E402
from harness import Results, SRC  # noqa: E402

sys.path.insert(0, os.path.join(SRC, 'python'))
import cluster_resolver_spark as crs  # noqa: E402

R = Results()
PROG = 'printf "%s|%s|%s" "$TF_CONFIG" "${CUDA_VISIBLE_DEVICES-unset}" ' \
       '"${CR_DEFAULT_FS-unset}" >"$OUT/task-$CR_EXECUTOR_ID"; ' \
       'if [ "$CR_EXECUTOR_ID" = 0 ]; then trap "exit 0" TERM; while :; do sleep 0.1; done; fi'


def partition(args):
    """One Spark partition: its elements and what the task function returns."""
    meta, executor_id = args
    fn = crs.partition_function(meta)
    try:
        return list(fn(iter([executor_id])))
    except RuntimeError as e:
        return str(e)


def normalize_cases():
    cases = [('file:///', 'file://'), ('file:///tmp/', 'file:///tmp'),
             ('file://', 'file://'), ('hdfs://nn:8020/', 'hdfs://nn:8020/'),
             (None, None), ('file:///data', 'file:///data')]
    for given, want in cases:
        R.check('normalize_default_fs(%r) == %r' % (given, want),
                crs.normalize_default_fs(given) == want)


def tasks(num_gpus, want_cvd):
    d = h.tmpdir()
    out = os.path.join(d, 'out')
    os.mkdir(out)
    os.environ['OUT'] = out
    os.environ['CLUSTER_RESOLVER_CONFIG'] = ''
    try:
        proc, info, secret, summary = crs.start_server(
            4, 1, master_node='chief', reservation_timeout=60, workdir=d, cli=h.CLI,
            extra_args=['--listen', '127.0.0.1:0', '--advertise', '127.0.0.1'])
        mode = stat.S_IMODE(os.stat(os.path.join(d, 'secret')).st_mode)
        R.check('driver: 32-byte secret in a 0600 file (num_gpus=%r)' % num_gpus,
                len(secret) == 32 and mode == 0o600, oct(mode))
        template = {'ps': [0], 'chief': [1], 'worker': [2, 3]}
        R.check('driver: the server line has the template', info['cluster_template'] == template,
                json.dumps(info))
        meta = {'argv': ['sh', '-c', PROG], 'server': info['address'], 'secret': secret.hex(),
                'release_port': True, 'num_gpus': num_gpus, 'reservation_timeout': 60,
                'cli': h.CLI, 'default_fs': crs.normalize_default_fs('file:///'),
                'working_dir': d, 'cluster_id': info['cluster_id']}
        with multiprocessing.Pool(4) as pool:
            results = pool.map(partition, [(meta, e) for e in range(4)])
        R.check('tasks: each partition yields (executor id, 0)',
                results == [[(e, 0)] for e in range(4)], repr(results))
        rc = proc.wait(60)
        R.check('driver: the server exits 0 once the ps is stopped', rc == 0,
                crs._server_log(proc))
        rows = {}
        for e in range(4):
            with open(os.path.join(out, 'task-%d' % e)) as f:
                rows[e] = f.read().split('|')
        clusters = [json.loads(rows[e][0])['cluster'] for e in range(4)]
        roles = [(json.loads(rows[e][0])['task']['type'], json.loads(rows[e][0])['task']['index'])
                 for e in range(4)]
        R.check('tasks: one cluster, TFoS roles',
                all(c == clusters[0] for c in clusters) and list(clusters[0]) == list(template)
                and roles == [('ps', 0), ('chief', 0), ('worker', 0), ('worker', 1)],
                repr(rows))
        R.check('tasks: CUDA_VISIBLE_DEVICES %r, CR_DEFAULT_FS file://' % want_cvd,
                all(rows[e][1:] == [want_cvd, 'file://'] for e in range(4)), repr(rows))
        with open(summary) as f:
            summ = json.load(f)
        R.check('driver: summary says the ps was stopped by the server',
                sorted((x['executor_id'], x['stopped_by_server']) for x in summ)
                == [(0, True), (1, False), (2, False), (3, False)], json.dumps(summ))
    finally:
        shutil.rmtree(d)


def main():
    normalize_cases()
    tasks(0, '')
    if shutil.which('nvidia-smi') is None:
        tasks(None, 'unset')
    R.finish()


if __name__ == '__main__':
    main()
