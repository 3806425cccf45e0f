/* SPDX-License-Identifier: MIT */
/*
 * secretive.c - a tiny test resolver with a secret, a required and a
 * defaulted option, so config validation and `check-config` can be checked
 * for exact output. It reports one job from its `endpoint` option.
 */
#include <cluster-resolver/plugin.h>

static cr_status secretive_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state,
				  cr_error *err)
{
	*state = ctx;
	return CR_OK;
}

static void secretive_destroy(void *state)
{
	(void)state;
}

static cr_status secretive_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b,
				   cr_error *err)
{
	const char *ep = cr_host->opt_string(ctx, "endpoint");

	return cr_host->result_append_task(b, "secret-job", ep, err);
}

/* clang-format off */
static const cr_option secretive_options[] = {
	CR_OPTION("token", CR_OPT_STRING, NULL, CR_OPT_REQUIRED | CR_OPT_SECRET, "API token"),
	CR_OPTION("endpoint", CR_OPT_STRING, "127.0.0.1:1", 0, "where the job runs"),
	CR_OPTION("retries", CR_OPT_INT, "3", 0, "how often to retry"),
	CR_OPTION("labels", CR_OPT_STRING_LIST, NULL, 0, "labels"),
	CR_OPTION("password", CR_OPT_STRING, "hunter2", CR_OPT_SECRET, "a secret with a default"),
	CR_OPTIONS_END,
};
/* clang-format on */

static const cr_resolver_ops secretive_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = secretive_create,
	.destroy = secretive_destroy,
	.resolve = secretive_resolve,
};

static const cr_plugin_desc secretive_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "secretive",
	.version = "0.1-test",
	.description = "test plugin with a secret option",
	.options = secretive_options,
	.option_size = sizeof(cr_option),
	.resolver = &secretive_ops,
};

CR_PLUGIN_DEFINE(secretive_desc)
