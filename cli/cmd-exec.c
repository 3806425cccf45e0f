/* SPDX-License-Identifier: MIT */
/*
 * cmd-exec.c - `exec [--format F,...] [--jobs J] [--supervise
 * [--stop-timeout S]] -- PROGRAM ARGS...`: resolve, put the cluster into the
 * environment, then execvp PROGRAM so its exit status is ours. A
 * resolution failure runs nothing and exits as `resolve` would.
 *
 * The variables are those of cr_result_env_vars() for each listed format
 * (tf_config, torch, torchrun, jax, env; default tf_config), in list order, then the
 * variables the resolvers asked for (cr_result_env), so the environment is
 * the one `eval "$(cluster-resolver resolve --format env)"` would give; then
 * one variable per descriptor a resolver passed (cr_result_fd), naming its
 * number, which stays open across the exec and nowhere else.
 *
 * With --supervise the program runs as a child instead (exec-supervise.c,
 * which also holds the two steps both ways share: keeping the passed
 * descriptors open across exec, and reporting a failed exec).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "commands.h"

#define EXEC_USAGE                                                                                 \
	"usage: exec [--format F[,F...]] [--jobs J[,J...]] [--supervise [--stop-timeout S]] -- "   \
	"PROGRAM [ARGS]"

/* Set the variables of @format, one of @formats. */
static int exec_set_format(const cr_result *res, const char *const *formats, const char *format)
{
	cr_error err = CR_ERROR_INIT;
	char **opts = cli_format_options(formats, format);
	char **pairs = NULL;
	cr_status st;

	st = cr_result_env_vars(res, format, (const char *const *)opts, &pairs, &err);
	g_strfreev(opts);
	if (st != CR_OK) {
		cli_error("exec: %s", err.message);
		return cli_exit_status(st, CLI_PHASE_OUTPUT);
	}
	for (size_t i = 0; pairs[i] != NULL && pairs[i + 1] != NULL; i += 2)
		setenv(pairs[i], pairs[i + 1], 1);
	cr_strv_free(pairs);
	return CLI_OK;
}

static int exec_set_env(const cr_result *res, const char *const *formats)
{
	int rc = CLI_OK;

	for (size_t f = 0; rc == CLI_OK && formats[f] != NULL; f++)
		rc = exec_set_format(res, formats, formats[f]);
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

static gboolean exec_supervise;
static char *exec_stop_timeout;
static const GOptionEntry exec_entries[] = {
	{ "supervise", 0, 0, G_OPTION_ARG_NONE, &exec_supervise,
	  "run PROGRAM as a child: signals forwarded, resolvers told when it ends", NULL },
	{ "stop-timeout", 0, 0, G_OPTION_ARG_STRING, &exec_stop_timeout,
	  "with --supervise: seconds between SIGTERM and SIGKILL (default 10)", "S" },
	G_OPTION_ENTRY_NULL
};
static const cli_command exec_cmd = {
	.name = "exec",
	.params = "-- PROGRAM [ARGS...]",
	.summary = "Run PROGRAM with the cluster in its environment (the variables of each "
		   "--format, default tf_config), in place of this process.",
	.examples = "Examples:\n"
		    "  cluster-resolver exec -- python train.py\n"
		    "  cluster-resolver exec --format \"torch, jax\" -- python train.py\n"
		    "  # one torchrun per node, each starting that node's processes:\n"
		    "  cluster-resolver exec --format torchrun --master-port auto -- \\\n"
		    "      torchrun --nproc_per_node 8 train.py\n"
		    "  cluster-resolver exec --format torchrun --rdzv c10d -- torchrun "
		    "--nproc_per_node 8 train.py\n"
		    "  cluster-resolver exec --supervise --stop-timeout 30 -- ./server\n",
	.entries = exec_entries,
	.format_entries = cli_exec_format_entries,
	.max_args = CLI_ARGS_AFTER_DASHDASH,
	.values = cli_exec_format_value_words,
};

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

int cli_cmd_exec(const cli_opts *in, int argc, char **argv)
{
	cli_opts o;
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	char **formats = NULL;
	double stop_timeout = CLI_STOP_TIMEOUT;
	int rc;

	if (!cli_parse(&exec_cmd, in, &o, &argc, &argv, &rc))
		return rc;
	/* argv: "exec" "--" PROGRAM ARGS... */
	if (argc < 3) {
		cli_error("exec: no program given (" EXEC_USAGE ")");
		return CLI_USAGE;
	}
	if (exec_stop_timeout != NULL && !exec_parse_timeout(exec_stop_timeout, &stop_timeout))
		return CLI_USAGE;
	if (exec_stop_timeout != NULL && !exec_supervise) {
		cli_error("exec: --stop-timeout needs --supervise");
		return CLI_USAGE;
	}
	if (!cli_format_list("exec", cli_var_format_names, &formats))
		return CLI_USAGE;
	rc = cli_resolve(&o, &ctx, &res);
	if (rc == CLI_OK)
		rc = exec_set_env(res, (const char *const *)formats);
	g_strfreev(formats);
	if (rc == CLI_OK && exec_supervise)
		rc = cli_supervise(ctx, res, &argv[2], stop_timeout);
	if (rc != CLI_OK || exec_supervise) {
		cr_result_free(res);
		cr_context_free(ctx);
		return rc;
	}
	/* The plugins go before the program replaces us; the result stays
	 * for its descriptors, which a failed exec then closes. */
	cr_context_free(ctx);
	fflush(NULL);
	cli_exec_keep_fds(res);
	execvp(argv[2], &argv[2]);
	rc = cli_exec_failed(argv[2], errno);
	cr_result_free(res);
	return rc;
}
