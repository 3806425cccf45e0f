/* SPDX-License-Identifier: MIT */
/* cmd-plugins.c - `plugins [--json]` and `check-config [FILE]`. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static gboolean plugins_json;
static const GOptionEntry plugins_entries[] = { { "json", 0, 0, G_OPTION_ARG_NONE, &plugins_json,
						  "one JSON array", NULL },
						G_OPTION_ENTRY_NULL };
static const cli_command plugins_cmd = {
	.name = "plugins",
	.summary = "List the installed plugins, their ABI and options. With -c FILE (or "
		   "$CLUSTER_RESOLVER_CONFIG) the configuration is loaded first and its "
		   "plugin_path searched too.",
	.examples = "Examples:\n"
		    "  cluster-resolver plugins\n"
		    "  cluster-resolver -c site.conf plugins --json\n",
	.entries = plugins_entries,
	.max_args = 0,
};

int cli_cmd_plugins(const cli_opts *in, int argc, char **argv)
{
	cli_opts o;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	const char *env = g_getenv("CLUSTER_RESOLVER_CONFIG");
	char *text = NULL;
	cr_status st;
	int rc;

	if (!cli_parse(&plugins_cmd, in, &o, &argc, &argv, &rc))
		return rc;
	/* A configuration named on purpose brings its plugin_path. */
	if (o.config != NULL || (env != NULL && env[0] != '\0')) {
		rc = cli_open(&o, &ctx);
		if (rc != CLI_OK)
			return rc;
	} else {
		ctx = cr_context_new(&err);
	}
	st = plugins_json ? cr_context_plugins_json(ctx, &text, &err)
			  : cr_context_plugins_text(ctx, &text, &err);
	if (st == CR_OK)
		fputs(text, stdout);
	else
		cli_error("%s", err.message);
	cr_free(text);
	cr_context_free(ctx);
	return cli_exit_status(st, CLI_PHASE_RESOLVE);
}

static const cli_command check_cmd = {
	.name = "check-config",
	.params = "[FILE]",
	.summary = "Validate a configuration file (default: the one -c, "
		   "$CLUSTER_RESOLVER_CONFIG or the installed default names): every file read, "
		   "every resolver and accelerator with its options (secrets hidden). With -v, "
		   "also the merged top-level values.",
	.examples = "Examples:\n"
		    "  cluster-resolver check-config\n"
		    "  cluster-resolver check-config /etc/cluster-resolver/cluster-resolver.conf\n"
		    "  cluster-resolver -v check-config site.conf\n",
	.max_args = 1,
};

int cli_cmd_check_config(const cli_opts *in, int argc, char **argv)
{
	cli_opts co;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	char *text = NULL;
	cr_status st;
	int rc;

	if (!cli_parse(&check_cmd, in, &co, &argc, &argv, &rc))
		return rc;
	if (argc == 2)
		co.config = argv[1];
	rc = cli_open(&co, &ctx);
	if (rc != CLI_OK)
		return rc;
	/* Checking is still loading: every failure is a configuration error. */
	st = cr_context_check(ctx, &text, &err);
	if (st != CR_OK) {
		cli_error("%s", err.message);
		rc = cli_exit_status(st, CLI_PHASE_CONFIG);
	} else {
		fputs(text, stdout);
	}
	cr_free(text);
	cr_context_free(ctx);
	return rc;
}
