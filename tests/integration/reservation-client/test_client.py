#!/usr/bin/python3
"""test_client.py - reservation.so against the real `cluster-resolver
reservation serve` on 127.0.0.1: N `resolve` clients started in shuffled
order all print one cluster and each its own identity; GPU slots; the
secret checks; errors naming the server; timeouts naming the missing;
supervised shutdown of the ps; the release_port = false descriptor."""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rsv_harness as h  # noqa: E402
from harness import Results  # noqa: E402

R = Results()
ADDR = '127.0.0.1:%d'


def template_cluster(ports, template):
    """The cluster TFoS builds: jobs in template order, executor order."""
    return {job: [ADDR % ports[e] for e in ids] for job, ids in template.items()}


def roles(template, n):
    role = {}
    for job, ids in template.items():
        for k, e in enumerate(ids):
            role[e] = (job, k)
    return [role.get(e, ('default', -1)) for e in range(n)]


def formation():
    """5 executors, 1 ps, chief, evaluator: clients in shuffled order."""
    d = h.tmpdir()
    srv = h.Server(d, ['--num-executors', '5', '--num-ps', '1', '--master-node', 'chief',
                       '--eval-node', '--timeout', '60'])
    try:
        template = {'ps': [0], 'chief': [1], 'evaluator': [2], 'worker': [3, 4]}
        R.check('formation: server prints its template',
                srv.info['cluster_template'] == template, json.dumps(srv.info))
        ports = h.free_ports(5)
        order = list(range(5))
        random.Random(15).shuffle(order)
        cl = h.Client(d, 'c')
        procs = {}
        for e in order:
            procs[e] = cl.start(['resolve', '--format', 'json'], srv.address, e,
                                {'TENSORFLOW_PORT': str(ports[e])})
        res = h.run_all([procs[e] for e in range(5)])
        cluster = template_cluster(ports, template)
        for e, (rc, out, err) in enumerate(res):
            job, index = roles(template, 5)[e]
            want = {'cluster': cluster, 'task': {'type': job, 'index': index},
                    'rpc_layer': 'grpc', 'environment': 'cloud'}
            got = json.loads(out) if rc == 0 else {}
            got = {k: got.get(k) for k in want}
            R.check('formation: executor %d is %s:%d in the one cluster' % (e, job, index),
                    rc == 0 and got == want, 'rc=%d\n%s\n%s' % (rc, out, err))
    finally:
        srv.stop()
        shutil.rmtree(d)


def explain():
    """`explain --json`: the facts of one client, and no secret."""
    d = h.tmpdir()
    srv = h.Server(d, ['--num-executors', '1', '--num-ps', '0', '--timeout', '60'])
    try:
        port = h.free_ports(1)[0]
        cl = h.Client(d, 'c')
        rc, out, err = h.run_all([cl.start(['explain', '--json'], srv.address, 0,
                                           {'TENSORFLOW_PORT': str(port)})])[0]
        got = json.loads(out)['resolvers'][0]['facts'] if rc == 0 else None
        want = {'server': srv.address, 'executor_id': 0, 'cluster_id': srv.info['cluster_id'],
                'address': ADDR % port}
        R.check('explain: facts server, executor_id, cluster_id, address', got == want,
                'rc=%d\n%s\n%s' % (rc, out, err))
        R.check('explain: the secret is not shown',
                h.SECRET.decode() not in out + err and cl.secret_file not in out + err)
    finally:
        srv.stop()
        shutil.rmtree(d)


