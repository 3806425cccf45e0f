/* SPDX-License-Identifier: MIT */
/*
 * test-tpu-resolver.c - resolvers/tpu.so through cr-testhost: every source
 * (local, endpoint lists, GKE, a node through the TPU API, the TPU VM's
 * metadata), multislice through a queued resource, the coordinator, the
 * identity, TPUs per task, and the config errors. The metadata server and
 * the TPU API are scripted exchanges (nothing leaves the process); their
 * bodies are shaped as the real services answer (tests/fixtures/gcp/
 * gcp_tpu.py makes the same shapes, and gcloud checks those).
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define MD "http://169.254.169.254/computeMetadata/v1/"
#define API "https://tpu.googleapis.com/v2/projects/proj/locations/us-central2-b/"
#define TOKEN "ya29.tpu-test-token"
#define BASE "access_token_file = \"/token\"; "
#define GCE "/sys/class/dmi/id/product_name=Google Compute Engine\n"

/* Real v2 Node bodies: name, acceleratorType, state, health, endpoints. */
#define EP(ip, port) "{\"ipAddress\": \"" ip "\", \"port\": " port ", \"accessConfig\": {}}"
#define NODE(name, type, state, health, eps)                                                       \
	"{\"name\": \"projects/proj/locations/us-central2-b/nodes/" name "\", "                    \
	"\"acceleratorType\": \"" type "\", \"state\": \"" state "\", " health                     \
	"\"runtimeVersion\": \"tpu-ubuntu2204-base\", \"cidrBlock\": \"10.130.0.0/20\", "          \
	"\"networkEndpoints\": [" eps "], \"apiVersion\": \"V2\"}"
#define HEALTHY "\"health\": \"HEALTHY\", "
#define EPS4                                                                                       \
	EP("10.130.0.2", "8470")                                                                   \
	", " EP("10.130.0.3", "\"8470\"") ", " EP("10.130.0.4", "8470") ", " EP("10.130.0.5",      \
										"8470")
#define W4 "\"10.130.0.2:8470\", \"10.130.0.3:8470\", \"10.130.0.4:8470\", \"10.130.0.5:8470\""
#define QR(specs)                                                                                  \
	"{\"name\": \"projects/proj/locations/us-central2-b/queuedResources/qr\", "                \
	"\"tpu\": {\"nodeSpec\": [" specs "]}, \"state\": {\"state\": \"ACTIVE\"}}"
#define SPEC_MS(n, prefix)                                                                         \
	"{\"parent\": \"projects/proj/locations/us-central2-b\", \"node\": {\"acceleratorType\": " \
	"\"v4-16\", \"runtimeVersion\": \"tpu-ubuntu2204-base\"}, \"multisliceParams\": "          \
	"{\"nodeCount\": " n ", \"nodeIdPrefix\": \"" prefix "\"}}"

#define OUT(cluster, task, rest)                                                                   \
	"{\"cluster\": {" cluster "}, " task "\"rpc_layer\": \"grpc\", \"master\": " rest "}\n"
#define TASK(i) "\"task\": {\"type\": \"worker\", \"index\": " i "}, "
#define ERR "resolver 'tpu': "
#define DEV(task, core)                                                                            \
	"{\"name\": \"/job:worker/replica:0/task:" #task "/device:TPU:" #core "\", "               \
	"\"device_type\": \"TPU\"}"

typedef struct step {
	const char *url; /* GET; NULL ends the script */
	long status;
	const char *body;
} step;

typedef struct tcase {
	const char *name;
	const char *config;
	const char *env[6];
	const char *files; /* "PATH=CONTENTS\n" lines */
	step http[10];
	const char *args; /* "master", "master worker 2", else resolve --format json */
	cr_status status;
	const char *out;  /* output, or the error message */
	const char *logs; /* warning lines, NULL = none */
} tcase;

