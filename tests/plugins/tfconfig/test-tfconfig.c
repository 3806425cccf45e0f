/* SPDX-License-Identifier: MIT */
/*
 * test-tfconfig.c - every TFConfigClusterResolver case (tf-semantics §6,
 * with the §14.15 fixes) through the built CLI: exact stdout, stderr and
 * exit status. TF_CONFIG is set or unset per case.
 */
#include "crt.h"

#define PFX "cluster-resolver: "
#define ONLY "accelerators = ( );\nresolvers = ( { plugin = \"tfconfig\"; } );\n"
/* TensorFlow's test cluster: ps x2, worker x3, this task ps:0. */
#define TF_PS_WORKER                                                                    \
	"{\"cluster\": {\"ps\": [\"ps0:2222\", \"ps1:2222\"], "                          \
	"\"worker\": [\"worker0:2222\", \"worker1:2222\", \"worker2:2222\"]}, "          \
	"\"task\": {\"type\": \"ps\", \"index\": 0}"
#define TF_PS_WORKER_OUT                                                                \
	"{\"cluster\": {\"ps\": [\"ps0:2222\", \"ps1:2222\"], "                          \
	"\"worker\": [\"worker0:2222\", \"worker1:2222\", \"worker2:2222\"]}, "          \
	"\"task\": {\"type\": \"ps\", \"index\": 0}"

