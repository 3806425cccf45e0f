#!/usr/bin/python3
"""test_server.py - `cluster-resolver reservation plan|serve`: TFoS's
template and sizing rules, the usage errors, and the server against a
client written from docs/reservation.md alone (rsv_client.py): formation,
QUERY/QINFO, unknown requests, a wrong secret, tampered, replayed and
oversize frames, 200 hostile connections before AUTH beside a formation,
ABORT, a failed task, --grace-secs, --shutdown-timeout,
TFOS_SERVER_PORT ranges and the timeout message naming the missing."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'reservation-client'))
sys.path.insert(0, HERE)
import rsv_harness as h  # noqa: E402
import rsv_client  # noqa: E402
from harness import Results, clean_env  # noqa: E402

R = Results()
CLI = h.CLI
SIZING_ERR = 'cluster-resolver: reservation plan: '

# args -> (exit status, stdout, stderr)
PLAN = [
    (['--num-executors', '5', '--num-ps', '1', '--master-node', 'chief', '--eval-node'], 0,
     '{"cluster_template":{"ps":[0],"chief":[1],"evaluator":[2],"worker":[3,4]}}\n', ''),
    (['--num-executors', '3', '--num-ps', '1', '--executor-id', '2'], 0,
     '{"cluster_template":{"ps":[0],"worker":[1,2]},"task":{"type":"worker","index":1}}\n', ''),
    (['--num-executors', '3', '--num-ps', '1', '--executor-id', '0'], 0,
     '{"cluster_template":{"ps":[0],"worker":[1,2]},"task":{"type":"ps","index":0}}\n', ''),
    (['--num-executors', '3', '--num-ps', '1', '--executor-id', '7'], 0,
     '{"cluster_template":{"ps":[0],"worker":[1,2]},"task":{"type":"default","index":-1}}\n',
     ''),
    (['--num-executors', '2', '--num-ps', '1', '--master-node', 'master'], 0,
     '{"cluster_template":{"ps":[0],"master":[1]}}\n', ''),
    (['--num-executors', '1', '--num-ps', '0'], 0, '{"cluster_template":{"worker":[0]}}\n', ''),
    (['--num-executors', '2', '--num-ps', '2'], 2, '',
     SIZING_ERR + 'TensorFlow cluster requires at least one worker or master/chief node\n'),
    (['--num-executors', '2', '--num-ps', '2', '--eval-node'], 2, '',
     SIZING_ERR + 'TensorFlow cluster requires 3 nodes, but only 2 executors available\n'),
    (['--num-executors', '3', '--num-ps', '1', '--input-mode', 'spark', '--eval-node'], 2, '',
     SIZING_ERR + 'running evaluator nodes is only supported in InputMode.TENSORFLOW\n'),
    (['--num-executors', '3', '--num-ps', '1', '--input-mode', 'spark', '--driver-ps-nodes'],
     2, '', SIZING_ERR + 'running PS nodes on driver locally is only supported in '
     'InputMode.TENSORFLOW\n'),
    (['--num-executors', '3', '--num-ps', '1', '--input-mode', 'spark'], 0,
     '{"cluster_template":{"ps":[0],"worker":[1,2]}}\n', ''),
    (['--num-executors', '3', '--num-ps', '1', '--input-mode', 'pandas'], 2, '',
     SIZING_ERR + "--input-mode 'pandas': expected tensorflow or spark\n"),
    (['--num-executors', '3', '--num-ps', '1', '--master-node', 'boss'], 2, '',
     SIZING_ERR + "--master-node 'boss': expected chief or master\n"),
    (['--num-executors', '0', '--num-ps', '0'], 2, '',
     SIZING_ERR + '--num-executors must be above 0 and --num-ps at least 0\n'),
    (['--num-executors', '3'], 2, '',
     SIZING_ERR + '--num-executors and --num-ps are required\n'),
]


def run(args, env_extra=None, timeout=30):
    env = clean_env('/tmp', extra=env_extra)
    return subprocess.run([CLI] + args, capture_output=True, text=True, env=env,
                          timeout=timeout)


def plan_table():
    for args, rc, out, err in PLAN:
        r = run(['reservation', 'plan'] + args)
        R.check('plan %s' % ' '.join(args), (r.returncode, r.stdout, r.stderr) == (rc, out, err),
                'rc=%d\n%s%s' % (r.returncode, r.stdout, r.stderr))


def taken_port_before_free_one():
    """A listening socket on a loopback port P whose neighbour P + 1 was
    free a moment ago (tried a few times)."""
    for _ in range(50):
        busy = socket.socket()
        busy.bind(('127.0.0.1', 0))
        busy.listen()
        probe = socket.socket()
        try:
            probe.bind(('127.0.0.1', busy.getsockname()[1] + 1))
            return busy
        except (OSError, OverflowError):  # taken, or P is 65535
            busy.close()
        finally:
            probe.close()
    raise RuntimeError('no free port pair on 127.0.0.1')


def usage_table(d):
    good = os.path.join(d, 'good')
    with open(good, 'wb') as f:
        f.write(h.SECRET)
    os.chmod(good, 0o600)
    loose = os.path.join(d, 'loose')
    shutil.copy(good, loose)
    os.chmod(loose, 0o644)
    short = os.path.join(d, 'short')
    with open(short, 'wb') as f:
        f.write(b'123')
    os.chmod(short, 0o600)
    base = ['reservation', 'serve', '--num-executors', '2', '--num-ps', '0']
    serve_err = 'cluster-resolver: reservation serve: '
    cases = [
        (base, None, serve_err + '--secret-file is required\n'),
        (base + ['--secret-file', loose], None,
         serve_err + "secret file '%s': readable by group or others (chmod 600)\n" % loose),
        (base + ['--secret-file', short], None,
         serve_err + "secret file '%s': shorter than 16 bytes\n" % short),
        (base + ['--secret-file', d + '/none'], None,
         serve_err + "secret file '%s/none': No such file or directory\n" % d),
        (base + ['--secret-file', good], {'TFOS_SERVER_PORT': '1-2-3'},
         serve_err + "Invalid TFOS_SERVER_PORT: '1-2-3' is not PORT or FIRST-LAST "
         "(0..65535)\n"),
        (base + ['--secret-file', good], {'TFOS_SERVER_PORT': '9999-9997'},
         serve_err + "Invalid TFOS_SERVER_PORT: '9999-9997': the range is reversed\n"),
        (base + ['--secret-file', good, '--listen', '127.0.0.1:70000'], None,
         serve_err + "--listen '70000' is not PORT or FIRST-LAST (0..65535)\n"),
        (base + ['--secret-file', good, '--timeout', '0'], None,
         serve_err + '--timeout must be 1..31536000 seconds\n'),
        (base + ['--secret-file', good, '--shutdown-timeout', '-2'], None,
         serve_err + '--shutdown-timeout must be -1 or 1..31536000 seconds\n'),
        (base + ['--secret-file', good, '--auth-timeout', '0'], None,
         serve_err + '--auth-timeout must be 1..600 seconds\n'),
        (base + ['--secret-file', good, '--max-pending', '0'], None,
         serve_err + '--max-pending must be 1..65536\n'),
    ]
    for args, env, err in cases:
        r = run(args, env)
        R.check('serve usage: %s' % err.strip()[len(serve_err):][:60],
                (r.returncode, r.stdout, r.stderr) == (2, '', err),
                'rc=%d\n%s%s' % (r.returncode, r.stdout, r.stderr))
    # A port in use, then the range's next one, which must be free: a port
    # the kernel hands out can have its neighbour taken by another test.
    busy = taken_port_before_free_one()
    port = busy.getsockname()[1]
    r = run(base + ['--secret-file', good, '--listen', '127.0.0.1:%d' % port])
    R.check('serve: the only port is taken: exit 1 naming it',
            (r.returncode, r.stdout, r.stderr) ==
            (1, '', serve_err + 'cannot listen on 127.0.0.1 port %d: Address already in use\n'
             % port), r.stderr)
    srv = subprocess.Popen([CLI] + base + ['--secret-file', good, '--timeout', '1'],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=clean_env('/tmp', extra={
                               'TFOS_SERVER_PORT': '%d-%d' % (port, port + 1),
                               'TFOS_SERVER_HOST': 'driver-0'}))
    out, err = srv.communicate(timeout=30)
    try:
        address = json.loads(out)['address']
    except ValueError:
        address = None
    R.check('TFOS_SERVER_PORT=A-B with A taken: listens on B, advertises TFOS_SERVER_HOST',
            address == 'driver-0:%d' % (port + 1) and srv.returncode == 1, out + err)
    R.check('timeout: the server names every missing executor',
            err == 'cluster-resolver: reservation: timed out after 1 s: 0 of 2 registered; '
            'missing executors 0, 1 (registered: none)\n', err)
    busy.close()


# Set by main(): the server under valgrind for a second pass (normal build).
PREFIX = []


def server(d, sizing, extra=()):
    return h.Server(d, sizing, extra, prefix=PREFIX)


def reg(conn, eid, port):
    return conn.request('REG', {'executor_id': eid, 'host': '127.0.0.1', 'port': port,
                                'hostname': 'node', 'pid': 100 + eid})


def formation(d):
    srv = server(d, ['--num-executors', '2', '--num-ps', '1', '--timeout', '30'])
    try:
        a = rsv_client.Conn(srv.address, h.SECRET)
        R.check('HELLO carries the cluster id the server printed',
                a.hello['cluster_id'] == srv.info['cluster_id'] and a.hello['v'] == 1,
                json.dumps(a.hello))
        R.check('QUERY before formation: done false',
                a.request('QUERY') == {'type': 'OK', 'data': {'done': False}})
        R.check('REG executor 0: OK', reg(a, 0, 5000) == {'type': 'OK', 'data': {}})
        got = a.request('QINFO')
        R.check('QINFO lists the registration',
                got == {'type': 'OK', 'data': {'registrations': [
                    {'executor_id': 0, 'host': '127.0.0.1', 'port': 5000,
                     'hostname': 'node'}]}}, json.dumps(got))
        R.check('unknown request: ERR naming it',
                a.request('FROB') == {'type': 'ERR', 'data': {
                    'code': 'unknown', 'message': "unknown request 'FROB'"}})
        b = rsv_client.Conn(srv.address, h.SECRET)
        R.check('WAIT before REG: ERR', b.request('WAIT')['data']['message'] ==
                'WAIT before REG')
        got = reg(b, 0, 5001)
        R.check('a second live executor 0: ERR naming both', got['data']['message'] ==
                'executor 0 is already registered by 127.0.0.1 (pid 100); refused from '
                '127.0.0.1 (pid 100)', json.dumps(got))
        got = b.request('REG', {'executor_id': 1, 'host': 'evil\nhost', 'port': 1})
        R.check('a host with a newline: ERR', got['data']['code'] == 'address', json.dumps(got))
        a.send('WAIT')
        R.check('REG executor 1: OK', reg(b, 1, 5002)['type'] == 'OK')
        cluster = {'ps': ['127.0.0.1:5000'], 'worker': ['127.0.0.1:5002']}
        R.check('the waiting executor 0 gets the cluster and its role',
                a.recv() == {'type': 'CLUSTER', 'data': {
                    'cluster': cluster, 'task': {'type': 'ps', 'index': 0}}})
        R.check('a WAIT after formation is answered at once',
                b.request('WAIT') == {'type': 'CLUSTER', 'data': {
                    'cluster': cluster, 'task': {'type': 'worker', 'index': 0}}})
        c = rsv_client.Conn(srv.address, h.SECRET)
        R.check('REG after formation: cluster formed', reg(c, 1, 5003)['data']['message'] ==
                'cluster formed; a lost task cannot rejoin')
        R.check('DONE 0 from the worker: OK', b.request('DONE', {'exit_status': 0})['type'] ==
                'OK')
        R.check('then the ps gets STOP', a.recv()['type'] == 'STOP')
        a.request('DONE', {'exit_status': 143})
        R.check('the server exits 0 (the stopped ps does not count as a failure)',
                srv.wait() == 0, srv.stderr())
        summ = srv.summary()
        R.check('summary', summ == [
            {'executor_id': 0, 'host': '127.0.0.1', 'port': 5000, 'type': 'ps', 'index': 0,
             'exit_status': 143, 'stopped_by_server': True},
            {'executor_id': 1, 'host': '127.0.0.1', 'port': 5002, 'type': 'worker',
             'index': 0, 'exit_status': 0, 'stopped_by_server': False}], json.dumps(summ))
    finally:
        srv.stop()


def bad_frames(d):
    srv = server(d, ['--num-executors', '1', '--num-ps', '0', '--timeout', '30'])
    try:
        wrong = rsv_client.Conn(srv.address, b'another-secret-of-enough-length', auth=False)
        R.check('a wrong secret cannot even check HELLO', False, '')
    except ValueError:
        R.check('a wrong secret cannot even check HELLO', True)
    try:
        # The HELLO checked with the right secret, AUTH signed with another.
        wrong = rsv_client.Conn(srv.address, h.SECRET, auth=False)
        wrong.secret = b'another-secret-of-enough-length'
        wrong.cnonce = os.urandom(32)
        wrong.send('AUTH', {'nonce': wrong.cnonce.hex()})
        R.check('AUTH with another secret: closed', wrong.closed())
        t = rsv_client.Conn(srv.address, h.SECRET)
        f = bytearray(t.frame('REG', {'executor_id': 0, 'host': '127.0.0.1', 'port': 9}))
        f[-3] ^= 1
        t.raw(bytes(f))
        R.check('a tampered frame: closed', t.closed())
        p = rsv_client.Conn(srv.address, h.SECRET)
        q = p.frame('QUERY', {})
        p.raw(q)
        p.recv()
        p.raw(q)
        R.check('a replayed frame: closed', p.closed())
        o = rsv_client.Conn(srv.address, h.SECRET)
        o.raw((2 << 20).to_bytes(4, 'big') + b'x' * 64)
        R.check('an oversize frame: closed', o.closed())
        time.sleep(0.3)
        log = srv.stderr()
        want = ['bad tag on AUTH (a different secret?); connection closed',
                'bad tag (a frame altered, replayed or out of order); connection closed',
                'frame over 1 MiB; connection closed']
        R.check('each is logged with the peer', all(w in log for w in want) and
                log.count('127.0.0.1:') >= 4 and h.SECRET.decode() not in log, log)
        ok = rsv_client.Conn(srv.address, h.SECRET)
        R.check('the server still serves', reg(ok, 0, 7000)['type'] == 'OK')
    finally:
        srv.stop()


def rss_kib(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


def preauth(d):
    """Anyone who can connect cannot hold the server (issue 27 item 2): 200
    hostile connections (silent, trickling a byte at a time, announcing a
    1 MiB frame and sending half) beside an honest formation. The honest clients form, the
    hostile ones are dropped (the oldest past --max-pending, the rest at
    --auth-timeout or at the pre-AUTH frame limit) and the server's memory
    stays bounded."""
    srv = server(d, ['--num-executors', '2', '--num-ps', '0', '--timeout', '60'],
                 ['--auth-timeout', '2', '--max-pending', '32'])
    hostile = []
    try:
        host, port = srv.address.rsplit(':', 1)
        base = rss_kib(srv.proc.pid)
        for i in range(200):
            s = socket.create_connection((host, int(port)), timeout=10)
            if i % 3 == 1:      # a byte now and then: never a whole frame
                s.sendall(b'\x00')
            elif i % 3 == 2:    # 1 MiB announced, 512 KiB sent (until dropped)
                try:
                    s.sendall((1 << 20).to_bytes(4, 'big') + b'x' * (512 << 10))
                except OSError:
                    pass
            hostile.append(s)
        a = rsv_client.Conn(srv.address, h.SECRET)
        b = rsv_client.Conn(srv.address, h.SECRET)
        R.check('pre-auth: honest REG beside 200 hostile connections', reg(a, 0, 5000) ==
                {'type': 'OK', 'data': {}} and reg(b, 1, 5001)['type'] == 'OK')
        for s in hostile[1::3]:
            try:
                s.sendall(b'\x00')
            except OSError:
                pass
        a.send('WAIT')
        got = b.request('WAIT')
        R.check('pre-auth: the honest executors form the cluster',
                got['type'] == 'CLUSTER' and a.recv()['type'] == 'CLUSTER', json.dumps(got))
        grew = rss_kib(srv.proc.pid) - base
        R.check('pre-auth: the server grew by less than 16 MiB (%d KiB)' % grew, grew < 16384,
                str(grew))
        time.sleep(2.5)   # past --auth-timeout: every hostile connection is gone
        alive = 0
        for s in hostile:
            s.settimeout(0.05)
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
            except socket.timeout:
                alive += 1
            except OSError:
                pass
        R.check('pre-auth: no hostile connection is left open', alive == 0, str(alive))
        log = srv.stderr()
        want = ['--max-pending connections wait for AUTH: the oldest is dropped; connection closed',
                'no AUTH within 2 s (--auth-timeout); connection closed',
                'frame over 1 KiB before AUTH; connection closed']
        R.check('pre-auth: each drop is logged with its reason', all(w in log for w in want),
                log[-3000:])
        for c in (a, b):
            c.request('DONE', {'exit_status': 0})
        R.check('pre-auth: the server exits 0', srv.wait() == 0, srv.stderr()[-2000:])
    finally:
        for s in hostile:
            s.close()
        srv.stop()


def preauth_low_fds(d):
    """With few descriptors (prlimit --nofile=40) and 100 hostile
    connections waiting for AUTH, the oldest is dropped to make room and an
    honest formation still happens (issue 27 item 2)."""
    srv = h.Server(d, ['--num-executors', '2', '--num-ps', '0', '--timeout', '60'],
                   ['--auth-timeout', '30', '--max-pending', '1000'],
                   prefix=['prlimit', '--nofile=40:40'])
    hostile = []
    try:
        host, port = srv.address.rsplit(':', 1)
        for _ in range(100):
            hostile.append(socket.create_connection((host, int(port)), timeout=10))
        a = rsv_client.Conn(srv.address, h.SECRET)
        b = rsv_client.Conn(srv.address, h.SECRET)
        R.check('few descriptors: honest REG beside 100 hostile connections',
                reg(a, 0, 5000)['type'] == 'OK' and reg(b, 1, 5001)['type'] == 'OK')
        a.send('WAIT')
        R.check('few descriptors: the cluster forms',
                b.request('WAIT')['type'] == 'CLUSTER' and a.recv()['type'] == 'CLUSTER')
        R.check('few descriptors: the oldest waiting for AUTH made room',
                'no descriptor left for a new connection: the oldest not yet authenticated '
                'is dropped; connection closed' in srv.stderr(), srv.stderr()[-2000:])
        for c in (a, b):
            c.request('DONE', {'exit_status': 0})
        R.check('few descriptors: the server exits 0', srv.wait() == 0, srv.stderr()[-2000:])
    finally:
        for s in hostile:
            s.close()
        srv.stop()


def failures(d):
    # ABORT during formation: every registered client is told, exit 1.
    srv = server(d, ['--num-executors', '2', '--num-ps', '0', '--timeout', '30'])
    try:
        a = rsv_client.Conn(srv.address, h.SECRET)
        reg(a, 0, 5000)
        a.send('WAIT')
        b = rsv_client.Conn(srv.address, h.SECRET)
        b.request('ABORT', {'reason': 'spark job failed'})
        got = a.recv()
        R.check('ABORT: the waiter gets TIMEOUT naming the reason and the missing',
                got == {'type': 'TIMEOUT', 'data': {
                    'missing': [1], 'registered': [{'executor_id': 0, 'host': '127.0.0.1'}],
                    'required': 2, 'message': 'ABORT from %s: spark job failed: 1 of 2 '
                    'registered; missing executors 1 (registered: 127.0.0.1 0)' % b.peer()}},
                json.dumps(got))
        R.check('ABORT: the server exits 1', srv.wait() == 1, srv.stderr())
    finally:
        srv.stop()
    # A task that fails stops everyone; --shutdown-timeout does too.
    for name, extra, fail in (('a non-zero DONE', [], True),
                              ('--shutdown-timeout', ['--shutdown-timeout', '1'], False)):
        srv = server(d, ['--num-executors', '3', '--num-ps', '1', '--timeout', '30'], extra)
        try:
            conns = [rsv_client.Conn(srv.address, h.SECRET) for _ in range(3)]
            for e, c in enumerate(conns):
                reg(c, e, 6000 + e)
            for c in conns:
                c.request('WAIT')
            if fail:
                conns[1].request('DONE', {'exit_status': 3})
            stopped = [conns[e].recv()['type'] for e in ((0, 2) if fail else (0, 1, 2))]
            R.check('%s: STOP to every other task' % name, set(stopped) == {'STOP'}, stopped)
            for e in ((0, 2) if fail else (0, 1, 2)):
                conns[e].request('DONE', {'exit_status': 0})
            R.check('%s: the server exits 1' % name, srv.wait() == 1, srv.stderr())
        finally:
            srv.stop()


def grace(d):
    srv = server(d, ['--num-executors', '2', '--num-ps', '1', '--timeout', '30'],
                 ['--grace-secs', '2'])
    try:
        ps, w = rsv_client.Conn(srv.address, h.SECRET), rsv_client.Conn(srv.address, h.SECRET)
        reg(ps, 0, 5000)
        reg(w, 1, 5001)
        ps.request('WAIT')
        w.request('WAIT')
        t0 = time.monotonic()
        w.request('DONE', {'exit_status': 0})
        R.check('--grace-secs 2: the ps gets STOP after 2 s',
                ps.recv()['type'] == 'STOP' and time.monotonic() - t0 >= 1.9)
        ps.request('DONE', {'exit_status': 0})
        R.check('--grace-secs: exit 0', srv.wait() == 0, srv.stderr())
    finally:
        srv.stop()


def progress(d):
    # Every --progress SECS while forming: who is registered, who is missing
    # (at most 20 named); -v adds a line per registration. Not a terminal
    # here, so each report is a line of its own.
    srv = server(d, ['--num-executors', '3', '--num-ps', '0', '--timeout', '30'],
                 ['--progress', '1', '-v'])
    try:
        a, b = rsv_client.Conn(srv.address, h.SECRET), rsv_client.Conn(srv.address, h.SECRET)
        reg(a, 1, 5001)
        time.sleep(2.5)
        reg(b, 2, 5002)
        time.sleep(1.5)
        c = rsv_client.Conn(srv.address, h.SECRET)
        reg(c, 0, 5000)
        for conn in (a, b, c):
            conn.request('WAIT')
            conn.request('DONE', {'exit_status': 0})
        R.check('--progress: exit 0', srv.wait() == 0, srv.stderr())
        lines = [l for l in srv.stderr().splitlines() if ' registered' in l]
        want = ['cluster-resolver: reservation: executor 1 registered from 127.0.0.1:5001 '
                '(1 of 3)',
                'cluster-resolver: reservation: registered 1 of 3; missing executors 0, 2',
                'cluster-resolver: reservation: executor 2 registered from 127.0.0.1:5002 '
                '(2 of 3)',
                'cluster-resolver: reservation: registered 2 of 3; missing executors 0',
                'cluster-resolver: reservation: executor 0 registered from 127.0.0.1:5000 '
                '(3 of 3)']
        # Each report at least once (a loaded machine may skip none and add
        # none in between: the reports repeat only while nothing changes).
        squeezed = [l for i, l in enumerate(lines) if i == 0 or l != lines[i - 1]]
        R.check('--progress 1 -v: each registration, and between them who is missing',
                squeezed == want, '\n'.join(lines))
    finally:
        srv.stop()
    srv = server(d, ['--num-executors', '25', '--num-ps', '0', '--timeout', '2'],
                 ['--progress', '1'])
    try:
        R.check('--progress: no one registered, timed out: exit 1', srv.wait() == 1)
        err = srv.stderr().splitlines()
        R.check('--progress: at most 20 missing executors named, then how many more',
                err[0] == 'cluster-resolver: reservation: registered 0 of 25; missing executors '
                '0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, ... '
                '(5 more)' and err[-1].startswith(
                    'cluster-resolver: reservation: timed out after 2 s: 0 of 25 registered'),
                '\n'.join(err))
    finally:
        srv.stop()


def progress_on_a_terminal(d):
    # stderr a terminal: the progress is one line rewritten in place (\r,
    # erase to the end), and the next log line erases it first.
    import pty
    master, slave = pty.openpty()
    secret = os.path.join(d, 'tty.secret')
    h.harness.write(secret, '', 0o600)  # mode first, then the bytes
    with open(secret, 'wb') as f:
        f.write(h.SECRET)
    srv = subprocess.Popen(PREFIX + [CLI, 'reservation', 'serve', '--num-executors', '2',
                                     '--num-ps', '0', '--timeout', '3', '--progress', '1',
                                     '--listen', '127.0.0.1:0', '--secret-file', secret],
                           stdout=subprocess.PIPE, stderr=slave, env=clean_env(d))
    os.close(slave)
    srv.stdout.read()
    rc = srv.wait(timeout=30)
    got = b''
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    line = b'cluster-resolver: reservation: registered 0 of 2; missing executors 0, 1'
    want = (line + b'\r\x1b[K' + line + b'\r\x1b[K' +
            b'cluster-resolver: reservation: timed out after 3 s: 0 of 2 registered; '
            b'missing executors 0, 1 (registered: none)\r\n')
    R.check('--progress on a terminal: one line rewritten in place, erased by the next',
            rc == 1 and got == want, repr(got))


def main():
    d = h.tmpdir()
    try:
        plan_table()
        usage_table(d)
        for case in (formation, bad_frames, preauth, preauth_low_fds, failures, grace, progress,
                     progress_on_a_terminal):
            sub = os.path.join(d, case.__name__)
            os.mkdir(sub)
            case(sub)
        # Again with the server under valgrind: a finding makes it exit 99,
        # which every "the server exits N" check catches.
        if os.environ.get('CR_SANITIZE_BUILD') != '1' and shutil.which('valgrind'):
            PREFIX[:] = h.VALGRIND
            for case in (formation, failures):
                sub = os.path.join(d, 'valgrind-' + case.__name__)
                os.mkdir(sub)
                case(sub)
    finally:
        shutil.rmtree(d)
    R.finish()


main()
