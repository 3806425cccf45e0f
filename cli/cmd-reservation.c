/* SPDX-License-Identifier: MIT */
/*
 * cmd-reservation.c - `reservation serve` and `reservation plan`: their
 * options, the sizing checks (exit 2 with TensorFlowOnSpark's reason), and
 * the hand-over to the server (reservation-server.c).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "reservation/reservation.h"

#define UNSET INT_MIN

static rsv_sizing sizing = { .num_executors = UNSET, .num_ps = UNSET };
static gint64 executor_id = -1, timeout_s = 600, grace_s = 0, shutdown_s = 259200, progress_s = 10;
static gint64 auth_timeout_s = 5, max_pending = 64;
static char *listen_opt, *advertise, *secret_file, *summary;

#define SIZING_ENTRIES                                                                              \
	{ "num-executors",                                                                          \
	  0,                                                                                        \
	  0,                                                                                        \
	  G_OPTION_ARG_INT,                                                                         \
	  &sizing.num_executors,                                                                    \
	  "executors in the cluster (required)",                                                    \
	  "N" },                                                                                    \
		{ "num-ps", 0, 0, G_OPTION_ARG_INT, &sizing.num_ps, "ps tasks (required)", "P" },   \
		{ "master-node",                                                                    \
		  0,                                                                                \
		  0,                                                                                \
		  G_OPTION_ARG_STRING,                                                              \
		  &sizing.master_node,                                                              \
		  "one master node named chief or master",                                          \
		  "chief|master" },                                                                 \
		{ "eval-node", 0, 0, G_OPTION_ARG_NONE, &sizing.eval_node, "one evaluator", NULL }, \
		{ "input-mode",                                                                     \
		  0,                                                                                \
		  0,                                                                                \
		  G_OPTION_ARG_STRING,                                                              \
		  &sizing.input_mode,                                                               \
		  "tensorflow (default) or spark",                                                  \
		  "MODE" },                                                                         \
	{                                                                                           \
		"driver-ps-nodes", 0, 0, G_OPTION_ARG_NONE, &sizing.driver_ps_nodes,                \
			"the ps tasks run on the Spark driver", NULL                                \
	}

static const GOptionEntry serve_entries[] = {
	SIZING_ENTRIES,
	{ "secret-file", 0, 0, G_OPTION_ARG_FILENAME, &secret_file,
	  "the shared secret (>= 16 bytes, mode 0600; required)", "FILE" },
	{ "timeout", 0, 0, G_OPTION_ARG_INT64, &timeout_s,
	  "seconds to wait for every executor (600)", "SECS" },
	{ "listen", 0, 0, G_OPTION_ARG_STRING, &listen_opt,
	  "[HOST:]PORT or [HOST:]A-B (default $TFOS_SERVER_PORT, else any port)", "ADDR" },
	{ "advertise", 0, 0, G_OPTION_ARG_STRING, &advertise,
	  "the host clients connect to (default $TFOS_SERVER_HOST, else the default route's "
	  "address)",
	  "HOST" },
	{ "grace-secs", 0, 0, G_OPTION_ARG_INT64, &grace_s,
	  "seconds between the workers' end and stopping ps and evaluator (0)", "SECS" },
	{ "shutdown-timeout", 0, 0, G_OPTION_ARG_INT64, &shutdown_s,
	  "seconds after formation before everyone is stopped (259200; -1: never)", "SECS" },
	{ "auth-timeout", 0, 0, G_OPTION_ARG_INT64, &auth_timeout_s,
	  "seconds a new connection has to authenticate (5)", "SECS" },
	{ "max-pending", 0, 0, G_OPTION_ARG_INT64, &max_pending,
	  "connections not yet authenticated kept at once; the oldest is dropped (64)", "N" },
	{ "summary", 0, 0, G_OPTION_ARG_FILENAME, &summary,
	  "write each executor's role and exit status as JSON to FILE", "FILE" },
	{ "progress", 0, 0, G_OPTION_ARG_INT64, &progress_s,
	  "while forming, say on stderr every SECS who is registered and who is missing "
	  "(10; 0: never; -v: also a line per registration)",
	  "SECS" },
	G_OPTION_ENTRY_NULL
};

static const GOptionEntry plan_entries[] = { SIZING_ENTRIES,
					     { "executor-id", 0, 0, G_OPTION_ARG_INT64,
					       &executor_id, "also print this executor's role",
					       "K" },
					     G_OPTION_ENTRY_NULL };

static const char *const reservation_words[] = { "serve", "plan", NULL };
static const char *const master_values[] = { "chief", "master", NULL };
static const char *const mode_values[] = { "tensorflow", "spark", NULL };
static const struct cli_value_words sizing_words[] = { { "master-node", master_values },
						       { "input-mode", mode_values },
						       { NULL, NULL } };

static const cli_command reservation_cmd = {
	.name = "reservation",
	.params = "serve|plan ...",
	.summary = "TensorFlowOnSpark's cluster formation: an authenticated reservation server "
		   "that executors register with (reservation.so), and its template.",
	.examples = "Examples:\n"
		    "  cluster-resolver reservation plan --num-executors 4 --num-ps 1\n"
		    "  cluster-resolver reservation serve --num-executors 4 --num-ps 1 "
		    "--secret-file secret\n",
	.max_args = -1,
	.words = reservation_words,
};

static const cli_command serve_cmd = {
	.name = "reservation serve",
	.summary = "Wait for every executor to register, give each the cluster and its role, "
		   "then supervise the shutdown (docs/reservation.md). Prints one JSON line "
		   "{address, cluster_id, cluster_template} when listening.",
	.examples = "Examples:\n"
		    "  cluster-resolver reservation serve --num-executors 5 --num-ps 1 "
		    "--master-node chief --secret-file secret --summary summary.json\n"
		    "  TFOS_SERVER_PORT=9997-9999 cluster-resolver reservation serve "
		    "--num-executors 2 --num-ps 0 --secret-file secret\n",
	.entries = serve_entries,
	.max_args = 0,
	.values = sizing_words,
};

static const cli_command plan_cmd = {
	.name = "reservation plan",
	.summary = "Print the cluster template TFCluster.run() would make, and with "
		   "--executor-id an executor's role. No network.",
	.examples = "Examples:\n"
		    "  cluster-resolver reservation plan --num-executors 5 --num-ps 1 "
		    "--master-node chief --eval-node\n"
		    "  cluster-resolver reservation plan --num-executors 3 --num-ps 1 "
		    "--executor-id 2\n",
	.entries = plan_entries,
	.max_args = 0,
	.values = sizing_words,
};

#define usage(...) (cli_error(__VA_ARGS__), CLI_USAGE)

/* The sizing flags: required ones given, then TFoS's rules. */
static bool make_plan(const char *command, rsv_plan *plan, int *rc)
{
	char why[256];

	*rc = CLI_USAGE;
	if (sizing.num_executors == UNSET || sizing.num_ps == UNSET) {
		cli_error("%s: --num-executors and --num-ps are required", command);
		return false;
	}
	if (!rsv_plan_make(&sizing, plan, why, sizeof(why))) {
		cli_error("%s: %s", command, why);
		return false;
	}
	return true;
}

