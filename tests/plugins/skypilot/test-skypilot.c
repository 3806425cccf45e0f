/* SPDX-License-Identifier: MIT */
/*
 * test-skypilot.c - the `skypilot` resolver through cr-testhost: node 1 of
 * a 3-node cluster with 8 GPUs a node (SKYPILOT_NODE_IPS one IP a line in
 * rank order, SKYPILOT_NODE_RANK, SKYPILOT_NUM_NODES,
 * SKYPILOT_NUM_GPUS_PER_NODE), and each contradiction.
 */
#include "thc.h"

#define R "resolver 'skypilot': SkyPilot: "

/* clang-format off */
#define N1 "SKYPILOT_NODE_IPS=10.0.0.4\n10.0.0.7\n10.0.0.5\n", "SKYPILOT_NODE_RANK=1", "SKYPILOT_NUM_NODES=3", "SKYPILOT_NUM_GPUS_PER_NODE=8", "SKYPILOT_TASK_ID=sky-2026-11-28-07-00-00-000000_myclus_1"
static const thc_case cases[] = {
	{ "node1-json",
	  "", { N1 }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"10.0.0.4:8888\", \"10.0.0.7:8888\", \"10.0.0.5:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}, \"master\": \"10.0.0.7:8888\", \"num_accelerators\": {\"GPU\": 8}}\n",
	  "", CR_OK },
	{ "node1-tf_config",
	  "", { N1 }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"10.0.0.4:8888\", \"10.0.0.7:8888\", \"10.0.0.5:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}\n",
	  "", CR_OK },
	{ "node1-torch",
	  "", { N1 }, NULL, { "resolve", "--format", "torch" },
	  "export MASTER_ADDR='10.0.0.4'\nexport MASTER_PORT='8888'\nexport WORLD_SIZE='3'\nexport RANK='1'\nexport LOCAL_RANK='0'\nexport LOCAL_WORLD_SIZE='1'\nexport NODE_RANK='1'\nexport GROUP_RANK='1'\n",
	  "", CR_OK },
	{ "options-blank-lines-no-count",
	  "job = \"trainer\"; port = 2222;", { "SKYPILOT_NODE_IPS=\n 10.0.0.4 \r\n\n10.0.0.7", "SKYPILOT_NODE_RANK=0" }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"trainer\": [\"10.0.0.4:2222\", \"10.0.0.7:2222\"]}, \"task\": {\"type\": \"trainer\", \"index\": 0}, \"master\": \"10.0.0.4:2222\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "rank-not-below-nodes",
	  "", { "SKYPILOT_NODE_IPS=10.0.0.4\n10.0.0.7", "SKYPILOT_NODE_RANK=2" }, NULL, { "resolve" },
	  "",
	  R "SKYPILOT_NODE_RANK=2 is not below the 2 nodes of SKYPILOT_NODE_IPS", CR_ERR_BACKEND },
	{ "count-disagrees",
	  "", { "SKYPILOT_NODE_IPS=10.0.0.4\n10.0.0.7", "SKYPILOT_NODE_RANK=0", "SKYPILOT_NUM_NODES=3" }, NULL, { "resolve" },
	  "",
	  R "SKYPILOT_NUM_NODES=3, but SKYPILOT_NODE_IPS lists 2 nodes", CR_ERR_BACKEND },
	{ "no-ips",
	  "", { "SKYPILOT_NODE_IPS=\n\n", "SKYPILOT_NODE_RANK=0" }, NULL, { "resolve" },
	  "",
	  R "SKYPILOT_NODE_IPS lists no node", CR_ERR_BACKEND },
	{ "rank-not-a-number",
	  "", { "SKYPILOT_NODE_IPS=10.0.0.4", "SKYPILOT_NODE_RANK=0x1" }, NULL, { "resolve" },
	  "",
	  R "SKYPILOT_NODE_RANK=\"0x1\" is not a non-negative integer", CR_ERR_BACKEND },
	{ "gpus-not-a-number",
	  "", { "SKYPILOT_NODE_IPS=10.0.0.4", "SKYPILOT_NODE_RANK=0", "SKYPILOT_NUM_GPUS_PER_NODE=0.5" }, NULL, { "resolve" },
	  "",
	  R "SKYPILOT_NUM_GPUS_PER_NODE=\"0.5\" is not a non-negative integer", CR_ERR_BACKEND },
	{ "declines-without-ips",
	  "", { "SKYPILOT_NODE_RANK=0" }, NULL, { "resolve" },
	  "",
	  "no resolver applies here (declined: skypilot)", CR_DECLINED },
	{ NULL },
};
/* clang-format on */

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("skypilot", "resolvers/skypilot.so", cases);
	return g_test_run();
}
