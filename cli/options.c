/* SPDX-License-Identifier: MIT */
/*
 * options.c - option parsing for every subcommand with GLib's GOptionContext:
 * the global options (accepted before and after the command), a command's
 * own entries, `COMMAND --help` with examples, and the errors a user sees
 * ("option --config needs a value", "--format given twice"). The same
 * tables feed the shell completion (completion.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

/* The global options' storage: GOption writes here, wherever on the
 * command line they appear (strings stay until exit). */
static char *global_config, *global_task_type, *global_task_id, *global_rpc_layer;
static int global_verbose;

static gboolean take_verbose(const char *name, const char *value, gpointer data, GError **error)
{
	(void)name;
	(void)value;
	(void)data;
	(void)error;
	global_verbose++;
	return TRUE;
}

const GOptionEntry cli_global_entries[] = {
	{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &global_config,
	  "configuration file (default: $CLUSTER_RESOLVER_CONFIG, else the installed "
	  "cluster-resolver.conf, else the built-in auto configuration)",
	  "FILE" },
	{ "task-type", 0, 0, G_OPTION_ARG_STRING, &global_task_type,
	  "override this process's task type", "T" },
	{ "task-id", 0, 0, G_OPTION_ARG_STRING, &global_task_id, "override this process's task id",
	  "N" },
	{ "rpc-layer", 0, 0, G_OPTION_ARG_STRING, &global_rpc_layer,
	  "override the rpc layer (\"\" for none)", "R" },
	{ "verbose", 'v', G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer)take_verbose,
	  "more diagnostics (-vv: debug)", NULL },
	G_OPTION_ENTRY_NULL
};

/* What the parsed command lines are made of lives until exit: the
 * commands keep pointers into them. Held here, it is never a leak. */
static GPtrArray *kept;

static gpointer keep(gpointer p)
{
	if (kept == NULL)
		kept = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(kept, p);
	return p;
}

/* Set while the completion script is made: cli_parse records the command
 * instead of running it. */
const cli_command *cli_describing;
bool cli_describe_mode;

/* "-cFILE" / "-vvcFILE" -> "-c" "FILE": GOption takes a short option's
 * value only from the next argument. Returns a new vector (kept until
 * exit, as are the strings it adds). */
static char **split_short_values(int argc, char **argv, int *out_argc)
{
	char **v = keep(g_new0(char *, (gsize)argc * 2 + 1));
	int n = 0;
	bool done = false;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *c;

		if (!done && strcmp(a, "--") == 0)
			done = true;
		if (done || i == 0 || a[0] != '-' || a[1] == '-' || a[1] == '\0' ||
		    (c = strchr(a, 'c')) == NULL || c[1] == '\0' ||
		    strspn(a + 1, "v") != (size_t)(c - a - 1)) {
			v[n++] = argv[i];
			continue;
		}
		/* Only -v may come before -c in one argument. */
		v[n++] = keep(g_strndup(a, (gsize)(c - a + 1)));
		v[n++] = (char *)(c + 1);
	}
	*out_argc = n;
	return v;
}

/* GOption's messages in the CLI's words. */
static void report_parse_error(const char *command, const GError *e)
{
	static const char missing[] = "Missing argument for ";
	static const char unknown[] = "Unknown option ";

	if (g_str_has_prefix(e->message, missing))
		cli_error("option %s needs a value", e->message + strlen(missing));
	else if (g_str_has_prefix(e->message, unknown))
		cli_error("%s: unexpected argument '%s'", command, e->message + strlen(unknown));
	else
		cli_error("%s: %s", command, e->message);
}

static void print_help(GOptionContext *ctx)
{
	char *help = g_option_context_get_help(ctx, FALSE, NULL);

	fputs(help, stdout);
	g_free(help);
}

static GOptionContext *make_context(const cli_command *cmd)
{
	char *params = g_strdup_printf("%s%s%s", cmd->name, cmd->params ? " " : "",
				       cmd->params ? cmd->params : "");
	GOptionContext *ctx = g_option_context_new(params);
	GOptionGroup *global = g_option_group_new("global", "Options of every command:",
						  "Show the options of every command", NULL, NULL);

	g_free(params);
	g_option_context_set_help_enabled(ctx, FALSE);
	g_option_context_set_summary(ctx, cmd->summary);
	if (cmd->examples != NULL)
		g_option_context_set_description(ctx, cmd->examples);
	g_option_group_add_entries(global, cli_global_entries);
	if (cmd->entries != NULL)
		g_option_context_add_main_entries(ctx, cmd->entries, NULL);
	if (cmd->format_entries != NULL)
		g_option_context_add_main_entries(ctx, cmd->format_entries, NULL);
	g_option_context_add_group(ctx, global);
	return ctx;
}

