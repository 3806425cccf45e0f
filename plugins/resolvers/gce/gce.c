/* SPDX-License-Identifier: MIT */
/*
 * gce.c - Compute Engine resolver: options, probe, resolve.
 *
 * The tasks are the RUNNING members of one instance group (zonal or
 * regional), as TensorFlow's GCEClusterResolver finds them, but with one
 * filtered instances.list per chunk of names where TF makes one
 * instances.get per member (Compute allows 1,500 reads a minute per
 * project), ordered by address numerically (TF sorts "ip:port" strings:
 * 10.0.0.10 before 10.0.0.2, §14.13). This VM finds itself by its metadata
 * instance/name. See docs/gce.md.
 */
#include <string.h>

#include "gce.h"
#include "httpanswer.h"

static const cr_option gce_options[] = {
	CR_OPTION("instance_group", CR_OPT_STRING, NULL, 0,
		  "instance group to resolve; \"auto\" = the one that created this VM "
		  "(without it the plugin declines)"),
	CR_OPTION("project", CR_OPT_STRING, NULL, 0,
		  "project (default: metadata project/project-id)"),
	CR_OPTION("zone", CR_OPT_STRING, NULL, 0,
		  "zone of a zonal group (default: this VM's, from metadata instance/zone)"),
	CR_OPTION("region", CR_OPT_STRING, NULL, 0, "region of a regional group (not with zone)"),
	CR_OPTION_RANGE("port", CR_OPT_INT, NULL, 0, "port of every task (or port_name)", 1, 65535),
	CR_OPTION("port_name", CR_OPT_STRING, NULL, 0,
		  "named port of the group giving the port (instanceGroups.get)"),
	CR_OPTION("task_type", CR_OPT_STRING, "worker", 0, "job name of the tasks (\"\" is legal)"),
	CR_OPTION_RANGE("task_id", CR_OPT_INT, NULL, 0,
			"this process's task (default: the index of this VM among the members)", 0,
			2147483647),
	CR_OPTION("rpc_layer", CR_OPT_STRING, "grpc", 0, "rpc layer (\"\" = none)"),
	CR_OPTION("address", CR_OPT_STRING, "internal", 0,
		  "internal (networkIP) | external (accessConfigs[0].natIP) | ipv6 (ipv6Address)"),
	CR_OPTION("order", CR_OPT_STRING, "address", 0,
		  "address (numeric) | name (digit runs as numbers) | string (TensorFlow's)"),
	CR_OPTION_RANGE("page_size", CR_OPT_INT, "500", 0, "maxResults of every list (500 = max)",
			1, 500),
	CR_OPTION_RANGE("min_instances", CR_OPT_INT, "0", 0,
			"wait until the group has this many RUNNING members", 0, 1000000),
	CR_OPTION_RANGE("wait_timeout", CR_OPT_FLOAT, "300", 0, "seconds to wait for min_instances",
			0, 86400),
	CR_OPTION_RANGE("wait_interval", CR_OPT_FLOAT, "2", 0,
			"seconds between lists while waiting", 0.01, 3600),
	CR_OPTION_RANGE("list_timeout", CR_OPT_FLOAT, "300", 0,
			"seconds one paged list may take; it may also have at most 10 pages per "
			"second of it",
			1, 86400),
	CR_OPTION("compute_endpoint", CR_OPT_STRING, GCE_DEFAULT_ENDPOINT, 0,
		  "Compute Engine API root"),
	GCP_OPTIONS,
	CR_OPTIONS_END,
};

static cr_status gce_opt_error(const cr_cfg *config, const char *name, const char *what,
			       cr_error *err)
{
	const cr_cfg *v = name ? cr_host->cfg_get(config, name) : NULL;
	const cr_cfg *at = v ? v : config;

	return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: %s", cr_host->cfg_file(at),
				  cr_host->cfg_line(at), what);
}

static int gce_pick(const char *value, const char *const *choices)
{
	for (int i = 0; choices[i]; i++)
		if (value && strcmp(value, choices[i]) == 0)
			return i;
	return -1;
}

static cr_status gce_parse_enums(cr_plugin_ctx *ctx, const cr_cfg *config, struct gce *st,
				 cr_error *err)
{
	static const char *const addr[] = { "internal", "external", "ipv6", NULL };
	static const char *const order[] = { "address", "name", "string", NULL };
	int a = gce_pick(cr_host->opt_string(ctx, "address"), addr);
	int o = gce_pick(cr_host->opt_string(ctx, "order"), order);
	char msg[200];

	if (a < 0 || o < 0) {
		const char *key = a < 0 ? "address" : "order";

		snprintf(msg, sizeof(msg), "%s \"%s\" is not one of %s", key,
			 cr_host->opt_string(ctx, key),
			 a < 0 ? "internal, external or ipv6" : "address, name or string");
		return gce_opt_error(config, key, msg, err);
	}
	st->address = (enum gce_address)a;
	st->order = (enum gce_order)o;
	return CR_OK;
}