static int plan_main(void)
{
	rsv_plan plan;
	char *tmpl;
	const char *job;
	int rc, index;

	if (!make_plan("reservation plan", &plan, &rc))
		return rc;
	if (executor_id < -1 || executor_id > INT_MAX)
		return usage("reservation plan: --executor-id must be 0 or more");
	tmpl = rsv_plan_template_json(&plan);
	if (executor_id < 0) {
		printf("{\"cluster_template\":%s}\n", tmpl);
	} else {
		rsv_plan_role(&plan, (int)executor_id, &job, &index);
		printf("{\"cluster_template\":%s,\"task\":{\"type\":\"%s\",\"index\":%d}}\n", tmpl,
		       job, index);
	}
	g_free(tmpl);
	return CLI_OK;
}

static int serve_main(const cli_opts *o)
{
	rsv_serve_opts so = { .timeout_s = timeout_s,
			      .progress_s = progress_s,
			      .grace_s = grace_s,
			      .shutdown_timeout_s = shutdown_s,
			      .auth_timeout_s = auth_timeout_s,
			      .max_pending = max_pending,
			      .listen = listen_opt,
			      .advertise = advertise,
			      .secret_file = secret_file,
			      .summary = summary,
			      .verbose = o->verbose };
	rsv_plan plan;
	int rc;

	if (!make_plan("reservation serve", &plan, &rc))
		return rc;
	if (secret_file == NULL)
		return usage("reservation serve: --secret-file is required");
	if (timeout_s <= 0 || timeout_s > 31536000)
		return usage("reservation serve: --timeout must be 1..31536000 seconds");
	if (progress_s < 0 || progress_s > 31536000)
		return usage("reservation serve: --progress must be 0..31536000 seconds");
	if (grace_s < 0 || grace_s > 31536000)
		return usage("reservation serve: --grace-secs must be 0..31536000 seconds");
	if (shutdown_s != -1 && (shutdown_s <= 0 || shutdown_s > 31536000))
		return usage("reservation serve: --shutdown-timeout must be -1 or 1..31536000 "
			     "seconds");
	if (auth_timeout_s < 1 || auth_timeout_s > 600)
		return usage("reservation serve: --auth-timeout must be 1..600 seconds");
	if (max_pending < 1 || max_pending > 65536)
		return usage("reservation serve: --max-pending must be 1..65536");
	return rsv_serve(&plan, &so);
}

int cli_cmd_reservation(const cli_opts *in, int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	bool serve = sub != NULL && strcmp(sub, "serve") == 0;
	cli_opts o;
	int rc;

	if (cli_describe_mode)
		return cli_parse(&reservation_cmd, in, &o, &argc, &argv, &rc) ? CLI_OK : rc;
	if (sub == NULL)
		return usage("reservation: missing subcommand (serve or plan)");
	if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
		cli_parse(&reservation_cmd, in, &o, &argc, &argv, &rc);
		return rc;
	}
	if (!serve && strcmp(sub, "plan") != 0)
		return usage("reservation: unknown subcommand '%s' (serve or plan)", sub);
	argc--;
	argv++;
	if (!cli_parse(serve ? &serve_cmd : &plan_cmd, in, &o, &argc, &argv, &rc))
		return rc;
	return serve ? serve_main(&o) : plan_main();
}
