/* SPDX-License-Identifier: MIT */
/*
 * tpu_source.c - which source names the workers, first that applies
 * (docs/tpu.md, "Sources"):
 *
 *   a. tpu = "local"                        no cluster, this host's TPUs
 *   b. an endpoint list: `tpu`, else KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS,
 *      when it starts with grpc:// or holds ':' or ',' (no node id does)
 *   c. GKE: TPU_PROCESS_ADDRESSES, else TPU_WORKER_HOSTNAMES (JAX's order),
 *      before TPU_NAME, which GKE sets too
 *   d. a node name: `tpu`, TPU_NAME, TPU_CONFIG -> the Cloud TPU API
 *   e. the TPU VM's metadata (agent-worker-number answers), unless
 *      TPU_SKIP_MDS_QUERY is set
 *
 * probe() makes the same choice without a packet except e's one metadata
 * read, which gcp_on_gce() keeps off machines that are not on GCE.
 */
#include <stdlib.h>
#include <string.h>

#include "tpu.h"

const char *tpu_source_name(enum tpu_source s)
{
	static const char *const names[] = {
		"none", "local", "endpoints", "gke", "api", "metadata"
	};

	return names[s];
}

/* Does this machine answer as a TPU VM? One metadata read, on GCE only. */
static bool tpu_vm_probe(struct tpu *t, cr_plugin_ctx *ctx)
{
	cr_error e = CR_ERROR_INIT;
	struct gcp *g;
	char *v = NULL;
	bool vm = false;

	if (t->worker_number != NULL)
		return true;
	if (tpu_getenv(ctx, "TPU_SKIP_MDS_QUERY") != NULL)
		return false;
	g = gcp_new(cr_host, ctx, &t->gopts, &e);
	if (g != NULL && gcp_on_gce(g)) {
		vm = gcp_metadata_get(g, "instance/attributes/agent-worker-number", &v, &e) ==
		     CR_OK;
		if (!vm)
			cr_host->log(ctx, CR_LOG_DEBUG, "not a TPU VM: %s", e.message);
	}
	gcp_free(g);
	t->worker_number = v;
	return vm;
}

cr_status tpu_probe_source(struct tpu *t, cr_plugin_ctx *ctx, cr_error *err)
{
	static const char *const vars[] = { "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS",
					    "TPU_PROCESS_ADDRESSES",
					    "TPU_WORKER_HOSTNAMES",
					    "TPU_NAME",
					    "TPU_CONFIG",
					    NULL };

	if (t->tpu != NULL && *t->tpu != '\0')
		return CR_OK;
	for (size_t i = 0; vars[i] != NULL; i++)
		if (tpu_getenv(ctx, vars[i]) != NULL)
			return CR_OK;
	if (tpu_vm_probe(t, ctx))
		return CR_OK;
	if (t->tpu != NULL)
		return cr_host->error_set(err, CR_ERR_NOT_FOUND,
					  "Please provide a TPU Name to connect to.");
	return cr_host->error_set(err, CR_DECLINED,
				  "no TPU: no 'tpu' option, no TPU variable, not a TPU VM");
}

static cr_status tpu_from_list(struct tpu_run *r, const char *text, const char *what, cr_error *err)
{
	char port[16];

	g_snprintf(port, sizeof(port), "%" G_GINT64_FORMAT, r->t->port);
	r->source = TPU_SRC_ENDPOINTS;
	r->source_what = what;
	r->name = g_strdup(text);
	return tpu_parse_endpoints(text, what, port, r->eps, err);
}

/* GKE's TPU web hook sets the workers of this slice and our place in it. */
static cr_status tpu_from_gke(struct tpu_run *r, cr_error *err)
{
	const char *what = tpu_getenv(r->ctx, "TPU_PROCESS_ADDRESSES") != NULL
				   ? "TPU_PROCESS_ADDRESSES"
				   : "TPU_WORKER_HOSTNAMES";
	const char *id = tpu_getenv(r->ctx, "TPU_WORKER_ID");
	char port[16], *end = NULL;
	cr_status st;

	g_snprintf(port, sizeof(port), "%" G_GINT64_FORMAT, r->t->port);
	r->source = TPU_SRC_GKE;
	r->source_what = what;
	if (tpu_getenv(r->ctx, "TPU_NAME") != NULL)
		r->name = g_strdup(tpu_getenv(r->ctx, "TPU_NAME"));
	if (tpu_getenv(r->ctx, "TPU_ACCELERATOR_TYPE") != NULL)
		r->accel_type = g_strdup(tpu_getenv(r->ctx, "TPU_ACCELERATOR_TYPE"));
	st = tpu_parse_endpoints(tpu_getenv(r->ctx, what), what, port, r->eps, err);
	if (st != CR_OK || id == NULL)
		return st;
	r->self = (int64_t)g_ascii_strtoll(id, &end, 10);
	if (*end != '\0' || end == id || r->self < 0 || r->self >= (int64_t)r->eps->len)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "TPU_WORKER_ID '%s' is not a worker of %s (0..%u)", id,
					  what, r->eps->len - 1);
	return CR_OK;
}

