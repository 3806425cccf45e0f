/* SPDX-License-Identifier: MIT */
/*
 * cmd-exec.c - `exec [--format F,...] [--jobs J] [--supervise
 * [--stop-timeout S]] -- PROGRAM ARGS...`: resolve, put the cluster into the
 * environment, then execvp PROGRAM so its exit status is ours. A
 * resolution failure runs nothing and exits as `resolve` would.
 *
 * The variables are those of cr_result_env_vars() for each listed format
 * (tf_config, torch, jax, env; default tf_config), in list order, then the
 * variables the resolvers asked for (cr_result_env), so the environment is
 * the one `eval "$(cluster-resolver resolve --format env)"` would give; then
 * one variable per descriptor a resolver passed (cr_result_fd), naming its
 * number, which stays open across the exec and nowhere else.
 *
 * With --supervise the program runs as a child instead (exec-supervise.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

#define EXEC_USAGE                                                                                 \
	"usage: exec [--format F[,F...]] [--jobs J[,J...]] [--supervise [--stop-timeout S]] -- "   \
	"PROGRAM [ARGS]"

/* Set the variables of @format; the world formats get "jobs=@jobs". */
static int exec_set_format(const cr_result *res, const char *format, const char *jobs)
{
	cr_error err = CR_ERROR_INIT;
	char *jobs_opt = jobs != NULL && strcmp(format, "tf_config") != 0
				 ? cli_format_option("jobs", jobs)
				 : NULL;
	const char *opts[2] = { jobs_opt, NULL };
	char **pairs = NULL;
	cr_status st;

	st = cr_result_env_vars(res, format, opts, &pairs, &err);
	free(jobs_opt);
	if (st != CR_OK) {
		cli_error("exec: %s", err.message);
		return cli_exit_status(st, CLI_PHASE_OUTPUT);
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
	for (size_t k = 0; rc == CLI_OK && k < cr_result_num_fds(res); k++) {
		const char *name;
		char num[16];
		int fd;

		if (cr_result_fd(res, k, &fd, &name)) {
			snprintf(num, sizeof(num), "%d", fd);
			setenv(name, num, 1);
		}
	}
	return rc;
}

void cli_exec_keep_fds(const cr_result *res)
{
	int fd;

	for (size_t k = 0; cr_result_fd(res, k, &fd, NULL); k++)
		fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) & ~FD_CLOEXEC);
}

int cli_exec_failed(const char *program, int error)
{
	cli_error("exec: cannot run '%s': %s", program, strerror(error));
	return error == ENOENT ? 127 : 126;
}

typedef struct exec_opts {
	const char *formats, *jobs;
	bool supervise;
	double stop_timeout; /* seconds; < 0: not given */
} exec_opts;

static bool exec_parse_timeout(const char *text, double *out)
{
	char *end = NULL;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0' || !(v >= 0 && v <= 86400)) {
		cli_error("exec: invalid stop timeout \"%s\": expected seconds 0..86400", text);
		return false;
	}
	*out = v;
	return true;
}

/* One option at argv[*i]: 1 taken, 0 unknown, -1 invalid value. */
static int exec_option(int argc, char **argv, int *i, exec_opts *x)
{
	const char *v = NULL;

	if (strcmp(argv[*i], "--supervise") == 0) {
		x->supervise = true;
		return 1;
	}
	if (cli_opt_value(argc, argv, i, "--format", &v))
		x->formats = v;
	else if (cli_opt_value(argc, argv, i, "--jobs", &v))
		x->jobs = v;
	else if (cli_opt_value(argc, argv, i, "--stop-timeout", &v) && v != NULL)
		return exec_parse_timeout(v, &x->stop_timeout) ? 1 : -1;
	return v != NULL ? 1 : 0;
}

/* Options up to "--"; returns the index of "--", or -1 after an error. */
static int exec_parse(int argc, char **argv, exec_opts *x)
{
	const char *f;
	int i, t;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		t = exec_option(argc, argv, &i, x);
		if (t < 0)
			return -1;
		if (t == 0) {
			cli_error("exec: unexpected argument '%s' (" EXEC_USAGE ")", argv[i]);
			return -1;
		}
	}
	if (i + 1 >= argc) {
		cli_error("exec: no program given (" EXEC_USAGE ")");
		return -1;
	}
	f = x->formats;
	if (f[0] == '\0' || f[0] == ',' || strstr(f, ",,") != NULL || f[strlen(f) - 1] == ',') {
		cli_error("exec: empty name in format list '%s'", f);
		return -1;
	}
	if (x->stop_timeout >= 0 && !x->supervise) {
		cli_error("exec: --stop-timeout needs --supervise");
		return -1;
	}
	return i;
}

int cli_cmd_exec(const cli_opts *o, int argc, char **argv)
{
	exec_opts x = { .formats = "tf_config", .stop_timeout = -1 };
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	int i, rc;

	i = exec_parse(argc, argv, &x);
	if (i < 0)
		return CLI_USAGE;
	rc = cli_resolve(o, &ctx, &res);
	if (rc == CLI_OK)
		rc = exec_set_env(res, x.formats, x.jobs);
	if (rc == CLI_OK && x.supervise)
		rc = cli_supervise(ctx, res, &argv[i + 1],
				   x.stop_timeout >= 0 ? x.stop_timeout : CLI_STOP_TIMEOUT);
	if (rc != CLI_OK || x.supervise) {
		cr_result_free(res);
		cr_context_free(ctx);
		return rc;
	}
	/* The plugins go before the program replaces us; the result stays
	 * for its descriptors, which a failed exec then closes. */
	cr_context_free(ctx);
	fflush(NULL);
	cli_exec_keep_fds(res);
	execvp(argv[i + 1], &argv[i + 1]);
	rc = cli_exec_failed(argv[i + 1], errno);
	cr_result_free(res);
	return rc;
}
