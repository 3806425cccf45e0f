/* SPDX-License-Identifier: MIT */
/*
 * cmd-exec.c - `exec [--format F,...] [--jobs J] [--supervise
 * [--stop-timeout S]] -- PROGRAM ARGS...`: resolve, put the cluster into the
 * environment, then execvp PROGRAM so its exit status is ours. A
 * resolution failure runs nothing and exits as `resolve` would.
 *
 * The variables are those of cr_result_env_vars() for each listed format
 * (tf_config, torch, torchrun, jax, env; default tf_config, or torch for a
 * world that knows only its coordinator), in list order, then the
 * variables the resolvers asked for (cr_result_env), so the environment is
 * the one `eval "$(cluster-resolver resolve --format env)"` would give; then
 * one variable per descriptor a resolver passed (cr_result_fd), naming its
 * number, which stays open across the exec and nowhere else.
 *
 * With --supervise the program runs as a child instead (exec-supervise.c,
 * which also holds the steps every way shares: the variables, keeping the
 * passed descriptors open across exec, and reporting a failed exec); with
 * --elastic it runs supervised and follows the membership (exec-elastic.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "commands.h"

#define EXEC_USAGE                                                                                 \
	"usage: exec [--format F[,F...]] [--jobs J[,J...]] [--supervise [--stop-timeout S]] "      \
	"[--elastic [--min-tasks N] [--max-tasks M] [--settle S] [--max-restarts K] [--min-wait "  \
	"S] [--join-timeout S] [--restart-backoff S]] -- PROGRAM [ARGS]"

/* Put the variables into our own environment (execvp passes it on). */
static int exec_set_env(const cr_result *res, const char *const *formats)
{
	GPtrArray *pairs = g_ptr_array_new_with_free_func(g_free);
	int rc = cli_exec_env(res, formats, NULL, pairs);

	for (guint i = 0; rc == CLI_OK && i + 1 < pairs->len; i += 2)
		setenv(g_ptr_array_index(pairs, i), g_ptr_array_index(pairs, i + 1), 1);
	g_ptr_array_unref(pairs);
	return rc;
}

static gboolean exec_supervise, exec_elastic;
static char *exec_stop_timeout, *exec_min_tasks, *exec_max_tasks, *exec_settle, *exec_max_restarts,
	*exec_min_wait, *exec_join_timeout, *exec_restart_backoff;
static const GOptionEntry exec_entries[] = {
	{ "supervise", 0, 0, G_OPTION_ARG_NONE, &exec_supervise,
	  "run PROGRAM as a child: signals forwarded, resolvers told when it ends", NULL },
	{ "stop-timeout", 0, 0, G_OPTION_ARG_STRING, &exec_stop_timeout,
	  "with --supervise or --elastic: seconds between SIGTERM and SIGKILL (default 10)", "S" },
	{ "elastic", 0, 0, G_OPTION_ARG_NONE, &exec_elastic,
	  "follow the membership (implies --supervise): restart PROGRAM with each new "
	  "generation of the cluster, and after a failure",
	  NULL },
	{ "min-tasks", 0, 0, G_OPTION_ARG_STRING, &exec_min_tasks,
	  "with --elastic: run only with at least N tasks in the cluster (default 1)", "N" },
	{ "max-tasks", 0, 0, G_OPTION_ARG_STRING, &exec_max_tasks,
	  "with --elastic: use only the first M tasks in cluster order (default: all)", "M" },
	{ "settle", 0, 0, G_OPTION_ARG_STRING, &exec_settle,
	  "with --elastic: seconds each generation, the first too, must hold before PROGRAM runs "
	  "with it (default 5)",
	  "S" },
	{ "max-restarts", 0, 0, G_OPTION_ARG_STRING, &exec_max_restarts,
	  "with --elastic: restarts after PROGRAM fails (exits non-zero; 126 and 127, cannot "
	  "execute, are never restarted) (default 0)",
	  "K" },
	{ "restart-backoff", 0, 0, G_OPTION_ARG_STRING, &exec_restart_backoff,
	  "with --elastic: the longest wait before a restart after a failure: 1 s, doubling "
	  "with each failure in a row up to S (default 30; 0: none)",
	  "S" },
	{ "min-wait", 0, 0, G_OPTION_ARG_STRING, &exec_min_wait,
	  "with --elastic: seconds to wait for --min-tasks before failing (default 600)", "S" },
	{ "join-timeout", 0, 0, G_OPTION_ARG_STRING, &exec_join_timeout,
	  "with --elastic: seconds a generation's program has to form its world, handed to it "
	  "as CR_JOIN_TIMEOUT (default 600, torchrun's join timeout)",
	  "S" },
	G_OPTION_ENTRY_NULL
};
static const cli_command exec_cmd = {
	.name = "exec",
	.params = "[--supervise|--elastic] -- PROGRAM [ARGS...]",
	.summary = "Run PROGRAM with the cluster in its environment (the variables of each "
		   "--format, default tf_config, or torch where only the coordinator is known): in "
		   "place of this process; with --supervise as "
		   "its child; with --elastic as its child, restarted with each new generation of "
		   "the cluster (every member together, after --settle), each membership with a "
		   "rendezvous port of its own unless --master-port is given.",
	.examples = "Examples:\n"
		    "  cluster-resolver exec -- python train.py\n"
		    "  cluster-resolver exec --format \"torch, jax\" -- python train.py\n"
		    "  # one torchrun per node, each starting that node's processes:\n"
		    "  cluster-resolver exec --format torchrun --master-port auto -- \\\n"
		    "      torchrun --nproc_per_node 8 train.py\n"
		    "  cluster-resolver exec --format torchrun --rdzv c10d -- torchrun "
		    "--nproc_per_node 8 train.py\n"
		    "  cluster-resolver exec --supervise --stop-timeout 30 -- ./server\n"
		    "  cluster-resolver exec --elastic --min-tasks 2 --max-restarts 3 -- python "
		    "train.py\n",
	.entries = exec_entries,
	.format_entries = cli_exec_format_entries,
	.max_args = CLI_ARGS_AFTER_DASHDASH,
	.values = cli_exec_format_value_words,
};

