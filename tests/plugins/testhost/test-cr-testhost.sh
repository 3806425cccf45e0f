#!/bin/sh
# The cr-testhost command: each case runs it and compares stdout, stderr and
# the exit status exactly. HTTP scripts drive httpget.so, a test resolver
# that makes one request, and spawn scripts spawner.so, one that runs one
# child; tfconfig.so and tpu.so show the environment, the
# file options and the exit statuses.
set -u
th=${CR_TESTHOST:?}
httpget=${CR_TEST_PLUGIN_DIR:?}/httpget.so
plugins=${CR_PLUGIN_BUILD_DIR:?}
roots=${CR_TEST_SOURCE_DIR:?}/tests/fixtures/accel/roots
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
url=http://127.0.0.1:8080/v1/hosts

. "${CR_TEST_SOURCE_DIR:?}/tests/common/expect.sh"

cat >"$tmp/pages.http" <<EOS
# one answer with a job header, a body over two lines
GET $url
Authorization: Bearer tok
-> 200
X-Cluster-Job: ps
Content-Type: application/json

{"hosts": ["a:1",
 "b:1"]}
%%
EOS
conf="url = \"$url\"; token = \"tok\";"
expect http-answered 0 '{"cluster": {"ps": ["a:1", "b:1"]}, "master": "", "num_accelerators": {}}' \
	"info: resolver 'httpget': 2 hosts
info: resolver 'httpget': resolved (required)" -- \
	"$th" "$httpget" resolve --config "$conf" --http "$tmp/pages.http" -v
expect http-wrong-token 1 '' \
	"cr-testhost: request 1: GET $url: expected header 'Authorization: Bearer (secret, 3 bytes)', got 'Authorization: Bearer (secret, 4 bytes)'" -- \
	"$th" "$httpget" resolve --config "url = \"$url\"; token = \"tok2\";" --http "$tmp/pages.http"
expect http-no-script 1 '' \
	"cr-testhost: request 1: unexpected GET $url (the script has 0 requests)" -- \
	"$th" "$httpget" resolve --config "$conf"

printf 'GET %s\n-> error timeout took too long\n' "$url" >"$tmp/timeout.http"
expect http-transport-error 1 '' "cr-testhost: resolver 'httpget': GET $url: took too long" -- \
	"$th" "$httpget" resolve --config "$conf" --http "$tmp/timeout.http"
printf 'GET %s\n-> 200\n\n{"hosts": []}\n%%%%\nGET %s/2\n-> 200\n' "$url" "$url" >"$tmp/two.http"
expect http-unconsumed 1 '' \
	"cr-testhost: 1 of 2 expected requests were not made; the first: GET $url/2" -- \
	"$th" "$httpget" resolve --config "$conf" --http "$tmp/two.http"
printf 'GET %s\n-> 2000\n' "$url" >"$tmp/bad.http"
expect http-bad-script 2 '' "cr-testhost: $tmp/bad.http:2: expected \"-> STATUS\" with a status 100..999" -- \
	"$th" "$httpget" resolve --config "$conf" --http "$tmp/bad.http"
# A script's mistakes name FILE:LINE (a "-> error" without its kind crashed
# cr-testhost; a header without its name named no line).
printf 'GET %s\n-> error \n' "$url" >"$tmp/nokind.http"
expect http-error-without-kind 2 '' "cr-testhost: $tmp/nokind.http:2: unknown failure (network, timeout, io, auth)" -- \
	"$th" "$httpget" resolve --config "$conf" --http "$tmp/nokind.http"
printf 'GET %s\nAccept: */*\n : v\n-> 200\n' "$url" >"$tmp/noname.http"
expect http-header-without-name 2 '' "cr-testhost: $tmp/noname.http:3: expected \"Name: value\"" -- \
	"$th" "$httpget" resolve --config "$conf" --http "$tmp/noname.http"
printf 'GET %s\n-> 200\nContent-Type: text/plain\nno colon\n\nbody\n' "$url" >"$tmp/nocolon.http"
expect http-response-header-without-colon 2 '' "cr-testhost: $tmp/nocolon.http:4: expected \"Name: value\"" -- \
	"$th" "$httpget" resolve --config "$conf" --http "$tmp/nocolon.http"
