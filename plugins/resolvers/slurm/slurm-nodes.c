/* SPDX-License-Identifier: MIT */
/*
 * slurm-nodes.c - the nodes of a Slurm step, in Slurm's order, with the
 * number of tasks on each: from the nodelist and tasks-per-node variables
 * (or the config's fixed lists), streamed through host->hostlist_foreach.
 * slurm-layout.c then places the ranks on them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"

/* The nodelist streamed by host->hostlist_foreach into one buffer of
 * NUL-terminated names (not one allocation per node), sized once from the
 * node count Slurm gives and the first name's length (it grows only when
 * that count is missing or wrong). While every name has the first one's
 * length they lie @stride apart and need no pointer each; the first name of
 * another length starts the pointer array. */
typedef struct slurm_names {
	char *buf;
	size_t len, cap;
	size_t stride;      /* the first name's length + 1 */
	const char **hosts; /* NULL, or into buf with room for one more (the end) */
	size_t n, cap_n;
	size_t hint; /* nodes expected, or 0 */
	size_t keep; /* names kept at most (the tasks-per-node count), or 0: all */
	size_t seen; /* names the list gives (past @keep only counted) */
	bool nomem;
} slurm_names;

/* Room in buf for a name of @need bytes; the pointers follow the buffer
 * when it moves. */
static bool slurm_names_grow(slurm_names *nm, size_t need)
{
	size_t cap;
	char *buf, *p;

	if (nm->cap == 0 && nm->hint > 0 && need < ((size_t)1 << 20))
		cap = nm->hint * (need + 8); /* numbers may grow a few digits */
	else
		cap = (nm->cap ? nm->cap * 2 : 4096) + need;
	buf = realloc(nm->buf, cap);
	if (buf == NULL)
		return false;
	p = buf;
	if (buf != nm->buf && nm->hosts != NULL)
		for (size_t i = 0; i < nm->n; i++) {
			nm->hosts[i] = p;
			p += strlen(p) + 1;
		}
	nm->buf = buf;
	nm->cap = cap;
	return true;
}

/* Room for one more pointer and the end; the first time, pointers to the
 * names so far (all @stride apart). */
static bool slurm_names_point(slurm_names *nm)
{
	size_t cap;
	const char **hosts;

	if (nm->n + 1 < nm->cap_n)
		return true;
	cap = nm->cap_n ? nm->cap_n * 2 : (nm->hint > nm->n ? nm->hint : nm->n * 2) + 2;
	hosts = realloc(nm->hosts, cap * sizeof(*hosts));
	if (hosts == NULL)
		return false;
	if (nm->hosts == NULL)
		for (size_t i = 0; i < nm->n; i++)
			hosts[i] = nm->buf + i * nm->stride;
	nm->hosts = hosts;
	nm->cap_n = cap;
	return true;
}

static int slurm_names_add(const char *name, size_t len, void *data)
{
	slurm_names *nm = data;

	/* Past the count the tasks-per-node list gives, the names are only
	 * counted for the message (a 16M-node list against "1(x2)" is not
	 * copied first). */
	if (nm->keep > 0 && nm->seen++ >= nm->keep)
		return 0;
	if (nm->n == 0)
		nm->stride = len + 1;
	if (nm->len + len + 1 > nm->cap && !slurm_names_grow(nm, len + 1))
		return nm->nomem = true;
	if (nm->hosts != NULL || len + 1 != nm->stride) {
		if (!slurm_names_point(nm))
			return nm->nomem = true;
		nm->hosts[nm->n] = nm->buf + nm->len;
	}
	nm->n++;
	memcpy(nm->buf + nm->len, name, len + 1);
	nm->len += len + 1;
	return 0;
}

/* The number of nodes Slurm says the list has, or 0. Only a size hint. */
static size_t slurm_nodes_hint(cr_plugin_ctx *ctx, const slurm_env *env)
{
	const char *v =
		cr_host->getenv(ctx, env->in_step ? "SLURM_STEP_NUM_NODES" : "SLURM_JOB_NUM_NODES");
	uint32_t n = 0;

	if (v == NULL && !env->in_step)
		v = cr_host->getenv(ctx, "SLURM_NNODES");
	if (v == NULL || slurm_parse_uint("", v, &n, NULL) != CR_OK || n > (1u << 24))
		return 0;
	return n;
}

/* @keep: the node count of the tasks-per-node list (0: unknown); a longer
 * list is only counted past it, and lay->n_nodes is then its length while
 * only @keep names were kept (the caller reports the mismatch). */
static cr_status slurm_nodelist(cr_plugin_ctx *ctx, const slurm_env *env, size_t keep,
				slurm_layout *lay, cr_error *err)
{
	cr_error inner = CR_ERROR_INIT;
	slurm_names nm = { 0 };
	cr_status st = CR_OK;

	nm.hint = slurm_nodes_hint(ctx, env);
	nm.keep = keep;
	if (keep > 0 && (nm.hint == 0 || nm.hint > keep))
		nm.hint = keep;
	if (cr_host->hostlist_foreach(env->nodelist, slurm_names_add, &nm, &inner) != CR_OK)
		st = cr_host->error_set(err, CR_ERR_BACKEND, "%s: %s", env->nodelist_var,
					inner.message);
	else if (nm.nomem)
		st = slurm_nomem(err);
	else if (nm.n == 0)
		st = cr_host->error_set(err, CR_ERR_BACKEND, "%s \"%s\" names no node",
					env->nodelist_var, env->nodelist);
	if (st == CR_OK) {
		if (nm.hosts != NULL)
			nm.hosts[nm.n] = nm.buf + nm.len;
		lay->host_names = nm.buf;
		lay->hosts = nm.hosts;
		lay->stride = nm.stride;
		lay->n_nodes = nm.keep > 0 && nm.seen > nm.n ? nm.seen : nm.n;
	} else {
		free(nm.buf);
		free(nm.hosts);
	}
	return st;
}

