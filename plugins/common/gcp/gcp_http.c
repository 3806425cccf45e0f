/* SPDX-License-Identifier: MIT */
/*
 * gcp_http.c - one request to a Google endpoint with Google's retry rules,
 * and Google's errors as messages; no authorisation of its own (the token
 * grants of gcp_auth.c and the authorised requests of gcp_api.c both send
 * through it).
 *
 * Compute answers a quota overrun with 403 and error.errors[].reason
 * rateLimitExceeded or userRateLimitExceeded, not only 429: those are
 * retried like 429 and 5xx, waiting what Retry-After asks (capped at
 * max_retry_wait; huge values saturate instead of overflowing), else an
 * exponential backoff. Any other 403 ("Request had insufficient
 * authentication scopes.") is final. Errors name the method, the URL
 * without its query (a page token or a long filter would crowd out the
 * reason), the HTTP status and Google's error.message.
 */
/*
 * gcp_api.c - authorised requests to Google APIs.
 *
 * Compute answers a quota overrun with 403 and error.errors[].reason
 * rateLimitExceeded or userRateLimitExceeded, not only 429: those are
 * retried like 429 and 5xx, waiting what Retry-After asks (capped at
 * max_retry_wait; huge values saturate instead of overflowing), else an
 * exponential backoff. Any other 403 ("Request had insufficient
 * authentication scopes.") is final. A 401 means the token went stale
 * (expired mid-list, revoked): it is fetched again, once. Errors name the
 * method, the URL without its query (a page token or a long filter would
 * crowd out the reason), the HTTP status and Google's error.message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gcp-private.h"
#include "httpanswer.h"

#define GCP_MESSAGE_MAX 240

/* error.errors[].reason of a Google error body includes a rate limit. */
static bool gcp_rate_limited(const struct gcp *g, const cr_http_response *resp)
{
	size_t len = 0;
	const char *body = g->host->http_body(resp, &len);
	cr_json *root = NULL;
	const cr_json *errs;
	bool yes = false;

	if (body == NULL || len == 0 ||
	    g->host->json_parse(body, len, "error", &root, NULL) != CR_OK)
		return false;
	errs = g->host->json_get(root, "/error/errors");
	for (size_t i = 0; i < g->host->json_length(errs) && !yes; i++) {
		const char *r = g->host->json_string(
			g->host->json_get(g->host->json_index(errs, i), "/reason"));

		yes = r != NULL && (strcmp(r, "rateLimitExceeded") == 0 ||
				    strcmp(r, "userRateLimitExceeded") == 0);
	}
	g->host->json_free(root);
	return yes;
}

static bool gcp_retryable(const struct gcp *g, const cr_http_response *resp)
{
	long code = g->host->http_status(resp);

	return code == 429 || (code >= 500 && code != 501) ||
	       (code == 403 && gcp_rate_limited(g, resp));
}

/* Milliseconds before try @attempt+2: Retry-After (either form), else
 * 500 ms doubled per try; never more than max_retry_wait. */
static int64_t gcp_retry_wait(const struct gcp *g, const cr_http_response *resp, int attempt)
{
	const char *ra = resp != NULL ? g->host->http_header(resp, "Retry-After") : NULL;
	int64_t cap = g->o.max_retry_wait_ms;
	int64_t ms = 500LL << (attempt < 10 ? attempt : 10);

	/* Delta-seconds or an HTTP-date, saturating. */
	if (ra != NULL)
		retry_after_ms(ra, g_get_real_time() / 1000, &ms);
	return ms < cap ? ms : cap;
}

