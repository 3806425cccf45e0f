/* SPDX-License-Identifier: MIT */
/*
 * tpu.c - the Cloud TPU resolver (TensorFlow's TPUClusterResolver, with
 * the TPU-VM metadata, GKE and multislice sources JAX reads): options,
 * create/probe/resolve and master. docs/tpu.md describes the behaviour.
 *
 *   { plugin = "tpu"; }                          # TPU VM, GKE, TPU_NAME …
 *   { plugin = "tpu"; tpu = "my-v4-32"; zone = "us-central2-b"; }
 *   { plugin = "tpu"; tpu = "grpc://10.0.0.2:8470,grpc://10.0.0.3:8470"; }
 */
#include <string.h>

#include "httpanswer.h"
#include "tpu.h"

#define AT(v) cr_host->cfg_file(v), cr_host->cfg_line(v)

static void tpu_free(struct tpu *t)
{
	if (t == NULL)
		return;
	g_free(t->tpu);
	g_free(t->worker_number);
	g_free(t->master);
	g_free(t);
}

/* `tpu`: a string, or a one-element list as TensorFlow takes it. */
static cr_status tpu_parse_name(struct tpu *t, const cr_cfg *config, cr_error *err)
{
	const cr_cfg *v = cr_host->cfg_get(config, "tpu");
	cr_cfg_type type = cr_host->cfg_type(v);
	size_t n = cr_host->cfg_length(v);

	if (v == NULL)
		return CR_OK;
	if (type == CR_CFG_ARRAY || type == CR_CFG_LIST) {
		if (n == 0)
			return cr_host->error_set(err, CR_ERR_CONFIG,
						  "%s:%d: tpu: At least one TPU must be specified",
						  AT(v));
		if (n > 1)
			return cr_host->error_set(
				err, CR_ERR_CONFIG,
				"%s:%d: tpu: one TPU per resolver (TensorFlow does not implement "
				"several); for a multislice job name its queued resource with "
				"'queued_resource'",
				AT(v));
		v = cr_host->cfg_elem(v, 0);
	}
	if (cr_host->cfg_string(v) == NULL)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: tpu: expected a TPU name, an endpoint list or "
					  "\"local\" (a string or a one-element list)",
					  AT(v));
	t->tpu = g_strdup(cr_host->cfg_string(v));
	return CR_OK;
}

static cr_status tpu_check(struct tpu *t, const cr_cfg *config, cr_error *err)
{
	static const char *const versions[] = { "v2", "v2alpha1", "v1", NULL };
	const cr_cfg *v;

	if (!g_strv_contains(versions, t->api_version)) {
		v = cr_host->cfg_get(config, "api_version");
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: api_version: unknown '%s' (v2, v2alpha1 or v1)",
					  AT(v), t->api_version);
	}
	if (*t->job_name == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: job_name must not be empty",
					  AT(cr_host->cfg_get(config, "job_name")));
	if (t->coordinator_name != NULL && strcmp(t->coordinator_name, t->job_name) == 0)
		return cr_host->error_set(
			err, CR_ERR_CONFIG, "%s:%d: coordinator_name '%s' is the workers' job_name",
			AT(cr_host->cfg_get(config, "coordinator_name")), t->coordinator_name);
	if (url_has_query(t->tpu_endpoint))
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: tpu_endpoint has a query string or fragment (?, "
					  "#), which an API root cannot; refused, and not printed",
					  AT(cr_host->cfg_get(config, "tpu_endpoint")));
	if (url_has_userinfo(t->tpu_endpoint))
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: tpu_endpoint holds a user name or password "
					  "(user@ or user:password@); refused, and not printed",
					  AT(cr_host->cfg_get(config, "tpu_endpoint")));
	return CR_OK;
}

static const char *tpu_opt(cr_plugin_ctx *ctx, const char *name)
{
	const char *v = cr_host->opt_string(ctx, name);

	return v != NULL && *v != '\0' ? v : NULL;
}

