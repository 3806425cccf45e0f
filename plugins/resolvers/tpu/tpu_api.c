/* SPDX-License-Identifier: MIT */
/*
 * tpu_api.c - the Cloud TPU API (tpu.googleapis.com, v2):
 *
 *   GET {tpu_endpoint}v2/projects/P/locations/Z/nodes/N
 *       -> state, health, acceleratorType/acceleratorConfig, and the
 *          workers: networkEndpoints[] {ipAddress, port} in API order, or
 *          the legacy top-level ipAddress/port of a one-host node
 *   GET {tpu_endpoint}v2/projects/P/locations/Z/queuedResources/Q
 *       -> tpu.nodeSpec[]: a nodeId, or multisliceParams {nodeCount,
 *          nodeIdPrefix} naming nodes PREFIX-0 … PREFIX-(n-1)
 *
 * Project and zone: the options, else the metadata server's
 * project/project-id and the last segment of instance/zone (TensorFlow's
 * rule), asked only on GCE. Authentication, retries and Google's error
 * messages are gcp_api_request's (plugins/common/gcp).
 */
#include <stdlib.h>
#include <string.h>

#include "tpu.h"

/* Project and zone for the API: given, else the metadata server's. */
static cr_status tpu_where(struct tpu_run *r, const char *project, const char *zone,
			   const char *name, cr_error *err)
{
	const char *why = project == NULL || zone == NULL ? tpu_no_metadata(r) : NULL;
	char *v = NULL;
	cr_status st = CR_OK;

	if (why != NULL)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "TPU \"%s\": set 'project' and 'zone' (%s: no metadata "
					  "server to ask)",
					  name, why);
	if (r->project == NULL && project != NULL)
		r->project = g_strdup(project);
	else if (r->project == NULL)
		st = gcp_metadata_get(r->g, "project/project-id", &r->project, err);
	if (st == CR_OK && r->zone == NULL && zone != NULL)
		r->zone = g_strdup(zone);
	else if (st == CR_OK && r->zone == NULL) {
		st = gcp_metadata_get(r->g, "instance/zone", &v, err);
		if (st == CR_OK)
			r->zone = g_strdup(strrchr(v, '/') != NULL ? strrchr(v, '/') + 1 : v);
		g_free(v);
	}
	return st;
}

static char *tpu_url(const struct tpu *t, const char *parent, const char *coll, const char *id)
{
	const char *ep = t->tpu_endpoint;
	size_t n = strlen(ep);

	return g_strdup_printf("%s%s%s/%s/%s/%s", ep, n > 0 && ep[n - 1] == '/' ? "" : "/",
			       t->api_version, parent, coll, id);
}

static cr_status tpu_get_json(struct tpu_run *r, const char *url, cr_json **doc, cr_error *err)
{
	char *body = NULL;
	size_t len = 0;
	cr_status st = gcp_api_request(r->g, "GET", url, NULL, &body, &len, err);

	if (st == CR_OK) {
		char *shown = g_strndup(url, strcspn(url, "?"));
		char *what = g_strconcat("GET ", shown, NULL);

		st = gcp_json_object(cr_host, body, len, what, doc, err);
		g_free(what);
		g_free(shown);
	}
	g_free(body);
	return st;
}

/* A port as the API gives it: a number, or a string of one (1..65535). */
static char *tpu_port_text(const cr_json *v)
{
	int64_t n;

	if (cr_host->json_int(v, &n) && n > 0 && n <= 65535)
		return g_strdup_printf("%" G_GINT64_FORMAT, n);
	if (cr_host->json_string(v) != NULL && tpu_port_ok(cr_host->json_string(v)))
		return g_strdup(cr_host->json_string(v));
	return NULL;
}

static cr_status tpu_add_ep(struct tpu_run *r, const char *name, const cr_json *ip,
			    const cr_json *port, size_t i, cr_error *err)
{
	const char *addr = cr_host->json_string(ip);
	char *p = tpu_port_text(port);
	struct tpu_ep *ep;

	if (addr == NULL || *addr == '\0' || p == NULL) {
		g_free(p);
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "TPU \"%s\": network endpoint %zu has no ipAddress or "
					  "no port in 1..65535",
					  name, i + 1);
	}
	ep = g_new0(struct tpu_ep, 1);
	ep->ip = g_strdup(addr);
	ep->port = p;
	g_ptr_array_add(r->eps, ep);
	return CR_OK;
}

