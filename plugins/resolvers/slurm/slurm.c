/* SPDX-License-Identifier: MIT */
/*
 * slurm.c - the slurm resolver: the cluster of a Slurm step from the
 * environment srun gives each task (tf-semantics §8 with the §14 fixes).
 *
 * Addresses are "node:port", the port counting up from port_base for the
 * tasks of one node (in rank order). Jobs take consecutive ranks in the order
 * the config writes them; this task's identity follows from SLURM_PROCID.
 * Nodes keep nodelist order; ranks go to nodes by Slurm's distribution
 * (slurm-layout.c); GPUs by Slurm's binding (slurm-gpu.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"

static const cr_option slurm_options[] = {
	CR_OPTION("jobs", CR_OPT_GROUP, NULL, 0,
		  "jobs and their task counts, in order: { ps = 1; worker = 3; } "
		  "(default: one worker job of every task)"),
	CR_OPTION("port_base", CR_OPT_INT, "8888", 0,
		  "port of the first task on each node; the next tasks count up"),
	CR_OPTION("tasks_per_node", CR_OPT_ANY, NULL, 0,
		  "tasks on every node (an integer) or per host ({ node1 = 2; }); "
		  "default: SLURM_STEP_TASKS_PER_NODE"),
	CR_OPTION("gpus_per_node", CR_OPT_INT, NULL, 0,
		  "GPUs of each node (default: what Slurm bound)"),
	CR_OPTION("gpus_per_task", CR_OPT_INT, NULL, 0,
		  "GPUs of each task (default: Slurm's binding, else GPUs / tasks per node)"),
	CR_OPTION("auto_set_gpu", CR_OPT_BOOL, "true", 0,
		  "give this task CUDA_VISIBLE_DEVICES for its own GPUs (exec)"),
	CR_OPTION("rpc_layer", CR_OPT_STRING, "grpc", 0, "RPC layer of the cluster"),
	CR_OPTIONS_END,
};

typedef struct slurm_state {
	slurm_config cfg;
} slurm_state;

static cr_status slurm_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	slurm_state *s = calloc(1, sizeof(*s));
	cr_status st;

	if (s == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "resolver 'slurm': out of memory");
	st = slurm_config_read(ctx, config, &s->cfg, err);
	if (st != CR_OK) {
		slurm_config_clear(&s->cfg);
		free(s);
		return st;
	}
	*state = s;
	return CR_OK;
}

static void slurm_destroy(void *state)
{
	slurm_state *s = state;

	if (s == NULL)
		return;
	slurm_config_clear(&s->cfg);
	free(s);
}

/* A task of a Slurm step? srun sets SLURM_STEP_ID (and the older
 * SLURM_STEPID) and the step's variables (SLURM_STEP_NODELIST: the ones
 * TensorFlow's resolver reads) in every task; the batch script of sbatch and the shell of
 * salloc have the job's variables but no step. Such a process is not a task:
 * the tasks that a launcher in it starts (srun, mpirun, torchrun) are, and
 * "task 0 of the job's N" would be a silent wrong answer for every one of
 * them (docs/launchers.md, "An allocation is not a task"). */
static cr_status slurm_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	const char *job = cr_host->getenv(ctx, "SLURM_JOB_ID");

	(void)state;
	if (cr_host->getenv(ctx, "SLURM_STEP_ID") != NULL ||
	    cr_host->getenv(ctx, "SLURM_STEPID") != NULL ||
	    cr_host->getenv(ctx, "SLURM_STEP_NODELIST") != NULL)
		return CR_OK;
	if (job == NULL)
		job = cr_host->getenv(ctx, "SLURM_JOBID");
	/* SLURM_PROCID with no job: a rank given by hand (TensorFlow's tests
	 * and its resolver's contract), the hosts in the config. */
	if (job == NULL && cr_host->getenv(ctx, "SLURM_PROCID") != NULL)
		return CR_OK;
	if (job == NULL)
		return cr_host->error_set(err, CR_DECLINED,
					  "not in a Slurm job: SLURM_STEP_ID, SLURM_PROCID and "
					  "SLURM_JOB_ID are unset");
	return cr_host->error_set(
		err, CR_DECLINED,
		"in Slurm job %.64s but not in a task of a step (SLURM_STEP_ID is "
		"unset: a batch script or an salloc shell, whose allocation is not "
		"a task); start the tasks with srun (srun cluster-resolver exec -- "
		"PROGRAM) or a launcher such as mpirun or torchrun",
		job);
}

