/* SPDX-License-Identifier: MIT */
/*
 * ranged.c - a test resolver for the ABI 1.1 parts of the CLI: options with
 * both bounds, a lower bound only and an upper bound only (the host checks
 * them, `plugins` shows them), and a `mode` that makes it answer, decline
 * with or without a reason, or fail after setting facts (for `explain`).
 */
#include <string.h>

#include <cluster-resolver/plugin.h>

static cr_status ranged_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state,
			       cr_error *err)
{
	(void)config;
	(void)err;
	*state = ctx;
	return CR_OK;
}

static void ranged_destroy(void *state)
{
	(void)state;
}

static void ranged_fact(cr_result_builder *b, const char *key, const char *json)
{
	cr_json *v = NULL;

	if (cr_host->json_parse(json, strlen(json), key, &v, NULL) == CR_OK)
		cr_host->result_set_fact(b, key, v, NULL);
	cr_host->json_free(v);
}

static cr_status ranged_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b,
				cr_error *err)
{
	const char *mode = cr_host->opt_string(ctx, "mode");
	int64_t n = cr_host->opt_int(ctx, "count");
	cr_status st = CR_OK;

	(void)state;
	ranged_fact(b, "mode", strcmp(mode, "ok") == 0 ? "\"ok\"" : "\"not ok\"");
	ranged_fact(b, "count", n == 1 ? "1" : "[\"more than one\"]");
	if (strcmp(mode, "decline") == 0)
		return cr_host->error_set(err, CR_DECLINED, "told to decline");
	if (strcmp(mode, "decline-silent") == 0)
		return CR_DECLINED;
	if (strcmp(mode, "fail") == 0)
		return cr_host->error_set(err, CR_ERR_BACKEND, "told to fail");
	for (int64_t i = 0; i < n && st == CR_OK; i++)
		st = cr_host->result_append_task(b, "ranged", "r:1", err);
	return st;
}

/* clang-format off */
static const cr_option ranged_options[] = {
	CR_OPTION("mode", CR_OPT_STRING, "ok", 0, "ok | decline | decline-silent | fail"),
	CR_OPTION_RANGE("count", CR_OPT_INT, "1", 0, "tasks to report", 1, 10),
	{ "timeout", CR_OPT_FLOAT, "1.5", CR_OPT_MIN, "seconds (lower bound only)", 0.5, 0 },
	{ "depth", CR_OPT_INT, NULL, CR_OPT_MAX, "levels (upper bound only)", 0, 3 },
	CR_OPTION_RANGE("ratio", CR_OPT_FLOAT, NULL, 0, "a fraction", 0.25, 1e30),
	CR_OPTIONS_END,
};
/* clang-format on */

static const cr_resolver_ops ranged_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = ranged_create,
	.destroy = ranged_destroy,
	.resolve = ranged_resolve,
};

static const cr_plugin_desc ranged_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "ranged",
	.version = "0.1-test",
	.description = "test plugin with ranged options and facts",
	.options = ranged_options,
	.option_size = sizeof(cr_option),
	.resolver = &ranged_ops,
};

CR_PLUGIN_DEFINE(ranged_desc)