/* TPU_CONFIG: {"project": …, "zone": …, "tpu_node_name": …}; the options
 * win over its project and zone. */
static cr_status tpu_from_config(struct tpu_run *r, const char *text, cr_error *err)
{
	const struct tpu *t = r->t;
	cr_json *doc = NULL;
	const char *name, *project, *zone;
	cr_status st = cr_host->json_parse(text, strlen(text), "TPU_CONFIG", &doc, err);

	if (st != CR_OK)
		return st;
	name = cr_host->json_string(cr_host->json_get(doc, "/tpu_node_name"));
	project = cr_host->json_string(cr_host->json_get(doc, "/project"));
	zone = cr_host->json_string(cr_host->json_get(doc, "/zone"));
	if (name == NULL || *name == '\0')
		st = cr_host->error_set(err, CR_ERR_PARSE, "TPU_CONFIG has no \"tpu_node_name\"");
	else
		st = tpu_api_node(r, t->project != NULL ? t->project : project,
				  t->zone != NULL ? t->zone : zone, name, true, err);
	cr_host->json_free(doc);
	return st;
}

static cr_status tpu_md_opt(struct tpu_run *r, const char *key, char **out, cr_error *err)
{
	cr_status st = gcp_metadata_get(r->g, key, out, err);

	if (st == CR_ERR_NOT_FOUND) {
		*out = NULL;
		return CR_OK;
	}
	return st;
}

/* e. The TPU VM's own attributes: the workers of its slice, itself. */
static cr_status tpu_from_metadata(struct tpu_run *r, cr_error *err)
{
	char *eps = NULL, *env = NULL, port[16], *end = NULL;
	const char *node;
	cr_status st;

	g_snprintf(port, sizeof(port), "%" G_GINT64_FORMAT, r->t->port);
	r->source = TPU_SRC_METADATA;
	st = gcp_metadata_get(r->g, "instance/attributes/worker-network-endpoints", &eps, err);
	if (st == CR_OK)
		st = tpu_parse_worker_endpoints(eps, port, r->eps, err);
	if (st == CR_OK)
		st = tpu_md_opt(r, "instance/attributes/accelerator-type", &r->accel_type, err);
	if (st == CR_OK)
		st = tpu_md_opt(r, "instance/attributes/tpu-env", &env, err);
	if (st == CR_OK && env != NULL)
		r->tpu_env = tpu_parse_env(env);
	node = r->tpu_env != NULL ? g_hash_table_lookup(r->tpu_env, "NODE_ID") : NULL;
	if (node != NULL && *node != '\0')
		r->name = g_strdup(node);
	g_strstrip(r->t->worker_number);
	r->self = (int64_t)g_ascii_strtoll(r->t->worker_number, &end, 10);
	if (st == CR_OK && (*end != '\0' || end == r->t->worker_number || r->self < 0 ||
			    r->self >= (int64_t)r->eps->len))
		st = cr_host->error_set(err, CR_ERR_PARSE,
					"metadata agent-worker-number '%s' is not a worker of "
					"worker-network-endpoints (0..%u)",
					r->t->worker_number, r->eps->len - 1);
	g_free(eps);
	g_free(env);
	return st;
}

/* d, or b when the name is an endpoint list. */
static cr_status tpu_from_name(struct tpu_run *r, const char *name, const char *what, cr_error *err)
{
	if (tpu_is_endpoint_list(name))
		return tpu_from_list(r, name, what, err);
	return tpu_api_node(r, r->t->project, r->t->zone, name, true, err);
}

cr_status tpu_gather(struct tpu_run *r, cr_error *err)
{
	const char *name = r->t->tpu;
	const char *v;

	if (name != NULL && strcmp(name, "local") == 0) {
		r->source = TPU_SRC_LOCAL;
		r->name = g_strdup(name);
		return CR_OK;
	}
	if (name != NULL && *name != '\0')
		return tpu_from_name(r, name, "tpu", err);
	if ((v = tpu_getenv(r->ctx, "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS")) != NULL)
		return tpu_from_list(r, v, "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", err);
	if (tpu_getenv(r->ctx, "TPU_PROCESS_ADDRESSES") != NULL ||
	    tpu_getenv(r->ctx, "TPU_WORKER_HOSTNAMES") != NULL)
		return tpu_from_gke(r, err);
	if ((v = tpu_getenv(r->ctx, "TPU_NAME")) != NULL)
		return tpu_from_name(r, v, "TPU_NAME", err);
	if ((v = tpu_getenv(r->ctx, "TPU_CONFIG")) != NULL)
		return tpu_from_config(r, v, err);
	if (r->t->worker_number != NULL)
		return tpu_from_metadata(r, err);
	return cr_host->error_set(err, CR_ERR_NOT_FOUND,
				  "Please provide a TPU Name to connect to.");
}
