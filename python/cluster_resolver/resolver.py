"""resolver - ClusterResolver: one cluster-resolver configuration, resolved
in process through the C library, with TensorFlow's ClusterResolver surface.

    r = ClusterResolver()                      # the command's default config
    r = ClusterResolver('/etc/my.conf')        # a file
    r = ClusterResolver('resolvers = ( { plugin = "k8s"; } );')   # text
    r.cluster_spec(); r.master(); r.task_type; r.num_accelerators()

Every cluster_spec(), master() and num_accelerators() call resolves again,
as TensorFlow's resolvers re-query their backend. A resolver object may be
shared between threads: its calls take turns on its C context (one context
is not thread-safe; see cluster-resolver.h). close() waits for a call in
progress; after it, every call and every watch() generator raises
ValueError. A child forked while another thread was inside a call gets
the object back usable (os.register_at_fork: a fresh lock, and a fresh C
context where the parent's was in the middle of a call).
"""
import ctypes
import hashlib
import json
import math
import operator
import os
import weakref
import _thread

from . import _native as n
from . import _tf
from . import errors
from .cluster_spec import ClusterSpec

__all__ = ['ClusterResolver', 'format_master_url']


def format_master_url(master, rpc_layer=None):
    """"rpc_layer://master"; master alone without a layer; "" for an empty
    master (TensorFlow gives "grpc://" there, §14.16)."""
    if not master:
        return ''
    if rpc_layer:
        return '%s://%s' % (rpc_layer, master)
    return master


_INT32_MAX = 2**31 - 1
# The longest wait watch() hands the library: about 146 million years, far
# from int64's end whatever the clock (a longer timeout waits as long).
_WAIT_MAX_MS = 2**62


def _task_index(value, what='task_id'):
    """@value as a task index 0..2^31-1, as the library takes it: TypeError
    for what is not an integer (a float included, as TensorFlow's index;
    bool and numpy's integers are integers), ValueError out of range (a
    Python int is never wrapped to 64 bits)."""
    try:
        index = operator.index(value)
    except TypeError:
        raise TypeError('%s must be an integer, not %s %r' % (what, type(value).__name__, value)) \
            from None
    if not 0 <= index <= _INT32_MAX:
        raise ValueError('%s %d is out of range (0..%d)' % (what, index, _INT32_MAX))
    return index


def _wait_ms(timeout):
    """watch()'s @timeout (seconds, None: no limit) in milliseconds for
    cr_context_watch: -1 for none (None or +inf), 0 for a negative one,
    ValueError for NaN, TypeError for what is not a number."""
    if timeout is None:
        return -1
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        try:
            timeout = float(timeout)
        except (TypeError, ValueError):
            raise TypeError('timeout must be a number of seconds or None, not %s %r' %
                            (type(timeout).__name__, timeout)) from None
    if isinstance(timeout, float) and math.isnan(timeout):
        raise ValueError('timeout must be a number of seconds or None, not nan')
    if timeout == math.inf:
        return -1
    return int(min(max(timeout * 1000, 0), _WAIT_MAX_MS))


# Every live resolver, for the child of a fork (_after_fork_in_child).
_live = weakref.WeakSet()


def _after_fork_in_child():
    """In a forked child only this thread exists: a lock another thread
    held is held forever, and a C context it was inside a call on is in
    whatever state the call left it. Each resolver gets a fresh lock; one
    whose lock was held gets a fresh C context at its next call (the old
    one is left as it is, never freed: its state is unknown)."""
    for r in list(_live):
        lock = r.__dict__.get('_lock')
        if lock is None:
            continue
        if lock.acquire(blocking=False):  # free, or held by this very thread
            lock.release()
            continue
        r._lock = _thread.RLock()
        if r._ctx:
            r._ctx = None
            r._reopen = True
        if r.__dict__.get('_empty_ctx'):  # SageMakerClusterResolver's, made again when needed
            r._empty_ctx = None


