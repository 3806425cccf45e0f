#!/usr/bin/python3
"""hosts_file_size.py - a hosts_file over the 64 MiB cap is refused from its
size (fstat), before a byte is read (issue 36 item 11): a sparse 1 TiB file
and a 100 MB one are refused with the usual message, and the process never
holds the cap in memory (its peak RSS stays under 32 MiB, where reading to
the cap took 70 MB). A FIFO in its place is refused at once, not waited on.
The RSS bound is skipped in the sanitizer build (ASan's shadow memory)."""
import os
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
from harness import clean_env, need, write, Results  # noqa: E402

CAP = 64 << 20


def run(conf, home):
    p = subprocess.Popen([os.environ['CR_CLI'], '-c', conf, 'resolve'], env=clean_env(home),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return 'hang', '', '', 0
    # the child's rusage: wait4 has reaped it through communicate, so ask
    # for the children's peak (this script starts one child at a time)
    rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return p.returncode, out, err, rss_kib


def main():
    need('CR_CLI')
    res = Results()
    sanitized = os.environ.get('CR_SANITIZE_BUILD') == '1'
    d = tempfile.mkdtemp(prefix='cr-hosts-size-')
    try:
        conf = os.path.join(d, 'case.conf')
        write(conf, 'resolvers = ( { plugin = "simple"; hosts_file = "%s/hosts"; } );\n'
              'accelerators = ( );\n' % d)
        path = os.path.join(d, 'hosts')
        for name, size in (('sparse-1tib', 1 << 40), ('100mb', 100 * 1000 * 1000)):
            with open(path, 'w') as f:
                f.truncate(size)
            rc, out, err, rss = run(conf, d)
            want = ("cluster-resolver: resolver 'simple': hosts_file: cannot read %s: "
                    "larger than %d bytes\n" % (path, CAP))
            res.check('%s: refused, named' % name, rc == 1 and out == '' and err == want,
                      'exit %s stdout %r stderr %r\nwant %r' % (rc, out, err, want))
            if not sanitized:
                res.check('%s: never read (peak RSS %d KiB < 32 MiB)' % (name, rss),
                          rss < 32 * 1024, 'peak RSS %d KiB' % rss)
            os.unlink(path)
        os.mkfifo(path)
        rc, out, err, _ = run(conf, d)
        want = ("cluster-resolver: resolver 'simple': hosts_file: cannot read %s: "
                "not a regular file\n" % path)
        res.check('fifo: refused at once, named', rc == 1 and err == want,
                  'exit %s stderr %r\nwant %r' % (rc, err, want))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    res.finish()


if __name__ == '__main__':
    main()
