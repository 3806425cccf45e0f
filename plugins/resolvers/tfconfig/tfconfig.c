/* SPDX-License-Identifier: MIT */
/*
 * tfconfig.c - the cluster from the TF_CONFIG environment variable
 * (TensorFlow's TFConfigClusterResolver), re-read on every resolve.
 *
 *   TF_CONFIG='{"cluster": {"worker": ["w0:2222"], "ps": {"1": "p1:2222"}},
 *               "task": {"type": "worker", "index": 0},
 *               "rpc_layer": "grpc", "environment": "cloud",
 *               "session_master": "m:2222"}'
 *
 * DECLINED when the variable is unset or empty. TensorFlow's bugs are fixed:
 * a single empty job and a single sparse task give the empty master instead
 * of an exception / a lookup. Unlike TensorFlow, "environment" is read too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

static cr_status tfc_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *var = cr_host->opt_string(ctx, "variable");

	if (var == NULL || *var == '\0' || strchr(var, '=') != NULL)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: variable must be a variable name",
					  cr_host->cfg_file(config), cr_host->cfg_line(config));
	*state = ctx; /* nothing to keep but the context */
	return CR_OK;
}

static void tfc_destroy(void *state)
{
	(void)state;
}

static const char *tfc_var(cr_plugin_ctx *ctx)
{
	return cr_host->opt_string(ctx, "variable");
}

static cr_status tfc_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, tfc_var(ctx));

	if (v == NULL || *v == '\0')
		return cr_host->error_set(err, CR_DECLINED, "%s is not set", tfc_var(ctx));
	return CR_OK;
}

/* task.type: a string, or a number TensorFlow would str(). */
/* task.type: a string, kept whole, or an integer, spelled into @num. */
static cr_status tfc_task_type(const cr_json *t, const char *var, char num[24], const char **out,
			       cr_error *err)
{
	int64_t n;

	*out = cr_host->json_string(t);
	if (*out != NULL)
		return CR_OK;
	if (!cr_host->json_int(t, &n))
		return cr_host->error_set(err, CR_ERR_PARSE, "%s: task.type must be a string", var);
	snprintf(num, 24, "%lld", (long long)n);
	*out = num;
	return CR_OK;
}

/* task.index: an integer, or a decimal string TensorFlow would int(). */
static cr_status tfc_task_index(const cr_json *t, const char *var, int64_t *out, cr_error *err)
{
	const char *s = cr_host->json_string(t);
	char *end = NULL;

	if (cr_host->json_int(t, out) && *out >= 0 && *out <= 2147483647)
		return CR_OK;
	if (s != NULL && *s >= '0' && *s <= '9') {
		*out = strtoll(s, &end, 10);
		if (*end == '\0' && *out <= 2147483647)
			return CR_OK;
	}
	return cr_host->error_set(err, CR_ERR_PARSE,
				  "%s: task.index must be a non-negative integer", var);
}

/* A value the host refused (a control character in a task type or rpc
 * layer): the message says it came from @var. */
static cr_status tfc_from(const char *var, cr_status st, cr_error *err)
{
	char msg[CR_ERROR_MSG_MAX];

	if (st == CR_OK || err == NULL)
		return st;
	snprintf(msg, sizeof(msg), "%s", err->message);
	return cr_host->error_set(err, st, "%s: %s", var, msg);
}

static cr_status tfc_identity(const cr_json *root, const char *var, cr_result_builder *b,
			      cr_error *err)
{
	const cr_json *type = cr_host->json_get(root, "/task/type");
	const cr_json *index = cr_host->json_get(root, "/task/index");
	char num[24];
	const char *type_name = NULL;
	int64_t id = 0;
	cr_status st;

	if (type == NULL && index == NULL)
		return CR_OK;
	if (type == NULL || index == NULL)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: task needs both \"type\" and \"index\"", var);
	st = tfc_task_type(type, var, num, &type_name, err);
	if (st == CR_OK)
		st = tfc_task_index(index, var, &id, err);
	if (st == CR_OK)
		st = tfc_from(var, cr_host->result_set_task(b, type_name, id, err), err);
	return st;
}

static cr_status tfc_string_field(const cr_json *root, const char *name, const char *var,
				  const char **out, cr_error *err)
{
	const cr_json *v = cr_host->json_get(root, name);

	*out = NULL;
	if (v == NULL || cr_host->json_type(v) == CR_JSON_NULL)
		return CR_OK;
	*out = cr_host->json_string(v);
	if (*out == NULL)
		return cr_host->error_set(err, CR_ERR_PARSE, "%s: \"%s\" must be a string", var,
					  name + 1);
	return CR_OK;
}