def gpu_slots():
    """4 clients on one host sharing CUDA_VISIBLE_DEVICES=0,1,2,3."""
    # gpus_per_task, expected per executor (None = the error line)
    cases = [
        (2, ['0,1', '2,3', '0,1', '2,3']),
        (1, ['0', '1', '2', '3']),
        (3, ['0,1,2'] * 4),
        (5, [None] * 4),
        (0, [''] * 4),
    ]
    for n, want in cases:
        d = h.tmpdir()
        srv = h.Server(d, ['--num-executors', '4', '--num-ps', '0', '--timeout', '60'])
        try:
            ports = h.free_ports(4)
            cl = h.Client(d, 'c', gpus_per_task=n)
            prog = ['exec', '--', 'sh', '-c', 'printf %s "${CUDA_VISIBLE_DEVICES-unset}"']
            procs = [cl.start(prog, srv.address, e, {'TENSORFLOW_PORT': str(ports[e]),
                                                     'CUDA_VISIBLE_DEVICES': '0,1,2,3'})
                     for e in range(4)]
            res = h.run_all(procs)
            for e, (rc, out, err) in enumerate(res):
                if want[e] is None:
                    # the core's message (TFoS's), naming the group's key
                    line = ("cluster-resolver: %s:3: gpus_per_task = 5: unable to allocate 5 "
                            "GPU(s) from available GPUs: [0, 1, 2, 3]\n" % cl.conf)
                    ok = rc == 1 and out == '' and err.endswith(line)
                else:
                    ok = rc == 0 and out == want[e]
                R.check('gpus_per_task = %d: executor %d gets %r' % (n, e, want[e]), ok,
                        'rc=%d out=%r\n%s' % (rc, out, err))
        finally:
            srv.stop()
            shutil.rmtree(d)


def gpu_nvml():
    """No CUDA_VISIBLE_DEVICES: the GPUs are NVML's, here the suite's
    stand-in libnvidia-ml.so.1 (tests/plugins/nvidia/fake-nvml) serving the
    8 GPUs of tests/fixtures/accel/nvml/dgx-a100.conf."""
    lib = os.path.join(os.environ.get('CR_TEST_BUILD_DIR', ''),
                       'tests/plugins/nvidia/fake-nvml/good')
    if not os.path.exists(os.path.join(lib, 'libnvidia-ml.so.1')):
        print('# gpu from NVML: skipped (fake-nvml not built)')
        return
    d = h.tmpdir()
    srv = h.Server(d, ['--num-executors', '4', '--num-ps', '0', '--timeout', '60'])
    try:
        cl = h.Client(d, 'c', gpus_per_task=2)
        prog = ['exec', '--', 'sh', '-c', 'printf %s "${CUDA_VISIBLE_DEVICES-unset}"']
        extra = {'LD_LIBRARY_PATH': lib, 'FAKE_NVML_CONFIG': os.path.join(
            h.harness.SRC, 'tests/fixtures/accel/nvml/dgx-a100.conf'),
            'CLUSTER_RESOLVER_PLUGIN_PATH': h.harness.plugin_path_without_manifest(d, 'nvidia')}
        ports = h.free_ports(4)
        procs = [cl.start(prog, srv.address, e, dict(extra, TENSORFLOW_PORT=str(ports[e])))
                 for e in range(4)]
        res = h.run_all(procs)
        want = ['0,1', '2,3', '4,5', '6,7']
        R.check('gpus_per_task = 2 over NVML\'s 8 GPUs: slots 0,1 2,3 4,5 6,7',
                [(r[0], r[1]) for r in res] == [(0, w) for w in want], repr(res))
    finally:
        srv.stop()
        shutil.rmtree(d)


def gpu_procfs():
    """The core's gpus_per_task (core/pipeline/gpus.c) takes the accelerator
    layer's GPUs: nvidia.so on the fake /proc root of 4 V100s (a fifth
    excluded), which reservation.so alone could not see; one executor
    asks its GPUs not to be shared (skip_busy_gpus, no NVML: none busy)."""
    d = h.tmpdir()
    srv = h.Server(d, ['--num-executors', '4', '--num-ps', '0', '--timeout', '60'])
    try:
        cl = h.Client(d, 'c', gpus_per_task=1, skip_busy_gpus=True)
        with open(cl.conf, 'a') as f:
            f.write('accelerators = ( { plugin = "nvidia"; library = "/nonexistent/lib.so.1";\n'
                    '  root = "%s/tests/fixtures/accel/roots/gpu-procfs"; } );\n'
                    % h.harness.SRC)
        prog = ['exec', '--', 'sh', '-c', 'printf %s "${CUDA_VISIBLE_DEVICES-unset}"']
        ports = h.free_ports(4)
        procs = [cl.start(prog, srv.address, e, {'TENSORFLOW_PORT': str(ports[e])})
                 for e in range(4)]
        res = h.run_all(procs)
        R.check('gpus_per_task = 1 over the /proc root\'s 4 GPUs: 0 1 2 3',
                [(r[0], r[1]) for r in res] == [(0, w) for w in ['0', '1', '2', '3']],
                repr(res))
    finally:
        srv.stop()
        shutil.rmtree(d)


