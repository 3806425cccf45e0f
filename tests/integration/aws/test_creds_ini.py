#!/usr/bin/python3
"""aws.so's reader of ~/.aws/config and ~/.aws/credentials against the real
one: botocore's configloader (pip 1.43, the aws CLI v1's, and Debian's 1.29,
the CLI v2's generation) on the same files. For each file both must agree
on the profile map (config: load_config()['profiles']; credentials:
raw_config_parse(), every section a profile), nested sections compared
through botocore's own _parse_nested, or both refuse the file; and aws.so's
refusal must name FILE:LINE exactly as listed.
"""
import json
import os
import subprocess
import sys
import tempfile

PIP_PY = '/root/.pyenv/versions/3.11.7/bin/python3'
BOTOCORE = r'''
import json, sys
import botocore.configloader as c
mode, path = sys.argv[1:]
try:
    if mode == 'config':
        out = c.load_config(path)['profiles']
    else:
        out = c.raw_config_parse(path)
except Exception as e:
    out = {'error': type(e).__name__}
print(json.dumps(out, sort_keys=True))
'''

# name, mode, text, aws.so's error (None: parsed) with @F@ for the file
CASES = [
    ('comments, no inline comments', 'config',
     '# top\n; semi\n[default]\nregion = us-west-2 # not a comment\n  # indented\n'
     'output: json\n', None),
    ('keys lower-cased, values stripped', 'config',
     '[default]\nRegion = x\nAWS_Access_Key_ID =   AKIA   \n', None),
    ('profile sections', 'config',
     '[profile a]\nx = 1\n[profile  b ]\nx = 2\n[profile "c d"]\nx = 3\n[profile]\nx = 4\n'
     '[profilee e]\nx = 5\n[sso-session s]\nsso_region = us-east-1\n[services s]\nec2 =\n'
     '  endpoint_url = https://x\n[preview]\ncloudfront = true\n', None),
    ('[profile default] replaces [default]', 'config',
     '[default]\na = 1\n[profile default]\nb = 2\n', None),
    ('nested section', 'config',
     '[default]\ns3 =\n  max_concurrent_requests = 20\n\n  addressing_style = path\n'
     'region = us-west-2\n', None),
    ('continuation lines', 'config',
     '[default]\nx = a\n  b\n\n  c\ny = 2\n\n', None),
    ('empty values', 'config', '[default]\nx =\ny:\n', None),
    ('indented key, blank line with a tab', 'config', '[default]\n  x   =   1  \n\t\n', None),
    ('CRLF line ends', 'config', '[default]\r\nregion = us-west-2\r\n', None),
    ('text after the header', 'config', '[default] ; c\nx = 1\n', None),
    ('key before a section', 'config', 'x = 1\n[default]\n',
     '@F@:1: a key before any [section]'),
    ('line without =', 'config', '[default]\nregion\n', "@F@:2: expected 'key = value'"),
    ('empty key', 'config', '[default]\n = 1\n', "@F@:2: expected 'key = value'"),
    ('key twice', 'config', '[default]\nx = 1\nX = 2\n', "@F@:3: key 'x' appears twice"),
    ('section twice', 'config', '[default]\n[default]\n', '@F@:2: section [default] appears twice'),
    ('bad nested section', 'config', '[default]\ns3 =\n  nonsense\n',
     "@F@:3: expected 'key = value' in the nested section 's3'"),
    ('credentials: sections are profiles', 'credentials',
     '[default]\naws_access_key_id = A\naws_secret_access_key = B\n[profile x]\n'
     'aws_access_key_id = C\n', None),
    ('credentials: continuation', 'credentials', '[ops]\naws_session_token=t\n  cont\n', None),
]


def botocore(py, mode, path):
    p = subprocess.run([py, '-c', BOTOCORE, mode, path], capture_output=True, text=True,
                       env={'PATH': '/usr/bin:/bin', 'HOME': '/nonexistent'})
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return json.loads(p.stdout)


def ours(mode, path):
    p = subprocess.run([os.environ['CR_AWS_INI_DUMP'], mode, path], capture_output=True,
                       text=True)
    if p.returncode == 2:
        return None, p.stdout.strip()
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return json.loads(p.stdout), None


def nested(profiles):
    """Our nested values as botocore reads them (its own _parse_nested)."""
    import botocore.configloader as c
    return {name: {k: c._parse_nested(v) if v.startswith('\n') else v
                   for k, v in keys.items()} for name, keys in profiles.items()}


def main():
    exe = os.environ.get('CR_AWS_INI_DUMP')
    if not exe or not os.path.exists(exe):
        print('SKIP: CR_AWS_INI_DUMP is not set (run through ctest)')
        sys.exit(77)
    clients = [('botocore-1.29', '/usr/bin/python3')]
    if os.path.exists(PIP_PY):
        clients.insert(0, ('botocore-1.43', PIP_PY))
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        for i, (name, mode, text, error) in enumerate(CASES):
            path = os.path.join(d, 'case%d' % i)
            with open(path, 'w', newline='') as f:
                f.write(text)
            got, msg = ours(mode, path)
            mine = nested(got) if got is not None else None
            for client, py in clients:
                ref = botocore(py, mode, path)
                if error is None:
                    ok = mine == ref and msg is None
                else:
                    ok = 'error' in ref and msg == error.replace('@F@', path)
                print('%s - %s: %s' % ('ok' if ok else 'not ok', name, client))
                if not ok:
                    failed += 1
                    print('  aws.so:   %s\n  botocore: %s' % (mine if msg is None else msg,
                                                            ref))
    print('%d failed' % failed)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
