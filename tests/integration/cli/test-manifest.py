#!/usr/bin/python3
"""Plugin manifests (NAME.applies, cluster-resolver-plugin(7)): where none of
a manifest's variables and files is present, the host does not load the
plugin and reports it declined with the manifest's reason; otherwise, and
whenever the manifest cannot be trusted or read, or the group sets an option
of the plugin's own, it loads the file as before.

The proof that a file was not loaded: the plugin here is not an ELF file at
all, so loading it is an error naming it. Each case is exact."""
import os
import shutil
import subprocess
import sys
import tempfile

CLI = os.environ["CR_CLI"]
PLUGINS = os.environ["CLUSTER_RESOLVER_PLUGIN_PATH"].split(":")
TMP = tempfile.mkdtemp(prefix="cr-manifest.")
RES = os.path.join(TMP, "resolvers")
ACC = os.path.join(TMP, "accelerators")
failures = 0
count = 0

MANIFEST = ("# When fake.so can apply.\n[cluster-resolver manifest]\nkind=resolver\n"
            "env=FAKE_JOB_ID; FAKE_RANK\nfiles=%s\ndeclined=not in a fake job: FAKE_JOB_ID unset\n")
LOCAL = ('{ plugin = "simple"; name = "local"; policy = "sufficient"; '
         'cluster = { worker = [ "localhost:2222" ]; }; task_type = "worker"; task_id = 0; }')
WORKER = ('{"cluster": {"worker": ["localhost:2222"]}, "task": {"type": "worker", "index": 0}, '
          '"master": "", "num_accelerators": {}}\n')


def ok(cond, name, detail=""):
    global failures, count
    count += 1
    if cond:
        print(f"ok {count} {name}")
    else:
        failures += 1
        print(f"not ok {count} {name}\n# {detail}".replace("\n", "\n# ", 1))


def run(conf_text, env=None, *args):
    conf = os.path.join(TMP, "cr.conf")
    with open(conf, "w") as f:
        f.write(conf_text)
    full = {"PATH": "/usr/bin:/bin", "CLUSTER_RESOLVER_CONFIG": "",
            "CLUSTER_RESOLVER_PLUGIN_PATH": f"{RES}:{ACC}", "HOME": TMP}
    full.update(env or {})
    p = subprocess.run([CLI, "--config", conf, *(args or ("resolve", "--format", "json"))],
                       env=full, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def write(path, text, mode=0o644):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def main():
    os.makedirs(RES)
    os.makedirs(ACC)
    for d in PLUGINS:
        src = os.path.join(d, "simple.so")
        if os.path.exists(src):
            shutil.copy(src, RES)
    # fake.so: not a shared object; loading it fails with its path.
    fake = os.path.join(RES, "fake.so")
    write(fake, "not an ELF file\n")
    man = os.path.join(RES, "fake.applies")
    write(man, MANIFEST % "~/.fake/config")
    conf = f'resolvers = ( {{ plugin = "fake"; policy = "sufficient"; }}, {LOCAL} );\naccelerators = ();\n'
    where = os.path.join(TMP, "cr.conf") + ":1"
    cannot = f"cluster-resolver: {where}: cannot load plugin {fake}: {fake}: file too short\n"

    rc, out, err = run(conf)
    ok(rc == 0 and out == WORKER and err == "", "absent: not loaded, the next resolver answers",
       f"{rc} {out!r} {err!r}")
    rc, out, err = run(conf, None, "explain")
    want = "   declined: not in a fake job: FAKE_JOB_ID unset\n"
    ok(rc == 0 and want in out, "explain: the manifest's reason", f"{rc} {out!r} {err!r}")
    for var in ("FAKE_JOB_ID", "FAKE_RANK"):
        rc, out, err = run(conf, {var: ""})
        ok(rc == 2 and err == cannot, f"{var} set (even empty): the file is loaded",
           f"{rc} {out!r} {err!r}")
    os.makedirs(os.path.join(TMP, ".fake"))
    write(os.path.join(TMP, ".fake", "config"), "")
    rc, out, err = run(conf)
    ok(rc == 2 and err == cannot, "a file it names exists (~ is $HOME): loaded",
       f"{rc} {out!r} {err!r}")
    os.remove(os.path.join(TMP, ".fake", "config"))
    rc, out, err = run(conf.replace('policy = "sufficient"; }', 'policy = "sufficient"; port = 1; }', 1))
    ok(rc == 2 and err == cannot, "the group sets an option of its own: loaded (its schema checks it)",
       f"{rc} {out!r} {err!r}")
    rc, out, err = run(conf.replace('plugin = "fake"', f'plugin = "{fake}"'))
    ok(rc == 2 and err == cannot, "named by path: loaded", f"{rc} {out!r} {err!r}")
    # A manifest the host cannot trust or read is no manifest: load.
    os.chmod(man, 0o666)
    rc, out, err = run(conf)
    ok(rc == 2 and err == cannot, "a world-writable manifest is ignored", f"{rc} {out!r} {err!r}")
    for name, text in (("no kind", MANIFEST.replace("kind=resolver\n", "")),
                       ("another kind", MANIFEST.replace("kind=resolver", "kind=accelerator")),
                       ("a line that is not key=value", MANIFEST + "garbage\n"),
                       ("a NUL byte", MANIFEST.replace("env=", "env=\0"))):
        write(man, text % "~/.fake/config")
        rc, out, err = run(conf)
        ok(rc == 2 and err == cannot, f"a manifest with {name} is ignored", f"{rc} {out!r} {err!r}")
    os.remove(man)
    os.mkfifo(man, 0o644)
    rc, out, err = run(conf)
    ok(rc == 2 and err == cannot, "a FIFO for a manifest is refused at once, not waited on",
       f"{rc} {out!r} {err!r}")
    os.remove(man)
    write(man, MANIFEST.replace("declined=not in a fake job: FAKE_JOB_ID unset\n", "") % "")
    rc, out, err = run(conf)
    ok(rc == 2 and err == cannot, "a manifest without a reason only says the kind: loaded",
       f"{rc} {out!r} {err!r}")
    # The accelerators a config that lists none gets: tpu.so, by its manifest.
    tpu = os.path.join(ACC, "tpu.so")
    write(tpu, "not an ELF file\n")
    write(os.path.join(ACC, "tpu.applies"),
          "[cluster-resolver manifest]\nkind=accelerator\nenv=\nfiles=/nonexistent/accel0\n"
          "declined=no TPU: neither /dev/accel0 nor /dev/vfio exists\n")
    auto = f'resolvers = ( {LOCAL} );\n'
    rc, out, err = run(auto)
    ok(rc == 0 and out == WORKER and err == "", "auto accelerators: tpu.so kept unloaded",
       f"{rc} {out!r} {err!r}")
    os.remove(os.path.join(ACC, "tpu.applies"))
    rc, out, err = run(auto)
    ok(rc == 2 and err == f"cluster-resolver: cannot load plugin {tpu}: {tpu}: file too short\n", "without its manifest tpu.so is loaded",
       f"{rc} {out!r} {err!r}")
    print(f"1..{count}")
    shutil.rmtree(TMP)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
