/* SPDX-License-Identifier: MIT */
/* cmd-resolve.c - `resolve`, `master` and `accelerators`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

int cli_cmd_resolve(const cli_opts *o, int argc, char **argv)
{
	const char *format = "tf_config", *dialect = NULL, *jobs = NULL;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	char *text = NULL, *fopts[3] = { NULL, NULL, NULL };
	size_t len = 0, nopts = 0;
	cr_status st;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (cli_opt_value(argc, argv, &i, "--format", &format) && format != NULL)
			continue;
		if (cli_opt_value(argc, argv, &i, "--dialect", &dialect) && dialect != NULL)
			continue;
		if (cli_opt_value(argc, argv, &i, "--jobs", &jobs) && jobs != NULL)
			continue;
		cli_error("resolve: unexpected argument '%s'", argv[i]);
		return CLI_USAGE;
	}
	/* --dialect D / --jobs J become the format's "dialect=D" / "jobs=J". */
	if (dialect != NULL)
		fopts[nopts++] = cli_format_option("dialect", dialect);
	if (jobs != NULL)
		fopts[nopts++] = cli_format_option("jobs", jobs);
	rc = cli_resolve(o, &ctx, &res);
	if (rc == CLI_OK) {
		st = cr_result_format(res, format, (const char *const *)fopts, &text, &len, &err);
		if (st != CR_OK) {
			cli_error("%s", err.message);
			rc = cli_exit_status(st, CLI_PHASE_OUTPUT);
		}
	}
	if (rc == CLI_OK && fwrite(text, 1, len, stdout) != len)
		rc = CLI_FAIL;
	cr_free(text);
	free(fopts[0]);
	free(fopts[1]);
	cr_result_free(res);
	cr_context_free(ctx);
	return rc;
}

/*
 * `master`: with --task-type and --task-id both given, the master of that
 * task; otherwise this process's (a lone --task-type or --task-id has
 * already changed that part of the identity in the context, as for
 * `resolve`). With no master configured and this process's task unknown
 * the answer is "" (TensorFlow's Slurm and Kubernetes resolvers), with a
 * warning saying why.
 */
int cli_cmd_master(const cli_opts *o, int argc, char **argv)
{
	bool both = o->task_type != NULL && o->task_id >= 0;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	char *url = NULL;
	cr_status st;
	int rc;

	if (argc > 1) {
		cli_error("master: unexpected argument '%s'", argv[1]);
		return CLI_USAGE;
	}
	rc = cli_resolve(o, &ctx, &res);
	if (rc == CLI_OK) {
		st = cr_result_master(res, both ? o->task_type : NULL, both ? o->task_id : -1,
				      o->rpc_layer, &url, &err);
		if (st == CR_ERR_NOT_FOUND && url != NULL) {
			cli_error("warning: %s", err.message);
		} else if (st != CR_OK) {
			cli_error("%s", err.message);
			rc = cli_exit_status(st, CLI_PHASE_OUTPUT);
		}
	}
	if (rc == CLI_OK)
		printf("%s\n", url);
	cr_free(url);
	cr_result_free(res);
	cr_context_free(ctx);
	return rc;
}

int cli_cmd_accelerators(const cli_opts *o, int argc, char **argv)
{
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	char *json = NULL;
	bool devices = false;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			devices = true;
			continue;
		}
		cli_error("accelerators: unexpected argument '%s'", argv[i]);
		return CLI_USAGE;
	}
	rc = cli_resolve(o, &ctx, &res);
	if (rc == CLI_OK) {
		cr_status st = cr_result_accelerators_json(res, NULL, -1, devices, &json, &err);

		if (st != CR_OK) {
			cli_error("%s", err.message);
			rc = cli_exit_status(st, CLI_PHASE_OUTPUT);
		}
	}
	if (rc == CLI_OK)
		printf("%s\n", json);
	cr_free(json);
	cr_result_free(res);
	cr_context_free(ctx);
	return rc;
}
