"""_config - writing libconfig text for the plugin configurations the
resolver classes build (cluster-resolver.conf(5))."""
import math
import re

_NAME = re.compile(r'^[A-Za-z*][-A-Za-z0-9_*]*$')


def name(key, what='name'):
    """@key as a libconfig setting name, or ValueError."""
    if not isinstance(key, str) or not _NAME.match(key):
        raise ValueError('%s %r cannot be written in a cluster-resolver configuration (letters, '
                         'digits, "-" and "_", starting with a letter)' % (what, key))
    return key


def value(v):
    """@v (str, bool, int, float, list, tuple, dict) as libconfig text."""
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, int):
        return '%dL' % v if abs(v) > 2**31 - 1 else '%d' % v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError('%r cannot be written in a configuration' % v)
        text = repr(v)
        return text if ('.' in text or 'e' in text) else text + '.0'
    if isinstance(v, (str, bytes)):
        if isinstance(v, bytes):
            v = v.decode('utf-8', 'surrogateescape')
        out = []
        for ch in v:
            if ch in '"\\':
                out.append('\\' + ch)
            elif ord(ch) < 0x20 or ord(ch) == 0x7f:
                out.append('\\x%02x' % ord(ch))
            else:
                out.append(ch)
        return '"' + ''.join(out) + '"'
    if isinstance(v, (list, tuple)):
        return '[ ' + ', '.join(value(x) for x in v) + ' ]'
    if isinstance(v, dict):
        return group(v)
    raise TypeError('%r (%s) cannot be written in a configuration' % (v, type(v).__name__))


def group(options):
    """{key: value} as a libconfig group; None values are left out."""
    return '{ ' + ' '.join('%s = %s;' % (name(k, 'option'), value(v))
                           for k, v in options.items() if v is not None) + ' }'


def resolvers(*groups, accelerators=None):
    """A whole configuration: the resolver groups in order, and the
    accelerator plugins (None: the built-in default)."""
    text = 'resolvers = ( %s );\n' % ', '.join(group(g) for g in groups)
    if accelerators is not None:
        text += 'accelerators = ( %s );\n' % ', '.join(group(a) for a in accelerators)
    return text