static const crt_cli_case cases[] = {
	{ "resolve", ONLY, { "TF_CONFIG=" TF_PS_WORKER "}" }, { "resolve" }, TF_PS_WORKER_OUT "}\n", "", 0 },
	{ "resolve-json", ONLY, { "TF_CONFIG=" TF_PS_WORKER ", \"rpc_layer\": \"grpc\"}" },
	  { "resolve", "--format", "json" },
	  TF_PS_WORKER_OUT ", \"rpc_layer\": \"grpc\", \"master\": \"grpc://ps0:2222\", \"num_accelerators\": {}}\n",
	  "", 0 },
	{ "unset-declines", ONLY, { "TF_CONFIG" }, { "resolve" }, "",
	  PFX "no resolver applies here (declined: tfconfig)\n", 1 },
	{ "empty-declines", ONLY, { "TF_CONFIG=" }, { "resolve" }, "",
	  PFX "no resolver applies here (declined: tfconfig)\n", 1 },
	{ "invalid-json", ONLY, { "TF_CONFIG={\"cluster\": {\"worker\": [\"w0:1\" \"w1:1\"]}}" }, { "resolve" },
	  "",
	  PFX "resolver 'tfconfig': TF_CONFIG: invalid JSON at line 1, column 32 (offset 31): array value separator ',' expected\n",
	  1 },
	{ "invalid-json-line-2", ONLY, { "TF_CONFIG={\"cluster\": {},\n \"task\": }" }, { "resolve" }, "",
	  PFX "resolver 'tfconfig': TF_CONFIG: invalid JSON at line 2, column 10 (offset 25): unexpected character\n",
	  1 },
	{ "not-an-object", ONLY, { "TF_CONFIG=\"x\"" }, { "resolve" }, "",
	  PFX "resolver 'tfconfig': TF_CONFIG: must be a JSON object\n", 1 },
	{ "cluster-not-an-object", ONLY, { "TF_CONFIG={\"cluster\": [\"a\"]}" }, { "resolve" }, "",
	  PFX "resolver 'tfconfig': TF_CONFIG: \"cluster\" must be an object mapping job names to tasks\n", 1 },
	{ "no-cluster", ONLY, { "TF_CONFIG={}" }, { "resolve", "--format", "json" },
	  "{\"cluster\": {}, \"master\": \"\", \"num_accelerators\": {}}\n", "", 0 },
	{ "sparse-keys", ONLY, { "TF_CONFIG={\"cluster\": {\"worker\": {\"3\": \"w3:1\", \"1\": \"w1:1\"}}}" },
	  { "resolve" }, "{\"cluster\": {\"worker\": {\"1\": \"w1:1\", \"3\": \"w3:1\"}}}\n", "", 0 },
	{ "sparse-dense-keys", ONLY, { "TF_CONFIG={\"cluster\": {\"worker\": {\"1\": \"w1:1\", \"0\": \"w0:1\"}}}" },
	  { "resolve" }, "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"]}}\n", "", 0 },
	{ "bad-sparse-key", ONLY, { "TF_CONFIG={\"cluster\": {\"worker\": {\"x\": \"w1:1\"}}}" }, { "resolve" }, "",
	  PFX "resolver 'tfconfig': TF_CONFIG: job 'worker': task index \"x\" is not a non-negative integer\n", 1 },
	{ "bad-address", ONLY, { "TF_CONFIG={\"cluster\": {\"worker\": [\"a\", null]}}" }, { "resolve" }, "",
	  PFX "resolver 'tfconfig': TF_CONFIG: job 'worker' task 1: address must be a string\n", 1 },
	{ "bad-tasks", ONLY, { "TF_CONFIG={\"cluster\": {\"worker\": \"a\"}}" }, { "resolve" }, "",
	  PFX "resolver 'tfconfig': TF_CONFIG: the tasks for job 'worker' must be a list or an object from indices to addresses\n",
	  1 },
	{ "job-order-kept", ONLY,
	  { "TF_CONFIG={\"cluster\": {\"worker\": [\"w\"], \"chief\": [\"c\"], \"evaluator\": [], \"ps\": [\"p\"]}}" },
	  { "resolve" }, "{\"cluster\": {\"worker\": [\"w\"], \"chief\": [\"c\"], \"evaluator\": [], \"ps\": [\"p\"]}}\n",
	  "", 0 },
	{ "task-index-string", ONLY,
	  { "TF_CONFIG={\"cluster\": {\"worker\": [\"w0\", \"w1\"]}, \"task\": {\"type\": \"worker\", \"index\": \"1\"}}" },
	  { "resolve" }, "{\"cluster\": {\"worker\": [\"w0\", \"w1\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}\n",
	  "", 0 },
	{ "task-index-bad-string", ONLY,
	  { "TF_CONFIG={\"cluster\": {\"worker\": [\"w0\"]}, \"task\": {\"type\": \"worker\", \"index\": \"one\"}}" },
	  { "resolve" }, "", PFX "resolver 'tfconfig': TF_CONFIG: task.index must be a non-negative integer\n", 1 },
	{ "task-index-negative", ONLY,
	  { "TF_CONFIG={\"cluster\": {\"worker\": [\"w0\"]}, \"task\": {\"type\": \"worker\", \"index\": -1}}" },
	  { "resolve" }, "", PFX "resolver 'tfconfig': TF_CONFIG: task.index must be a non-negative integer\n", 1 },
	{ "task-type-number", ONLY,
	  { "TF_CONFIG={\"cluster\": {\"123456\": [\"a:1\"]}, \"task\": {\"type\": 123456, \"index\": 0}}" },
	  { "resolve" }, "{\"cluster\": {\"123456\": [\"a:1\"]}, \"task\": {\"type\": \"123456\", \"index\": 0}}\n",
	  "", 0 },
	{ "task-type-bool", ONLY,
	  { "TF_CONFIG={\"cluster\": {}, \"task\": {\"type\": true, \"index\": 0}}" },
	  { "resolve" }, "", PFX "resolver 'tfconfig': TF_CONFIG: task.type must be a string\n", 1 },
	{ "task-half", ONLY, { "TF_CONFIG={\"cluster\": {}, \"task\": {\"type\": \"worker\"}}" },
	  { "resolve" }, "", PFX "resolver 'tfconfig': TF_CONFIG: task needs both \"type\" and \"index\"\n", 1 },
	{ "rpc-layer-not-string", ONLY, { "TF_CONFIG={\"cluster\": {}, \"rpc_layer\": 1}" },
	  { "resolve" }, "", PFX "resolver 'tfconfig': TF_CONFIG: \"rpc_layer\" must be a string\n", 1 },
	{ "environment", ONLY, { "TF_CONFIG={\"cluster\": {\"w\": [\"a\"]}, \"environment\": \"cloud\"}" },
	  { "resolve" }, "{\"cluster\": {\"w\": [\"a\"]}, \"environment\": \"cloud\"}\n", "", 0 },
	{ "environment-option-overrides",
	  "accelerators = ( );\nresolvers = ( { plugin = \"tfconfig\"; environment = \"google\"; } );\n",
	  { "TF_CONFIG={\"cluster\": {\"w\": [\"a\"]}, \"environment\": \"cloud\"}" },
	  { "resolve" }, "{\"cluster\": {\"w\": [\"a\"]}, \"environment\": \"google\"}\n", "", 0 },
	{ "variable-option",
	  "accelerators = ( );\nresolvers = ( { plugin = \"tfconfig\"; variable = \"MY_TF\"; } );\n",
	  { "TF_CONFIG={\"cluster\": {\"w\": [\"wrong\"]}}", "MY_TF={\"cluster\": {\"w\": [\"right\"]}}" },
	  { "resolve" }, "{\"cluster\": {\"w\": [\"right\"]}}\n", "", 0 },
	{ "variable-option-invalid",
	  "accelerators = ( );\nresolvers = ( { plugin = \"tfconfig\"; variable = \"MY_TF\"; } );\n",
	  { "MY_TF={" }, { "resolve" }, "",
	  PFX "resolver 'tfconfig': MY_TF: invalid JSON at line 1, column 2 (offset 1): unexpected end of data\n", 1 },
	{ "variable-option-empty",
	  "accelerators = ( );\nresolvers = (\n { plugin = \"tfconfig\"; variable = \"\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "resolver 'tfconfig' (@PLUGINS@/resolvers/tfconfig.so): create failed: @CONF@:3: variable must be a variable name\n",
	  2 },
	/* master(): TensorFlow's TFConfigClusterResolver test values */
	{ "master-own-task", ONLY, { "TF_CONFIG=" TF_PS_WORKER "}" }, { "master" }, "ps0:2222\n", "", 0 },
	{ "master-other-task", ONLY, { "TF_CONFIG=" TF_PS_WORKER "}" },
	  { "master", "--task-type", "worker", "--task-id", "1" }, "worker1:2222\n", "", 0 },
	{ "master-rpc-layer", ONLY, { "TF_CONFIG=" TF_PS_WORKER ", \"rpc_layer\": \"grpc\"}" }, { "master" },
	  "grpc://ps0:2222\n", "", 0 },
	{ "master-rpc-layer-suppressed", ONLY, { "TF_CONFIG=" TF_PS_WORKER ", \"rpc_layer\": \"grpc\"}" },
	  { "master", "--rpc-layer", "" }, "ps0:2222\n", "", 0 },
	{ "master-session-master", ONLY,
	  { "TF_CONFIG=" TF_PS_WORKER ", \"rpc_layer\": \"grpc\", \"session_master\": \"sessionmaster:2222\"}" },
	  { "master" }, "sessionmaster:2222\n", "", 0 },
	{ "master-session-master-json", ONLY,
	  { "TF_CONFIG={\"cluster\": {}, \"session_master\": \"sessionmaster:2222\"}" }, { "resolve", "--format", "json" },
	  "{\"cluster\": {}, \"master\": \"sessionmaster:2222\", \"num_accelerators\": {}}\n", "", 0 },
	{ "master-empty-config", ONLY, { "TF_CONFIG={}" }, { "master" }, "\n", "", 0 },
	{ "master-single-task", ONLY, { "TF_CONFIG={\"cluster\": {\"worker\": [\"worker0:2222\"]}}" },
	  { "master" }, "\n", "", 0 },
	{ "master-single-task-with-identity", ONLY,
	  { "TF_CONFIG={\"cluster\": {\"worker\": [\"worker0:2222\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"rpc_layer\": \"grpc\"}" },
	  { "master" }, "\n", "", 0 },
	{ "master-single-empty-job-fixed", ONLY, { "TF_CONFIG={\"cluster\": {\"worker\": []}}" },
	  { "master" }, "\n", "", 0 },
	{ "master-single-sparse-task-fixed", ONLY, { "TF_CONFIG={\"cluster\": {\"worker\": {\"3\": \"w3:2222\"}}}" },
	  { "master" }, "\n", "", 0 },
	{ "master-override-task", ONLY,
	  { "TF_CONFIG={\"cluster\": {\"ps\": [\"ps0:2222\", \"ps1:2222\"], \"worker\": [\"worker0:2222\"]}}" },
	  { "--task-type", "ps", "--task-id", "0", "--rpc-layer", "grpc", "master" }, "grpc://ps0:2222\n", "", 0 },
	{ "master-setters", ONLY, { "TF_CONFIG=" TF_PS_WORKER "}" },
	  { "master", "--task-type", "worker", "--task-id", "1", "--rpc-layer", "test" },
	  "test://worker1:2222\n", "", 0 },
	{ "master-no-task-multi", ONLY,
	  { "TF_CONFIG={\"cluster\": {\"ps\": [\"ps0:2222\", \"ps1:2222\"]}}" }, { "master" }, "",
	  PFX "no master: no task was given and this process's task is unknown\n", 1 },
	{ "master-no-task-multi-json", ONLY,
	  { "TF_CONFIG={\"cluster\": {\"ps\": [\"ps0:2222\", \"ps1:2222\"]}}" }, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"ps\": [\"ps0:2222\", \"ps1:2222\"]}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", 0 },
	{ NULL },
};

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	crt_add_cli_cases("tfconfig", cases);
	return g_test_run();
}
