/* SPDX-License-Identifier: MIT */
/*
 * torch_env.c - torch-env.so: a process that a torch or JAX launcher has
 * already placed (te_sources.c names them). Such a launcher tells a process
 * the size of its world, its own rank and the coordinator's address, never
 * its peers' addresses: the result is "SIZE tasks of JOB, this one INDEX,
 * task 0 at MASTER_ADDR:MASTER_PORT, the others unknown"
 * (host->result_set_job_size), with this task's node and local rank
 * (host->result_set_task_place). The formats that need only that (torch,
 * torchrun, jax, env, json) work; those that need every address refuse,
 * naming the launcher.
 *
 * DECLINED when no launcher's variables are there; an error when they
 * contradict each other (RANK not below WORLD_SIZE, ...), naming them.
 */
#include <string.h>

#include <cluster-resolver/plugin.h>

#include "torch_env.h"

static cr_status te_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");

	if (job == NULL || *job == '\0' || strcmp(job, "node") == 0)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: job must be a job name other than 'node' (the "
					  "job of a pod where torchrun is about to run)",
					  cr_host->cfg_file(config), cr_host->cfg_line(config));
	*state = ctx;
	return CR_OK;
}

static void te_destroy(void *state)
{
	(void)state;
}

static cr_status te_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	te_world w;
	cr_status st;

	(void)state;
	st = te_detect(ctx, cr_host->opt_string(ctx, "job"), &w, err);
	/* A launcher is there: whether its variables hold is resolve's to say. */
	return st == CR_DECLINED ? st : CR_OK;
}

/* `explain`: the launcher, the variables read and what they said. */
static void te_facts(cr_result_builder *b, cr_plugin_ctx *ctx, const te_world *w)
{
	static const char *const extra[] = { "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT",
					     "ROLE_NAME", NULL };

	cr_host->result_set_fact_string(b, "launcher", w->launcher, NULL);
	cr_host->result_set_fact_string(b, "variables", w->vars, NULL);
	cr_host->result_set_fact_string(b, "coordinator", w->coord, NULL);
	for (size_t i = 0; extra[i] != NULL; i++)
		if (te_has(ctx, extra[i]) && strcmp(w->launcher, "torchrun") == 0)
			cr_host->result_set_fact_string(b, extra[i], cr_host->getenv(ctx, extra[i]),
							NULL);
	if (w->note[0] != '\0')
		cr_host->result_set_fact_string(b, "note", w->note, NULL);
}

static cr_status te_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	te_world w;
	cr_status st;

	(void)state;
	st = te_detect(ctx, cr_host->opt_string(ctx, "job"), &w, err);
	if (st != CR_OK)
		return st;
	te_facts(b, ctx, &w);
	if (w.note[0] != '\0')
		cr_host->log(ctx, CR_LOG_WARNING, "%s: %s", w.launcher, w.note);
	st = cr_host->result_set_job_size(b, w.job, w.size, w.launcher, err);
	if (st == CR_OK && cr_host->result_add_task(b, w.job, 0, w.coord, NULL) != CR_OK)
		st = cr_host->error_set(err, CR_ERR_PARSE,
					"%s: %s give '%s', which is no HOST:PORT address",
					w.launcher, w.coord_vars, w.coord);
	if (st == CR_OK)
		st = cr_host->result_set_task(b, w.job, w.index, err);
	if (st == CR_OK)
		st = cr_host->result_set_task_place(b, w.node_rank, w.num_nodes, w.local_rank,
						    w.local_size, err);
	return st;
}

static const cr_option te_options[] = {
	CR_OPTION("job", CR_OPT_STRING, "worker", 0,
		  "the job of the launcher's processes (a pod where torchrun is about to run is "
		  "a task of job 'node')"),
	CR_OPTIONS_END,
};

static const cr_resolver_ops te_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = te_create,
	.destroy = te_destroy,
	.probe = te_probe,
	.resolve = te_resolve,
	.master = NULL,
};

static const cr_plugin_desc te_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "torch-env",
	.version = CR_VERSION_STRING,
	.description = "a process placed by torchrun, Kubeflow (PyTorchJob, TrainJob, JAXJob) "
		       "or the DeepSpeed launcher: its rank, world size and coordinator",
	.options = te_options,
	.option_size = sizeof(cr_option),
	.resolver = &te_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(te_desc)