cr_status gcp_http_send(struct gcp *g, const char *method, const char *url,
			const char *const *headers, const char *body, cr_http_response **resp,
			int *attempts, cr_error *err)
{
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	char *shown = gcp_url_for_message(url);
	cr_status rc;

	req.method = method;
	req.url = url;
	req.headers = headers;
	req.body = body;
	req.body_len = body != NULL ? strlen(body) : 0;
	req.timeout_ms = (long)g->o.request_timeout_ms;
	req.ca_file = g->o.ca_file;
	*resp = NULL;
	for (int attempt = 0;; attempt++) {
		int64_t ms;

		*attempts = attempt + 1;
		rc = g->host->http_request(g->ctx, &req, resp, err);
		if (rc == CR_ERR_TIMEOUT)
			rc = g->host->error_set(err, rc,
						"%s %s: no answer within request_timeout %.1f s",
						method, shown, (double)req.timeout_ms / 1000.0);
		if (attempt >= g->o.retries || (rc != CR_OK && rc != CR_ERR_NETWORK) ||
		    (rc == CR_OK && !gcp_retryable(g, *resp)))
			break;
		ms = gcp_retry_wait(g, rc == CR_OK ? *resp : NULL, attempt);
		if (rc == CR_OK)
			g->host->log(g->ctx, CR_LOG_INFO, "%s %s: HTTP %ld, retrying in %lld ms",
				     method, shown, g->host->http_status(*resp), (long long)ms);
		else
			g->host->log(g->ctx, CR_LOG_INFO, "%s %s: %s, retrying in %lld ms", method,
				     shown, err != NULL ? err->message : "failed", (long long)ms);
		g->host->http_response_free(*resp);
		*resp = NULL;
		g->host->sleep_ms(g->ctx, ms);
	}
	if (rc != CR_OK && *attempts > 1 && err != NULL) {
		char first[CR_ERROR_MSG_MAX];

		g_strlcpy(first, err->message, sizeof(first));
		g->host->error_set(err, rc, "%s (after %d attempts)", first, *attempts);
	}
	g_free(shown);
	return rc;
}

cr_status gcp_json_object(const cr_host_api *host, const char *text, size_t len, const char *what,
			  cr_json **root, cr_error *err)
{
	static const char *const names[] = { "null",     "a boolean", "a number",
					     "a string", "an array",  "an object" };
	cr_status rc = host->json_parse(text, len, what, root, err);
	cr_json_type type;

	if (rc != CR_OK)
		return rc;
	type = host->json_type(*root);
	if (type == CR_JSON_OBJECT)
		return CR_OK;
	host->json_free(*root);
	*root = NULL;
	return host->error_set(err, CR_ERR_PARSE, "%s: the answer is %s, not a JSON object", what,
			       (size_t)type < G_N_ELEMENTS(names) ? names[type] : "not an object");
}

cr_status gcp_http_error(struct gcp *g, const char *method, const char *url,
			 const cr_http_response *resp, int attempts, const char *what,
			 cr_error *err)
{
	long code = g->host->http_status(resp);
	size_t len = 0;
	const char *body = g->host->http_body(resp, &len);
	const char *msg = NULL, *oauth = NULL;
	char *shown = gcp_url_for_message(url), *said;
	char tries[48] = "";
	cr_json *root = NULL;
	cr_status rc;

	if (body != NULL && len > 0 && g->host->json_parse(body, len, url, &root, NULL) == CR_OK) {
		msg = g->host->json_string(g->host->json_get(root, "/error/message"));
		if (msg == NULL) { /* OAuth: {"error": "invalid_grant", "error_description"} */
			oauth = g->host->json_string(g->host->json_get(root, "/error"));
			msg = g->host->json_string(g->host->json_get(root, "/error_description"));
		}
	}
	if (attempts > 1)
		snprintf(tries, sizeof(tries), " (after %d attempts)", attempts);
	/* The Bearer token we sent is cut out: a server may echo it. */
	said = msg != NULL ? redact_secrets(msg, (const char *const[]){ g->token, NULL }) : NULL;
	msg = said;
	rc = g->host->error_set(err, http_status_code(code), "%s %s: HTTP %ld: %s%s%.*s%s%s%s%s",
				method, shown, code, oauth ? oauth : "", oauth && msg ? ": " : "",
				GCP_MESSAGE_MAX, msg ? msg : (oauth ? "" : "(no error message)"),
				msg && strlen(msg) > GCP_MESSAGE_MAX ? "..." : "", tries,
				what ? " " : "", what ? what : "");
	g->host->json_free(root);
	gcp_wipe_free(said);
	g_free(shown);
	return rc;
}
