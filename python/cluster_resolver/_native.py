"""_native - libcluster-resolver.so.1 through ctypes: finding the library,
the prototypes of the C API the package calls, and C errors as Python
exceptions.

The library is found the way the command finds its plugins: the file named
by $CLUSTER_RESOLVER_LIBRARY, else the installed soname through the dynamic
loader's search path. Every call that can fail takes a caller-owned cr_error;
a failure becomes an exception of the class of its status (errors.py) with
the C message, escaped as the command escapes it. The library's diagnostics
go to the `cluster_resolver` logger (which has a NullHandler), never to the
process's stderr.
"""
import ctypes
import os

from . import errors

SONAME = 'libcluster-resolver.so.1'
ERROR_MSG_MAX = 512

_log = None


def logger():
    """The `cluster_resolver` logger, made (with a NullHandler, so that
    nothing reaches stderr unless the program configures logging) on the
    first message: `import logging` costs more than the rest of the
    package's import."""
    global _log
    if _log is None:
        import logging
        log = logging.getLogger('cluster_resolver')
        log.addHandler(logging.NullHandler())
        _log = log
    return _log


class _Error(ctypes.Structure):
    _fields_ = [('struct_size', ctypes.c_size_t), ('code', ctypes.c_int),
                ('message', ctypes.c_char * ERROR_MSG_MAX)]


def new_error():
    """A fresh cr_error, as CR_ERROR_INIT makes it."""
    e = _Error()
    e.struct_size = ctypes.sizeof(_Error)
    return e


def _load():
    tried = []
    path = os.environ.get('CLUSTER_RESOLVER_LIBRARY')
    candidates = ([path] if path else []) + [SONAME]
    for name in candidates:
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            tried.append('%s (%s)' % (name, e))
    raise ImportError('cluster_resolver: cannot load the C library; tried: %s. Install '
                      'libcluster-resolver1, or set CLUSTER_RESOLVER_LIBRARY to the path of '
                      '%s' % ('; '.join(tried), SONAME), name='cluster_resolver')


lib = _load()

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_E = ctypes.POINTER(_Error)
_I64 = ctypes.c_int64
_SZ = ctypes.c_size_t
_PTRS = ctypes.POINTER(ctypes.c_void_p)
LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, _S, _S, _P)

_PROTOS = {
    'cr_strerror': (_S, [ctypes.c_int]),
    'cr_version': (_S, []),
    'cr_text_escape': (_P, [_S]),
    'cr_free': (None, [_P]),
    'cr_strv_free': (None, [_P]),
    'cr_context_new': (_P, [_E]),
    'cr_context_free': (None, [_P]),
    'cr_context_set_log_handler': (None, [_P, LOG_FN, _P]),
    'cr_context_set_log_level': (None, [_P, ctypes.c_int]),
    'cr_context_load_config': (ctypes.c_int, [_P, _S, _E]),
    'cr_context_load_config_string': (ctypes.c_int, [_P, _S, _S, _E]),
    'cr_context_set_task': (ctypes.c_int, [_P, _S, _I64, _E]),
    'cr_context_set_rpc_layer': (ctypes.c_int, [_P, _S, _E]),
    'cr_context_resolve': (ctypes.c_int, [_P, _PTRS, _E]),
    'cr_context_explain': (ctypes.c_int, [_P, ctypes.c_bool, _PTRS, _E]),
    'cr_result_free': (None, [_P]),
    'cr_result_spec': (_P, [_P]),
    'cr_result_task_type': (_S, [_P]),
    'cr_result_task_id': (_I64, [_P]),
    'cr_result_rpc_layer': (_S, [_P]),
    'cr_result_environment': (_S, [_P]),
    'cr_result_master': (ctypes.c_int, [_P, _S, _I64, _S, _PTRS, _E]),
    'cr_result_accelerators_json': (ctypes.c_int, [_P, _S, _I64, ctypes.c_bool, _PTRS, _E]),
    'cr_result_num_env': (_SZ, [_P]),
    'cr_result_env': (ctypes.c_bool, [_P, _SZ, ctypes.POINTER(_S), ctypes.POINTER(_S)]),
    'cr_result_env_vars': (ctypes.c_int, [_P, _S, _P, ctypes.POINTER(_P), _E]),
    'cr_spec_free': (None, [_P]),
    'cr_spec_to_json': (_P, [_P]),
    'cr_spec_from_json': (_P, [_S, _SZ, _S, _E]),
    'cr_spec_to_clusterdef': (ctypes.c_int, [_P, _PTRS, ctypes.POINTER(_SZ), _E]),
}
for _name, (_res, _args) in _PROTOS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