/* After a parse: the globals into @o; false (with a message) when one is bad. */
static bool collect_globals(cli_opts *o)
{
	if (global_config != NULL)
		o->config = global_config;
	if (global_task_type != NULL)
		o->task_type = global_task_type;
	if (global_rpc_layer != NULL)
		o->rpc_layer = global_rpc_layer;
	o->verbose = global_verbose;
	if (global_task_id != NULL && !cli_parse_task_id(global_task_id, &o->task_id))
		return false;
	return true;
}

bool cli_parse_globals(int *argc, char ***argv, cli_opts *o, int *rc)
{
	static const cli_command top = { .name = "cluster-resolver" };
	GOptionContext *ctx = make_context(&top);
	GError *e = NULL;
	int n = 0;
	char **v = split_short_values(*argc, *argv, &n);
	bool ok;

	/* Up to the command; what follows is the command's. */
	g_option_context_set_strict_posix(ctx, TRUE);
	g_option_context_set_ignore_unknown_options(ctx, TRUE);
	ok = g_option_context_parse(ctx, &n, &v, &e);
	g_option_context_free(ctx);
	if (!ok) {
		report_parse_error("cluster-resolver", e);
		g_error_free(e);
		*rc = CLI_USAGE;
		return false;
	}
	*argc = n;
	*argv = v;
	if (!collect_globals(o)) {
		*rc = CLI_USAGE;
		return false;
	}
	return true;
}

static bool unexpected(const cli_command *cmd, const char *arg, int *rc)
{
	cli_error("%s: unexpected argument '%s'", cmd->name, arg);
	*rc = CLI_USAGE;
	return false;
}

static void add_long_names(GPtrArray *names, const GOptionEntry *e)
{
	for (; e != NULL && e->long_name != NULL; e++)
		g_ptr_array_add(names, g_strdup_printf("--%s", e->long_name));
}

/*
 * An option no table knows, as kubectl and git say it: "unknown option
 * '--fromat' (did you mean '--format'?); see 'cluster-resolver resolve
 * --help'". @cmd NULL: before any command.
 */
void cli_unknown_option(const cli_command *cmd, const char *arg)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	char *word = g_strndup(arg, strcspn(arg, "="));
	const char *near;

	if (cmd != NULL) {
		add_long_names(names, cmd->entries);
		add_long_names(names, cmd->format_entries);
	}
	add_long_names(names, cli_global_entries);
	g_ptr_array_add(names, g_strdup("--help"));
	if (cmd == NULL)
		g_ptr_array_add(names, g_strdup("--version"));
	g_ptr_array_add(names, NULL);
	near = g_str_has_prefix(word, "--") ? cli_nearest(word, (const char *const *)names->pdata)
					    : NULL;
	if (near != NULL)
		cli_error("unknown option '%s' (did you mean '%s'?); see 'cluster-resolver%s%s "
			  "--help'",
			  word, near, cmd != NULL ? " " : "", cmd != NULL ? cmd->name : "");
	else
		cli_error("unknown option '%s'; see 'cluster-resolver%s%s --help'", word,
			  cmd != NULL ? " " : "", cmd != NULL ? cmd->name : "");
	g_free(word);
	g_ptr_array_unref(names);
}

/* `exec python train.py`: the program belongs after "--". */
static bool program_without_dashdash(const cli_command *cmd, char **v, int i, int n, int *rc)
{
	cli_error("%s: unexpected argument '%s' (did you mean 'cluster-resolver %s -- %s%s'?)",
		  cmd->name, v[i], cmd->name, v[i], i + 1 < n ? " ..." : "");
	*rc = CLI_USAGE;
	return false;
}

