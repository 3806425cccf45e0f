/* SPDX-License-Identifier: MIT */
/*
 * test-vertex.c - the `vertex` resolver through cr-testhost: CLUSTER_SPEC
 * as Vertex AI sets it on the replicas of a job of four worker pools (one
 * primary replica, two workers, one parameter server, one evaluator; the
 * shape of the reference's example, launchers.md §4b), each replica's
 * task, torch's coordinator, the pools kept by name, and every spec that
 * is wrong, including one of more than 4 MiB (built by this test).
 */
#include <string.h>

#include "thc.h"

#define R "resolver 'vertex': "

/* clang-format off */
#define P0 "\"cmle-training-workerpool0-d604929a6a-0:2222\""
#define P1 "\"cmle-training-workerpool1-d604929a6a-0:2222\", \"cmle-training-workerpool1-d604929a6a-1:2222\""
#define P2 "\"cmle-training-workerpool2-d604929a6a-0:2222\""
#define P3 "\"cmle-training-workerpool3-d604929a6a-0:2222\""
#define CLUSTER "{\"workerpool0\": [" P0 "], \"workerpool1\": [" P1 "], \"workerpool2\": [" P2 "], \"workerpool3\": [" P3 "]}"
#define SPEC(type, index) "CLUSTER_SPEC={\"cluster\": " CLUSTER ", \"environment\": \"cloud\", \"task\": {\"type\": \"" type "\", \"index\": " index "}, \"job\": {}}"
#define ROLES "{\"chief\": [" P0 "], \"worker\": [" P1 "], \"ps\": [" P2 "], \"evaluator\": [" P3 "]}"
#define NAMES "{\"workerpool0\": [" P0 "], \"workerpool1\": [" P1 "], \"workerpool2\": [" P2 "], \"workerpool3\": [" P3 "]}"
#define BAD(json) "CLUSTER_SPEC=" json
#define TASK1 ", \"task\": {\"type\": \"workerpool1\", \"index\": 0}}"
static const thc_case cases[] = {
	{ "worker-1",
	  "", { SPEC("workerpool1", "1") }, NULL, { "resolve" },
	  "{\"cluster\": " ROLES ", \"task\": {\"type\": \"worker\", \"index\": 1}}\n",
	  "", CR_OK },
	{ "primary-replica-json",
	  "", { SPEC("workerpool0", "0") }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": " ROLES ", \"task\": {\"type\": \"chief\", \"index\": 0}, \"master\": \"cmle-training-workerpool0-d604929a6a-0:2222\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "parameter-server",
	  "", { SPEC("workerpool2", "0") }, NULL, { "resolve" },
	  "{\"cluster\": " ROLES ", \"task\": {\"type\": \"ps\", \"index\": 0}}\n",
	  "", CR_OK },
	{ "evaluator",
	  "", { SPEC("workerpool3", "0") }, NULL, { "resolve" },
	  "{\"cluster\": " ROLES ", \"task\": {\"type\": \"evaluator\", \"index\": 0}}\n",
	  "", CR_OK },
	/* torch: the world is chief then worker; the primary replica is rank 0
	 * and its address the coordinator. */
	{ "torch-worker-1-is-rank-2",
	  "", { SPEC("workerpool1", "1") }, NULL, { "resolve", "--format", "torch" },
	  "export MASTER_ADDR='cmle-training-workerpool0-d604929a6a-0'\n"
	  "export MASTER_PORT='2222'\n"
	  "export WORLD_SIZE='3'\n"
	  "export RANK='2'\n"
	  "export LOCAL_RANK='0'\n"
	  "export LOCAL_WORLD_SIZE='1'\n"
	  "export NODE_RANK='2'\n"
	  "export GROUP_RANK='2'\n",
	  "", CR_OK },
	{ "pool-names",
	  "pool_names = true;", { SPEC("workerpool1", "0") }, NULL, { "resolve" },
	  "{\"cluster\": " NAMES ", \"task\": {\"type\": \"workerpool1\", \"index\": 0}}\n",
	  "", CR_OK },
	{ "two-pools-index-as-string",
	  "", { BAD("{\"cluster\": {\"workerpool1\": [\"w0:2222\", \"w1:2222\"], \"workerpool0\": [\"p:2222\"]}, \"task\": {\"type\": \"workerpool1\", \"index\": \"1\"}}") }, NULL, { "resolve" },
	  "{\"cluster\": {\"chief\": [\"p:2222\"], \"worker\": [\"w0:2222\", \"w1:2222\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}\n",
	  "", CR_OK },
	{ "empty-pool-left-out",
	  "", { BAD("{\"cluster\": {\"workerpool0\": [\"p:2222\"], \"workerpool2\": []}, \"task\": {\"type\": \"workerpool0\", \"index\": 0}}") }, NULL, { "resolve" },
	  "{\"cluster\": {\"chief\": [\"p:2222\"]}, \"task\": {\"type\": \"chief\", \"index\": 0}}\n",
	  "", CR_OK },
	{ "malformed-json",
	  "", { BAD("{\"cluster\": {\"workerpool0\": [\"p:2222\"]") }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: invalid JSON at line 1, column 39 (offset 38): unexpected end of data", CR_ERR_PARSE },
	{ "not-an-object",
	  "", { BAD("[1]") }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: must be a JSON object", CR_ERR_PARSE },
	{ "cluster-missing",
	  "", { BAD("{\"task\": {\"type\": \"workerpool0\", \"index\": 0}}") }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: \"cluster\" must be an object of worker pools", CR_ERR_PARSE },
	{ "unknown-pool",
	  "", { BAD("{\"cluster\": {\"workerpool0\": [\"p:2222\"], \"master\": [\"m:2222\"]}" TASK1) }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: cluster.\"master\" is not a worker pool (workerpool0 to workerpool3)", CR_ERR_PARSE },
	{ "pool-not-a-list",
	  "", { BAD("{\"cluster\": {\"workerpool0\": [\"p:2222\"], \"workerpool1\": \"w:2222\"}" TASK1) }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: cluster.workerpool1 must be a list of addresses", CR_ERR_PARSE },
	{ "address-not-a-string",
	  "", { BAD("{\"cluster\": {\"workerpool0\": [\"p:2222\"], \"workerpool1\": [\"w:2222\", 7]}" TASK1) }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: cluster.workerpool1[1] must be an address string", CR_ERR_PARSE },
	{ "two-primary-replicas",
	  "", { BAD("{\"cluster\": {\"workerpool0\": [\"p0:2222\", \"p1:2222\"]}, \"task\": {\"type\": \"workerpool0\", \"index\": 1}}") }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: cluster.workerpool0 has 2 addresses; it is the primary replica, exactly one", CR_ERR_PARSE },
	{ "no-primary-replica",
	  "", { BAD("{\"cluster\": {\"workerpool1\": [\"w:2222\"]}" TASK1) }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: cluster.workerpool0 has 0 addresses; it is the primary replica, exactly one", CR_ERR_PARSE },
	{ "task-missing",
	  "", { BAD("{\"cluster\": {\"workerpool0\": [\"p:2222\"]}}") }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: task needs \"type\" (a worker pool) and \"index\"; Vertex sets both on every replica", CR_ERR_PARSE },
	{ "task-type-not-in-cluster",
	  "", { BAD("{\"cluster\": {\"workerpool0\": [\"p:2222\"]}" TASK1) }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: task.type \"workerpool1\" is not a worker pool of the cluster", CR_ERR_PARSE },
	{ "index-not-below-replicas",
	  "", { SPEC("workerpool1", "2") }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: task.index 2 is not below the 2 replicas of workerpool1", CR_ERR_PARSE },
	{ "index-negative",
	  "", { SPEC("workerpool1", "-1") }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: task.index must be a non-negative integer", CR_ERR_PARSE },
	{ "index-undefined",
	  "", { SPEC("workerpool1", "\"undefined\"") }, NULL, { "resolve" },
	  "",
	  R "CLUSTER_SPEC: task.index must be a non-negative integer", CR_ERR_PARSE },
	{ "declines-without-cluster-spec",
	  "", { "TF_CONFIG={}" }, NULL, { "resolve" },
	  "",
	  "no resolver applies here (declined: vertex)", CR_DECLINED },
	{ "empty-cluster-spec-declines",
	  "", { "CLUSTER_SPEC=" }, NULL, { "probe" },
	  "",
	  "not a Vertex AI training replica: CLUSTER_SPEC is not set", CR_DECLINED },
	{ NULL },
};
/* clang-format on */

/* A CLUSTER_SPEC of more than 4 MiB: refused before it is parsed. */
static thc_case huge[] = {
	{ "spec-over-4-mib",
	  "",
	  { NULL },
	  NULL,
	  { "resolve" },
	  "",
	  R "CLUSTER_SPEC: 4194305 bytes, more than the 4194304 a cluster spec may have",
	  CR_ERR_PARSE },
	{ NULL },
};

int main(int argc, char **argv)
{
	static const char head[] = "CLUSTER_SPEC={\"cluster\": \"";
	/* "CLUSTER_SPEC=" and a value one byte over the cap */
	size_t len = strlen("CLUSTER_SPEC=") + (4u << 20) + 1;
	char *big = g_malloc(len + 1);

	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	memcpy(big, head, strlen(head));
	memset(big + strlen(head), 'x', len - strlen(head) - 2);
	memcpy(big + len - 2, "\"}", 3);
	huge[0].env[0] = big;
	thc_add_cases("vertex", "resolvers/vertex.so", cases);
	thc_add_cases("vertex", "resolvers/vertex.so", huge);
	return g_test_run();
}
