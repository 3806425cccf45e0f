/* SPDX-License-Identifier: MIT */
/*
 * aws_sigv4.h - AWS Signature Version 4 and signed Query-API requests.
 *
 *   aws_sigv4.c  the signer: canonical request, string to sign, signing key
 *                (HMAC-SHA256 through GLib's GHmac), the header lines. Pure:
 *                no host calls, so the fuzz target and the vector test link
 *                it alone.
 *   aws_query.c  aws_query_post(): one signed (or unsigned) Query-API POST
 *                with botocore's `standard` / `adaptive` retries
 *                (aws_retry.c), and the error message of an EC2
 *                `Response/Errors/Error` or STS `ErrorResponse/Error` answer
 *                (aws_xml.c).
 *
 * Shared with the credential chain (aws_creds.c, aws_sts.c): STS AssumeRole
 * posts signed, AssumeRoleWithWebIdentity unsigned (creds == NULL).
 */
#ifndef AWS_SIGV4_H
#define AWS_SIGV4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <cluster-resolver/plugin.h>

/** What one signature covers. Every string is borrowed. */
struct aws_sigv4_input {
	const char *method;       /* "POST", "GET" */
	const char *url;          /* http(s)://host[:port]/path[?query] */
	const char *region;       /* "us-east-1" */
	const char *service;      /* "ec2", "sts", "iam" */
	const char *content_type; /* (nullable) signed as content-type when set */
	const char *body;         /* (nullable) payload, @body_len bytes */
	size_t body_len;
	const char *amz_date;          /* "20150830T123600Z" (UTC) */
	const char *access_key_id;     /* AKID */
	const char *secret_access_key; /* secret: never copied out */
	const char *session_token;     /* (nullable) signed as x-amz-security-token */
};

/**
 * struct aws_sigv4_signed - the result of aws_sigv4_sign(). All owned; free
 * with aws_sigv4_signed_clear().
 * @headers: NULL-terminated "Name: value" lines to send besides Content-Type
 *     (the HTTP client sends Host from the URL): X-Amz-Date,
 *     X-Amz-Security-Token (with a session token), Authorization.
 * @canonical_request, @string_to_sign: for tests and the fuzz target.
 * @signature: 64 lower-case hex digits.
 */
struct aws_sigv4_signed {
	char **headers;
	char *canonical_request;
	char *string_to_sign;
	char *signature;
};

/**
 * aws_sigv4_sign:
 * Sign @in. The canonical request follows the SigV4 specification (and
 * botocore): the path with dot segments and empty segments removed, each
 * byte outside A-Z a-z 0-9 - _ . ~ / percent-encoded; the query's
 * parameters decoded, re-encoded and sorted; the signed headers
 * content-type (when given), host (lower case, keeping a port other than
 * the scheme's default), x-amz-date and x-amz-security-token (with a
 * session token); the payload's SHA-256.
 * Returns: true, or false with *@why (static text) for a URL that is not
 * absolute http(s) or an @amz_date that is not YYYYMMDDTHHMMSSZ.
 */
bool aws_sigv4_sign(const struct aws_sigv4_input *in, struct aws_sigv4_signed *out,
		    const char **why);
void aws_sigv4_signed_clear(struct aws_sigv4_signed *s);

/** Canonical URI of a URL path (transfer full, g_free). */
char *aws_sigv4_canonical_uri(const char *path, size_t len);
/** Canonical query string of a raw query (no '?'; transfer full, g_free). */
char *aws_sigv4_canonical_query(const char *query, size_t len);
/** Host header value for @url: lower-case host, ":port" unless the scheme's
 *  default. Also the path and query as they appear in the URL (no '?').
 *  Returns: false when @url is not absolute http:// or https://. */
bool aws_sigv4_split_url(const char *url, char **host, char **path, char **query);
/** Percent-encode @len bytes as SigV4 does: keep A-Z a-z 0-9 - _ . ~ and,
 *  with @keep_slash, '/'. Appends to @out (a GString). */
void aws_sigv4_encode(GString *out, const char *s, size_t len, bool keep_slash);
/** "YYYYMMDDTHHMMSSZ" for @unix_ms (UTC); @buf has room for 17 bytes. */
void aws_sigv4_amz_date(int64_t unix_ms, char buf[17]);

/* ---- aws_query.c ------------------------------------------------------- */

struct aws_env;
struct aws_creds;

/**
 * aws_query_post:
 * @env: where and how (context, CA file, timeouts, retry settings).
 * @creds: (nullable) sign with these; NULL sends the request unsigned
 *     (STS AssumeRoleWithWebIdentity).
 * @endpoint: "https://ec2.us-east-1.amazonaws.com/" (used as the URL and in
 *     messages).
 * @region, @service: for the signature's scope.
 * @body: "Action=...&Version=..." (application/x-www-form-urlencoded).
 * @resp, @len: (out) (transfer full) the 200 answer's body, g_free.
 *
 * POST @body to @endpoint with `Content-Type: application/x-www-form-
 * urlencoded; charset=utf-8`, signed afresh for each attempt, and retry as
 * botocore's standard mode does (AWS_RETRY_MODE, AWS_MAX_ATTEMPTS; see
 * aws_retry.c). An answer other than 200 becomes "POST ENDPOINT: HTTP 401:
 * AuthFailure: MESSAGE" from its XML error; keys never appear.
 * Returns: CR_OK; CR_ERR_AUTH (401/403, AuthFailure, UnauthorizedOperation,
 * RequestExpired, ...), CR_ERR_INVALID_ARG (400 other codes),
 * CR_ERR_NETWORK, CR_ERR_TIMEOUT, CR_ERR_BACKEND (5xx after the retries,
 * other statuses).
 */
cr_status aws_query_post(const struct aws_env *env, const struct aws_creds *creds,
			 const char *endpoint, const char *region, const char *service,
			 const char *body, char **resp, size_t *len, cr_error *err);

/**
 * aws_query_error_message:
 * Read the code, message and request id of an AWS XML error answer: EC2's
 * `Response/Errors/Error/{Code,Message}` + `RequestID`, or STS's
 * `ErrorResponse/Error/{Code,Message}` + `RequestId`. (transfer full)
 * g_free each; NULL when absent.
 * Returns: false when @body is not such a document.
 */
bool aws_query_error_message(const char *body, size_t len, char **code, char **message,
			     char **request_id);

#endif /* AWS_SIGV4_H */
