/* SPDX-License-Identifier: MIT */
/* cmd-resolve.c - `resolve`, `master` and `accelerators`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static const cli_command resolve_cmd = {
	.name = "resolve",
	.summary = "Print the cluster in a framework's terms.",
	.examples =
		"Examples:\n"
		"  cluster-resolver resolve                        # TF_CONFIG's JSON\n"
		"  cluster-resolver resolve --format json          # with master and accelerators\n"
		"  eval \"$(cluster-resolver resolve --format env)\"\n"
		"  cluster-resolver resolve --format \"torch, jax\"  # both sets of exports\n"
		"  cluster-resolver resolve --format torchrun --master-port auto\n"
		"  cluster-resolver resolve --format hostfile --dialect deepspeed > hostfile\n"
		"  cluster-resolver -c site.conf resolve --format hosts --jobs worker,ps\n",
	.format_entries = cli_format_entries,
	.max_args = 0,
	.values = cli_format_value_words,
};

/* Print each format of the list, in order; nothing when one fails. The
 * texts are kept as the formats made them (at 100,000 tasks one is
 * megabytes: no copy). */
static int resolve_print(const cr_result *res, const char *const *formats)
{
	cr_error err = CR_ERROR_INIT;
	GPtrArray *texts = g_ptr_array_new_with_free_func(cr_free);
	GArray *lens = g_array_new(FALSE, FALSE, sizeof(size_t));
	int rc = CLI_OK;

	for (size_t f = 0; rc == CLI_OK && formats[f] != NULL; f++) {
		char **opts = cli_format_options(formats, formats[f]);
		char *text = NULL;
		size_t len = 0;
		cr_status st = cr_result_format(res, formats[f], (const char *const *)opts, &text,
						&len, &err);

		if (st == CR_ERR_NOT_FOUND && cli_format_lists_hosts(formats[f])) {
			/* An empty membership is a normal moment of an elastic
			 * job: Horovod's discovery script reads "no hosts yet". */
			cli_error("warning: %s; printing nothing", err.message);
		} else if (st != CR_OK) {
			cli_error("%s", err.message);
			rc = cli_exit_status(st, CLI_PHASE_OUTPUT);
		} else {
			g_ptr_array_add(texts, g_steal_pointer(&text));
			g_array_append_val(lens, len);
		}
		cr_free(text);
		g_strfreev(opts);
	}
	for (guint i = 0; rc == CLI_OK && i < texts->len; i++)
		if (fwrite(texts->pdata[i], 1, g_array_index(lens, size_t, i), stdout) !=
		    g_array_index(lens, size_t, i))
			rc = CLI_FAIL;
	g_ptr_array_unref(texts);
	g_array_unref(lens);
	return rc;
}

int cli_cmd_resolve(const cli_opts *in, int argc, char **argv)
{
	cli_opts o;
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	char **formats = NULL;
	int rc;

	if (!cli_parse(&resolve_cmd, in, &o, &argc, &argv, &rc))
		return rc;
	if (!cli_format_list("resolve", cli_format_names, &formats))
		return CLI_USAGE;
	rc = cli_resolve(&o, &ctx, &res);
	if (rc == CLI_OK)
		rc = resolve_print(res, (const char *const *)formats);
	g_strfreev(formats);
	cr_result_free(res);
	cr_context_free(ctx);
	return rc;
}

static const cli_command master_cmd = {
	.name = "master",
	.summary = "Print the master URL of this task, or of the task given with --task-type "
		   "and --task-id.",
	.examples = "Examples:\n"
		    "  cluster-resolver master\n"
		    "  cluster-resolver master --task-type chief --task-id 0 --rpc-layer grpc\n",
	.max_args = 0,
};

/*
 * `master`: with --task-type or --task-id given, the master of that task,
 * for every resolver (a lone one has changed that part of this process's
 * identity in the context, as for `resolve`; the task must exist:
 * TensorFlow's "No task with index N in job 'J'", never another task's
 * address). Otherwise this process's: the first resolver's own master,
 * else its task's. With no master configured and this process's task
 * unknown the answer is "" (TensorFlow's Slurm and Kubernetes resolvers),
 * with a warning saying why.
 */
int cli_cmd_master(const cli_opts *in, int argc, char **argv)
{
	cli_opts parsed, *o = &parsed;
	bool both;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	char *url = NULL;
	cr_status st;
	int rc;

	if (!cli_parse(&master_cmd, in, o, &argc, &argv, &rc))
		return rc;
	rc = cli_resolve(o, &ctx, &res);
	/* A task asked for: the effective one (a lone part completed from
	 * this process's identity), when both parts are known. */
	both = (o->task_type != NULL || o->task_id >= 0) && rc == CLI_OK &&
	       cr_result_task_type(res) != NULL && cr_result_task_id(res) >= 0;
	if (rc == CLI_OK) {
		st = cr_result_master(res, both ? cr_result_task_type(res) : NULL,
				      both ? cr_result_task_id(res) : -1, o->rpc_layer, &url, &err);
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

static gboolean accel_json;
static const GOptionEntry accel_entries[] = { { "json", 0, 0, G_OPTION_ARG_NONE, &accel_json,
						"each accelerator's details, not only the counts",
						NULL },
					      G_OPTION_ENTRY_NULL };
static const cli_command accel_cmd = {
	.name = "accelerators",
	.summary = "Print this task's accelerator counts (JSON).",
	.examples = "Examples:\n"
		    "  cluster-resolver accelerators\n"
		    "  cluster-resolver accelerators --json\n",
	.entries = accel_entries,
	.max_args = 0,
};

int cli_cmd_accelerators(const cli_opts *in, int argc, char **argv)
{
	cli_opts o;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	char *json = NULL;
	int rc;

	if (!cli_parse(&accel_cmd, in, &o, &argc, &argv, &rc))
		return rc;
	rc = cli_resolve(&o, &ctx, &res);
	if (rc == CLI_OK) {
		cr_status st = cr_result_accelerators_json(res, NULL, -1, accel_json, &json, &err);

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
