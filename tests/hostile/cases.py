"""The hostile inputs (hostile.py runs them): input -> exit status, stderr,
stdout. Areas: config (the file itself), options (every numeric option of
every plugin out of its range, generated from the schemas' ranges below),
env (TF_CONFIG, SLURM_*, CUDA_VISIBLE_DEVICES), address, task-id, plugins
(the deliberately broken plugins of tests/abi on the path).
Many single cases also live beside their code (tests/integration/cli,
tests/plugins/*, tests/integration/k8s); this table adds breadth.
"""
E = 'cluster-resolver: '
C = E + '@CONF@:'
TF = 'resolvers = ( { plugin = "tfconfig"; } );\naccelerators = ( );\n'
SLURM = 'resolvers = ( { plugin = "slurm"; } );\naccelerators = ( );\n'
SIMPLE = ('resolvers = ( { plugin = "simple"; cluster = { worker = [ "a:1", "b:1" ]; }; '
          'task_type = "worker"; task_id = %s; } );\naccelerators = ( );\n')
TBD = None   # filled from expected.py (reviewed outputs)

CASES = []


def add(area, name, rc, err, **kw):
    CASES.append(dict(area=area, name=name, rc=rc, err=err, **kw))


# -- config: the file itself -------------------------------------------------
add('config', 'fifo', TBD, TBD, conf='FIFO')
add('config', 'directory', TBD, TBD, conf='DIRECTORY')
add('config', 'missing', TBD, TBD, conf='MISSING')
add('config', 'dev-zero', TBD, TBD, conf='DEVZERO')
add('config', 'huge-comment', TBD, TBD, conf='#' + 'x' * (2 << 20) + '\n')
add('config', 'huge-token', TBD, TBD, conf='a = "' + 'x' * (16 << 20) + '";\n')
add('config', 'nul-byte', TBD, TBD, conf=b'resolvers = ( { plugin = "simple\x00"; } );\n')
add('config', 'nul-in-comment', TBD, TBD, conf=b'# \x00\nresolvers = ( );\n')
add('config', 'binary', TBD, TBD, conf=bytes(range(256)) * 4)
add('config', 'deep-groups', TBD, TBD, conf='a = ' + '{ b = ' * 20000 + '1' + '; }' * 20000 + ';\n')
add('config', 'deep-lists', TBD, TBD, conf='a = ' + '( ' * 20000 + ')' * 20000 + ';\n')
add('config', 'unterminated-string', TBD, TBD, conf='resolvers = ( { plugin = "simple; } );\n')
add('config', 'unterminated-comment', TBD, TBD, conf='/* resolvers = ( );\n')
add('config', 'invalid-utf8-name', TBD, TBD, conf=b'resolvers = ( { plugin = "\xff\xfe"; } );\n')
add('config', 'escape-in-plugin', TBD, TBD, conf='resolvers = ( { plugin = "\\x1b[31mred"; } );\n')
add('config', 'plugin-path-traversal', TBD, TBD, conf='resolvers = ( { plugin = "../../../tmp/x"; } );\n')
add('config', 'plugin-not-string', TBD, TBD, conf='resolvers = ( { plugin = 7; } );\n')
add('config', 'plugin-missing', TBD, TBD, conf='resolvers = ( { policy = "required"; } );\n')
add('config', 'resolvers-not-list', TBD, TBD, conf='resolvers = "simple";\n')
add('config', 'resolver-not-group', TBD, TBD, conf='resolvers = ( "simple" );\n')
add('config', 'policy-unknown', TBD, TBD, conf='resolvers = ( { plugin = "tfconfig"; policy = "maybe"; } );\n')
add('config', 'unknown-top-key', TBD, TBD, conf='resolver = ( );\n')
add('config', 'unknown-option', TBD, TBD, conf='resolvers = ( { plugin = "tfconfig"; bogus = 1; } );\n')
add('config', 'duplicate-key', TBD, TBD, conf='resolvers = ( );\nresolvers = ( );\n')
add('config', 'include-missing', TBD, TBD, conf='@include "/nonexistent/x.conf"\n')
add('config', 'int-over-32-bits', TBD, TBD, conf=SIMPLE % '4294967297')
add('config', 'port-over-32-bits', TBD, TBD,
    conf='resolvers = ( { plugin = "sagemaker"; port = 4294969518; } );\n')
