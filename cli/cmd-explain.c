/* SPDX-License-Identifier: MIT */
/*
 * cmd-explain.c - `explain [--json]`: each resolver's verdict, reason and
 * facts, then the merged result. The explanation goes to stdout also when
 * the resolution fails; the error goes to stderr and the exit status is
 * resolve's.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

int cli_cmd_explain(const cli_opts *o, int argc, char **argv)
{
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	char *text = NULL;
	bool json = false;
	cr_status st;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
			continue;
		}
		cli_error("explain: unexpected argument '%s'", argv[i]);
		return CLI_USAGE;
	}
	rc = cli_open(o, &ctx);
	if (rc != CLI_OK)
		return rc;
	st = cr_context_explain(ctx, json, &text, &err);
	if (text != NULL)
		fputs(text, stdout);
	cr_free(text);
	cr_context_free(ctx);
	if (st == CR_OK)
		return CLI_OK;
	cli_error("%s", err.message);
	return cli_exit_status(st, CLI_PHASE_RESOLVE);
}