static cr_status tpu_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	struct tpu *t = g_new0(struct tpu, 1);
	cr_status st;

	t->project = tpu_opt(ctx, "project");
	t->zone = tpu_opt(ctx, "zone");
	t->job_name = cr_host->opt_string(ctx, "job_name");
	t->coordinator_name = tpu_opt(ctx, "coordinator_name");
	t->coordinator_address = tpu_opt(ctx, "coordinator_address");
	t->queued_resource = tpu_opt(ctx, "queued_resource");
	t->tpu_endpoint = cr_host->opt_string(ctx, "tpu_endpoint");
	t->api_version = cr_host->opt_string(ctx, "api_version");
	t->devices_file = tpu_opt(ctx, "devices_file");
	t->port = cr_host->opt_int(ctx, "port");
	t->coordinator_port = cr_host->opt_int(ctx, "coordinator_port");
	t->require_healthy = cr_host->opt_bool(ctx, "require_healthy");
	st = tpu_parse_name(t, config, err);
	if (st == CR_OK)
		st = tpu_check(t, config, err);
	gcp_opts_read(cr_host, ctx, &t->gopts);
	if (st == CR_OK) {
		/* A bad shared option (`root`) is a configuration error now. */
		struct gcp *g = gcp_new(cr_host, ctx, &t->gopts, err);

		st = g != NULL ? CR_OK : CR_ERR_CONFIG;
		gcp_free(g);
	}
	if (st != CR_OK) {
		tpu_free(t);
		return st;
	}
	*state = t;
	return CR_OK;
}

static void tpu_destroy(void *state)
{
	tpu_free(state);
}

static cr_status tpu_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	return tpu_probe_source(state, ctx, err);
}

static void tpu_run_clear(struct tpu_run *r)
{
	gcp_free(r->g);
	g_ptr_array_unref(r->eps);
	g_free(r->name);
	g_free(r->project);
	g_free(r->zone);
	g_free(r->self_ip);
	g_free(r->accel_type);
	g_free(r->accel_config);
	g_free(r->coordinator);
	if (r->tpu_env != NULL)
		g_hash_table_unref(r->tpu_env);
}

/* What master() answers without a task: this process's worker, else the
 * first (TensorFlow's job_tasks(job)[0]). */
static void tpu_keep_master(struct tpu *t, const struct tpu_run *r)
{
	const struct tpu_ep *ep;

	g_free(t->master);
	t->master = NULL;
	t->local = r->source == TPU_SRC_LOCAL;
	if (r->eps->len == 0)
		return;
	ep = g_ptr_array_index(r->eps, r->self >= 0 ? (guint)r->self : 0);
	t->master = tpu_address(ep->ip, ep->port);
}

static cr_status tpu_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	struct tpu *t = state;
	struct tpu_run r = { .t = t, .ctx = ctx, .b = b, .self = -1 };
	cr_status st;

	r.g = gcp_new(cr_host, ctx, &t->gopts, err);
	if (r.g == NULL)
		return err != NULL ? err->code : CR_ERR_CONFIG;
	r.eps = g_ptr_array_new_with_free_func(tpu_ep_free);
	st = tpu_gather(&r, err);
	if (r.source != TPU_SRC_NONE)
		cr_host->result_set_fact_string(b, "source", tpu_source_name(r.source), NULL);
	if (r.name != NULL && r.source != TPU_SRC_API)
		cr_host->result_set_fact_string(b, "tpu_name", r.name, NULL);
	if (r.accel_type != NULL && r.source != TPU_SRC_API)
		cr_host->result_set_fact_string(b, "accelerator_type", r.accel_type, NULL);
	if (st == CR_OK)
		st = tpu_build(&r, err);
	else if (r.eps->len > 0)
		tpu_fact_endpoints(&r);
	if (st == CR_OK)
		tpu_keep_master(t, &r);
	tpu_run_clear(&r);
	return st;
}

/* TensorFlow's master(): "grpc://" + the task's address whatever the rpc
 * layer; here a non-empty --rpc-layer wins (§14.14). "" for local. */
