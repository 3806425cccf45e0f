/* SPDX-License-Identifier: MIT */
/*
 * retryafter.h - a Retry-After header value (RFC 9110 §10.2.3) as a wait:
 * delta-seconds ("120") or an HTTP-date in any of its three forms
 * ("Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
 * "Sun Nov  6 08:49:37 1994"), read without the locale.
 */
#ifndef CR_COMMON_RETRYAFTER_H
#define CR_COMMON_RETRYAFTER_H

#include <stdbool.h>
#include <stdint.h>

/* The wait @value asks for, in milliseconds, counted from @now_unix_ms (the
 * wall clock, for the date form); saturating at INT64_MAX, 0 for a date in
 * the past. false (and *@ms untouched) when @value is neither form. */
bool retry_after_ms(const char *value, int64_t now_unix_ms, int64_t *ms);

#endif
