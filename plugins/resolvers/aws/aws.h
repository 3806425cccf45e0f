/* SPDX-License-Identifier: MIT */
/*
 * aws.h - internal interfaces of the EC2 resolver plugin (aws.so).
 *
 *   aws.c        descriptor, options, probe, resolve: region, endpoint,
 *                credentials, identity
 *   aws_ec2.c    DescribeInstances page by page into tasks, ordering
 *   aws_sigv4.c  SigV4 (aws_sigv4.h)      aws_query.c  signed POST + errors
 *   aws_retry.c  botocore standard/adaptive retries
 *   aws_xml.c    libxml2 walks of the answers: SAX2 pages, xmlReader errors
 *   aws_creds.c, aws_imds.c, aws_profile.c, aws_sts.c  credentials and
 *                IMDSv2 (aws_creds.h)
 */
#ifndef AWS_H
#define AWS_H

#include <glib.h>

#include <cluster-resolver/plugin.h>

#include "aws_creds.h"
#include "aws_query.h"

/** How a task's address is formed from an instance. */
enum aws_address {
	AWS_ADDR_PRIVATE,     /* privateIpAddress */
	AWS_ADDR_PUBLIC,      /* ipAddress */
	AWS_ADDR_PRIVATE_DNS, /* privateDnsName */
	AWS_ADDR_IPV6,        /* ipv6Address, written [addr]:port */
};

/** Order of the tasks of a job. */
enum aws_order {
	AWS_ORDER_ADDRESS, /* IPv4 numerically (IPv6 by bytes, names naturally) */
	AWS_ORDER_ID,      /* instance id */
	AWS_ORDER_TAG,     /* a tag's value, digit runs as numbers */
};

/** One filter: Filter.N.Name and its values (config-owned strings). */
struct aws_filter {
	const char *name;
	GPtrArray *values; /* const char * */
};

/** One job of the `jobs` option. */
struct aws_job {
	const char *name;
	GArray *filters; /* struct aws_filter */
};

/** The plugin state: options as create() parsed them. */
struct aws {
	GArray *jobs; /* struct aws_job, in the order written */
	const char *region, *endpoint, *profile, *rpc_layer, *root, *ca_file;
	const char *order_tag; /* for AWS_ORDER_TAG: the KEY of tag:KEY */
	int64_t port, page_size;
	int retries; /* -1: AWS_MAX_ATTEMPTS, else 3 attempts */
	long connect_timeout_ms, request_timeout_ms;
	int64_t list_timeout_ms; /* one job's listing; AWS_PAGES_PER_S of it at most */
	enum aws_address address;
	enum aws_order order;
	bool imds_v1;
};

/** Where this process is, for its identity. */
struct aws_self {
	char *instance_id;    /* from IMDS, or NULL */
	GPtrArray *addresses; /* local interface addresses (char *) */
	const char *job;      /* found: job name (config-owned) */
	int64_t index;        /* found: task index */
};

/** One resolution's context for aws_ec2.c. */
struct aws_run {
	const struct aws *st;
	const struct aws_env *env;
	const struct aws_creds *creds;
	const char *endpoint, *region;
	struct aws_retry retry;
	struct aws_self *self;
	cr_result_builder *b;
	int64_t listed, pages;
};

/* aws_ec2.c */
char *aws_ec2_body(const struct aws_job *job, int64_t page_size, const char *next_token);
cr_status aws_ec2_job(struct aws_run *run, const struct aws_job *job, cr_error *err);

#endif /* AWS_H */