if hasattr(os, 'register_at_fork'):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _is_text(config):
    return (isinstance(config, str) and not os.path.exists(config) and
            any(c in config for c in '=;{(\n'))



def generation_id(cluster):
    """The world's id of a cluster given as {job: [address, ...] or {index:
    address}}: the first 16 hex digits of the SHA-256 of each job (by name)
    and its tasks' indices and addresses; the library's
    cr_result_generation_id() and exec --elastic's CR_GENERATION_ID for the
    same cluster (a test holds the two equal)."""
    h = hashlib.sha256()
    for job in sorted(cluster, key=lambda j: j.encode()):
        tasks = cluster[job]
        items = (sorted((int(i), a) for i, a in tasks.items()) if isinstance(tasks, dict)
                 else list(enumerate(tasks)))
        h.update(job.encode() + b'\0')
        for i, addr in items:
            h.update(b'%d\0' % i + addr.encode() + b'\0')
    return h.hexdigest()[:16]


class Generation(tuple):
    """One generation of ClusterResolver.watch(): the tuple (cluster_spec,
    task_type, task_id), as before, with .generation (this watch's count)
    and .generation_id (the world's id) besides."""

    def __new__(cls, cluster_spec, task_type, task_id, generation, generation_id):
        self = tuple.__new__(cls, (cluster_spec, task_type, task_id))
        self.generation = generation
        self.generation_id = generation_id
        return self

    def __getnewargs__(self):  # copy and pickle keep the generation
        return (self[0], self[1], self[2], self.generation, self.generation_id)

    cluster_spec = property(lambda self: self[0])
    task_type = property(lambda self: self[1])
    task_id = property(lambda self: self[2])

    def __repr__(self):
        return 'Generation(%r, %r, %r, generation=%d, generation_id=%r)' % (
            self[0], self[1], self[2], self.generation, self.generation_id)

class _Identity(object):
    __slots__ = ('task_type', 'task_id', 'rpc_layer', 'environment')

    def __init__(self, res):
        self.task_type = n.dec(n.lib.cr_result_task_type(res))
        task_id = n.lib.cr_result_task_id(res)
        self.task_id = task_id if task_id >= 0 else None
        self.rpc_layer = n.dec(n.lib.cr_result_rpc_layer(res))
        self.environment = n.dec(n.lib.cr_result_environment(res))


