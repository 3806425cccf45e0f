/* SPDX-License-Identifier: MIT */
/*
 * aws_query.c - one Query-API POST (EC2, STS), signed with SigV4 afresh for
 * each attempt, retried as botocore's standard mode (aws_retry.c), and the
 * AWS XML error answer made into one line:
 *
 *   POST https://ec2.us-east-1.amazonaws.com/: HTTP 401: AuthFailure: AWS
 *   was not able to validate the provided access credentials
 *
 * The request id is logged at info level (-v); keys, tokens and the
 * Authorization header never reach a message or a log line.
 */
#include <string.h>

#include "aws_creds.h"
#include "aws_query.h"
#include "aws_xml.h"
#include "httpanswer.h"

#define AWS_FORM "application/x-www-form-urlencoded; charset=utf-8"
#define AWS_MSG_MAX 300

bool aws_query_error_message(const char *body, size_t len, char **code, char **message,
			     char **request_id)
{
	static const char *const paths[] = {
		"Response/Errors/Error/Code",
		"Response/Errors/Error/Message",
		"Response/RequestID",
		"ErrorResponse/Error/Code",
		"ErrorResponse/Error/Message",
		"ErrorResponse/RequestId",
		NULL,
	};
	char *v[G_N_ELEMENTS(paths)] = { 0 };
	char *why = NULL;

	*code = *message = *request_id = NULL;
	if (!body || !len || !aws_xml_text(body, len, paths, v, &why)) {
		g_free(why);
		return false;
	}
	*code = v[0] ? v[0] : v[3];
	*message = v[1] ? v[1] : v[4];
	*request_id = v[2] ? v[2] : v[5];
	g_free(v[0] ? v[3] : NULL);
	g_free(v[1] ? v[4] : NULL);
	g_free(v[2] ? v[5] : NULL);
	return *code != NULL;
}

static cr_status aws_error_status(long http, const char *code)
{
	static const char *const auth[] = { "AuthFailure",
					    "UnauthorizedOperation",
					    "RequestExpired",
					    "SignatureDoesNotMatch",
					    "InvalidClientTokenId",
					    "ExpiredToken",
					    "AccessDenied",
					    "MissingAuthenticationToken",
					    "OptInRequired",
					    "InvalidIdentityToken",
					    NULL };

	for (int i = 0; code && auth[i]; i++)
		if (strcmp(code, auth[i]) == 0)
			return CR_ERR_AUTH;
	if (http == 401 || http == 403)
		return CR_ERR_AUTH;
	if (http == 400)
		return CR_ERR_INVALID_ARG;
	if (http == 504)
		return CR_ERR_TIMEOUT;
	return CR_ERR_BACKEND;
}

/* The answer's error as one line; the request id goes to the log. The
 * credentials we signed with are cut out of the server's message: a
 * server may echo the session token (X-Amz-Security-Token). */
static cr_status aws_http_error(const struct aws_env *env, const struct aws_creds *creds,
				const char *endpoint, const cr_http_response *resp, int attempts,
				cr_error *err)
{
	const char *secrets[] = { creds ? creds->secret_access_key : NULL,
				  creds ? creds->session_token : NULL, NULL };
	long http = env->host->http_status(resp);
	size_t len = 0;
	const char *body = env->host->http_body(resp, &len);
	char *code = NULL, *msg = NULL, *rid = NULL;
	char tries[48] = "";
	cr_status rc;

	aws_query_error_message(body, len, &code, &msg, &rid);
	if (msg) {                                         /* one line, whatever the server wrote */
		char *said = redact_secrets(msg, secrets); /* a NULL entry ends the list */

		explicit_bzero(msg, strlen(msg));
		g_free(msg);
		msg = g_strdelimit(g_strstrip(said), "\r\n\t", ' ');
	}
	if (attempts > 1)
		g_snprintf(tries, sizeof(tries), " (after %d attempts)", attempts);
	if (rid)
		env->host->log(env->ctx, CR_LOG_INFO, "POST %s: HTTP %ld: RequestID %s", endpoint,
			       http, rid);
	if (code)
		rc = env->host->error_set(err, aws_error_status(http, code),
					  "POST %s: HTTP %ld: %s: %.*s%s%s", endpoint, http, code,
					  AWS_MSG_MAX, msg ? msg : "(no message)",
					  msg && strlen(msg) > AWS_MSG_MAX ? "..." : "", tries);
	else
		rc = env->host->error_set(err, aws_error_status(http, NULL),
					  "POST %s: HTTP %ld: no AWS error in the answer%s",
					  endpoint, http, tries);
	g_free(code);
	g_free(msg);
	g_free(rid);
	return rc;
}