add('config', 'int-hex-over-32-bits', TBD, TBD, conf=SIMPLE % '0x100000001')
add('config', 'int-64-bit-suffix', TBD, TBD, conf=SIMPLE % '4294967297L')
add('config', 'int-negative-over', TBD, TBD, conf=SIMPLE % '-4294967297')
add('config', 'int-float-for-int', TBD, TBD, conf=SIMPLE % '1.5')
add('config', 'int-string-for-int', TBD, TBD, conf=SIMPLE % '"1"')
add('config', 'int-bool-for-int', TBD, TBD, conf=SIMPLE % 'true')
# simple's group form is checked by check-config (issue #11 leftover)
for name, cluster in (('dup-index', 'ps = ( { index = 1; address = "a:1"; }, { index = 1; address = "b:1"; } );'),
                      ('dense-after-sparse', 'ps = ( "b:1", { index = 0; address = "a:1"; } );'),
                      ('bad-port', 'ps = [ "a:99999" ];'),
                      ('empty-address', 'ps = [ "" ];'),
                      ('space-in-host', 'ps = ( { index = 1; address = "a b:1"; } );'),
                      ('newline-in-host', 'ps = [ "a\\nother slots=999:1" ];')):
    add('config', 'simple-check-' + name, TBD, TBD,
        conf='resolvers = ( { plugin = "simple"; cluster = { %s }; } );\n' % cluster,
        args=['check-config'])

# -- options: every numeric option of every plugin out of its range -----------
# (plugin, option, INT|FLOAT, low, high): the CR_OPTION_RANGE of each schema.
RANGES = [
    ('k8s', 'port', 'INT', 1, 65535), ('k8s', 'page_size', 'INT', 0, 100000),
    ('k8s', 'wait_timeout', 'FLOAT', 0.1, 86400), ('k8s', 'wait_interval', 'FLOAT', 0.01, 3600),
    ('k8s', 'connect_timeout', 'FLOAT', 0.1, 600), ('k8s', 'request_timeout', 'FLOAT', 0.1, 3600),
    ('k8s', 'retries', 'INT', 0, 100), ('k8s', 'max_retry_wait', 'FLOAT', 0, 3600),
    ('k8s', 'exec_timeout', 'FLOAT', 0.1, 600), ('k8s', 'list_timeout', 'FLOAT', 1, 86400),
    ('k8s', 'max_pages', 'INT', 1, 10000000),
    ('gce', 'port', 'INT', 1, 65535), ('gce', 'task_id', 'INT', 0, 2147483647),
    ('gce', 'page_size', 'INT', 1, 500), ('gce', 'min_instances', 'INT', 0, 1000000),
    ('gce', 'wait_timeout', 'FLOAT', 0, 86400), ('gce', 'wait_interval', 'FLOAT', 0.01, 3600),
    ('gce', 'metadata_timeout', 'FLOAT', 0.01, 600), ('gce', 'retries', 'INT', 0, 100),
    ('gce', 'max_retry_wait', 'FLOAT', 0, 3600), ('gce', 'request_timeout', 'FLOAT', 0.1, 3600),
    ('gce', 'list_timeout', 'FLOAT', 1, 86400),
    ('tpu', 'coordinator_port', 'INT', 0, 65535), ('tpu', 'port', 'INT', 1, 65535),
    ('tpu', 'metadata_timeout', 'FLOAT', 0.01, 600), ('tpu', 'retries', 'INT', 0, 100),
    ('tpu', 'max_retry_wait', 'FLOAT', 0, 3600), ('tpu', 'request_timeout', 'FLOAT', 0.1, 3600),
    ('aws', 'port', 'INT', 1, 65535), ('aws', 'page_size', 'INT', 5, 1000),
    ('aws', 'connect_timeout', 'FLOAT', 0.1, 600), ('aws', 'request_timeout', 'FLOAT', 0.1, 3600),
    ('aws', 'retries', 'INT', 0, 20), ('aws', 'list_timeout', 'FLOAT', 1, 86400),
    ('sagemaker', 'port', 'INT', 1, 65535),
    ('simple', 'task_id', 'INT', 0, 2147483647),
]


def num(v, kind):
    """As libconfig text."""
    if kind == 'FLOAT':
        return repr(float(v)) if abs(v) < 1e16 else '%g' % v
    return '%dL' % v if not -2**31 <= v < 2**31 else '%d' % v