static bool exec_parse_seconds(const char *what, const char *text, double *out)
{
	return text == NULL || cli_parse_seconds("exec", what, text, out);
}

/* A count @min..2147483647 for --@what; NULL: keep *@out. */
static bool exec_parse_count(const char *what, const char *text, int64_t min, int64_t *out)
{
	char *end = NULL;
	long long v;

	if (text == NULL)
		return true;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (text[0] == '\0' || text[strspn(text, "0123456789")] != '\0' || errno != 0 || v < min ||
	    v > 2147483647) {
		cli_error("exec: invalid --%s \"%s\": expected an integer %lld..2147483647", what,
			  text, (long long)min);
		return false;
	}
	*out = v;
	return true;
}

/* The --elastic options into @eo; false after a usage message. */
static bool exec_elastic_options(cli_elastic_opts *eo)
{
	const char *given = exec_min_tasks         ? "--min-tasks"
			    : exec_max_tasks       ? "--max-tasks"
			    : exec_settle          ? "--settle"
			    : exec_max_restarts    ? "--max-restarts"
			    : exec_min_wait        ? "--min-wait"
			    : exec_join_timeout    ? "--join-timeout"
			    : exec_restart_backoff ? "--restart-backoff"
						   : NULL;

	if (!exec_elastic && given != NULL) {
		cli_error("exec: %s needs --elastic", given);
		return false;
	}
	if (!exec_parse_count("min-tasks", exec_min_tasks, 1, &eo->min_tasks) ||
	    !exec_parse_count("max-tasks", exec_max_tasks, 1, &eo->max_tasks) ||
	    !exec_parse_count("max-restarts", exec_max_restarts, 0, &eo->max_restarts) ||
	    !exec_parse_seconds("settle time", exec_settle, &eo->settle) ||
	    !exec_parse_seconds("minimum wait", exec_min_wait, &eo->min_wait) ||
	    !exec_parse_seconds("join timeout", exec_join_timeout, &eo->join_timeout) ||
	    !exec_parse_seconds("restart backoff", exec_restart_backoff, &eo->restart_backoff))
		return false;
	if (eo->max_tasks > 0 && eo->max_tasks < eo->min_tasks) {
		cli_error("exec: --max-tasks %lld is below --min-tasks %lld",
			  (long long)eo->max_tasks, (long long)eo->min_tasks);
		return false;
	}
	return true;
}

/* Without --format, a world that knows only its coordinator (torchrun,
 * Kubeflow, DeepSpeed: the others' addresses unknown) cannot be written as
 * TF_CONFIG, the default, but is exactly what torch's variables say: use
 * those rather than refuse. An explicit --format is kept as given. */
static void exec_default_format(const cr_result *res, int verbose, char ***formats)
{
	if (cli_fmt.format != NULL || cr_spec_num_unknown(cr_result_spec(res), NULL) == 0)
		return;
	g_strfreev(*formats);
	*formats = g_strsplit("torch", ",", -1);
	if (verbose > 0)
		cli_error("exec: the addresses of %zu tasks are unknown: --format torch, not "
			  "tf_config",
			  cr_spec_num_unknown(cr_result_spec(res), NULL));
}

int cli_cmd_exec(const cli_opts *in, int argc, char **argv)
{
	cli_opts o;
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	char **formats = NULL;
	double stop_timeout = CLI_STOP_TIMEOUT;
	cli_elastic_opts eo = {
		.min_tasks = 1,
		.settle = 5,
		.min_wait = 600,
		.join_timeout = CLI_JOIN_TIMEOUT,
		.restart_backoff = CLI_RESTART_BACKOFF,
	};
	int rc;

	if (!cli_parse(&exec_cmd, in, &o, &argc, &argv, &rc))
		return rc;
	/* argv: "exec" "--" PROGRAM ARGS... */
	if (argc < 3) {
		cli_error("exec: no program given (" EXEC_USAGE ")");
		return CLI_USAGE;
	}
	if (!exec_parse_seconds("stop timeout", exec_stop_timeout, &stop_timeout))
		return CLI_USAGE;
	if (exec_stop_timeout != NULL && !exec_supervise && !exec_elastic) {
		cli_error("exec: --stop-timeout needs --supervise");
		return CLI_USAGE;
	}
	if (!exec_elastic_options(&eo))
		return CLI_USAGE;
	if (!cli_format_list("exec", cli_var_format_names, &formats))
		return CLI_USAGE;
	if (exec_elastic) {
		eo.stop_timeout = stop_timeout;
		rc = cli_open(&o, &ctx);
		if (rc == CLI_OK)
			rc = cli_elastic(ctx, &argv[2], (const char *const *)formats, &eo);
		g_strfreev(formats);
		cr_context_free(ctx);
		return rc;
	}
	/* Tells a resolver that this process becomes PROGRAM (the mpi
	 * resolver then leaves the launcher's PMI-1 connection initialized
	 * for the program's MPI_Init); not passed on to PROGRAM. */
	setenv("CLUSTER_RESOLVER_EXEC", exec_supervise ? "supervise" : "1", 1);
	rc = cli_resolve(&o, &ctx, &res);
	unsetenv("CLUSTER_RESOLVER_EXEC");
	if (rc == CLI_OK) {
		exec_default_format(res, o.verbose, &formats);
		rc = exec_set_env(res, (const char *const *)formats);
	}
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