printf 'GET %s\n-> 200\n\n{"hosts": ["a:1"]}\n\000{"hosts": ["b:1"]}\n' "$url" >"$tmp/nul.http"
expect http-nul 2 '' "cr-testhost: $tmp/nul.http:5: a NUL byte (a script is text)" -- \
	"$th" "$httpget" resolve --config "$conf" --http "$tmp/nul.http"

# Spawn scripts drive spawner.so, a test resolver that runs `program arg`
# with one env entry and reports exit status, elapsed ms, out and err lines.
spawner=${CR_TEST_PLUGIN_DIR:?}/spawner.so
cat >"$tmp/token.spawn" <<'EOS'
# the token helper: argv split as sh does, one env entry required
get-token '--cluster=prod one'
MODE=fast
-> exit 3
o1
o2
-> stderr
e1
%%
EOS
sconf='program = "get-token"; arg = "--cluster=prod one"; env = "MODE=fast";'
expect spawn-answered 0 '{"cluster": {"exit": ["3"], "elapsed": ["0"], "out": ["o1", "o2"], "err": ["e1"]}, "master": "", "num_accelerators": {}}' '' -- \
	"$th" "$spawner" resolve --config "$sconf" --spawn "$tmp/token.spawn"
expect spawn-wrong-argv 1 '' \
	"cr-testhost: spawn 1: expected 'get-token --cluster=prod one', got 'get-token --cluster=prod'" -- \
	"$th" "$spawner" resolve --config 'program = "get-token"; arg = "--cluster=prod"; env = "MODE=fast";' \
	--spawn "$tmp/token.spawn"
expect spawn-env-value-hidden 1 '' \
	"cr-testhost: spawn 1: get-token: expected MODE (4 bytes) in its environment, got another value (6 bytes)" -- \
	"$th" "$spawner" resolve --config 'program = "get-token"; arg = "--cluster=prod one"; env = "MODE=s3cr3t";' \
	--spawn "$tmp/token.spawn"
printf 'helper a\n-> timeout\n%%%%\n' >"$tmp/timeout.spawn"
expect spawn-timeout 1 '' "info: resolver 'spawner': exit 137 after 1500 ms
cr-testhost: resolver 'spawner': helper: still running after 1.5 s: killed" -- \
	"$th" "$spawner" resolve --config 'arg = "a"; timeout_ms = 1500;' --spawn "$tmp/timeout.spawn" -v
printf 'helper a\n-> fail Failed to execute child process "helper"\n' >"$tmp/fail.spawn"
expect spawn-cannot-start 1 '' "cr-testhost: resolver 'spawner': Failed to execute child process \"helper\"" -- \
	"$th" "$spawner" resolve --config 'arg = "a";' --spawn "$tmp/fail.spawn"
printf 'helper a\n-> exit 256\n' >"$tmp/bad.spawn"
expect spawn-bad-status 2 '' "cr-testhost: $tmp/bad.spawn:2: expected \"-> exit STATUS\" with a status 0..255" -- \
	"$th" "$spawner" resolve --config 'arg = "a";' --spawn "$tmp/bad.spawn"
printf "helper 'a\n-> exit 0\n" >"$tmp/quote.spawn"
expect spawn-bad-argv 2 '' "cr-testhost: $tmp/quote.spawn:1: expected \"PROGRAM ARG...\" split as sh does: a quote is not closed" -- \
	"$th" "$spawner" resolve --config 'arg = "a";' --spawn "$tmp/quote.spawn"
printf 'helper a\n-> timeout\nstray\n' >"$tmp/stray.spawn"
expect spawn-output-after-timeout 2 '' "cr-testhost: $tmp/stray.spawn:3: output after \"-> timeout\" or \"-> fail\" (only \"-> exit\" has output)" -- \
	"$th" "$spawner" resolve --config 'arg = "a";' --spawn "$tmp/stray.spawn"
printf 'helper a\nMODE=fast\nMODE\n-> exit 0\n' >"$tmp/env.spawn"
expect spawn-env-without-value 2 '' "cr-testhost: $tmp/env.spawn:3: expected NAME=value" -- \
	"$th" "$spawner" resolve --config 'arg = "a";' --spawn "$tmp/env.spawn"
