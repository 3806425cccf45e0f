/* SPDX-License-Identifier: MIT */
/*
 * aws_retry.c - retries as botocore's `standard` mode (botocore/retries/
 * standard.py, the AWS SDKs' "standard" retry behaviour) and `adaptive`'s
 * client-side rate limiter (botocore/retries/adaptive.py, bucket.py,
 * throttling.py), from their documented behaviour:
 *
 *  - up to AWS_MAX_ATTEMPTS attempts (3); a retry waits
 *    random(0,1) x min(2^(n-1), 20) s;
 *  - a retry quota of 500 per client: a retry costs 5 (10 after a
 *    timeout), a success gives back what its retry took (1 when none);
 *  - adaptive: after the first throttle, each send takes a token from a
 *    bucket whose fill rate follows CUBIC: cut to 0.7 x the measured rate
 *    on a throttle, grown as 0.4 (t - K)^3 + Wmax after, never above
 *    twice the measured send rate, never below 0.5 a second.
 */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "aws_retry.h"

#define QUOTA 500
#define RETRY_COST 5
#define TIMEOUT_COST 10
#define MAX_BACKOFF_S 20.0
#define MIN_RATE 0.5
#define BETA 0.7
#define SCALE 0.4
#define SMOOTH 0.8

static const char *const aws_throttle_codes[] = {
	"Throttling",
	"ThrottlingException",
	"ThrottledException",
	"RequestThrottledException",
	"TooManyRequestsException",
	"ProvisionedThroughputExceededException",
	"TransactionInProgressException",
	"RequestLimitExceeded",
	"BandwidthLimitExceeded",
	"LimitExceededException",
	"RequestThrottled",
	"SlowDown",
	"PriorRequestNotComplete",
	"EC2ThrottledException",
	NULL,
};

static const char *const aws_transient_codes[] = {
	"RequestTimeout",
	"RequestTimeoutException",
	"PriorRequestNotComplete",
	NULL,
};

static bool aws_in(const char *code, const char *const *list)
{
	for (int i = 0; code && list[i]; i++)
		if (strcmp(code, list[i]) == 0)
			return true;
	return false;
}

bool aws_retry_init(struct aws_retry *r, int max_attempts, const char *mode)
{
	memset(r, 0, sizeof(*r));
	r->max_attempts = max_attempts > 0 ? max_attempts : 3;
	r->quota = QUOTA;
	r->fill_rate = MIN_RATE;
	r->capacity = 1;
	r->last_max_rate = MIN_RATE;
	r->w_max = MIN_RATE;
	if (!mode || !*mode || strcmp(mode, "standard") == 0)
		return true;
	if (strcmp(mode, "adaptive") == 0) {
		r->adaptive = true;
		return true;
	}
	return false;
}

bool aws_retry_is_throttle(const char *code)
{
	return aws_in(code, aws_throttle_codes);
}

bool aws_retry_retryable(cr_status transport, long http, const char *code)
{
	if (transport == CR_ERR_NETWORK || transport == CR_ERR_TIMEOUT)
		return true;
	if (transport != CR_OK)
		return false;
	if (code &&
	    (strcmp(code, "AuthFailure") == 0 || strcmp(code, "UnauthorizedOperation") == 0))
		return false;
	if (aws_in(code, aws_throttle_codes) || aws_in(code, aws_transient_codes))
		return true;
	return http == 500 || http == 502 || http == 503 || http == 504;
}

int64_t aws_retry_delay_ms(struct aws_retry *r, int retry, bool timeout)
{
	int cost = timeout ? TIMEOUT_COST : RETRY_COST;
	double cap = retry > 6 ? MAX_BACKOFF_S : MIN(MAX_BACKOFF_S, (double)(1 << (retry - 1)));

	if (r->quota < cost)
		return -1;
	r->quota -= cost;
	return (int64_t)(g_random_double() * cap * 1000.0);
}

void aws_retry_success(struct aws_retry *r, bool retried, bool timeout)
{
	r->quota += retried ? (timeout ? TIMEOUT_COST : RETRY_COST) : 1;
	if (r->quota > QUOTA)
		r->quota = QUOTA;
}

static void aws_bucket_refill(struct aws_retry *r, int64_t now_ms)
{
	if (r->last_fill_ms) {
		r->level += r->fill_rate * (double)(now_ms - r->last_fill_ms) / 1000.0;
		if (r->level > r->capacity)
			r->level = r->capacity;
	}
	r->last_fill_ms = now_ms;
}

int64_t aws_retry_acquire(struct aws_retry *r, int64_t now_ms)
{
	int64_t wait;

	if (!r->adaptive || !r->limiting)
		return 0;
	aws_bucket_refill(r, now_ms);
	if (r->level >= 1) {
		r->level -= 1;
		return 0;
	}
	wait = (int64_t)ceil((1 - r->level) / r->fill_rate * 1000.0);
	r->level = 0; /* the token that arrives during the wait is ours */
	r->last_fill_ms = now_ms + wait;
	return wait;
}

static void aws_measure(struct aws_retry *r, int64_t now_ms)
{
	if (!r->bucket_start_ms)
		r->bucket_start_ms = now_ms;
	r->bucket_count++;
	if (now_ms - r->bucket_start_ms >= 500) {
		double rate = r->bucket_count * 1000.0 / (double)(now_ms - r->bucket_start_ms);

		r->measured_rate = rate * SMOOTH + r->measured_rate * (1 - SMOOTH);
		r->bucket_count = 0;
		r->bucket_start_ms = now_ms;
	}
}

void aws_retry_update(struct aws_retry *r, int64_t now_ms, bool throttled)
{
	double rate;

	if (!r->adaptive)
		return;
	aws_measure(r, now_ms);
	if (throttled) {
		rate = r->limiting ? MIN(r->measured_rate, r->fill_rate) : r->measured_rate;
		r->w_max = MAX(rate, MIN_RATE);
		r->last_throttle_ms = now_ms;
		rate = r->w_max * BETA;
		r->limiting = true;
	} else {
		double k = cbrt(r->w_max * (1 - BETA) / SCALE);
		double t = (double)(now_ms - r->last_throttle_ms) / 1000.0;

		rate = SCALE * pow(t - k, 3) + r->w_max;
		if (r->measured_rate > 0)
			rate = MIN(rate, 2 * r->measured_rate);
	}
	if (!r->limiting)
		return;
	aws_bucket_refill(r, now_ms);
	r->fill_rate = MAX(rate, MIN_RATE);
	r->capacity = MAX(r->fill_rate, 1);
	if (r->level > r->capacity)
		r->level = r->capacity;
}
