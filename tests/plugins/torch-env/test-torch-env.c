/* SPDX-License-Identifier: MIT */
/*
 * test-torch-env.c - the `torch-env` resolver through cr-testhost: the
 * environments a torch launcher gives a process, as
 * ../shared/reference/launchers.md records them (only its confirmed rows):
 *   torchrun (§1a)          local_elastic_agent.py's worker_env
 *   DeepSpeed launcher (§1b) launch.py's pdsh path: CROSS_RANK/CROSS_SIZE
 *   PyTorchJob (§4e)        MASTER_ADDR=<job>-master-0, RANK = the pod's
 *                           index, WORLD_SIZE = replicas x nprocPerNode
 *   TrainJob (§4g)          PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK,
 *                           PET_MASTER_ADDR=<trainjob>-node-0-0.<trainjob>,
 *                           PET_MASTER_PORT=29500; JAX_* for its JAX runtime
 *   JAXJob (§4e)            COORDINATOR_ADDRESS=<job>-worker-0,
 *                           COORDINATOR_PORT, NUM_PROCESSES, PROCESS_ID
 * Each says "N tasks, this one i, task 0 at the coordinator, the others
 * unknown": the formats that need only that answer, the others refuse
 * naming the launcher.
 */
#include "thc.h"

#define R "resolver 'torch-env': "

