"""_plugin - what TensorFlow's resolver classes share: a ClusterResolver
over one plugin's configuration group, TensorFlow's plain `rpc_layer`
attribute, and the refusal of arguments that need Google's or Kubernetes'
Python clients. resolvers.py and resolvers_env.py stand on it.
"""
from . import _config
from .resolver import ClusterResolver


def _refuse(arg, instead):
    raise ValueError('%s is not supported by cluster_resolver: %s' % (arg, instead))


class _PluginResolver(ClusterResolver):
    """A ClusterResolver over one plugin's configuration group."""

    def _setup(self, group, options, task_type=None, task_id=None, rpc_layer=None,
               accelerators=None):
        group = dict(group)
        group.update(options or {})
        ClusterResolver.__init__(self, _config.resolvers(group, accelerators=accelerators),
                                 task_type=task_type, task_id=task_id, rpc_layer=rpc_layer)


class _RpcLayerAttribute(object):
    """TensorFlow's plain `rpc_layer` attribute (Kubernetes, Slurm, GCE):
    the constructor's value as given, None (passed or set) is no rpc layer;
    only an omitted argument takes the class's default "grpc". master()
    formats with `rpc_layer or self.rpc_layer`, as TensorFlow."""

    @property
    def rpc_layer(self):
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer

    def _context_rpc_layer(self, rpc_layer):
        return rpc_layer or self._rpc_layer or ''

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return ClusterResolver.master(self, task_type, task_id,
                                      rpc_layer or self._rpc_layer or '')
