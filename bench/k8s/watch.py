#!/usr/bin/python3
"""bench/k8s/watch.py - the k8s part of bench/watch.sh (issue 26 §6).

    watch.py BUILD_DIR TMP    env: CR_WATCH_PODS (10000), CR_WATCH_EVENTS (100),
                              CR_WATCH_HEARTBEATS (100000), CR_WATCH_BILL_PODS (1000),
                              CR_WATCH_BILL_SECONDS (60)

1. Latency (timed from the moment the fixture starts writing an event).
   An Indexed Job of CR_WATCH_PODS realistic pods (the fixture's
   `--generate`, as bench/k8s.sh) is watched at once by k8s.so (through
   cr_context_watch, tests/integration/k8s/k8s-watch-driver) and by
   `kubectl get pods --watch --watch-only -o jsonpath=...` on the same
   stream. CR_WATCH_EVENTS membership-changing events (a pod's IP changes),
   one after the generation of the one before: the time from the fixture
   writing the event to each watch (its D/events.jsonl) to
     - the plugin noticing it (its "membership changed" log line),
     - the new generation being returned (ABI 1.3: answered from the
       watch's pods, no list),
     - kubectl printing it;
   median and p99; and the LIST requests the plugin sent for the events
   (per change), beside the time of one full list of the job
   (`cluster-resolver resolve`, what each change cost before ABI 1.3),
   measured in the same run.
2. Memory. One watch takes CR_WATCH_HEARTBEATS MODIFIED events that change
   nothing (a status heartbeat); the driver's RSS after event 10,000 and
   after the last, and the growth between them.
3. The API server's bill per hour for a job of CR_WATCH_BILL_PODS pods,
   each pod a watcher: watch with bookmarks (one bookmark a minute, the
   requests the host's resync makes) against listing every watch_interval
   (300 s; and both at 30 s, the earlier default): a list's requests and bytes and a bookmark's size measured from
   the fixture's logs (a watch of CR_WATCH_BILL_SECONDS with a bookmark a
   minute), scaled to an hour and to every watcher: watch requests are one
   per watch_interval (the host's resync), bytes a bookmark a minute plus
   ~250 bytes of status line and headers per answer. A membership change
   costs each watcher one list in both (not counted).
CR_WATCH_ONLY=latency,memory,bill runs only those parts.
"""
import json
import os
import subprocess
import sys
import threading
import time

SRC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../..'))
FIXTURE = os.path.join(SRC, 'tests/fixtures/k8s/k8s_fixture.py')
BUILD, TMP = sys.argv[1], sys.argv[2]
DRIVER = os.path.join(BUILD, 'tests/integration/k8s/k8s-watch-driver')
PLUGIN = os.path.join(BUILD, 'lib/cluster-resolver/resolvers/k8s.so')
PODS = int(os.environ.get('CR_WATCH_PODS', '10000'))
EVENTS = int(os.environ.get('CR_WATCH_EVENTS', '100'))
BEATS = int(os.environ.get('CR_WATCH_HEARTBEATS', '100000'))
BILL_PODS = int(os.environ.get('CR_WATCH_BILL_PODS', '1000'))
BILL_S = float(os.environ.get('CR_WATCH_BILL_SECONDS', '120'))
SPAWNED = []  # every process started here: ended however the run ends
INTERVAL = 300  # k8s.so's watch_interval (default): the host's resync with a watch
OLD_INTERVAL = 30  # its earlier default, and how often several selectors are listed again


def wait(pred, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.01)
    sys.exit('bench/watch: timed out waiting for %s' % what)


