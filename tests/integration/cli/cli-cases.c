/* SPDX-License-Identifier: MIT */
/*
 * cli-cases.c - the golden cases of test-cli.c, one table: the arguments,
 * config text and environment of each command line, and the exact stdout,
 * stderr and exit status it must give (tests/common/crt.h).
 */
#include "crt.h"

#define PFX "cluster-resolver: "
#define PP "plugin_path = \"@TESTPLUG@\";\naccelerators = ( );\n"
#define SIMPLE_W0 "{ plugin = \"simple\"; cluster = { worker = [ \"w0:1\" ]; }; }"
/* A simple resolver with a master of its own; the case closes the group. */
#define SIMPLE_M1                                                                                  \
	"{ plugin = \"simple\"; cluster = { worker = [ \"w0:1\", \"w1:1\" ]; }; master = \"m:1\";"
#define TF_TWO_WORKERS "{\"cluster\": {\"worker\": [\"worker0:2222\", \"worker1:2222\"]}"
/* simple's create() refuses a task id without a task type: CR_ERR_CONFIG. */
#define CREATE_FAILS PP "resolvers = (\n  { plugin = \"simple\"; task_id = 1; } );\n"
#define CREATE_FAILS_ERR                                                                           \
	PFX "resolver 'simple' (@PLUGINS@/resolvers/simple.so): create failed: @CONF@:4: "         \
	    "'task_type' and 'task_id' must be set together\n"
/* One resolver of each verdict: declined without and with a reason, an
 * optional error, the sufficient answer, and one skipped after it. */
#define EXPLAIN_CONF                                                                               \
	PP "resolvers = (\n"                                                                       \
	   "  { plugin = \"ranged\"; name = \"quiet\"; mode = \"decline-silent\"; },\n"            \
	   "  { plugin = \"tfconfig\"; policy = \"optional\"; },\n"                                \
	   "  { plugin = \"ranged\"; name = \"broken\"; policy = \"optional\"; mode = \"fail\"; "  \
	   "count = 2; },\n"                                                                       \
	   "  { plugin = \"simple\"; name = \"local\"; policy = \"sufficient\";\n"                 \
	   "    cluster = { worker = [ \"w0:1\" ]; }; task_type = \"worker\"; task_id = 0; },\n"   \
	   "  { plugin = \"ranged\"; name = \"never\"; } );\n"
#define TFC_SHAPE                                                                                  \
	"TF_CONFIG: the tasks for job 'worker' must be a list or an object from indices to "       \
	"addresses, not a string"

