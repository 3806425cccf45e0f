/* SPDX-License-Identifier: MIT */
/* cmd-plugins.c - `plugins [--json]` and `check-config [FILE]`. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

int cli_cmd_plugins(const cli_opts *o, int argc, char **argv)
{
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = cr_context_new(&err);
	char *text = NULL;
	bool json = false;
	cr_status st;

	(void)o;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
			continue;
		}
		cli_error("plugins: unexpected argument '%s'", argv[i]);
		cr_context_free(ctx);
		return CLI_USAGE;
	}
	st = json ? cr_context_plugins_json(ctx, &text, &err)
		  : cr_context_plugins_text(ctx, &text, &err);
	if (st == CR_OK)
		fputs(text, stdout);
	else
		cli_error("%s", err.message);
	cr_free(text);
	cr_context_free(ctx);
	return cli_exit_status(st, CLI_PHASE_RESOLVE);
}

int cli_cmd_check_config(const cli_opts *o, int argc, char **argv)
{
	cli_opts co = *o;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	char *text = NULL;
	cr_status st;
	int rc;

	if (argc > 2) {
		cli_error("check-config: too many arguments");
		return CLI_USAGE;
	}
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
