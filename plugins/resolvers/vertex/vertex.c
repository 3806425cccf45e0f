/* SPDX-License-Identifier: MIT */
/*
 * vertex.c - vertex.so: a replica of a Vertex AI custom training job.
 * Vertex AI sets CLUSTER_SPEC on every replica (cloud.google.com/vertex-ai/
 * docs/training/distributed-training, "CLUSTER_SPEC"):
 *
 *   {"cluster": {"workerpool0": ["cmle-training-workerpool0-d604929a6a-0:2222"],
 *                "workerpool1": ["cmle-training-workerpool1-d604929a6a-0:2222", ...],
 *                "workerpool2": [...], "workerpool3": [...]},
 *    "task": {"type": "workerpool1", "index": 0}, ...}
 *
 * The position of a worker pool is its role (the same page, "Configure a
 * distributed training job"): 0 the primary replica (exactly one), 1 the
 * workers, 2 parameter servers (or Reduction Server), 3 evaluators. They
 * become TensorFlow's jobs chief, worker, ps and evaluator, in that order
 * (`pool_names = true` keeps workerpoolN), so the primary replica is task 0
 * of the frameworks' world (chief, then worker): torch's MASTER_ADDR and
 * MASTER_PORT are workerpool0's address, as Lightning's Vertex draft has it.
 *
 * For TensorFlow, Vertex sets TF_CONFIG as well, describing the same
 * cluster; the shipped chain asks tfconfig first (docs/semantics.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

#include "launchers.h"

#define VX_VAR "CLUSTER_SPEC"
/* The most CLUSTER_SPEC may weigh: Vertex's own spec of a few thousand
 * replicas is well under it. */
#define VX_SPEC_MAX (4u << 20)
#define VX_POOLS 4

static const char *const vx_roles[VX_POOLS] = { "chief", "worker", "ps", "evaluator" };
static const char *const vx_pools[VX_POOLS] = { "workerpool0", "workerpool1", "workerpool2",
						"workerpool3" };

static cr_status vx_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	(void)config;
	(void)err;
	*state = ctx;
	return CR_OK;
}

static void vx_destroy(void *state)
{
	(void)state;
}

static cr_status vx_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, VX_VAR);

	(void)state;
	if (v == NULL || *v == '\0')
		return cr_host->error_set(
			err, CR_DECLINED,
			"not a Vertex AI training replica: CLUSTER_SPEC is not set");
	return CR_OK;
}

/* The pool of @name (workerpool0..3), or -1. */
static int vx_pool(const char *name)
{
	for (int i = 0; i < VX_POOLS; i++)
		if (strcmp(name, vx_pools[i]) == 0)
			return i;
	return -1;
}

typedef struct vx_check {
	const cr_json *pool[VX_POOLS];
	const char *bad; /* a key that is not a worker pool */
} vx_check;

static bool vx_member(const char *key, const cr_json *v, void *data)
{
	vx_check *c = data;
	int i = vx_pool(key);

	if (i < 0) {
		c->bad = key;
		return false;
	}
	c->pool[i] = v;
	return true;
}

/* cluster: an object of workerpool0..3, each a list of address strings;
 * workerpool0 holds the one primary replica. */
static cr_status vx_cluster(const cr_json *root, vx_check *c, cr_error *err)
{
	const cr_json *cluster = cr_host->json_get(root, "/cluster");

	if (cluster == NULL || cr_host->json_type(cluster) != CR_JSON_OBJECT)
		return cr_host->error_set(
			err, CR_ERR_PARSE,
			"CLUSTER_SPEC: \"cluster\" must be an object of worker pools");
	cr_host->json_each(cluster, vx_member, c);
	if (c->bad != NULL)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "CLUSTER_SPEC: cluster.\"%.64s\" is not a worker pool "
					  "(workerpool0 to workerpool3)",
					  c->bad);
	for (int i = 0; i < VX_POOLS; i++) {
		size_t n = c->pool[i] != NULL ? cr_host->json_length(c->pool[i]) : 0;

		if (c->pool[i] != NULL && cr_host->json_type(c->pool[i]) != CR_JSON_ARRAY)
			return cr_host->error_set(
				err, CR_ERR_PARSE,
				"CLUSTER_SPEC: cluster.%s must be a list of addresses",
				vx_pools[i]);
		for (size_t k = 0; k < n; k++) {
			const char *a = cr_host->json_string(cr_host->json_index(c->pool[i], k));

			if (a == NULL || *a == '\0')
				return cr_host->error_set(
					err, CR_ERR_PARSE,
					"CLUSTER_SPEC: cluster.%s[%zu] must be an address string",
					vx_pools[i], k);
		}
		if (i == 0 && n != 1)
			return cr_host->error_set(
				err, CR_ERR_PARSE,
				"CLUSTER_SPEC: cluster.workerpool0 has %zu addresses; "
				"it is the primary replica, exactly one",
				n);
	}
	return CR_OK;
}

