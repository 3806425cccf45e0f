/* SPDX-License-Identifier: MIT */
/*
 * spawner.c - a test resolver that sleeps `sleep_ms` through the host,
 * then runs `program` [`arg`] with `env` through host->spawn and reports what came
 * back as jobs: "exit" (the exit status), "elapsed" (now_ms after minus
 * before, in ms), "out" and "err" (the output's lines). Only the
 * cr-testhost tests use it; nothing is run.
 */
#include <stdio.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

static cr_status spawner_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state,
				cr_error *err)
{
	(void)ctx;
	(void)config;
	(void)err;
	*state = NULL;
	return CR_OK;
}

static void spawner_destroy(void *state)
{
	(void)state;
}

static cr_status spawner_lines(cr_result_builder *b, const char *job, const char *text,
			       cr_error *err)
{
	char line[256];
	cr_status st = cr_host->result_add_job(b, job, err);

	while (st == CR_OK && *text != '\0') {
		size_t n = strcspn(text, "\n");

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, text, n);
		line[n] = '\0';
		st = cr_host->result_append_task(b, job, line, err);
		text += n;
		if (*text == '\n')
			text++;
	}
	return st;
}

static cr_status spawner_report(cr_result_builder *b, const cr_spawn_result *r, int64_t elapsed,
				cr_error *err)
{
	char num[32];
	cr_status st;

	snprintf(num, sizeof(num), "%d", r->exit_status);
	st = cr_host->result_append_task(b, "exit", num, err);
	snprintf(num, sizeof(num), "%lld", (long long)elapsed);
	if (st == CR_OK)
		st = cr_host->result_append_task(b, "elapsed", num, err);
	if (st == CR_OK)
		st = spawner_lines(b, "out", r->out, err);
	if (st == CR_OK)
		st = spawner_lines(b, "err", r->err, err);
	return st;
}

static cr_status spawner_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b,
				 cr_error *err)
{
	const char *argv[3], *env[2];
	cr_spawn_result *r = NULL;
	int64_t t0 = cr_host->now_ms(ctx);
	cr_status st;

	(void)state;
	cr_host->sleep_ms(ctx, cr_host->opt_int(ctx, "sleep_ms"));
	argv[0] = cr_host->opt_string(ctx, "program");
	argv[1] = cr_host->opt_string(ctx, "arg");
	argv[2] = NULL;
	env[0] = cr_host->opt_string(ctx, "env");
	env[1] = NULL;
	st = cr_host->spawn(ctx, argv, env, cr_host->opt_int(ctx, "timeout_ms"),
			    (size_t)cr_host->opt_int(ctx, "output_cap"), &r, err);
	if (st == CR_OK)
		st = spawner_report(b, r, cr_host->now_ms(ctx) - t0, err);
	else if (r != NULL)
		cr_host->log(ctx, CR_LOG_INFO, "exit %d after %lld ms", r->exit_status,
			     (long long)(cr_host->now_ms(ctx) - t0));
	cr_host->spawn_result_free(r);
	return st;
}

/* clang-format off */
static const cr_option spawner_options[] = {
	CR_OPTION("program", CR_OPT_STRING, "helper", 0, "argv[0]"),
	CR_OPTION("arg", CR_OPT_STRING, NULL, 0, "argv[1], when set"),
	CR_OPTION("env", CR_OPT_STRING, NULL, 0, "one NAME=value entry, when set"),
	CR_OPTION("sleep_ms", CR_OPT_INT, "0", 0, "host->sleep_ms before the spawn"),
	CR_OPTION("timeout_ms", CR_OPT_INT, "0", 0, "spawn timeout (0: the host's)"),
	CR_OPTION("output_cap", CR_OPT_INT, "0", 0, "spawn output cap (0: the host's)"),
	CR_OPTIONS_END,
};
/* clang-format on */

static const cr_resolver_ops spawner_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = spawner_create,
	.destroy = spawner_destroy,
	.probe = NULL,
	.resolve = spawner_resolve,
	.master = NULL,
};

static const cr_plugin_desc spawner_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "spawner",
	.version = "1.0",
	.description = "one host->spawn (cr-testhost tests)",
	.options = spawner_options,
	.option_size = sizeof(cr_option),
	.resolver = &spawner_ops,
	.accelerator = NULL,
	.flags = 0,
};

CR_PLUGIN_DEFINE(spawner_desc)