bool cli_parse(const cli_command *cmd, const cli_opts *in, cli_opts *out, int *argc, char ***argv,
	       int *rc)
{
	GOptionContext *ctx;
	GError *e = NULL;
	bool help = false;
	int n = 0, dd = 0;
	char **v, **all;
	const GOptionEntry help_entry[] = { { "help", 'h', 0, G_OPTION_ARG_NONE, &help,
					      "show this help", NULL },
					    G_OPTION_ENTRY_NULL };

	if (cli_describe_mode) {
		cli_describing = cmd;
		*rc = CLI_DESCRIBED;
		return false;
	}
	*out = *in;
	/* "--" ends the options: GOption sees only what comes before it. */
	while (dd < *argc && strcmp((*argv)[dd], "--") != 0)
		dd++;
	v = split_short_values(dd, *argv, &n);
	ctx = make_context(cmd);
	g_option_context_add_main_entries(ctx, help_entry, NULL);
	g_option_context_set_ignore_unknown_options(ctx, TRUE);
	if (!g_option_context_parse(ctx, &n, &v, &e)) {
		report_parse_error(cmd->name, e);
		g_error_free(e);
		g_option_context_free(ctx);
		*rc = CLI_USAGE;
		return false;
	}
	g_option_context_free(ctx);
	if (help) {
		ctx = make_context(cmd);
		g_option_context_add_main_entries(ctx, help_entry, NULL);
		print_help(ctx);
		g_option_context_free(ctx);
		*rc = CLI_OK;
		return false;
	}
	if (!collect_globals(out)) {
		*rc = CLI_USAGE;
		return false;
	}
	/* What GOption left before "--" are positional arguments, or options
	 * it does not know: each of those is an error, and so is a positional
	 * argument beyond what the command takes (`exec` takes none before
	 * "--"). After "--" everything is positional; `exec` keeps the "--". */
	for (int i = 1; i < n; i++) {
		if (v[i][0] == '-' && v[i][1] != '\0') {
			cli_unknown_option(cmd, v[i]);
			*rc = CLI_USAGE;
			return false;
		}
		if (cmd->max_args == CLI_ARGS_AFTER_DASHDASH)
			return program_without_dashdash(cmd, v, i, n, rc);
		if ((cmd->max_args >= 0 && i - 1 >= cmd->max_args))
			return unexpected(cmd, v[i], rc);
	}
	all = keep(g_new0(char *, (gsize)(n + *argc - dd + 1)));
	memcpy(all, v, sizeof(char *) * (size_t)n);
	if (dd < *argc && cmd->max_args == CLI_ARGS_AFTER_DASHDASH)
		all[n++] = (*argv)[dd];
	for (int i = dd + 1; i < *argc; i++) {
		if (cmd->max_args >= 0 && n - 1 >= cmd->max_args)
			return unexpected(cmd, (*argv)[i], rc);
		all[n++] = (*argv)[i];
	}
	*argc = n;
	*argv = all;
	return true;
}

bool cli_single_value(const char *command, const char *option, char **values, const char **out)
{
	if (values == NULL || values[0] == NULL)
		return true;
	if (values[1] != NULL) {
		cli_error("%s: %s given twice ('%s', '%s'); give a list in one, e.g. %s "
			  "\"torch,jax\"",
			  command, option, values[0], values[1], option);
		return false;
	}
	*out = values[0];
	return true;
}

char **cli_split_list(const char *command, const char *option, const char *text)
{
	char **items = g_strsplit(text, ",", -1);

	/* g_strsplit("") is an empty vector: an empty list is an empty name. */
	if (items[0] == NULL) {
		cli_error("%s: empty name in %s list '%s'", command, option, text);
		g_strfreev(items);
		return NULL;
	}
	for (guint i = 0; items[i] != NULL; i++) {
		g_strstrip(items[i]);
		if (items[i][0] == '\0') {
			cli_error("%s: empty name in %s list '%s'", command, option, text);
			g_strfreev(items);
			return NULL;
		}
	}
	return items;
}

const char *const cli_format_names[] = { "tf_config", "json",     "clusterdef", "env",
					 "torch",     "torchrun", "jax",        "hostfile",
					 "horovod",   "hosts",    NULL };
const char *const cli_var_format_names[] = { "tf_config", "torch", "torchrun", "jax", "env", NULL };
const char *const cli_dialect_names[] = { "openmpi", "mpich", "deepspeed", NULL };
const char *const cli_rdzv_names[] = { "static", "c10d", NULL };
