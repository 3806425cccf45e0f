/* SPDX-License-Identifier: MIT */
/*
 * te_sources.c - each launcher that places a torch or JAX process, the
 * variables it sets (../shared/reference/launchers.md §1a, §1b, §4e, §4g)
 * and the world they describe. The first whose presence test holds (two
 * variables of its own) wins, innermost first: torchrun's workers run
 * inside Kubeflow's pods, whose PET_* variables they inherit.
 *
 *   torchrun            TORCHELASTIC_RUN_ID: RANK of WORLD_SIZE, LOCAL_RANK of
 *                       LOCAL_WORLD_SIZE, GROUP_RANK of GROUP_WORLD_SIZE,
 *                       MASTER_ADDR:MASTER_PORT
 *   DeepSpeed launcher  CROSS_RANK + CROSS_SIZE (node rank, nodes), RANK,
 *                       WORLD_SIZE, LOCAL_RANK, LOCAL_SIZE, MASTER_ADDR/PORT
 *   Kubeflow PyTorchJob MASTER_ADDR + PET_MASTER_ADDR: RANK is the pod's
 *                       index, WORLD_SIZE counts processes; the same only
 *                       with one process a pod, else the pod is a node
 *   Kubeflow TrainJob   PET_MASTER_ADDR + PET_NNODES without MASTER_ADDR: a
 *                       node where torchrun is about to run
 *   Kubeflow JAXJob     COORDINATOR_ADDRESS + NUM_PROCESSES, PROCESS_ID,
 *                       COORDINATOR_PORT
 *   TrainJob (JAX)      JAX_COORDINATOR_ADDRESS + JAX_NUM_PROCESSES,
 *                       JAX_PROCESS_ID
 */
#include <stdio.h>
#include <string.h>

#include "torch_env.h"

/* Task 0's address from a host and a port variable; an IPv6 literal is
 * bracketed. */
static cr_status te_coord(cr_plugin_ctx *ctx, te_world *w, const char *host_var,
			  const char *port_var, cr_error *err)
{
	const char *host = NULL;
	int64_t port = 0;
	cr_status st = te_str(ctx, w->launcher, host_var, &host, err);

	if (st == CR_OK)
		st = te_int(ctx, w->launcher, port_var, 1, &port, err);
	if (st == CR_OK && port > 65535)
		st = cr_host->error_set(err, CR_ERR_PARSE, "%s: %s=%lld is not a port", w->launcher,
					port_var, (long long)port);
	if (st != CR_OK)
		return st;
	snprintf(w->coord, sizeof(w->coord),
		 strchr(host, ':') != NULL && host[0] != '[' ? "[%s]:%lld" : "%s:%lld", host,
		 (long long)port);
	return CR_OK;
}

/* A rank and its size, checked: rank < size, size >= 1. */
static cr_status te_pair(cr_plugin_ctx *ctx, const char *src, const char *rank_var,
			 const char *size_var, int64_t *rank, int64_t *size, cr_error *err)
{
	cr_status st = te_int(ctx, src, size_var, 1, size, err);

	if (st == CR_OK)
		st = te_int(ctx, src, rank_var, 0, rank, err);
	if (st == CR_OK)
		st = te_below(src, rank_var, *rank, size_var, *size, err);
	return st;
}

static cr_status te_torchrun(cr_plugin_ctx *ctx, te_world *w, cr_error *err)
{
	const char *src = w->launcher = "torchrun";
	int64_t role_rank, role_size;
	cr_status st = te_pair(ctx, src, "RANK", "WORLD_SIZE", &w->index, &w->size, err);

	if (st == CR_OK)
		st = te_pair(ctx, src, "LOCAL_RANK", "LOCAL_WORLD_SIZE", &w->local_rank,
			     &w->local_size, err);
	if (st == CR_OK)
		st = te_pair(ctx, src, "GROUP_RANK", "GROUP_WORLD_SIZE", &w->node_rank,
			     &w->num_nodes, err);
	if (st == CR_OK && te_has(ctx, "ROLE_WORLD_SIZE"))
		st = te_pair(ctx, src, "ROLE_RANK", "ROLE_WORLD_SIZE", &role_rank, &role_size, err);
	if (st == CR_OK)
		st = te_not_over(src, "LOCAL_WORLD_SIZE", w->local_size, "WORLD_SIZE", w->size,
				 err);
	if (st == CR_OK)
		st = te_coord(ctx, w, "MASTER_ADDR", "MASTER_PORT", err);
	w->coord_vars = "MASTER_ADDR, MASTER_PORT";
	w->vars = "TORCHELASTIC_RUN_ID, RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, "
		  "GROUP_RANK, GROUP_WORLD_SIZE, MASTER_ADDR, MASTER_PORT";
	return st;
}

