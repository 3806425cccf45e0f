"""resolvers_env - TensorFlow's resolvers of a job that its environment
describes in one document: TFConfigClusterResolver (TF_CONFIG) and
SageMakerClusterResolver (SM_HOSTS and SM_CURRENT_HOST, or the resource
config), with TensorFlow's constructor signatures. Behaviour follows
TensorFlow (shared reference §6, §11).
"""
import json
import os

from . import _native as n
from . import errors
from ._plugin import _PluginResolver
from .cluster_spec import ClusterSpec
from .resolver import ClusterResolver, format_master_url

__all__ = ['TFConfigClusterResolver', 'SageMakerClusterResolver']


def _int_id(task_id):
    """TensorFlow's int() of an overridden task id ("1" is 1), without its
    truncation: a float is refused as an index everywhere else."""
    if isinstance(task_id, float):
        raise TypeError('task_id must be an integer, not float %r' % task_id)
    return int(task_id)


class _TFConfigLike(_PluginResolver):
    """TFConfig semantics (§6): overrides cast with str()/int(), an explicit
    rpc_layer '' suppresses the prefix, environment is the constructor's."""
    _refresh_identity = True

    def _override_task_type(self):
        return None if self._task_type is None else str(self._task_type)

    def _override_task_id(self):
        return None if self._task_id is None else _int_id(self._task_id)

    @property
    def task_type(self):
        if self._task_type is not None:
            return str(self._task_type)
        return self._identity().task_type

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        if self._task_id is not None:
            return _int_id(self._task_id)
        return self._identity().task_id

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def environment(self):
        return self._environment

    def _session_master(self):
        return None

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        if task_type is None and task_id is None:
            return self._own_master(rpc_layer)
        session = self._session_master()
        if session is not None:
            return session
        spec = self._spec()
        if not spec.jobs or (len(spec.jobs) == 1 and spec.num_tasks(spec.jobs[0]) <= 1):
            return ''
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        if task_type is None or task_id is None:
            spec.task_address(task_type, task_id)  # TensorFlow's ValueError
        return self._task_master(task_type, task_id, rpc_layer)

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        return ClusterResolver.num_accelerators(self, task_type, task_id, config_proto)


class TFConfigClusterResolver(_TFConfigLike):
    """The cluster in $TF_CONFIG, read again on every access (§6); no
    TF_CONFIG is an empty cluster."""

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None, *,
                 options=None):
        self._environment = environment
        group = {'plugin': 'tfconfig', 'policy': 'sufficient', 'environment': environment}
        self._variable = (options or {}).get('variable', 'TF_CONFIG')
        self._setup(group, options, task_type, task_id, rpc_layer)

    def _open(self, config, name=None):
        # No TF_CONFIG: an empty cluster, as TensorFlow reads {}.
        config = config.replace(' );\n', ', { plugin = "simple"; name = "no-tf-config"; '
                                'policy = "sufficient"; cluster = { }; } );\n', 1)
        ClusterResolver._open(self, config, name)

    def _session_master(self):
        text = os.environ.get(self._variable)
        if not text:
            return None
        return json.loads(text).get('session_master')

    # A task with a type and no index: the plugin refuses such a TF_CONFIG
    # as a whole; TensorFlow reads it (task_id None, and master() raises
    # its ValueError for a cluster of several tasks). That TF_CONFIG is read
    # here, as TensorFlow reads it.

    def _partial(self):
        """TF_CONFIG as a dict when its task has a type and no index."""
        text = os.environ.get(self._variable)
        if not text:
            return None
        try:
            tf_config = json.loads(text)
        except ValueError:
            return None           # the plugin says where the JSON breaks
        task = tf_config.get('task') if isinstance(tf_config, dict) else None
        if isinstance(task, dict) and 'type' in task and 'index' not in task:
            return tf_config
        return None

    def _spec(self):
        tf_config = self._partial()
        if tf_config is None:
            return _TFConfigLike._spec(self)
        return ClusterSpec(tf_config.get('cluster', {}))

    @property
    def task_type(self):
        if self._task_type is None:
            tf_config = self._partial()
            if tf_config is not None:
                return str(tf_config['task']['type'])
        return _TFConfigLike.task_type.fget(self)

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        if self._task_id is None and self._partial() is not None:
            return None
        return _TFConfigLike.task_id.fget(self)

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def rpc_layer(self):
        if self._rpc_layer is None:
            tf_config = self._partial()
            if tf_config is not None:
                return tf_config.get('rpc_layer')
        return _TFConfigLike.rpc_layer.fget(self)

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        tf_config = self._partial()
        if tf_config is None:
            return _TFConfigLike.master(self, task_type, task_id, rpc_layer)
        if tf_config.get('session_master') is not None:
            return tf_config['session_master']
        spec = self._spec()
        if not spec.jobs or (len(spec.jobs) == 1 and spec.num_tasks(spec.jobs[0]) <= 1):
            return ''
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        rpc_layer = rpc_layer if rpc_layer is not None else self.rpc_layer
        return format_master_url(spec.task_address(task_type, task_id), rpc_layer)


class SageMakerClusterResolver(_TFConfigLike):
    """A SageMaker training job's hosts (SM_HOSTS, SM_CURRENT_HOST or
    resourceconfig.json), job `worker`, port @port (§7)."""

    _EMPTY = ('resolvers = ( { plugin = "simple"; name = "sagemaker-no-hosts"; '
              'cluster = { }; } );\n')

    def __init__(self, port=2223, task_type=None, task_id=None, rpc_layer=None,
                 environment=None, *, options=None):
        self._environment = environment
        self._empty_ctx = None
        self._by_groups = 'jobs' in (options or {})
        self._setup({'plugin': 'sagemaker', 'port': port}, options, task_type, task_id,
                    rpc_layer)

    def _with_result(self, fn, rpc_layer=None, ctx=None):
        """TensorFlow reads SM_HOSTS "" or [], or a current host not among
        them, as an empty cluster (master() ""), where the plugin declines;
        without SM_HOSTS and SM_CURRENT_HOST (TensorFlow: "Not a SageMaker
        Environment") the error stays."""
        try:
            return _TFConfigLike._with_result(self, fn, rpc_layer, ctx)
        except errors.NotFoundError:
            if ctx is not None or self._by_groups or 'SM_HOSTS' not in os.environ or \
                    'SM_CURRENT_HOST' not in os.environ:
                raise
        with self._lock:
            if self._empty_ctx is None:
                self._empty_ctx = self._new_context(self._EMPTY, '<SageMakerClusterResolver>')
        return _TFConfigLike._with_result(self, fn, rpc_layer, self._empty_ctx)

    def close(self):
        lock = self.__dict__.get('_lock')
        if lock is None:
            return
        with lock:  # after a call in progress, as ClusterResolver.close()
            ctx, self._empty_ctx = getattr(self, '_empty_ctx', None), None
            if ctx:
                n.lib.cr_context_free(ctx)
            _TFConfigLike.close(self)