# Since ABI 1.2 (release 1.2.0): absent from an older library, where
# ClusterResolver.watch() says so instead of the import failing.
_PROTOS_1_2 = {
    'cr_context_watch': (ctypes.c_int, [_P, _I64, _PTRS, ctypes.POINTER(ctypes.c_uint64), _E]),
    'cr_context_watch_cancel': (None, [_P]),
}
HAS_WATCH = all(hasattr(lib, _name) for _name in _PROTOS_1_2)
if HAS_WATCH:
    for _name, (_res, _args) in _PROTOS_1_2.items():
        _fn = getattr(lib, _name)
        _fn.restype = _res
        _fn.argtypes = _args

# Since ABI 1.3: a job's declared size and its unknown addresses (a launcher
# that tells a process only its coordinator: torchrun, Kubeflow).
_PROTOS_1_3 = {
    'cr_spec_job_size': (ctypes.c_int, [_P, _S, ctypes.POINTER(_SZ), _E]),
    'cr_spec_task_known': (ctypes.c_int, [_P, _S, _I64, ctypes.POINTER(ctypes.c_bool), _E]),
    'cr_spec_num_unknown': (_SZ, [_P, _S]),
}
HAS_SIZES = all(hasattr(lib, _name) for _name in _PROTOS_1_3)
if HAS_SIZES:
    for _name, (_res, _args) in _PROTOS_1_3.items():
        _fn = getattr(lib, _name)
        _fn.restype = _res
        _fn.argtypes = _args

# Since ABI 1.3: the world's id, computed by the library (the Python
# generation_id() is the same function for a cluster given as a dict).
HAS_GENERATION_ID = hasattr(lib, 'cr_result_generation_id')
if HAS_GENERATION_ID:
    lib.cr_result_generation_id.restype = _S
    lib.cr_result_generation_id.argtypes = [_P]

LOG_LEVELS = {0: 40, 1: 30, 2: 20, 3: 10}   # logging.ERROR, WARNING, INFO, DEBUG


def _on_log(level, source, message, _user_data):
    text = message.decode('utf-8', 'backslashreplace') if message else ''
    if source:
        text = '%s: %s' % (source.decode('utf-8', 'backslashreplace'), text)
    logger().log(LOG_LEVELS.get(level, 10), '%s', text)


# One callback for every context; kept alive as long as the module.
log_callback = LOG_FN(_on_log)


def enc(text):
    """str -> bytes for a const char * argument (None stays NULL)."""
    if text is None:
        return None
    if isinstance(text, bytes):
        return text
    return str(text).encode('utf-8', 'surrogateescape')


def dec(raw):
    """A C string (bytes or None) as str."""
    return None if raw is None else raw.decode('utf-8', 'surrogateescape')


def take_string(ptr, length=None):
    """A (transfer full) char * as str (bytes when @length is given), freed."""
    if not ptr:
        return None
    try:
        if length is not None:
            return ctypes.string_at(ptr, length)
        return dec(ctypes.string_at(ptr))
    finally:
        lib.cr_free(ptr)


def escape(text):
    """cr_text_escape(): control characters and bad UTF-8 as \\xNN."""
    return take_string(lib.cr_text_escape(enc(text)))


def raise_error(status, err, context=None):
    """Raise the exception of @status with @err's message."""
    raw = bytes(err.message).split(b'\0', 1)[0]
    message = escape(raw) if raw else dec(lib.cr_strerror(status))
    if context:
        message = '%s: %s' % (context, message)
    raise errors.from_status(status, message)


def check(status, err, context=None):
    if status != 0:
        raise_error(status, err, context)


def take_strv(ptr):
    """A NULL-terminated char ** (transfer full) as a list of str, freed."""
    if not ptr:
        return []
    arr = ctypes.cast(ptr, ctypes.POINTER(ctypes.c_char_p))
    out = []
    i = 0
    while arr[i] is not None:
        out.append(dec(arr[i]))
        i += 1
    lib.cr_strv_free(ptr)
    return out


def version():
    return dec(lib.cr_version())