/* zone with region, no port: errors only once instance_group is set (the
 * built-in `auto` configuration names gce with no options at all). */
static cr_status gce_check(const cr_cfg *config, struct gce *st, cr_error *err)
{
	if (st->zone && st->region)
		return gce_opt_error(config, "region",
				     "zone and region are exclusive (a group is zonal or regional)",
				     err);
	if (st->instance_group == NULL)
		return CR_OK;
	if (*st->instance_group == '\0')
		return gce_opt_error(config, "instance_group", "instance_group \"\" is empty", err);
	if (st->port == 0 && st->port_name == NULL)
		return gce_opt_error(config, NULL, "instance_group needs port or port_name", err);
	if (st->port != 0 && st->port_name != NULL)
		return gce_opt_error(config, "port_name", "port and port_name are exclusive", err);
	return CR_OK;
}

static cr_status gce_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	struct gce *st = g_new0(struct gce, 1);
	size_t n;
	cr_status rc;

	gcp_opts_read(cr_host, ctx, &st->gcp);
	st->project = cr_host->opt_string(ctx, "project");
	st->zone = cr_host->opt_string(ctx, "zone");
	st->region = cr_host->opt_string(ctx, "region");
	st->instance_group = cr_host->opt_string(ctx, "instance_group");
	st->port_name = cr_host->opt_string(ctx, "port_name");
	st->port = cr_host->opt_is_set(ctx, "port") ? cr_host->opt_int(ctx, "port") : 0;
	st->task_type = cr_host->opt_string(ctx, "task_type");
	st->task_id_set = cr_host->opt_is_set(ctx, "task_id");
	st->task_id = cr_host->opt_int(ctx, "task_id");
	st->rpc_layer = cr_host->opt_string(ctx, "rpc_layer");
	st->endpoint = cr_host->opt_string(ctx, "compute_endpoint");
	st->page_size = cr_host->opt_int(ctx, "page_size");
	st->min_instances = cr_host->opt_int(ctx, "min_instances");
	st->wait_timeout_ms = (int64_t)(cr_host->opt_float(ctx, "wait_timeout") * 1000.0);
	st->wait_interval_ms = (int64_t)(cr_host->opt_float(ctx, "wait_interval") * 1000.0);
	st->list_timeout_ms = (int64_t)(cr_host->opt_float(ctx, "list_timeout") * 1000.0);
	rc = gce_parse_enums(ctx, config, st, err);
	if (rc == CR_OK)
		rc = gce_check(config, st, err);
	n = st->endpoint ? strlen(st->endpoint) : 0;
	if (rc == CR_OK && (n == 0 || st->endpoint[n - 1] != '/' ||
			    !(g_str_has_prefix(st->endpoint, "https://") ||
			      g_str_has_prefix(st->endpoint, "http://"))))
		rc = gce_opt_error(config, "compute_endpoint",
				   "compute_endpoint must be an http(s) URL ending in '/'", err);
	if (rc == CR_OK && url_has_query(st->endpoint))
		rc = gce_opt_error(config, "compute_endpoint",
				   "compute_endpoint has a query string or fragment (?, #), which "
				   "an API root cannot; refused, and not printed",
				   err);
	if (rc == CR_OK && url_has_userinfo(st->endpoint))
		rc = gce_opt_error(config, "compute_endpoint",
				   "compute_endpoint holds a user name or password (user@ or "
				   "user:password@); refused, and not printed",
				   err);
	if (rc != CR_OK) {
		g_free(st);
		return rc;
	}
	*state = st;
	return CR_OK;
}

static void gce_destroy(void *state)
{
	struct gce *st = state;

	if (st != NULL)
		g_free(st->master);
	g_free(st);
}

/* TensorFlow's master(): `rpc_layer or self._rpc_layer`, so an rpc layer
 * of "" is this resolver's own (issue 27 section 2); the core asks this
 * with no task and learns the rule for a task's master from it. */