def bad_secrets():
    """A wrong secret is refused by the handshake (exit 1, the server
    named); missing, short and loose files exit 2 naming the file."""
    d = h.tmpdir()
    srv = h.Server(d, ['--num-executors', '1', '--num-ps', '0', '--timeout', '30'])
    try:
        wrong = h.Client(d, 'wrong', secret=b'another-secret-of-enough-bytes')
        rc, out, err = h.run_all([wrong.start(['resolve'], srv.address, 0)])[0]
        R.check('wrong secret: exit 1 naming the server, secret not shown',
                rc == 1 and out == '' and srv.address in err and
                'another-secret' not in err and err.count('\n') == 1,
                'rc=%d\n%s' % (rc, err))
        short = h.Client(d, 'short', secret=b'too-short')
        loose = h.Client(d, 'loose', mode=0o644)
        missing = h.Client(d, 'missing')
        os.unlink(missing.secret_file)
        for name, cl in (('short', short), ('loose', loose), ('missing', missing)):
            rc, out, err = h.run_all([cl.start(['resolve'], srv.address, 0)])[0]
            R.check('%s secret file: exit 2 naming it' % name,
                    rc == 2 and out == '' and cl.secret_file in err and
                    err.count('\n') == 1, 'rc=%d\n%s' % (rc, err))
    finally:
        srv.stop()
        shutil.rmtree(d)


def bad_input():
    """Errors that need no running server, or only a closed port."""
    d = h.tmpdir()
    try:
        cl = h.Client(d, 'c', timeout=5.0)
        port = h.free_ports(1)[0]
        rc, out, err = h.run_all([cl.start(['resolve'], ADDR % port, 0)])[0]
        R.check('no server listening: exit 1 naming %s' % (ADDR % port),
                rc == 1 and out == '' and (ADDR % port) in err and err.count('\n') == 1,
                'rc=%d\n%s' % (rc, err))
        rc, out, err = h.run_all([cl.start(['resolve'], ADDR % port, 'x7')])[0]
        R.check('CR_EXECUTOR_ID=x7: exit 2 naming it',
                rc == 2 and out == '' and 'CR_EXECUTOR_ID="x7"' in err, 'rc=%d\n%s' % (rc, err))
        rc, out, err = h.run_all([cl.start(['resolve'], ADDR % port, None)])[0]
        R.check('no executor id: exit 2', rc == 2 and out == '' and 'CR_EXECUTOR_ID' in err,
                'rc=%d\n%s' % (rc, err))
    finally:
        shutil.rmtree(d)