def shown(v, kind):
    """As the range message prints the value and the bounds."""
    if kind == 'FLOAT':
        return '%g' % v
    return '%d' % v


def bound(v):
    return '%d' % v if v == int(v) and abs(v) < 1e15 else '%g' % v


for plugin, opt, kind, lo, hi in RANGES:
    values = [('negative', -1), ('huge', 1e30 if kind == 'FLOAT' else 2**62)]
    if lo > 0:
        values.append(('zero', 0))
    values.append(('above', hi * 2 if kind == 'FLOAT' else hi + 1))
    if kind == 'FLOAT':
        values.append(('minus-huge', -1e30))
    for vname, v in values:
        if v >= lo and v <= hi:
            continue
        add('options', '%s-%s-%s' % (plugin, opt, vname), 2,
            C + "1: resolver '%s': key '%s' is %s, out of its range %s..%s\n"
            % (plugin, opt, shown(v, kind), bound(lo), bound(hi)),
            conf='resolvers = ( { plugin = "%s"; %s = %s; } );\naccelerators = ( );\n'
            % (plugin, opt, num(v, kind)), args=['check-config'])
    add('options', '%s-%s-string' % (plugin, opt), TBD, TBD,
        conf='resolvers = ( { plugin = "%s"; %s = "1"; } );\naccelerators = ( );\n'
        % (plugin, opt), args=['check-config'])
# slurm checks its numbers in create()
for opt, v in (('port_base', '0'), ('port_base', '65536'), ('port_base', '-1'),
               ('gpus_per_node', '-1'), ('gpus_per_node', '1048577'),
               ('gpus_per_node', '4294967296L'), ('gpus_per_task', '-1'),
               ('gpus_per_task', '1048577'), ('port_base', '"8888"')):
    add('options', 'slurm-%s-%s' % (opt, v.strip('"')), TBD, TBD,
        conf='resolvers = ( { plugin = "slurm"; %s = %s; } );\naccelerators = ( );\n' % (opt, v),
        args=['check-config'])

# -- env: TF_CONFIG ------------------------------------------------------------
for name, value in (
        ('null', 'null'), ('number', '42'), ('empty', ''), ('blank', '   '),
        ('open-brace', '{'), ('array', '[]'), ('string', '"x"'),
        ('single-quoted-key', "{'cluster': {}}"),
        ('invalid-utf8', '{"cluster": {"w\udcff": ["a:1"]}}'),
        ('nul-escape', '{"cluster": {"worker": ["a\\u0000b:1"]}}'),
        ('cluster-not-object', '{"cluster": []}'),
        ('job-of-numbers', '{"cluster": {"worker": [1, 2]}}'),
        ('task-index-out', '{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 5}}'),
        ('task-index-negative', '{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": -1}}'),
        ('task-index-huge', '{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 99999999999999999999}}'),
        ('task-index-float', '{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 0.5}}'),
        ('deep-nesting', '[' * 60000 + ']' * 60000),
        ('trailing-garbage', '{"cluster": {}} x'),
        ('duplicate-key', '{"cluster": {"worker": ["a:1"]}, "cluster": {"ps": ["b:1"]}}'),
        ('sparse-bad-index', '{"cluster": {"worker": {"01": "a:1"}}}'),
):
    add('env', 'tf-config-' + name, TBD, TBD, conf=TF, env={'TF_CONFIG': value})
W600 = 'w' * 600
add('env', 'tf-config-task-type-600', 0,
    E + "warning: this process's task %s:0 is not in the cluster\n" % W600,
    out='{"cluster": {"worker": ["a:1"]}, "task": {"type": "%s", "index": 0}}\n' % W600,
    conf=TF, env={'TF_CONFIG': '{"cluster": {"worker": ["a:1"]}, "task": {"type": "%s", '
                                '"index": 0}}' % W600})
A120K = 'a' * 120000
add('env', 'tf-config-120k-host', 0, '', out='{"cluster": {"worker": ["%s:1"]}}\n' % A120K,
    conf=TF, env={'TF_CONFIG': '{"cluster": {"worker": ["%s:1"]}}' % A120K})