static cr_status gce_master(void *state, cr_plugin_ctx *ctx, const char *task_type, int64_t task_id,
			    const char *rpc_layer, cr_text *out, cr_error *err)
{
	struct gce *st = state;
	const char *layer = rpc_layer != NULL && *rpc_layer ? rpc_layer : st->rpc_layer;
	char *url;
	cr_status rc;

	(void)ctx;
	if (task_type != NULL || task_id >= 0 || st->master == NULL)
		return CR_DECLINED;
	url = layer != NULL && *layer ? g_strdup_printf("%s://%s", layer, st->master)
				      : g_strdup(st->master);
	rc = cr_host->text_set(out, url, err);
	g_free(url);
	return rc;
}

/* Without an instance group nothing to do; off GCE only when project and
 * zone/region are given (then no metadata is needed): no packet is sent. */
static cr_status gce_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	struct gce *st = state;
	struct gcp *g;
	bool on;

	if (st->instance_group == NULL)
		return cr_host->error_set(err, CR_DECLINED, "no instance_group configured");
	if (st->project && (st->zone || st->region) && strcmp(st->instance_group, "auto") != 0)
		return CR_OK;
	g = gcp_new(cr_host, ctx, &st->gcp, err);
	if (g == NULL)
		return CR_ERR_CONFIG;
	on = gcp_on_gce(g);
	gcp_free(g);
	if (on)
		return CR_OK;
	return cr_host->error_set(err, CR_DECLINED,
				  "not on Google Compute Engine (DMI product_name is not Google's)"
				  " and project with zone or region not all configured");
}

static void gce_where_clear(struct gce_where *w)
{
	g_free(w->project);
	g_free(w->scope);
	g_free(w->location);
	g_free(w->group);
	g_free(w->base);
	memset(w, 0, sizeof(*w));
}

/* A metadata value, the failure prefixed with what it was wanted for. */
static cr_status gce_meta(struct gcp *g, const char *key, const char *why, char **value,
			  cr_error *err)
{
	cr_status rc = gcp_metadata_get(g, key, value, err);

	if (rc != CR_OK && err != NULL) {
		char first[CR_ERROR_MSG_MAX];

		g_strlcpy(first, err->message, sizeof(first));
		cr_host->error_set(err, rc, "%s: %s", why, first);
	}
	return rc;
}

/* instance_group = "auto": created-by is
 * projects/N/(zones|regions)/L/instanceGroupManagers/NAME. */
static cr_status gce_auto_group(const struct gce *st, struct gcp *g, struct gce_where *w,
				cr_error *err)
{
	char *by = NULL, **parts;
	cr_status rc;

	rc = gce_meta(g, "instance/attributes/created-by",
		      "instance_group = \"auto\" (metadata instance/attributes/created-by)", &by,
		      err);
	if (rc != CR_OK)
		return rc;
	parts = g_strsplit(g_strstrip(by), "/", -1);
	if (g_strv_length(parts) != 6 || strcmp(parts[0], "projects") != 0 ||
	    (strcmp(parts[2], "zones") != 0 && strcmp(parts[2], "regions") != 0) ||
	    strcmp(parts[4], "instanceGroupManagers") != 0) {
		rc = cr_host->error_set(err, CR_ERR_BACKEND,
					"instance_group = \"auto\": this VM was created by \"%s\", "
					"not an instance group manager",
					by);
	} else {
		w->group = g_strdup(parts[5]);
		if (!st->zone && !st->region) {
			w->scope = g_strdup(parts[2]);
			w->location = g_strdup(parts[3]);
		}
	}
	g_strfreev(parts);
	g_free(by);
	return rc;
}

static cr_status gce_locate(const struct gce *st, struct gcp *g, struct gce_where *w, cr_error *err)
{
	char *v = NULL, *p, *s;
	cr_status rc = CR_OK;

	if (st->project) {
		w->project = g_strdup(st->project);
	} else {
		rc = gce_meta(g, "project/project-id", "project (metadata project/project-id)", &v,
			      err);
		if (rc != CR_OK)
			return rc;
		w->project = g_strdup(g_strstrip(v));
		g_free(v);
	}
	if (strcmp(st->instance_group, "auto") == 0)
		rc = gce_auto_group(st, g, w, err);
	else
		w->group = g_strdup(st->instance_group);
	if (rc != CR_OK || w->scope)
		goto base;
	if (st->zone || st->region) {
		w->scope = g_strdup(st->zone ? "zones" : "regions");
		w->location = g_strdup(st->zone ? st->zone : st->region);
	} else {
		rc = gce_meta(g, "instance/zone", "zone (metadata instance/zone)", &v, err);
		if (rc != CR_OK)
			return rc;
		w->scope = g_strdup("zones");
		w->location = g_strdup(gcp_last_segment(g_strstrip(v)));
		g_free(v);
	}
base:
	if (rc == CR_OK) {
		p = g_uri_escape_string(w->project, NULL, FALSE);
		s = g_uri_escape_string(w->location, NULL, FALSE);
		w->base = g_strdup_printf("%sprojects/%s/%s/%s/", st->endpoint, p, w->scope, s);
		g_free(p);
		g_free(s);
	}
	return rc;
}

