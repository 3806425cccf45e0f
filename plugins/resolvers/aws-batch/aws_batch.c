/* SPDX-License-Identifier: MIT */
/*
 * aws_batch.c - aws-batch.so: a node of an AWS Batch multi-node parallel
 * job. AWS Batch gives each node its index, the number of nodes, the main
 * node's index and, on every node but the main one, the main node's private
 * IPv4 address (AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS; docs:
 * "Multi-node parallel jobs" environment variables). No node learns its
 * peers' addresses, so the result is a world whose only known address is
 * the coordinator's (host->result_set_job_size, as torch-env's): NUM_NODES
 * tasks of one job, the main node as task 0 at its address and `port`,
 * this node as task (NODE_INDEX - MAIN_NODE_INDEX) mod NUM_NODES, one task
 * a node. On the main node itself the address is its own host name
 * (gethostname), or `main_address`.
 *
 * DECLINED outside a multi-node parallel job (no AWS_BATCH_JOB_NODE_INDEX:
 * a single-node Batch job is one process, the local worker's case); an
 * error naming the variables when they contradict each other.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cluster-resolver/plugin.h>

#include "launchers.h"

#define V_INDEX "AWS_BATCH_JOB_NODE_INDEX"
#define V_NUM "AWS_BATCH_JOB_NUM_NODES"
#define V_MAIN "AWS_BATCH_JOB_MAIN_NODE_INDEX"
#define V_ADDR "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS"
#define LAUNCHER "AWS Batch multi-node parallel job"

/* @var's value as a decimal below 2^31; errors name the variable. */
static cr_status ab_uint(cr_plugin_ctx *ctx, const char *var, int64_t *out, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, var);
	uint64_t n = 0;

	if (v == NULL)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "%s: %s is not set (AWS Batch sets it on every node)",
					  LAUNCHER, var);
	if (!launch_decimal(v, INT32_MAX, &n))
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "%s: %s=\"%.64s\" is not a non-negative integer",
					  LAUNCHER, var, v);
	*out = (int64_t)n;
	return CR_OK;
}

static cr_status ab_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");

	if (job == NULL || *job == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: job must not be empty",
					  cr_host->cfg_file(config), cr_host->cfg_line(config));
	*state = ctx;
	return CR_OK;
}

static void ab_destroy(void *state)
{
	(void)state;
}

static cr_status ab_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	(void)state;
	if (cr_host->getenv(ctx, V_INDEX) != NULL)
		return CR_OK;
	return cr_host->error_set(err, CR_DECLINED,
				  "not a node of an AWS Batch multi-node parallel job: " V_INDEX
				  " is not set");
}

/* The main node's address: the variable on the other nodes, this host on
 * the main node (where AWS Batch leaves the variable out). */
static cr_status ab_main_host(cr_plugin_ctx *ctx, bool is_main, char *out, size_t len,
			      cr_error *err)
{
	const char *ip = cr_host->getenv(ctx, V_ADDR);
	const char *opt = cr_host->opt_string(ctx, "main_address");
	unsigned char bin[4];

	if (is_main && opt != NULL && *opt != '\0') {
		snprintf(out, len, "%s", opt);
		return CR_OK;
	}
	if (ip != NULL) {
		if (inet_pton(AF_INET, ip, bin) != 1)
			return cr_host->error_set(err, CR_ERR_BACKEND,
						  "%s: " V_ADDR "=\"%.64s\" is not an IPv4 address",
						  LAUNCHER, ip);
		snprintf(out, len, "%s", ip);
		return CR_OK;
	}
	if (!is_main)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "%s: " V_ADDR " is not set on this node, which is not "
					  "the main node (" V_INDEX " differs from " V_MAIN ")",
					  LAUNCHER);
	if (gethostname(out, len) != 0 || out[0] == '\0')
		return cr_host->error_set(
			err, CR_ERR_IO,
			"%s: this is the main node, and its host name is unknown: "
			"set main_address",
			LAUNCHER);
	out[len - 1] = '\0';
	return CR_OK;
}

static cr_status ab_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");
	int64_t index = 0, num = 0, main_i = 0, rank;
	char host[256], addr[300], text[64];
	cr_status st;

	(void)state;
	st = ab_uint(ctx, V_INDEX, &index, err);
	if (st == CR_OK)
		st = ab_uint(ctx, V_NUM, &num, err);
	if (st == CR_OK)
		st = ab_uint(ctx, V_MAIN, &main_i, err);
	if (st != CR_OK)
		return st;
	if (num < 1 || index >= num || main_i >= num)
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"%s: " V_INDEX "=%lld and " V_MAIN "=%lld must be below " V_NUM "=%lld",
			LAUNCHER, (long long)index, (long long)main_i, (long long)num);
	st = ab_main_host(ctx, index == main_i, host, sizeof(host), err);
	if (st != CR_OK)
		return st;
	snprintf(addr, sizeof(addr), strchr(host, ':') != NULL ? "[%s]:%lld" : "%s:%lld", host,
		 (long long)cr_host->opt_int(ctx, "port"));
	rank = (index - main_i + num) % num;
	cr_host->result_set_fact_string(b, "launcher", LAUNCHER, NULL);
	snprintf(text, sizeof(text), "%lld of %lld, main %lld", (long long)index, (long long)num,
		 (long long)main_i);
	cr_host->result_set_fact_string(b, "node", text, NULL);
	cr_host->result_set_fact_string(b, "coordinator", addr, NULL);
	st = cr_host->result_set_job_size(b, job, num, "AWS Batch", err);
	if (st == CR_OK)
		st = cr_host->result_add_task(b, job, 0, addr, err);
	if (st == CR_OK)
		st = cr_host->result_set_task(b, job, rank, err);
	if (st == CR_OK)
		st = cr_host->result_set_task_place(b, rank, num, 0, 1, err);
	return st;
}

static const cr_option ab_options[] = {
	CR_OPTION("job", CR_OPT_STRING, "worker", 0, "the job of the nodes' tasks"),
	CR_OPTION_RANGE("port", CR_OPT_INT, "29500", 0,
			"the coordinator's port on the main node (torch's default)", 1, 65535),
	CR_OPTION("main_address", CR_OPT_STRING, NULL, 0,
		  "on the main node, its own address (default: its host name)"),
	CR_OPTIONS_END,
};

static const cr_resolver_ops ab_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = ab_create,
	.destroy = ab_destroy,
	.probe = ab_probe,
	.resolve = ab_resolve,
	.master = NULL,
};

static const cr_plugin_desc ab_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "aws-batch",
	.version = CR_VERSION_STRING,
	.description = "a node of an AWS Batch multi-node parallel job: its index, the number "
		       "of nodes and the main node's address",
	.options = ab_options,
	.option_size = sizeof(cr_option),
	.resolver = &ab_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(ab_desc)