# -- env: Slurm numbers ----------------------------------------------------------
STEP = {'SLURM_JOB_ID': '7', 'SLURM_STEP_ID': '0', 'SLURM_STEP_NODELIST': 'n[1-2]',
        'SLURM_STEP_NUM_NODES': '2', 'SLURM_STEP_TASKS_PER_NODE': '1(x2)',
        'SLURM_STEP_NUM_TASKS': '2', 'SLURM_PROCID': '0', 'SLURM_NODEID': '0',
        'SLURM_LOCALID': '0'}
for name, more in (
        ('gpus-on-node-max', {'SLURM_GPUS_ON_NODE': '4294967295'}),
        ('gpus-on-node-5e7', {'SLURM_GPUS_ON_NODE': '50000000'}),
        ('gpus-on-node-negative', {'SLURM_GPUS_ON_NODE': '-1'}),
        ('gpus-on-node-word', {'SLURM_GPUS_ON_NODE': 'four'}),
        ('procid-out', {'SLURM_PROCID': '2'}),
        ('procid-huge', {'SLURM_PROCID': '99999999999999999999'}),
        ('procid-negative', {'SLURM_PROCID': '-1'}),
        ('procid-hex', {'SLURM_PROCID': '0x1'}),
        ('localid-out', {'SLURM_LOCALID': '5'}),
        ('nodeid-out', {'SLURM_NODEID': '9'}),
        ('num-tasks-zero', {'SLURM_STEP_NUM_TASKS': '0'}),
        ('num-tasks-mismatch', {'SLURM_STEP_NUM_TASKS': '3'}),
        ('tpn-zero', {'SLURM_STEP_TASKS_PER_NODE': '0(x2)'}),
        ('tpn-huge-repeat', {'SLURM_STEP_TASKS_PER_NODE': '1(x99999999999)'}),
        ('tpn-word', {'SLURM_STEP_TASKS_PER_NODE': 'x'}),
        ('tpn-empty', {'SLURM_STEP_TASKS_PER_NODE': ''}),
        ('nodelist-empty', {'SLURM_STEP_NODELIST': ''}),
        ('nodelist-reversed', {'SLURM_STEP_NODELIST': 'n[5-1]'}),
        ('nodelist-over-cap', {'SLURM_STEP_NODELIST': 'n[1-99999999999]'}),
        ('nodelist-unclosed', {'SLURM_STEP_NODELIST': 'n[1-2'}),
        ('nodelist-escape', {'SLURM_STEP_NODELIST': 'n\x1b[31m'}),
        ('nodelist-16m-vs-2', {'SLURM_STEP_NODELIST': 'n[0-16777215]',
                               'SLURM_STEP_NUM_NODES': '16777216'}),
):
    env = dict(STEP)
    env.update(more)
    kw = {'limit_as': 200 << 20} if name == 'nodelist-16m-vs-2' else {}
    add('env', 'slurm-' + name, TBD, TBD, conf=SLURM, env=env, **kw)

# -- env: CUDA_VISIBLE_DEVICES on the fake NVML (8 A100s) ------------------------
NV = ('resolvers = ( { plugin = "simple"; cluster = { worker = [ "a:1" ]; }; '
      'task_type = "worker"; task_id = 0; } );\n'
      'accelerators = ( { plugin = "nvidia"; library = "@NVML@/good/libnvidia-ml.so.1"; '
      'root = "@FIX@/accel/roots/cpu-only"; } );\n')
for name, mask in (('empty', ''), ('commas', ',,,'), ('negative', '-1'), ('huge', '99999999999999999999'),
                   ('uuid-prefix-only', 'GPU-'), ('duplicate', '0,0'), ('garbage-after', '0,1,xyz'),
                   ('escape', '\x1b[31m0'),
                   ('mig-unknown', 'MIG-00000000-0000-0000-0000-000000000000'), ('spaces', ' 1 , 2 ')):
    add('env', 'cuda-visible-' + name, TBD, TBD, conf=NV, args=['accelerators'],
        env={'CUDA_VISIBLE_DEVICES': mask,
             'FAKE_NVML_CONFIG': '@FIX@/accel/nvml/dgx-a100.conf'})

