/* SPDX-License-Identifier: MIT */
/*
 * pbs.c - pbs.so: a task of a PBS Professional, OpenPBS or Torque job.
 * PBS describes the allocation: PBS_NODEFILE lists one host a line, one
 * line a slot (a vnode entry), in node order; PBS_NODENUM is the index of
 * the node whose MoM started this process (0: the mother superior);
 * Torque's pbsdsh also sets PBS_VNODENUM, the slot (the node file's line)
 * of a task. The cluster: one job (`job`) with, per host in first-appearance
 * order, `tasks_per_host` tasks (1 by default, one a node as TensorFlow's
 * resolvers; `per_slot` for one a line), "host:port_base+i".
 *
 * This process's task: with one task a node, its node (PBS_NODENUM; the job
 * script is on node 0, the only process there); with one a slot, Torque's
 * PBS_VNODENUM. Anything else has no rank from PBS (OpenPBS sets no slot
 * variable): it declines, saying what would place it (mpirun through the
 * mpi resolver, Torque's pbsdsh), never "task 0". (Not --task-id: a
 * resolver cannot see it, and it would not stop this decline.)
 *
 * GPUs: Torque's PBS_GPUFILE lists a job's GPUs, "host-gpuN" a line; each
 * task of a host gets an equal share of that host's (a share that does not
 * divide is an error naming the host).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

#include "alloc.h"
#include "launchers.h"

/* PBS_NODEFILE: a host a line (a slot), blank lines and `#` comments
 * skipped, blanks trimmed. */
static cr_status pbs_read_nodefile(cr_plugin_ctx *ctx, launch_alloc *h, const char **path,
				   cr_error *err)
{
	*path = cr_host->getenv(ctx, "PBS_NODEFILE");
	if (*path == NULL || **path == '\0')
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"PBS: PBS_NODEFILE is not set (PBS sets it in every job)");
	return launch_alloc_read_file(ctx, "PBS", *path, LAUNCH_HOST_A_LINE, 0, h, err);
}

/* PBS_GPUFILE ("host-gpuN" lines) as a count a host of @h, in *@gpus
 * (h->n entries, the caller's to free); *@gpus NULL when unset. */
static cr_status pbs_read_gpufile(cr_plugin_ctx *ctx, const launch_alloc *h, uint64_t **gpus,
				  cr_error *err)
{
	const char *path = cr_host->getenv(ctx, "PBS_GPUFILE");
	launch_alloc g;
	cr_status st;

	*gpus = NULL;
	if (path == NULL || *path == '\0')
		return CR_OK;
	launch_alloc_init(&g);
	st = launch_alloc_read_file(ctx, "PBS", path, LAUNCH_HOST_A_LINE, 0, &g, err);
	if (st == CR_OK && (*gpus = calloc(h->n, sizeof(**gpus))) == NULL)
		st = cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	for (size_t i = 0; st == CR_OK && i < g.n; i++) {
		char *dash = strrchr(g.host[i], '-');
		uint64_t idx;
		long host;

		if (dash == NULL || strncmp(dash, "-gpu", 4) != 0 ||
		    !launch_decimal(dash + 4, 65535, &idx)) {
			st = cr_host->error_set(err, CR_ERR_PARSE,
						"PBS: %s: \"%s\" is not \"host-gpuN\"", path,
						g.host[i]);
			break;
		}
		*dash = '\0';
		host = launch_alloc_find(h, g.host[i]);
		if (host < 0)
			st = cr_host->error_set(err, CR_ERR_PARSE,
						"PBS: %s: host \"%s\" is not in PBS_NODEFILE", path,
						g.host[i]);
		else
			(*gpus)[host]++;
	}
	launch_alloc_clear(&g);
	if (st != CR_OK) {
		free(*gpus);
		*gpus = NULL;
	}
	return st;
}

/* Each task's share of its host's GPUs. */
static cr_status pbs_set_gpus(cr_result_builder *b, const launch_alloc *h, const uint64_t *gpus,
			      const char *job, int64_t tph, bool per_slot, cr_error *err)
{
	cr_status st = CR_OK;

	for (size_t i = 0; st == CR_OK && i < h->n; i++) {
		int64_t k = per_slot ? (int64_t)h->slots[i] : tph;
		int64_t first = launch_alloc_first_task(h, i, tph, per_slot);

		if (gpus[i] % (uint64_t)k != 0)
			return cr_host->error_set(
				err, CR_ERR_BACKEND,
				"PBS: PBS_GPUFILE gives %s %llu GPUs, no equal share "
				"for its %lld tasks",
				h->host[i], (unsigned long long)gpus[i], (long long)k);
		for (int64_t t = 0; st == CR_OK && t < k; t++)
			st = cr_host->result_set_task_accelerators(
				b, job, first + t, "GPU", (int64_t)(gpus[i] / (uint64_t)k), err);
	}
	return st;
}

