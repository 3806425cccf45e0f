#!/usr/bin/python3
"""PyTorch for real (Debian's python3-torch): two "nodes" on 127.0.0.1 and
127.0.0.2, two processes each, gloo.

1. cluster_resolver.torch.init_process_group() in each of the 4 processes:
   the variables `--format torch` gives, then an all_reduce whose sum the
   test checks.
2. The same job through `cluster-resolver exec --format torchrun --
   python3 -m torch.distributed.run --nproc_per_node 2`, one launcher per
   node. PyTorch 1.13's launcher on Python 3.11 cannot parse its own
   default "--redirects 0 --tee 0" (Std.from_str("0") is None there, as
   Python 3.11's enum.Flag no longer iterates a 0 member), so the
   launchers get "--redirects 2 --tee 1", which it can.
"""
import os
import socket
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyharness as ph  # noqa: E402

ph.setup(sanitizer=False)
try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

HOOK = r'''
import sys
import cluster_resolver as cr
import cluster_resolver.torch as crt
import torch
import torch.distributed as dist
r = cr.ClusterResolver(sys.argv[1], task_type='worker', task_id=int(sys.argv[2]))
env = crt.init_process_group('gloo', resolver=r, format_options={'ifname': 'lo'})
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
print('rank %d world %d local %s/%s node %s master %s:%s sum %s' % (
    dist.get_rank(), dist.get_world_size(), env['LOCAL_RANK'], env['LOCAL_WORLD_SIZE'],
    env['NODE_RANK'], env['MASTER_ADDR'], env['MASTER_PORT'], t.item()))
dist.destroy_process_group()
'''

WORKER = r'''
import os
import torch
import torch.distributed as dist
dist.init_process_group('gloo')
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
with open(os.path.join(os.environ['OUT'], 'rank-%d' % dist.get_rank()), 'w') as f:
    f.write('rank %d world %d local %s group %s sum %s\n' % (
        dist.get_rank(), dist.get_world_size(), os.environ['LOCAL_RANK'],
        os.environ['GROUP_RANK'], t.item()))
dist.destroy_process_group()
'''


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@unittest.skipUnless(HAVE_TORCH, 'PyTorch is not installed (scripts/deps.sh test: python3-torch)')
class Torch(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='cr-torch-')
        self.env = ph.python_env(self.dir, {'OMP_NUM_THREADS': '1', 'GLOO_SOCKET_IFNAME': 'lo'})

    def conf(self, addresses):
        path = os.path.join(self.dir, 'job.conf')
        ph.write(path, 'resolvers = ( { plugin = "simple"; cluster = { '
                 'worker = [ %s ]; }; } );\naccelerators = ( );\n'
                 % ', '.join('"%s"' % a for a in addresses))
        return path

    def test_init_process_group(self):
        port = free_port()
        conf = self.conf(['127.0.0.1:%d' % port, '127.0.0.1:%d' % (port + 1),
                          '127.0.0.2:%d' % port, '127.0.0.2:%d' % (port + 1)])
        procs = [subprocess.Popen(['/usr/bin/python3', '-c', HOOK, conf, str(i)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=self.env) for i in range(4)]
        outs = [p.communicate(timeout=240) for p in procs]
        for p, (out, err) in zip(procs, outs):
            self.assertEqual(p.returncode, 0, err)
        self.assertEqual([o for o, _ in outs], [
            'rank %d world 4 local %d/2 node %d master 127.0.0.1:%d sum 10.0\n'
            % (i, i % 2, i // 2, port) for i in range(4)])

    def test_torchrun(self):
        port = free_port()
        conf = self.conf(['127.0.0.1:%d' % port, '127.0.0.2:%d' % port])
        worker = os.path.join(self.dir, 'worker.py')
        ph.write(worker, WORKER)
        env = dict(self.env, OUT=self.dir)
        cli = os.environ['CR_CLI']
        procs = [subprocess.Popen(
            [cli, '--config', conf, '--task-type', 'worker', '--task-id', str(node), 'exec',
             '--format', 'torchrun', '--', '/usr/bin/python3', '-m', 'torch.distributed.run',
             '--nproc_per_node', '2', '--redirects', '2', '--tee', '1', worker],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
            for node in range(2)]
        outs = [p.communicate(timeout=240)[0] for p in procs]
        self.assertEqual([p.returncode for p in procs], [0, 0], outs)
        got = []
        for r in range(4):
            with open(os.path.join(self.dir, 'rank-%d' % r)) as f:
                got.append(f.read())
        self.assertEqual(got, ['rank %d world 4 local %d group %d sum 10.0\n'
                               % (r, r % 2, r // 2) for r in range(4)])


if __name__ == '__main__':
    ph.main()