# A 120 KB mask: the warning is kept whole (the host's log lines have no
# fixed buffer).
LONG_MASK = ','.join(['0'] * 60000)
add('env', 'cuda-visible-long', 0,
    E + "warning: accelerator 'nvidia': CUDA_VISIBLE_DEVICES='" + LONG_MASK +
    "': '0' repeats an earlier index; CUDA refuses the whole list and the process sees no GPU\n",
    out='{}\n', conf=NV, args=['accelerators'],
    env={'CUDA_VISIBLE_DEVICES': LONG_MASK, 'FAKE_NVML_CONFIG': '@FIX@/accel/nvml/dgx-a100.conf'})

# -- address: every format's lines come from checked addresses ------------------
for name, addr in (('newline', 'evil\\nother slots=999:1'), ('empty-brackets', '[]:1'),
                   ('no-host', ':2'), ('port-zero', 'a:0'), ('port-over', 'a:65536'),
                   ('port-negative', 'a:-1'), ('space', 'a b:1'), ('tab', 'a\\tb:1'),
                   ('escape', '\\u001b[31ma:1'), ('unclosed-bracket', '[::1:1'),
                   ('empty', ''), ('colon-only', ':'),
                   ('port-letters', 'a:http'), ('two-colons', 'a:1:2')):
    for fmt in ('hostfile', 'hosts'):
        add('address', '%s-%s' % (name, fmt), TBD, TBD, conf=TF,
            args=['resolve', '--format', fmt],
            env={'TF_CONFIG': '{"cluster": {"worker": ["%s"]}}' % addr})

H70K = 'h' * 70000   # a long host is kept whole, not cut
for fmt, out in (('hostfile', H70K + ' slots=1\n'), ('hosts', H70K + ':1\n')):
    add('address', 'long-host-' + fmt, 0, '', out=out, conf=TF, args=['resolve', '--format', fmt],
        env={'TF_CONFIG': '{"cluster": {"worker": ["%s:1"]}}' % H70K})

# -- task-id: the command line ---------------------------------------------------
for name, v in (('minus-zero', '-0'), ('negative', '-1'), ('over-int32', '2147483648'),
                ('huge', '99999999999999999999'), ('float', '1.5'), ('exp', '1e3'),
                ('empty', ''), ('space', ' 1'), ('hex', '0x1'), ('plus', '+1'),
                ('trailing', '1x')):
    add('task-id', name, TBD, TBD, conf=SIMPLE % '0', args=['resolve', '--task-id', v])
add('task-id', 'type-empty', TBD, TBD, conf=SIMPLE % '0', args=['resolve', '--task-type', ''])
add('task-id', 'type-newline', TBD, TBD, conf=SIMPLE % '0',
    args=['resolve', '--task-type', 'worker\nx'])

# -- plugins: the broken plugins of tests/abi on the path ------------------------
for variant in ('noentry', 'major', 'minor', 'shortdesc', 'shortops', 'nullop', 'entryerror',
                'createfail', 'kind', 'hugeoption', 'unterminated'):
    add('plugins', 'resolve-' + variant, TBD, TBD,
        conf='plugin_path = [ "@BROKEN@" ];\nresolvers = ( { plugin = "%s"; } );\n'
        'accelerators = ( );\n' % variant)
add('plugins', 'misnamed', TBD, TBD,
    conf='plugin_path = [ "@BROKEN@" ];\nresolvers = ( { plugin = "misnamed"; } );\n')
# `plugins` with every broken plugin first on the path: exit 0, every good
# plugin listed, and each broken file on a BROKEN line with its reason.
add('plugins', 'list-with-broken', 0, '', conf=None, args=['plugins'],
    env={'CLUSTER_RESOLVER_PLUGIN_PATH': '@BROKEN@:@RES@:@ACC@'},
    out_has=["BROKEN  plugin 'major' (@BROKEN@/major.so) was built for ABI 2.3; this host has "
             "ABI 1.3 (major differs)\n",
             "BROKEN  plugin @BROKEN@/noentry.so has no 'cr_plugin_entry' symbol (not a "
             "cluster-resolver plugin)\n"] + ['\n%-12s resolver    ABI 1.3' % n for n in
             ('gce', 'k8s', 'sagemaker', 'simple', 'slurm', 'tfconfig', 'tpu')] +
    ['\nnvidia       accelerator ABI 1.3', '\ntfdevices    accelerator ABI 1.3'] +
    ['aws          resolver    ABI 1.3'])
# The search list ends in the install prefix's directories (err_re).
NOTFOUND = (r"cluster-resolver: @CONF@:2: resolver plugin '%s' not found \(searched %s:"
            r"@RES@:@ACC@:[^ ]*\)\n")
