/* SPDX-License-Identifier: MIT */
/*
 * test-aws-batch.c - the `aws-batch` resolver through cr-testhost: the
 * nodes of a 4-node multi-node parallel job (AWS_BATCH_JOB_NODE_INDEX,
 * AWS_BATCH_JOB_NUM_NODES, AWS_BATCH_JOB_MAIN_NODE_INDEX, and on every
 * node but the main one AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS).
 * Each says "4 tasks, this one i, task 0 at the main node, the others
 * unknown": the formats that need only that answer, the others refuse.
 */
#include "thc.h"

#define R "resolver 'aws-batch': AWS Batch multi-node parallel job: "

/* clang-format off */
#define CHILD2 "AWS_BATCH_JOB_ID=abc#2", "AWS_BATCH_JOB_NODE_INDEX=2", "AWS_BATCH_JOB_NUM_NODES=4", "AWS_BATCH_JOB_MAIN_NODE_INDEX=0", "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS=10.0.1.17"
#define MAIN0 "AWS_BATCH_JOB_ID=abc#0", "AWS_BATCH_JOB_NODE_INDEX=0", "AWS_BATCH_JOB_NUM_NODES=4", "AWS_BATCH_JOB_MAIN_NODE_INDEX=0"
static const thc_case cases[] = {
	{ "child-torch",
	  "", { CHILD2 }, NULL, { "resolve", "--format", "torch" },
	  "export MASTER_ADDR='10.0.1.17'\nexport MASTER_PORT='29500'\nexport WORLD_SIZE='4'\nexport RANK='2'\nexport LOCAL_RANK='0'\nexport LOCAL_WORLD_SIZE='1'\nexport NODE_RANK='2'\nexport GROUP_RANK='2'\n",
	  "", CR_OK },
	{ "child-json",
	  "", { CHILD2 }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"10.0.1.17:29500\", null, null, null]}, \"task\": {\"type\": \"worker\", \"index\": 2}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "child-jax",
	  "", { CHILD2 }, NULL, { "resolve", "--format", "jax" },
	  "export JAX_COORDINATOR_ADDRESS='10.0.1.17:29500'\nexport JAX_NUM_PROCESSES='4'\nexport JAX_PROCESS_ID='2'\n",
	  "", CR_OK },
	{ "child-tf_config-refuses",
	  "", { CHILD2 }, NULL, { "resolve" },
	  "",
	  "format 'tf_config' needs every task's address: resolver 'aws-batch' (AWS Batch) gave the addresses of 1 of the 4 tasks of job 'worker', not the others' (use --format torch, torchrun, jax, env or json)", CR_ERR_BACKEND },
	{ "main-node-main-address",
	  "main_address = \"10.0.1.17\"; port = 23456; job = \"trainer\";", { MAIN0 }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"trainer\": [\"10.0.1.17:23456\", null, null, null]}, \"task\": {\"type\": \"trainer\", \"index\": 0}, \"master\": \"10.0.1.17:23456\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	/* The main node is index 2: it is task 0, the others follow it. */
	{ "main-index-2-rank",
	  "", { "AWS_BATCH_JOB_NODE_INDEX=1", "AWS_BATCH_JOB_NUM_NODES=4", "AWS_BATCH_JOB_MAIN_NODE_INDEX=2", "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS=10.0.1.9" }, NULL, { "resolve", "--format", "torchrun" },
	  "export PET_NNODES='4'\nexport PET_NODE_RANK='3'\nexport PET_MASTER_ADDR='10.0.1.9'\nexport PET_MASTER_PORT='29500'\n",
	  "", CR_OK },
	{ "index-not-below-num",
	  "", { "AWS_BATCH_JOB_NODE_INDEX=4", "AWS_BATCH_JOB_NUM_NODES=4", "AWS_BATCH_JOB_MAIN_NODE_INDEX=0", "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS=10.0.1.9" }, NULL, { "resolve" },
	  "",
	  R "AWS_BATCH_JOB_NODE_INDEX=4 and AWS_BATCH_JOB_MAIN_NODE_INDEX=0 must be below AWS_BATCH_JOB_NUM_NODES=4", CR_ERR_BACKEND },
	{ "num-zero",
	  "", { "AWS_BATCH_JOB_NODE_INDEX=0", "AWS_BATCH_JOB_NUM_NODES=0", "AWS_BATCH_JOB_MAIN_NODE_INDEX=0" }, NULL, { "resolve" },
	  "",
	  R "AWS_BATCH_JOB_NODE_INDEX=0 and AWS_BATCH_JOB_MAIN_NODE_INDEX=0 must be below AWS_BATCH_JOB_NUM_NODES=0", CR_ERR_BACKEND },
	{ "index-not-a-number",
	  "", { "AWS_BATCH_JOB_NODE_INDEX=-1", "AWS_BATCH_JOB_NUM_NODES=4", "AWS_BATCH_JOB_MAIN_NODE_INDEX=0" }, NULL, { "resolve" },
	  "",
	  R "AWS_BATCH_JOB_NODE_INDEX=\"-1\" is not a non-negative integer", CR_ERR_BACKEND },
	{ "num-huge",
	  "", { "AWS_BATCH_JOB_NODE_INDEX=0", "AWS_BATCH_JOB_NUM_NODES=99999999999", "AWS_BATCH_JOB_MAIN_NODE_INDEX=0" }, NULL, { "resolve" },
	  "",
	  R "AWS_BATCH_JOB_NUM_NODES=\"99999999999\" is not a non-negative integer", CR_ERR_BACKEND },
	{ "main-index-missing",
	  "", { "AWS_BATCH_JOB_NODE_INDEX=1", "AWS_BATCH_JOB_NUM_NODES=4" }, NULL, { "resolve" },
	  "",
	  R "AWS_BATCH_JOB_MAIN_NODE_INDEX is not set (AWS Batch sets it on every node)", CR_ERR_BACKEND },
	{ "child-without-main-address",
	  "", { "AWS_BATCH_JOB_NODE_INDEX=1", "AWS_BATCH_JOB_NUM_NODES=4", "AWS_BATCH_JOB_MAIN_NODE_INDEX=0" }, NULL, { "resolve" },
	  "",
	  R "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS is not set on this node, which is not the main node (AWS_BATCH_JOB_NODE_INDEX differs from AWS_BATCH_JOB_MAIN_NODE_INDEX)", CR_ERR_BACKEND },
	{ "main-address-not-ipv4",
	  "", { "AWS_BATCH_JOB_NODE_INDEX=1", "AWS_BATCH_JOB_NUM_NODES=4", "AWS_BATCH_JOB_MAIN_NODE_INDEX=0", "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS=10.0.1.9:80" }, NULL, { "resolve" },
	  "",
	  R "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS=\"10.0.1.9:80\" is not an IPv4 address", CR_ERR_BACKEND },
	{ "single-node-job-declines",
	  "", { "AWS_BATCH_JOB_ID=abc", "AWS_BATCH_JQ_NAME=q" }, NULL, { "resolve" },
	  "",
	  "no resolver applies here (declined: aws-batch)", CR_DECLINED },
	{ NULL },
};
/* clang-format on */

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("aws-batch", "resolvers/aws-batch.so", cases);
	return g_test_run();
}
