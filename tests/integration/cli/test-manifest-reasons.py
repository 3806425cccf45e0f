#!/usr/bin/python3
"""Each shipped manifest's `declined` reason is its plugin's own: where the
host skips a plugin through its manifest, `explain` prints the manifest's
text, and where it loads the plugin, the plugin's probe message. Both must
say the same thing, word for word, or `explain` would depend on whether a
manifest was read. Each plugin with a manifest is probed in cr-testhost's
empty environment (nothing of any cluster present) and must decline with
exactly the manifest's reason."""
import glob
import os
import subprocess
import sys

TESTHOST = os.path.join(os.path.dirname(os.environ["CR_CLI"]), "cr-testhost")
failures = count = 0
for d in os.environ["CLUSTER_RESOLVER_PLUGIN_PATH"].split(":"):
    for manifest in sorted(glob.glob(os.path.join(d, "*.applies"))):
        with open(manifest, encoding="utf-8") as f:
            reasons = [l[len("declined="):].rstrip("\n") for l in f if l.startswith("declined=")]
        if not reasons:
            continue  # no reason of its own: the host's generic one is used
        plugin = manifest[:-len(".applies")] + ".so"
        r = subprocess.run([TESTHOST, plugin, "probe"], capture_output=True, text=True,
                           env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, timeout=60)
        want = "cr-testhost: declined: %s\n" % reasons[0]
        count += 1
        name = os.path.relpath(manifest, os.path.dirname(d))
        if r.returncode == 3 and r.stdout == "" and r.stderr == want:
            print(f"ok {count} {name}")
        else:
            failures += 1
            print(f"not ok {count} {name}: exit {r.returncode}\n#   got:  {r.stderr!r}\n#   want: {want!r}")
print(f"1..{count}")
if count == 0:
    print("# no manifest with a reason found on CLUSTER_RESOLVER_PLUGIN_PATH")
    sys.exit(1)
sys.exit(1 if failures else 0)