add('plugins', 'path-missing-dir', 2, None, err_re=NOTFOUND % ('nothere', '@DIR@/none'),
    conf='plugin_path = [ "@DIR@/none" ];\nresolvers = ( { plugin = "nothere"; } );\n')
add('plugins', 'path-is-file', 2, None, err_re=NOTFOUND % ('x', '@CONF@'),
    conf='plugin_path = [ "@CONF@" ];\nresolvers = ( { plugin = "x"; } );\n')

# -- files: every file a plugin reads is a regular file, else refused at once ----
# (issue 27 item 1: a FIFO hung the reader forever). The FIFO is @DIR@/f.
AWS = ('resolvers = ( { plugin = "aws"; port = 2222; region = "us-east-1"; '
       'endpoint = "http://127.0.0.1:9"; jobs = { worker = ( { name = "tag:role"; '
       'values = [ "worker" ]; } ); }; } );\naccelerators = ( );\n')
GCE = ('resolvers = ( { plugin = "gce"; instance_group = "g"; project = "p"; zone = "z"; '
       'port = 1; %s } );\naccelerators = ( );\n')
RSV = ('resolvers = ( { plugin = "reservation"; secret_file = "@DIR@/%s"; '
       'server = "127.0.0.1:9"; executor_id = 0; } );\naccelerators = ( );\n')
NOT_REG = "cannot read @DIR@/f: not a regular file\n"
for name, conf, env, who in (
        ('sagemaker-resource-config', 'resolvers = ( { plugin = "sagemaker"; resource_config = '
         '"@DIR@/f"; } );\naccelerators = ( );\n', {}, "resolver 'sagemaker'"),
        ('tpu-devices-file', 'resolvers = ( { plugin = "tpu"; tpu = "grpc://10.0.0.1:8470"; '
         'devices_file = "@DIR@/f"; } );\naccelerators = ( );\n', {}, "resolver 'tpu'"),
        ('gce-access-token-file', GCE % 'access_token_file = "@DIR@/f";', {}, "resolver 'gce'"),
        ('gce-application-credentials', GCE % '', {'GOOGLE_APPLICATION_CREDENTIALS': '@DIR@/f'},
         "resolver 'gce'"),
        ('aws-config-file', AWS, {'AWS_CONFIG_FILE': '@DIR@/f'}, "resolver 'aws'"),
        ('aws-credentials-file', AWS, {'AWS_SHARED_CREDENTIALS_FILE': '@DIR@/f'},
         "resolver 'aws'"),
        ('aws-web-identity-token-file', AWS, {'AWS_WEB_IDENTITY_TOKEN_FILE': '@DIR@/f',
                                              'AWS_ROLE_ARN': 'arn:aws:iam::1:role/r'},
         "resolver 'aws'"),
        ('aws-container-token-file', AWS, {
            'AWS_CONTAINER_CREDENTIALS_FULL_URI': 'http://127.0.0.1:9/creds',
            'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE': '@DIR@/f'}, "resolver 'aws'")):
    add('files', name + '-fifo', 1, E + who + ': ' + NOT_REG, conf=conf, env=env,
        fifos=['@DIR@/f'])
add('files', 'tfdevices-file-fifo', 1, E + "accelerator 'tfdevices': " + NOT_REG,
    conf=('resolvers = ( { plugin = "simple"; cluster = { worker = [ "a:1" ]; }; '
          'task_type = "worker"; task_id = 0; } );\n'
          'accelerators = ( { plugin = "tfdevices"; file = "@DIR@/f"; } );\n'),
    args=['accelerators'], fifos=['@DIR@/f'])
add('files', 'reservation-secret-fifo', 2,
    E + "resolver 'reservation': secret file '@DIR@/f': not a regular file\n",
    conf=RSV % 'f', fifos=['@DIR@/f'])
SERVE = ['reservation', 'serve', '--num-executors', '1', '--num-ps', '0', '--timeout', '1',
         '--listen', '127.0.0.1:0', '--secret-file']
add('files', 'serve-secret-fifo', 2,
    E + "reservation serve: secret file '@DIR@/f': not a regular file\n",
    conf=None, args=SERVE + ['@DIR@/f'], fifos=['@DIR@/f'])