/* task.type (a pool of the cluster) and task.index (below its size). */
static cr_status vx_task(const cr_json *root, const vx_check *c, int *pool, int64_t *index,
			 cr_error *err)
{
	const cr_json *type = cr_host->json_get(root, "/task/type");
	const cr_json *idx = cr_host->json_get(root, "/task/index");
	const char *t = type != NULL ? cr_host->json_string(type) : NULL;
	const char *s = idx != NULL ? cr_host->json_string(idx) : NULL;
	uint64_t u = 0;
	size_t n;

	if (t == NULL || idx == NULL)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "CLUSTER_SPEC: task needs \"type\" (a worker pool) and "
					  "\"index\"; Vertex sets both on every replica");
	*pool = vx_pool(t);
	if (*pool < 0 || c->pool[*pool] == NULL)
		return cr_host->error_set(
			err, CR_ERR_PARSE,
			"CLUSTER_SPEC: task.type \"%.64s\" is not a worker pool of "
			"the cluster",
			t);
	if (cr_host->json_int(idx, index) && *index >= 0)
		u = (uint64_t)*index;
	else if (s == NULL || !launch_decimal(s, INT32_MAX, &u))
		return cr_host->error_set(
			err, CR_ERR_PARSE,
			"CLUSTER_SPEC: task.index must be a non-negative integer");
	*index = (int64_t)u;
	n = cr_host->json_length(c->pool[*pool]);
	if (u >= n)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "CLUSTER_SPEC: task.index %llu is not below the %zu "
					  "replicas of %s",
					  (unsigned long long)u, n, t);
	return CR_OK;
}

/* The jobs in pool order, an empty pool left out (as Vertex's TF_CONFIG
 * leaves it), then this replica's task. */
static cr_status vx_emit(cr_result_builder *b, const vx_check *c, bool names, int pool,
			 int64_t index, cr_error *err)
{
	cr_status st = CR_OK;

	for (int i = 0; st == CR_OK && i < VX_POOLS; i++) {
		const char *job = names ? vx_pools[i] : vx_roles[i];
		size_t n = c->pool[i] != NULL ? cr_host->json_length(c->pool[i]) : 0;

		for (size_t k = 0; st == CR_OK && k < n; k++)
			st = cr_host->result_append_task(
				b, job, cr_host->json_string(cr_host->json_index(c->pool[i], k)),
				err);
	}
	if (st == CR_OK)
		st = cr_host->result_set_task(b, names ? vx_pools[pool] : vx_roles[pool], index,
					      err);
	return st;
}

static void vx_facts(cr_result_builder *b, const vx_check *c, bool names)
{
	char pools[128] = "";
	size_t len = 0;

	for (int i = 0; i < VX_POOLS && !names; i++)
		if (c->pool[i] != NULL && cr_host->json_length(c->pool[i]) > 0)
			len += (size_t)snprintf(pools + len, sizeof(pools) - len, "%s%s=%s",
						len > 0 ? ", " : "", vx_pools[i], vx_roles[i]);
	cr_host->result_set_fact_string(b, "launcher", "Vertex AI", NULL);
	cr_host->result_set_fact_string(b, "variable", VX_VAR, NULL);
	if (!names)
		cr_host->result_set_fact_string(b, "pools", pools, NULL);
}

static cr_status vx_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	const char *text = cr_host->getenv(ctx, VX_VAR);
	bool names = cr_host->opt_bool(ctx, "pool_names");
	vx_check c = { 0 };
	cr_json *root = NULL;
	int64_t index = 0;
	int pool = 0;
	size_t len;
	cr_status st;

	(void)state;
	if (text == NULL || *text == '\0')
		return cr_host->error_set(err, CR_DECLINED, "CLUSTER_SPEC is not set");
	len = strlen(text);
	if (len > VX_SPEC_MAX)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "CLUSTER_SPEC: %zu bytes, more than the %u a cluster "
					  "spec may have",
					  len, VX_SPEC_MAX);
	st = cr_host->json_parse(text, len, VX_VAR, &root, err);
	if (st != CR_OK)
		return st;
	if (cr_host->json_type(root) != CR_JSON_OBJECT)
		st = cr_host->error_set(err, CR_ERR_PARSE, "CLUSTER_SPEC: must be a JSON object");
	if (st == CR_OK)
		st = vx_cluster(root, &c, err);
	if (st == CR_OK)
		st = vx_task(root, &c, &pool, &index, err);
	if (st == CR_OK) {
		vx_facts(b, &c, names);
		st = vx_emit(b, &c, names, pool, index, err);
	}
	cr_host->json_free(root);
	return st;
}

static const cr_option vx_options[] = {
	CR_OPTION("pool_names", CR_OPT_BOOL, "false", 0,
		  "keep the worker pools' names (workerpool0..3) as the jobs instead of "
		  "chief, worker, ps, evaluator"),
	CR_OPTIONS_END,
};

static const cr_resolver_ops vx_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = vx_create,
	.destroy = vx_destroy,
	.probe = vx_probe,
	.resolve = vx_resolve,
	.master = NULL,
};

static const cr_plugin_desc vx_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "vertex",
	.version = CR_VERSION_STRING,
	.description = "a replica of a Vertex AI custom training job: the worker pools of "
		       "CLUSTER_SPEC as chief, worker, ps and evaluator",
	.options = vx_options,
	.option_size = sizeof(cr_option),
	.resolver = &vx_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(vx_desc)