/* @var as a decimal below 2^31: 1, 0 when unset, -1 after an error. */
static int pbs_uint(cr_plugin_ctx *ctx, const char *var, int64_t *out, cr_status *st, cr_error *err)
{
	return launch_env_uint(ctx, "PBS", var, out, st, err);
}

static cr_status pbs_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");

	if (job == NULL || *job == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: job must not be empty",
					  cr_host->cfg_file(config), cr_host->cfg_line(config));
	*state = ctx;
	return CR_OK;
}

static void pbs_destroy(void *state)
{
	(void)state;
}

static cr_status pbs_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	(void)state;
	if (cr_host->getenv(ctx, "PBS_JOBID") != NULL &&
	    cr_host->getenv(ctx, "PBS_ENVIRONMENT") != NULL)
		return CR_OK;
	return cr_host->error_set(err, CR_DECLINED,
				  "not in a PBS job: PBS_JOBID and PBS_ENVIRONMENT are not set");
}

/* This process's task, or -1 with a decline in @err. */
static cr_status pbs_rank(cr_plugin_ctx *ctx, const launch_alloc *h, bool per_slot, int64_t tph,
			  int64_t *rank, cr_error *err)
{
	int64_t node = 0, vnode = 0;
	cr_status st = CR_OK;
	int has_node = pbs_uint(ctx, "PBS_NODENUM", &node, &st, err);
	int has_vnode = has_node < 0 ? 0 : pbs_uint(ctx, "PBS_VNODENUM", &vnode, &st, err);

	if (has_node < 0 || has_vnode < 0)
		return st;
	if (has_node && (size_t)node >= h->n)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "PBS: PBS_NODENUM=%lld is not below the %zu hosts of "
					  "PBS_NODEFILE",
					  (long long)node, h->n);
	if (has_vnode && (size_t)vnode >= h->lines)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "PBS: PBS_VNODENUM=%lld is not below the %zu lines of "
					  "PBS_NODEFILE",
					  (long long)vnode, h->lines);
	if (per_slot && has_vnode) {
		*rank = vnode;
		return CR_OK;
	}
	if (!per_slot && tph == 1 && has_node) {
		*rank = node;
		return CR_OK;
	}
	return cr_host->error_set(
		err, CR_DECLINED,
		"in PBS job %.64s of %zu hosts, but PBS gives this process no rank among %s "
		"(%s): start the tasks with mpirun (the mpi resolver places each rank)%s",
		cr_host->getenv(ctx, "PBS_JOBID"), h->n,
		per_slot ? "the slots" : "several tasks a host",
		per_slot ? "PBS_VNODENUM is Torque's pbsdsh's only" : "tasks_per_host > 1",
		per_slot ? "" : " or, under Torque, with pbsdsh and per_slot = true");
}

static cr_status pbs_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job"), *path = NULL;
	bool per_slot = cr_host->opt_bool(ctx, "per_slot");
	int64_t tph = cr_host->opt_int(ctx, "tasks_per_host");
	int64_t base = cr_host->opt_int(ctx, "port_base"), rank = -1;
	launch_alloc h;
	uint64_t *gpus = NULL;
	cr_status st;

	(void)state;
	launch_alloc_init(&h);
	st = pbs_read_nodefile(ctx, &h, &path, err);
	if (st == CR_OK)
		st = pbs_rank(ctx, &h, per_slot, tph, &rank, err);
	if (st == CR_OK)
		st = pbs_read_gpufile(ctx, &h, &gpus, err);
	if (st == CR_OK) {
		cr_host->result_set_fact_string(b, "launcher", "PBS", NULL);
		cr_host->result_set_fact_string(b, "nodefile", path, NULL);
		/* The slot's task: a host's lines need not be adjacent, its tasks are. */
		rank = per_slot ? launch_alloc_line_task(&h, (size_t)rank)
				: launch_alloc_first_task(&h, (size_t)rank, tph, false);
		st = launch_alloc_emit(b, "PBS", &h, job, tph, per_slot, base, rank, err);
	}
	if (st == CR_OK && gpus != NULL)
		st = pbs_set_gpus(b, &h, gpus, job, tph, per_slot, err);
	free(gpus);
	launch_alloc_clear(&h);
	return st;
}

static const cr_option pbs_options[] = {
	LAUNCH_ALLOC_OPTIONS("one task a PBS_NODEFILE line (slot) instead of tasks_per_host"),
	CR_OPTIONS_END,
};

static const cr_resolver_ops pbs_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = pbs_create,
	.destroy = pbs_destroy,
	.probe = pbs_probe,
	.resolve = pbs_resolve,
	.master = NULL,
};

static const cr_plugin_desc pbs_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "pbs",
	.version = CR_VERSION_STRING,
	.description = "a task of a PBS Professional, OpenPBS or Torque job: the hosts of "
		       "PBS_NODEFILE, this node's place",
	.options = pbs_options,
	.option_size = sizeof(cr_option),
	.resolver = &pbs_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(pbs_desc)