static cr_status tpu_node_endpoints(struct tpu_run *r, const char *name, const cr_json *node,
				    cr_error *err)
{
	const cr_json *list = cr_host->json_get(node, "/networkEndpoints");
	size_t n = cr_host->json_length(list);
	cr_status st = CR_OK;

	for (size_t i = 0; i < n && st == CR_OK; i++) {
		const cr_json *e = cr_host->json_index(list, i);

		st = tpu_add_ep(r, name, cr_host->json_get(e, "/ipAddress"),
				cr_host->json_get(e, "/port"), i, err);
	}
	if (n > 0 || st != CR_OK)
		return st;
	if (cr_host->json_get(node, "/ipAddress") == NULL)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "TPU \"%s\" has no network endpoints", name);
	return tpu_add_ep(r, name, cr_host->json_get(node, "/ipAddress"),
			  cr_host->json_get(node, "/port"), 0, err);
}

static void tpu_node_facts(struct tpu_run *r, const cr_json *node)
{
	const char *type = cr_host->json_string(cr_host->json_get(node, "/acceleratorType"));
	const char *ctype =
		cr_host->json_string(cr_host->json_get(node, "/acceleratorConfig/type"));
	const char *topo =
		cr_host->json_string(cr_host->json_get(node, "/acceleratorConfig/topology"));
	const char *health = cr_host->json_string(cr_host->json_get(node, "/health"));

	if (health != NULL)
		cr_host->result_set_fact_string(r->b, "health", health, NULL);
	if (type != NULL && r->accel_type == NULL) {
		r->accel_type = g_strdup(type);
		cr_host->result_set_fact_string(r->b, "accelerator_type", type, NULL);
	}
	if (ctype != NULL && topo != NULL && r->accel_config == NULL)
		r->accel_config = g_strdup_printf("%s %s", ctype, topo);
}

/* One node's JSON: ready (and healthy if asked), then its workers. */
cr_status tpu_node_parse(struct tpu_run *r, const char *name, const cr_json *node, bool facts,
			 cr_error *err)
{
	const char *state = cr_host->json_string(cr_host->json_get(node, "/state"));
	const char *health = cr_host->json_string(cr_host->json_get(node, "/health"));

	if (facts) {
		cr_host->result_set_fact_string(r->b, "state", state != NULL ? state : "", NULL);
		tpu_node_facts(r, node);
	}
	if (state == NULL || strcmp(state, "READY") != 0)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "TPU \"%s\" is not yet ready; state: \"%s\"", name,
					  state != NULL ? state : "None");
	if (r->t->require_healthy && health != NULL && strcmp(health, "HEALTHY") != 0)
		return cr_host->error_set(err, CR_ERR_BACKEND, "TPU \"%s\" is unhealthy: \"%s\"",
					  name, health);
	return tpu_node_endpoints(r, name, node, err);
}

/* d. GET one node; @facts: it is the node this resolution is about. */
cr_status tpu_api_node(struct tpu_run *r, const char *project, const char *zone, const char *name,
		       bool facts, cr_error *err)
{
	char *parent = NULL, *url = NULL, *full = NULL;
	cr_json *doc = NULL;
	cr_status st;

	if (facts) {
		r->source = TPU_SRC_API;
		r->name = g_strdup(name);
		cr_host->result_set_fact_string(r->b, "tpu_name", name, NULL);
	}
	st = tpu_where(r, project, zone, name, err);
	if (st != CR_OK)
		return st;
	parent = g_strdup_printf("projects/%s/locations/%s", facts ? r->project : project,
				 facts ? r->zone : zone);
	url = tpu_url(r->t, parent, "nodes", name);
	full = g_strdup_printf("%s/nodes/%s", parent, name);
	if (facts) {
		cr_host->result_set_fact_string(r->b, "api", url, NULL);
		cr_host->result_set_fact_string(r->b, "node", full, NULL);
	}
	st = tpu_get_json(r, url, &doc, err);
	if (st == CR_OK)
		st = tpu_node_parse(r, name, doc, facts, err);
	cr_host->json_free(doc);
	g_free(full);
	g_free(url);
	g_free(parent);
	return st;
}

/* One nodeSpec: its node ids, appended to @ids with their parents. */
static cr_status tpu_spec_nodes(const char *qr, const cr_json *spec, const char *dflt,
				GPtrArray *ids, cr_error *err)
{
	const char *parent = cr_host->json_string(cr_host->json_get(spec, "/parent"));
	const char *id = cr_host->json_string(cr_host->json_get(spec, "/nodeId"));
	const char *prefix =
		cr_host->json_string(cr_host->json_get(spec, "/multisliceParams/nodeIdPrefix"));
	const cr_json *count = cr_host->json_get(spec, "/multisliceParams/nodeCount");
	int64_t n = 0;

	if (parent == NULL)
		parent = dflt;
	if (prefix != NULL && cr_host->json_int(count, &n) && n > 0 && n <= 4096) {
		for (int64_t i = 0; i < n; i++)
			g_ptr_array_add(ids, g_strdup_printf("%s/nodes/%s-%" G_GINT64_FORMAT,
							     parent, prefix, i));
		return CR_OK;
	}
	if (id != NULL && *id != '\0') {
		g_ptr_array_add(ids, g_strdup_printf("%s/nodes/%s", parent, id));
		return CR_OK;
	}
	return cr_host->error_set(err, CR_ERR_PARSE,
				  "queued resource \"%s\": a nodeSpec has neither nodeId nor "
				  "multisliceParams {nodeCount, nodeIdPrefix}",
				  qr);
}

