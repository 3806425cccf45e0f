/* SPDX-License-Identifier: MIT */
/*
 * test-union.c - every UnionClusterResolver case of tf-semantics §5 with the
 * §14.8-10 fixes, plus the resolver policies (required / optional /
 * sufficient, DECLINED never an error). Each case is a config string with
 * several real `simple` / `tfconfig` resolvers; TF_CONFIG-like variables
 * are injected into the context, not the process environment.
 */
#include <string.h>

#include "pipeline/pipeline-private.h"

typedef struct master_check {
	const char *task_type; /* NULL */
	long long task_id;     /* -1 */
	const char *rpc_layer; /* NULL = effective */
	int status;
	const char *url; /* or the error message */
} master_check;

typedef struct union_case {
	const char *name;
	const char *config;
	const char *env[4];   /* "NAME=value" injected into the context */
	const char *set_type; /* cr_context_set_task, when set_id >= -1 */
	long long set_id;     /* -2: no call */
	const char *set_rpc;  /* cr_context_set_rpc_layer when non-NULL */
	int status;
	const char *expect; /* `json` format output, or the error message */
	const char *log;    /* log lines at WARNING and above, '\n'-joined */
	master_check masters[4];
} union_case;

#define NO_SET NULL, -2, NULL

/* clang-format off */
static const union_case cases[] = {
	/* ---- merging (§5 consequences) ---- */
	{ "list-concat",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { worker = [ \"w4:2222\", \"w5:2222\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { worker = [ \"w0:2222\", \"w1:2222\", \"w2:2222\" ]; }; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w4:2222\", \"w5:2222\", \"w0:2222\", \"w1:2222\", \"w2:2222\"]}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n",
	  "", { { "worker", 2, NULL, 0, "w0:2222" }, { "worker", 4, "grpc", 0, "grpc://w2:2222" } } },
	{ "list-then-sparse-collides",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { worker = [ \"w4:2222\", \"w5:2222\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster_json = \"{\\\"worker\\\": {\\\"1\\\": \\\"w1:2222\\\", \\\"2\\\": \\\"w2:2222\\\", \\\"3\\\": \\\"w3:2222\\\"}}\"; }\n"
	  ");\n",
	  { NULL }, NO_SET, CR_ERR_CONFLICT,
	  "job 'worker' task 1 is defined by both resolver 'a' (union.conf:2) and resolver 'b' (union.conf:3)",
	  "" },
	{ "list-then-sparse-merges",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { worker = [ \"w4:2222\", \"w5:2222\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { worker = ( { index = 3; address = \"w3:2222\"; },\n"
	  "     { index = 6; address = \"w6:2222\"; }, { index = 7; address = \"w7:2222\"; } ); }; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": {\"0\": \"w4:2222\", \"1\": \"w5:2222\", \"3\": \"w3:2222\", "
	  "\"6\": \"w6:2222\", \"7\": \"w7:2222\"}}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", { { "worker", 6, NULL, 0, "w6:2222" },
		{ "worker", 2, NULL, CR_ERR_NOT_FOUND, "No task with index 2 in job 'worker'" } } },
	{ "sparse-then-list-collides",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { ps = ( { index = 1; address = \"p1:1\"; } ); }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { ps = [ \"q0:1\", \"q1:1\" ]; }; }\n"
	  ");\n",
	  { NULL }, NO_SET, CR_ERR_CONFLICT,
	  "job 'ps' task 1 is defined by both resolver 'a' (union.conf:2) and resolver 'b' (union.conf:3)",
	  "" },
	{ "two-lists-with-sparse-third-collide",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { w = [ \"a0\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { w = [ \"b0\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"c\"; cluster = { w = ( { index = 5; address = \"c5\"; } ); }; }\n"
	  ");\n",
	  { NULL }, NO_SET, CR_ERR_CONFLICT,
	  "job 'w' task 0 is defined by both resolver 'a' (union.conf:2) and resolver 'b' (union.conf:3)",
	  "" },
	{ "disjoint-sparse",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { w = ( { index = 1; address = \"a1\"; }, { index = 5; address = \"a5\"; } ); }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { w = ( { index = 3; address = \"b3\"; } ); }; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"w\": {\"1\": \"a1\", \"3\": \"b3\", \"5\": \"a5\"}}, \"master\": \"\", "
	  "\"num_accelerators\": {}}\n",
	  "" },
	{ "sparse-making-dense",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { w = ( { index = 1; address = \"a1\"; } ); }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { w = ( { index = 0; address = \"b0\"; } ); }; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"w\": [\"b0\", \"a1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n", "" },
	{ "single-child-keeps-sparse",
	  "resolvers = ( { plugin = \"simple\"; cluster = { w = ( { index = 2; address = \"a2\"; } ); }; } );\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"w\": {\"2\": \"a2\"}}, \"master\": \"\", \"num_accelerators\": {}}\n", "" },
	{ "duplicate-addresses-kept",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { w = [ \"h:1\", \"h:1\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { w = [ \"h:1\" ]; }; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"w\": [\"h:1\", \"h:1\", \"h:1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "" },
	{ "empty-job-is-empty-list",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { worker = [ ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { worker = [ \"w0:1\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"c\"; cluster = { worker = [ \"w1:1\" ]; }; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "" },
	{ "empty-job-only",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { chief = [ ]; worker = [ \"w0:1\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { chief = [ ]; }; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"chief\": [], \"worker\": [\"w0:1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "" },
	{ "jobs-first-seen-order",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { worker = [ \"w0:1\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { ps = [ \"p0:1\" ]; chief = [ \"c0:1\" ]; worker = [ \"w1:1\" ]; }; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"], \"ps\": [\"p0:1\"], \"chief\": [\"c0:1\"]}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n",
	  "" },
	{ "tfconfig-and-simple",
	  "resolvers = (\n"
	  " { plugin = \"tfconfig\"; },\n"
	  " { plugin = \"simple\"; cluster = { worker = [ \"w2:2222\" ]; evaluator = [ \"e0:2222\" ]; }; }\n"
	  ");\n",
	  { "TF_CONFIG={\"cluster\": {\"worker\": [\"w0:2222\", \"w1:2222\"], \"ps\": {\"1\": \"p1:2222\"}}, "
	    "\"task\": {\"type\": \"worker\", \"index\": 1}, \"rpc_layer\": \"grpc\"}" },
	  NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:2222\", \"w1:2222\", \"w2:2222\"], \"ps\": {\"1\": \"p1:2222\"}, "
	  "\"evaluator\": [\"e0:2222\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}, \"rpc_layer\": \"grpc\", "
	  "\"master\": \"grpc://w1:2222\", \"num_accelerators\": {}}\n",
	  "", { { NULL, -1, NULL, 0, "grpc://w1:2222" }, { NULL, -1, "", 0, "w1:2222" },
		{ "evaluator", 0, NULL, 0, "grpc://e0:2222" }, { "ps", 1, "test", 0, "test://p1:2222" } } },

	/* ---- identity (§14.8: an override of 0 or "" counts) ---- */
	{ "override-task-id-0",
	  "task = { type = \"worker\"; id = 0; };\n"
	  "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:1\", \"w1:1\" ]; };\n"
	  "  task_type = \"worker\"; task_id = 1; } );\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n",
	  "" },
	{ "libconfig-cannot-spell-empty-job",
	  "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:1\" ]; \"\" = [ \"x:1\" ]; };\n"
	  "  task_type = \"worker\"; task_id = 0; } );\n",
	  { NULL }, "", -1, NULL, CR_ERR_CONFIG,
	  "union.conf:1: syntax error", "" },
	{ "api-override-empty-type-and-0",
	  "resolvers = ( { plugin = \"simple\"; cluster_json = \"{\\\"\\\": [\\\"x:1\\\", \\\"y:1\\\"], \\\"worker\\\": [\\\"w0:1\\\"]}\";\n"
	  "  task_type = \"worker\"; task_id = 0; } );\n",
	  { NULL }, "", 1, NULL, 0,
	  "{\"cluster\": {\"\": [\"x:1\", \"y:1\"], \"worker\": [\"w0:1\"]}, \"task\": {\"type\": \"\", \"index\": 1}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n",
	  "", { { "", 1, "grpc", 0, "grpc://y:1" } } },
	{ "api-override-beats-config-task",
	  "task = { type = \"ps\"; id = 3; };\n"
	  "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:1\" ]; ps = [ \"p0:1\" ]; }; } );\n",
	  { NULL }, "worker", 0, NULL, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\"], \"ps\": [\"p0:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n",
	  "" },
	{ "api-override-id-only",
	  "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:1\", \"w1:1\" ]; };\n"
	  "  task_type = \"worker\"; task_id = 1; } );\n",
	  { NULL }, NULL, 0, NULL, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n",
	  "" },
	{ "identity-from-first-that-knows",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { worker = [ \"w0:1\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { worker = [ \"w1:1\" ]; }; task_type = \"worker\"; task_id = 1; },\n"
	  " { plugin = \"simple\"; name = \"c\"; cluster = { ps = [ \"p0:1\" ]; }; task_type = \"ps\"; task_id = 0; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"], \"ps\": [\"p0:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n",
	  "" },

	/* ---- rpc layer (§14.9: the effective layer in master) ---- */
	{ "rpc-layer-from-later-resolver",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { worker = [ \"w0:1\", \"w1:1\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { ps = [ \"p0:1\" ]; }; rpc_layer = \"grpc+verbs\"; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"], \"ps\": [\"p0:1\"]}, \"rpc_layer\": \"grpc+verbs\", "
	  "\"master\": \"\", \"num_accelerators\": {}}\n",
	  "", { { "worker", 1, NULL, 0, "grpc+verbs://w1:1" }, { "worker", 1, "", 0, "w1:1" },
		{ "worker", 1, "grpc", 0, "grpc://w1:1" } } },
	{ "config-rpc-layer-overrides",
	  "rpc_layer = \"grpc\";\n"
	  "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:1\" ]; }; rpc_layer = \"other\"; } );\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"rpc_layer\": \"grpc\", \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", { { "worker", 0, NULL, 0, "grpc://w0:1" } } },
	{ "config-empty-rpc-layer-overrides",
	  "rpc_layer = \"\";\n"
	  "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:1\" ]; }; rpc_layer = \"grpc\"; } );\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", { { "worker", 0, NULL, 0, "w0:1" } } },
	{ "api-rpc-layer-beats-config",
	  "rpc_layer = \"grpc\";\n"
	  "resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"w0:1\" ]; }; } );\n",
	  { NULL }, NULL, -2, "", 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", { { "worker", 0, NULL, 0, "w0:1" } } },
	{ "master-of-first-resolver",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { worker = [ \"w0:1\" ]; }; master = \"m:1\"; rpc_layer = \"grpc\"; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { ps = [ \"p0:1\" ]; }; master = \"other:1\"; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\"], \"ps\": [\"p0:1\"]}, \"rpc_layer\": \"grpc\", "
	  "\"master\": \"grpc://m:1\", \"num_accelerators\": {}}\n",
	  "", { { NULL, -1, NULL, 0, "grpc://m:1" }, { "ps", 0, NULL, 0, "grpc://p0:1" },
		{ "ps", -1, NULL, CR_ERR_INVALID_ARG, "a master for one task needs both a task type and a task id" },
		{ "chief", 0, NULL, CR_ERR_NOT_FOUND, "No such job in cluster: 'chief'" } } },
	{ "environment-from-first-that-has-it",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { worker = [ \"w0:1\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { ps = [ \"p0:1\" ]; }; environment = \"cloud\"; },\n"
	  " { plugin = \"simple\"; name = \"c\"; cluster = { ps = [ \"p1:1\" ]; }; environment = \"google\"; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\"], \"ps\": [\"p0:1\", \"p1:1\"]}, \"environment\": \"cloud\", "
	  "\"master\": \"\", \"num_accelerators\": {}}\n",
	  "" },
	{ "num-accelerators-first-that-has-them",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { worker = [ \"w0:1\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; cluster = { ps = [ \"p0:1\" ]; }; num_accelerators = { GPU = 2; TPU = 4; }; },\n"
	  " { plugin = \"simple\"; name = \"c\"; cluster = { ps = [ \"p1:1\" ]; }; num_accelerators = { GPU = 8; }; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\"], \"ps\": [\"p0:1\", \"p1:1\"]}, \"master\": \"\", "
	  "\"num_accelerators\": {\"GPU\": 2, \"TPU\": 4}}\n",
	  "" },
	{ "config-num-accelerators-win",
	  "num_accelerators = { GPU = 1; };\n"
	  "resolvers = ( { plugin = \"simple\"; cluster = { w = [ \"a\" ]; }; num_accelerators = { GPU = 8; }; } );\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"w\": [\"a\"]}, \"master\": \"\", \"num_accelerators\": {\"GPU\": 1}}\n", "" },

	/* ---- policies ---- */
	{ "declined-required-is-not-an-error",
	  "resolvers = (\n"
	  " { plugin = \"tfconfig\"; policy = \"required\"; },\n"
	  " { plugin = \"simple\"; cluster = { worker = [ \"w0:1\" ]; }; }\n"
	  ");\n",
	  { "TF_CONFIG" }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n", "" },
	{ "all-declined",
	  "resolvers = (\n"
	  " { plugin = \"tfconfig\"; },\n"
	  " { plugin = \"tfconfig\"; name = \"second\"; variable = \"TF_CONFIG_2\"; policy = \"sufficient\"; }\n"
	  ");\n",
	  { "TF_CONFIG", "TF_CONFIG_2=" }, NO_SET, CR_ERR_NOT_FOUND,
	  "no resolver applies here (declined: tfconfig, second)", "" },
	{ "no-resolvers",
	  "resolvers = ( );\n", { NULL }, NO_SET, CR_ERR_NOT_FOUND,
	  "no resolver applies here (declined: none configured)", "" },
	{ "required-error-fails",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; cluster = { worker = [ \"w0:1\" ]; }; },\n"
	  " { plugin = \"tfconfig\"; }\n"
	  ");\n",
	  { "TF_CONFIG={\"cluster\": " }, NO_SET, CR_ERR_PARSE,
	  "resolver 'tfconfig': TF_CONFIG: invalid JSON at line 1, column 13 (offset 12): unexpected end of data",
	  "" },
	{ "optional-error-skipped",
	  "resolvers = (\n"
	  " { plugin = \"tfconfig\"; policy = \"optional\"; },\n"
	  " { plugin = \"simple\"; cluster = { worker = [ \"w0:1\" ]; }; }\n"
	  ");\n",
	  { "TF_CONFIG=[1]" }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "warning: resolver 'tfconfig': TF_CONFIG: must be a JSON object (optional, skipped)\n" },
	{ "optional-error-only",
	  "resolvers = ( { plugin = \"tfconfig\"; policy = \"optional\"; } );\n",
	  { "TF_CONFIG=[1]" }, NO_SET, CR_ERR_NOT_FOUND,
	  "no resolver applies here (declined: none configured)",
	  "warning: resolver 'tfconfig': TF_CONFIG: must be a JSON object (optional, skipped)\n" },
	{ "sufficient-stops",
	  "resolvers = (\n"
	  " { plugin = \"tfconfig\"; policy = \"sufficient\"; },\n"
	  " { plugin = \"simple\"; cluster = { worker = [ \"w9:1\" ]; }; }\n"
	  ");\n",
	  { "TF_CONFIG={\"cluster\": {\"worker\": [\"w0:1\"]}}" }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n", "" },
	{ "sufficient-declined-goes-on",
	  "resolvers = (\n"
	  " { plugin = \"tfconfig\"; policy = \"sufficient\"; },\n"
	  " { plugin = \"simple\"; cluster = { worker = [ \"w9:1\" ]; }; }\n"
	  ");\n",
	  { "TF_CONFIG=" }, NO_SET, 0,
	  "{\"cluster\": {\"worker\": [\"w9:1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n", "" },
	{ "sufficient-error-is-fatal",
	  "resolvers = (\n"
	  " { plugin = \"tfconfig\"; policy = \"sufficient\"; },\n"
	  " { plugin = \"simple\"; cluster = { worker = [ \"w9:1\" ]; }; }\n"
	  ");\n",
	  { "TF_CONFIG={\"task\": {\"type\": \"worker\", \"index\": \"x\"}}" }, NO_SET, CR_ERR_PARSE,
	  "resolver 'tfconfig': TF_CONFIG: task.index must be a non-negative integer", "" },
	{ "results-before-sufficient-kept",
	  "resolvers = (\n"
	  " { plugin = \"simple\"; name = \"a\"; cluster = { ps = [ \"p0:1\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"b\"; policy = \"sufficient\"; cluster = { worker = [ \"w0:1\" ]; }; },\n"
	  " { plugin = \"simple\"; name = \"c\"; cluster = { worker = [ \"w1:1\" ]; }; }\n"
	  ");\n",
	  { NULL }, NO_SET, 0,
	  "{\"cluster\": {\"ps\": [\"p0:1\"], \"worker\": [\"w0:1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "" },
	{ NULL },
};
/* clang-format on */

static void collect_log(cr_log_level level, const char *source, const char *message, void *data)
{
	GString *log = data;
	static const char *const names[] = { "error: ", "warning: ", "info: ", "debug: " };

	if (level <= CR_LOG_WARNING)
		g_string_append_printf(log, "%s%s%s%s\n", names[level], source ? source : "",
				       source ? ": " : "", message);
}

/* The real world's I/O seam, but the environment is the case's alone. */
static const char *case_getenv(void *data, const char *name)
{
	return g_hash_table_lookup(data, name);
}

static io_ops case_io;

static void test_union(gconstpointer data)
{
	const union_case *c = data;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = cr_context_new(&err);
	GString *log = g_string_new(NULL);
	char *config = g_strconcat(c->config, "accelerators = ( );\n", NULL);
	cr_result *res = NULL;
	cr_status st;

	cr_context_set_log_handler(ctx, collect_log, log);
	GHashTable *env = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

	case_io = *io_real();
	case_io.getenv = case_getenv;
	ctx_set_io(ctx, &case_io, env);
	for (size_t i = 0; i < G_N_ELEMENTS(c->env) && c->env[i] != NULL; i++) {
		const char *eq = strchr(c->env[i], '=');

		if (eq != NULL)
			g_hash_table_insert(env, g_strndup(c->env[i], eq - c->env[i]),
					    g_strdup(eq + 1));
	}
	st = cr_context_load_config_string(ctx, config, "union.conf", &err);
	if (st == CR_OK && c->set_id >= -1)
		st = cr_context_set_task(ctx, c->set_type, c->set_id, &err);
	if (st == CR_OK && c->set_rpc != NULL)
		st = cr_context_set_rpc_layer(ctx, c->set_rpc, &err);
	if (st == CR_OK)
		st = cr_context_resolve(ctx, &res, &err);
	g_assert_cmpint(st, ==, c->status);
	if (st != CR_OK) {
		g_assert_cmpstr(err.message, ==, c->expect);
		g_assert_cmpint(err.code, ==, c->status);
		g_assert_null(res);
	} else {
		char *out = NULL;
		size_t len = 0;

		g_assert_cmpint(cr_result_format(res, "json", NULL, &out, &len, &err), ==, CR_OK);
		g_assert_cmpstr(out, ==, c->expect);
		g_assert_cmpuint(len, ==, strlen(c->expect));
		cr_free(out);
	}
	for (size_t i = 0; res != NULL && i < G_N_ELEMENTS(c->masters); i++) {
		const master_check *m = &c->masters[i];
		char *url = NULL;
		cr_error merr = CR_ERROR_INIT;

		if (m->url == NULL)
			break;
		g_assert_cmpint(
			cr_result_master(res, m->task_type, m->task_id, m->rpc_layer, &url, &merr),
			==, m->status);
		g_assert_cmpstr(m->status == 0 ? url : merr.message, ==, m->url);
		cr_free(url);
	}
	g_assert_cmpstr(log->str, ==, c->log != NULL ? c->log : "");
	cr_result_free(res);
	cr_context_free(ctx);
	g_hash_table_unref(env);
	g_string_free(log, TRUE);
	g_free(config);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (size_t i = 0; cases[i].name != NULL; i++) {
		char *p = g_strdup_printf("/union/%s", cases[i].name);

		g_test_add_data_func(p, &cases[i], test_union);
		g_free(p);
	}
	return g_test_run();
}