/* One attempt: sign now, POST. */
static cr_status aws_attempt(const struct aws_env *env, const struct aws_creds *creds,
			     const char *endpoint, const char *region, const char *service,
			     const char *body, cr_http_response **resp, cr_error *err)
{
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	struct aws_sigv4_signed sig = { 0 };
	const char *headers[8];
	char date[17];
	const char *why = NULL;
	size_t n = 0;
	cr_status rc;

	headers[n++] = "Content-Type: " AWS_FORM;
	headers[n++] = "User-Agent: cluster-resolver-aws/" CR_VERSION_STRING;
	if (creds) {
		struct aws_sigv4_input in = { "POST",
					      endpoint,
					      region,
					      service,
					      AWS_FORM,
					      body,
					      strlen(body),
					      date,
					      creds->access_key_id,
					      creds->secret_access_key,
					      creds->session_token };

		aws_sigv4_amz_date(g_get_real_time() / 1000, date);
		if (!aws_sigv4_sign(&in, &sig, &why))
			return env->host->error_set(err, CR_ERR_INVALID_ARG, "POST %s: %s",
						    endpoint, why);
		for (char **h = sig.headers; *h && n < G_N_ELEMENTS(headers) - 1; h++)
			headers[n++] = *h;
	}
	headers[n] = NULL;
	req.method = "POST";
	req.url = endpoint;
	req.headers = headers;
	req.body = body;
	req.body_len = strlen(body);
	req.timeout_ms = env->timeout_ms;
	req.connect_timeout_ms = env->connect_timeout_ms;
	req.ca_file = env->ca_file;
	rc = env->host->http_request(env->ctx, &req, resp, err);
	if (rc == CR_ERR_TIMEOUT)
		rc = env->host->error_set(
			err, rc,
			"POST %s: timed out (connect_timeout %.1f s, request_timeout %.1f s)",
			endpoint, (double)req.connect_timeout_ms / 1000.0,
			(double)req.timeout_ms / 1000.0);
	aws_sigv4_signed_clear(&sig);
	return rc;
}

static char *aws_answer_code(const struct aws_env *env, const cr_http_response *resp)
{
	size_t len = 0;
	const char *body = env->host->http_body(resp, &len);
	char *code = NULL, *msg = NULL, *rid = NULL;

	aws_query_error_message(body, len, &code, &msg, &rid);
	g_free(msg);
	g_free(rid);
	return code;
}

/* Wait before the next attempt; false when the retry quota is spent. */
static bool aws_backoff(const struct aws_env *env, struct aws_retry *retry, const char *endpoint,
			int attempt, bool timeout, const char *what)
{
	int64_t ms = aws_retry_delay_ms(retry, attempt, timeout);

	if (ms < 0)
		return false;
	env->host->log(env->ctx, CR_LOG_INFO, "POST %s: %s, retrying in %lld ms (attempt %d of %d)",
		       endpoint, what, (long long)ms, attempt + 1, retry->max_attempts);
	env->host->sleep_ms(env->ctx, ms);
	return true;
}

cr_status aws_query_send(const struct aws_env *env, struct aws_retry *retry,
			 const struct aws_creds *creds, const char *endpoint, const char *region,
			 const char *service, const char *body, cr_http_response **out,
			 cr_error *err)
{
	cr_http_response *resp = NULL;
	bool timed_out = false;
	cr_status rc;
	int attempt;

	*out = NULL;
	for (attempt = 1;; attempt++) {
		int64_t wait = aws_retry_acquire(retry, env->host->now_ms(env->ctx));
		char *code = NULL, what[64];
		long http = 0;

		if (wait > 0) {
			env->host->log(env->ctx, CR_LOG_INFO,
				       "POST %s: adaptive rate limit, waiting %lld ms to send",
				       endpoint, (long long)wait);
			env->host->sleep_ms(env->ctx, wait);
		}
		rc = aws_attempt(env, creds, endpoint, region, service, body, &resp, err);
		if (rc == CR_OK) {
			http = env->host->http_status(resp);
			code = http == 200 ? NULL : aws_answer_code(env, resp);
		}
		aws_retry_update(retry, env->host->now_ms(env->ctx), aws_retry_is_throttle(code));
		if ((rc == CR_OK && http == 200) || attempt >= retry->max_attempts ||
		    !aws_retry_retryable(rc, http, code)) {
			g_free(code);
			break;
		}
		if (rc == CR_OK)
			g_snprintf(what, sizeof(what), "HTTP %ld %s", http, code ? code : "");
		else
			g_snprintf(what, sizeof(what), "%s", env->host->strerror(rc));
		g_free(code);
		timed_out = rc == CR_ERR_TIMEOUT;
		env->host->http_response_free(resp);
		resp = NULL;
		if (!aws_backoff(env, retry, endpoint, attempt, timed_out, g_strchomp(what)))
			break;
	}
	if (rc == CR_OK && env->host->http_status(resp) != 200)
		rc = aws_http_error(env, creds, endpoint, resp, attempt, err);
	if (rc == CR_OK) {
		aws_retry_success(retry, attempt > 1, timed_out);
		*out = resp;
	} else {
		env->host->http_response_free(resp);
	}
	return rc;
}

cr_status aws_query_post_retry(const struct aws_env *env, struct aws_retry *retry,
			       const struct aws_creds *creds, const char *endpoint,
			       const char *region, const char *service, const char *body,
			       char **resp_body, size_t *resp_len, cr_error *err)
{
	cr_http_response *resp = NULL;
	cr_status rc;

	*resp_body = NULL;
	*resp_len = 0;
	rc = aws_query_send(env, retry, creds, endpoint, region, service, body, &resp, err);
	if (rc == CR_OK) {
		const char *b = env->host->http_body(resp, resp_len);

		*resp_body = g_memdup2(b, *resp_len + 1);
	}
	env->host->http_response_free(resp);
	return rc;
}

cr_status aws_query_post(const struct aws_env *env, const struct aws_creds *creds,
			 const char *endpoint, const char *region, const char *service,
			 const char *body, char **resp, size_t *len, cr_error *err)
{
	struct aws_retry retry;
	const char *mode = env->host->getenv(env->ctx, "AWS_RETRY_MODE");

	if (!aws_retry_init(&retry, env->max_attempts, mode))
		aws_retry_init(&retry, env->max_attempts, NULL);
	return aws_query_post_retry(env, &retry, creds, endpoint, region, service, body, resp, len,
				    err);
}
