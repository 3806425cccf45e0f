"""resolvers - TensorFlow's resolver classes with TensorFlow's constructor
signatures, each building the configuration of the matching plugin
(TF_CONFIG's and SageMaker's are in resolvers_env.py).

    from cluster_resolver import KubernetesClusterResolver
    r = KubernetesClusterResolver({'worker': ['job-name=worker']})

Every class also takes `options=` (keyword only): more options of its
plugin as a dict (e.g. {'namespace': 'train', 'kubeconfig': '...'}; see
cluster-resolver.conf(5) and docs/<plugin>.md). An argument that needs
Google's or Kubernetes' Python clients (override_client, credentials
objects, service) is refused with a ValueError saying what to use instead.
Behaviour follows TensorFlow (shared reference §4-§11) with the fixes of
§14 the plugins make.
"""
import enum
import os

from . import _config
from . import _native as n
from . import _tf
from .cluster_spec import ClusterSpec
from ._plugin import _PluginResolver, _RpcLayerAttribute, _refuse
from .resolver import ClusterResolver, format_master_url

__all__ = ['SimpleClusterResolver', 'KubernetesClusterResolver', 'ExecutableLocation',
           'SlurmClusterResolver', 'GCEClusterResolver', 'TPUClusterResolver', 'UnionResolver',
           'UnionClusterResolver']


# ---- Simple ---------------------------------------------------------------

def _is_spec(obj):
    if isinstance(obj, ClusterSpec):
        return True
    tf = _tf.module()
    return tf is not None and isinstance(obj, tf.train.ClusterSpec)


class SimpleClusterResolver(ClusterResolver):
    """A given ClusterSpec and identity (TensorFlow's SimpleClusterResolver);
    cluster_spec() returns the very object given. Resolves nothing."""

    def __init__(self, cluster_spec, master='', task_type=None, task_id=None, environment='',
                 num_accelerators=None, rpc_layer=None):
        self._task_type = task_type
        self._task_id = task_id
        self._environment = environment
        self._num_accelerators = num_accelerators
        self._rpc_layer = rpc_layer
        if not _is_spec(cluster_spec):
            raise TypeError('cluster_spec must be a `tf.train.ClusterSpec`.')
        self._cluster_spec = cluster_spec
        if not isinstance(master, str):
            raise TypeError('master must be a string.')
        self._master = master

    def cluster_spec(self):
        return self._cluster_spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        if task_type is not None and task_id is not None:
            master = self.cluster_spec().task_address(task_type, task_id)
        else:
            master = self._master
        return format_master_url(master, rpc_layer=rpc_layer or self._rpc_layer)

    @property
    def task_type(self):
        return self._task_type

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        return self._task_id

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def rpc_layer(self):
        return self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer

    @property
    def environment(self):
        return self._environment

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        del task_type, task_id, config_proto
        return {} if self._num_accelerators is None else self._num_accelerators

    @property
    def configuration(self):
        """The simple plugin's configuration of this cluster and identity."""
        group = {'plugin': 'simple',
                 'cluster_json': ClusterSpec(self._cluster_spec)._to_json(),
                 'task_type': self._task_type, 'task_id': self._task_id,
                 'rpc_layer': self._rpc_layer, 'environment': self._environment or None,
                 'master': self._master or None}
        if self._num_accelerators:
            group['num_accelerators'] = dict(self._num_accelerators)
        return _config.resolvers(group)

    def explain(self):
        with ClusterResolver(self.configuration) as r:
            return r.explain()

    def watch(self, timeout=None):
        """A given cluster never changes: its one generation, then the wait
        ends at @timeout (None: never) or with cancel_watch()."""
        import threading
        self._watch_done = threading.Event()
        yield (self._cluster_spec, self._task_type, self._task_id)
        self._watch_done.wait(timeout)

    def cancel_watch(self):
        done = getattr(self, '_watch_done', None)
        if done is not None:
            done.set()

    def close(self):
        pass


# ---- Kubernetes -----------------------------------------------------------

class ExecutableLocation(enum.Enum):
    """Where the program runs: TensorFlow's ExecutableLocation."""
    WITHIN_CLUSTER = 0
    OFF_CLUSTER = 1


class KubernetesClusterResolver(_RpcLayerAttribute, _PluginResolver):
    """The running pods of each job's label selectors (§9), through the k8s
    plugin: the pod IP (not the node's), this pod's namespace (or
    options={'namespace': ...}; '*' for all, as TensorFlow), the in-cluster
    service account or $KUBECONFIG. With executable_location None, whichever
    applies; WITHIN_CLUSTER / OFF_CLUSTER force one."""

    def __init__(self, job_to_label_mapping=None, tf_server_port=8470, rpc_layer='grpc',
                 override_client=None, executable_location=None, *, options=None):
        if override_client is not None:
            _refuse('override_client', 'cluster-resolver talks to the Kubernetes API itself; '
                    'point it at the cluster with $KUBECONFIG or options={"kubeconfig": PATH, '
                    '"context": NAME}, or run it in a pod with a service account')
        auth = {None: None, ExecutableLocation.WITHIN_CLUSTER: 'in_cluster',
                ExecutableLocation.OFF_CLUSTER: 'kubeconfig'}
        if executable_location not in auth:
            raise ValueError('The executable location provided is invalid.')
        if not job_to_label_mapping:
            job_to_label_mapping = {'worker': ['job-name=tensorflow']}
        jobs = {_config.name(job, 'job name'): list(selectors)
                for job, selectors in job_to_label_mapping.items()}
        self._setup({'plugin': 'k8s', 'jobs': jobs, 'port': tf_server_port,
                     'auth': auth[executable_location], 'rpc_layer': rpc_layer or ''},
                    options, rpc_layer=rpc_layer)


