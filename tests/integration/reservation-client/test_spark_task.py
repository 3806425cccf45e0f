#!/usr/bin/python3
"""test_spark_task.py - python/cluster_resolver/spark.py without Spark: the
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
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsv_harness as h  # noqa: E402
from harness import Results, SRC  # noqa: E402

sys.path.insert(0, os.path.join(SRC, 'python'))
import cluster_resolver.spark as crs  # noqa: E402

R = Results()
PROG = 'printf "%s|%s|%s" "$TF_CONFIG" "${CUDA_VISIBLE_DEVICES-unset}" ' \
       '"${CR_DEFAULT_FS-unset}" >"$OUT/task-$CR_EXECUTOR_ID"; ' \
       'if [ "$CR_EXECUTOR_ID" = 0 ]; then trap "exit 0" TERM; while :; do sleep 0.1; done; fi'


def partition(args):
    """One Spark partition: its elements and what the task function returns."""
    meta, executor_id, elements = args
    fn = crs.partition_function(meta)
    try:
        return list(fn(executor_id, iter(elements)))
    except RuntimeError as e:
        return str(e)


# The reader side of feed(), written apart from the helper: a bitwise
# CRC-32C and TFRecord's mask (length, masked CRC, data, masked CRC).
READER = r'''
import os, struct, sys
def crc(d):
    c = 0xFFFFFFFF
    for b in d:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 & -(c & 1))
    return c ^ 0xFFFFFFFF
def masked(d):
    c = crc(d)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
f, out = sys.stdin.buffer, []
while True:
    h = f.read(12)
    if not h:
        break
    n, hc = struct.unpack("<QI", h)
    d = f.read(n)
    (dc,) = struct.unpack("<I", f.read(4))
    out.append(d.hex() if hc == masked(h[:8]) and dc == masked(d) else "BAD")
open(os.environ["OUT"] + "/fed-" + os.environ["CR_EXECUTOR_ID"], "w").write(",".join(out))
if os.environ["CR_EXECUTOR_ID"] == "0":
    import signal, time
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    while True:
        time.sleep(0.1)
'''


def crc_cases():
    """CRC-32C check values of RFC 3720, B.4, and "123456789"."""
    cases = [(b'123456789', 0xE3069283), (bytes(32), 0x8A9136AA), (b'\xff' * 32, 0x62A8AB43),
             (bytes(range(32)), 0x46DD794E), (bytes(range(31, -1, -1)), 0x113FDB5C)]
    for data, want in cases:
        R.check('crc32c(%s...) == %#x' % (data[:4].hex(), want), crs.crc32c(data) == want,
                hex(crs.crc32c(data)))
    R.check('tfrecord(b"") frame', crs.tfrecord(b'')[:8] == bytes(8) and len(crs.tfrecord(b'')) == 16)


def feed():
    """feed: each worker's share streams to its stdin as TFRecord frames;
    the ps gets none (EOF at once)."""
    d = h.tmpdir()
    out = os.path.join(d, 'out')
    os.mkdir(out)
    os.environ['OUT'] = out
    try:
        proc, info, secret, summary = crs.start_server(
            3, 1, reservation_timeout=60, workdir=d, cli=h.CLI,
            extra_args=['--listen', '127.0.0.1:0', '--advertise', '127.0.0.1'])
        targets = crs.feed_targets(info['cluster_template'])
        R.check('feed: the targets are the workers', targets == [1, 2], repr(targets))
        records = {1: [b'', b'a', bytes(range(256)) * 300], 2: [b'\x00' * 70000], 0: []}
        meta = {'argv': [sys.executable, '-c', READER], 'server': info['address'],
                'secret': secret.hex(), 'release_port': True, 'num_gpus': None,
                'reservation_timeout': 60, 'cli': h.CLI, 'working_dir': d, 'feed': True,
                'feed_timeout': 60}
        with multiprocessing.Pool(3) as pool:
            results = pool.map(partition, [(meta, e, [(e, r) for r in records[e]])
                                           for e in range(3)])
        R.check('feed: each partition yields (executor id, 0)',
                results == [[(e, 0)] for e in range(3)], repr(results))
        R.check('feed: the server exits 0', proc.wait(60) == 0, crs._server_log(proc))
        for e in range(3):
            with open(os.path.join(out, 'fed-%d' % e)) as f:
                got = f.read()
            R.check('feed: executor %d read its %d records, CRCs right' % (e, len(records[e])),
                    got == ','.join(r.hex() for r in records[e]), got[:200])
    finally:
        shutil.rmtree(d)


def feed_timeout():
    """A program that does not read its stdin: the feed gives up after
    feed_timeout with TFoS's message, and the program is stopped."""
    d = h.tmpdir()
    try:
        proc, info, secret, summary = crs.start_server(
            1, 0, reservation_timeout=60, workdir=d, cli=h.CLI,
            extra_args=['--listen', '127.0.0.1:0', '--advertise', '127.0.0.1'])
        meta = {'argv': ['sleep', '60'], 'server': info['address'], 'secret': secret.hex(),
                'release_port': True, 'num_gpus': None, 'reservation_timeout': 60,
                'cli': h.CLI, 'working_dir': d, 'feed': True, 'feed_timeout': 2}
        t0 = time.monotonic()
        got = partition((meta, 0, [(0, b'x' * 65536)] * 64))
        took = time.monotonic() - t0
        R.check('feed_timeout: "Timeout while feeding partition" within seconds',
                got == 'Timeout while feeding partition (2 s)' and took < 20,
                '%r after %.1f s' % (got, took))
        R.check('feed_timeout: the server hears a failed worker (exit 1)', proc.wait(60) == 1,
                crs._server_log(proc))
    finally:
        shutil.rmtree(d)


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
            results = pool.map(partition, [(meta, e, [e]) for e in range(4)])
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
    crc_cases()
    tasks(0, '')
    if shutil.which('nvidia-smi') is None:
        tasks(None, 'unset')
    feed()
    feed_timeout()
    R.finish()


if __name__ == '__main__':
    main()