static bool tfc_first_member(const char *key, const cr_json *v, void *data)
{
	(void)key;
	*(const cr_json **)data = v;
	return false;
}

/* Facts for `cluster-resolver explain`: where the cluster came from, how
 * many jobs it has and which task the variable names. A fact is an aid,
 * never a failure. */
static void tfc_facts(cr_result_builder *b, const char *var, const cr_json *root)
{
	const cr_json *task = cr_host->json_get(root, "/task");
	const cr_json *cluster = cr_host->json_get(root, "/cluster");
	char n[32];
	cr_json *jobs = NULL;

	cr_host->result_set_fact_string(b, "variable", var, NULL);
	if (cluster != NULL && cr_host->json_type(cluster) == CR_JSON_OBJECT) {
		snprintf(n, sizeof(n), "%zu", cr_host->json_length(cluster));
		if (cr_host->json_parse(n, strlen(n), "jobs", &jobs, NULL) == CR_OK)
			cr_host->result_set_fact(b, "jobs", jobs, NULL);
		cr_host->json_free(jobs);
	}
	if (task != NULL)
		cr_host->result_set_fact(b, "task", task, NULL);
}

static cr_status tfc_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	const char *var = tfc_var(ctx);
	const char *text = cr_host->getenv(ctx, var);
	const char *rpc = NULL, *env = NULL, *session = NULL;
	const cr_json *cluster;
	cr_json *root = NULL;
	cr_status st;

	if (text == NULL || *text == '\0')
		return cr_host->error_set(err, CR_DECLINED, "%s is not set", var);
	st = cr_host->json_parse(text, strlen(text), var, &root, err);
	if (st != CR_OK)
		return st;
	tfc_facts(b, var, root);
	if (cr_host->json_type(root) != CR_JSON_OBJECT) {
		st = cr_host->error_set(err, CR_ERR_PARSE, "%s: must be a JSON object", var);
		goto out;
	}
	cluster = cr_host->json_get(root, "/cluster");
	if (cluster != NULL)
		st = cr_host->result_add_cluster_json(b, cluster, var, err);
	if (st == CR_OK)
		st = tfc_identity(root, var, b, err);
	if (st == CR_OK)
		st = tfc_string_field(root, "/rpc_layer", var, &rpc, err);
	if (st == CR_OK)
		st = tfc_string_field(root, "/environment", var, &env, err);
	if (st == CR_OK)
		st = tfc_string_field(root, "/session_master", var, &session, err);
	if (st == CR_OK && rpc != NULL)
		st = tfc_from(var, cr_host->result_set_rpc_layer(b, rpc, err), err);
	if (st == CR_OK && (env != NULL || cr_host->opt_is_set(ctx, "environment")))
		st = tfc_from(cr_host->opt_is_set(ctx, "environment") ? "environment" : var,
			      cr_host->result_set_environment(
				      b,
				      cr_host->opt_is_set(ctx, "environment")
					      ? cr_host->opt_string(ctx, "environment")
					      : env,
				      err),
			      err);
	if (st == CR_OK && session != NULL) {
		st = tfc_from(var, cr_host->result_set_master(b, session, err), err);
	} else if (st == CR_OK) {
		/* TensorFlow answers "" when there is nothing to connect to: no
		 * jobs, or one job with at most one task. */
		const cr_json *only = NULL;
		size_t njobs = cluster != NULL ? cr_host->json_length(cluster) : 0;

		if (njobs == 1)
			cr_host->json_each(cluster, tfc_first_member, &only);
		if (njobs == 0 || (only != NULL && cr_host->json_length(only) <= 1))
			st = cr_host->result_set_master(b, "", err);
	}
out:
	cr_host->json_free(root);
	return st;
}

static const cr_option tfc_options[] = {
	CR_OPTION("variable", CR_OPT_STRING, "TF_CONFIG", 0,
		  "environment variable holding the JSON"),
	CR_OPTION("environment", CR_OPT_STRING, NULL, 0, "environment name (overrides the JSON's)"),
	CR_OPTIONS_END,
};

static const cr_resolver_ops tfc_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = tfc_create,
	.destroy = tfc_destroy,
	.probe = tfc_probe,
	.resolve = tfc_resolve,
	.master = NULL,
};

static const cr_plugin_desc tfc_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "tfconfig",
	.version = CR_VERSION_STRING,
	.description = "the cluster from the TF_CONFIG environment variable",
	.options = tfc_options,
	.option_size = sizeof(cr_option),
	.resolver = &tfc_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(tfc_desc)