static void gce_fact_int(cr_result_builder *b, const char *key, int64_t v)
{
	char text[32];
	cr_json *j = NULL;

	snprintf(text, sizeof(text), "%lld", (long long)v);
	if (cr_host->json_parse(text, strlen(text), key, &j, NULL) == CR_OK)
		cr_host->result_set_fact(b, key, j, NULL);
	cr_host->json_free(j);
}

/* How often a wait for min_instances says what it waits for. */
#define GCE_WAIT_NOTE_MS 10000

static cr_status gce_wait_members(const struct gce *st, struct gcp *g, cr_plugin_ctx *ctx,
				  const struct gce_where *w, GPtrArray **members, int *requests,
				  cr_error *err)
{
	int64_t start = cr_host->now_ms(ctx), deadline = start + st->wait_timeout_ms;
	int64_t note = start + GCE_WAIT_NOTE_MS;
	cr_status rc;

	for (;;) {
		rc = gce_list_members(st, g, w, members, requests, err);
		if (rc != CR_OK || (int64_t)(*members)->len >= st->min_instances)
			return rc;
		if (cr_host->now_ms(ctx) + st->wait_interval_ms > deadline)
			break;
		/* A round a line with -v; every 10 s of waiting, a warning. */
		if (cr_host->now_ms(ctx) >= note) {
			cr_host->log(
				ctx, CR_LOG_WARNING,
				"waiting %.0f s for instance group %s: %u of min_instances %lld "
				"RUNNING (wait_timeout %.0f s)",
				(double)(cr_host->now_ms(ctx) - start) / 1000.0, w->group,
				(*members)->len, (long long)st->min_instances,
				(double)st->wait_timeout_ms / 1000.0);
			note += GCE_WAIT_NOTE_MS;
		} else {
			cr_host->log(ctx, CR_LOG_INFO,
				     "instance group %s: %u of min_instances %lld RUNNING",
				     w->group, (*members)->len, (long long)st->min_instances);
		}
		gce_members_free(*members);
		*members = NULL;
		cr_host->sleep_ms(ctx, st->wait_interval_ms);
	}
	return cr_host->error_set(err, CR_ERR_TIMEOUT,
				  "instance group %s (%s/%s): %u RUNNING instances, fewer than "
				  "min_instances %lld after wait_timeout %.1f s",
				  w->group, w->scope, w->location, (*members)->len,
				  (long long)st->min_instances,
				  (double)st->wait_timeout_ms / 1000.0);
}

/* Names of members without an address, for the message. */
static char *gce_missing(GPtrArray *members, guint *count)
{
	GString *s = g_string_new(NULL);

	*count = 0;
	for (guint i = 0; i < members->len; i++) {
		struct gce_member *m = g_ptr_array_index(members, i);

		if (m->address != NULL)
			continue;
		if (++*count <= 5)
			g_string_append_printf(s, "%s%s (zone %s)", s->len ? ", " : "", m->name,
					       m->zone);
	}
	if (*count > 5)
		g_string_append_printf(s, " and %u more", *count - 5);
	return g_string_free(s, FALSE);
}

/* Members with addresses. A member instances.list does not know (deleted
 * between the two calls) makes the group be listed again, once. */
static cr_status gce_collect(const struct gce *st, struct gcp *g, cr_plugin_ctx *ctx,
			     const struct gce_where *w, GPtrArray **members, int *requests,
			     cr_error *err)
{
	cr_status rc;
	guint missing = 0;
	char *names;

	for (int attempt = 0;; attempt++) {
		rc = gce_wait_members(st, g, ctx, w, members, requests, err);
		if (rc == CR_OK)
			rc = gce_fill_addresses(st, g, w, *members, requests, err);
		if (rc != CR_OK)
			return rc;
		names = gce_missing(*members, &missing);
		if (missing == 0) {
			g_free(names);
			return CR_OK;
		}
		if (attempt == 1)
			break;
		cr_host->log(
			ctx, CR_LOG_INFO,
			"instance group %s: instances.list does not know %s; listing the group "
			"again",
			w->group, names);
		g_free(names);
		gce_members_free(*members);
		*members = NULL;
	}
	rc = cr_host->error_set(err, CR_ERR_BACKEND,
				"instance group %s lists %s, but instances.list does not find %s "
				"(deleted?)",
				w->group, names, missing == 1 ? "it" : "them");
	g_free(names);
	return rc;
}

