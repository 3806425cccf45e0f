/* SPDX-License-Identifier: MIT */
/*
 * test-simple.c - every SimpleClusterResolver case (tf-semantics §4) through
 * the built CLI: exact stdout, stderr and exit status.
 */
#include "crt.h"

#define PFX "cluster-resolver: "
#define CREATE PFX "resolver 'simple' (@PLUGINS@/resolvers/simple.so): create failed: "
#define NOACC "accelerators = ( );\n"

static const crt_cli_case cases[] = {
	{ "dense",
	  NOACC "resolvers = ( { plugin = \"simple\";\n"
	  "  cluster = { worker = [ \"w0:2222\", \"w1:2222\" ]; ps = [ \"p0:2222\" ]; };\n"
	  "  task_type = \"worker\"; task_id = 0; rpc_layer = \"grpc\"; } );\n",
	  { NULL }, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"w0:2222\", \"w1:2222\"], \"ps\": [\"p0:2222\"]}, "
	  "\"task\": {\"type\": \"worker\", \"index\": 0}, \"rpc_layer\": \"grpc\"}\n", "", 0 },
	{ "sparse-groups",
	  NOACC "resolvers = ( { plugin = \"simple\";\n"
	  "  cluster = { worker = [ \"w0:2222\" ];\n"
	  "              ps = ( { index = 1; address = \"p1:2222\"; }, { index = 3; address = \"p3:2222\"; } ); }; } );\n",
	  { NULL }, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"w0:2222\"], \"ps\": {\"1\": \"p1:2222\", \"3\": \"p3:2222\"}}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n", "", 0 },
	{ "groups-dense",
	  NOACC "resolvers = ( { plugin = \"simple\";\n"
	  "  cluster = { ps = ( { index = 1; address = \"p1\"; }, { index = 0; address = \"p0\"; } ); }; } );\n",
	  { NULL }, { "resolve" }, "{\"cluster\": {\"ps\": [\"p0\", \"p1\"]}}\n", "", 0 },
	{ "strings-and-groups",
	  NOACC "resolvers = ( { plugin = \"simple\";\n"
	  "  cluster = { worker = ( \"w0\", { index = 3; address = \"w3\"; }, \"w4\" ); }; } );\n",
	  { NULL }, { "resolve" }, "{\"cluster\": {\"worker\": {\"0\": \"w0\", \"3\": \"w3\", \"4\": \"w4\"}}}\n",
	  "", 0 },
	{ "empty-job",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { chief = [ ]; worker = [ \"w0\" ]; }; } );\n",
	  { NULL }, { "resolve" }, "{\"cluster\": {\"chief\": [], \"worker\": [\"w0\"]}}\n", "", 0 },
	{ "cluster-json",
	  NOACC "resolvers = ( { plugin = \"simple\";\n"
	  "  cluster_json = \"{\\\"job/with.dots\\\": [\\\"a:1\\\"], \\\"2nd\\\": {\\\"7\\\": \\\"b:7\\\"}, \\\"\\\": []}\"; } );\n",
	  { NULL }, { "resolve" },
	  "{\"cluster\": {\"job/with.dots\": [\"a:1\"], \"2nd\": {\"7\": \"b:7\"}, \"\": []}}\n", "", 0 },
	{ "environment-and-accelerators",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:1\" ]; };\n"
	  "  environment = \"cloud\"; num_accelerators = { GPU = 8; TPU = 0; }; master = \"m:1\"; } );\n",
	  { NULL }, { "resolve", "--format=json" },
	  "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"environment\": \"cloud\", \"master\": \"m:1\", "
	  "\"num_accelerators\": {\"GPU\": 8, \"TPU\": 0}}\n", "", 0 },
	{ "accelerators-command",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:1\" ]; };\n"
	  "  num_accelerators = { GPU = 4; }; } );\n",
	  { NULL }, { "accelerators" }, "{\"GPU\": 4}\n", "", 0 },
	/* master(): TensorFlow's SimpleClusterResolver test values */
	{ "master-task-grpc",
	  NOACC "resolvers = ( { plugin = \"simple\";\n"
	  "  cluster = { worker = [ \"worker0:2222\", \"worker1:2222\", \"worker2:2222\" ]; }; } );\n",
	  { NULL }, { "master", "--task-type", "worker", "--task-id", "0", "--rpc-layer", "grpc" },
	  "grpc://worker0:2222\n", "", 0 },
	{ "master-task-plain",
	  NOACC "resolvers = ( { plugin = \"simple\";\n"
	  "  cluster = { worker = [ \"worker0:2222\", \"worker1:2222\", \"worker2:2222\" ]; }; } );\n",
	  { NULL }, { "--task-type=worker", "--task-id=2", "master" }, "worker2:2222\n", "", 0 },
	{ "master-default-empty",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"worker0:2222\" ]; }; } );\n",
	  { NULL }, { "master" }, "\n", "", 0 },
	{ "master-empty-with-rpc-layer",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"worker0:2222\" ]; };\n"
	  "  rpc_layer = \"grpc\"; } );\n",
	  { NULL }, { "master" }, "\n", "", 0 },
	{ "master-string-with-rpc-layer",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"worker0:2222\" ]; };\n"
	  "  rpc_layer = \"grpc\"; master = \"m:2222\"; } );\n",
	  { NULL }, { "master" }, "grpc://m:2222\n", "", 0 },
	{ "master-own-rpc-layer-for-task",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:2222\", \"w1:2222\" ]; };\n"
	  "  rpc_layer = \"grpc\"; task_type = \"worker\"; task_id = 1; } );\n",
	  { NULL }, { "master", "--task-type", "worker", "--task-id", "0" }, "grpc://w0:2222\n", "", 0 },
	{ "master-empty-rpc-layer-suppresses",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:2222\" ]; };\n"
	  "  rpc_layer = \"grpc\"; } );\n",
	  { NULL }, { "master", "--task-type", "worker", "--task-id", "0", "--rpc-layer", "" },
	  "w0:2222\n", "", 0 },
	{ "master-ipv6",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"[::1]:2222\" ]; }; } );\n",
	  { NULL }, { "master", "--task-type", "worker", "--task-id", "0", "--rpc-layer", "grpc" },
	  "grpc://[::1]:2222\n", "", 0 },
	{ "master-missing-task",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:2222\" ]; }; } );\n",
	  { NULL }, { "master", "--task-type", "worker", "--task-id", "5" }, "",
	  PFX "warning: this process's task worker:5 is not in the cluster\n"
	  PFX "No task with index 5 in job 'worker'\n", 1 },
	{ "master-missing-job",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:2222\" ]; }; } );\n",
	  { NULL }, { "master", "--task-type", "chief", "--task-id", "0" }, "",
	  PFX "warning: this process's task chief:0 is not in the cluster\n"
	  PFX "No such job in cluster: 'chief'\n", 1 },
	{ "identity-overrides",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0\", \"w1\" ]; };\n"
	  "  task_type = \"worker\"; task_id = 1; } );\n",
	  { NULL }, { "resolve", "--task-id", "0", "--rpc-layer", "grpc" },
	  "{\"cluster\": {\"worker\": [\"w0\", \"w1\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, "
	  "\"rpc_layer\": \"grpc\"}\n", "", 0 },
	/* errors: reported with FILE:LINE before anything runs */
	{ "cluster-and-json",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { w = [ \"a\" ]; };\n"
	  "  cluster_json = \"{}\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: set either 'cluster' or 'cluster_json', not both\n", 2 },
	{ "type-without-id",
	  NOACC "resolvers = (\n { plugin = \"simple\"; cluster = { w = [ \"a\" ]; }; task_type = \"w\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: 'task_type' and 'task_id' must be set together\n", 2 },
	{ "negative-task-id",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { w = [ \"a\" ]; };\n"
	  "  task_type = \"w\"; task_id = -1; } );\n",
	  { NULL }, { "resolve" }, "", CREATE "@CONF@:3: task_id must be 0..2147483647\n", 2 },
	{ "bad-sparse-group",
	  NOACC "resolvers = ( { plugin = \"simple\";\n"
	  "  cluster = { ps = ( { index = 1; addr = \"p1\"; } ); }; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: job 'ps': a sparse task is { index = N; address = \"host:port\"; }\n", 2 },
	{ "negative-sparse-index",
	  NOACC "resolvers = ( { plugin = \"simple\";\n"
	  "  cluster = { ps = ( { index = -2;\n address = \"p1\"; } ); }; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: job 'ps': task index -2 is out of range (0..2147483647)\n", 2 },
	{ "duplicate-sparse-index",
	  NOACC "resolvers = ( { plugin = \"simple\";\n"
	  "  cluster = { ps = ( { index = 1; address = \"a\"; }, { index = 1; address = \"b\"; } ); }; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "resolver 'simple': job 'ps' has two tasks with index 1 ('a' and 'b')\n", 1 },
	{ "job-not-a-list",
	  NOACC "resolvers = ( { plugin = \"simple\";\n  cluster = { worker = \"w0:1\"; }; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: job 'worker' must be a list of addresses or of { index; address; } groups\n", 2 },
	{ "task-not-a-string",
	  NOACC "resolvers = ( { plugin = \"simple\";\n  cluster = { worker = ( \"a\", 7 ); }; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: job 'worker': task 1 must be an address string or a { index; address; } group\n", 2 },
	{ "cluster-json-invalid",
	  NOACC "resolvers = ( { plugin = \"simple\";\n  cluster_json = \"{\\\"w\\\": [\\\"a\\\",]}\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: cluster_json: invalid JSON at line 1, column 12 (offset 11): unexpected character\n", 2 },
	{ "cluster-json-not-object",
	  NOACC "resolvers = ( { plugin = \"simple\";\n  cluster_json = \"[]\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: cluster_json: must be an object mapping job names to tasks\n", 2 },
	{ "cluster-json-bad-index",
	  NOACC "resolvers = ( { plugin = \"simple\";\n  cluster_json = \"{\\\"w\\\": {\\\"-1\\\": \\\"a\\\"}}\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: cluster_json: job 'w': task index \"-1\" is not a non-negative integer\n", 2 },
	{ "cluster-json-bad-address",
	  NOACC "resolvers = ( { plugin = \"simple\";\n  cluster_json = \"{\\\"w\\\": [1]}\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: cluster_json: job 'w' task 0: address must be a string\n", 2 },
	{ "cluster-json-bad-tasks",
	  NOACC "resolvers = ( { plugin = \"simple\";\n  cluster_json = \"{\\\"w\\\": 1}\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: cluster_json: the tasks for job 'w' must be a list or an object from indices to addresses\n", 2 },
	{ "negative-accelerators",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { w = [ \"a\" ]; };\n"
	  "  num_accelerators = { GPU = -1; }; } );\n",
	  { NULL }, { "resolve" }, "",
	  CREATE "@CONF@:3: num_accelerators: 'GPU' must be a non-negative integer\n", 2 },
	{ "unknown-key",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { w = [ \"a\" ]; };\n"
	  "  task_tpye = \"w\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "@CONF@:3: resolver 'simple': unknown key 'task_tpye' (did you mean 'task_type'?)\n", 2 },
	{ "wrong-type",
	  NOACC "resolvers = ( { plugin = \"simple\"; cluster = { w = [ \"a\" ]; };\n"
	  "  task_type = \"w\"; task_id = \"0\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "@CONF@:3: resolver 'simple': key 'task_id' must be an integer, not a string\n", 2 },
	{ "cluster-not-a-group",
	  NOACC "resolvers = ( { plugin = \"simple\";\n  cluster = [ \"a\" ]; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "@CONF@:3: resolver 'simple': key 'cluster' must be a group, not an array\n", 2 },
	{ NULL },
};

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	crt_add_cli_cases("simple", cases);
	return g_test_run();
}
