"""cluster_spec - TensorFlow's tf.train.ClusterSpec, without TensorFlow.

Behaviour and messages follow TensorFlow (shared reference §1), with the
fixes the C library makes (§14.17): an empty job's job_tasks() is [], and a
negative task index is refused when the spec is built. Addresses are any
strings, as in TensorFlow ("localhost:0", "host:port"): as_cluster_def()
encodes them here, byte for byte as cr_spec_to_clusterdef() does. The C
library's address rules (HOST or HOST:PORT) apply only where a spec is handed
to it: a resolver's configuration, a format, `exec`.
"""
import json

from . import _tf

__all__ = ['ClusterSpec']

_INT32_MAX = 2**31 - 1

_BAD_CLUSTER = ('`cluster` must be a dictionary mapping one or more job names to lists of '
                'network addresses, or a `ClusterDef` protocol buffer')


def _is_tf_spec(obj):
    return (not isinstance(obj, ClusterSpec) and hasattr(obj, 'as_cluster_def') and
            hasattr(obj, 'jobs') and hasattr(obj, 'task_address'))


def _is_cluster_def(obj):
    return hasattr(obj, 'job') and hasattr(obj, 'SerializeToString')


def _check_name(name):
    if not isinstance(name, (str, bytes)):
        raise TypeError('Job name %s must be bytes or unicode' % (name,))


def _check_task(job, index, address):
    if not isinstance(address, (str, bytes)):
        raise TypeError('Task address %s must be bytes or unicode' % (address,))
    if index < 0:
        raise ValueError('Task index %d of job %r is negative' % (index, job))
    if index > _INT32_MAX:
        raise ValueError('Task index %d of job %r is out of range (0..%d)' %
                         (index, job, _INT32_MAX))


def _utf8(text):
    return text if isinstance(text, bytes) else text.encode('utf-8', 'surrogateescape')


def _pb_varint(out, value):
    value &= (1 << 64) - 1     # a negative int32 is ten bytes, as protobuf writes it
    while True:
        byte = value & 0x7f
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return


def _pb_bytes(out, field, data):
    _pb_varint(out, field << 3 | 2)
    _pb_varint(out, len(data))
    out += data


class ClusterSpec(object):
    """Represents a cluster as a set of "tasks", organized into "jobs".

    `ClusterSpec({"worker": ["w0:2222", "w1:2222"], "ps": ["ps0:2222"]})`,
    or sparse: `ClusterSpec({"worker": {1: "w1:2222"}})`.
    """

    def __init__(self, cluster):
        if isinstance(cluster, dict):
            self._cluster_spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    job_tasks = {i: t for i, t in enumerate(tasks)}
                elif isinstance(tasks, dict):
                    job_tasks = {int(i): t for i, t in tasks.items()}
                else:
                    raise TypeError('The tasks for job %r must be a list or a dictionary '
                                    'from integers to strings.' % job_name)
                self._cluster_spec[job_name] = job_tasks
            self._check()
        elif isinstance(cluster, ClusterSpec):
            self._cluster_spec = {job: dict(cluster._cluster_spec[job])
                                  for job in sorted(cluster._cluster_spec)}
        elif _is_tf_spec(cluster):
            self.__init__(cluster.as_cluster_def())
        elif _is_cluster_def(cluster):
            self._cluster_spec = {}
            for job_def in cluster.job:
                self._cluster_spec[job_def.name] = {i: t for i, t in job_def.tasks.items()}
            self._check()
        else:
            raise TypeError(_BAD_CLUSTER)

    def _check(self):
        for job, tasks in self._cluster_spec.items():
            _check_name(job)
            for index, address in tasks.items():
                _check_task(job, index, address)

    @classmethod
    def _from_json(cls, text):
        """From the library's as_dict JSON (already checked). A task whose
        address is unknown (null: a job of a declared size, ABI 1.3) is no
        task of the spec: a job [a, null, null] is the sparse {0: a}, and
        ClusterResolver.job_size() tells the whole size."""
        spec = cls.__new__(cls)
        spec._cluster_spec = {}
        for job, tasks in json.loads(text).items():
            pairs = ((int(i), a) for i, a in tasks.items()) if isinstance(tasks, dict) \
                else enumerate(tasks)
            spec._cluster_spec[job] = {i: a for i, a in pairs if a is not None}
        return spec

    def __bool__(self):
        return bool(self._cluster_spec)

    __nonzero__ = __bool__

    def __eq__(self, other):
        return self._cluster_spec == other

    def __ne__(self, other):
        return self._cluster_spec != other

    __hash__ = None

    def __str__(self):
        key_values = self.as_dict()
        items = [repr(k) + ': ' + repr(key_values[k]) for k in sorted(key_values)]
        return 'ClusterSpec({' + ', '.join(items) + '})'

    __repr__ = __str__

    def as_dict(self):
        """job -> list of addresses (dense), {index: address} (sparse) or {}."""
        ret = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                ret[job] = {}
            elif max(indices) + 1 == len(indices):
                ret[job] = self.job_tasks(job)
            else:
                ret[job] = {i: self.task_address(job, i) for i in indices}
        return ret

    def as_cluster_def(self):
        """The tf.train.ClusterDef where TensorFlow is imported, else its
        serialized bytes (jobs sorted by name, tasks by index)."""
        tf = _tf.module()
        if tf is not None:
            cluster_def = tf.train.ClusterDef()
            for job in sorted(self._cluster_spec):
                job_def = cluster_def.job.add()
                job_def.name = job
                for i in sorted(self._cluster_spec[job]):
                    job_def.tasks[i] = self._cluster_spec[job][i]
            return cluster_def
        return self._encode()

    def _encode(self):
        """The serialized tensorflow.ClusterDef: jobs sorted by name (UTF-8
        bytes), tasks by index; a job's name left out when "" (proto3), a map
        entry's key written even when 0, as cr_spec_to_clusterdef()."""
        out = bytearray()
        for name, tasks in sorted((_utf8(job), tasks)
                                  for job, tasks in self._cluster_spec.items()):
            job = bytearray()
            if name:
                _pb_bytes(job, 1, name)
            for index in sorted(tasks):
                entry = bytearray(b'\x08')
                _pb_varint(entry, index)
                _pb_bytes(entry, 2, _utf8(tasks[index]))
                _pb_bytes(job, 2, entry)
            _pb_bytes(out, 1, job)
        return bytes(out)

    def _to_json(self):
        def s(v):
            return v.decode('utf-8', 'surrogateescape') if isinstance(v, bytes) else v
        return json.dumps({s(job): {str(i): s(a) for i, a in tasks.items()}
                           for job, tasks in self._cluster_spec.items()})

    @property
    def jobs(self):
        """Job names, in the order they were given."""
        return list(self._cluster_spec.keys())

    def _job(self, job_name):
        try:
            return self._cluster_spec[job_name]
        except (KeyError, TypeError):
            raise ValueError('No such job in cluster: %r' % (job_name,)) from None

    def num_tasks(self, job_name):
        """Number of tasks defined in @job_name (holes not counted)."""
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """Ascending list of the task indices of @job_name."""
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        """Address of task @task_index of @job_name."""
        job = self._job(job_name)
        try:
            return job[task_index]
        except (KeyError, TypeError):
            raise ValueError('No task with index %r in job %r' % (task_index, job_name)) \
                from None

    def job_tasks(self, job_name):
        """Slots 0..max index of @job_name, None for a hole; [] when empty."""
        job = self._job(job_name)
        if not job:
            return []
        ret = [None for _ in range(max(job) + 1)]
        for i, task in job.items():
            ret[i] = task
        return ret