# A secret behind a symlink (a Kubernetes secret volume) is judged by its
# target (item 9): accepted, so the plugin goes on to connect.
add('files', 'reservation-secret-symlink', 1,
    E + "resolver 'reservation': reservation server 127.0.0.1:9: cannot connect: "
    "Connection refused\n", conf=RSV % 'link', files={'@DIR@/secret': b'k' * 32},
    links={'@DIR@/link': 'secret'})
add('files', 'serve-secret-symlink', 1,
    E + 'reservation: timed out after 1 s: 0 of 1 registered; missing executors 0 '
    '(registered: none)\n', conf=None, args=SERVE + ['@DIR@/link'],
    files={'@DIR@/secret': b'k' * 32}, links={'@DIR@/link': 'secret'},
    out_has=['"cluster_template":{"worker":[0]}}\n'])
add('files', 'serve-secret-symlink-to-fifo', 2,
    E + "reservation serve: secret file '@DIR@/link': not a regular file\n",
    conf=None, args=SERVE + ['@DIR@/link'], fifos=['@DIR@/f'], links={'@DIR@/link': 'f'})

# -- urls: user info in any URL is refused where it is read, never printed;
# a query string is not echoed (issue 27 items 5 and 7) ----------------------
USERINFO = 'holds a user name or password (user@ or user:password@); refused, and not printed\n'
AWS_EP = AWS.replace('"http://127.0.0.1:9"', '"%s"')
for name, plugin, conf, what in (
        ('aws-endpoint', 'aws', AWS_EP % 'http://u:hunter2@127.0.0.1:9/x', '@CONF@:1: endpoint '),
        ('gce-compute-endpoint', 'gce', GCE % 'compute_endpoint = "http://u:hunter2@127.0.0.1:9/x/";',
         '@CONF@:1: compute_endpoint '),
        ('tpu-endpoint', 'tpu', 'resolvers = ( { plugin = "tpu"; tpu = "t"; tpu_endpoint = '
         '"http://u:hunter2@127.0.0.1:9/"; } );\naccelerators = ( );\n', '@CONF@:1: tpu_endpoint '),
        ('gcp-metadata-host', 'tpu', 'resolvers = ( { plugin = "tpu"; tpu = "t"; metadata_host = '
         '"u:hunter2@127.0.0.1:9"; } );\naccelerators = ( );\n', "option 'metadata_host' ")):
    msg = "resolver '%s' (@RES@/%s.so): create failed: %s" % (plugin, plugin, what) + USERINFO
    add('urls', name + '-userinfo', 2, E + msg, conf=conf, args=['check-config'],
        lacks=['hunter2'])
    add('urls', name + '-userinfo-explain', 2, E + msg, conf=conf, args=['explain', '--json'],
        out_has=[msg[:-1].replace("'", "\\'").replace("\\'", "'")], lacks=['hunter2'])
# A query string (where a signed URL keeps its credentials) is no part of an
# API root: refused, not printed.
QUERY = ('has a query string or fragment (?, #), which an API root cannot; refused, and not '
         'printed\n')
for name, plugin, conf, what in (
        ('aws-endpoint', 'aws', AWS_EP % 'http://127.0.0.1:9/?X-Amz-Security-Token=hunter2',
         '@CONF@:1: endpoint '),
        ('gce-compute-endpoint', 'gce', GCE % 'compute_endpoint = "http://127.0.0.1:9/x/?k=hunter2/";',
         '@CONF@:1: compute_endpoint '),
        ('tpu-endpoint', 'tpu', 'resolvers = ( { plugin = "tpu"; tpu = "t"; tpu_endpoint = '
         '"http://127.0.0.1:9/#hunter2"; } );\naccelerators = ( );\n', '@CONF@:1: tpu_endpoint '),
        ('k8s-server', 'k8s', 'resolvers = ( { plugin = "k8s"; server = "https://127.0.0.1:6443/'
         '?token=hunter2"; jobs = { worker = [ "a=b" ]; }; } );\naccelerators = ( );\n',
         "@CONF@:1: 'server' ")):
    add('urls', name + '-query', 2,
        E + "resolver '%s' (@RES@/%s.so): create failed: %s" % (plugin, plugin, what) + QUERY,
        conf=conf, args=['check-config'], lacks=['hunter2'])
