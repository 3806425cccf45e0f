"""cluster_resolver.torch - torch.distributed on the resolved cluster.

    import cluster_resolver.torch as crt
    crt.init_process_group('gloo')      # resolves, sets the variables, inits

init_process_group() resolves (the command's default configuration unless
`resolver=` is given), sets MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK,
LOCAL_RANK, LOCAL_WORLD_SIZE, NODE_RANK and GROUP_RANK in os.environ exactly
as `cluster-resolver resolve --format torch` prints them, and calls
torch.distributed.init_process_group(backend, init_method='env://', ...).
PyTorch is imported only when init_process_group() runs.
"""
import os

from .resolver import ClusterResolver

__all__ = ['environment', 'init_process_group']


def environment(resolver=None, format_options=None):
    """The torch variables of this process as a dict (name -> str), as
    `--format torch` gives them. @format_options: the format's options
    (jobs, master_port, port_range, job_id, ifname), e.g. {'jobs': 'worker'}."""
    own = resolver is None
    resolver = resolver if resolver is not None else ClusterResolver()
    try:
        return dict(resolver._env_vars('torch', format_options))
    finally:
        if own:
            resolver.close()


def init_process_group(backend=None, resolver=None, format_options=None, **kwargs):
    """Resolve, export the torch variables and call
    torch.distributed.init_process_group(). @backend None: 'nccl' where CUDA
    is available, else 'gloo'. Other keyword arguments go to PyTorch.
    Returns the variables that were set."""
    env = environment(resolver, format_options)
    os.environ.update(env)
    import torch
    import torch.distributed as dist
    if backend is None:
        backend = 'nccl' if torch.cuda.is_available() else 'gloo'
    kwargs.setdefault('init_method', 'env://')
    dist.init_process_group(backend, **kwargs)
    return env
