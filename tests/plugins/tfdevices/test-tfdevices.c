/* SPDX-License-Identifier: MIT */
/*
 * test-tfdevices.c - the tfdevices accelerator plugin through cr-testhost:
 * TensorFlow device lists as list_logical_devices and device_lib give them,
 * counted by device_type without CPU and XLA_CPU, and every error with its
 * exact message. The testhost has no task, so every device counts here
 * (TensorFlow filters by task only when type and id are both given: issue
 * 27 section 2); tests/plugins/tfdevices/test-tfdevices-cli.sh counts them
 * per task and tests local_job.
 */
#include "thc.h"

#define A "accelerator 'tfdevices': "
#define CREATE "accelerator 'tfdevices' (@PLUGIN@): create failed: "
#define FILES "@SRC@/tests/plugins/tfdevices/files/"
#define CONF(f) "file = \"" FILES f "\";"

/* clang-format off */
static const thc_case cases[] = {
	{ "logical-devices",
	  CONF("logical.json"), { NULL }, "/", { "accelerators" },
	  "{\"GPU\": 2}\n",
	  "", CR_OK },
	{ "logical-devices-json",
	  CONF("logical.json"), { NULL }, "/", { "accelerators", "--json" },
	  "{\"num_accelerators\": {\"GPU\": 2}, \"devices\": [{\"plugin\": \"tfdevices\", \"kind\": \"GPU\", \"index\": 0}, {\"plugin\": \"tfdevices\", \"kind\": \"GPU\", \"index\": 1}]}\n",
	  "", CR_OK },
	{ "device-lib",
	  CONF("device-lib.json"), { NULL }, "/", { "accelerators", "--json" },
	  "{\"num_accelerators\": {\"GPU\": 1}, \"devices\": [{\"plugin\": \"tfdevices\", \"kind\": \"GPU\", \"model\": \"Tesla V100-SXM2-16GB\", \"index\": 0, \"memory_bytes\": 15510929408, \"pci_bus_id\": \"0000:00:1e.0\"}]}\n",
	  "", CR_OK },
	{ "device-desc-partial",
	  CONF("desc-partial.json"), { NULL }, "/", { "accelerators", "--json" },
	  "{\"num_accelerators\": {\"GPU\": 1, \"XLA_GPU\": 1}, \"devices\": [{\"plugin\": \"tfdevices\", \"kind\": \"GPU\", \"index\": 1, \"pci_bus_id\": \"0000:00:1f.0\"}, {\"plugin\": \"tfdevices\", \"kind\": \"XLA_GPU\", \"index\": 0}]}\n",
	  "", CR_OK },
	{ "local-job-off-no-task-counts-all",
	  CONF("logical.json") "local_job = \"\";", { NULL }, "/", { "accelerators" },
	  "{\"GPU\": 2}\n",
	  "", CR_OK },
	{ "local-job-other-no-task-counts-all",
	  CONF("cluster.json") "local_job = \"worker10\";", { NULL }, "/", { "accelerators" },
	  "{\"GPU\": 3, \"TPU\": 4}\n",
	  "", CR_OK },
	{ "cluster-devices-no-task-counts-all",
	  CONF("cluster.json"), { NULL }, "/", { "accelerators", "--json" },
	  "{\"num_accelerators\": {\"GPU\": 3, \"TPU\": 4}, \"devices\": [{\"plugin\": \"tfdevices\", \"kind\": \"TPU\", \"index\": 0, \"task_job\": \"worker\", \"task_index\": 0}, {\"plugin\": \"tfdevices\", \"kind\": \"TPU\", \"index\": 1, \"task_job\": \"worker\", \"task_index\": 0}, {\"plugin\": \"tfdevices\", \"kind\": \"TPU\", \"index\": 0, \"task_job\": \"worker\", \"task_index\": 1}, {\"plugin\": \"tfdevices\", \"kind\": \"TPU\", \"index\": 1, \"task_job\": \"worker\", \"task_index\": 1}, {\"plugin\": \"tfdevices\", \"kind\": \"GPU\", \"index\": 0, \"task_job\": \"worker\", \"task_index\": 12}, {\"plugin\": \"tfdevices\", \"kind\": \"GPU\", \"index\": 0, \"task_job\": \"worker10\", \"task_index\": 1}, {\"plugin\": \"tfdevices\", \"kind\": \"GPU\", \"index\": 1, \"task_job\": \"worker10\", \"task_index\": 1}]}\n",
	  "", CR_OK },
	{ "type-from-name",
	  CONF("no-type.json") "local_job = \"worker\";", { NULL }, "/", { "accelerators", "--json" },
	  "{\"num_accelerators\": {\"TPU\": 1}, \"devices\": [{\"plugin\": \"tfdevices\", \"kind\": \"TPU\", \"index\": 3}]}\n",
	  "", CR_OK },
	{ "job-without-task-is-local",
	  CONF("job-no-task.json"), { NULL }, "/", { "accelerators" },
	  "{\"GPU\": 1}\n",
	  "", CR_OK },
	{ "empty-list",
	  CONF("empty-list.json"), { NULL }, "/", { "accelerators" },
	  "{}\n",
	  "", CR_OK },
	/* errors */
	{ "missing-file",
	  CONF("absent.json"), { NULL }, "/", { "accelerators" },
	  "",
	  A "cannot read " FILES "absent.json: No such file or directory", CR_ERR_NOT_FOUND },
	{ "directory",
	  CONF(""), { NULL }, "/", { "accelerators" },
	  "",
	  A "cannot read " FILES ": Is a directory", CR_ERR_IO },
	{ "invalid-json",
	  CONF("invalid.json"), { NULL }, "/", { "accelerators" },
	  "",
	  A FILES "invalid.json: invalid JSON at line 4, column 3 (offset 57): array value separator ',' expected", CR_ERR_PARSE },
	{ "not-a-list",
	  CONF("object.json"), { NULL }, "/", { "accelerators" },
	  "",
	  A FILES "object.json: must be a JSON list of devices", CR_ERR_PARSE },
	{ "element-not-object",
	  CONF("string-element.json"), { NULL }, "/", { "accelerators" },
	  "",
	  A FILES "string-element.json: device 0: must be an object with \"name\" and \"device_type\"", CR_ERR_PARSE },
	{ "no-name",
	  CONF("no-name.json"), { NULL }, "/", { "accelerators" },
	  "",
	  A FILES "no-name.json: device 0: \"name\" must be a string", CR_ERR_PARSE },
	{ "type-number",
	  CONF("type-number.json"), { NULL }, "/", { "accelerators" },
	  "",
	  A FILES "type-number.json: device 0: \"device_type\" must be a non-empty string", CR_ERR_PARSE },
	{ "relative-name",
	  CONF("relative-name.json"), { NULL }, "/", { "accelerators" },
	  "",
	  A FILES "relative-name.json: device 0: 'GPU:0' is not a TensorFlow device name (/job:J/replica:R/task:T/device:TYPE:N)", CR_ERR_PARSE },
	{ "bad-task",
	  CONF("bad-task.json"), { NULL }, "/", { "accelerators" },
	  "",
	  A FILES "bad-task.json: device 0: '/job:worker/replica:0/task:x/device:GPU:0' is not a TensorFlow device name (/job:J/replica:R/task:T/device:TYPE:N)", CR_ERR_PARSE },
	{ "task-leading-zero",
	  CONF("task-leading-zero.json"), { NULL }, "/", { "accelerators" },
	  "",
	  A FILES "task-leading-zero.json: device 0: '/job:worker/replica:0/task:01/device:GPU:0' is not a TensorFlow device name (/job:J/replica:R/task:T/device:TYPE:N)", CR_ERR_PARSE },
	{ "empty-job",
	  CONF("empty-job.json"), { NULL }, "/", { "accelerators" },
	  "",
	  A FILES "empty-job.json: device 0: '/job:/replica:0/task:0/device:GPU:0' is not a TensorFlow device name (/job:J/replica:R/task:T/device:TYPE:N)", CR_ERR_PARSE },
	{ "no-type-anywhere",
	  CONF("no-device.json"), { NULL }, "/", { "accelerators" },
	  "",
	  A FILES "no-device.json: device 0: '/job:worker/replica:0/task:0' is not a TensorFlow device name (/job:J/replica:R/task:T/device:TYPE:N)", CR_ERR_PARSE },
	/* configuration */
	{ "config-no-file",
	  NULL, { NULL }, NULL, { "accelerators" },
	  "",
	  "(string):1: accelerator 'tfdevices': missing required key 'file'", CR_ERR_CONFIG },
	{ "config-empty-file",
	  "file = \"\";", { NULL }, NULL, { "accelerators" },
	  "",
	  CREATE "(string):1: file must be a file name", CR_ERR_CONFIG },

	{ NULL },
};
/* clang-format on */

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("tfdevices", "accelerators/tfdevices.so", cases);
	return g_test_run();
}