# ---- Slurm ----------------------------------------------------------------

# What auto_set_gpu last wrote to CUDA_VISIBLE_DEVICES ('value') and what
# the variable was before the package touched it ('node', None: unset). A
# resolver made later that finds the value the package wrote takes 'node' as
# the node's GPUs: only a value someone else set binds it from outside.
_gpus_written = {}


class SlurmClusterResolver(_RpcLayerAttribute, _PluginResolver):
    """The tasks of this Slurm step (§8), with the fixes of §14: nodelist
    order, CPU-only steps, the task from the rank at once. Jobs take ranks in
    the order of their names, as TensorFlow. With auto_set_gpu,
    cluster_spec() sets this process's CUDA_VISIBLE_DEVICES to its own GPUs,
    as TensorFlow does."""
    _refresh_identity = True

    def __init__(self, jobs=None, port_base=8888, gpus_per_node=None, gpus_per_task=None,
                 tasks_per_node=None, auto_set_gpu=True, rpc_layer='grpc', *, options=None):
        if jobs is not None:
            # TensorFlow assigns the tasks to the jobs sorted by name.
            jobs = {_config.name(j, 'job name'): int(jobs[j]) for j in sorted(jobs)}
        # The node's GPUs, as the step started: cluster_spec() narrows the
        # variable to this task's, and later resolutions must see the node's.
        visible = os.environ.get('CUDA_VISIBLE_DEVICES')
        if _gpus_written and visible == _gpus_written['value']:
            visible = _gpus_written['node']
        self._node_visible = visible
        self._assigned = None
        if isinstance(tasks_per_node, dict):
            tasks_per_node = {_config.name(h, 'host name'): int(c)
                              for h, c in tasks_per_node.items()}
        self._setup({'plugin': 'slurm', 'jobs': jobs, 'port_base': port_base,
                     'gpus_per_node': gpus_per_node, 'gpus_per_task': gpus_per_task,
                     'tasks_per_node': tasks_per_node, 'auto_set_gpu': auto_set_gpu,
                     'rpc_layer': rpc_layer or ''}, options, rpc_layer=rpc_layer)

    def _with_result(self, fn, rpc_layer=None, ctx=None):
        with self._lock:
            current = os.environ.get('CUDA_VISIBLE_DEVICES')
            if self._node_visible is not None:
                os.environ['CUDA_VISIBLE_DEVICES'] = self._node_visible
            else:
                os.environ.pop('CUDA_VISIBLE_DEVICES', None)
            try:
                return _PluginResolver._with_result(self, fn, rpc_layer, ctx)
            finally:
                value = self._assigned if self._assigned is not None else current
                if self._assigned is not None:
                    _gpus_written.update(value=self._assigned, node=self._node_visible)
                if value is None:
                    os.environ.pop('CUDA_VISIBLE_DEVICES', None)
                else:
                    os.environ['CUDA_VISIBLE_DEVICES'] = value

    def _on_result(self, res):
        for i in range(n.lib.cr_result_num_env(res)):
            name, value = n.ctypes.c_char_p(), n.ctypes.c_char_p()
            if n.lib.cr_result_env(res, i, n.ctypes.byref(name), n.ctypes.byref(value)) and \
                    name.value == b'CUDA_VISIBLE_DEVICES':
                self._assigned = n.dec(value.value)

    def get_task_info(self):
        """(task_type, task_id) of this process."""
        return self.task_type, self.task_id


# ---- Google Cloud ---------------------------------------------------------

def _no_google_client(credentials, service, discovery_url=None):
    if credentials != 'default':
        _refuse('credentials', 'give a token file with options={"access_token_file": PATH}, or '
                'set GOOGLE_APPLICATION_CREDENTIALS; by default the metadata server or '
                "gcloud's application default credentials are used")
    if service is not None:
        _refuse('service', 'cluster-resolver calls the Google Cloud APIs itself; '
                'options={"compute_endpoint": URL} or {"tpu_endpoint": URL} name another '
                'endpoint')
    if discovery_url is not None:
        _refuse('discovery_url', 'options={"tpu_endpoint": URL} names the Cloud TPU API '
                'endpoint')