@_tf.registrable
class ClusterResolver(object):
    """A cluster-resolver configuration with TensorFlow's ClusterResolver
    surface. @config: None (as the command: $CLUSTER_RESOLVER_CONFIG, else
    the installed cluster-resolver.conf, else the built-in `auto`), a path,
    or configuration text. @task_type, @task_id and @rpc_layer override the
    configuration's, as the attributes of the same names do."""

    # Re-read the identity (task_type, task_id, rpc_layer) on each access,
    # as TensorFlow's environment-driven resolvers do; otherwise the last
    # resolution's is used (a resolution is made if there was none).
    _refresh_identity = False
    _ctx = None
    _reopen = False  # a forked child's: a fresh C context at the next call

    def __init__(self, config=None, task_type=None, task_id=None, rpc_layer=None):
        self._lock = _thread.RLock()
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._last = None
        self._open(config)
        _live.add(self)

    # ---- the C context -----------------------------------------------------

    def _open(self, config, name=None):
        self._ctx = self._new_context(config, name)
        self._config = config
        self._name = name

    def _new_context(self, config, name=None):
        """A C context on @config (a path, configuration text or None)."""
        name = name or '<%s>' % type(self).__name__
        err = n.new_error()
        ctx = n.lib.cr_context_new(err)
        if not ctx:
            n.raise_error(err.code, err)
        n.lib.cr_context_set_log_handler(ctx, n.log_callback, None)
        try:
            if config is not None and _is_text(config):
                st = n.lib.cr_context_load_config_string(ctx, n.enc(config), n.enc(name), err)
            else:
                path = os.fspath(config) if config is not None else None
                st = n.lib.cr_context_load_config(ctx, n.enc(path), err)
            n.check(st, err)
        except BaseException:
            n.lib.cr_context_free(ctx)
            raise
        return ctx

    @property
    def configuration(self):
        """The configuration text or file this object resolves (None: the
        command's default)."""
        return self._config

    def _context(self):
        """Under the lock: this object's C context (a fresh one in a forked
        child, see _after_fork_in_child); ValueError once closed."""
        if self._reopen:
            self._reopen = False
            self._ctx = self._new_context(self._config, self._name)
        if not self._ctx:
            raise ValueError('this ClusterResolver is closed')
        return self._ctx

    def close(self):
        """Free the C context (plugins are unloaded), once a call in
        progress in another thread has returned, and end every watch() of
        this object: later calls, and the generators' next items, raise
        ValueError. Idempotent."""
        lock = self.__dict__.get('_lock')
        if lock is None:  # __init__ failed before the lock
            return
        with lock:
            ctx, self._ctx = self._ctx, None
            self._reopen = False
            for wctx in getattr(self, '_watching', ()):
                n.lib.cr_context_watch_cancel(wctx)
            if ctx:
                n.lib.cr_context_free(ctx)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _override_task_type(self):
        return self._task_type

    def _override_task_id(self):
        return self._task_id

    def _apply(self, rpc_layer=None, ctx=None):
        err = n.new_error()
        ctx = ctx or self._ctx
        tt = self._override_task_type()
        ti = self._override_task_id()
        n.check(n.lib.cr_context_set_task(ctx, n.enc(tt), -1 if ti is None else _task_index(ti),
                                          err), err)
        layer = self._context_rpc_layer(rpc_layer)
        n.check(n.lib.cr_context_set_rpc_layer(ctx, n.enc(layer), err), err)

    def _context_rpc_layer(self, rpc_layer):
        """The rpc layer the C context gets: @rpc_layer, else the override
        set on this object; None keeps the configuration's, "" is none."""
        return rpc_layer if rpc_layer is not None else self._rpc_layer

    def _with_result(self, fn, rpc_layer=None, ctx=None):
        """Resolve (on @ctx, else this object's context) and call
        @fn(result) under the lock; the result is freed."""
        with self._lock:
            own = self._context()
            ctx = ctx or own
            self._apply(rpc_layer, ctx)
            err = n.new_error()
            res = ctypes.c_void_p()
            n.check(n.lib.cr_context_resolve(ctx, ctypes.byref(res), err), err)
            try:
                if rpc_layer is None:
                    self._last = _Identity(res.value)
                return fn(res.value)
            finally:
                n.lib.cr_result_free(res)

    def _identity(self):
        if self._refresh_identity or self._last is None:
            self._with_result(lambda res: None)
        return self._last

    # ---- TensorFlow's ClusterResolver -------------------------------------

    def _spec(self):
        """The cluster as our ClusterSpec."""
        def spec_of(res):
            self._on_result(res)
            return ClusterSpec._from_json(n.take_string(
                n.lib.cr_spec_to_json(n.lib.cr_result_spec(res))))
        return self._with_result(spec_of)

    def _on_result(self, res):
        """What a subclass does with each resolution (Slurm: GPUs)."""

    def cluster_spec(self):
        """The cluster, resolved now: tf.train.ClusterSpec where TensorFlow
        is imported, else cluster_resolver.ClusterSpec."""
        return _tf.to_tf_spec(self._spec())

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of a task as "rpc_layer://host:port". With neither
        @task_type nor @task_id: this process's master (the first
        resolver's own, else this task's address), "" when unknown. With
        one of them, the other comes from this resolver's attribute.
        @rpc_layer None: the effective layer; "": none."""
        if task_type is None and task_id is None:
            return self._own_master(rpc_layer)
        if task_type is None:
            task_type = self.task_type
        if task_id is None:
            task_id = self.task_id
        if task_type is None or task_id is None:
            return ''
        return self._task_master(task_type, task_id, rpc_layer)

    def _own_master(self, rpc_layer):
        def master_of(res):
            err = n.new_error()
            url = ctypes.c_void_p()
            st = n.lib.cr_result_master(res, None, -1, None, ctypes.byref(url), err)
            text = n.take_string(url.value)
            if st == errors.NotFoundError.code and text == '':
                return ''
            n.check(st, err)
            return text
        return self._with_result(master_of, rpc_layer)

    def _task_master(self, task_type, task_id, rpc_layer):
        index = _task_index(task_id)

        def master_of(res):
            err = n.new_error()
            url = ctypes.c_void_p()
            st = n.lib.cr_result_master(res, n.enc(str(task_type)), index,
                                        n.enc(rpc_layer), ctypes.byref(url), err)
            text = n.take_string(url.value)
            n.check(st, err)
            return text
        return self._with_result(master_of)

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """{"GPU": 8, ...} for this process's task, or for @task_type /
        @task_id as the resolvers reported it. @config_proto is ignored."""
        del config_proto
        if task_type is not None or task_id is not None:
            task_type = task_type if task_type is not None else self.task_type
            task_id = task_id if task_id is not None else self.task_id
        index = _task_index(task_id) if task_type is not None and task_id is not None else -1

        def counts(res):
            err = n.new_error()
            out = ctypes.c_void_p()
            both = task_type is not None and task_id is not None
            n.check(n.lib.cr_result_accelerators_json(
                res, n.enc(str(task_type)) if both else None, index,
                False, ctypes.byref(out), err), err)
            return json.loads(n.take_string(out.value))
        return self._with_result(counts)

    def explain(self):
        """`cluster-resolver explain --json` as a dict: each resolver's
        verdict, reason and facts, then the result or the error."""
        with self._lock:
            ctx = self._context()
            self._apply(ctx=ctx)
            err = n.new_error()
            out = ctypes.c_void_p()
            st = n.lib.cr_context_explain(ctx, True, ctypes.byref(out), err)
            text = n.take_string(out.value)
            if text is None:
                n.check(st, err)
            return json.loads(text)

    # ---- tasks whose addresses are unknown (ABI 1.3) ------------------------

    def _sized(self, job, fn):
        if not n.HAS_SIZES:
            raise NotImplementedError('job sizes need libcluster-resolver with ABI 1.3; '
                                      'this one is %s' % n.version())

        def of(res):
            name = job if job is not None else n.dec(n.lib.cr_result_task_type(res))
            if name is None:
                raise ValueError('no job given and this process\'s task type is unknown')
            spec = n.lib.cr_result_spec(res)
            err = n.new_error()
            size = ctypes.c_size_t()
            n.check(n.lib.cr_spec_job_size(spec, n.enc(name), ctypes.byref(size), err), err)
            return fn(spec, n.enc(name), size.value)
        return self._with_result(of)

    def job_size(self, job=None):
        """The number of tasks of @job (default: this process's task type),
        resolved now, those whose addresses are unknown included: under
        torchrun, Kubeflow or the DeepSpeed launcher the cluster is WORLD_SIZE
        tasks of which only task 0 (the coordinator) has an address, and
        cluster_spec() holds that one alone. No such job: NotFoundError."""
        return self._sized(job, lambda spec, name, size: size)

    def unknown_tasks(self, job=None):
        """The indices of @job's tasks (default: this process's task type)
        whose addresses are unknown, ascending; [] when every address is
        known."""
        def unknown(spec, name, size):
            if n.lib.cr_spec_num_unknown(spec, name) == 0:
                return []
            out = []
            known = ctypes.c_bool()
            for i in range(size):
                if (n.lib.cr_spec_task_known(spec, name, i, ctypes.byref(known), None) == 0
                        and not known.value):
                    out.append(i)
            return out
        return self._sized(job, unknown)

    # ---- elastic membership (ABI 1.2) ----------------------------------------

    def watch(self, timeout=None):
        """Yield (cluster_spec, task_type, task_id) for the cluster now, then
        for each generation that differs from the one before: a member lost
        or added, this task's index derived again (cr_context_watch). Each
        is a Generation: the 3-tuple, with .generation (this watch's count:
        1, 2, ...) and .generation_id (the world's id, the same in every
        member: exec --elastic's CR_GENERATION_ID) besides. The
        generator ends when @timeout seconds (None: no limit) pass with no
        new generation, or when cancel_watch() is called from any thread;
        a resolution that fails raises. The task set on this object pins
        the first generation only: later ones follow this member (task_id
        None once it left the cluster). The watch runs on a C context of
        its own, so the other methods keep working meanwhile."""
        if not n.HAS_WATCH:
            raise NotImplementedError('watch() needs libcluster-resolver 1.2 (ABI 1.2); '
                                      'this one is %s' % n.version())
        wait_ms = _wait_ms(timeout)
        with self._lock:
            self._context()
            ctx = self._new_context(self._config, getattr(self, '_name', None))
            try:
                self._apply(ctx=ctx)
            except BaseException:
                n.lib.cr_context_free(ctx)
                raise
            self._watching = getattr(self, '_watching', set())
            self._watching.add(ctx)
        try:
            while True:
                if not self._ctx and not self._reopen:  # close() ended it
                    raise ValueError('this ClusterResolver is closed')
                err = n.new_error()
                res = ctypes.c_void_p()
                gen = ctypes.c_uint64()
                st = n.lib.cr_context_watch(ctx, wait_ms, ctypes.byref(res), ctypes.byref(gen),
                                            err)
                if not self._ctx and not self._reopen:  # close() ended it
                    if res.value:
                        n.lib.cr_result_free(res)
                    raise ValueError('this ClusterResolver is closed')
                n.check(st, err)
                if not res.value:
                    return
                try:
                    spec = ClusterSpec._from_json(n.take_string(
                        n.lib.cr_spec_to_json(n.lib.cr_result_spec(res.value))))
                    task_type = n.dec(n.lib.cr_result_task_type(res.value))
                    task_id = n.lib.cr_result_task_id(res.value)
                    gid = (n.dec(n.lib.cr_result_generation_id(res.value))
                           if n.HAS_GENERATION_ID else generation_id(spec.as_dict()))
                finally:
                    n.lib.cr_result_free(res)
                yield Generation(_tf.to_tf_spec(spec), task_type if task_id >= 0 else None,
                                 task_id if task_id >= 0 else None, gen.value, gid)
        finally:
            with self._lock:
                self._watching.discard(ctx)
                n.lib.cr_context_free(ctx)

    def cancel_watch(self):
        """End every watch() of this object: each returns promptly, after
        the generation it may be yielding. Safe from any thread."""
        with self._lock:
            for ctx in getattr(self, '_watching', ()):
                n.lib.cr_context_watch_cancel(ctx)

    @property
    def task_type(self):
        if self._task_type is not None:
            return self._task_type
        return self._identity().task_type

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        if self._task_id is not None:
            return self._task_id
        return self._identity().task_id

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def rpc_layer(self):
        if self._rpc_layer is not None:
            return self._rpc_layer
        return self._identity().rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer

    @property
    def environment(self):
        """The environment the resolvers reported ("cloud", ...), or ''."""
        return self._identity().environment or ''

    def _env_vars(self, fmt, options=None):
        """cr_result_env_vars(): [(name, value)] of `--format @fmt`."""
        opts = None
        if options:
            arr = (ctypes.c_char_p * (len(options) + 1))(
                *[n.enc('%s=%s' % kv) for kv in options.items()], None)
            opts = ctypes.cast(arr, ctypes.c_void_p)

        def pairs_of(res):
            err = n.new_error()
            out = ctypes.c_void_p()
            n.check(n.lib.cr_result_env_vars(res, n.enc(fmt), opts, ctypes.byref(out), err),
                    err)
            flat = n.take_strv(out.value)
            return list(zip(flat[0::2], flat[1::2]))
        return self._with_result(pairs_of)
