/* SPDX-License-Identifier: MIT */
/*
 * gcp.c - the shared options, the handle (and dropping its token) and the
 * "on GCE?" test: the lowest layer of cr_common_gcp (layers.txt).
 *
 * The metadata server is named by the `metadata_host` option, else by the
 * environment google-auth and gcloud read (GCE_METADATA_HOST, the older
 * GCE_METADATA_ROOT, GCE_METADATA_IP), else it is 169.254.169.254: an
 * address, never metadata.google.internal, so no DNS lookup can hang
 * (TF #55307). Whether this is a GCE VM is read from DMI, as google-auth
 * does on Linux, so a machine elsewhere sends no packet to find out.
 */
#include <string.h>

#include "gcp-private.h"

static const char *const gcp_meta_env[] = { "GCE_METADATA_HOST", "GCE_METADATA_ROOT",
					    "GCE_METADATA_IP", NULL };

void gcp_opts_read(const cr_host_api *host, cr_plugin_ctx *ctx, struct gcp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->metadata_host = host->opt_string(ctx, "metadata_host");
	o->metadata_timeout_ms = (int64_t)(host->opt_float(ctx, "metadata_timeout") * 1000.0);
	o->access_token_file = host->opt_string(ctx, "access_token_file");
	o->ca_file = host->opt_string(ctx, "ca_file");
	o->retries = host->opt_int(ctx, "retries");
	o->max_retry_wait_ms = (int64_t)(host->opt_float(ctx, "max_retry_wait") * 1000.0);
	o->request_timeout_ms = (int64_t)(host->opt_float(ctx, "request_timeout") * 1000.0);
	o->root = host->opt_string(ctx, "root");
}

void gcp_wipe_free(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	g_free(s);
}

static void gcp_pick_metadata_host(struct gcp *g)
{
	const char *h = g->o.metadata_host;

	for (int i = 0; (h == NULL || *h == '\0') && gcp_meta_env[i] != NULL; i++)
		h = g->host->getenv(g->ctx, gcp_meta_env[i]);
	g->meta_explicit = h != NULL && *h != '\0';
	if (!g->meta_explicit)
		h = GCP_METADATA_DEFAULT_HOST;
	/* GCE_METADATA_ROOT was sometimes given as a URL: keep HOST[:PORT] */
	if (g_str_has_prefix(h, "http://"))
		h += strlen("http://");
	g->meta_host = g_strndup(h, strcspn(h, "/"));
}

struct gcp *gcp_new(const cr_host_api *host, cr_plugin_ctx *ctx, const struct gcp_opts *o,
		    cr_error *err)
{
	const char *root = o->root != NULL ? o->root : "/";
	struct gcp *g;
	size_t len;

	if (o->metadata_host != NULL && strchr(o->metadata_host, '@') != NULL) {
		host->error_set(err, CR_ERR_CONFIG,
				"option 'metadata_host' holds a user name or password (user@ or "
				"user:password@); refused, and not printed");
		return NULL;
	}
	if (root[0] != '/') {
		host->error_set(err, CR_ERR_CONFIG,
				"option 'root' must be an absolute path, got '%s'", root);
		return NULL;
	}
	g = g_new0(struct gcp, 1);
	g->host = host;
	g->ctx = ctx;
	g->o = *o;
	len = strlen(root);
	while (len > 0 && root[len - 1] == '/')
		len--;
	g->root = g_strndup(root, len);
	gcp_pick_metadata_host(g);
	return g;
}

void gcp_free(struct gcp *g)
{
	if (g == NULL)
		return;
	gcp_token_drop(g);
	g_free(g->root);
	g_free(g->meta_host);
	g_free(g->source);
	g_free(g);
}

bool gcp_on_gce(struct gcp *g)
{
	char *path = g_strconcat(g->root, "/sys/class/dmi/id/product_name", NULL);
	char *data = NULL;
	size_t len = 0;
	bool yes;

	yes = g->host->read_file(g->ctx, path, 4096, &data, &len, NULL) == CR_OK &&
	      g_str_has_prefix(data, "Google");
	g->host->free(data);
	g_free(path);
	return yes;
}

const char *gcp_metadata_host(const struct gcp *g)
{
	return g->meta_host;
}

bool gcp_metadata_explicit(const struct gcp *g)
{
	return g->meta_explicit;
}

const char *gcp_credential_source(const struct gcp *g)
{
	return g->source;
}

const char *gcp_last_segment(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

char *gcp_url_for_message(const char *url)
{
	return g_strndup(url, strcspn(url, "?"));
}

void gcp_token_drop(struct gcp *g)
{
	gcp_wipe_free(g->token);
	g->token = NULL;
	g->token_expiry = 0;
}
