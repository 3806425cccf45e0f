/* SPDX-License-Identifier: MIT */
/*
 * cmd-exec.c - `exec [--format F,...] -- PROGRAM ARGS...`: resolve, put the
 * cluster into the environment, then execvp PROGRAM so its exit status is
 * ours. A resolution failure runs nothing and exits 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

static int set_tf_config(const cr_result *res)
{
	cr_error err = CR_ERROR_INIT;
	char *text = NULL;
	size_t len = 0;

	if (cr_result_format(res, "tf_config", NULL, &text, &len, &err) != CR_OK) {
		cli_error("%s", err.message);
		return CLI_FAIL;
	}
	if (len > 0 && text[len - 1] == '\n')
		text[len - 1] = '\0';
	setenv("TF_CONFIG", text, 1);
	cr_free(text);
	return CLI_OK;
}

int cli_cmd_exec(const cli_opts *o, int argc, char **argv)
{
	const char *formats = "tf_config";
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	int i, rc;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
			formats = argv[++i];
		} else if (strncmp(argv[i], "--format=", 9) == 0) {
			formats = argv[i] + 9;
		} else {
			cli_error("exec: unexpected argument '%s' (usage: exec [--format F] -- PROGRAM [ARGS])",
				  argv[i]);
			return CLI_USAGE;
		}
	}
	if (i + 1 >= argc) {
		cli_error("exec: no program given (usage: exec [--format F] -- PROGRAM [ARGS])");
		return CLI_USAGE;
	}
	if (strcmp(formats, "tf_config") != 0) {
		cli_error("exec: unknown format list '%s' (known: tf_config)", formats);
		return CLI_USAGE;
	}
	rc = cli_open(o, &ctx);
	if (rc != CLI_OK)
		return rc;
	if (cr_context_resolve(ctx, &res, &err) != CR_OK) {
		cli_error("%s", err.message);
		cr_context_free(ctx);
		return CLI_FAIL;
	}
	rc = set_tf_config(res);
	for (size_t k = 0; rc == CLI_OK && k < cr_result_num_env(res); k++) {
		const char *name, *value;

		if (cr_result_env(res, k, &name, &value))
			setenv(name, value, 1);
	}
	cr_result_free(res);
	cr_context_free(ctx);
	if (rc != CLI_OK)
		return rc;
	fflush(NULL);
	execvp(argv[i + 1], &argv[i + 1]);
	cli_error("exec: cannot run '%s': %s", argv[i + 1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