expect spawn-no-script 1 '' "cr-testhost: spawn 1: unexpected 'helper a' (the script has 0 spawns)" -- \
	"$th" "$spawner" resolve --config 'arg = "a";'

# The environment is empty unless given; --inherit-env shows the real one.
tf='{"cluster": {"w": ["a:1"]}, "task": {"type": "w", "index": 0}}'
expect env-given 0 "$tf" '' -- "$th" "$plugins/resolvers/tfconfig.so" resolve --format tf_config \
	--env "TF_CONFIG=$tf"
expect env-hidden 3 '' 'cr-testhost: no resolver applies here (declined: tfconfig)' -- \
	env "TF_CONFIG=$tf" "$th" "$plugins/resolvers/tfconfig.so" resolve
expect env-inherited 0 "$tf" '' -- \
	env "TF_CONFIG=$tf" "$th" "$plugins/resolvers/tfconfig.so" resolve --format tf_config --inherit-env
expect master-override 0 'grpc://a:1' '' -- "$th" "$plugins/resolvers/tfconfig.so" master \
	--env "TF_CONFIG=$tf" --task-type w --task-id 0 --rpc-layer grpc
expect probe-declined 3 '' 'cr-testhost: declined: TF_CONFIG is not set' -- \
	"$th" "$plugins/resolvers/tfconfig.so" probe
expect config-error 2 '' "cr-testhost: (string):2: resolver 'tfconfig': unknown key 'varible' (did you mean 'variable'?)" -- \
	"$th" "$plugins/resolvers/tfconfig.so" resolve --config '
varible = "X";'

# Files: a fixture root, or files given one by one.
expect root 0 '{"num_accelerators": {"TPU": 1}, "devices": [{"plugin": "tpu", "kind": "TPU", "vendor": "google", "model": "v5e", "index": 0, "physical_index": 5, "pci_bus_id": "0000:00:09.0", "visible_by": "TPU_VISIBLE_CHIPS"}]}' '' -- \
	"$th" "$plugins/accelerators/tpu.so" enumerate --root "$roots/tpu-v5e" --env TPU_VISIBLE_CHIPS=5
expect files 0 '{"num_accelerators": {"TPU": 1}, "devices": [{"plugin": "tpu", "kind": "TPU", "vendor": "google", "model": "v4", "index": 0, "physical_index": 0, "pci_bus_id": "0000:00:04.0"}]}' '' -- \
	"$th" "$plugins/accelerators/tpu.so" enumerate --file /dev/accel0= \
	--file /sys/bus/pci/devices/0000:00:04.0/vendor=0x1ae0 \
	--file /sys/bus/pci/devices/0000:00:04.0/device=0x005e
expect declined 3 '' "info: accelerator 'tpu': declined: no TPU: no /dev/accel* or /dev/vfio/N node
cr-testhost: accelerator 'tpu' declined" -- "$th" "$plugins/accelerators/tpu.so" enumerate -v
expect wrong-kind 2 '' "cr-testhost: enumerate: 'tfconfig' is a resolver plugin" -- \
	"$th" "$plugins/resolvers/tfconfig.so" enumerate
expect usage 2 '' 'usage: cr-testhost [OPTIONS] PLUGIN.so probe|resolve|master|enumerate (try --help)' -- \
	"$th" "$httpget"
expect unknown-command 2 '' 'cr-testhost: unknown command (probe, resolve, master, enumerate)' -- \
	"$th" "$plugins/resolvers/tfconfig.so" frobnicate
# master as `cluster-resolver master` answers: a lone --task-id overrides
# only the index; no task at all gives TensorFlow's "" with a warning.
two='{"cluster": {"worker": ["worker0:2222", "worker1:2222"]}'
expect master-lone-task-id 0 'worker1:2222' '' -- "$th" -e "TF_CONFIG=$two, \"task\": {\"type\": \"worker\", \"index\": 0}}" \
	--task-id 1 "$plugins/resolvers/tfconfig.so" master
expect master-unknown-task 0 '' 'warning: no master: no task was given and this process'"'"'s task is unknown' -- \
	"$th" -e "TF_CONFIG=$two}" "$plugins/resolvers/tfconfig.so" master
[ "$fail" = 0 ] && echo "ok: cr-testhost command"
exit "$fail"