static cr_status gce_build(const struct gce *st, struct gcp *g, cr_plugin_ctx *ctx, bool on_gce,
			   const struct gce_where *w, GPtrArray *members, cr_result_builder *b,
			   char **master, cr_error *err)
{
	char *self_name = NULL;
	int64_t self = -1;
	cr_status rc;

	rc = cr_host->result_add_job(b, st->task_type, err);
	for (guint i = 0; rc == CR_OK && i < members->len; i++) {
		struct gce_member *m = g_ptr_array_index(members, i);

		rc = cr_host->result_append_task(b, st->task_type, m->hostport, err);
	}
	if (rc != CR_OK)
		return rc;
	if (st->task_id_set) {
		rc = cr_host->result_set_task(b, st->task_type, st->task_id, err);
	} else {
		self = gce_find_self(g, ctx, members, on_gce, &self_name);
		if (self >= 0)
			rc = cr_host->result_set_task(b, st->task_type, self, err);
		else
			cr_host->log(ctx, CR_LOG_WARNING,
				     "this VM (%s) is not a RUNNING member of instance group %s: "
				     "identity unknown (set task_id)",
				     self_name ? self_name : "no name", w->group);
	}
	if (self >= 0)
		cr_host->result_set_fact_string(
			b, "self", ((struct gce_member *)g_ptr_array_index(members, self))->name,
			NULL);
	g_free(self_name);
	if (rc == CR_OK && (st->task_id_set ? st->task_id : self) >= 0 &&
	    (st->task_id_set ? st->task_id : self) < (int64_t)members->len)
		*master = g_strdup(((struct gce_member *)g_ptr_array_index(
					    members, (guint)(st->task_id_set ? st->task_id : self)))
					   ->hostport);
	if (rc == CR_OK && st->rpc_layer && *st->rpc_layer)
		rc = cr_host->result_set_rpc_layer(b, st->rpc_layer, err);
	return rc;
}

static cr_status gce_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	struct gce *st = state;
	struct gce_where w = { 0 };
	GPtrArray *members = NULL;
	struct gcp *g = gcp_new(cr_host, ctx, &st->gcp, err);
	int requests = 0;
	int64_t port = st->port;
	bool on_gce;
	cr_status rc;

	if (g == NULL)
		return CR_ERR_CONFIG;
	on_gce = gcp_on_gce(g);
	w.ctx = ctx;
	rc = gce_locate(st, g, &w, err);
	if (rc != CR_OK)
		goto out;
	cr_host->result_set_fact_string(b, "project", w.project, NULL);
	cr_host->result_set_fact_string(b, strcmp(w.scope, "zones") == 0 ? "zone" : "region",
					w.location, NULL);
	cr_host->result_set_fact_string(b, "instance_group", w.group, NULL);
	if (st->port_name)
		rc = gce_named_port(st, g, &w, st->port_name, &port, err);
	if (rc == CR_OK)
		rc = gce_collect(st, g, ctx, &w, &members, &requests, err);
	if (gcp_credential_source(g))
		cr_host->result_set_fact_string(b, "credentials", gcp_credential_source(g), NULL);
	if (rc != CR_OK)
		goto out;
	gce_fact_int(b, "members", members->len);
	for (guint i = 0; i < members->len; i++) {
		struct gce_member *m = g_ptr_array_index(members, i);

		m->hostport = g_strdup_printf(strchr(m->address, ':') ? "[%s]:%lld" : "%s:%lld",
					      m->address, (long long)port);
	}
	gce_sort(st, members);
	g_clear_pointer(&st->master, g_free);
	rc = gce_build(st, g, ctx, on_gce, &w, members, b, &st->master, err);
out:
	gce_fact_int(b, "api_requests", requests);
	gce_members_free(members);
	gce_where_clear(&w);
	gcp_free(g);
	return rc;
}

static const cr_resolver_ops gce_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = gce_create,
	.destroy = gce_destroy,
	.probe = gce_probe,
	.resolve = gce_resolve,
	.master = gce_master,
};

static const cr_plugin_desc gce_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "gce",
	.version = "1.0.0",
	.description = "Compute Engine instance group members (zonal or regional)",
	.options = gce_options,
	.option_size = sizeof(cr_option),
	.resolver = &gce_ops,
	.accelerator = NULL,
	.flags = 0,
	/* Polled (no watch in the API): every 30 s by default, 10 s at least,
	 * so that a job of many tasks stays inside the API's rate limits. */
	.watch_interval_s = 30,
	.watch_interval_min_s = 10,
};

CR_PLUGIN_DEFINE(gce_desc)
