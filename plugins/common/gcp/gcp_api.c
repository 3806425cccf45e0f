/* SPDX-License-Identifier: MIT */
/*
 * gcp_api.c - authorised requests to Google APIs: a token from the
 * credential chain (gcp_auth.c) as the Bearer, the request sent with
 * Google's retry rules (gcp_http.c). A 401 means the token went stale
 * (expired mid-list, revoked): it is fetched again, once.
 */
#include "gcp-private.h"

cr_status gcp_api_request(struct gcp *g, const char *method, const char *url, const char *body,
			  char **resp_body, size_t *resp_len, cr_error *err)
{
	cr_http_response *resp = NULL;
	bool refreshed = false;
	int attempts = 0;
	cr_status rc;

	if (resp_body != NULL)
		*resp_body = NULL;
	for (;;) {
		char *auth;
		cr_status sent;

		rc = gcp_token_get(g, err);
		if (rc != CR_OK)
			return rc;
		auth = g_strconcat("Authorization: Bearer ", g->token, NULL);
		{
			const char *headers[] = { "Accept: application/json",
						  "User-Agent: cluster-resolver/" CR_VERSION_STRING,
						  body ? "Content-Type: application/json" : auth,
						  body ? auth : NULL, NULL };

			sent = gcp_http_send(g, method, url, headers, body, &resp, &attempts, err);
		}
		gcp_wipe_free(auth);
		if (sent != CR_OK)
			return sent;
		if (g->host->http_status(resp) != 401 || refreshed)
			break;
		g->host->log(g->ctx, CR_LOG_INFO, "%s: HTTP 401, asking for a new token",
			     g->source ? g->source : "token");
		refreshed = true;
		gcp_token_drop(g);
		g->host->http_response_free(resp);
		resp = NULL;
	}
	if (g->host->http_status(resp) / 100 != 2) {
		rc = gcp_http_error(g, method, url, resp, attempts, NULL, err);
	} else {
		size_t len = 0;
		const char *text = g->host->http_body(resp, &len);

		if (resp_body != NULL)
			*resp_body = g_strndup(text != NULL ? text : "", len);
		if (resp_len != NULL)
			*resp_len = len;
		rc = CR_OK;
	}
	g->host->http_response_free(resp);
	return rc;
}