static cr_status te_deepspeed(cr_plugin_ctx *ctx, te_world *w, cr_error *err)
{
	const char *src = w->launcher = "DeepSpeed launcher";
	cr_status st = te_pair(ctx, src, "RANK", "WORLD_SIZE", &w->index, &w->size, err);

	if (st == CR_OK)
		st = te_pair(ctx, src, "LOCAL_RANK", "LOCAL_SIZE", &w->local_rank, &w->local_size,
			     err);
	if (st == CR_OK)
		st = te_pair(ctx, src, "CROSS_RANK", "CROSS_SIZE", &w->node_rank, &w->num_nodes,
			     err);
	if (st == CR_OK)
		st = te_not_over(src, "LOCAL_SIZE", w->local_size, "WORLD_SIZE", w->size, err);
	if (st == CR_OK)
		st = te_coord(ctx, w, "MASTER_ADDR", "MASTER_PORT", err);
	w->coord_vars = "MASTER_ADDR, MASTER_PORT";
	w->vars = "CROSS_RANK, CROSS_SIZE, RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_SIZE, MASTER_ADDR, "
		  "MASTER_PORT";
	return st;
}

/* A pod that is one node of @w->num_nodes: job "node", one task a node. */
static void te_as_node(te_world *w, int64_t node)
{
	w->job = "node";
	w->size = w->num_nodes;
	w->index = w->node_rank = node;
	w->local_rank = 0;
	w->local_size = 1;
}

/* Kubeflow Training Operator v1: RANK is the pod's index (master 0, worker
 * i+1), WORLD_SIZE = replicas x nprocPerNode. With one process a pod they
 * agree; else this pod is a node where torchrun will start the processes,
 * and saying "worker RANK of WORLD_SIZE" would be wrong. */
static cr_status te_pytorchjob(cr_plugin_ctx *ctx, te_world *w, cr_error *err)
{
	const char *src = w->launcher = "Kubeflow PyTorchJob", *nnodes = NULL;
	int64_t nproc = 1;
	cr_status st = te_int(ctx, src, "WORLD_SIZE", 1, &w->size, err);

	w->coord_vars = "MASTER_ADDR, MASTER_PORT";
	w->vars = "MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, PET_NNODES, PET_NPROC_PER_NODE";
	if (st == CR_OK)
		st = te_int(ctx, src, "RANK", 0, &w->index, err);
	if (st == CR_OK)
		st = te_str(ctx, src, "PET_NNODES", &nnodes, err);
	if (st == CR_OK && strchr(nnodes, ':') != NULL)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: PET_NNODES='%.40s' is elastic: RANK=%lld is this "
					  "pod's index and WORLD_SIZE=%lld counts processes, so "
					  "no process rank follows; run torchrun here and resolve "
					  "in its workers",
					  src, nnodes, (long long)w->index, (long long)w->size);
	if (st == CR_OK)
		st = te_int(ctx, src, "PET_NNODES", 1, &w->num_nodes, err);
	if (st == CR_OK && te_has(ctx, "PET_NPROC_PER_NODE") &&
	    strcmp(cr_host->getenv(ctx, "PET_NPROC_PER_NODE"), "auto") != 0)
		st = te_int(ctx, src, "PET_NPROC_PER_NODE", 1, &nproc, err);
	if (st == CR_OK)
		st = te_below(src, "RANK", w->index, "PET_NNODES", w->num_nodes, err);
	if (st == CR_OK)
		st = te_coord(ctx, w, "MASTER_ADDR", "MASTER_PORT", err);
	if (st != CR_OK)
		return st;
	if (w->size == w->num_nodes && nproc == 1) {
		w->node_rank = w->index;
		w->local_rank = 0;
		w->local_size = 1;
		return CR_OK;
	}
	snprintf(w->note, sizeof(w->note),
		 "RANK=%lld is this pod's index, not a process rank: WORLD_SIZE=%lld counts "
		 "the processes of %lld pods (PET_NNODES); this pod is node %lld, where "
		 "torchrun starts them",
		 (long long)w->index, (long long)w->size, (long long)w->num_nodes,
		 (long long)w->index);
	te_as_node(w, w->index);
	return CR_OK;
}

