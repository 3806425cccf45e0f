"""bench/elastic.sh's driver: a PyTorch job (Debian's torch, gloo, loopback)
going 2 -> 3 -> 2 REPS times under `exec --elastic --format torch` on the
default options (scale-down the Kubernetes way: C dropped from the hosts
file and its agent SIGTERMed at once), then the same under torchrun's own
elastic agent (c10d; scale-down: SIGTERM to C's torchrun). Per change: the
latency (the change to the first all_reduce of the new world on its last
member), program starts per member and failures. Median and max per row.

    torch.py CLI TRAIN REPS MODE...     MODE: ours, torchrun
"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

CLI, TRAIN, REPS, MODES = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
PY = '/usr/bin/python3'
ADDR = {'A': '127.0.0.1:29501', 'B': '127.0.0.2:29502', 'C': '127.0.0.3:29503'}
WAIT = 240  # a bound for a stuck change, never a measure


def records(d, members):
    out = []
    for m in members:
        try:
            with open(os.path.join(d, m + '.log')) as f:
                out += [dict(json.loads(line), member=m) for line in f if line.endswith('\n')]
        except FileNotFoundError:
            pass
    return out


def converge(d, members, ws, t0):
    """The time of the first step of the new world on its last member."""
    while time.time() < t0 + WAIT:
        recs = records(d, members)
        started = {r['pid']: r['t'] for r in recs if r['ev'] == 'start'}
        first = {}
        for r in recs:
            if (r['ev'] == 'step' and r['ws'] == ws and r['t'] > t0
                    and started.get(r['pid'], 0) > t0):
                first.setdefault(r['member'], r['t'])
        if len(first) == len(members):
            return max(first.values())
        time.sleep(0.2)
    return None


class Job:
    def __init__(self, mode):
        self.mode, self.d = mode, tempfile.mkdtemp(prefix='cr-elastic-bench-')
        self.procs, self.errs = {}, {}
        self.conf = os.path.join(self.d, 'cr.conf')
        with open(self.conf, 'w') as f:
            f.write('accelerators = ( );\nresolvers = ( { plugin = "simple"; hosts_file = "%s"; } );\n'
                    % os.path.join(self.d, 'hosts'))

    def hosts(self, members):
        tmp = os.path.join(self.d, 'hosts.new')
        with open(tmp, 'w') as f:
            f.writelines('worker %s\n' % ADDR[m] for m in members)
        os.replace(tmp, os.path.join(self.d, 'hosts'))

    def start(self, m):
        env = dict(os.environ, LOG=os.path.join(self.d, m + '.log'), CKPT=os.path.join(self.d, 'ckpt'),
                   STOP_FILE=os.path.join(self.d, 'stop'), GLOO_SOCKET_IFNAME='lo')
        if self.mode == 'ours':
            cmd = [CLI, '-c', self.conf, '--task-type', 'worker', '--task-id', 'ABC'.index(m).__str__(),
                   'exec', '--elastic', '--format', 'torch', '--', PY, TRAIN]
        else:
            cmd = [PY, '-m', 'torch.distributed.run', '--nnodes=2:3', '--nproc_per_node=1',
                   '--rdzv_backend=c10d', '--rdzv_endpoint=127.0.0.1:29400', '--rdzv_id=bench',
                   '--max_restarts=%d' % (4 * REPS), '--redirects', '2', '--tee', '2',
                   '--log_dir', os.path.join(self.d, 'tr-' + m), TRAIN]  # docs/install.md
        self.errs[m] = open(os.path.join(self.d, m + '.err'), 'ab')
        self.procs[m] = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=self.errs[m],
                                         start_new_session=True)

    def failures(self, m):
        with open(os.path.join(self.d, m + '.err'), errors='replace') as f:
            text = f.read()
        if self.mode == 'ours':  # counted ones; the change's are not
            return sum(('restart ' in l and ' of ' in l) or 'no restart' in l for l in text.splitlines())
        return text.count('failed (exitcode:')  # a worker's failure, as torchrun logs it

    def stop(self):
        open(os.path.join(self.d, 'stop'), 'w').close()
        end = time.time() + 60
        for p in self.procs.values():
            while p.poll() is None and time.time() < end:
                time.sleep(0.1)
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def run(mode):
    job, rows = Job(mode), []
    job.hosts('AB')
    t0 = time.time()
    job.start('A')
    job.start('B')
    form = converge(job.d, 'AB', 2, t0)
    time.sleep(3)
    for rep in range(REPS):
        for kind, members, ws in (('up', 'ABC', 3), ('down', 'AB', 2)):
            if kind == 'up':  # a fresh C each time
                open(os.path.join(job.d, 'C.log'), 'w').close()
            before = {m: job.failures(m) for m in 'AB'}
            nstart = {m: sum(r['ev'] == 'start' for r in records(job.d, m)) for m in 'ABC'}
            t = time.time()
            if kind == 'up':
                if mode == 'ours':
                    job.hosts('ABC')
                job.start('C')
            else:
                if mode == 'ours':
                    job.hosts('AB')
                job.procs['C'].send_signal(signal.SIGTERM)
            done = converge(job.d, members, ws, t)
            time.sleep(8)  # let anything the change set off happen
            starts = {m: sum(r['ev'] == 'start' for r in records(job.d, m)) - nstart[m] for m in members}
            fails = sum(job.failures(m) - before[m] for m in 'AB')
            row = dict(kind=kind, latency=None if done is None else done - t, starts=starts, failures=fails)
            if kind == 'down':
                job.procs['C'].wait(timeout=60)
                row['removed_exit'] = job.procs['C'].returncode
            rows.append(row)
            print(mode, json.dumps(row), flush=True)
    job.stop()
    if not os.environ.get('CR_BENCH_KEEP'):
        shutil.rmtree(job.d, ignore_errors=True)
    return form, rows


def summary(mode, form, rows):
    print('\n%s: first world formed in %s s' % (mode, 'never' if form is None else '%.2f' % (form - 0)))
    for kind in ('up', 'down'):
        rs = [r for r in rows if r['kind'] == kind]
        lat = [r['latency'] for r in rs if r['latency'] is not None]
        print('  %-4s latency median %s s, max %s s (%d of %d converged); starts per member %s; '
              'counted failures %d%s' % (
                  kind, '%.2f' % statistics.median(lat) if lat else '-',
                  '%.2f' % max(lat) if lat else '-', len(lat), len(rs),
                  sorted({tuple(sorted(r['starts'].items())) for r in rs}),
                  sum(r['failures'] for r in rs),
                  '; removed member exits %s' % sorted({r.get('removed_exit') for r in rs})
                  if kind == 'down' else ''))


for mode in MODES:
    t = time.time()
    form, rows = run(mode)
    summary(mode, None if form is None else form - t, rows)
