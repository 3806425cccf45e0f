/* SPDX-License-Identifier: MIT */
/*
 * httpanswer.h - what an HTTP answer tells an HTTP backend.
 *
 * retry_after_ms: a Retry-After header value (RFC 9110 §10.2.3) as a wait:
 * delta-seconds ("120") or an HTTP-date in any of its three forms
 * ("Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
 * "Sun Nov  6 08:49:37 1994"), read without the locale.
 *
 * http_status_code: the cr_status an error status stands for, the same for
 * every backend (so `explain` and exit codes agree between them).
 *
 * What a URL option may hold and what a message may quote (urltext.c).
 */
#ifndef CR_COMMON_HTTPANSWER_H
#define CR_COMMON_HTTPANSWER_H

#include <stdbool.h>
#include <stdint.h>

#include <cluster-resolver/error.h>

/* The wait @value asks for, in milliseconds, counted from @now_unix_ms (the
 * wall clock, for the date form); saturating at INT64_MAX, 0 for a date in
 * the past. false (and *@ms untouched) when @value is neither form. */
bool retry_after_ms(const char *value, int64_t now_unix_ms, int64_t *ms);

/* 400 -> CR_ERR_INVALID_ARG; 401, 403 -> CR_ERR_AUTH; 404 ->
 * CR_ERR_NOT_FOUND; 408, 504 -> CR_ERR_TIMEOUT; any other -> CR_ERR_BACKEND. */
cr_status http_status_code(long http);

/* urltext.c. url_has_userinfo: whether @url's authority holds user@ or
 * user:password@ (refuse it where the option is read, without quoting it).
 * url_shown: @url without user info, query or fragment: what a message may
 * quote (g_free). redact_secrets: @text with every occurrence of each of
 * the NULL-terminated @secrets (4 bytes or more; NULL entries end the list)
 * replaced by "[redacted]" (g_free): a server's text that may echo what it
 * was sent. */
bool url_has_userinfo(const char *url);
/* Whether @url has a query string or a fragment: an API root has neither,
 * and a signed URL's credentials are there (refuse it, without quoting). */
bool url_has_query(const char *url);
char *url_shown(const char *url);
char *redact_secrets(const char *text, const char *const *secrets);

#endif
