"""errors - the C library's statuses as Python exceptions.

Every failure of the library raises a subclass of ClusterResolverError
carrying the C message (`str(e)`, `e.message`), the numeric status (`e.code`,
the values of cr_status in error.h) and its name (`e.status`,
"CR_ERR_NOT_FOUND"). Each class also derives from the built-in exception a
TensorFlow user would catch for it: a missing job or task, a bad argument,
configuration or input are ValueError (TensorFlow's ClusterSpec and
resolvers raise ValueError there); a backend, network, credential or plugin
failure is RuntimeError. Messages never carry a secret: the library does not
put one in them.
"""

__all__ = ['ClusterResolverError', 'DeclinedError', 'InvalidArgumentError', 'ConfigError',
           'UnsupportedError', 'AbiError', 'NotFoundError', 'IOFailureError', 'NetworkError',
           'DeadlineError', 'AuthError', 'ParseError', 'ConflictError', 'BackendError',
           'NoMemoryError', 'InternalError', 'PluginError', 'STATUS_NAMES']


class ClusterResolverError(Exception):
    """A failure reported by libcluster-resolver."""
    code = -1
    status = 'CR_ERR_UNKNOWN'

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self):
        return self.message


def _make(name, code, status, base, doc):
    return type(name, (ClusterResolverError, base),
                {'code': code, 'status': status, '__doc__': doc, '__module__': __name__})


DeclinedError = _make('DeclinedError', 1, 'CR_DECLINED', RuntimeError,
                      'No resolver applies to this environment.')
InvalidArgumentError = _make('InvalidArgumentError', 2, 'CR_ERR_INVALID_ARG', ValueError,
                             'A bad value was passed.')
ConfigError = _make('ConfigError', 3, 'CR_ERR_CONFIG', ValueError,
                    'A configuration file or option is wrong.')
UnsupportedError = _make('UnsupportedError', 4, 'CR_ERR_UNSUPPORTED', RuntimeError,
                         'The operation is not provided.')
AbiError = _make('AbiError', 5, 'CR_ERR_ABI', RuntimeError,
                 'A plugin and the library do not match.')
NotFoundError = _make('NotFoundError', 6, 'CR_ERR_NOT_FOUND', ValueError,
                      'A job, task, file, plugin or key was not found.')
IOFailureError = _make('IOFailureError', 7, 'CR_ERR_IO', RuntimeError,
                       'Reading a file or running a program failed.')
NetworkError = _make('NetworkError', 8, 'CR_ERR_NETWORK', RuntimeError,
                     'An endpoint could not be reached.')
DeadlineError = _make('DeadlineError', 9, 'CR_ERR_TIMEOUT', RuntimeError, 'A deadline passed.')
AuthError = _make('AuthError', 10, 'CR_ERR_AUTH', RuntimeError,
                  'Credentials are missing or were refused.')
ParseError = _make('ParseError', 11, 'CR_ERR_PARSE', ValueError, 'Malformed input.')
ConflictError = type('ConflictError', (ClusterResolverError, ValueError, KeyError), {
    'code': 12, 'status': 'CR_ERR_CONFLICT', '__module__': __name__,
    '__doc__': 'Contradictory input, e.g. a duplicate task index (also a KeyError, as '
               'TensorFlow\'s union raises for one).'})
BackendError = _make('BackendError', 13, 'CR_ERR_BACKEND', RuntimeError,
                     'The backend is in a state that cannot be used.')
NoMemoryError = _make('NoMemoryError', 14, 'CR_ERR_NOMEM', RuntimeError, 'Out of memory.')
InternalError = _make('InternalError', 15, 'CR_ERR_INTERNAL', RuntimeError,
                      'A bug in cluster-resolver.')
PluginError = _make('PluginError', 16, 'CR_ERR_PLUGIN', RuntimeError,
                    'A plugin could not be loaded or misbehaved.')

_BY_CODE = {c.code: c for c in (DeclinedError, InvalidArgumentError, ConfigError,
                                UnsupportedError, AbiError, NotFoundError, IOFailureError,
                                NetworkError, DeadlineError, AuthError, ParseError, ConflictError,
                                BackendError, NoMemoryError, InternalError, PluginError)}
STATUS_NAMES = {c.code: c.status for c in _BY_CODE.values()}


def from_status(code, message):
    """The exception for C status @code."""
    cls = _BY_CODE.get(code)
    if cls is None:
        return ClusterResolverError(message, code)
    return cls(message)