def registrations():
    """Out-of-range and duplicate executors are refused by the server, and
    the client says so naming it; a missing one times out naming it."""
    d = h.tmpdir()
    srv = h.Server(d, ['--num-executors', '3', '--num-ps', '0', '--timeout', '3'])
    try:
        cl = h.Client(d, 'c')
        rc, out, err = h.run_all([cl.start(['resolve'], srv.address, 3)])[0]
        R.check('executor 3 of 3: refused, exit 1 naming the server',
                rc == 1 and out == '' and srv.address in err and err.count('\n') == 1,
                'rc=%d\n%s' % (rc, err))
        first = cl.start(['resolve'], srv.address, 0)
        dup = cl.start(['resolve'], srv.address, 0)
        two = cl.start(['resolve'], srv.address, 1)
        res = h.run_all([first, dup, two])
        refused = [r for r in res[:2] if r[0] == 1 and srv.address in r[2] and
                   '127.0.0.1' in r[2]]
        R.check('duplicate executor 0: one of the two refused naming both hosts',
                len(refused) >= 1, repr(res))
        timed = [r for r in res if 'missing executors 2' in r[2]]
        R.check('timeout: the waiting clients name missing executor 2, exit 1',
                len(timed) >= 2 and all(r[0] == 1 and r[1] == '' for r in timed), repr(res))
        R.check('timeout: the server exits 1', srv.wait() == 1, srv.stderr())
    finally:
        srv.stop()
        shutil.rmtree(d)


def waiting():
    """A client still waiting in WAIT after `progress` seconds says once what
    it waits for; one answered sooner says nothing."""
    d = h.tmpdir()
    srv = h.Server(d, ['--num-executors', '2', '--num-ps', '0', '--timeout', '60'])
    try:
        cl = h.Client(d, 'c', progress=1.0)
        first = cl.start(['resolve'], srv.address, 0)
        time.sleep(2.5)
        res = h.run_all([first, cl.start(['resolve'], srv.address, 1)])
        want = re.compile(r"cluster-resolver: warning: resolver 'reservation': executor 0 is "
                          r"registered with reservation server %s as 127\.0\.0\.1:\d+; waiting "
                          r"1 s so far for the other executors to register \(timeout 600 s\)\n\Z"
                          % re.escape(srv.address))
        R.check('waiting: after 1 s executor 0 says once what it waits for',
                res[0][0] == 0 and want.match(res[0][2]) is not None, repr(res[0]))
        R.check('waiting: executor 1, answered at once, says nothing',
                res[1][0] == 0 and res[1][2] == '', repr(res[1]))
    finally:
        srv.stop()
        shutil.rmtree(d)


def late():
    """A registration after the cluster formed is refused: a lost task
    cannot rejoin (TFoS would have waited forever)."""
    d = h.tmpdir()
    srv = h.Server(d, ['--num-executors', '2', '--num-ps', '0', '--timeout', '60'])
    try:
        cl = h.Client(d, 'c')
        res = h.run_all([cl.start(['resolve'], srv.address, e) for e in range(2)])
        R.check('late: the cluster forms', [r[0] for r in res] == [0, 0], repr(res))
        rc, out, err = h.run_all([cl.start(['resolve'], srv.address, 0)])[0]
        R.check('late: executor 0 again is refused naming the server, exit 1',
                rc == 1 and out == '' and srv.address in err and 'cluster formed' in err and
                err.count('\n') == 1, 'rc=%d\n%s' % (rc, err))
    finally:
        srv.stop()
        shutil.rmtree(d)


PS_PROG = 'echo started >"$OUT/ps"; trap "echo stopped >>\\"$OUT/ps\\"; exit 0" TERM; ' \
          'while :; do sleep 0.1; done'


def supervised():
    """exec --supervise: the workers' statuses go to the server as DONE;
    the server then stops the ps, and exits 0."""
    d = h.tmpdir()
    srv = h.Server(d, ['--num-executors', '3', '--num-ps', '1', '--timeout', '60',
                       '--grace-secs', '1'])
    try:
        cl = h.Client(d, 'c')
        out_dir = os.path.join(d, 'out')
        os.mkdir(out_dir)
        progs = {0: ['sh', '-c', PS_PROG], 1: ['sh', '-c', 'sleep 1; exit 0'],
                 2: ['sh', '-c', 'exit 0']}
        procs = [cl.start(['exec', '--supervise', '--'] + progs[e], srv.address, e,
                          {'OUT': out_dir}) for e in range(3)]
        res = h.run_all(procs)
        R.check('supervised: every task exits 0 (the ps stopped on SIGTERM)',
                [r[0] for r in res] == [0, 0, 0], repr(res))
        with open(os.path.join(out_dir, 'ps')) as f:
            R.check('supervised: the ps got SIGTERM', f.read() == 'started\nstopped\n')
        R.check('supervised: the server exits 0', srv.wait() == 0, srv.stderr())
        summ = srv.summary()
        got = sorted((x['executor_id'], x['type'], x['exit_status'], x['stopped_by_server'])
                     for x in summ)
        want = [(0, 'ps', 0, True), (1, 'worker', 0, False), (2, 'worker', 0, False)]
        R.check('supervised: summary', got == want, json.dumps(summ))
    finally:
        srv.stop()
        shutil.rmtree(d)


