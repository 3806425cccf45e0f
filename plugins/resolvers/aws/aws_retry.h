/* SPDX-License-Identifier: MIT */
/*
 * aws_retry.h - botocore's `standard` retry mode and `adaptive`'s
 * client-side rate limiter, for aws_query.c.
 */
#ifndef AWS_RETRY_H
#define AWS_RETRY_H

#include <stdbool.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

/** Retry state of one client: kept across the pages of a listing. */
struct aws_retry {
	int max_attempts; /* AWS_MAX_ATTEMPTS: attempts in all, >= 1 */
	bool adaptive;    /* AWS_RETRY_MODE=adaptive */
	int quota;        /* standard mode's retry quota (500) */
	/* adaptive: a token bucket whose rate follows CUBIC */
	bool limiting;          /* enabled by the first throttle */
	double fill_rate;       /* tokens a second */
	double capacity, level; /* bucket size and content */
	int64_t last_fill_ms;
	double last_max_rate, w_max;
	int64_t last_throttle_ms;
	double measured_rate; /* smoothed send rate */
	int64_t bucket_start_ms;
	int bucket_count;
};

/** Start @r: @max_attempts (0 = 3) and @mode ("standard", "adaptive";
 *  NULL = standard). Returns: false for another mode (legacy is not
 *  offered: botocore's default is standard since 2.x). */
bool aws_retry_init(struct aws_retry *r, int max_attempts, const char *mode);

/** Whether a failed attempt may be retried: a connection error or timeout
 *  (@transport != CR_OK), HTTP 500/502/503/504, a transient code
 *  (RequestTimeout, RequestTimeoutException, PriorRequestNotComplete) or a
 *  throttling code. Never AuthFailure, UnauthorizedOperation or 4xx
 *  otherwise. */
bool aws_retry_retryable(cr_status transport, long http, const char *code);
/** Whether @code is one of botocore's throttling error codes. */
bool aws_retry_is_throttle(const char *code);

/** Milliseconds to wait before retry number @retry (1 = the first):
 *  random(0,1) x min(2^(@retry-1), 20) seconds. Takes from the quota (5, or
 *  10 after a timeout); returns -1 when the quota is spent. */
int64_t aws_retry_delay_ms(struct aws_retry *r, int retry, bool timeout);
/** A request succeeded: refund the quota (1, or what a retry took). */
void aws_retry_success(struct aws_retry *r, bool retried, bool timeout);

/** Adaptive mode: milliseconds to wait for a send token at @now_ms (0 when
 *  not limiting); the token is taken. */
int64_t aws_retry_acquire(struct aws_retry *r, int64_t now_ms);
/** Adaptive mode: a response came at @now_ms; @throttled when its code is a
 *  throttling code. Updates the measured and allowed rates. */
void aws_retry_update(struct aws_retry *r, int64_t now_ms, bool throttled);

#endif /* AWS_RETRY_H */
