#!/usr/bin/python3
"""exec_agent.py - `exec --elastic` and `exec --supervise` against hostile
programs and servers (issue 36: N3, N5, N6, N9, D8), each with its exact
outcome; every wait is a bound (a hang detector, scaled with the build and
the machine), never a measure:
- N3: SIGTERM to the agent while it is inside a resolution (the k8s
  fixture answers the re-list 503 with Retry-After: 300) reaches the
  program, which writes its marker (before the resolution could end);
- N5: failure restarts back off (1 s, 2 s, 4 s between the starts, read
  from the program's own clock: lower bounds; at most 3 starts in a fixed
  5 s window of failures), and exit 126/127 (the
  program's own, or an exec that failed) is never restarted: one line;
- N6: a program that double-forks 50 helpers that exit leaves no zombie
  under the agent while it still runs (both modes);
- N9: SIGTERM to the agent reaches a stopped program (SIGCONT with it);
- D8: SIGKILL of the agent (or of its process group): the program's
  background child dies too."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('CR_TEST_SOURCE_DIR', os.path.normpath(os.path.join(HERE, '../..')))
sys.path.insert(0, os.path.join(SRC, 'tests/common'))
sys.path.insert(0, os.path.join(SRC, 'tests/integration/k8s'))
from harness import ensure_hermetic, need, clean_env, Results, time_scale  # noqa: E402

BOUND = 30 * time_scale()
E = 'cluster-resolver: exec: '


def wait_for(pred, bound=BOUND):
    end = time.monotonic() + bound
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.02)
    return pred()


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ''


def state(pid):
    """The /proc state letter of @pid ('' once it is gone)."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return ''


