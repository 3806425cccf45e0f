"""formation.py BUILD - the numbers of bench/reservation.sh: for N in 16,
256, 1024, the median of 3 formations (server started, N clients started
at once, until all N printed the cluster) and of 3 rounds of N parallel
`--version`, and of N parallel `resolve` of a static one-task config (what
each client costs without the server), the ratios, and the server's peak
RSS (VmHWM)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

build = sys.argv[1]
cli = os.path.join(build, 'bin', 'cluster-resolver')
env = {'PATH': '/usr/bin:/bin', 'HOME': '/tmp', 'LANG': 'C', 'CLUSTER_RESOLVER_CONFIG': '',
       'CLUSTER_RESOLVER_PLUGIN_PATH': os.path.join(build, 'lib/cluster-resolver/resolvers')}
tmp = tempfile.mkdtemp(prefix='cr-bench-rsv.')
secret = os.path.join(tmp, 'secret')
with open(secret, 'wb') as f:
    f.write(os.urandom(32))
os.chmod(secret, 0o600)
static = os.path.join(tmp, 'static.conf')
with open(static, 'w') as f:
    f.write('resolvers = ( { plugin = "simple"; cluster = { worker = [ "127.0.0.1:2222" ]; }; } );\n'
            'task = { type = "worker"; id = 0; };\n')
conf = os.path.join(tmp, 'client.conf')
with open(conf, 'w') as f:
    f.write('resolvers = ( { plugin = "reservation"; secret_file = "%s"; } );\n' % secret)


def parallel(argvs, envs):
    t0 = time.monotonic()
    procs = [subprocess.Popen(a, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
             for a, e in zip(argvs, envs)]
    outs = [p.communicate() for p in procs]
    t = time.monotonic() - t0
    bad = [(p.returncode, o[1][-300:]) for p, o in zip(procs, outs) if p.returncode != 0]
    if bad:
        raise SystemExit('a client failed: %r' % (bad[:3],))
    return t


def formation(n):
    srv = subprocess.Popen([cli, 'reservation', 'serve', '--num-executors', str(n),
                            '--num-ps', '0', '--listen', '127.0.0.1:0', '--secret-file',
                            secret, '--timeout', '120'],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    addr = json.loads(srv.stdout.readline())['address']
    envs = [dict(env, CR_RESERVATION_SERVER=addr, CR_EXECUTOR_ID=str(i),
                 TENSORFLOW_PORT=str(20000 + i)) for i in range(n)]
    t = parallel([[cli, '-c', conf, 'resolve', '--format', 'json']] * n, envs)
    with open('/proc/%d/status' % srv.pid) as f:
        hwm = [line.split()[1] for line in f if line.startswith('VmHWM')][0]
    srv.kill()
    srv.wait()
    return t, int(hwm)


print('| clients | formation | N x `--version` | ratio | N x static `resolve` | ratio | '
      'server peak RSS |')
print('|---|---|---|---|---|---|---|')
for n in (16, 256, 1024):
    form, base, stat, rss = [], [], [], []
    for _ in range(3):
        t, h = formation(n)
        form.append(t)
        rss.append(h)
        base.append(parallel([[cli, '--version']] * n, [env] * n))
        stat.append(parallel([[cli, '-c', static, 'resolve', '--format', 'json']] * n,
                             [env] * n))
    f, b, r = statistics.median(form), statistics.median(base), statistics.median(stat)
    print('| %d | %.3f s | %.3f s | %.2fx | %.3f s | %.2fx | %.1f MiB |'
          % (n, f, b, f / b, r, f / r, max(rss) / 1024))