class GCEClusterResolver(_RpcLayerAttribute, _PluginResolver):
    """The RUNNING members of a Compute Engine instance group (§10), sorted
    by address numerically (TensorFlow sorts strings: options={'order':
    'string'})."""

    def __init__(self, project, zone, instance_group, port, task_type='worker', task_id=0,
                 rpc_layer='grpc', credentials='default', service=None, *, options=None):
        _no_google_client(credentials, service)
        self._gce_task_type = task_type
        self._setup({'plugin': 'gce', 'project': project, 'zone': zone,
                     'instance_group': instance_group, 'port': port, 'task_type': task_type,
                     'task_id': task_id, 'rpc_layer': rpc_layer or ''}, options,
                    rpc_layer=rpc_layer)

    @property
    def task_type(self):
        return self._gce_task_type

    @task_type.setter
    def task_type(self, task_type):
        raise RuntimeError('You cannot reset the task_type of the GCEClusterResolver after '
                           'it has been created.')


class TPUClusterResolver(_PluginResolver):
    """Cloud TPU workers (§11): a node name read through the Cloud TPU API,
    "grpc://ip:port,..." endpoints, 'local', or (tpu=None) the environment
    and the TPU VM's metadata. master() is always grpc://."""

    def __init__(self, tpu=None, zone=None, project=None, job_name='worker',
                 coordinator_name=None, coordinator_address=None, credentials='default',
                 service=None, discovery_url=None, *, options=None):
        _no_google_client(credentials, service, discovery_url)
        if isinstance(tpu, (list, tuple)):
            if not tpu:
                raise ValueError('At least one TPU must be specified.')
            if len(tpu) > 1:
                raise NotImplementedError(
                    'Using multiple TPUs in a single session is not yet implemented')
            tpu = tpu[0]
        self._tpu = tpu or None
        self._job_name = job_name
        self._setup({'plugin': 'tpu', 'tpu': self._tpu, 'zone': zone, 'project': project,
                     'job_name': job_name, 'coordinator_name': coordinator_name,
                     'coordinator_address': coordinator_address}, options)

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """grpc://ADDRESS whatever @rpc_layer says (TensorFlow): of the task
        given, else of this object's task_type/task_id once one is set
        (job_name and 0 by default), else the first worker's."""
        if self._tpu == 'local':
            return ''
        if task_type is None or task_id is None:
            task_type = task_id = None
            if self._task_type is not None or self._task_id is not None:
                task_type = self._task_type if self._task_type is not None else self._job_name
                task_id = self._task_id if self._task_id is not None else 0
        if task_type is not None:
            return self._task_master(task_type, task_id, 'grpc')
        return self._own_master('grpc')

    def get_master(self):
        return self.master()

    def get_job_name(self):
        return self.task_type

    def get_coordination_service_leader(self):
        return '/job:%s/task:0' % self._job_name


# ---- Union ----------------------------------------------------------------

def _is_resolver(obj):
    if isinstance(obj, ClusterResolver):
        return True
    base = _tf.base_class()
    return base is not None and isinstance(obj, base)


class UnionResolver(ClusterResolver):
    """Merges the clusters of several resolvers (§5) through the library's
    union, with the fixes of §14: an override of 0 or '' counts, an empty
    job is an empty list, master() uses the effective rpc layer. Identity,
    environment and accelerators come from the first resolver."""

    def __init__(self, *args, **kwargs):
        self._rpc_layer = kwargs.pop('rpc_layer', None)
        self._task_type = kwargs.pop('task_type', None)
        self._task_id = kwargs.pop('task_id', None)
        if kwargs:
            raise ValueError('Unexpected kwargs provided {!r}'.format(kwargs))
        if not args:
            raise ValueError('At least one ClusterResolver is required.')
        for cluster_resolver in args:
            if not _is_resolver(cluster_resolver):
                raise TypeError('All arguments must be a sub-class of `ClusterResolver.`')
        self._cluster_resolvers = args

    def _spec(self):
        groups = []
        for i, r in enumerate(self._cluster_resolvers):
            spec = r.cluster_spec()
            if not isinstance(spec, ClusterSpec):
                spec = ClusterSpec(spec)
            groups.append({'plugin': 'simple', 'name': 'resolver-%d' % i,
                           'cluster_json': spec._to_json()})
        with ClusterResolver(_config.resolvers(*groups, accelerators=[])) as merged:
            return merged._spec()

    def cluster_spec(self):
        return _tf.to_tf_spec(self._spec())

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        if task_type is not None and task_id is not None:
            master = self._spec().task_address(task_type, task_id)
            return format_master_url(master, rpc_layer or self.rpc_layer)
        return self._cluster_resolvers[0].master(
            rpc_layer=rpc_layer if rpc_layer is not None else self._rpc_layer)

    @property
    def task_type(self):
        if self._task_type is not None:
            return self._task_type
        return self._cluster_resolvers[0].task_type

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        if self._task_id is not None:
            return self._task_id
        return self._cluster_resolvers[0].task_id

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def rpc_layer(self):
        if self._rpc_layer is not None:
            return self._rpc_layer
        return self._cluster_resolvers[0].rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer

    @property
    def environment(self):
        return self._cluster_resolvers[0].environment

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return self._cluster_resolvers[0].num_accelerators(task_type, task_id, config_proto)

    def explain(self):
        return [r.explain() for r in self._cluster_resolvers]

    def close(self):
        pass


UnionClusterResolver = UnionResolver