FD_PROG = r'''
import json, os, socket, sys
fd = int(os.environ["CR_RESERVED_PORT_FD"])
held = socket.socket(fileno=fd)
port = held.getsockname()[1]
me = json.loads(os.environ["TF_CONFIG"])
mine = me["cluster"][me["task"]["type"]][me["task"]["index"]]
held.close()
s = socket.socket()
s.bind(("0.0.0.0", port))
s.listen(1)
print("%s %s" % (mine == "127.0.0.1:%d" % port, port))
'''

FREE_PROG = r'''
import json, os, socket
me = json.loads(os.environ["TF_CONFIG"])
port = int(me["cluster"][me["task"]["type"]][me["task"]["index"]].rsplit(":", 1)[1])
s = socket.socket()
s.bind(("0.0.0.0", port))
print("%s %s" % ("CR_RESERVED_PORT_FD" in os.environ, port))
'''


def release_port():
    """release_port = false: the program gets the bound socket, closes it
    and binds the port; = true: nothing is passed and the port is free."""
    for release, prog, want in ((False, FD_PROG, 'True'), (True, FREE_PROG, 'False')):
        d = h.tmpdir()
        srv = h.Server(d, ['--num-executors', '1', '--num-ps', '0', '--timeout', '30'])
        try:
            cl = h.Client(d, 'c', release_port=release)
            for sup in ([], ['--supervise']):
                if sup:
                    srv.stop()
                    srv = h.Server(d, ['--num-executors', '1', '--num-ps', '0',
                                       '--timeout', '30'])
                rc, out, err = h.run_all([cl.start(['exec'] + sup + ['--', sys.executable,
                                                                      '-c', prog],
                                                   srv.address, 0)])[0]
                R.check('release_port = %s%s: %s' % (
                    'true' if release else 'false', ' (supervised)' if sup else '',
                    'fd passed, closed, port bound' if not release else 'port free'),
                    rc == 0 and out.split(' ')[0] == want, 'rc=%d\n%s\n%s' % (rc, out, err))
        finally:
            srv.stop()
            shutil.rmtree(d)


def valgrind_client():
    """One resolve client under valgrind (normal build only)."""
    if os.environ.get('CR_SANITIZE_BUILD') == '1' or not shutil.which('valgrind'):
        print('# valgrind: skipped (%s)' % ('sanitizer build' if shutil.which('valgrind')
                                             else 'not installed'))
        return
    d = h.tmpdir()
    srv = h.Server(d, ['--num-executors', '1', '--num-ps', '0', '--timeout', '120'])
    try:
        cl = h.Client(d, 'c')
        prefix = h.VALGRIND
        rc, out, err = h.run_all([cl.start(['exec', '--supervise', '--', 'true'], srv.address,
                                           0, prefix=prefix)], timeout=120)[0]
        R.check('valgrind: a supervised client is clean', rc == 0, 'rc=%d\n%s' % (rc, err))
    finally:
        srv.stop()
        shutil.rmtree(d)


def main():
    subprocess.run([h.CLI, '--version'], check=True, stdout=subprocess.DEVNULL)
    formation()
    explain()
    gpu_slots()
    gpu_nvml()
    gpu_procfs()
    bad_secrets()
    bad_input()
    registrations()
    waiting()
    late()
    supervised()
    release_port()
    valgrind_client()
    R.finish()


if __name__ == '__main__':
    main()
