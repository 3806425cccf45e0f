"""_tf - TensorFlow, where this process has imported it.

The package never imports TensorFlow itself (that takes seconds): when a
program has imported it, cluster_spec() returns tf.train.ClusterSpec,
as_cluster_def() tf.train.ClusterDef, and the resolver classes are
registered as virtual subclasses of tf.distribute.cluster_resolver's
ClusterResolver, so that strategies accept them. Written to TensorFlow's
documented API; not run where TensorFlow is not installed.
"""
import sys

_registered = []
_classes = []  # what register() hands TensorFlow: the package's base class


def registrable(cls):
    """Name @cls as one to register with TensorFlow's ClusterResolver (the
    module that defines it calls this; _tf imports none of the package's
    modules). Returns @cls."""
    _classes.append(cls)
    return cls


def module():
    """The tensorflow module when it has been imported, else None."""
    tf = sys.modules.get('tensorflow')
    if tf is None or not hasattr(tf, 'train'):
        return None
    if not _registered:
        register(tf)
    return tf


def base_class(tf=None):
    tf = tf or module()
    if tf is None:
        return None
    return tf.distribute.cluster_resolver.ClusterResolver


def register(tf=None):
    """Register the package's resolvers with TensorFlow's ClusterResolver
    (an abc.ABC): isinstance(r, tf.distribute.cluster_resolver.ClusterResolver)
    becomes true. Called by itself once TensorFlow is imported."""
    tf = tf or sys.modules.get('tensorflow')
    if tf is None or _registered:
        return False
    base = tf.distribute.cluster_resolver.ClusterResolver
    for cls in _classes:
        base.register(cls)
    _registered.append(base)
    return True


def to_tf_spec(spec):
    """@spec (ours) as tf.train.ClusterSpec when TensorFlow is imported."""
    tf = module()
    if tf is None:
        return spec
    return tf.train.ClusterSpec(spec.as_cluster_def())