/* This task's rank from SLURM_PROCID, checked; -1 when unset. */
static cr_status slurm_rank(cr_plugin_ctx *ctx, const slurm_config *cfg, const slurm_env *env,
			    const slurm_layout *lay, long *rank, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, "SLURM_PROCID");
	const char *var, *value;
	uint32_t r;
	cr_status st;

	*rank = -1;
	if (v == NULL)
		return CR_OK;
	st = slurm_parse_uint("SLURM_PROCID", v, &r, err);
	if (st != CR_OK)
		return st;
	slurm_tpn_origin(cfg, env, &var, &value);
	if (r >= lay->n_tasks)
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"SLURM_PROCID \"%s\" is not below the %zu tasks of %s \"%s\"", v,
			lay->n_tasks, var, value);
	*rank = (long)r;
	return CR_OK;
}

/* Cross-checks between the variables, where they are all Slurm's own. */

/* SLURM_LOCALID, when set, is the task's place among those of its node:
 * the layout's own (@local of @node), or the environment contradicts it. */
static cr_status slurm_check_localid(cr_plugin_ctx *ctx, const slurm_layout *lay, uint32_t node,
				     uint32_t local, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, "SLURM_LOCALID");
	uint32_t id;
	cr_status st;

	if (v == NULL)
		return CR_OK;
	st = slurm_parse_uint("SLURM_LOCALID", v, &id, err);
	if (st == CR_OK && id != local)
		st = cr_host->error_set(err, CR_ERR_BACKEND,
					"SLURM_LOCALID \"%s\" disagrees with SLURM_PROCID \"%s\", "
					"task %u of %s by the %s layout",
					v, cr_host->getenv(ctx, "SLURM_PROCID"), local,
					slurm_host(lay, node), lay->dist);
	return st;
}

static cr_status slurm_check(cr_plugin_ctx *ctx, const slurm_config *cfg, const slurm_env *env,
			     const slurm_layout *lay, long rank, cr_error *err)
{
	uint32_t n;
	cr_status st;

	if (cfg->tpn_source != SLURM_TPN_ENV)
		return CR_OK;
	if (env->ntasks != NULL) {
		st = slurm_parse_uint(env->ntasks_var, env->ntasks, &n, err);
		if (st != CR_OK)
			return st;
		if (n != lay->n_tasks)
			return cr_host->error_set(err, CR_ERR_BACKEND,
						  "%s \"%s\" disagrees with %s \"%s\" (%zu tasks)",
						  env->ntasks_var, env->ntasks, env->tpn_var,
						  env->tpn, lay->n_tasks);
	}
	if (env->in_step && rank >= 0 && lay->local_node >= 0) {
		uint32_t node, local;

		slurm_locate(lay, (size_t)rank, &node, &local);
		if (node != (uint32_t)lay->local_node)
			return cr_host->error_set(
				err, CR_ERR_BACKEND,
				"SLURM_PROCID \"%s\" runs on %s by the %s layout, but this "
				"is %s",
				cr_host->getenv(ctx, "SLURM_PROCID"), slurm_host(lay, node),
				lay->dist, slurm_host(lay, (size_t)lay->local_node));
		st = slurm_check_localid(ctx, lay, node, local, err);
		if (st != CR_OK)
			return st;
	}
	return CR_OK;
}

static cr_status slurm_check_jobs(const slurm_config *cfg, const slurm_env *env,
				  const slurm_layout *lay, cr_error *err)
{
	const char *var, *value;
	uint64_t sum = 0;

	slurm_tpn_origin(cfg, env, &var, &value);
	for (size_t j = 0; j < cfg->n_jobs; j++)
		sum += cfg->jobs[j].count;
	if (cfg->n_jobs > 0 && sum != lay->n_tasks)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "jobs ask for %llu tasks, but %s \"%s\" "
					  "gives %zu",
					  (unsigned long long)sum, var, value, lay->n_tasks);
	if (cfg->port_base + lay->max_tpn - 1 > 65535)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "port_base %lld + %u tasks on a node "
					  "passes port 65535",
					  (long long)cfg->port_base, lay->max_tpn);
	return CR_OK;
}

/* ":port" of each local index, written once: a node's tasks differ only
 * in it (snprintf per task was a third of a 16,384-node step). */
typedef struct slurm_ports {
	char (*text)[8]; /* ":65535" */
	uint8_t *len;
} slurm_ports;

