/* SPDX-License-Identifier: MIT */
/*
 * slurm-config.c - the slurm resolver's options, read and checked once.
 * The host has already checked the top-level types against the schema;
 * this file checks values and the nested `jobs` / `tasks_per_node` groups.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"

static cr_status slurm_cfg_error(cr_error *err, const cr_cfg *at, const char *fmt, ...)
	CR_PRINTF(3, 4);

/* "FILE:LINE: resolver 'slurm': WHY", the location of @at. */
static cr_status slurm_cfg_error(cr_error *err, const cr_cfg *at, const char *fmt, ...)
{
	char why[CR_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: resolver 'slurm': %s",
				  cr_host->cfg_file(at), cr_host->cfg_line(at), why);
}

/* An integer config value in [min, max]. */
static cr_status slurm_cfg_uint(const cr_cfg *v, const char *what, int64_t min, int64_t max,
				int64_t *out, cr_error *err)
{
	if (!cr_host->cfg_int(v, out))
		return slurm_cfg_error(err, v, "%s must be an integer", what);
	if (*out < min || *out > max)
		return slurm_cfg_error(err, v, "%s must be between %lld and %lld, not %lld", what,
				       (long long)min, (long long)max, (long long)*out);
	return CR_OK;
}

/* jobs = { ps = 1; worker = 3; }: names and counts in the order written. */
static cr_status slurm_read_jobs(const cr_cfg *jobs, slurm_config *cfg, cr_error *err)
{
	size_t n = cr_host->cfg_length(jobs);

	if (cr_host->cfg_type(jobs) != CR_CFG_GROUP)
		return slurm_cfg_error(err, jobs, "jobs must be a group: jobs = { worker = 4; }");
	if (n == 0)
		return slurm_cfg_error(err, jobs, "jobs is empty");
	cfg->jobs = calloc(n, sizeof(*cfg->jobs));
	if (cfg->jobs == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "resolver 'slurm': out of memory");
	for (size_t i = 0; i < n; i++) {
		const cr_cfg *job = cr_host->cfg_elem(jobs, i);
		char what[160];
		int64_t count;
		cr_status st;

		snprintf(what, sizeof(what), "jobs.%s", cr_host->cfg_name(job));
		st = slurm_cfg_uint(job, what, 0, UINT32_MAX, &count, err);
		if (st != CR_OK)
			return st;
		cfg->jobs[i].name = cr_host->cfg_name(job);
		cfg->jobs[i].count = (uint32_t)count;
		cfg->n_jobs++;
	}
	return CR_OK;
}

/* tasks_per_node = 2;  or  tasks_per_node = { t02n13 = 2; t02n41 = 1; }; */
static cr_status slurm_read_tpn(const cr_cfg *tpn, slurm_config *cfg, cr_error *err)
{
	cr_cfg_type type = cr_host->cfg_type(tpn);
	size_t n = cr_host->cfg_length(tpn);
	int64_t v;

	if (type == CR_CFG_INT || type == CR_CFG_INT64) {
		cr_status st = slurm_cfg_uint(tpn, "tasks_per_node", 1, UINT32_MAX, &v, err);

		cfg->tpn_source = SLURM_TPN_INT;
		cfg->tpn_int = (uint32_t)v;
		return st;
	}
	if (type != CR_CFG_GROUP)
		return slurm_cfg_error(err, tpn,
				       "tasks_per_node must be an integer or a group "
				       "of host = count");
	if (n == 0)
		return slurm_cfg_error(err, tpn, "tasks_per_node is empty");
	cfg->tpn_source = SLURM_TPN_GROUP;
	cfg->tpn_hosts = calloc(n, sizeof(*cfg->tpn_hosts));
	cfg->tpn_counts = calloc(n, sizeof(*cfg->tpn_counts));
	if (cfg->tpn_hosts == NULL || cfg->tpn_counts == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "resolver 'slurm': out of memory");
	for (size_t i = 0; i < n; i++) {
		const cr_cfg *host = cr_host->cfg_elem(tpn, i);
		char what[160];
		cr_status st;

		snprintf(what, sizeof(what), "tasks_per_node.%s", cr_host->cfg_name(host));
		st = slurm_cfg_uint(host, what, 0, UINT32_MAX, &v, err);
		if (st != CR_OK)
			return st;
		cfg->tpn_hosts[i] = cr_host->cfg_name(host);
		cfg->tpn_counts[i] = (uint32_t)v;
		cfg->tpn_n++;
	}
	return CR_OK;
}

/* An optional non-negative count option (gpus_per_node, gpus_per_task). */
static cr_status slurm_read_count(cr_plugin_ctx *ctx, const cr_cfg *config, const char *name,
				  bool *set, uint32_t *out, cr_error *err)
{
	const cr_cfg *v = cr_host->cfg_get(config, name);
	int64_t n;
	cr_status st;

	*set = false;
	if (v == NULL)
		return CR_OK;
	st = slurm_cfg_uint(v, name, 0, SLURM_GPUS_MAX, &n, err);
	if (st != CR_OK)
		return st;
	*set = true;
	*out = (uint32_t)n;
	return CR_OK;
}

cr_status slurm_config_read(cr_plugin_ctx *ctx, const cr_cfg *config, slurm_config *cfg,
			    cr_error *err)
{
	const cr_cfg *v;
	cr_status st;

	memset(cfg, 0, sizeof(*cfg));
	v = cr_host->cfg_get(config, "jobs");
	if (v != NULL && (st = slurm_read_jobs(v, cfg, err)) != CR_OK)
		return st;
	cfg->port_base = cr_host->opt_int(ctx, "port_base");
	v = cr_host->cfg_get(config, "port_base");
	if (cfg->port_base < 1 || cfg->port_base > 65535)
		return slurm_cfg_error(err, v, "port_base must be between 1 and 65535, not %lld",
				       (long long)cfg->port_base);
	v = cr_host->cfg_get(config, "tasks_per_node");
	if (v != NULL && (st = slurm_read_tpn(v, cfg, err)) != CR_OK)
		return st;
	st = slurm_read_count(ctx, config, "gpus_per_node", &cfg->gpn_set, &cfg->gpn, err);
	if (st != CR_OK)
		return st;
	st = slurm_read_count(ctx, config, "gpus_per_task", &cfg->gpt_set, &cfg->gpt, err);
	if (st != CR_OK)
		return st;
	cfg->auto_set_gpu = cr_host->opt_bool(ctx, "auto_set_gpu");
	cfg->rpc_layer = cr_host->opt_string(ctx, "rpc_layer");
	return CR_OK;
}

void slurm_config_clear(slurm_config *cfg)
{
	free(cfg->jobs);
	free(cfg->tpn_hosts);
	free(cfg->tpn_counts);
	memset(cfg, 0, sizeof(*cfg));
}
