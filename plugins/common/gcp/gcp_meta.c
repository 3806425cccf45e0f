/* SPDX-License-Identifier: MIT */
/*
 * gcp_meta.c - reading the metadata server.
 *
 * GET http://HOST/computeMetadata/v1/KEY with Metadata-Flavor: Google. A
 * hung or silent server must not hang the job (TF #34564, JAX #40854): the
 * whole read, all three tries included, has `metadata_timeout` (2 s by
 * default). A server that answers without Metadata-Flavor: Google is not
 * the metadata server (a captive portal, a proxy) and is not believed.
 */
#include <string.h>

#include "gcp-private.h"

#define GCP_META_TRIES 3

static bool gcp_meta_flavored(const struct gcp *g, const cr_http_response *resp)
{
	const char *f = g->host->http_header(resp, "Metadata-Flavor");

	return f != NULL && strcmp(f, "Google") == 0;
}

/* The answer @resp to @url, judged: CR_OK (value copied), an error, or
 * CR_ERR_NETWORK with *@again set for a 5xx worth another try. */
static cr_status gcp_meta_judge(struct gcp *g, const char *url, const cr_http_response *resp,
				char **value, bool *again, cr_error *err)
{
	long code = g->host->http_status(resp);
	size_t len = 0;
	const char *body = g->host->http_body(resp, &len);

	*again = false;
	if (!gcp_meta_flavored(g, resp))
		return g->host->error_set(err, CR_ERR_BACKEND,
					  "GET %s: HTTP %ld without Metadata-Flavor: Google: not a "
					  "metadata server",
					  url, code);
	if (code == 200) {
		*value = g_strndup(body != NULL ? body : "", len);
		return CR_OK;
	}
	if (code == 404)
		return g->host->error_set(err, CR_ERR_NOT_FOUND, "GET %s: HTTP 404: no such key",
					  url);
	*again = code >= 500;
	return g->host->error_set(err, code >= 500 ? CR_ERR_NETWORK : CR_ERR_BACKEND,
				  "GET %s: HTTP %ld: %.*s", url, code,
				  (int)strcspn(body ? body : "", "\n"), body ? body : "");
}

cr_status gcp_metadata_get(struct gcp *g, const char *key, char **value, cr_error *err)
{
	char *url = g_strdup_printf("http://%s/computeMetadata/v1/%s", g->meta_host, key);
	const char *headers[] = { "Metadata-Flavor: Google", NULL };
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	int64_t deadline = g->host->now_ms(g->ctx) + g->o.metadata_timeout_ms;
	cr_status rc = CR_ERR_TIMEOUT;
	int tries = 0;

	*value = NULL;
	req.url = url;
	req.headers = headers;
	while (tries < GCP_META_TRIES) {
		int64_t left = deadline - g->host->now_ms(g->ctx);
		cr_http_response *resp = NULL;
		bool again = false;

		if (left <= 0) {
			rc = CR_ERR_TIMEOUT;
			break;
		}
		req.timeout_ms = (long)left;
		req.connect_timeout_ms = (long)left;
		tries++;
		rc = g->host->http_request(g->ctx, &req, &resp, err);
		if (rc == CR_OK) {
			rc = gcp_meta_judge(g, url, resp, value, &again, err);
			g->host->http_response_free(resp);
			if (!again)
				break;
		} else if (rc != CR_ERR_NETWORK && rc != CR_ERR_TIMEOUT) {
			break;
		}
		if (tries < GCP_META_TRIES) {
			left = deadline - g->host->now_ms(g->ctx);
			g->host->sleep_ms(g->ctx, left < 100 ? (left > 0 ? left : 0) : 100);
		}
	}
	if (rc == CR_ERR_TIMEOUT)
		g->host->error_set(err, rc,
				   "GET %s: no answer from the metadata server within "
				   "metadata_timeout %.1f s (%d %s)",
				   url, (double)g->o.metadata_timeout_ms / 1000.0, tries,
				   tries == 1 ? "try" : "tries");
	g_free(url);
	return rc;
}
