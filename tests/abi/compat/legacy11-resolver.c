/* SPDX-License-Identifier: MIT */
/*
 * legacy11-resolver.c - a resolver written for ABI 1.1 and compiled against
 * the frozen 1.1 headers (tests/abi/sdk-1.1). It uses slots that 1.1 added
 * (a bounded option, result_add_cluster_json, result_set_fact_string,
 * now_ms, the supervise op) and none of 1.2's: its ops table has no watch
 * op and its descriptor no watch interval, so a 1.2 host polls it at the
 * host's default.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

static cr_status l11_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	(void)config;
	(void)err;
	*state = ctx;
	return CR_OK;
}

static void l11_destroy(void *state)
{
	(void)state;
}

static cr_status l11_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	char text[256];
	cr_json *root = NULL;
	int64_t workers = cr_host->opt_int(ctx, "workers");
	cr_status st;

	(void)state;
	snprintf(text, sizeof(text), "{\"worker\": [%s]}",
		 workers == 1 ? "\"l11-0:7070\"" : "\"l11-0:7070\", \"l11-1:7070\"");
	st = cr_host->json_parse(text, strlen(text), "legacy11", &root, err);
	if (st == CR_OK)
		st = cr_host->result_add_cluster_json(b, root, "legacy11", err);
	cr_host->json_free(root);
	if (st == CR_OK)
		st = cr_host->result_set_fact_string(b, "built_for", "ABI 1.1", err);
	if (st == CR_OK && cr_host->now_ms(ctx) < 0)
		st = cr_host->error_set(err, CR_ERR_INTERNAL, "the clock went backwards");
	return st;
}

static cr_status l11_supervise(void *state, cr_plugin_ctx *ctx, const cr_supervise_event *ev,
			       bool *stop, cr_error *err)
{
	(void)state;
	(void)ctx;
	(void)ev;
	(void)err;
	*stop = false;
	return CR_OK;
}

static const cr_resolver_ops l11_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = l11_create,
	.destroy = l11_destroy,
	.resolve = l11_resolve,
	.supervise = l11_supervise,
};

static const cr_option l11_options[] = {
	{ "workers", CR_OPT_INT, "2", CR_OPT_RANGE, "how many workers (1 or 2)", 1, 2 },
	CR_OPTIONS_END,
};

static const cr_plugin_desc l11_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "legacy11",
	.version = "1.1.0",
	.description = "a resolver built against the ABI 1.1 headers",
	.options = l11_options,
	.option_size = sizeof(cr_option),
	.resolver = &l11_ops,
};

CR_PLUGIN_DEFINE(l11_desc)