def lines(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


class Fixture:
    def __init__(self, name, pods, extra=''):
        self.dir = os.path.join(TMP, name)
        self.ctl = os.path.join(TMP, name + '.ctl')
        open(self.ctl, 'w').close()
        self.proc = subprocess.Popen(
            ['/usr/bin/python3', FIXTURE, '--dir', self.dir, '--generate', 'worker=%d:bench' % pods,
             '--continue-ttl', '3600', '--watch-control', self.ctl],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        SPAWNED.append(self.proc)
        wait(lambda: os.path.exists(os.path.join(self.dir, 'port')), 600, 'the fixture')
        self.conf = os.path.join(TMP, name + '.conf')
        with open(self.conf, 'w') as f:
            f.write('resolvers = ( { plugin = "%s"; kubeconfig = "%s/kubeconfig"; '
                    'namespace = "bench"; page_size = 500; '
                    'jobs = { worker = [ "job-name=worker" ]; }; %s } );\n'
                    % (PLUGIN, self.dir, extra))

    def op(self, **op):
        with open(self.ctl, 'a') as f:
            f.write(json.dumps(op) + '\n')

    def requests(self):
        return [json.loads(x) for x in lines(os.path.join(self.dir, 'requests.jsonl'))]

    def events(self):
        return [json.loads(x) for x in lines(os.path.join(self.dir, 'events.jsonl'))]

    def agents(self):
        return {r['conn']: r['user_agent'] for r in self.requests() if r['query'].get('watch')}

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def driver(fx, count, extra=()):
    SPAWNED.append(subprocess.Popen([DRIVER, fx.conf, str(count), '-1'] + list(extra),
                                    stdout=subprocess.DEVNULL,
                                    stderr=open(os.path.join(TMP, 'driver.err'), 'a')))
    return SPAWNED[-1]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p / 100.0 * len(xs) + 0.5)) - 1))]


