/* SPDX-License-Identifier: MIT */
/*
 * skypilot.c - skypilot.so: a node of a SkyPilot cluster, in a task's run
 * section. SkyPilot gives every node the IPs of all nodes in rank order
 * (SKYPILOT_NODE_IPS, one a line), its own rank (SKYPILOT_NODE_RANK), the
 * number of nodes (SKYPILOT_NUM_NODES) and the GPUs of each node
 * (SKYPILOT_NUM_GPUS_PER_NODE; docs: "Environment variables"). The
 * cluster: one job (`job`, default worker) of one task a node,
 * "IP:port", this task the node's rank, its GPUs the node's.
 *
 * DECLINED without SKYPILOT_NODE_RANK or SKYPILOT_NODE_IPS; an error
 * naming the variables when they contradict each other (a rank not below
 * the number of nodes, a count that is not the number of IPs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

#include "launchers.h"

#define V_IPS "SKYPILOT_NODE_IPS"
#define V_RANK "SKYPILOT_NODE_RANK"
#define V_NUM "SKYPILOT_NUM_NODES"
#define V_GPUS "SKYPILOT_NUM_GPUS_PER_NODE"
#define NODES_MAX 100000

static cr_status sp_uint(const char *var, const char *v, int64_t *out, cr_error *err)
{
	uint64_t n = 0;

	if (!launch_decimal(v, INT32_MAX, &n))
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "SkyPilot: %s=\"%.64s\" is not a non-negative integer",
					  var, v);
	*out = (int64_t)n;
	return CR_OK;
}

static cr_status sp_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");

	if (job == NULL || *job == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: job must not be empty",
					  cr_host->cfg_file(config), cr_host->cfg_line(config));
	*state = ctx;
	return CR_OK;
}

static void sp_destroy(void *state)
{
	(void)state;
}

static cr_status sp_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	(void)state;
	if (cr_host->getenv(ctx, V_RANK) != NULL && cr_host->getenv(ctx, V_IPS) != NULL)
		return CR_OK;
	return cr_host->error_set(err, CR_DECLINED,
				  "not on a SkyPilot node: " V_RANK " and " V_IPS " are not set");
}

/* The IPs, one a line (blank lines and a last newline skipped; blanks
 * around each trimmed), into *@ips, NULL-terminated (sp_free). */
static cr_status sp_ips(const char *text, char ***ips, size_t *n, cr_error *err)
{
	size_t cap = 8;
	const char *p = text;

	*n = 0;
	*ips = calloc(cap + 1, sizeof(char *));
	if (*ips == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	while (*p != '\0') {
		const char *end = strchr(p, '\n');
		size_t len = end != NULL ? (size_t)(end - p) : strlen(p);

		while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		while (len > 0 && (*p == ' ' || *p == '\t'))
			p++, len--;
		if (len > 0) {
			if (*n == NODES_MAX)
				return cr_host->error_set(
					err, CR_ERR_BACKEND,
					"SkyPilot: " V_IPS " lists more than %d nodes", NODES_MAX);
			if (*n == cap) {
				char **more = realloc(*ips, (cap * 2 + 1) * sizeof(char *));

				if (more == NULL)
					return cr_host->error_set(err, CR_ERR_NOMEM,
								  "out of memory");
				*ips = more;
				cap *= 2;
			}
			(*ips)[*n] = strndup(p, len);
			if ((*ips)[*n] == NULL)
				return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
			(*n)++;
			(*ips)[*n] = NULL;
		}
		if (end == NULL)
			break;
		p = end + 1;
	}
	return CR_OK;
}

static void sp_free(char **ips, size_t n)
{
	for (size_t i = 0; ips != NULL && i < n; i++)
		free(ips[i]);
	free(ips);
}

static cr_status sp_emit(cr_plugin_ctx *ctx, cr_result_builder *b, char **ips, size_t n,
			 int64_t rank, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");
	const char *gpus = cr_host->getenv(ctx, V_GPUS);
	int64_t port = cr_host->opt_int(ctx, "port"), g = 0;
	cr_status st = cr_host->result_add_job(b, job, err);

	for (size_t i = 0; st == CR_OK && i < n; i++) {
		char addr[300];

		if (strlen(ips[i]) > 255)
			return cr_host->error_set(err, CR_ERR_BACKEND,
						  "SkyPilot: line %zu of " V_IPS
						  " is %zu bytes long, "
						  "not a host",
						  i + 1, strlen(ips[i]));
		snprintf(addr, sizeof(addr), strchr(ips[i], ':') != NULL ? "[%s]:%lld" : "%s:%lld",
			 ips[i], (long long)port);
		st = cr_host->result_append_task(b, job, addr, err);
	}
	if (st == CR_OK)
		st = cr_host->result_set_task(b, job, rank, err);
	if (st == CR_OK && gpus != NULL && *gpus != '\0') {
		st = sp_uint(V_GPUS, gpus, &g, err);
		for (size_t i = 0; st == CR_OK && i < n; i++)
			st = cr_host->result_set_task_accelerators(b, job, (int64_t)i, "GPU", g,
								   err);
	}
	return st;
}

static cr_status sp_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	const char *rank_v = cr_host->getenv(ctx, V_RANK), *num_v = cr_host->getenv(ctx, V_NUM);
	int64_t rank = 0, num = -1;
	char **ips = NULL;
	size_t n = 0;
	cr_status st;

	(void)state;
	st = sp_uint(V_RANK, rank_v != NULL ? rank_v : "", &rank, err);
	if (st == CR_OK && num_v != NULL)
		st = sp_uint(V_NUM, num_v, &num, err);
	if (st == CR_OK)
		st = sp_ips(cr_host->getenv(ctx, V_IPS), &ips, &n, err);
	if (st == CR_OK && n == 0)
		st = cr_host->error_set(err, CR_ERR_BACKEND, "SkyPilot: " V_IPS " lists no node");
	if (st == CR_OK && num >= 0 && (size_t)num != n)
		st = cr_host->error_set(err, CR_ERR_BACKEND,
					"SkyPilot: " V_NUM "=%lld, but " V_IPS " lists %zu node%s",
					(long long)num, n, n == 1 ? "" : "s");
	if (st == CR_OK && (size_t)rank >= n)
		st = cr_host->error_set(err, CR_ERR_BACKEND,
					"SkyPilot: " V_RANK
					"=%lld is not below the %zu node%s of " V_IPS,
					(long long)rank, n, n == 1 ? "" : "s");
	if (st == CR_OK) {
		cr_host->result_set_fact_string(b, "launcher", "SkyPilot", NULL);
		st = sp_emit(ctx, b, ips, n, rank, err);
	}
	sp_free(ips, n);
	return st;
}

static const cr_option sp_options[] = {
	CR_OPTION("job", CR_OPT_STRING, "worker", 0, "the job of the nodes' tasks"),
	CR_OPTION_RANGE("port", CR_OPT_INT, "8888", 0,
			"the port of every node's task (the slurm and mpi resolvers' default)", 1,
			65535),
	CR_OPTIONS_END,
};

static const cr_resolver_ops sp_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = sp_create,
	.destroy = sp_destroy,
	.probe = sp_probe,
	.resolve = sp_resolve,
	.master = NULL,
};

static const cr_plugin_desc sp_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "skypilot",
	.version = CR_VERSION_STRING,
	.description = "a node of a SkyPilot cluster: every node's IP in rank order, its rank "
		       "and its GPUs, from a task's run environment",
	.options = sp_options,
	.option_size = sizeof(cr_option),
	.resolver = &sp_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(sp_desc)
