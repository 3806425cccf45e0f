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

static gboolean explain_json;
static const GOptionEntry explain_entries[] = { { "json", 0, 0, G_OPTION_ARG_NONE, &explain_json,
						  "the explanation as one JSON object", NULL },
						G_OPTION_ENTRY_NULL };
static const cli_command explain_cmd = {
	.name = "explain",
	.summary = "Say why the cluster came out as it did: each resolver's verdict, reason and "
		   "facts, then the merged result.",
	.examples = "Examples:\n"
		    "  cluster-resolver explain\n"
		    "  cluster-resolver -c site.conf explain --json\n",
	.entries = explain_entries,
	.max_args = 0,
};

int cli_cmd_explain(const cli_opts *in, int argc, char **argv)
{
	cli_opts o;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	char *text = NULL;
	cr_status st;
	int rc;

	if (!cli_parse(&explain_cmd, in, &o, &argc, &argv, &rc))
		return rc;
	rc = cli_open(&o, &ctx);
	if (rc != CLI_OK)
		return rc;
	st = cr_context_explain(ctx, explain_json, &text, &err);
	if (text != NULL)
		fputs(text, stdout);
	cr_free(text);
	cr_context_free(ctx);
	if (st == CR_OK)
		return CLI_OK;
	cli_error("%s", err.message);
	return cli_exit_status(st, CLI_PHASE_RESOLVE);
}