static cr_status tpu_qr_nodes(struct tpu_run *r, const char *qr, GPtrArray *ids, cr_error *err)
{
	char *parent = g_strdup_printf("projects/%s/locations/%s", r->project, r->zone);
	char *url = tpu_url(r->t, parent, "queuedResources", qr);
	const char *state;
	const cr_json *specs;
	cr_json *doc = NULL;
	cr_status st = tpu_get_json(r, url, &doc, err);

	if (st == CR_OK) {
		state = cr_host->json_string(cr_host->json_get(doc, "/state/state"));
		specs = cr_host->json_get(doc, "/tpu/nodeSpec");
		if (state != NULL && strcmp(state, "ACTIVE") != 0)
			st = cr_host->error_set(err, CR_ERR_BACKEND,
						"queued resource \"%s\" is not active; state: "
						"\"%s\"",
						qr, state);
		for (size_t i = 0; st == CR_OK && i < cr_host->json_length(specs); i++)
			st = tpu_spec_nodes(qr, cr_host->json_index(specs, i), parent, ids, err);
	}
	cr_host->json_free(doc);
	g_free(url);
	g_free(parent);
	return st;
}

/* Fetch every slice's node in order; they must be the same size. */
static cr_status tpu_fetch_slices(struct tpu_run *r, GPtrArray *ids, cr_error *err)
{
	cr_status st = CR_OK;

	g_ptr_array_set_size(r->eps, 0);
	for (guint i = 0; i < ids->len && st == CR_OK; i++) {
		char **f = g_strsplit(g_ptr_array_index(ids, i), "/", -1);
		guint before = r->eps->len;

		/* projects/P/locations/Z/nodes/N */
		if (g_strv_length(f) != 6)
			st = cr_host->error_set(err, CR_ERR_PARSE, "queued resource: bad node '%s'",
						(char *)g_ptr_array_index(ids, i));
		else
			st = tpu_api_node(r, f[1], f[3], f[5], false, err);
		if (st == CR_OK && i == 0)
			r->per_slice = r->eps->len;
		else if (st == CR_OK && r->eps->len - before != r->per_slice)
			st = cr_host->error_set(err, CR_ERR_BACKEND,
						"multislice: slice %u (TPU \"%s\") has %u workers, "
						"slice 0 has %zu",
						i, f[5], r->eps->len - before, r->per_slice);
		g_strfreev(f);
	}
	return st;
}

static void tpu_fact_slices(struct tpu_run *r, GPtrArray *ids)
{
	GString *s = g_string_new("[");

	for (guint i = 0; i < ids->len; i++)
		g_string_append_printf(s, "%s\"%s\"", i ? ", " : "",
				       (char *)g_ptr_array_index(ids, i));
	g_string_append(s, "]");
	{
		cr_json *doc = NULL;

		if (cr_host->json_parse(s->str, s->len, "slices", &doc, NULL) == CR_OK)
			cr_host->result_set_fact(r->b, "slices", doc, NULL);
		cr_host->json_free(doc);
	}
	g_string_free(s, TRUE);
}

/* Multislice: every slice's workers from the queued resource. */
cr_status tpu_api_slices(struct tpu_run *r, cr_error *err)
{
	const char *qr = r->t->queued_resource;
	GPtrArray *ids = g_ptr_array_new_with_free_func(g_free);
	cr_status st;

	cr_host->result_set_fact_string(r->b, "queued_resource", qr, NULL);
	st = tpu_where(r, r->t->project, r->t->zone, qr, err);
	if (st == CR_OK)
		st = tpu_qr_nodes(r, qr, ids, err);
	if (st == CR_OK && r->num_slices > 0 && (int64_t)ids->len != r->num_slices)
		st = cr_host->error_set(err, CR_ERR_BACKEND,
					"queued resource \"%s\" has %u slices; "
					"MEGASCALE_NUM_SLICES is %" G_GINT64_FORMAT,
					qr, ids->len, r->num_slices);
	if (st == CR_OK) {
		tpu_fact_slices(r, ids);
		st = tpu_fetch_slices(r, ids, err);
	}
	g_ptr_array_unref(ids);
	return st;
}
