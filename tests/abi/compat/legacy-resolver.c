/* SPDX-License-Identifier: MIT */
/*
 * legacy-resolver.c - a resolver written for ABI 1.0 and compiled against
 * the frozen 1.0 headers (tests/abi/sdk-1.0). It uses the 1.0 slots a
 * real backend uses (options with defaults, a string list, the
 * environment, builder calls, a master op) so the compatibility test shows
 * every later 1.x host running it unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

typedef struct legacy {
	const char *job;
	int64_t port;
} legacy;

static cr_status legacy_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state,
			       cr_error *err)
{
	legacy *l = calloc(1, sizeof(*l));

	if (l == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	l->job = cr_host->opt_string(ctx, "job");
	l->port = cr_host->opt_int(ctx, "port");
	*state = l;
	return CR_OK;
}

static void legacy_destroy(void *state)
{
	free(state);
}

static cr_status legacy_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	if (cr_host->getenv(ctx, "LEGACY_TASK") == NULL)
		return cr_host->error_set(err, CR_DECLINED, "LEGACY_TASK is unset");
	return CR_OK;
}

static cr_status legacy_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b,
				cr_error *err)
{
	const legacy *l = state;
	const char *task = cr_host->getenv(ctx, "LEGACY_TASK");
	char addr[256];
	cr_status st;

	st = cr_host->result_add_job(b, l->job, err);
	for (int i = 0; st == CR_OK && i < 2; i++) {
		snprintf(addr, sizeof(addr), "legacy%d:%lld", i, (long long)l->port);
		st = cr_host->result_append_task(b, l->job, addr, err);
	}
	if (st == CR_OK)
		st = cr_host->result_set_task(b, l->job, strtoll(task, NULL, 10), err);
	if (st == CR_OK)
		st = cr_host->result_set_rpc_layer(b, "grpc", err);
	if (st == CR_OK)
		st = cr_host->result_set_task_accelerators(b, NULL, -1, "GPU", 1, err);
	if (st == CR_OK)
		st = cr_host->result_set_env(b, "LEGACY_SEEN", "1", err);
	cr_host->log(ctx, CR_LOG_INFO, "two tasks of job %s", l->job);
	return st;
}

static cr_status legacy_master(void *state, cr_plugin_ctx *ctx, const char *task_type,
			       int64_t task_id, const char *rpc_layer, cr_text *out, cr_error *err)
{
	if (task_type != NULL)
		return CR_DECLINED;
	return cr_host->text_set(out, "legacy-master:8470", err);
}

/* clang-format off */
static const cr_option legacy_options[] = {
	{ "job", CR_OPT_STRING, "worker", 0, "job of the two tasks" },
	{ "port", CR_OPT_INT, "2222", 0, "port of every task" },
	CR_OPTIONS_END,
};
/* clang-format on */

static const cr_resolver_ops legacy_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = legacy_create,
	.destroy = legacy_destroy,
	.probe = legacy_probe,
	.resolve = legacy_resolve,
	.master = legacy_master,
};

static const cr_plugin_desc legacy_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "legacy",
	.version = "1.0.0",
	.description = "a resolver built against the ABI 1.0 headers",
	.options = legacy_options,
	.option_size = sizeof(cr_option),
	.resolver = &legacy_ops,
};

CR_PLUGIN_DEFINE(legacy_desc)