/* clang-format off */
static const tcase cases[] = {
	/* b. endpoint lists: TensorFlow's own test values. */
	{ "endpoints/tf-grpc", "tpu = \"grpc://10.1.2.3:8470\";", { NULL }, NULL, { { NULL } }, NULL,
	  CR_OK, OUT("\"worker\": [\"10.1.2.3:8470\"]", TASK("0"),
		     "\"grpc://10.1.2.3:8470\", \"num_accelerators\": {}") },
	{ "endpoints/kube-env", "", { "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS=grpc://10.120.27.5:8470,"
	  "grpc://10.120.27.6:8470,grpc://10.120.27.7:8470,grpc://10.120.27.8:8470" }, NULL,
	  { { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [\"10.120.27.5:8470\", \"10.120.27.6:8470\", \"10.120.27.7:8470\", "
	      "\"10.120.27.8:8470\"]", TASK("0"), "\"grpc://10.120.27.5:8470\", \"num_accelerators\": {}") },
	{ "endpoints/master-task-3", "", { "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS=grpc://10.120.27.5:8470,"
	  "grpc://10.120.27.6:8470,grpc://10.120.27.7:8470,grpc://10.120.27.8:8470" }, NULL,
	  { { NULL } }, "master worker 3", CR_OK, "grpc://10.120.27.8:8470\n" },
	{ "endpoints/default-port-ipv6", "tpu = \"h0,[fd00::2]:9000,h2\"; port = 8482;", { NULL },
	  NULL, { { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [\"h0:8482\", \"[fd00::2]:9000\", \"h2:8482\"]", TASK("0"),
	      "\"grpc://h0:8482\", \"num_accelerators\": {}") },
	{ "endpoints/bad-port", "", { "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS=grpc://a:8470,grpc://b:x" },
	  NULL, { { NULL } }, NULL, CR_ERR_PARSE,
	  ERR "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS: item 2 'grpc://b:x': port 'x' is not a number in "
	  "1..65535" },
	{ "endpoints/rpc-layer-wins", "tpu = \"grpc://10.1.2.3:8470\";", { NULL }, NULL,
	  { { NULL } }, "master --rpc-layer grpc+verbs", CR_OK, "grpc+verbs://10.1.2.3:8470\n" },
	{ "endpoints/empty-rpc-layer-is-grpc", "tpu = \"grpc://10.1.2.3:8470\";", { NULL }, NULL,
	  { { NULL } }, "master --rpc-layer ", CR_OK, "grpc://10.1.2.3:8470\n" },

	{ "endpoints/coordinator", "tpu = \"10.0.0.2,10.0.0.3\"; coordinator_name = \"coordinator\"; "
	  "coordinator_address = \"10.0.0.9:8476\";", { NULL }, NULL, { { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [\"10.0.0.2:8470\", \"10.0.0.3:8470\"], \"coordinator\": [\"10.0.0.9:8476\"]",
	      TASK("0"), "\"grpc://10.0.0.2:8470\", \"num_accelerators\": {}") },
	{ "endpoints/coordinator-address-alone", "tpu = \"grpc://10.0.0.2\"; coordinator_address = \"c:1\";",
	  { NULL }, NULL, { { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [\"10.0.0.2:8470\"]", TASK("0"),
	      "\"grpc://10.0.0.2:8470\", \"num_accelerators\": {}"),
	  "resolver 'tpu': coordinator_address 'c:1' is ignored without coordinator_name\n" },
	{ "endpoints/devices-file", "tpu = \"a,b\"; devices_file = \"/dev.json\";", { NULL },
	  "/dev.json=[" DEV(0, 0) ", " DEV(0, 4) ", " DEV(1, 1) ", " DEV(1, 5) "]\n", { { NULL } },
	  NULL, CR_OK, OUT("\"worker\": [\"a:8470\", \"b:8470\"]", TASK("0"),
			   "\"grpc://a:8470\", \"num_accelerators\": {\"TPU\": 2}") },
	{ "endpoints/devices-file-unequal", "tpu = \"a,b\"; devices_file = \"/dev.json\";", { NULL },
	  "/dev.json=[" DEV(0, 0) ", " DEV(0, 4) ", " DEV(1, 1) "]\n", { { NULL } }, NULL,
	  CR_ERR_BACKEND, ERR "/dev.json: TPU cores on each host are not the same: task 1 has 1, "
	  "task 0 has 2" },
	{ "endpoints/coordinator-off-gce", "tpu = \"grpc://a\"; coordinator_name = \"coordinator\";",
	  { NULL }, NULL, { { NULL } }, NULL, CR_ERR_CONFIG, ERR "coordinator 'coordinator': set "
	  "'coordinator_address' (not on GCE: no metadata server to ask for this VM's address)" },

	/* a. local: no cluster, no master. */
	{ "local", "tpu = \"local\";", { NULL }, NULL, { { NULL } }, NULL, CR_OK,
	  "{\"cluster\": {}, \"master\": \"\", \"num_accelerators\": {}}\n" },
	{ "local/devices-file", "tpu = [ \"local\" ]; devices_file = \"/dev.json\";", { NULL },
	  "/dev.json=[{\"name\": \"/job:localhost/replica:0/task:0/device:TPU:0\", \"device_type\": "
	  "\"TPU\"}, {\"name\": \"/job:localhost/replica:0/task:0/device:TPU:1\", \"device_type\": "
	  "\"TPU\"}, {\"name\": \"/job:localhost/replica:0/task:0/device:TPU_SYSTEM:0\", "
	  "\"device_type\": \"TPU_SYSTEM\"}, {\"name\": \"/job:localhost/replica:0/task:0/device:CPU:0\", "
	  "\"device_type\": \"CPU\"}]\n", { { NULL } }, NULL, CR_OK,
	  "{\"cluster\": {}, \"master\": \"\", \"num_accelerators\": {\"TPU\": 2}}\n" },
	{ "local/coordinator", "tpu = \"local\"; coordinator_name = \"coordinator\"; "
	  "coordinator_port = 8476;", { NULL }, NULL, { { NULL } }, NULL, CR_OK,
	  "{\"cluster\": {\"coordinator\": [\"127.0.0.1:8476\"]}, \"master\": \"\", "
	  "\"num_accelerators\": {}}\n" },

	/* c. GKE: addresses before host names, TPU_WORKER_ID, before TPU_NAME. */
	{ "gke/hostnames", "", { "TPU_WORKER_HOSTNAMES=w-0.s,w-1.s,w-2.s,w-3.s", "TPU_WORKER_ID=2",
	  "TPU_NAME=ignored-node", "TPU_ACCELERATOR_TYPE=v5litepod-16" }, NULL, { { NULL } }, NULL,
	  CR_OK, OUT("\"worker\": [\"w-0.s:8470\", \"w-1.s:8470\", \"w-2.s:8470\", \"w-3.s:8470\"]",
		     TASK("2"), "\"grpc://w-2.s:8470\", \"num_accelerators\": {\"TPU\": 4}") },
	{ "gke/process-addresses", "", { "TPU_PROCESS_ADDRESSES=10.0.0.1:8476,10.0.0.2:8476",
	  "TPU_WORKER_HOSTNAMES=w-0.s,w-1.s", "TPU_WORKER_ID=1" }, NULL, { { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [\"10.0.0.1:8476\", \"10.0.0.2:8476\"]", TASK("1"),
	      "\"grpc://10.0.0.2:8476\", \"num_accelerators\": {}") },
	{ "gke/bad-worker-id", "", { "TPU_WORKER_HOSTNAMES=w-0.s,w-1.s", "TPU_WORKER_ID=2" }, NULL,
	  { { NULL } }, NULL, CR_ERR_PARSE,
	  ERR "TPU_WORKER_ID '2' is not a worker of TPU_WORKER_HOSTNAMES (0..1)" },
	{ "gke/multislice-needs-queued-resource", "", { "TPU_WORKER_HOSTNAMES=w-0.s,w-1.s",
	  "TPU_WORKER_ID=1", "MEGASCALE_NUM_SLICES=2", "MEGASCALE_SLICE_ID=1",
	  "TPU_NAME=slice-1" }, NULL, { { NULL } }, NULL, CR_ERR_NOT_FOUND,
	  ERR "multislice job of 2 slices (MEGASCALE_NUM_SLICES): only slice 1 (TPU \"slice-1\", 2 "
	  "workers) is known; set 'queued_resource' to list every slice" },

	{ "gke/skip-mds-coordinator", "coordinator_name = \"coordinator\";",
	  { "TPU_WORKER_HOSTNAMES=w-0.s,w-1.s", "TPU_SKIP_MDS_QUERY=true" }, GCE, { { NULL } }, NULL,
	  CR_ERR_CONFIG, ERR "coordinator 'coordinator': set 'coordinator_address' "
	  "(TPU_SKIP_MDS_QUERY is set: no metadata server to ask for this VM's address)" },

	/* d. a node through the TPU API, both endpoint formats. */
	{ "api/ready-v4-32", BASE "tpu = \"my-tpu\"; project = \"proj\"; zone = \"us-central2-b\";",
	  { NULL }, NULL, { { API "nodes/my-tpu", 200, NODE("my-tpu", "v4-32", "READY", HEALTHY, EPS4) },
	  { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [" W4 "]", TASK("0"), "\"grpc://10.130.0.2:8470\", \"num_accelerators\": "
	      "{\"TPU\": 4}") },
	{ "api/legacy-v3-8", BASE "tpu = \"old\"; project = \"proj\"; zone = \"us-central2-b\";",
	  { NULL }, NULL, { { API "nodes/old", 200, "{\"name\": \"projects/proj/locations/"
	  "us-central2-b/nodes/old\", \"acceleratorType\": \"v3-8\", \"ipAddress\": \"10.240.1.2\", "
	  "\"port\": \"8470\", \"state\": \"READY\", \"health\": \"HEALTHY\", \"tensorflowVersion\": "
	  "\"2.12.0\"}" }, { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [\"10.240.1.2:8470\"]", TASK("0"),
	      "\"grpc://10.240.1.2:8470\", \"num_accelerators\": {\"TPU\": 8}") },
	{ "api/bad-port", BASE "tpu = \"odd\"; project = \"proj\"; zone = \"us-central2-b\";",
	  { NULL }, NULL, { { API "nodes/odd", 200, NODE("odd", "v4-16", "READY", HEALTHY,
	  EP("10.130.0.2", "8470") ", " EP("10.130.0.3", "\":8470\"")) }, { NULL } }, NULL,
	  CR_ERR_PARSE, ERR "TPU \"odd\": network endpoint 2 has no ipAddress or no port in "
	  "1..65535" },
	{ "api/creating", BASE "tpu = \"new\"; project = \"proj\"; zone = \"us-central2-b\";",
	  { NULL }, NULL, { { API "nodes/new", 200, NODE("new", "v4-8", "CREATING", "", "") },
	  { NULL } }, NULL, CR_ERR_BACKEND, ERR "TPU \"new\" is not yet ready; state: \"CREATING\"" },
	{ "api/preempted", BASE "tpu = \"spot\"; project = \"proj\"; zone = \"us-central2-b\";",
	  { NULL }, NULL, { { API "nodes/spot", 200, NODE("spot", "v4-8", "PREEMPTED", "", "") },
	  { NULL } }, NULL, CR_ERR_BACKEND, ERR "TPU \"spot\" is not yet ready; state: \"PREEMPTED\"" },
	{ "api/unhealthy", BASE "tpu = \"sick\"; project = \"proj\"; zone = \"us-central2-b\"; "
	  "require_healthy = true;", { NULL }, NULL, { { API "nodes/sick", 200,
	  NODE("sick", "v4-8", "READY", "\"health\": \"UNHEALTHY_MAINTENANCE\", ",
	       EP("10.130.0.2", "8470")) }, { NULL } }, NULL, CR_ERR_BACKEND,
	  ERR "TPU \"sick\" is unhealthy: \"UNHEALTHY_MAINTENANCE\"" },
	{ "api/tpu-config-on-gce", BASE, { "TPU_CONFIG={\"project\": \"proj\", \"tpu_node_name\": "
	  "\"my-tpu\"}" }, GCE, { { MD "instance/zone", 200, "projects/123456789/zones/us-central2-b" },
	  { API "nodes/my-tpu", 200, NODE("my-tpu", "v4-32", "READY", HEALTHY, EPS4) },
	  { MD "instance/network-interfaces/0/ip", 200, "10.130.0.4" }, { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [" W4 "]", TASK("2"), "\"grpc://10.130.0.4:8470\", \"num_accelerators\": "
	      "{\"TPU\": 4}") },
	{ "api/off-gce-needs-zone", BASE, { "TPU_NAME=my-tpu" }, NULL, { { NULL } }, NULL,
	  CR_ERR_CONFIG, ERR "TPU \"my-tpu\": set 'project' and 'zone' (not on GCE: no metadata "
	  "server to ask)" },

	{ "api/tpu-config-bad-json", BASE, { "TPU_CONFIG={\"tpu_node_name\": " }, NULL, { { NULL } },
	  NULL, CR_ERR_PARSE, ERR "TPU_CONFIG: invalid JSON at line 1, column 19 (offset 18): "
	  "unexpected end of data" },
	{ "api/api-error", BASE "tpu = \"gone\"; project = \"proj\"; zone = \"us-central2-b\";",
	  { NULL }, NULL, { { API "nodes/gone", 404, "{\"error\": {\"code\": 404, \"message\": "
	  "\"Resource 'projects/proj/locations/us-central2-b/nodes/gone' was not found\", "
	  "\"status\": \"NOT_FOUND\"}}" }, { NULL } }, NULL, CR_ERR_NOT_FOUND, ERR "GET https://tpu.googleapis.com/v2/projects/proj/locations/"
	  "us-central2-b/nodes/gone: HTTP 404: Resource 'projects/proj/locations/us-central2-b/nodes/"
	  "gone' was not found" },

	{ "api/queued-resource-without-megascale", BASE "tpu = \"ms-0\"; project = \"proj\"; "
	  "zone = \"us-central2-b\"; queued_resource = \"qr\";", { NULL }, NULL, {
	  { API "nodes/ms-0", 200, NODE("ms-0", "v4-16", "READY", HEALTHY,
	    EP("10.130.0.2", "8470") ", " EP("10.130.0.3", "8470")) },
	  { API "queuedResources/qr", 200, QR(SPEC_MS("2", "ms")) },
	  { API "nodes/ms-0", 200, NODE("ms-0", "v4-16", "READY", HEALTHY,
	    EP("10.130.0.2", "8470") ", " EP("10.130.0.3", "8470")) },
	  { API "nodes/ms-1", 200, NODE("ms-1", "v4-16", "READY", HEALTHY,
	    EP("10.130.1.2", "8470") ", " EP("10.130.1.3", "8470")) }, { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [\"10.130.0.2:8470\", \"10.130.0.3:8470\", \"10.130.1.2:8470\", "
	      "\"10.130.1.3:8470\"]", TASK("0"), "\"grpc://10.130.0.2:8470\", \"num_accelerators\": "
	      "{\"TPU\": 4}") },
	{ "api/queued-resource-slice-not-ready", BASE "tpu = \"ms-0\"; project = \"proj\"; "
	  "zone = \"us-central2-b\"; queued_resource = \"qr\";", { "MEGASCALE_NUM_SLICES=2" }, NULL, {
	  { API "nodes/ms-0", 200, NODE("ms-0", "v4-16", "READY", HEALTHY,
	    EP("10.130.0.2", "8470") ", " EP("10.130.0.3", "8470")) },
	  { API "queuedResources/qr", 200, QR(SPEC_MS("2", "ms")) },
	  { API "nodes/ms-0", 200, NODE("ms-0", "v4-16", "READY", HEALTHY,
	    EP("10.130.0.2", "8470") ", " EP("10.130.0.3", "8470")) },
	  { API "nodes/ms-1", 200, NODE("ms-1", "v4-16", "REPAIRING", "", "") }, { NULL } }, NULL,
	  CR_ERR_BACKEND, ERR "TPU \"ms-1\" is not yet ready; state: \"REPAIRING\"" },
	{ "api/queued-resource-wrong-count", BASE "tpu = \"ms-0\"; project = \"proj\"; "
	  "zone = \"us-central2-b\"; queued_resource = \"qr\";", { "MEGASCALE_NUM_SLICES=4" }, NULL, {
	  { API "nodes/ms-0", 200, NODE("ms-0", "v4-16", "READY", HEALTHY,
	    EP("10.130.0.2", "8470") ", " EP("10.130.0.3", "8470")) },
	  { API "queuedResources/qr", 200, QR(SPEC_MS("2", "ms")) }, { NULL } }, NULL,
	  CR_ERR_BACKEND, ERR "queued resource \"qr\" has 2 slices; MEGASCALE_NUM_SLICES is 4" },

	/* e. the TPU VM's metadata: both worker-network-endpoints formats. */
	{ "metadata/v4-16", BASE, { NULL }, GCE, {
	  { MD "instance/attributes/agent-worker-number", 200, "1" },
	  { MD "instance/attributes/worker-network-endpoints", 200,
	    "unknown:unknown:10.130.0.2,unknown:unknown:10.130.0.3" },
	  { MD "instance/attributes/accelerator-type", 200, "v4-16" },
	  { MD "instance/attributes/tpu-env", 200, "ACCELERATOR_TYPE: 'v4-16'\nNODE_ID: 'vm-tpu'\n"
	    "WORKER_ID: '1'\nZONE: 'us-central2-b'\n" }, { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [\"10.130.0.2:8470\", \"10.130.0.3:8470\"]", TASK("1"),
	      "\"grpc://10.130.0.3:8470\", \"num_accelerators\": {\"TPU\": 4}") },
	{ "metadata/hostnames", BASE, { NULL }, GCE, {
	  { MD "instance/attributes/agent-worker-number", 200, "0" },
	  { MD "instance/attributes/worker-network-endpoints", 200, "t1v-n-0-w-0,t1v-n-0-w-1" },
	  { MD "instance/attributes/accelerator-type", 404, "" },
	  { MD "instance/attributes/tpu-env", 404, "" }, { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [\"t1v-n-0-w-0:8470\", \"t1v-n-0-w-1:8470\"]", TASK("0"),
	      "\"grpc://t1v-n-0-w-0:8470\", \"num_accelerators\": {}") },
	{ "metadata/empty-endpoints", BASE, { NULL }, GCE, {
	  { MD "instance/attributes/agent-worker-number", 200, "0" },
	  { MD "instance/attributes/worker-network-endpoints", 200, "" }, { NULL } }, NULL,
	  CR_ERR_PARSE, ERR "metadata worker-network-endpoints is empty" },
	{ "metadata/skip-mds-query", BASE, { "TPU_SKIP_MDS_QUERY=1" }, GCE, { { NULL } }, NULL,
	  CR_DECLINED, "no resolver applies here (declined: tpu)" },
	{ "metadata/off-gce-declines", BASE, { NULL }, NULL, { { NULL } }, NULL, CR_DECLINED,
	  "no resolver applies here (declined: tpu)" },
	{ "metadata/empty-tpu-is-an-error", BASE "tpu = \"\";", { NULL }, NULL, { { NULL } }, NULL,
	  CR_ERR_NOT_FOUND, ERR "Please provide a TPU Name to connect to." },

	/* Multislice: slice 1 of 2 on a TPU VM, every slice from the queued
	 * resource, global index = slice x workers + worker. */
	{ "multislice/queued-resource", BASE "queued_resource = \"qr\";", { NULL }, GCE, {
	  { MD "instance/attributes/agent-worker-number", 200, "1" },
	  { MD "instance/attributes/worker-network-endpoints", 200,
	    "unknown:unknown:10.130.1.2,unknown:unknown:10.130.1.3" },
	  { MD "instance/attributes/accelerator-type", 200, "v4-16" },
	  { MD "instance/attributes/tpu-env", 200, "MEGASCALE_NUM_SLICES: '2'\n"
	    "MEGASCALE_SLICE_ID: '1'\nMEGASCALE_COORDINATOR_ADDRESS: '10.130.0.2:8080'\n" },
	  { MD "project/project-id", 200, "proj" },
	  { MD "instance/zone", 200, "projects/123456789/zones/us-central2-b" },
	  { API "queuedResources/qr", 200, QR(SPEC_MS("2", "ms")) },
	  { API "nodes/ms-0", 200, NODE("ms-0", "v4-16", "READY", HEALTHY,
	    EP("10.130.0.2", "8470") ", " EP("10.130.0.3", "8470")) },
	  { API "nodes/ms-1", 200, NODE("ms-1", "v4-16", "READY", HEALTHY,
	    EP("10.130.1.2", "8470") ", " EP("10.130.1.3", "8470")) }, { NULL } }, NULL, CR_OK,
	  OUT("\"worker\": [\"10.130.0.2:8470\", \"10.130.0.3:8470\", \"10.130.1.2:8470\", "
	      "\"10.130.1.3:8470\"]", TASK("3"), "\"grpc://10.130.1.3:8470\", \"num_accelerators\": "
	      "{\"TPU\": 4}") },
};
/* clang-format on */

static char *warning_lines(cr_testhost *th)
{
	GString *s = g_string_new(NULL);
	cr_log_level level;
	const char *line;

	for (size_t i = 0; (line = cr_testhost_log_line(th, i, &level)) != NULL; i++)
		if (level <= CR_LOG_WARNING)
			g_string_append_printf(s, "%s\n", line);
	return g_string_free(s, FALSE);
}

static void expect(cr_testhost *th, const char *url, long status, const char *body)
{
	const char *md_req[] = { "Metadata-Flavor: Google", NULL };
	const char *api_req[] = { "Authorization: Bearer " TOKEN, NULL };
	const char *md_resp[] = { "Metadata-Flavor: Google", "Content-Type: application/text",
				  NULL };
	const char *api_resp[] = { "Content-Type: application/json; charset=UTF-8", NULL };
	bool md = g_str_has_prefix(url, MD);
	cr_error err = CR_ERROR_INIT;

	g_assert_cmpint(cr_testhost_expect(th, "GET", url, md ? md_req : api_req, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_respond(th, status, md ? md_resp : api_resp, body, &err), ==,
			CR_OK);
}

static void setup(cr_testhost *th, const tcase *c)
{
	cr_error err = CR_ERROR_INIT;
	char **lines;

	g_assert_cmpint(cr_testhost_load(th, g_getenv("CR_TPU_PLUGIN"), c->config, &err), ==,
			CR_OK);
	g_assert_cmpint(cr_testhost_add_file(th, "/token", TOKEN "\n", (size_t)-1, &err), ==,
			CR_OK);
	for (size_t i = 0; i < G_N_ELEMENTS(c->env) && c->env[i] != NULL; i++) {
		char **kv = g_strsplit(c->env[i], "=", 2);

		g_assert_cmpint(cr_testhost_setenv(th, kv[0], kv[1], &err), ==, CR_OK);
		g_strfreev(kv);
	}
	lines = g_strsplit(c->files != NULL ? c->files : "", "\n", -1);
	for (size_t i = 0; lines[i] != NULL; i++) {
		char *eq = strchr(lines[i], '=');

		if (eq == NULL)
			continue;
		*eq = '\0';
		g_assert_cmpint(cr_testhost_add_file(th, lines[i], eq + 1, (size_t)-1, &err), ==,
				CR_OK);
	}
	g_strfreev(lines);
	for (size_t i = 0; i < G_N_ELEMENTS(c->http) && c->http[i].url != NULL; i++)
		expect(th, c->http[i].url, c->http[i].status, c->http[i].body);
}

static cr_status run(cr_testhost *th, const tcase *c, const char **out, cr_error *err)
{
	char **w;
	cr_status st;

	if (c->args == NULL)
		return cr_testhost_resolve(th, "json", out, err);
	w = g_strsplit(c->args, " ", -1);
	if (w[1] != NULL && strcmp(w[1], "--rpc-layer") == 0)
		cr_testhost_set_rpc_layer(th, w[2], err);
	else if (w[1] != NULL)
		cr_testhost_set_task(th, w[1], g_ascii_strtoll(w[2], NULL, 10), err);
	st = cr_testhost_master(th, out, err);
	g_strfreev(w);
	return st;
}

static void check(gconstpointer data)
{
	const tcase *c = data;
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	const char *out = NULL;
	const char *want = c->out;
	char *warnings;
	cr_status st;

	setup(th, c);
	st = run(th, c, &out, &err);
	g_assert_cmpstr(st == CR_OK ? out : err.message, ==, want);
	g_assert_cmpint(st, ==, c->status);
	warnings = warning_lines(th);
	g_assert_cmpstr(warnings, ==, c->logs != NULL ? c->logs : "");
	err.message[0] = '\0';
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	g_assert_cmpstr(err.message, ==, "");
	g_assert_null(strstr(cr_testhost_logs(th), TOKEN));
	g_free(warnings);
	cr_testhost_free(th);
}

/* Config errors: exit 2 naming the file and line. */
/* clang-format off */
typedef struct config_case {
	const char *name, *config, *message;
} config_case;

static const config_case config_cases[] = {
	{ "empty-list", "\ntpu = [];", "tpu: At least one TPU must be specified" },
	{ "two-tpus", "\ntpu = [ \"a\", \"b\" ];", "tpu: one TPU per resolver (TensorFlow does not "
	  "implement several); for a multislice job name its queued resource with 'queued_resource'" },
	{ "not-a-name", "\ntpu = 3;", "tpu: expected a TPU name, an endpoint list or \"local\" (a "
	  "string or a one-element list)" },
	{ "api-version", "\napi_version = \"v3\";", "api_version: unknown 'v3' (v2, v2alpha1 or v1)" },
	{ "coordinator-is-worker", "\ncoordinator_name = \"worker\";",
	  "coordinator_name 'worker' is the workers' job_name" },
	{ NULL, NULL, NULL },
};
/* clang-format on */

static void check_config(gconstpointer data)
{
	const config_case *c = data;
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	char *want = g_strdup_printf("resolver 'tpu' (%s): create failed: (string):2: %s",
				     g_getenv("CR_TPU_PLUGIN"), c->message);

	g_assert_cmpint(cr_testhost_load(th, g_getenv("CR_TPU_PLUGIN"), c->config, &err), ==,
			CR_OK);
	g_assert_cmpint(cr_testhost_probe(th, &err), ==, CR_ERR_CONFIG);
	g_assert_cmpstr(err.message, ==, want);
	g_free(want);
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *path = g_strdup_printf("/tpu-resolver/%s", cases[i].name);

		g_test_add_data_func(path, &cases[i], check);
		g_free(path);
	}
	for (size_t i = 0; config_cases[i].name != NULL; i++) {
		char *path = g_strdup_printf("/tpu-resolver/config/%s", config_cases[i].name);

		g_test_add_data_func(path, &config_cases[i], check_config);
		g_free(path);
	}
	return g_test_run();
}