/* The config's hosts (tasks_per_node = { ... }) copied the same way. */
static cr_status slurm_nodes_from_config(const slurm_config *cfg, slurm_layout *lay, cr_error *err)
{
	size_t total = 0;
	char *p;

	for (size_t i = 0; i < cfg->tpn_n; i++)
		total += strlen(cfg->tpn_hosts[i]) + 1;
	lay->host_names = malloc(total ? total : 1);
	lay->hosts = malloc((cfg->tpn_n + 1) * sizeof(*lay->hosts));
	lay->tpn = malloc((cfg->tpn_n ? cfg->tpn_n : 1) * sizeof(*lay->tpn));
	if (lay->host_names == NULL || lay->hosts == NULL || lay->tpn == NULL)
		return slurm_nomem(err);
	p = lay->host_names;
	for (size_t i = 0; i < cfg->tpn_n; i++) {
		size_t len = strlen(cfg->tpn_hosts[i]) + 1;

		lay->hosts[i] = p;
		memcpy(p, cfg->tpn_hosts[i], len);
		p += len;
	}
	lay->hosts[cfg->tpn_n] = p;
	lay->n_nodes = cfg->tpn_n;
	memcpy(lay->tpn, cfg->tpn_counts, cfg->tpn_n * sizeof(*lay->tpn));
	return CR_OK;
}

/* Hosts and tasks per node from the environment (or tasks_per_node = N). */
static cr_status slurm_nodes_from_env(cr_plugin_ctx *ctx, const slurm_config *cfg,
				      const slurm_env *env, slurm_layout *lay, cr_error *err)
{
	cr_error tpn_err = CR_ERROR_INIT;
	size_t n = 0;
	cr_status st, tpn_st = CR_OK;

	if (env->nodelist == NULL)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "%s is not set: not inside a Slurm job?",
					  env->nodelist_var);
	/* The tasks-per-node list first: its count bounds the names kept, so
	 * a mismatch is found without copying a huge nodelist. Its error
	 * still comes after the nodelist's. */
	if (cfg->tpn_source != SLURM_TPN_INT && env->tpn != NULL)
		tpn_st = cr_host->tasks_per_node_expand(env->tpn, &lay->host_tpn, &n, &tpn_err);
	st = slurm_nodelist(ctx, env, tpn_st == CR_OK ? n : 0, lay, err);
	if (st != CR_OK)
		return st;
	if (cfg->tpn_source == SLURM_TPN_INT) {
		lay->tpn = calloc(lay->n_nodes, sizeof(*lay->tpn));
		if (lay->tpn == NULL)
			return slurm_nomem(err);
		for (size_t i = 0; i < lay->n_nodes; i++)
			lay->tpn[i] = cfg->tpn_int;
		return CR_OK;
	}
	if (env->tpn == NULL)
		return cr_host->error_set(err, CR_ERR_BACKEND, "%s is not set (%s is \"%s\")",
					  env->tpn_var, env->nodelist_var, env->nodelist);
	if (tpn_st != CR_OK)
		return cr_host->error_set(err, CR_ERR_BACKEND, "%s: %s", env->tpn_var,
					  tpn_err.message);
	lay->tpn = lay->host_tpn;
	if (n != lay->n_nodes) {
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "%s \"%s\" names %zu nodes but %s \"%s\" counts tasks "
					  "for %zu",
					  env->nodelist_var, env->nodelist, lay->n_nodes,
					  env->tpn_var, env->tpn, n);
	}
	return CR_OK;
}

void slurm_tpn_origin(const slurm_config *cfg, const slurm_env *env, const char **var,
		      const char **value)
{
	bool from_env = cfg->tpn_source == SLURM_TPN_ENV;

	*var = from_env ? env->tpn_var : "tasks_per_node";
	*value = from_env ? env->tpn : "(config)";
}

cr_status slurm_nodes(cr_plugin_ctx *ctx, const slurm_config *cfg, const slurm_env *env,
		      slurm_layout *lay, cr_error *err)
{
	cr_status st;

	if (cfg->tpn_source == SLURM_TPN_GROUP)
		st = slurm_nodes_from_config(cfg, lay, err);
	else
		st = slurm_nodes_from_env(ctx, cfg, env, lay, err);
	if (st != CR_OK)
		return st;
	lay->uniform = true;
	for (size_t i = 0; i < lay->n_nodes; i++) {
		lay->n_tasks += lay->tpn[i];
		if (lay->tpn[i] > lay->max_tpn)
			lay->max_tpn = lay->tpn[i];
		lay->uniform = lay->uniform && lay->tpn[i] == lay->tpn[0];
	}
	if (lay->n_tasks > (1u << 24))
		return cr_host->error_set(err, CR_ERR_BACKEND, "%zu tasks: more than %u",
					  lay->n_tasks, 1u << 24);
	if (lay->n_tasks == 0) {
		const char *var, *value;

		slurm_tpn_origin(cfg, env, &var, &value);
		return cr_host->error_set(err, CR_ERR_BACKEND, "%s \"%s\" gives no task", var,
					  value);
	}
	return CR_OK;
}