def zombies_of(ppid):
    n = 0
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % d) as f:
                fields = f.read().rsplit(')', 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if fields[0] == 'Z' and int(fields[1]) == ppid:
            n += 1
    return n


class Case:
    def __init__(self, d, conf_text, args, env=None, session=False):
        self.d = d
        conf = os.path.join(d, 'case.conf')
        with open(conf, 'w') as f:
            f.write(conf_text)
        self.err = open(os.path.join(d, 'err'), 'w+')
        self.proc = subprocess.Popen([os.environ['CR_CLI'], '--config', conf] + args, cwd=d,
                                     env=env or clean_env(d), stdout=subprocess.DEVNULL,
                                     stderr=self.err, start_new_session=session)

    def finish(self, bound=BOUND):
        try:
            rc = self.proc.wait(bound)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            rc = 'hang'
        self.err.seek(0)
        return rc, self.err.read()


def simple_conf(d):
    hosts = os.path.join(d, 'hosts')
    with open(hosts, 'w') as f:
        f.write('worker 127.0.0.1:1\n')
    return ('accelerators = ( );\nresolvers = ( { plugin = "simple"; hosts_file = "%s"; } );\n'
            % hosts)


def n3_signal_in_resolution(res, d):
    import k8s_harness as kh
    pods = os.path.join(d, 'pods.json')
    with open(pods, 'w') as f:
        json.dump([{'name': 'w-0', 'labels': {'job-name': 'w'}, 'phase': 'Running',
                    'podIP': '10.0.0.1'}], f)
    fx = kh.Fixture(pods=pods, watch=True)
    try:
        conf = ('accelerators = ( );\nresolvers = ( { plugin = "k8s"; kubeconfig = "%s"; '
                'namespace = "default"; port = 2222; watch_timeout = 1; max_retry_wait = 3600; '
                'jobs = { worker = [ "job-name=w" ]; }; } );\n' % fx.kubeconfig)
        prog = ('trap "echo TERM >>marker; exit 0" TERM; echo started >>marker; '
                'while :; do sleep 0.05; done')
        c = Case(d, conf, ['--task-type', 'worker', '--task-id', '0', 'exec', '--elastic',
                           '--settle', '0', '--', 'sh', '-c', prog], clean_env(fx.home))
        wait_for(lambda: read(os.path.join(d, 'marker')))
        # The next watch is refused (410), and the re-list it brings is
        # answered 503 with Retry-After: 300 s, again and again.
        fx.set_faults([{'watch': True, 'status': 410, 'count': -1},
                       {'watch': False, 'status': 503, 'retry_after': 300, 'count': -1}])
        in_list = wait_for(lambda: any(r.get('code') == 503 for r in fx.requests()))
        time.sleep(0.5)
        c.proc.send_signal(signal.SIGTERM)
        t0 = time.monotonic()
        wait_for(lambda: 'TERM' in read(os.path.join(d, 'marker')))
        print('# N3: the marker came %.3f s after the SIGTERM (information, not checked)' %
              (time.monotonic() - t0))
        marker = read(os.path.join(d, 'marker'))
        # The agent may still be inside the re-list (the core's to cut short).
        c.proc.kill()
        c.finish()
        res.check('N3: SIGTERM during a 503 Retry-After re-list reaches the program at once',
                  in_list and marker == 'started\nTERM\n',
                  'in the re-list: %s; marker %r' % (in_list, marker))
    finally:
        fx.stop()


def n5_backoff(res, d):
    prog = 'read up _ </proc/uptime; echo "$up" >>starts; exit 3'
    c = Case(d, simple_conf(d), ['exec', '--elastic', '--settle', '0', '--max-restarts', '3',
                                 '--', 'sh', '-c', prog])
    rc, err = c.finish(60 * time_scale())
    starts = [float(x) for x in read(os.path.join(d, 'starts')).split()]
    gaps = [round(b - a, 2) for a, b in zip(starts, starts[1:])]
    want = [E + "'sh' exited with 3; restart 1 of 3 in 1 s",
            E + "'sh' exited with 3; restart 2 of 3 in 2 s",
            E + "'sh' exited with 3; restart 3 of 3 in 4 s",
            E + "'sh' exited with 3 after 3 restarts (--max-restarts)"]
    res.check('N5: failure restarts back off 1, 2, 4 s',
              rc == 3 and err.splitlines() == want and len(gaps) == 3 and
              all(g >= w - 0.02 for g, w in zip(gaps, (1, 2, 4))),
              'rc %s, gaps %s, stderr %r' % (rc, gaps, err))


def n5_window(res, d):
    """A program that always fails, restarts allowed without end: the
    starts in a fixed 5 s window are at most 3 (at 0, 1 and 3 s; a busy
    machine only makes them fewer), not hundreds; --restart-backoff 0
    restarts without a wait."""
    starts = os.path.join(d, 'starts')
    c = Case(d, simple_conf(d), ['exec', '--elastic', '--settle', '0', '--max-restarts',
                                 '2147483647', '--', 'sh', '-c', 'echo x >>starts; exit 3'])
    time.sleep(5)
    n = len(read(starts).split())
    c.proc.send_signal(signal.SIGTERM)
    rc, err = c.finish()
    res.check('N5: at most 3 starts in 5 s of failures', 1 <= n <= 3 and rc == 143,
              'starts %d, rc %s, stderr %r' % (n, rc, err))
    c = Case(d, simple_conf(d), ['exec', '--elastic', '--settle', '0', '--max-restarts', '2',
                                 '--restart-backoff', '0', '--', 'sh', '-c', 'exit 3'])
    rc, err = c.finish()
    want = [E + "'sh' exited with 3; restart 1 of 2", E + "'sh' exited with 3; restart 2 of 2",
            E + "'sh' exited with 3 after 2 restarts (--max-restarts)"]
    res.check('N5: --restart-backoff 0 restarts at once', rc == 3 and err.splitlines() == want,
              'rc %s, stderr %r' % (rc, err))


def n5_cannot_execute(res, d):
    noexec = os.path.join(d, 'noexec')
    with open(noexec, 'w') as f:
        f.write('#!/bin/sh\nexit 0\n')
    for name, prog, rc_want, line in (
            ('exit 126', ['sh', '-c', 'echo x >>starts; exit 126'], 126,
             E + "'sh' exited with 126 (cannot execute): not restarted"),
            ('exit 127', ['sh', '-c', 'echo x >>starts; exit 127'], 127,
             E + "'sh' exited with 127 (command not found): not restarted"),
            ('not executable', [noexec], 126,
             E + "cannot run '%s': Permission denied (exit 126; not restarted)" % noexec),
            ('missing', ['./missing'], 127,
             E + "cannot run './missing': No such file or directory (exit 127; not restarted)")):
        starts = os.path.join(d, 'starts')
        if os.path.exists(starts):
            os.unlink(starts)
        c = Case(d, simple_conf(d), ['exec', '--elastic', '--settle', '0', '--max-restarts',
                                     '5', '--'] + prog)
        rc, err = c.finish()
        n = len(read(starts).split())
        res.check('N5: %s is not restarted' % name,
                  rc == rc_want and err.splitlines() == [line] and n == (1 if 'exit' in name
                                                                          else 0),
                  'rc %s, starts %d, stderr %r' % (rc, n, err))


def n6_zombies(res, d):
    prog = ('i=0; while [ $i -lt 50 ]; do (true &); i=$((i+1)); done; echo forked >marker; '
            'while [ ! -e stop ]; do sleep 0.05; done')
    for mode in (['--elastic', '--settle', '0'], ['--supervise']):
        for f in ('marker', 'stop'):
            if os.path.exists(os.path.join(d, f)):
                os.unlink(os.path.join(d, f))
        c = Case(d, simple_conf(d), ['exec'] + mode + ['--', 'sh', '-c', prog])
        wait_for(lambda: read(os.path.join(d, 'marker')))
        # Each helper's end is a SIGCHLD to the agent: none stays a zombie.
        left = wait_for(lambda: zombies_of(c.proc.pid) == 0 and 'none') or zombies_of(
            c.proc.pid)
        running = c.proc.poll() is None
        open(os.path.join(d, 'stop'), 'w').close()
        rc, err = c.finish()
        res.check('N6: no zombie under exec %s while the program runs' % mode[0],
                  left == 'none' and running and rc == 0 and err == '',
                  'zombies %s, running %s, rc %s, stderr %r' % (left, running, rc, err))


def n9_stopped(res, d):
    for mode, want in ((['--elastic', '--settle', '0'],
                        [E + "'sh' ended with 143 after signal 15 was passed on"]),
                       (['--supervise'], [])):
        pidfile = os.path.join(d, 'pid')
        if os.path.exists(pidfile):
            os.unlink(pidfile)
        c = Case(d, simple_conf(d), ['exec'] + mode + ['--', 'sh', '-c',
                                                        'echo $$ >pid.new; mv pid.new pid; '
                                                        'exec sleep 300'])
        pid = int(wait_for(lambda: read(pidfile)) or 0)
        if pid:
            os.kill(pid, signal.SIGSTOP)
        stopped = wait_for(lambda: state(pid) == 'T')
        c.proc.send_signal(signal.SIGTERM)
        rc, err = c.finish()
        res.check('N9: SIGTERM reaches a stopped program under exec %s' % mode[0],
                  stopped and rc == 143 and err.splitlines() == want,
                  'stopped %s, rc %s, stderr %r' % (stopped, rc, err))


def d8_killed_agent(res, d):
    """SIGKILL to the agent, and to the agent's whole process group (a
    shell's `kill -9 %1`): the program's background child dies too."""
    for mode, group in ((['--elastic', '--settle', '0'], False), (['--supervise'], False),
                        (['--supervise'], True)):
        bgfile = os.path.join(d, 'bg')
        if os.path.exists(bgfile):
            os.unlink(bgfile)
        c = Case(d, simple_conf(d), ['exec'] + mode + ['--', 'sh', '-c',
                                                        'sleep 300 & echo $! >bg.new; '
                                                        'mv bg.new bg; wait'], session=group)
        bg = int(wait_for(lambda: read(bgfile)) or 0)
        if group:
            os.killpg(c.proc.pid, signal.SIGKILL)
        else:
            c.proc.kill()
        c.finish()
        dead = wait_for(lambda: state(bg) in ('', 'Z'))
        if not dead and bg:
            os.kill(bg, signal.SIGKILL)
        res.check('D8: SIGKILL of exec %s%s: the background child dies too' %
                  (mode[0], "'s process group" if group else ''),
                  bg and dead, 'background pid %s, state %r' % (bg, state(bg)))


def main():
    need('CR_CLI')
    ensure_hermetic()
    res = Results()
    for case in (n3_signal_in_resolution, n5_backoff, n5_window, n5_cannot_execute, n6_zombies,
                 n9_stopped, d8_killed_agent):
        with tempfile.TemporaryDirectory() as d:
            case(res, d)
    res.finish()


if __name__ == '__main__':
    main()
