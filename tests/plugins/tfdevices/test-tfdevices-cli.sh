#!/bin/sh
# The tfdevices accelerator plugin through the cluster-resolver command: a
# `simple` cluster names the tasks, --task-type/--task-id pick one, and each
# task counts only the devices whose /job: and /task: components equal it
# (tf-semantics §3 with the §14.11 fix: worker:1 is not worker10:1 or
# worker:12). Errors exit 1 with nothing on stdout; the main paths run
# again under valgrind in the normal build.
set -u
src=${CR_TEST_SOURCE_DIR:?}
cli=${CR_CLI:?}
files=$src/tests/plugins/tfdevices/files
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
unset TF_CONFIG

. "$src/tests/common/expect.sh"

# conf NAME FILE: a cluster whose tasks the fixture device lists name
conf() {
	cat >"$tmp/$1.conf" <<CONF
resolvers = ( { plugin = "simple";
  cluster = { worker = [ "w0:1", "w1:1", "w2:1", "w3:1", "w4:1", "w5:1", "w6:1",
                         "w7:1", "w8:1", "w9:1", "w10:1", "w11:1", "w12:1" ];
              worker1 = [ "a0:1", "a1:1" ];
              worker2 = [ "b0:1", "b1:1", "b2:1", "b3:1", "b4:1" ];
              worker10 = [ "x0:1", "x1:1" ]; };
  task_type = "worker"; task_id = 1; } );
accelerators = ( { plugin = "tfdevices"; file = "$2"; } );
CONF
}
conf cluster "$files/cluster.json"
conf tf "$files/tf-test.json"
conf local "$files/logical.json"
conf bad "$files/bad-task.json"
conf absent "$tmp/none.json"
# notask: the same cluster, no task for this process
sed '/task_type = "worker"; task_id = 1;/d; s/worker10 = \[ "x0:1", "x1:1" \]; };/worker10 = [ "x0:1", "x1:1" ]; }; } );/' \
	"$tmp/tf.conf" >"$tmp/notask.conf"

c="$tmp/cluster.conf"
expect own-task 0 '{"TPU": 2}' '' -- "$cli" --config "$c" accelerators
expect own-task-devices 0 '{"num_accelerators": {"TPU": 2}, "devices": [{"plugin": "tfdevices", "kind": "TPU", "index": 0, "task_job": "worker", "task_index": 1}, {"plugin": "tfdevices", "kind": "TPU", "index": 1, "task_job": "worker", "task_index": 1}]}' '' -- \
	"$cli" --config "$c" accelerators --json
expect task-0 0 '{"TPU": 2}' '' -- "$cli" --config "$c" --task-type worker --task-id 0 accelerators
expect task-12-not-1 0 '{"GPU": 1}' '' -- "$cli" --config "$c" --task-type worker --task-id 12 accelerators
expect worker10-not-worker 0 '{"GPU": 2}' '' -- "$cli" --config "$c" --task-type worker10 --task-id 1 accelerators
expect task-without-devices 0 '{}' '' -- "$cli" --config "$c" --task-type worker --task-id 2 accelerators
expect in-tf-config-json 0 '{"cluster": {"worker": ["w0:1", "w1:1", "w2:1", "w3:1", "w4:1", "w5:1", "w6:1", "w7:1", "w8:1", "w9:1", "w10:1", "w11:1", "w12:1"], "worker1": ["a0:1", "a1:1"], "worker2": ["b0:1", "b1:1", "b2:1", "b3:1", "b4:1"], "worker10": ["x0:1", "x1:1"]}, "task": {"type": "worker", "index": 1}, "master": "", "num_accelerators": {"TPU": 2}}' '' -- \
	"$cli" --config "$c" resolve --format json
# TensorFlow's test values (TFConfigClusterResolver.num_accelerators)
expect tf-worker1-0 0 '{"GPU": 2, "TPU": 2}' '' -- "$cli" --config "$tmp/tf.conf" --task-type worker1 --task-id 0 accelerators
expect tf-worker2-3 0 '{"GPU": 1}' '' -- "$cli" --config "$tmp/tf.conf" --task-type worker2 --task-id 3 accelerators
expect tf-worker2-4 0 '{"GPU": 1}' '' -- "$cli" --config "$tmp/tf.conf" --task-type worker2 --task-id 4 accelerators
# No task: TensorFlow filters only when type and id are both given, so every
# device counts (its test: four TPU and four GPU give {"TPU": 4, "GPU": 4}).
expect no-task-counts-all 0 '{"GPU": 4, "TPU": 4}' '' -- "$cli" --config "$tmp/notask.conf" accelerators
# /job:localhost is this process, whatever its task
expect localhost-own 0 '{"GPU": 2}' '' -- "$cli" --config "$tmp/local.conf" --task-type worker --task-id 7 accelerators
# errors
expect bad-name 1 '' \
	"cluster-resolver: accelerator 'tfdevices': $files/bad-task.json: device 0: '/job:worker/replica:0/task:x/device:GPU:0' is not a TensorFlow device name (/job:J/replica:R/task:T/device:TYPE:N)" -- \
	"$cli" --config "$tmp/bad.conf" accelerators
expect absent-file 1 '' \
	"cluster-resolver: accelerator 'tfdevices': cannot read $tmp/none.json: No such file or directory" -- \
	"$cli" --config "$tmp/absent.conf" resolve
printf 'accelerators = ( { plugin = "tfdevices";\n  path = "x"; } );\n' >"$tmp/key.conf"
expect config-unknown-key 2 '' \
	"cluster-resolver: $tmp/key.conf:2: accelerator 'tfdevices': unknown key 'path'" -- \
	"$cli" --config "$tmp/key.conf" accelerators

if [ "${CR_SANITIZE_BUILD:-0}" != 1 ] && command -v valgrind >/dev/null 2>&1; then
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --suppressions=/usr/share/glib-2.0/valgrind/glib.supp"
	export CLUSTER_RESOLVER_NO_DLCLOSE=1
	# shellcheck disable=SC2086
	expect vg-task 0 '{"GPU": 2}' '' -- $vg "$cli" --config "$c" --task-type worker10 --task-id 1 accelerators
	# shellcheck disable=SC2086
	expect vg-bad-name 1 '' \
		"cluster-resolver: accelerator 'tfdevices': $files/bad-task.json: device 0: '/job:worker/replica:0/task:x/device:GPU:0' is not a TensorFlow device name (/job:J/replica:R/task:T/device:TYPE:N)" -- \
		$vg "$cli" --config "$tmp/bad.conf" accelerators
fi
exit $fail
