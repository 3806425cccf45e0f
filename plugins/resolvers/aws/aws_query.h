/* SPDX-License-Identifier: MIT */
/*
 * aws_query.h - aws_query_post() with a retry state kept across requests
 * (the pages of one DescribeInstances listing share botocore's retry quota
 * and adaptive rate limiter). aws_query_post() in aws_sigv4.h is this with
 * a fresh state.
 */
#ifndef AWS_QUERY_H
#define AWS_QUERY_H

#include "aws_retry.h"
#include "aws_sigv4.h"

cr_status aws_query_post_retry(const struct aws_env *env, struct aws_retry *retry,
			       const struct aws_creds *creds, const char *endpoint,
			       const char *region, const char *service, const char *body,
			       char **resp, size_t *len, cr_error *err);

/** As aws_query_post_retry, keeping the answer: (transfer full) *@resp,
 *  the 200 answer, free with host->http_response_free (a page is not
 *  copied). */
cr_status aws_query_send(const struct aws_env *env, struct aws_retry *retry,
			 const struct aws_creds *creds, const char *endpoint, const char *region,
			 const char *service, const char *body, cr_http_response **resp,
			 cr_error *err);

#endif /* AWS_QUERY_H */
