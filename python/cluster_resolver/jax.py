"""cluster_resolver.jax - jax.distributed.initialize() on the resolved cluster.

    import cluster_resolver.jax as crj
    crj.initialize()        # jax.distributed.initialize(**crj.environment())

environment() gives jax.distributed.initialize()'s documented arguments
from the resolution, as `cluster-resolver resolve --format jax` does:
coordinator_address (the first task of the world, host:port), num_processes,
process_id, and local_device_ids (0..n-1 for the n GPUs or TPUs the
resolvers counted for this task; None to let JAX use all it sees).
register_cluster_env() adds a cluster environment to JAX's auto-detection
(jax._src.clusters.ClusterEnv, not a public API), so that a bare
jax.distributed.initialize() uses the resolved cluster.

JAX cannot be installed on the project's machines: this module is written to
JAX's documented API and tested only where JAX imports (docs/python.md).
"""
from .resolver import ClusterResolver

__all__ = ['environment', 'initialize', 'register_cluster_env']


def _with(resolver, fn):
    own = resolver is None
    resolver = resolver if resolver is not None else ClusterResolver()
    try:
        return fn(resolver)
    finally:
        if own:
            resolver.close()


def environment(resolver=None, format_options=None):
    """jax.distributed.initialize()'s arguments for this process (a dict).
    @format_options: the jax format's options, e.g. {'jobs': 'worker'}."""
    def env_of(r):
        env = dict(r._env_vars('jax', format_options))
        counts = r.num_accelerators()
        n = max([counts.get('GPU', 0), counts.get('TPU', 0)])
        return {'coordinator_address': env['JAX_COORDINATOR_ADDRESS'],
                'num_processes': int(env['JAX_NUM_PROCESSES']),
                'process_id': int(env['JAX_PROCESS_ID']),
                'local_device_ids': list(range(n)) if n else None}
    return _with(resolver, env_of)


def initialize(resolver=None, format_options=None, **kwargs):
    """jax.distributed.initialize() with environment()'s arguments; other
    keyword arguments go to JAX. Returns the arguments used."""
    import jax
    args = environment(resolver, format_options)
    args.update(kwargs)
    jax.distributed.initialize(**args)
    return args


_registered = []


def register_cluster_env(resolver=None, format_options=None):
    """Make a bare jax.distributed.initialize() use the resolved cluster:
    a subclass of JAX's ClusterEnv, which JAX registers when it is made.
    Resolves once, now. Returns the class."""
    from jax._src import clusters
    args = environment(resolver, format_options)

    class ClusterResolverEnv(clusters.ClusterEnv):
        @classmethod
        def is_env_present(cls):
            return True

        @classmethod
        def get_coordinator_address(cls, *unused):
            return args['coordinator_address']

        @classmethod
        def get_process_count(cls):
            return args['num_processes']

        @classmethod
        def get_process_id(cls):
            return args['process_id']

        @classmethod
        def get_local_process_id(cls):
            return None

    _registered.append(ClusterResolverEnv)
    return ClusterResolverEnv