/* Kubeflow Trainer v2's torch runtime: only torchrun's own options. */
static cr_status te_trainjob(cr_plugin_ctx *ctx, te_world *w, cr_error *err)
{
	const char *src = w->launcher = "Kubeflow TrainJob";
	int64_t node = 0;
	cr_status st = te_pair(ctx, src, "PET_NODE_RANK", "PET_NNODES", &node, &w->num_nodes, err);

	w->coord_vars = "PET_MASTER_ADDR, PET_MASTER_PORT";
	w->vars = "PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR, PET_MASTER_PORT";
	if (st == CR_OK)
		st = te_coord(ctx, w, "PET_MASTER_ADDR", "PET_MASTER_PORT", err);
	if (st != CR_OK)
		return st;
	snprintf(w->note, sizeof(w->note),
		 "torchrun has not started here yet (PET_* set, TORCHELASTIC_RUN_ID not): this "
		 "pod is node %lld of %lld; its processes resolve as torchrun's workers",
		 (long long)node, (long long)w->num_nodes);
	te_as_node(w, node);
	return CR_OK;
}

/* JAX: one process a pod; the coordinator is task 0. */
static cr_status te_jax(cr_plugin_ctx *ctx, te_world *w, bool v2, cr_error *err)
{
	const char *src = w->launcher = v2 ? "Kubeflow TrainJob (JAX)" : "Kubeflow JAXJob";
	const char *addr = NULL;
	cr_status st =
		v2 ? te_pair(ctx, src, "JAX_PROCESS_ID", "JAX_NUM_PROCESSES", &w->index, &w->size,
			     err)
		   : te_pair(ctx, src, "PROCESS_ID", "NUM_PROCESSES", &w->index, &w->size, err);

	w->coord_vars = v2 ? "JAX_COORDINATOR_ADDRESS" : "COORDINATOR_ADDRESS, COORDINATOR_PORT";
	w->vars = v2 ? "JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID"
		     : "COORDINATOR_ADDRESS, COORDINATOR_PORT, NUM_PROCESSES, PROCESS_ID";
	if (st == CR_OK && v2)
		st = te_str(ctx, src, "JAX_COORDINATOR_ADDRESS", &addr, err);
	if (st == CR_OK && v2)
		snprintf(w->coord, sizeof(w->coord), "%s", addr);
	else if (st == CR_OK)
		st = te_coord(ctx, w, "COORDINATOR_ADDRESS", "COORDINATOR_PORT", err);
	w->node_rank = w->index;
	w->num_nodes = w->size;
	w->local_rank = 0;
	w->local_size = 1;
	return st;
}

cr_status te_detect(cr_plugin_ctx *ctx, const char *job, te_world *w, cr_error *err)
{
	memset(w, 0, sizeof(*w));
	w->job = job;
	if (te_has(ctx, "TORCHELASTIC_RUN_ID"))
		return te_torchrun(ctx, w, err);
	if (te_has(ctx, "CROSS_RANK") && te_has(ctx, "CROSS_SIZE"))
		return te_deepspeed(ctx, w, err);
	if (te_has(ctx, "PET_MASTER_ADDR") && te_has(ctx, "MASTER_ADDR"))
		return te_pytorchjob(ctx, w, err);
	if (te_has(ctx, "PET_MASTER_ADDR") && te_has(ctx, "PET_NNODES"))
		return te_trainjob(ctx, w, err);
	if (te_has(ctx, "COORDINATOR_ADDRESS") && te_has(ctx, "NUM_PROCESSES"))
		return te_jax(ctx, w, false, err);
	if (te_has(ctx, "JAX_COORDINATOR_ADDRESS") && te_has(ctx, "JAX_NUM_PROCESSES"))
		return te_jax(ctx, w, true, err);
	return cr_host->error_set(
		err, CR_DECLINED,
		"no torch launcher: TORCHELASTIC_RUN_ID (torchrun), CROSS_RANK "
		"and CROSS_SIZE (DeepSpeed), PET_MASTER_ADDR (Kubeflow), "
		"COORDINATOR_ADDRESS or JAX_COORDINATOR_ADDRESS (JAX) are not set");
}