/* clang-format off */
extern const crt_cli_case cli_cases[];
const crt_cli_case cli_cases[] = {
	/* ---- schema validation, before any plugin runs ---- */
	{ "unknown-key-did-you-mean",
	  PP "resolvers = (\n  { plugin = \"secretive\"; token = \"s3cr3t\";\n    tokne = \"x\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "@CONF@:5: resolver 'secretive': unknown key 'tokne' (did you mean 'token'?)\n", 2 },
	{ "unknown-key-no-hint",
	  PP "resolvers = (\n  { plugin = \"secretive\"; token = \"s3cr3t\"; completely_else = 1; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver 'secretive': unknown key 'completely_else'\n", 2 },
	{ "wrong-type",
	  PP "resolvers = (\n  { plugin = \"secretive\"; token = \"s3cr3t\";\n    retries = \"3\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "@CONF@:5: resolver 'secretive': key 'retries' must be an integer, not a string\n", 2 },
	{ "wrong-type-list",
	  PP "resolvers = (\n  { plugin = \"secretive\"; token = \"s3cr3t\"; labels = [ 1, 2 ]; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver 'secretive': key 'labels' must be a list of strings, not an array\n", 2 },
	{ "missing-required-key",
	  PP "resolvers = (\n  { plugin = \"secretive\";\n    endpoint = \"h:1\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver 'secretive': missing required key 'token'\n", 2 },
	{ "bad-policy",
	  PP "resolvers = (\n " SIMPLE_W0 ",\n  { plugin = \"simple\"; name = \"two\";\n"
	  "    policy = \"sometimes\"; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "@CONF@:6: resolver 'two': policy must be \"required\", \"optional\" or \"sufficient\"\n", 2 },
	{ "unknown-top-level-key",
	  PP "resolver = ( " SIMPLE_W0 " );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:3: unknown top-level key 'resolver' (known: plugin_path, rpc_layer, task, "
	  "num_accelerators, gpus_per_task, skip_busy_gpus, resolvers, accelerators, formats)\n",
	  2 },
	{ "syntax-error",
	  PP "resolvers = (\n  { plugin = = \"simple\"; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: syntax error\n", 2 },
	{ "no-plugin-name",
	  PP "resolvers = (\n  { name = \"x\"; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver without a \"plugin\" name\n", 2 },
	{ "plugin-not-found",
	  PP "resolvers = (\n  { plugin = \"nosuch\"; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver plugin 'nosuch' not found (searched @TESTPLUG@:@PLUGINS@/resolvers:"
	  "@PLUGINS@/accelerators:" CR_BUILTIN_PLUGINDIR "/resolvers:" CR_BUILTIN_PLUGINDIR "/accelerators)\n", 2 },
	{ "plugin-not-found-relative-path",
	  PP "resolvers = (\n  { plugin = \"nosuch\"; } );\n",
	  { "CLUSTER_RESOLVER_PLUGIN_PATH=build/plugins:@PLUGINS@/resolvers" }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver plugin 'nosuch' not found (searched @TESTPLUG@:@PLUGINS@/resolvers:"
	  CR_BUILTIN_PLUGINDIR "/resolvers:" CR_BUILTIN_PLUGINDIR "/accelerators; relative "
	  "CLUSTER_RESOLVER_PLUGIN_PATH entries are ignored: 'build/plugins')\n", 2 },
	{ "plugin-bad-name",
	  PP "resolvers = (\n  { plugin = \"../simple\"; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: plugin \"../simple\" must be a short name ([A-Za-z0-9_-]) or an absolute path\n", 2 },
	{ "resolver-is-not-accelerator",
	  "accelerators = (\n  { plugin = \"simple\"; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:2: plugin 'simple' (@PLUGINS@/resolvers/simple.so) is a resolver plugin, not an accelerator plugin\n", 2 },
	{ "task-bad",
	  PP "task = { type = \"w\"; id = -3; };\nresolvers = ( " SIMPLE_W0 " );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:3: task id -3 is out of range (0..2147483647)\n", 2 },
	{ "rpc-layer-not-string",
	  PP "rpc_layer = 1;\nresolvers = ( " SIMPLE_W0 " );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:3: rpc_layer must be a string\n", 2 },
	{ "plugin-path-relative",
	  "plugin_path = \"plugins\";\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:1: plugin_path entries must be absolute directories\n", 2 },
	{ "missing-file", NULL, { NULL }, { "--config", "@DIR@/does-not-exist.conf", "resolve" }, "",
	  PFX "@DIR@/does-not-exist.conf: cannot read the config file: No such file or directory\n", 2 },
	/* ---- option ranges (ABI 1.1), checked by the host before create ---- */
	{ "range-both-bounds",
	  PP "resolvers = (\n  { plugin = \"ranged\";\n    count = 0; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:5: resolver 'ranged': key 'count' is 0, out of its range 1..10\n", 2 },
	{ "range-above",
	  PP "resolvers = (\n  { plugin = \"ranged\"; count = 11; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver 'ranged': key 'count' is 11, out of its range 1..10\n", 2 },
	{ "range-min-only",
	  PP "resolvers = (\n  { plugin = \"ranged\"; timeout = 0.1; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver 'ranged': key 'timeout' is 0.1; it must be at least 0.5\n", 2 },
	{ "range-min-only-integer-for-float",
	  PP "resolvers = (\n  { plugin = \"ranged\"; timeout = -3; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver 'ranged': key 'timeout' is -3; it must be at least 0.5\n", 2 },
	{ "range-max-only",
	  PP "resolvers = (\n  { plugin = \"ranged\"; depth = 4; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver 'ranged': key 'depth' is 4; it must be at most 3\n", 2 },
	{ "range-float-huge",
	  PP "resolvers = (\n  { plugin = \"ranged\"; ratio = 1e31; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver 'ranged': key 'ratio' is 1e+31, out of its range 0.25..1e+30\n", 2 },
	{ "range-in-bounds",
	  PP "resolvers = (\n  { plugin = \"ranged\"; count = 10; timeout = 0.5; depth = 3; ratio = 0.25; } );\n",
	  { NULL }, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"ranged\": [\"r:1\", \"r:1\", \"r:1\", \"r:1\", \"r:1\", \"r:1\", \"r:1\", \"r:1\", "
	  "\"r:1\", \"r:1\"]}, \"master\": \"\", \"num_accelerators\": {}}\n", "", 0 },
	{ "range-k8s-page-size",
	  PP "resolvers = (\n  { plugin = \"k8s\"; page_size = -1; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver 'k8s': key 'page_size' is -1, out of its range 0..100000\n", 2 },
	{ "range-k8s-timeout-zero",
	  PP "resolvers = (\n  { plugin = \"k8s\"; exec_timeout = 0; } );\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver 'k8s': key 'exec_timeout' is 0, out of its range 0.1..600\n", 2 },
	{ "range-k8s-timeout-huge",
	  PP "resolvers = (\n  { plugin = \"k8s\"; wait_timeout = 1e30; } );\n", { NULL }, { "check-config" }, "",
	  PFX "@CONF@:4: resolver 'k8s': key 'wait_timeout' is 1e+30, out of its range 0.1..86400\n", 2 },
	/* ---- explain: each verdict, the reasons and facts, the exit status ---- */
	{ "explain-every-verdict", EXPLAIN_CONF, { "TF_CONFIG" }, { "explain" },
	  "config: @CONF@\n"
	  "1. resolver 'quiet' (plugin ranged, required, at @CONF@:4)\n"
	  "   declined (the plugin gave no reason)\n"
	  "   fact mode: \"not ok\"\n"
	  "   fact count: 1\n"
	  "2. resolver 'tfconfig' (plugin tfconfig, optional, at @CONF@:5)\n"
	  "   declined: TF_CONFIG is not set\n"
	  "3. resolver 'broken' (plugin ranged, optional, at @CONF@:6)\n"
	  "   error: told to fail\n"
	  "   fact mode: \"not ok\"\n"
	  "   fact count: [\"more than one\"]\n"
	  "4. resolver 'local' (plugin simple, sufficient, at @CONF@:7)\n"
	  "   ok: 1 job, 1 task; this task worker:0\n"
	  "   fact defined_at: \"cluster at @CONF@:8\"\n"
	  "5. resolver 'never' (plugin ranged, required, at @CONF@:9)\n"
	  "   skipped: resolver 'local' (sufficient) answered first\n"
	  "result: {\"cluster\": {\"worker\": [\"w0:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n",
	  PFX "warning: resolver 'broken': told to fail (optional, skipped)\n", 0 },
	{ "explain-json", EXPLAIN_CONF, { "TF_CONFIG" }, { "explain", "--json" },
	  "{\"config\": \"@CONF@\", \"resolvers\": ["
	  "{\"name\": \"quiet\", \"plugin\": \"ranged\", \"policy\": \"required\", \"at\": \"@CONF@:4\", "
	  "\"verdict\": \"declined\", \"reason\": \"\", \"facts\": {\"mode\": \"not ok\", \"count\": 1}}, "
	  "{\"name\": \"tfconfig\", \"plugin\": \"tfconfig\", \"policy\": \"optional\", \"at\": \"@CONF@:5\", "
	  "\"verdict\": \"declined\", \"reason\": \"TF_CONFIG is not set\", \"facts\": {}}, "
	  "{\"name\": \"broken\", \"plugin\": \"ranged\", \"policy\": \"optional\", \"at\": \"@CONF@:6\", "
	  "\"verdict\": \"error\", \"reason\": \"told to fail\", \"facts\": {\"mode\": \"not ok\", \"count\": [\"more than one\"]}}, "
	  "{\"name\": \"local\", \"plugin\": \"simple\", \"policy\": \"sufficient\", \"at\": \"@CONF@:7\", "
	  "\"verdict\": \"ok\", \"reason\": \"1 job, 1 task; this task worker:0\", \"facts\": {\"defined_at\": \"cluster at @CONF@:8\"}}, "
	  "{\"name\": \"never\", \"plugin\": \"ranged\", \"policy\": \"required\", \"at\": \"@CONF@:9\", "
	  "\"verdict\": \"skipped\", \"reason\": \"resolver 'local' (sufficient) answered first\", \"facts\": {}}], "
	  "\"result\": {\"cluster\": {\"worker\": [\"w0:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, "
	  "\"master\": \"\", \"num_accelerators\": {}}, \"error\": null}\n",
	  PFX "warning: resolver 'broken': told to fail (optional, skipped)\n", 0 },
	{ "explain-required-error-facts-kept",
	  PP "resolvers = (\n  { plugin = \"tfconfig\"; },\n  { plugin = \"ranged\"; name = \"after\"; } );\n",
	  { "TF_CONFIG={\"cluster\": {\"worker\": \"w0:1\"}, \"task\": {\"type\": \"worker\", \"index\": 0}}" },
	  { "explain" },
	  "config: @CONF@\n"
	  "1. resolver 'tfconfig' (plugin tfconfig, required, at @CONF@:4)\n"
	  "   error: " TFC_SHAPE "\n"
	  "   fact variable: \"TF_CONFIG\"\n"
	  "   fact jobs: 1\n"
	  "   fact task: {\"type\":\"worker\",\"index\":0}\n"
	  "2. resolver 'after' (plugin ranged, required, at @CONF@:5)\n"
	  "   skipped: resolver 'tfconfig' (required) failed\n"
	  "result: failed: resolver 'tfconfig': " TFC_SHAPE "\n",
	  PFX "resolver 'tfconfig': " TFC_SHAPE "\n", 1 },
	{ "explain-none-applies",
	  PP "resolvers = (\n  { plugin = \"ranged\"; mode = \"decline\"; } );\n", { NULL }, { "explain" },
	  "config: @CONF@\n"
	  "1. resolver 'ranged' (plugin ranged, required, at @CONF@:4)\n"
	  "   declined: told to decline\n"
	  "   fact mode: \"not ok\"\n"
	  "   fact count: 1\n"
	  "result: failed: no resolver applies here (declined: ranged)\n",
	  PFX "no resolver applies here (declined: ranged)\n", 1 },
	{ "explain-none-applies-json",
	  PP "resolvers = (\n  { plugin = \"ranged\"; mode = \"decline\"; } );\n", { NULL }, { "explain", "--json" },
	  "{\"config\": \"@CONF@\", \"resolvers\": [{\"name\": \"ranged\", \"plugin\": \"ranged\", "
	  "\"policy\": \"required\", \"at\": \"@CONF@:4\", \"verdict\": \"declined\", \"reason\": \"told to decline\", "
	  "\"facts\": {\"mode\": \"not ok\", \"count\": 1}}], \"result\": null, "
	  "\"error\": \"no resolver applies here (declined: ranged)\"}\n",
	  PFX "no resolver applies here (declined: ranged)\n", 1 },
	{ "explain-config-error",
	  PP "resolvers = (\n  { plugin = \"ranged\"; count = 0; } );\n", { NULL }, { "explain" }, "",
	  PFX "@CONF@:4: resolver 'ranged': key 'count' is 0, out of its range 1..10\n", 2 },
	{ "explain-extra-argument", NULL, { NULL }, { "explain", "--yaml" }, "",
	  PFX "unknown option '--yaml'; see 'cluster-resolver explain --help'\n", 2 },
	/* ---- check-config ---- */
	{ "check-config-secrets",
	  PP "resolvers = (\n  { plugin = \"secretive\"; token = \"s3cr3t-token\"; endpoint = \"127.0.0.1:9\";\n"
	  "    retries = 5; labels = [ \"a\", \"b\" ]; password = \"pa55word\"; },\n"
	  "  { plugin = \"simple\"; policy = \"optional\"; cluster = { w = [ \"a\" ]; }; } );\n",
	  { NULL }, { "check-config" },
	  "@CONF@: ok\n"
	  "read @CONF@\n"
	  "resolver 'secretive': plugin secretive 0.1-test (@TESTPLUG@/secretive.so), policy required, at @CONF@:4\n"
	  "    token = (secret)\n"
	  "    endpoint = \"127.0.0.1:9\"\n"
	  "    retries = 5\n"
	  "    labels = ( 2 items )\n"
	  "    password = (secret)\n"
	  "resolver 'simple': plugin simple 1.3.0 (@PLUGINS@/resolvers/simple.so), policy optional, at @CONF@:6\n"
	  "    cluster = { 1 keys }\n",
	  "", 0 },
	{ "check-config-file-argument", NULL, { NULL }, { "check-config", "@DIR@/does-not-exist.conf" }, "",
	  PFX "@DIR@/does-not-exist.conf: cannot read the config file: No such file or directory\n", 2 },
	{ "check-config-create-fails",
	  PP "resolvers = (\n  { plugin = \"simple\"; task_id = 1; } );\n", { NULL }, { "check-config" }, "",
	  PFX "resolver 'simple' (@PLUGINS@/resolvers/simple.so): create failed: @CONF@:4: "
	  "'task_type' and 'task_id' must be set together\n", 2 },
	{ "secret-never-in-errors",
	  PP "resolvers = (\n  { plugin = \"secretive\"; token = \"s3cr3t-token\"; retries = 1.5; } );\n",
	  { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: resolver 'secretive': key 'retries' must be an integer, not a float\n", 2 },
	/* ---- plugins ---- */
	{ "plugins-json", NULL, { "CLUSTER_RESOLVER_PLUGIN_PATH=@TESTPLUG@" }, { "plugins", "--json" },
	  "[{\"name\": \"ranged\", \"kind\": \"resolver\", \"file\": \"@TESTPLUG@/ranged.so\", "
	  "\"abi\": \"1.3\", \"version\": \"0.1-test\", \"description\": \"test plugin with ranged options and facts\", "
	  "\"options\": [{\"name\": \"mode\", \"type\": \"string\", \"default\": \"ok\", \"required\": false, \"secret\": false, \"help\": \"ok | decline | decline-silent | fail\"}, "
	  "{\"name\": \"count\", \"type\": \"int\", \"default\": \"1\", \"required\": false, \"secret\": false, \"help\": \"tasks to report\", \"min\": 1, \"max\": 10}, "
	  "{\"name\": \"timeout\", \"type\": \"float\", \"default\": \"1.5\", \"required\": false, \"secret\": false, \"help\": \"seconds (lower bound only)\", \"min\": 0.5}, "
	  "{\"name\": \"depth\", \"type\": \"int\", \"required\": false, \"secret\": false, \"help\": \"levels (upper bound only)\", \"max\": 3}, "
	  "{\"name\": \"ratio\", \"type\": \"float\", \"required\": false, \"secret\": false, \"help\": \"a fraction\", \"min\": 0.25, \"max\": 1e+30}]}, "
	  "{\"name\": \"secretive\", \"kind\": \"resolver\", \"file\": \"@TESTPLUG@/secretive.so\", "
	  "\"abi\": \"1.3\", \"version\": \"0.1-test\", \"description\": \"test plugin with a secret option\", "
	  "\"options\": [{\"name\": \"token\", \"type\": \"string\", \"required\": true, \"secret\": true, \"help\": \"API token\"}, "
	  "{\"name\": \"endpoint\", \"type\": \"string\", \"default\": \"127.0.0.1:1\", \"required\": false, \"secret\": false, \"help\": \"where the job runs\"}, "
	  "{\"name\": \"retries\", \"type\": \"int\", \"default\": \"3\", \"required\": false, \"secret\": false, \"help\": \"how often to retry\"}, "
	  "{\"name\": \"labels\", \"type\": \"string-list\", \"required\": false, \"secret\": false, \"help\": \"labels\"}, "
	  "{\"name\": \"password\", \"type\": \"string\", \"default\": \"(secret)\", \"required\": false, \"secret\": true, \"help\": \"a secret with a default\"}]}]\n",
	  "", 0 },
	{ "plugins-text", NULL, { "CLUSTER_RESOLVER_PLUGIN_PATH=@TESTPLUG@" }, { "plugins" },
	  "ranged       resolver    ABI 1.3  0.1-test @TESTPLUG@/ranged.so\n"
	  "    test plugin with ranged options and facts\n"
	  "    mode               string      ok | decline | decline-silent | fail [default: ok]\n"
	  "    count              int         tasks to report [default: 1] [range: 1..10]\n"
	  "    timeout            float       seconds (lower bound only) [default: 1.5] [min: 0.5]\n"
	  "    depth              int         levels (upper bound only) [max: 3]\n"
	  "    ratio              float       a fraction [range: 0.25..1e+30]\n"
	  "secretive    resolver    ABI 1.3  0.1-test @TESTPLUG@/secretive.so\n"
	  "    test plugin with a secret option\n"
	  "    token              string      API token (required)\n"
	  "    endpoint           string      where the job runs [default: 127.0.0.1:1]\n"
	  "    retries            int         how often to retry [default: 3]\n"
	  "    labels             string-list labels\n"
	  "    password           string      a secret with a default [default: (secret)]\n",
	  "", 0 },
	{ "plugins-named-text", NULL, { "CLUSTER_RESOLVER_PLUGIN_PATH=@TESTPLUG@" }, { "plugins", "secretive" },
	  "secretive    resolver    ABI 1.3  0.1-test @TESTPLUG@/secretive.so\n"
	  "    test plugin with a secret option\n"
	  "    token              string      API token (required)\n"
	  "    endpoint           string      where the job runs [default: 127.0.0.1:1]\n"
	  "    retries            int         how often to retry [default: 3]\n"
	  "    labels             string-list labels\n"
	  "    password           string      a secret with a default [default: (secret)]\n",
	  "", 0 },
	{ "plugins-named-json", NULL, { "CLUSTER_RESOLVER_PLUGIN_PATH=@TESTPLUG@" }, { "plugins", "secretive", "--json" },
	  "[{\"name\": \"secretive\", \"kind\": \"resolver\", \"file\": \"@TESTPLUG@/secretive.so\", "
	  "\"abi\": \"1.3\", \"version\": \"0.1-test\", \"description\": \"test plugin with a secret option\", "
	  "\"options\": [{\"name\": \"token\", \"type\": \"string\", \"required\": true, \"secret\": true, \"help\": \"API token\"}, "
	  "{\"name\": \"endpoint\", \"type\": \"string\", \"default\": \"127.0.0.1:1\", \"required\": false, \"secret\": false, \"help\": \"where the job runs\"}, "
	  "{\"name\": \"retries\", \"type\": \"int\", \"default\": \"3\", \"required\": false, \"secret\": false, \"help\": \"how often to retry\"}, "
	  "{\"name\": \"labels\", \"type\": \"string-list\", \"required\": false, \"secret\": false, \"help\": \"labels\"}, "
	  "{\"name\": \"password\", \"type\": \"string\", \"default\": \"(secret)\", \"required\": false, \"secret\": true, \"help\": \"a secret with a default\"}]}]\n",
	  "", 0 },
	{ "plugins-named-unknown", NULL, { "CLUSTER_RESOLVER_PLUGIN_PATH=@TESTPLUG@" }, { "plugins", "ranged", "token" }, "",
	  PFX "plugins: no plugin 'token' on the search path\n", 2 },
	{ "plugins-empty-path", NULL, { "CLUSTER_RESOLVER_PLUGIN_PATH=@DIR@/empty-nothing-here" },
	  { "plugins", "--json" }, "[]\n", "", 0 },
	{ "resolve-secretive",
	  PP "resolvers = ( { plugin = \"secretive\"; token = \"t\"; } );\n", { NULL }, { "resolve" },
	  "{\"cluster\": {\"secret-job\": [\"127.0.0.1:1\"]}}\n", "", 0 },
	/* ---- usage errors: exit 2 ---- */
	{ "unknown-command", NULL, { NULL }, { "frobnicate" }, "",
	  PFX "unknown command 'frobnicate'; see 'cluster-resolver --help'\n", 2 },
	{ "resolve-extra-argument", NULL, { NULL }, { "resolve", "extra" }, "",
	  PFX "resolve: unexpected argument 'extra'\n", 2 },
	{ "resolve-format-without-value", NULL, { NULL }, { "resolve", "--format" }, "",
	  PFX "option --format needs a value\n", 2 },
	{ "master-extra-argument", NULL, { NULL }, { "master", "x" }, "",
	  PFX "master: unexpected argument 'x'\n", 2 },
	{ "plugins-bad-flag", NULL, { NULL }, { "plugins", "--yaml" }, "",
	  PFX "unknown option '--yaml'; see 'cluster-resolver plugins --help'\n", 2 },
	{ "check-config-two-files", NULL, { NULL }, { "check-config", "a", "b" }, "",
	  PFX "check-config: unexpected argument 'b'\n", 2 },
	{ "task-id-not-a-number", NULL, { NULL }, { "--task-id", "abc", "resolve" }, "",
	  PFX "invalid task id \"abc\": expected an integer 0..2147483647\n", 2 },
	{ "task-id-negative", NULL, { NULL }, { "resolve", "--task-id=-1" }, "",
	  PFX "invalid task id \"-1\": expected an integer 0..2147483647\n", 2 },
	{ "task-id-plus", NULL, { NULL }, { "resolve", "--task-id", "+1" }, "",
	  PFX "invalid task id \"+1\": expected an integer 0..2147483647\n", 2 },
	/* The environment's data, not the command line: exit 1 (issue #11 item 14). */
	{ "torch-rank0-without-port", PP "resolvers = ( { plugin = \"tfconfig\"; } );\n",
	  { "TF_CONFIG={\"cluster\": {\"chief\": [\"c\"]}, \"task\": {\"type\": \"chief\", \"index\": 0}}" },
	  { "resolve", "--format", "torch" }, "",
	  PFX "format 'torch': address 'c' of task 'chief' 0 (rank 0) has no port\n", 1 },
	/* An argument's control bytes never reach the terminal (issue #11 item 13). */
	{ "unknown-command-escaped", NULL, { NULL }, { "res\x1b[31molve" }, "",
	  PFX "unknown command 'res\\x1b[31molve'; see 'cluster-resolver --help'\n", 2 },
	/* a control byte in a task type would ride into every output format */
	{ "task-type-control-byte", PP "resolvers = ( " SIMPLE_W0 " );\n", { NULL },
	  { "--task-type", "w\a", "--task-id", "3", "resolve" }, "",
	  PFX "task type \"w\\x07\" has a control character\n", 2 },
	{ "task-type-newline", PP "resolvers = ( " SIMPLE_W0 " );\n", { NULL },
	  { "--task-type", "worker\nx", "resolve" }, "",
	  PFX "task type \"worker\\x0ax\" has a control character\n", 2 },
	{ "rpc-layer-escape", PP "resolvers = ( " SIMPLE_W0 " );\n", { NULL },
	  { "--rpc-layer", "grpc\x1b[31m", "resolve" }, "",
	  PFX "rpc layer \"grpc\\x1b[31m\" has a control character\n", 2 },
	{ "task-id-minus-zero", NULL, { NULL }, { "resolve", "--task-id", "-0" }, "",
	  PFX "invalid task id \"-0\": expected an integer 0..2147483647\n", 2 },
	{ "task-id-empty", NULL, { NULL }, { "resolve", "--task-id=" }, "",
	  PFX "invalid task id \"\": expected an integer 0..2147483647\n", 2 },
	{ "task-id-too-big", NULL, { NULL }, { "resolve", "--task-id", "2147483648" }, "",
	  PFX "invalid task id \"2147483648\": expected an integer 0..2147483647\n", 2 },
	{ "config-without-value", NULL, { NULL }, { "resolve", "--config" }, "",
	  PFX "option --config needs a value\n", 2 },
	/* ---- GOption parsing (issue 16 §3) ---- */
	{ "short-config-without-value", NULL, { NULL }, { "resolve", "-c" }, "",
	  PFX "option -c needs a value\n", 2 },
	{ "task-id-without-value", NULL, { NULL }, { "--task-id" }, "",
	  PFX "option --task-id needs a value\n", 2 },
	{ "short-config-attached", NULL, { NULL }, { "-c@DIR@/attached.conf", "resolve" }, "",
	  PFX "@DIR@/attached.conf: cannot read the config file: No such file or directory\n", 2 },
	{ "verbose-bundle-config-attached", NULL, { NULL }, { "check-config", "-vvc@DIR@/vv.conf" }, "",
	  PFX "config: read @DIR@/vv.conf\n"
	  PFX "@DIR@/vv.conf: cannot read the config file: No such file or directory\n", 2 },
	{ "long-config-equals-after-command", NULL, { NULL }, { "master", "--config=@DIR@/eq.conf" }, "",
	  PFX "@DIR@/eq.conf: cannot read the config file: No such file or directory\n", 2 },
	{ "format-given-twice", NULL, { NULL }, { "resolve", "--format", "torch", "--format=jax" }, "",
	  PFX "resolve: --format given twice ('torch', 'jax'); give a list in one, e.g. --format "
	  "\"torch,jax\"\n", 2 },
	{ "exec-format-given-twice", NULL, { NULL }, { "exec", "-f", "torch", "--format", "env", "--", "true" }, "",
	  PFX "exec: --format given twice ('torch', 'env'); give a list in one, e.g. --format "
	  "\"torch,jax\"\n", 2 },
	{ "format-list-blanks", PP "resolvers = ( " SIMPLE_M1 " task_type = \"worker\"; task_id = 1; } );\n",
	  { NULL }, { "resolve", "--format", " torch ,  jax" },
	  "export MASTER_ADDR='w0'\nexport MASTER_PORT='1'\nexport WORLD_SIZE='2'\nexport RANK='1'\n"
	  "export LOCAL_RANK='0'\nexport LOCAL_WORLD_SIZE='1'\nexport NODE_RANK='1'\nexport GROUP_RANK='1'\n"
	  "export JAX_COORDINATOR_ADDRESS='w0:1'\nexport JAX_NUM_PROCESSES='2'\nexport JAX_PROCESS_ID='1'\n", "", 0 },
	{ "format-list-empty-name", NULL, { NULL }, { "resolve", "--format", "torch,,jax" }, "",
	  PFX "resolve: empty name in --format list 'torch,,jax'\n", 2 },
	{ "format-empty", NULL, { NULL }, { "resolve", "--format=" }, "",
	  PFX "resolve: empty name in --format list ''\n", 2 },
	{ "format-blank", NULL, { NULL }, { "exec", "--format", " ", "--", "true" }, "",
	  PFX "exec: empty name in --format list ' '\n", 2 },
	{ "format-list-one-unknown-prints-nothing", PP "resolvers = ( " SIMPLE_W0 " );\n", { NULL },
	  { "resolve", "--format", "json,yaml" }, "",
	  PFX "unknown format 'yaml' (known: tf_config, json, clusterdef, env, torch, torchrun, jax, hostfile, horovod, hosts)\n", 2 },
	{ "unknown-command-did-you-mean", NULL, { NULL }, { "reslove" }, "",
	  PFX "unknown command 'reslove' (did you mean 'resolve'?)\n", 2 },
	{ "unknown-command-did-you-mean-dash", NULL, { NULL }, { "check_config", "x.conf" }, "",
	  PFX "unknown command 'check_config' (did you mean 'check-config'?)\n", 2 },
	{ "help-unknown-command", NULL, { NULL }, { "help", "explian" }, "",
	  PFX "unknown command 'explian' (did you mean 'explain'?)\n", 2 },
	{ "unknown-option-before-command", NULL, { NULL }, { "--frobnicate", "resolve" }, "",
	  PFX "unknown option '--frobnicate'; see 'cluster-resolver --help'\n", 2 },
	{ "unknown-option-of-command", NULL, { NULL }, { "accelerators", "--yaml" }, "",
	  PFX "unknown option '--yaml'; see 'cluster-resolver accelerators --help'\n", 2 },
	/* ---- kubectl's feel: a typo gets its nearest name and the help to read ---- */
	{ "option-typo-of-command", NULL, { NULL }, { "resolve", "--fromat", "json" }, "",
	  PFX "unknown option '--fromat' (did you mean '--format'?); see 'cluster-resolver resolve --help'\n", 2 },
	{ "option-typo-with-value", NULL, { NULL }, { "resolve", "--fromat=json" }, "",
	  PFX "unknown option '--fromat' (did you mean '--format'?); see 'cluster-resolver resolve --help'\n", 2 },
	{ "option-typo-global-after-command", NULL, { NULL }, { "resolve", "--confg", "x" }, "",
	  PFX "unknown option '--confg' (did you mean '--config'?); see 'cluster-resolver resolve --help'\n", 2 },
	{ "option-typo-before-command", NULL, { NULL }, { "--verbsoe", "resolve" }, "",
	  PFX "unknown option '--verbsoe' (did you mean '--verbose'?); see 'cluster-resolver --help'\n", 2 },
	{ "option-typo-of-subcommand", NULL, { NULL }, { "exec", "--supervize", "--", "true" }, "",
	  PFX "unknown option '--supervize' (did you mean '--supervise'?); see 'cluster-resolver exec --help'\n", 2 },
	{ "exec-without-dashdash", NULL, { NULL }, { "exec", "true" }, "",
	  PFX "exec: unexpected argument 'true' (did you mean 'cluster-resolver exec -- true'?)\n", 2 },
	{ "exec-without-dashdash-args", NULL, { NULL }, { "exec", "python3", "train.py" }, "",
	  PFX "exec: unexpected argument 'python3' (did you mean 'cluster-resolver exec -- python3 ...'?)\n", 2 },
	{ "exec-takes-no-dialect", NULL, { NULL }, { "exec", "--dialect", "mpich", "--", "true" }, "",
	  PFX "unknown option '--dialect'; see 'cluster-resolver exec --help'\n", 2 },
	{ "dialect-without-hostfile", NULL, { NULL }, { "resolve", "--dialect", "mpich" }, "",
	  PFX "resolve: --dialect needs --format hostfile\n", 2 },
	{ "dialect-with-json", NULL, { NULL }, { "resolve", "--format", "json", "--dialect=deepspeed" }, "",
	  PFX "resolve: --dialect needs --format hostfile\n", 2 },
	{ "master-port-without-its-formats", NULL, { NULL }, { "resolve", "--format", "hosts", "--master-port", "1" }, "",
	  PFX "resolve: --master-port needs --format env, torch, torchrun or jax\n", 2 },
	{ "exec-jobs-without-its-formats", NULL, { NULL }, { "exec", "--jobs", "worker", "--", "true" }, "",
	  PFX "exec: --jobs needs --format torch, torchrun, jax or env\n", 2 },
	{ "hostlist-expand-bad-expression", NULL, { NULL }, { "hostlist", "expand", "node[1-" }, "",
	  PFX "invalid hostlist \"node[1-\": unterminated '[' at position 5\n", 2 },
	{ "completion-bad-shell", NULL, { NULL }, { "completion", "fish" }, "",
	  PFX "completion: expected bash or zsh\n", 2 },
	/* ---- the config's `formats` defaults; the command line wins ---- */
	{ "config-formats-defaults",
	  PP "formats = { master_port = \"auto\"; port_range = \"30000-30099\"; rdzv = \"c10d\"; };\n"
	  "resolvers = ( " SIMPLE_M1 " task_type = \"worker\"; task_id = 1; } );\n",
	  { NULL }, { "resolve", "--format", "torchrun", "--job-id", "42" },
	  "export PET_NNODES='2'\nexport PET_RDZV_BACKEND='c10d'\nexport PET_RDZV_ENDPOINT='w0:30042'\n"
	  "export PET_RDZV_ID='42'\n", "", 0 },
	{ "config-formats-caller-wins",
	  PP "formats = { master_port = \"auto\"; rdzv = \"c10d\"; };\n"
	  "resolvers = ( " SIMPLE_M1 " task_type = \"worker\"; task_id = 1; } );\n",
	  { NULL }, { "resolve", "--format", "torchrun", "--rdzv", "static", "--master-port", "7" },
	  "export PET_NNODES='2'\nexport PET_NODE_RANK='1'\nexport PET_MASTER_ADDR='w0'\n"
	  "export PET_MASTER_PORT='7'\n", "", 0 },
	{ "config-formats-env-and-hostfile",
	  PP "formats = { master_port = 29500; dialect = \"mpich\"; ifname = \"ib0\"; };\n"
	  "resolvers = ( " SIMPLE_M1 " task_type = \"worker\"; task_id = 1; } );\n",
	  { NULL }, { "resolve", "--format", "env,hostfile" },
	  "export TF_CONFIG='{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"]}, \"task\": {\"type\": "
	  "\"worker\", \"index\": 1}}'\n"
	  "export MASTER_ADDR='w0'\nexport MASTER_PORT='29500'\nexport WORLD_SIZE='2'\nexport RANK='1'\n"
	  "export LOCAL_RANK='0'\nexport LOCAL_WORLD_SIZE='1'\nexport NODE_RANK='1'\nexport GROUP_RANK='1'\n"
	  "export NCCL_SOCKET_IFNAME='ib0'\nexport GLOO_SOCKET_IFNAME='ib0'\n"
	  "export JAX_COORDINATOR_ADDRESS='w0:29500'\nexport JAX_NUM_PROCESSES='2'\nexport JAX_PROCESS_ID='1'\n"
	  "w0:1\nw1:1\n", "", 0 },
	{ "config-formats-bad-port", PP "formats = {\n  master_port = 70000; };\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:4: formats: master_port '70000' must be a port 1..65535 or \"auto\"\n", 2 },
	{ "config-formats-bad-range", PP "formats = { port_range = \"9-8\"; };\n", { NULL }, { "check-config" }, "",
	  PFX "@CONF@:3: formats: port_range '9-8' must be LOW-HIGH with 1024 <= LOW <= HIGH <= 65535\n", 2 },
	{ "config-formats-unknown-key", PP "formats = { job_id = \"7\"; };\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:3: formats: unknown key 'job_id' (known: jobs, dialect, master_port, port_range, "
	  "rdzv, ifname)\n", 2 },
	{ "config-formats-wrong-type", PP "formats = { rdzv = 1; };\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:3: formats: 'rdzv' must be a string\n", 2 },
	{ "config-formats-not-group", PP "formats = \"auto\";\n", { NULL }, { "resolve" }, "",
	  PFX "@CONF@:3: formats must be a group { master_port = \"auto\"; }\n", 2 },
	/* master_port=auto under Slurm: LOW + SLURM_JOB_ID mod span. */
	{ "torchrun-port-from-slurm-job-id",
	  PP "resolvers = ( " SIMPLE_M1 " task_type = \"worker\"; task_id = 1; } );\n",
	  { "SLURM_JOB_ID=4711" }, { "resolve", "--format", "torchrun", "--master-port", "auto" },
	  "export PET_NNODES='2'\nexport PET_NODE_RANK='1'\nexport PET_MASTER_ADDR='w0'\n"
	  "export PET_MASTER_PORT='24711'\n", "", 0 },
	{ "torchrun-job-id-beats-slurm",
	  PP "resolvers = ( " SIMPLE_M1 " task_type = \"worker\"; task_id = 1; } );\n",
	  { "SLURM_JOB_ID=4711" },
	  { "resolve", "--format", "torchrun", "--master-port", "auto", "--job-id", "12" },
	  "export PET_NNODES='2'\nexport PET_NODE_RANK='1'\nexport PET_MASTER_ADDR='w0'\n"
	  "export PET_MASTER_PORT='20012'\n", "", 0 },
	/* ---- master: TensorFlow's rules (issue 10 §4) ---- */
	{ "master-rpc-layer-option-beats-resolver",
	  PP "resolvers = ( " SIMPLE_M1 " rpc_layer = \"grpc\"; } );\n", { NULL },
	  { "master", "--rpc-layer", "http" }, "http://m:1\n", "", 0 },
	{ "master-resolver-rpc-layer",
	  PP "resolvers = ( " SIMPLE_M1 " rpc_layer = \"grpc\"; } );\n", { NULL },
	  { "master" }, "grpc://m:1\n", "", 0 },
	{ "master-top-level-rpc-layer",
	  PP "rpc_layer = \"grpc\";\nresolvers = ( " SIMPLE_M1 " } );\n", { NULL },
	  { "master" }, "grpc://m:1\n", "", 0 },
	{ "master-top-level-empty-rpc-layer",
	  PP "rpc_layer = \"\";\nresolvers = ( " SIMPLE_M1 " rpc_layer = \"grpc\"; } );\n", { NULL },
	  { "master" }, "m:1\n", "", 0 },
	{ "master-json-agrees-with-rpc-layer",
	  PP "resolvers = ( " SIMPLE_M1 " rpc_layer = \"grpc\"; } );\n", { NULL },
	  { "--rpc-layer", "http", "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"]}, \"rpc_layer\": \"http\", "
	  "\"master\": \"http://m:1\", \"num_accelerators\": {}}\n", "", 0 },
	{ "master-json-top-level-rpc-layer",
	  PP "rpc_layer = \"grpc\";\nresolvers = ( " SIMPLE_M1 " } );\n", { NULL },
	  { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"]}, \"rpc_layer\": \"grpc\", "
	  "\"master\": \"grpc://m:1\", \"num_accelerators\": {}}\n", "", 0 },
	{ "master-task-both-given-beats-resolver-master",
	  PP "resolvers = ( " SIMPLE_M1 " rpc_layer = \"grpc\"; } );\n", { NULL },
	  { "--task-type", "worker", "--task-id", "1", "master" }, "grpc://w1:1\n", "", 0 },
	{ "master-lone-task-id", PP "resolvers = ( { plugin = \"tfconfig\"; } );\n",
	  { "TF_CONFIG=" TF_TWO_WORKERS ", \"task\": {\"type\": \"worker\", \"index\": 0}}" },
	  { "--task-id", "1", "master" }, "worker1:2222\n", "", 0 },
	{ "master-lone-task-id-json", PP "resolvers = ( { plugin = \"tfconfig\"; } );\n",
	  { "TF_CONFIG=" TF_TWO_WORKERS ", \"task\": {\"type\": \"worker\", \"index\": 0}}" },
	  { "--task-id", "1", "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"worker0:2222\", \"worker1:2222\"]}, \"task\": {\"type\": "
	  "\"worker\", \"index\": 1}, \"master\": \"worker1:2222\", \"num_accelerators\": {}}\n", "", 0 },
	{ "master-lone-task-type", PP "resolvers = ( { plugin = \"tfconfig\"; } );\n",
	  { "TF_CONFIG={\"cluster\": {\"chief\": [\"chief0:2222\"], \"worker\": [\"worker0:2222\"]}, "
	    "\"task\": {\"type\": \"worker\", \"index\": 0}}" },
	  { "master", "--task-type", "chief", "--rpc-layer", "grpc" }, "grpc://chief0:2222\n", "", 0 },
	{ "master-unknown-task-is-empty", PP "resolvers = ( { plugin = \"tfconfig\"; } );\n",
	  { "TF_CONFIG=" TF_TWO_WORKERS "}" }, { "master" }, "\n",
	  PFX "warning: no master: no task was given and this process's task is unknown\n", 0 },
	{ "master-lone-task-id-still-unknown", PP "resolvers = ( { plugin = \"tfconfig\"; } );\n",
	  { "TF_CONFIG=" TF_TWO_WORKERS "}" }, { "--task-id", "1", "master" }, "\n",
	  PFX "warning: no master: no task was given and this process's task is unknown\n", 0 },
	{ "master-simple-empty-master-no-warning", PP "resolvers = ( " SIMPLE_W0 " );\n", { NULL },
	  { "master" }, "\n", "", 0 },
	{ "master-task-not-in-cluster", PP "resolvers = ( " SIMPLE_W0 " );\n", { NULL },
	  { "--task-type", "worker", "--task-id", "5", "master" }, "",
	  PFX "warning: this process's task worker:5 is not in the cluster\n"
	  PFX "No task with index 5 in job 'worker'\n", 1 },
	/* ---- exit codes: one table (0 ok, 1 resolution failed, 2 usage/config) ---- */
	{ "exit-create-fails-resolve", CREATE_FAILS, { NULL }, { "resolve" }, "", CREATE_FAILS_ERR, 2 },
	{ "exit-create-fails-master", CREATE_FAILS, { NULL }, { "master" }, "", CREATE_FAILS_ERR, 2 },
	{ "exit-create-fails-accelerators", CREATE_FAILS, { NULL }, { "accelerators" }, "", CREATE_FAILS_ERR, 2 },
	{ "exit-create-fails-exec", CREATE_FAILS, { NULL }, { "exec", "--", "true" }, "", CREATE_FAILS_ERR, 2 },
	{ "exit-nothing-applies-resolve", PP "resolvers = ( { plugin = \"tfconfig\"; } );\n", { "TF_CONFIG" },
	  { "resolve" }, "", PFX "no resolver applies here (declined: tfconfig)\n", 1 },
	{ "exit-nothing-applies-exec", PP "resolvers = ( { plugin = \"tfconfig\"; } );\n", { "TF_CONFIG" },
	  { "exec", "--", "true" }, "", PFX "no resolver applies here (declined: tfconfig)\n", 1 },
	{ "exit-unknown-format", PP "resolvers = ( " SIMPLE_W0 " );\n", { NULL },
	  { "resolve", "--format", "yaml" }, "",
	  PFX "unknown format 'yaml' (known: tf_config, json, clusterdef, env, torch, torchrun, jax, hostfile, horovod, hosts)\n", 2 },
	{ "version", NULL, { NULL }, { "--version" }, "cluster-resolver 1.3.0 (plugin ABI 1.3)\n", "", 0 },
	{ NULL },
};
/* clang-format on */