AWS_NOEP = AWS.replace('endpoint = "http://127.0.0.1:9"; ', '')
KEYS = {'AWS_ACCESS_KEY_ID': 'AKIAHOSTILE0EXAMPLE', 'AWS_SECRET_ACCESS_KEY': 'hostile/secret/key'}
add('urls', 'aws-endpoint-url-env-userinfo', 1,
    E + "resolver 'aws': AWS_ENDPOINT_URL " + USERINFO, conf=AWS_NOEP,
    env=dict(KEYS, AWS_ENDPOINT_URL='http://u:hunter2@127.0.0.1:9/?sig=abc'), lacks=['hunter2'])
add('urls', 'aws-endpoint-url-ec2-env-query', 1,
    E + "resolver 'aws': AWS_ENDPOINT_URL_EC2 " + QUERY, conf=AWS_NOEP,
    env=dict(KEYS, AWS_ENDPOINT_URL_EC2='http://127.0.0.1:9/?sig=hunter2'), lacks=['hunter2'])
# AWS_CONTAINER_CREDENTIALS_FULL_URI is environment: exit 1 (item 7).
add('urls', 'aws-full-uri-userinfo', 1,
    E + "resolver 'aws': AWS_CONTAINER_CREDENTIALS_FULL_URI " + USERINFO, conf=AWS,
    env={'AWS_CONTAINER_CREDENTIALS_FULL_URI': 'http://u:hunter2@127.0.0.1:9/creds'})
add('urls', 'aws-full-uri-not-loopback', 1,
    E + "resolver 'aws': AWS_CONTAINER_CREDENTIALS_FULL_URI http://10.0.0.1:9/creds: http only "
    "to a loopback address, 169.254.170.2, 169.254.170.23 or fd00:ec2::23\n", conf=AWS,
    env={'AWS_CONTAINER_CREDENTIALS_FULL_URI': 'http://10.0.0.1:9/creds?sig=hunter2'})
# The host refuses user info in any URL a plugin asks for, without the query.
add('urls', 'gce-metadata-env-userinfo', 1,
    E + "resolver 'gce': http://127.0.0.1:9/computeMetadata/v1/instance/service-accounts/default/"
    "token: a user name or password in the URL is refused\n", conf=GCE % '',
    env={'GCE_METADATA_HOST': 'u:hunter2@127.0.0.1:9'})

# -- exec-options: the seconds options of exec take decimal numbers only
# (issue 36 item 11: strtod took 0x10 as 16 s, blanks, exponents, inf) -------
EX = 'resolvers = ( { plugin = "simple"; cluster = { worker = [ "a:1" ]; }; } );\naccelerators = ( );\n'
for opt, what in (('--settle', 'settle time'), ('--min-wait', 'minimum wait'),
                  ('--stop-timeout', 'stop timeout'), ('--join-timeout', 'join timeout'),
                  ('--restart-backoff', 'restart backoff')):
    for vname, v in (('hex', '0x10'), ('hex-float', '0x1p4'), ('blank', ' 5'), ('trailing', '5 '),
                     ('plus', '+5'), ('exponent', '1e3'), ('inf', 'inf'), ('nan', 'nan'),
                     ('dot', '.'), ('empty', ''), ('over', '86400.5'), ('unit', '5s')):
        add('exec-options', '%s-%s' % (opt[2:], vname), 2,
            E + 'exec: invalid %s "%s": expected seconds 0..86400\n' % (what, v), conf=EX,
            args=['exec', '--elastic', opt, v, '--', 'true'])
add('exec-options', 'restart-backoff-without-elastic', 2,
    E + 'exec: --restart-backoff needs --elastic\n', conf=EX,
    args=['exec', '--restart-backoff', '3', '--', 'true'])
# Decimal is taken: the program runs (the largest value, a bare fraction).
add('exec-options', 'settle-decimal', 0, 'ok\n', conf=EX,
    args=['exec', '--elastic', '--settle', '.0', '--stop-timeout', '86400.0', '--restart-backoff',
          '0.5', '--', 'sh', '-c', 'echo ok >&2'])

# The reviewed outputs of the cases written with TBD.
from expected import EXPECT  # noqa: E402
for _c in CASES:
    if _c['rc'] is None:
        _c['rc'], _c['err'], _c['out'] = EXPECT['%s/%s' % (_c['area'], _c['name'])]
