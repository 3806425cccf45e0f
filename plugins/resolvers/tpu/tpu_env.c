/* SPDX-License-Identifier: MIT */
/*
 * tpu_env.c - the lowest layer of tpu.so: what the process's environment
 * and the text of TPU variables say. Endpoint lists (`tpu`,
 * KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS, TPU_PROCESS_ADDRESSES, the metadata's
 * worker-network-endpoints) and their ports, the TPU VM's tpu-env
 * attribute, a variable that is set and not empty, and whether the
 * metadata server may be asked at all. The sources (tpu_source.c) and the
 * Cloud TPU API (tpu_api.c) both stand on it.
 */
#include <stdlib.h>
#include <string.h>

#include "tpu.h"

void tpu_ep_free(gpointer p)
{
	struct tpu_ep *ep = p;

	if (ep == NULL)
		return;
	g_free(ep->ip);
	g_free(ep->port);
	g_free(ep);
}

/* A value TensorFlow does not look up: grpc://…, or a list or host:port. */
bool tpu_is_endpoint_list(const char *text)
{
	return g_str_has_prefix(text, "grpc://") || strchr(text, ':') != NULL ||
	       strchr(text, ',') != NULL;
}

bool tpu_port_ok(const char *p)
{
	char *end = NULL;
	long v;

	if (*p < '0' || *p > '9')
		return false;
	v = strtol(p, &end, 10);
	return *end == '\0' && v >= 1 && v <= 65535;
}

/* One item `[grpc://]host[:port]` (a bracketed IPv6 host keeps its
 * brackets); the port stays text, as the API gives it. */
static cr_status tpu_parse_item(const char *item, const char *what, size_t i, const char *port,
				GPtrArray *eps, cr_error *err)
{
	const char *s = g_str_has_prefix(item, "grpc://") ? item + 7 : item;
	const char *colon = s[0] == '[' ? strstr(s, "]:") : strchr(s, ':');
	struct tpu_ep *ep;

	if (colon != NULL && s[0] == '[')
		colon++;
	if (*s == '\0' || colon == s)
		return cr_host->error_set(err, CR_ERR_PARSE, "%s: item %zu '%s' has no host", what,
					  i + 1, item);
	if (colon != NULL && !tpu_port_ok(colon + 1))
		return cr_host->error_set(
			err, CR_ERR_PARSE,
			"%s: item %zu '%s': port '%s' is not a number in 1..65535", what, i + 1,
			item, colon + 1);
	ep = g_new0(struct tpu_ep, 1);
	ep->ip = colon != NULL ? g_strndup(s, (gsize)(colon - s)) : g_strdup(s);
	ep->port = g_strdup(colon != NULL ? colon + 1 : port);
	g_ptr_array_add(eps, ep);
	return CR_OK;
}

/* A comma list of endpoints; @what names its variable or option. */
cr_status tpu_parse_endpoints(const char *text, const char *what, const char *port, GPtrArray *eps,
			      cr_error *err)
{
	char **items = g_strsplit(text, ",", -1);
	cr_status st = CR_OK;

	for (size_t i = 0; items[i] != NULL && st == CR_OK; i++)
		st = tpu_parse_item(g_strstrip(items[i]), what, i, port, eps, err);
	g_strfreev(items);
	return st;
}

/* worker-network-endpoints: "name:id:ip" items (the third field is the
 * worker's address), or bare host names; in worker order. */
cr_status tpu_parse_worker_endpoints(const char *text, const char *port, GPtrArray *eps,
				     cr_error *err)
{
	char **items = g_strsplit(text, ",", -1);
	cr_status st = CR_OK;

	for (size_t i = 0; items[i] != NULL && st == CR_OK; i++) {
		char **f = g_strsplit(g_strstrip(items[i]), ":", -1);
		guint n = g_strv_length(f);
		const char *host = n == 3 ? f[2] : n == 1 ? f[0] : "";
		struct tpu_ep *ep;

		if (*host == '\0') {
			st = cr_host->error_set(err, CR_ERR_PARSE,
						"metadata worker-network-endpoints: item %zu '%s' "
						"is neither a host name nor name:id:address",
						i + 1, items[i]);
		} else {
			ep = g_new0(struct tpu_ep, 1);
			ep->ip = g_strdup(host);
			ep->port = g_strdup(port);
			g_ptr_array_add(eps, ep);
		}
		g_strfreev(f);
	}
	g_strfreev(items);
	if (st == CR_OK && eps->len == 0)
		st = cr_host->error_set(err, CR_ERR_PARSE,
					"metadata worker-network-endpoints is empty");
	return st;
}

/* tpu-env: one `KEY: 'value'` per line (quotes optional); other lines are
 * skipped. */
GHashTable *tpu_parse_env(const char *text)
{
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	char **lines = g_strsplit(text, "\n", -1);

	for (size_t i = 0; lines[i] != NULL; i++) {
		char *colon = strchr(lines[i], ':');
		char *key, *val;
		size_t n;

		if (colon == NULL)
			continue;
		*colon = '\0';
		key = g_strstrip(lines[i]);
		val = g_strstrip(colon + 1);
		n = strlen(val);
		if (n >= 2 && ((val[0] == '\'' && val[n - 1] == '\'') ||
			       (val[0] == '"' && val[n - 1] == '"'))) {
			val[n - 1] = '\0';
			val++;
		}
		if (*key != '\0')
			g_hash_table_replace(h, g_strdup(key), g_strdup(val));
	}
	g_strfreev(lines);
	return h;
}

/* The variable @name when it is set and not empty, else NULL. */
const char *tpu_getenv(cr_plugin_ctx *ctx, const char *name)
{
	const char *v = cr_host->getenv(ctx, name);

	return v != NULL && *v != '\0' ? v : NULL;
}

/* Why the metadata server may not be asked (NULL: it may): not on GCE, or
 * TPU_SKIP_MDS_QUERY, JAX's escape for pods that cannot reach it. */
const char *tpu_no_metadata(struct tpu_run *r)
{
	if (tpu_getenv(r->ctx, "TPU_SKIP_MDS_QUERY") != NULL)
		return "TPU_SKIP_MDS_QUERY is set";
	if (!gcp_on_gce(r->g))
		return "not on GCE";
	return NULL;
}
