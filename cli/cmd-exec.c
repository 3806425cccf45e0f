/* SPDX-License-Identifier: MIT */
/*
 * cmd-exec.c - `exec [--format F,...] [--jobs J] -- PROGRAM ARGS...`:
 * resolve, put the cluster into the environment, then execvp PROGRAM so its
 * exit status is ours. A resolution failure runs nothing and exits 1.
 *
 * The variables are those of cr_result_env_vars() for each listed format
 * (tf_config, torch, jax, env; default tf_config), in list order, then the
 * variables the resolvers asked for (cr_result_env), so the environment is
 * the one `eval "$(cluster-resolver resolve --format env)"` would give.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cluster-resolver/hostlist.h>

#include "commands.h"

#define EXEC_USAGE "usage: exec [--format F[,F...]] [--jobs J[,J...]] -- PROGRAM [ARGS]"

/* Set the variables of @format; the world formats get "jobs=@jobs". */
static int exec_set_format(const cr_result *res, const char *format, const char *jobs)
{
	cr_error err = CR_ERROR_INIT;
	char *jobs_opt = NULL;
	const char *opts[2] = { NULL, NULL };
	char **pairs = NULL;
	cr_status st;

	if (jobs != NULL && strcmp(format, "tf_config") != 0) {
		size_t n = strlen(jobs) + sizeof("jobs=");

		jobs_opt = malloc(n);
		if (jobs_opt == NULL)
			abort();
		snprintf(jobs_opt, n, "jobs=%s", jobs);
		opts[0] = jobs_opt;
	}
	st = cr_result_env_vars(res, format, opts, &pairs, &err);
	free(jobs_opt);
	if (st != CR_OK) {
		cli_error("exec: %s", err.message);
		return cli_status_exit(st);
	}
	for (size_t i = 0; pairs[i] != NULL && pairs[i + 1] != NULL; i += 2)
		setenv(pairs[i], pairs[i + 1], 1);
	cr_strv_free(pairs);
	return CLI_OK;
}

static int exec_set_env(const cr_result *res, const char *formats, const char *jobs)
{
	char *list = strdup(formats), *save = NULL;
	int rc = CLI_OK;

	if (list == NULL)
		abort();
	for (char *f = strtok_r(list, ",", &save); rc == CLI_OK && f != NULL;
	     f = strtok_r(NULL, ",", &save))
		rc = exec_set_format(res, f, jobs);
	free(list);
	for (size_t k = 0; rc == CLI_OK && k < cr_result_num_env(res); k++) {
		const char *name, *value;

		if (cr_result_env(res, k, &name, &value))
			setenv(name, value, 1);
	}
	return rc;
}

/* Options up to "--"; returns the index of "--", or -1 after an error. */
static int exec_parse(int argc, char **argv, const char **formats, const char **jobs)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
			*formats = argv[++i];
		else if (strncmp(argv[i], "--format=", 9) == 0)
			*formats = argv[i] + 9;
		else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
			*jobs = argv[++i];
		else if (strncmp(argv[i], "--jobs=", 7) == 0)
			*jobs = argv[i] + 7;
		else {
			cli_error("exec: unexpected argument '%s' (" EXEC_USAGE ")", argv[i]);
			return -1;
		}
	}
	if (i + 1 >= argc) {
		cli_error("exec: no program given (" EXEC_USAGE ")");
		return -1;
	}
	if ((*formats)[0] == '\0' || (*formats)[0] == ',' || strstr(*formats, ",,") != NULL ||
	    (*formats)[strlen(*formats) - 1] == ',') {
		cli_error("exec: empty name in format list '%s'", *formats);
		return -1;
	}
	return i;
}

int cli_cmd_exec(const cli_opts *o, int argc, char **argv)
{
	const char *formats = "tf_config", *jobs = NULL;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	int i, rc;

	i = exec_parse(argc, argv, &formats, &jobs);
	if (i < 0)
		return CLI_USAGE;
	rc = cli_open(o, &ctx);
	if (rc != CLI_OK)
		return rc;
	if (cr_context_resolve(ctx, &res, &err) != CR_OK) {
		cli_error("%s", err.message);
		cr_context_free(ctx);
		return CLI_FAIL;
	}
	rc = exec_set_env(res, formats, jobs);
	cr_result_free(res);
	cr_context_free(ctx);
	if (rc != CLI_OK)
		return rc;
	fflush(NULL);
	execvp(argv[i + 1], &argv[i + 1]);
	rc = errno;
	cli_error("exec: cannot run '%s': %s", argv[i + 1], strerror(rc));
	return rc == ENOENT ? 127 : 126;
}