static cr_status slurm_ports_make(const slurm_config *cfg, const slurm_layout *lay, slurm_ports *p,
				  cr_error *err)
{
	p->text = calloc(lay->max_tpn, sizeof(*p->text));
	p->len = malloc(lay->max_tpn);
	if (p->text == NULL || p->len == NULL)
		return slurm_nomem(err);
	for (uint32_t k = 0; k < lay->max_tpn; k++)
		p->len[k] = (uint8_t)snprintf(p->text[k], sizeof(p->text[k]), ":%u",
					      (unsigned)(cfg->port_base + k));
	return CR_OK;
}

static void slurm_ports_clear(slurm_ports *p)
{
	free(p->text);
	free(p->len);
}

/* One job: its tasks are the next @count ranks. */
static cr_status slurm_emit_job(const slurm_layout *lay, const slurm_ports *ports,
				const slurm_gpus *gpus, const char *job, size_t start, size_t count,
				long rank, cr_result_builder *b, cr_error *err)
{
	cr_status st = cr_host->result_add_job(b, job, err);
	char *addr = NULL;
	size_t cap = 0;
	slurm_cursor c;

	slurm_cursor_init(lay, &c, start);
	for (size_t i = 0; st == CR_OK && i < count; i++, slurm_cursor_next(lay, &c)) {
		size_t r = start + i;
		uint32_t node = c.node, local = c.local;
		size_t len = slurm_host_len(lay, node);

		if (len + 8 > cap) {
			free(addr);
			cap = (len + 8) * 2;
			if ((addr = malloc(cap)) == NULL)
				return slurm_nomem(err);
		}
		memcpy(addr, slurm_host(lay, node), len);
		memcpy(addr + len, ports->text[local], 8);
		st = cr_host->result_append_task(b, job, addr, err);
		if (st == CR_OK && gpus->known)
			st = cr_host->result_set_task_accelerators(b, job, (int64_t)i, "GPU",
								   gpus->per_task, err);
		if (st == CR_OK && (long)r == rank)
			st = cr_host->result_set_task(b, job, (int64_t)i, err);
	}
	free(addr);
	return st;
}

static cr_status slurm_emit(const slurm_config *cfg, const slurm_layout *lay,
			    const slurm_gpus *gpus, long rank, cr_result_builder *b, cr_error *err)
{
	size_t start = 0;
	slurm_ports ports = { NULL, NULL };
	cr_status st = slurm_ports_make(cfg, lay, &ports, err);

	if (st == CR_OK && cfg->n_jobs == 0)
		st = slurm_emit_job(lay, &ports, gpus, "worker", 0, lay->n_tasks, rank, b, err);
	for (size_t j = 0; st == CR_OK && j < cfg->n_jobs; j++) {
		st = slurm_emit_job(lay, &ports, gpus, cfg->jobs[j].name, start, cfg->jobs[j].count,
				    rank, b, err);
		start += cfg->jobs[j].count;
	}
	slurm_ports_clear(&ports);
	if (st == CR_OK && cfg->rpc_layer != NULL && cfg->rpc_layer[0] != '\0')
		st = cr_host->result_set_rpc_layer(b, cfg->rpc_layer, err);
	if (st == CR_OK && cfg->auto_set_gpu && gpus->mine != NULL)
		st = cr_host->result_set_env(b, "CUDA_VISIBLE_DEVICES", gpus->mine, err);
	return st;
}

static cr_status slurm_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	slurm_state *s = state;
	slurm_env env;
	slurm_layout lay;
	slurm_gpus gpus = { false, 0, NULL };
	long rank = -1;
	cr_status st;

	slurm_env_read(ctx, &env);
	st = slurm_layout_build(ctx, &s->cfg, &env, &lay, err);
	if (st == CR_OK)
		st = slurm_rank(ctx, &s->cfg, &env, &lay, &rank, err);
	if (st == CR_OK)
		st = slurm_check(ctx, &s->cfg, &env, &lay, rank, err);
	if (st == CR_OK)
		st = slurm_check_jobs(&s->cfg, &env, &lay, err);
	if (st == CR_OK)
		st = slurm_gpus_resolve(ctx, &s->cfg, &lay, rank, &gpus, err);
	if (st == CR_OK)
		st = slurm_emit(&s->cfg, &lay, &gpus, rank, b, err);
	slurm_gpus_clear(&gpus);
	slurm_layout_clear(&lay);
	return st;
}

static const cr_resolver_ops slurm_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = slurm_create,
	.destroy = slurm_destroy,
	.probe = slurm_probe,
	.resolve = slurm_resolve,
	.master = NULL,
};

static const cr_plugin_desc slurm_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "slurm",
	.version = "1.0.0",
	.description = "tasks of a Slurm step (srun) or job, from its environment",
	.options = slurm_options,
	.option_size = sizeof(cr_option),
	.resolver = &slurm_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(slurm_desc)
