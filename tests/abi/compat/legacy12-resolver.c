/* SPDX-License-Identifier: MIT */
/*
 * legacy12-resolver.c - a resolver written for ABI 1.2 and compiled against
 * the frozen 1.2 headers (tests/abi/sdk-1.2). It uses what 1.2 added (the
 * watch op, a watch interval of its own, watch_cancelled) and none of
 * 1.3's: its host table ends at http_stream, so a 1.3 host runs it as a
 * 1.2 host did.
 */
#include <string.h>

#include <cluster-resolver/plugin.h>

static cr_status l12_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	(void)config;
	(void)err;
	*state = ctx;
	return CR_OK;
}

static void l12_destroy(void *state)
{
	(void)state;
}

static cr_status l12_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	cr_status st;

	(void)state;
	(void)ctx;
	st = cr_host->result_add_job(b, "worker", err);
	if (st == CR_OK)
		st = cr_host->result_append_task(b, "worker", "l12-0:7070", err);
	if (st == CR_OK)
		st = cr_host->result_set_fact_string(b, "built_for", "ABI 1.2", err);
	return st;
}

/* Nothing ever changes: wait for the deadline or the host's cancel. */
static cr_status l12_watch(void *state, cr_plugin_ctx *ctx, int64_t deadline_ms, bool *changed,
			   cr_error *err)
{
	(void)state;
	(void)err;
	while (!cr_host->watch_cancelled(ctx) && cr_host->now_ms(ctx) < deadline_ms)
		cr_host->sleep_ms(ctx, 10);
	*changed = false;
	return CR_OK;
}

static const cr_resolver_ops l12_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = l12_create,
	.destroy = l12_destroy,
	.resolve = l12_resolve,
	.watch = l12_watch,
};

static const cr_plugin_desc l12_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "legacy12",
	.version = "1.2.0",
	.description = "a resolver built against the ABI 1.2 headers",
	.option_size = sizeof(cr_option),
	.resolver = &l12_ops,
	.watch_interval_s = 30,
	.watch_interval_min_s = 5,
};

CR_PLUGIN_DEFINE(l12_desc)
