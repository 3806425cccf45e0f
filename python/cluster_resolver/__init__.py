"""cluster_resolver - TensorFlow's tf.distribute.cluster_resolver over
libcluster-resolver (ctypes; standard library only).

    from cluster_resolver import KubernetesClusterResolver   # was: from
    # tensorflow.distribute.cluster_resolver import KubernetesClusterResolver

ClusterSpec, ClusterResolver (any cluster-resolver configuration) and
TensorFlow's resolver classes; cluster_resolver.torch and cluster_resolver.jax
hand the resolved cluster to PyTorch and JAX. See docs/python.md.
"""
from . import _tf
from ._native import version as _library_version
from ._tf import register as register_with_tensorflow
from ._version import __version__
from .cluster_spec import ClusterSpec
from .errors import ClusterResolverError
from .resolver import ClusterResolver, Generation, format_master_url, generation_id
from .resolvers import (ExecutableLocation, GCEClusterResolver, KubernetesClusterResolver,
                        SimpleClusterResolver, SlurmClusterResolver, TPUClusterResolver,
                        UnionClusterResolver, UnionResolver)
from .resolvers_env import SageMakerClusterResolver, TFConfigClusterResolver

__all__ = ['ClusterSpec', 'ClusterResolver', 'ClusterResolverError', 'SimpleClusterResolver',
           'TFConfigClusterResolver', 'KubernetesClusterResolver', 'ExecutableLocation',
           'SlurmClusterResolver', 'GCEClusterResolver', 'TPUClusterResolver',
           'SageMakerClusterResolver', 'UnionResolver', 'UnionClusterResolver',
           'format_master_url', 'Generation', 'generation_id', 'library_version', 'register_with_tensorflow', '__version__']

library_version = _library_version()

_tf.module()  # registers with TensorFlow when the program imported it first