def latency():
    fx = Fixture('lat', PODS)
    times, notice = os.path.join(TMP, 'times'), os.path.join(TMP, 'notice')
    d = driver(fx, EVENTS + 1, ['--times', times, '--notice', notice])
    kout = {}
    kc = subprocess.Popen(
        ['kubectl', '--kubeconfig', os.path.join(fx.dir, 'kubeconfig'), '--cache-dir',
         os.path.join(TMP, 'kcache'), 'get', 'pods', '-n', 'bench', '-l', 'job-name=worker',
         '--watch', '--watch-only', '-o', 'jsonpath={.metadata.resourceVersion}{"\\n"}'],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    SPAWNED.append(kc)

    def read():
        for line in kc.stdout:
            kout[line.decode().strip()] = time.time()
    threading.Thread(target=read, daemon=True).start()
    wait(lambda: len(lines(times)) >= 1, 600, 'the first generation')
    wait(lambda: any(a.startswith('kubectl/') for a in fx.agents().values()), 600,
         "kubectl's watch")
    rvs = []

    def plugin_watches():
        return sum(1 for r in fx.requests() if r['query'].get('watch') and
                   r['user_agent'].startswith('cluster-resolver'))
    def plugin_lists():
        return sum(1 for r in fx.requests() if r['path'].endswith('/pods') and
                   not r['query'].get('watch') and
                   r['user_agent'].startswith('cluster-resolver'))
    lists0 = plugin_lists()
    for k in range(1, EVENTS + 1):
        # steady state: the plugin's watch (after the re-list of the last
        # generation) is open before the event is made
        n = k
        wait(lambda: plugin_watches() >= n, 120, 'watch %d' % k)
        time.sleep(0.05)
        before = len(fx.events())
        fx.op(op='ip', namespace='bench', name=fx_name(k % PODS), ip='10.250.%d.%d' % (k >> 8, k & 255))
        wait(lambda: len(lines(times)) >= k + 1, 120, 'generation %d' % (k + 1))
        # the fixture logs an event once it is written: a generation may
        # come first (it took 6 ms here)
        wait(lambda: any(e['type'] == 'MODIFIED' for e in fx.events()[before:]), 60,
             'event %d in the log' % k)
        new = [e for e in fx.events()[before:] if e['type'] == 'MODIFIED']
        rvs.append(new[0]['rv'])
    lists = plugin_lists() - lists0
    time.sleep(0.5)
    kc.terminate()
    d.wait()
    # the baseline, same run and fixture: one full list of the job
    relist = []
    for _ in range(5):
        t0 = time.monotonic()
        subprocess.run([os.path.join(BUILD, 'bin/cluster-resolver'), '--config', fx.conf,
                        'resolve'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        relist.append(1000 * (time.monotonic() - t0))
    agents = fx.agents()
    # when the event's write began on the watch that read it: kubectl's one,
    # the plugin's latest connection (a stream it had ended may be written too)
    emit, conn_of = {}, {}
    for e in fx.events():
        who = 'kubectl' if agents.get(e['conn'], '').startswith('kubectl/') else 'plugin'
        if e['conn'] >= conn_of.get((who, e['rv']), 0):
            conn_of[(who, e['rv'])] = e['conn']
            emit[(who, e['rv'])] = e['t']
    gen_t = [float(x.split()[1]) for x in lines(times)][1:]
    notice_t = [float(x) for x in lines(notice)]
    p_notice = [1000 * (notice_t[i] - emit[('plugin', rv)]) for i, rv in enumerate(rvs)]
    p_gen = [1000 * (gen_t[i] - emit[('plugin', rv)]) for i, rv in enumerate(rvs)]
    k_print = [1000 * (kout[str(rv)] - emit[('kubectl', rv)]) for rv in rvs
               if str(rv) in kout and ('kubectl', rv) in emit]
    fx.stop()
    return p_notice, p_gen, k_print, lists, relist


_names = {}


def fx_name(i):
    """The generated pod's name (tests/fixtures/k8s/k8s_pods.generate)."""
    if not _names:
        sys.path.insert(0, os.path.join(SRC, 'tests/fixtures/k8s'))
        import k8s_pods
        for s in k8s_pods.generate('worker', PODS, 'bench'):
            _names[len(_names)] = s['name']
    return _names[i]


def rss_kb(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


def memory():
    # JSON events: the fixture makes 100,000 of them in reasonable time
    fx = Fixture('mem', PODS, 'list_format = "json";')
    times = os.path.join(TMP, 'mem-times')
    d = driver(fx, 2, ['--times', times])
    wait(lambda: len(lines(times)) >= 1, 600, 'the first generation')
    wait(lambda: fx.agents(), 60, 'the watch')

    def sent():
        return sum(1 for e in fx.events() if e['type'] == 'MODIFIED')

    rss = {}
    done = 0
    for mark in (10000, BEATS):
        while done < mark:
            n = min(5000, mark - done)
            fx.op(op='heartbeats', namespace='bench', name=fx_name(1), count=n)
            done += n
            wait(lambda: sent() >= done, 600, '%d heartbeats' % done)
        time.sleep(1.0)
        rss[mark] = rss_kb(d.pid)
    fx.op(op='ip', namespace='bench', name=fx_name(1), ip='10.251.0.1')
    d.wait()
    fx.stop()
    return rss[10000], rss[BEATS]


def bill():
    fx = Fixture('bill', BILL_PODS)
    times = os.path.join(TMP, 'bill-times')
    d = driver(fx, 2, ['--times', times])
    wait(lambda: len(lines(times)) >= 1, 600, 'the first generation')
    lists = [r for r in fx.requests() if r['path'].endswith('/pods') and
             not r['query'].get('watch')]
    list_reqs, list_bytes = len(lists), sum(r.get('bytes', 0) for r in lists)
    n0 = len(fx.requests())
    t0 = time.monotonic()
    while time.monotonic() - t0 < BILL_S:
        time.sleep(min(60.0, BILL_S))
        fx.op(op='bookmark')
    time.sleep(0.5)
    took = time.monotonic() - t0
    watches = [r for r in fx.requests()[n0:] if r['query'].get('watch')]
    ev_bytes = sum(e['bytes'] for e in fx.events())
    marks = [e['bytes'] for e in fx.events() if e['type'] == 'BOOKMARK']
    mark_bytes = sum(marks) / len(marks) if marks else 0
    fx.op(op='ip', namespace='bench', name=fx_name(0), ip='10.251.0.2')
    d.wait()
    fx.stop()
    # Requests: each watcher's host ends its watch call every watch_interval
    # (a resync) and the plugin asks again from its last version: 3600 /
    # INTERVAL an hour (the count measured in the window is printed beside).
    # Bytes: the events and bookmarks written in the window, scaled, and
    # each answer's status line and headers (~250 bytes).
    w_reqs = 3600.0 / INTERVAL
    w_bytes = mark_bytes * 60 + w_reqs * 250  # a bookmark a minute
    l_reqs = list_reqs * 3600.0 / INTERVAL
    l_bytes = list_bytes * 3600.0 / INTERVAL
    return dict(list_reqs=list_reqs, list_bytes=list_bytes, watch_reqs_h=w_reqs,
                window=took, window_watches=len(watches), window_bytes=ev_bytes,
                mark_bytes=mark_bytes,
                watch_bytes_h=w_bytes, relist_reqs_h=l_reqs, relist_bytes_h=l_bytes)


def main():
    only = os.environ.get('CR_WATCH_ONLY', 'latency,memory,bill').split(',')
    if 'latency' in only:
        report_latency(*latency())
    if 'memory' in only:
        r10, r100 = memory()
        print('  memory: RSS after heartbeat 10,000 %.1f MiB, after %d %.1f MiB: growth %d KiB'
              % (r10 / 1024.0, BEATS, r100 / 1024.0, r100 - r10))
    if 'bill' in only:
        report_bill(bill())


def report_latency(p_notice, p_gen, k_print, lists, relist):
    print('k8s watch benchmark: %d realistic pods, %d membership-changing events' %
          (PODS, EVENTS))
    print('  latency from the fixture writing an event (ms)     median      p99')
    for name, xs in (('k8s.so watch notices it', p_notice),
                     ('new generation returned (from the watch)', p_gen),
                     ('kubectl get pods --watch prints it', k_print)):
        print('  %-48s %7.2f  %7.2f   (%d events)' % (name, pct(xs, 50), pct(xs, 99), len(xs)))
    print('  LIST requests of the plugin for the %d changes: %d (%.2f per change)'
          % (EVENTS, lists, lists / float(max(EVENTS, 1))))
    print('  baseline, one full list of the job (cluster-resolver resolve, what a change '
          'cost before): median %.0f ms, max %.0f ms (%d runs)'
          % (pct(relist, 50), max(relist), len(relist)))


def report_bill(b):
    w = BILL_PODS
    print("  the API server's bill per hour, %d-pod job, %d watchers:" % (BILL_PODS, w))
    print('    one list: %d requests, %.2f MB; one watcher over %.0f s: %d watch requests, '
          '%d bytes of bookmarks (%d each)' % (b['list_reqs'], b['list_bytes'] / 1e6,
                                               b['window'], b['window_watches'],
                                               b['window_bytes'], b['mark_bytes']))
    for every in (INTERVAL, OLD_INTERVAL):  # the hourly figures scale with 1 / interval
        k = float(INTERVAL) / every
        w_bytes = b['mark_bytes'] * 60 + b['watch_reqs_h'] * k * 250
        print('    watch + bookmarks, every %3d s: %8.0f requests, %10.2f MB' % (
            every, b['watch_reqs_h'] * k * w, w_bytes * w / 1e6))
        print('    re-list every %3d s:            %8.0f requests, %10.2f MB' % (
            every, b['relist_reqs_h'] * k * w, b['relist_bytes_h'] * k * w / 1e6))


if __name__ == '__main__':
    try:
        main()
    finally:  # a run that failed leaves no fixture, driver or kubectl behind
        for proc in SPAWNED:
            if proc.poll() is None:
                proc.terminate()
                proc.wait()