/* clang-format off */
/* Rank 3 of 2 nodes x 2 processes (node 1, local rank 1). */
#define TR "TORCHELASTIC_RUN_ID=none", "RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=1", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=node-a", "MASTER_PORT=29500", "TORCHELASTIC_RESTART_COUNT=0"
/* PyTorchJob: 2 pods x 4 processes, the worker pod (index 1). */
#define PJ4 "MASTER_ADDR=pj-master-0", "MASTER_PORT=23456", "PET_MASTER_ADDR=pj-master-0", "PET_MASTER_PORT=23456", "WORLD_SIZE=8", "RANK=1", "PET_NODE_RANK=1", "PET_NNODES=2", "PET_NPROC_PER_NODE=4", "PYTHONUNBUFFERED=1"
/* PyTorchJob: 3 pods of one process. */
#define PJ1 "MASTER_ADDR=pj-master-0", "MASTER_PORT=23456", "PET_MASTER_ADDR=pj-master-0", "PET_MASTER_PORT=23456", "WORLD_SIZE=3", "RANK=2", "PET_NODE_RANK=2", "PET_NNODES=3", "PYTHONUNBUFFERED=1"
/* TrainJob (torch): node 1 of 2. */
#define TJ "PET_NNODES=2", "PET_NPROC_PER_NODE=auto", "PET_NODE_RANK=1", "PET_MASTER_ADDR=tj-node-0-0.tj", "PET_MASTER_PORT=29500"
/* JAXJob: process 1 of 2. */
#define JJ "COORDINATOR_ADDRESS=jj-worker-0", "COORDINATOR_PORT=6666", "NUM_PROCESSES=2", "PROCESS_ID=1"
/* TrainJob (JAX): process 2 of 4. */
#define TJJ "JAX_NUM_PROCESSES=4", "JAX_PROCESS_ID=2", "JAX_COORDINATOR_ADDRESS=tj-node-0-0.tj:29500"
/* DeepSpeed (pdsh): rank 5 of 2 nodes x 4, node 1, local rank 1. */
#define DS "RANK=5", "LOCAL_RANK=1", "WORLD_SIZE=8", "LOCAL_SIZE=4", "CROSS_RANK=1", "CROSS_SIZE=2", "MASTER_ADDR=worker-0", "MASTER_PORT=29500"
static const thc_case cases[] = {
	{ "torchrun-torch",
	  "", { TR }, NULL, { "resolve", "--format", "torch" },
	  "export MASTER_ADDR='node-a'\nexport MASTER_PORT='29500'\nexport WORLD_SIZE='4'\nexport RANK='3'\nexport LOCAL_RANK='1'\nexport LOCAL_WORLD_SIZE='2'\nexport NODE_RANK='1'\nexport GROUP_RANK='1'\n",
	  "", CR_OK },
	{ "torchrun-json",
	  "", { TR }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"node-a:29500\", null, null, null]}, \"task\": {\"type\": \"worker\", \"index\": 3}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "torchrun-torchrun",
	  "", { TR }, NULL, { "resolve", "--format", "torchrun" },
	  "export PET_NNODES='2'\nexport PET_NODE_RANK='1'\nexport PET_MASTER_ADDR='node-a'\nexport PET_MASTER_PORT='29500'\n",
	  "", CR_OK },
	{ "torchrun-jax",
	  "", { TR }, NULL, { "resolve", "--format", "jax" },
	  "export JAX_COORDINATOR_ADDRESS='node-a:29500'\nexport JAX_NUM_PROCESSES='4'\nexport JAX_PROCESS_ID='3'\n",
	  "", CR_OK },
	{ "torchrun-env",
	  "", { TR }, NULL, { "resolve", "--format", "env" },
	  "export MASTER_ADDR='node-a'\nexport MASTER_PORT='29500'\nexport WORLD_SIZE='4'\nexport RANK='3'\nexport LOCAL_RANK='1'\nexport LOCAL_WORLD_SIZE='2'\nexport NODE_RANK='1'\nexport GROUP_RANK='1'\nexport JAX_COORDINATOR_ADDRESS='node-a:29500'\nexport JAX_NUM_PROCESSES='4'\nexport JAX_PROCESS_ID='3'\n",
	  "", CR_OK },
	{ "torchrun-tf_config-refuses",
	  "", { TR }, NULL, { "resolve" },
	  "",
	  "format 'tf_config' needs every task's address: resolver 'torch-env' (torchrun) gave the addresses of 1 of the 4 tasks of job 'worker', not the others' (use --format torch, torchrun, jax, env or json)", CR_ERR_BACKEND },
	{ "torchrun-hostfile-refuses",
	  "", { TR }, NULL, { "resolve", "--format", "hostfile" },
	  "",
	  "format 'hostfile' needs every task's address: resolver 'torch-env' (torchrun) gave the addresses of 1 of the 4 tasks of job 'worker', not the others' (use --format torch, torchrun, jax, env or json)", CR_ERR_BACKEND },
	{ "torchrun-horovod-refuses",
	  "", { TR }, NULL, { "resolve", "--format", "horovod" },
	  "",
	  "format 'horovod' needs every task's address: resolver 'torch-env' (torchrun) gave the addresses of 1 of the 4 tasks of job 'worker', not the others' (use --format torch, torchrun, jax, env or json)", CR_ERR_BACKEND },
	{ "torchrun-hosts-refuses",
	  "", { TR }, NULL, { "resolve", "--format", "hosts" },
	  "",
	  "format 'hosts' needs every task's address: resolver 'torch-env' (torchrun) gave the addresses of 1 of the 4 tasks of job 'worker', not the others' (use --format torch, torchrun, jax, env or json)", CR_ERR_BACKEND },
	{ "torchrun-clusterdef-refuses",
	  "", { TR }, NULL, { "resolve", "--format", "clusterdef" },
	  "",
	  "format 'clusterdef' needs every task's address: resolver 'torch-env' (torchrun) gave the addresses of 1 of the 4 tasks of job 'worker', not the others' (use --format torch, torchrun, jax, env or json)", CR_ERR_BACKEND },
	{ "torchrun-rank0-ipv6",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=0", "WORLD_SIZE=4", "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=0", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=fd00::1", "MASTER_PORT=29500", "TORCHELASTIC_RESTART_COUNT=0" }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"[fd00::1]:29500\", null, null, null]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"master\": \"[fd00::1]:29500\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "torchrun-master",
	  "", { TR }, NULL, { "master" },
	  "",
	  "the address of task 'worker' 3 is unknown (resolver 'torch-env' (torchrun) gave only its coordinator's)", CR_ERR_NOT_FOUND },
	{ "torchrun-rank-not-below-size",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=4", "WORLD_SIZE=4", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=1", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=node-a", "MASTER_PORT=29500", "TORCHELASTIC_RESTART_COUNT=0" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "torchrun: RANK=4 is not below WORLD_SIZE=4", CR_ERR_PARSE },
	{ "torchrun-local-rank-not-below",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=2", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=1", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=node-a", "MASTER_PORT=29500", "TORCHELASTIC_RESTART_COUNT=0" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "torchrun: LOCAL_RANK=2 is not below LOCAL_WORLD_SIZE=2", CR_ERR_PARSE },
	{ "torchrun-group-rank-not-below",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=2", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=node-a", "MASTER_PORT=29500", "TORCHELASTIC_RESTART_COUNT=0" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "torchrun: GROUP_RANK=2 is not below GROUP_WORLD_SIZE=2", CR_ERR_PARSE },
	{ "torchrun-role-rank-not-below",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=1", "GROUP_WORLD_SIZE=2", "ROLE_RANK=4", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=node-a", "MASTER_PORT=29500", "TORCHELASTIC_RESTART_COUNT=0" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "torchrun: ROLE_RANK=4 is not below ROLE_WORLD_SIZE=4", CR_ERR_PARSE },
	{ "torchrun-local-size-over-world",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=5", "GROUP_RANK=1", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=node-a", "MASTER_PORT=29500", "TORCHELASTIC_RESTART_COUNT=0" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "torchrun: LOCAL_WORLD_SIZE=5 is more than WORLD_SIZE=4", CR_ERR_PARSE },
	{ "torchrun-world-size-zero",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=3", "WORLD_SIZE=0", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=1", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=node-a", "MASTER_PORT=29500", "TORCHELASTIC_RESTART_COUNT=0" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "torchrun: WORLD_SIZE='0' is not a positive integer", CR_ERR_PARSE },
	{ "torchrun-rank-not-a-number",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=three", "WORLD_SIZE=4", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=1", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=node-a", "MASTER_PORT=29500", "TORCHELASTIC_RESTART_COUNT=0" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "torchrun: RANK='three' is not a non-negative integer", CR_ERR_PARSE },
	{ "torchrun-no-master-port",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=1", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=node-a", "TORCHELASTIC_RESTART_COUNT=0" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "torchrun sets MASTER_PORT, but MASTER_PORT is not set", CR_ERR_NOT_FOUND },
	{ "torchrun-port-too-big",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=1", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=node-a", "MASTER_PORT=70000", "TORCHELASTIC_RESTART_COUNT=0" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "torchrun: MASTER_PORT=70000 is not a port", CR_ERR_PARSE },
	{ "torchrun-bad-master-addr",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=1", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=a b", "MASTER_PORT=29500", "TORCHELASTIC_RESTART_COUNT=0" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "torchrun: MASTER_ADDR, MASTER_PORT give 'a b:29500', which is no HOST:PORT address", CR_ERR_PARSE },
	{ "torchrun-inside-pytorchjob",
	  "", { "TORCHELASTIC_RUN_ID=none", "RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "GROUP_RANK=1", "GROUP_WORLD_SIZE=2", "ROLE_RANK=3", "ROLE_WORLD_SIZE=4", "ROLE_NAME=default", "MASTER_ADDR=pj-master-0", "MASTER_PORT=29400", "PET_MASTER_ADDR=pj-master-0" }, NULL, { "resolve", "--format", "torch" },
	  "export MASTER_ADDR='pj-master-0'\nexport MASTER_PORT='29400'\nexport WORLD_SIZE='4'\nexport RANK='3'\nexport LOCAL_RANK='1'\nexport LOCAL_WORLD_SIZE='2'\nexport NODE_RANK='1'\nexport GROUP_RANK='1'\n",
	  "", CR_OK },
	{ "deepspeed-torch",
	  "", { DS }, NULL, { "resolve", "--format", "torch" },
	  "export MASTER_ADDR='worker-0'\nexport MASTER_PORT='29500'\nexport WORLD_SIZE='8'\nexport RANK='5'\nexport LOCAL_RANK='1'\nexport LOCAL_WORLD_SIZE='4'\nexport NODE_RANK='1'\nexport GROUP_RANK='1'\n",
	  "", CR_OK },
	{ "deepspeed-json",
	  "", { DS }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"worker-0:29500\", null, null, null, null, null, null, null]}, \"task\": {\"type\": \"worker\", \"index\": 5}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "deepspeed-cross-rank-not-below",
	  "", { "RANK=5", "LOCAL_RANK=1", "WORLD_SIZE=8", "LOCAL_SIZE=4", "CROSS_RANK=2", "CROSS_SIZE=2", "MASTER_ADDR=worker-0", "MASTER_PORT=29500" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "DeepSpeed launcher: CROSS_RANK=2 is not below CROSS_SIZE=2", CR_ERR_PARSE },
	{ "deepspeed-no-local-size",
	  "", { "RANK=5", "LOCAL_RANK=1", "WORLD_SIZE=8", "CROSS_RANK=1", "CROSS_SIZE=2", "MASTER_ADDR=worker-0", "MASTER_PORT=29500" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "DeepSpeed launcher sets LOCAL_SIZE, but LOCAL_SIZE is not set", CR_ERR_NOT_FOUND },
	{ "pytorchjob-one-process-a-pod",
	  "", { PJ1 }, NULL, { "resolve", "--format", "torch" },
	  "export MASTER_ADDR='pj-master-0'\nexport MASTER_PORT='23456'\nexport WORLD_SIZE='3'\nexport RANK='2'\nexport LOCAL_RANK='0'\nexport LOCAL_WORLD_SIZE='1'\nexport NODE_RANK='2'\nexport GROUP_RANK='2'\n",
	  "", CR_OK },
	{ "pytorchjob-one-process-json",
	  "", { PJ1 }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"pj-master-0:23456\", null, null]}, \"task\": {\"type\": \"worker\", \"index\": 2}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "pytorchjob-rank-is-pod-index",
	  "", { PJ4 }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"node\": [\"pj-master-0:23456\", null]}, \"task\": {\"type\": \"node\", \"index\": 1}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", CR_OK,
	  "warning: resolver 'torch-env': Kubeflow PyTorchJob: RANK=1 is this pod's index, not a process rank: WORLD_SIZE=8 counts the processes of 2 pods (PET_NNODES); this pod is node 1, where torchrun starts them\n" },
	{ "pytorchjob-node-torch-refuses",
	  "", { PJ4 }, NULL, { "resolve", "--format", "torch" },
	  "",
	  "format 'torch': no task in jobs chief, master, worker", CR_ERR_NOT_FOUND,
	  "warning: resolver 'torch-env': Kubeflow PyTorchJob: RANK=1 is this pod's index, not a process rank: WORLD_SIZE=8 counts the processes of 2 pods (PET_NNODES); this pod is node 1, where torchrun starts them\n" },
	{ "pytorchjob-elastic-nnodes",
	  "", { "MASTER_ADDR=pj-master-0", "MASTER_PORT=23456", "PET_MASTER_ADDR=pj-master-0", "PET_MASTER_PORT=23456", "WORLD_SIZE=8", "RANK=1", "PET_NODE_RANK=1", "PET_NNODES=1:4", "PET_NPROC_PER_NODE=4", "PYTHONUNBUFFERED=1" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "Kubeflow PyTorchJob: PET_NNODES='1:4' is elastic: RANK=1 is this pod's index and WORLD_SIZE=8 counts processes, so no process rank follows; run torchrun here and resolve in its workers", CR_ERR_PARSE },
	{ "pytorchjob-rank-not-below-nnodes",
	  "", { "MASTER_ADDR=pj-master-0", "MASTER_PORT=23456", "PET_MASTER_ADDR=pj-master-0", "PET_MASTER_PORT=23456", "WORLD_SIZE=3", "RANK=3", "PET_NODE_RANK=2", "PET_NNODES=3", "PYTHONUNBUFFERED=1" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "Kubeflow PyTorchJob: RANK=3 is not below PET_NNODES=3", CR_ERR_PARSE },
	{ "trainjob-node",
	  "", { TJ }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"node\": [\"tj-node-0-0.tj:29500\", null]}, \"task\": {\"type\": \"node\", \"index\": 1}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", CR_OK,
	  "warning: resolver 'torch-env': Kubeflow TrainJob: torchrun has not started here yet (PET_* set, TORCHELASTIC_RUN_ID not): this pod is node 1 of 2; its processes resolve as torchrun's workers\n" },
	{ "trainjob-tf_config-refuses",
	  "", { TJ }, NULL, { "resolve" },
	  "",
	  "format 'tf_config' needs every task's address: resolver 'torch-env' (Kubeflow TrainJob) gave the addresses of 1 of the 2 tasks of job 'node', not the others' (use --format torch, torchrun, jax, env or json)", CR_ERR_BACKEND,
	  "warning: resolver 'torch-env': Kubeflow TrainJob: torchrun has not started here yet (PET_* set, TORCHELASTIC_RUN_ID not): this pod is node 1 of 2; its processes resolve as torchrun's workers\n" },
	{ "trainjob-node-rank-not-below",
	  "", { "PET_NNODES=2", "PET_NPROC_PER_NODE=auto", "PET_NODE_RANK=2", "PET_MASTER_ADDR=tj-node-0-0.tj", "PET_MASTER_PORT=29500" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "Kubeflow TrainJob: PET_NODE_RANK=2 is not below PET_NNODES=2", CR_ERR_PARSE },
	{ "jaxjob-jax",
	  "", { JJ }, NULL, { "resolve", "--format", "jax" },
	  "export JAX_COORDINATOR_ADDRESS='jj-worker-0:6666'\nexport JAX_NUM_PROCESSES='2'\nexport JAX_PROCESS_ID='1'\n",
	  "", CR_OK },
	{ "jaxjob-json",
	  "", { JJ }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"jj-worker-0:6666\", null]}, \"task\": {\"type\": \"worker\", \"index\": 1}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "jaxjob-no-port",
	  "", { "COORDINATOR_ADDRESS=jj-worker-0", "NUM_PROCESSES=2", "PROCESS_ID=1" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "Kubeflow JAXJob sets COORDINATOR_PORT, but COORDINATOR_PORT is not set", CR_ERR_NOT_FOUND },
	{ "jaxjob-process-id-not-below",
	  "", { "COORDINATOR_ADDRESS=jj-worker-0", "COORDINATOR_PORT=6666", "NUM_PROCESSES=2", "PROCESS_ID=2" }, NULL, { "resolve", "--format", "json" },
	  "",
	  R "Kubeflow JAXJob: PROCESS_ID=2 is not below NUM_PROCESSES=2", CR_ERR_PARSE },
	{ "trainjob-jax",
	  "", { TJJ }, NULL, { "resolve", "--format", "jax" },
	  "export JAX_COORDINATOR_ADDRESS='tj-node-0-0.tj:29500'\nexport JAX_NUM_PROCESSES='4'\nexport JAX_PROCESS_ID='2'\n",
	  "", CR_OK },
	{ "trainjob-jax-torch",
	  "", { TJJ }, NULL, { "resolve", "--format", "torch" },
	  "export MASTER_ADDR='tj-node-0-0.tj'\nexport MASTER_PORT='29500'\nexport WORLD_SIZE='4'\nexport RANK='2'\nexport LOCAL_RANK='0'\nexport LOCAL_WORLD_SIZE='1'\nexport NODE_RANK='2'\nexport GROUP_RANK='2'\n",
	  "", CR_OK },
	{ "declines-outside-launchers",
	  "", { "RANK=1", "WORLD_SIZE=2", "MASTER_ADDR=a" }, NULL, { "probe" },
	  "",
	  "no torch launcher: TORCHELASTIC_RUN_ID (torchrun), CROSS_RANK and CROSS_SIZE (DeepSpeed), PET_MASTER_ADDR (Kubeflow), COORDINATOR_ADDRESS or JAX_COORDINATOR_ADDRESS (JAX) are not set", CR_DECLINED },
	{ "declines-one-cross-var",
	  "", { "CROSS_RANK=1" }, NULL, { "resolve", "--format", "json" },
	  "",
	  "no resolver applies here (declined: torch-env)", CR_DECLINED },
	{ "job-option",
	  "job = \"trainer\";", { TR }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"trainer\": [\"node-a:29500\", null, null, null]}, \"task\": {\"type\": \"trainer\", \"index\": 3}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", CR_OK },

	{ NULL },
};
/* clang-format on */

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("torch-env", "resolvers/torch-env.so", cases);
	return g_test_run();
}
