/* SPDX-License-Identifier: MIT */
/*
 * gcp-private.h - the handle's layout and helpers shared by the files of
 * cr_common_gcp, grouped by the file that defines them, lowest layer first
 * (layers.txt). Not for plugins: they include gcp.h.
 */
#ifndef CR_COMMON_GCP_PRIVATE_H
#define CR_COMMON_GCP_PRIVATE_H

#include <glib.h>

#include "gcp.h"

struct gcp {
	const cr_host_api *host;
	cr_plugin_ctx *ctx;
	struct gcp_opts o;
	char *root;           /* "" for /, else without a trailing '/' */
	char *meta_host;      /* HOST[:PORT] */
	bool meta_explicit;   /* named by the option or the environment */
	char *token;          /* bearer token, wiped when dropped */
	int64_t token_expiry; /* now_ms after which it is stale; 0 = never */
	char *source;         /* where the token came from */
};

/* gcp.c */

/** Wipe and free a secret string. */
void gcp_wipe_free(char *s);

/** Drop the cached token. */
void gcp_token_drop(struct gcp *g);

/** @url without its query, for messages (g_free). */
char *gcp_url_for_message(const char *url);

/* gcp_http.c */

/**
 * gcp_http_send: one request with the retry policy of gcp_api_request
 * (429, 5xx, 403 rate limits, transport failures), no authorisation of
 * its own. *@resp holds the last answer (any status) on CR_OK;
 * *@attempts the number of tries.
 */
cr_status gcp_http_send(struct gcp *g, const char *method, const char *url,
			const char *const *headers, const char *body, cr_http_response **resp,
			int *attempts, cr_error *err);

/**
 * gcp_http_error: the error for a non-2xx answer @resp of METHOD @url:
 * "METHOD URL: HTTP CODE: MESSAGE" with Google's error.message (or the
 * OAuth error and error_description), " (after N attempts)" when retried.
 */
cr_status gcp_http_error(struct gcp *g, const char *method, const char *url,
			 const cr_http_response *resp, int attempts, const char *what,
			 cr_error *err);

/* gcp_auth.c */

/**
 * gcp_token_get: make sure g->token holds a usable token, asking the
 * credential chain when there is none or it expired.
 * Returns: CR_OK, CR_ERR_AUTH (no credentials, a refused grant), or the
 *     failure of the token request.
 */
cr_status gcp_token_get(struct gcp *g, cr_error *err);

#endif /* CR_COMMON_GCP_PRIVATE_H */