static cr_status tpu_master(void *state, cr_plugin_ctx *ctx, const char *task_type, int64_t task_id,
			    const char *rpc_layer, cr_text *out, cr_error *err)
{
	struct tpu *t = state;
	char *url;
	cr_status st;

	(void)ctx;
	if (task_type != NULL || task_id >= 0)
		return CR_DECLINED;
	if (t->local)
		return cr_host->text_set(out, "", err);
	if (t->master == NULL)
		return cr_host->error_set(err, CR_ERR_NOT_FOUND,
					  "No TPUs with the specified names exist.");
	url = g_strdup_printf("%s://%s", rpc_layer != NULL && *rpc_layer ? rpc_layer : "grpc",
			      t->master);
	st = cr_host->text_set(out, url, err);
	g_free(url);
	return st;
}

static const cr_option tpu_options[] = {
	CR_OPTION("tpu", CR_OPT_ANY, NULL, 0,
		  "node name, endpoint list [grpc://]host[:port],… or \"local\"; a string or a "
		  "one-element list; \"\" = from the environment or metadata, else an error"),
	CR_OPTION("project", CR_OPT_STRING, NULL, 0,
		  "GCP project of the node (default: metadata project/project-id)"),
	CR_OPTION("zone", CR_OPT_STRING, NULL, 0,
		  "zone of the node (default: last segment of metadata instance/zone)"),
	CR_OPTION("job_name", CR_OPT_STRING, "worker", 0, "job of the TPU workers"),
	CR_OPTION("coordinator_name", CR_OPT_STRING, NULL, 0,
		  "job of a coordinator task added after the workers"),
	CR_OPTION("coordinator_address", CR_OPT_STRING, NULL, 0,
		  "the coordinator's host:port (default: this VM's address and coordinator_port)"),
	CR_OPTION_RANGE("coordinator_port", CR_OPT_INT, "0", 0,
			"the coordinator's port; 0 reserves a free one (CR_COORDINATOR_PORT)", 0,
			65535),
	CR_OPTION_RANGE("port", CR_OPT_INT, TPU_DEFAULT_PORT, 0,
			"port of workers whose address has none (JAX: 8482)", 1, 65535),
	CR_OPTION("queued_resource", CR_OPT_STRING, NULL, 0,
		  "queued resource holding every slice of a multislice job"),
	CR_OPTION("tpu_endpoint", CR_OPT_STRING, "https://tpu.googleapis.com/", 0,
		  "Cloud TPU API root"),
	CR_OPTION("api_version", CR_OPT_STRING, "v2", 0, "Cloud TPU API version: v2, v2alpha1, v1"),
	CR_OPTION("require_healthy", CR_OPT_BOOL, "false", 0,
		  "refuse a node whose health is not HEALTHY"),
	CR_OPTION("devices_file", CR_OPT_STRING, NULL, 0,
		  "TensorFlow device list (JSON [{name, device_type}]) to count TPUs per task"),
	GCP_OPTIONS,
	CR_OPTIONS_END,
};

static const cr_resolver_ops tpu_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = tpu_create,
	.destroy = tpu_destroy,
	.probe = tpu_probe,
	.resolve = tpu_resolve,
	.master = tpu_master,
};

static const cr_plugin_desc tpu_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "tpu",
	.version = CR_VERSION_STRING,
	.description = "Cloud TPU slices: TPU API nodes and queued resources, TPU-VM metadata, "
		       "GKE TPU pods, endpoint lists (TensorFlow's TPUClusterResolver)",
	.options = tpu_options,
	.option_size = sizeof(cr_option),
	.resolver = &tpu_ops,
	.accelerator = NULL,
	.flags = 0,
	/* Polled (no watch in the API): every 30 s by default, 10 s at least,
	 * so that a job of many tasks stays inside the API's rate limits. */
	.watch_interval_s = 30,
	.watch_interval_min_s = 10,
};

CR_PLUGIN_DEFINE(tpu_desc)
