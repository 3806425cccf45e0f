/* SPDX-License-Identifier: MIT */
/*
 * cr-testhost.c - `cr-testhost`: libcr-testhost as a command, for plugin
 * tests written in shell. The result goes to stdout exactly as
 * `cluster-resolver` prints it; captured log lines and errors go to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define EXIT_DECLINED 3

static const char summary[] =
	"Run one cluster-resolver plugin in a fake host: an empty environment and\n"
	"file system unless given, HTTP answered from a script, logs on stderr.\n"
	"\n"
	"Commands:\n"
	"  probe        call create and probe\n"
	"  resolve      print what `cluster-resolver resolve --format F` prints\n"
	"  master       print what `cluster-resolver master` prints\n"
	"  enumerate    print what `cluster-resolver accelerators --json` prints\n"
	"\n"
	"An HTTP script is a list of exchanges separated by lines \"%%\":\n"
	"  METHOD URL\n"
	"  Required-Header: value         (any number)\n"
	"  -> STATUS                      or: -> error network|timeout|io|auth MESSAGE\n"
	"  Response-Header: value         (any number)\n"
	"  (empty line)\n"
	"  body, up to the next \"%%\" line\n"
	"Lines starting with '#' before METHOD are comments.\n"
	"\n"
	"A spawn script is a list of child processes separated by lines \"%%\":\n"
	"  PROGRAM ARG...                 the argv, split and quoted as sh does\n"
	"  NAME=value                     entries its environment must hold (any)\n"
	"  -> exit STATUS                 or: -> timeout, or: -> fail MESSAGE\n"
	"  stdout, each line with its newline\n"
	"  -> stderr                      (optional) then stderr's lines\n"
	"Lines starting with '#' before PROGRAM are comments.\n"
	"\n"
	"Exit status: 0 success, 1 failure (also a script not followed),\n"
	"2 usage, configuration or plugin load error, 3 the plugin declined.";

typedef struct opts {
	char *config, *config_file, *root, *http, *spawn, *format, *task_type, *rpc_layer;
	gint64 task_id;
	char **env, **files;
	gboolean inherit_env;
	int verbose;
} opts;

static void fail_line(const cr_error *err)
{
	const char *prefix = "cr-testhost: ";

	fprintf(stderr, "%s%s\n", strncmp(err->message, prefix, strlen(prefix)) == 0 ? "" : prefix,
		err->message);
}

static int exit_for(cr_status st)
{
	switch (st) {
	case CR_OK:
		return 0;
	case CR_DECLINED:
		return EXIT_DECLINED;
	case CR_ERR_CONFIG:
	case CR_ERR_PLUGIN:
	case CR_ERR_ABI:
	case CR_ERR_INVALID_ARG:
		return EXIT_USAGE;
	default:
		return EXIT_FAIL;
	}
}

static gboolean count_verbose(const char *name, const char *value, gpointer data, GError **error)
{
	(void)name;
	(void)value;
	(void)error;
	((opts *)data)->verbose++;
	return TRUE;
}

/* ---- the HTTP script ----------------------------------------------------- */

static cr_status script_error(cr_error *err, const char *file, guint line, const char *what)
{
	err->code = CR_ERR_INVALID_ARG;
	if (line > 0)
		snprintf(err->message, sizeof(err->message), "%s:%u: %s", file, line, what);
	else
		snprintf(err->message, sizeof(err->message), "%s: %s", file, what);
	return err->code;
}

/* A library call's failure inside a block, as "FILE:LINE: why". */
static cr_status at_line(cr_status st, cr_error *err, const char *file, guint line)
{
	const char *prefix = "cr-testhost: ";
	char why[sizeof(err->message)];

	if (st == CR_OK)
		return st;
	g_strlcpy(why, err->message + (g_str_has_prefix(err->message, prefix) ? strlen(prefix) : 0),
		  sizeof(why));
	script_error(err, file, line, why);
	return st;
}

/* @line (number @lineno) as a header or environment entry: a non-blank
 * name before @sep, else "FILE:LINE: expected @what". */
static cr_status check_entry(const char *line, char sep, const char *what, const char *file,
			     guint lineno, cr_error *err)
{
	const char *end = strchr(line, sep);
	char *why;

	for (const char *c = line; end != NULL && c < end; c++)
		if (!g_ascii_isspace(*c))
			return CR_OK;
	why = g_strdup_printf("expected %s", what);
	script_error(err, file, lineno, why);
	g_free(why);
	return CR_ERR_INVALID_ARG;
}

static cr_status transport_code(const char *word)
{
	static const struct {
		const char *name;
		cr_status code;
	} codes[] = { { "network", CR_ERR_NETWORK },
		      { "timeout", CR_ERR_TIMEOUT },
		      { "io", CR_ERR_IO },
		      { "auth", CR_ERR_AUTH } };

	for (size_t i = 0; word != NULL && i < G_N_ELEMENTS(codes); i++)
		if (strcmp(word, codes[i].name) == 0)
			return codes[i].code;
	return CR_OK;
}

/* A block's first line, past comments and empty lines; false for an empty
 * block (the script's end, or "%%" first). */
static bool block_start(char **lines, guint *n)
{
	while (lines[*n] != NULL && (lines[*n][0] == '#' || lines[*n][0] == '\0'))
		(*n)++;
	return lines[*n] != NULL && strcmp(lines[*n], "%%") != 0;
}

/* The lines after the first up to the "-> " line (request headers,
 * environment entries: @what, with @sep), NULL-terminated in @into;
 * *@answered: whether the block has a "-> " line. */
static cr_status block_entries(char **lines, guint *n, GPtrArray *into, char sep, const char *what,
			       const char *file, bool *answered, cr_error *err)
{
	cr_status st = CR_OK;

	for ((*n)++; st == CR_OK && lines[*n] != NULL && strcmp(lines[*n], "%%") != 0 &&
		     !g_str_has_prefix(lines[*n], "-> ");
	     (*n)++) {
		g_ptr_array_add(into, lines[*n]);
		st = check_entry(lines[*n], sep, what, file, *n + 1, err);
	}
	g_ptr_array_add(into, NULL);
	*answered = lines[*n] != NULL && strcmp(lines[*n], "%%") != 0;
	return st;
}

/* One exchange: @lines[*i] up to a "%%" line or the end. */
static cr_status script_exchange(cr_testhost *th, char **lines, guint *i, const char *file,
				 cr_error *err)
{
	GPtrArray *hdrs = g_ptr_array_new();
	char **words = NULL;
	GString *body = NULL;
	guint n = *i;
	cr_status st = CR_OK;
	char *end = NULL;
	long status;
	guint first;
	bool answered;

	if (!block_start(lines, &n))
		goto out;
	words = g_strsplit(lines[n], " ", 2);
	if (words[0] == NULL || words[1] == NULL) {
		st = script_error(err, file, n + 1, "expected \"METHOD URL\"");
		goto out;
	}
	first = n;
	st = block_entries(lines, &n, hdrs, ':', "\"Name: value\"", file, &answered, err);
	if (st == CR_OK)
		st = at_line(cr_testhost_expect(th, words[0], words[1],
						(const char *const *)hdrs->pdata, err),
			     err, file, first + 1);
	if (st != CR_OK)
		goto out;
	if (!answered) {
		st = script_error(err, file, n, "no \"-> STATUS\" line");
		goto out;
	}
	if (g_str_has_prefix(lines[n], "-> error ")) {
		char **e = g_strsplit(lines[n] + 9, " ", 2);
		cr_status code = transport_code(e[0]);

		if (code == CR_OK)
			st = script_error(err, file, n + 1,
					  "unknown failure (network, timeout, io, auth)");
		else
			st = at_line(
				cr_testhost_respond_error(th, code, e[1] != NULL ? e[1] : "", err),
				err, file, n + 1);
		g_strfreev(e);
		for (n++; lines[n] != NULL && strcmp(lines[n], "%%") != 0; n++)
			;
		goto out;
	}
	status = strtol(lines[n] + 3, &end, 10);
	if (*end != '\0' || status < 100 || status > 999) {
		st = script_error(err, file, n + 1,
				  "expected \"-> STATUS\" with a status 100..999");
		goto out;
	}
	g_ptr_array_set_size(hdrs, 0);
	first = n;
	for (n++;
	     st == CR_OK && lines[n] != NULL && lines[n][0] != '\0' && strcmp(lines[n], "%%") != 0;
	     n++) {
		g_ptr_array_add(hdrs, lines[n]);
		st = check_entry(lines[n], ':', "\"Name: value\"", file, n + 1, err);
	}
	g_ptr_array_add(hdrs, NULL);
	if (st != CR_OK)
		goto out;
	if (lines[n] != NULL && lines[n][0] == '\0')
		n++;
	body = g_string_new(NULL);
	for (bool head = true; lines[n] != NULL && strcmp(lines[n], "%%") != 0; n++, head = false)
		g_string_append_printf(body, "%s%s", head ? "" : "\n", lines[n]);
	st = at_line(
		cr_testhost_respond(th, status, (const char *const *)hdrs->pdata, body->str, err),
		err, file, first + 1);
out:
	if (lines[n] != NULL)
		n++; /* the "%%" */
	*i = n;
	g_strfreev(words);
	if (body != NULL)
		g_string_free(body, TRUE);
	g_ptr_array_unref(hdrs);
	return st;
}

/* ---- the spawn script ---------------------------------------------------- */

/* The "-> exit N" block's output: lines up to "%%", each with its newline;
 * "-> stderr" starts stderr's. */
static void spawn_output(char **lines, guint *n, GString *out, GString *err_text)
{
	GString *to = out;

	for (; lines[*n] != NULL && strcmp(lines[*n], "%%") != 0; (*n)++) {
		if (strcmp(lines[*n], "-> stderr") == 0 && to == out)
			to = err_text;
		else
			g_string_append_printf(to, "%s\n", lines[*n]);
	}
}

/* One child process: @lines[*i] up to a "%%" line or the end. */
static cr_status script_spawn(cr_testhost *th, char **lines, guint *i, const char *file,
			      cr_error *err)
{
	GPtrArray *env = g_ptr_array_new();
	GString *out = g_string_new(NULL), *err_text = g_string_new(NULL);
	char **argv = NULL;
	guint n = *i;
	cr_status st = CR_OK;
	GError *gerr = NULL;
	char *end = NULL;
	long status;
	guint first;
	bool answered;

	if (!block_start(lines, &n))
		goto out;
	if (!g_shell_parse_argv(lines[n], NULL, &argv, &gerr)) {
		/* GLib's own words are translated and quote the line back. */
		char *why = g_strdup_printf("expected \"PROGRAM ARG...\" split as sh does: %s",
					    gerr->code == G_SHELL_ERROR_BAD_QUOTING
						    ? "a quote is not closed"
						    : gerr->message);

		st = script_error(err, file, n + 1, why);
		g_free(why);
		g_error_free(gerr);
		goto out;
	}
	first = n;
	st = block_entries(lines, &n, env, '=', "NAME=value", file, &answered, err);
	if (st == CR_OK)
		st = at_line(cr_testhost_expect_spawn(th, (const char *const *)argv,
						      (const char *const *)env->pdata, err),
			     err, file, first + 1);
	if (st != CR_OK)
		goto out;
	if (!answered) {
		st = script_error(err, file, n, "no \"-> exit STATUS\" line");
		goto out;
	}
	if (strcmp(lines[n], "-> timeout") == 0 || g_str_has_prefix(lines[n], "-> fail ")) {
		st = at_line(lines[n][3] == 't' ? cr_testhost_spawn_timeout(th, err)
						: cr_testhost_spawn_fail(th, lines[n] + 8, err),
			     err, file, n + 1);
		if (st == CR_OK && lines[n + 1] != NULL && strcmp(lines[n + 1], "%%") != 0 &&
		    lines[n + 1][0] != '\0')
			st = script_error(err, file, n + 2,
					  "output after \"-> timeout\" or \"-> fail\" (only "
					  "\"-> exit\" has output)");
	} else if (g_str_has_prefix(lines[n], "-> exit ")) {
		status = strtol(lines[n] + 8, &end, 10);
		if (end == lines[n] + 8 || *end != '\0' || status < 0 || status > 255) {
			st = script_error(err, file, n + 1,
					  "expected \"-> exit STATUS\" with a status 0..255");
			goto out;
		}
		first = n++;
		spawn_output(lines, &n, out, err_text);
		st = at_line(cr_testhost_spawn_exit(th, (int)status, out->str, err_text->str, err),
			     err, file, first + 1);
	} else {
		st = script_error(
			err, file, n + 1,
			"expected \"-> exit STATUS\", \"-> timeout\" or \"-> fail MESSAGE\"");
	}
	for (; lines[n] != NULL && strcmp(lines[n], "%%") != 0; n++)
		;
out:
	if (lines[n] != NULL)
		n++; /* the "%%" */
	*i = n;
	g_strfreev(argv);
	g_string_free(out, TRUE);
	g_string_free(err_text, TRUE);
	g_ptr_array_unref(env);
	return st;
}

typedef cr_status (*script_block_fn)(cr_testhost *th, char **lines, guint *i, const char *file,
				     cr_error *err);

/* Each block of the script @text (@len bytes, read from @file) through
 * @block. A NUL byte would end a line unseen: it is refused. */
static cr_status script_text(cr_testhost *th, const char *file, const char *text, size_t len,
			     script_block_fn block, cr_error *err)
{
	const char *nul = memchr(text, '\0', len);
	char **lines;
	cr_status st = CR_OK;

	if (nul != NULL) {
		guint line = 1;

		for (const char *c = text; c < nul; c++)
			line += *c == '\n';
		return script_error(err, file, line, "a NUL byte (a script is text)");
	}
	lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; st == CR_OK && lines[i] != NULL;)
		st = block(th, lines, &i, file, err);
	g_strfreev(lines);
	return st;
}

static cr_status load_script(cr_testhost *th, const char *file, script_block_fn block,
			     cr_error *err)
{
	GError *gerr = NULL;
	char *text = NULL;
	gsize len = 0;
	cr_status st;

	if (!g_file_get_contents(file, &text, &len, &gerr)) {
		st = script_error(err, file, 0, gerr->message);
		g_error_free(gerr);
		return st;
	}
	st = script_text(th, file, text, len, block, err);
	g_free(text);
	return st;
}

/* ---- setting up and running ---------------------------------------------- */

static cr_status setup(cr_testhost *th, const opts *o, cr_error *err)
{
	cr_status st = CR_OK;

	cr_testhost_inherit_env(th, o->inherit_env);
	for (size_t i = 0; st == CR_OK && o->env != NULL && o->env[i] != NULL; i++) {
		char *eq = strchr(o->env[i], '=');
		char *name = g_strndup(o->env[i],
				       eq != NULL ? (gsize)(eq - o->env[i]) : strlen(o->env[i]));

		st = cr_testhost_setenv(th, name, eq != NULL ? eq + 1 : NULL, err);
		g_free(name);
	}
	if (st == CR_OK && o->root != NULL)
		st = cr_testhost_set_root(th, o->root, err);
	for (size_t i = 0; st == CR_OK && o->files != NULL && o->files[i] != NULL; i++) {
		char *eq = strchr(o->files[i], '=');
		char *path = g_strndup(o->files[i], eq != NULL ? (gsize)(eq - o->files[i])
							       : strlen(o->files[i]));

		st = cr_testhost_add_file(th, path, eq != NULL ? eq + 1 : "", (size_t)-1, err);
		g_free(path);
	}
	if (st == CR_OK && o->http != NULL)
		st = load_script(th, o->http, script_exchange, err);
	if (st == CR_OK && o->spawn != NULL)
		st = load_script(th, o->spawn, script_spawn, err);
	if (st == CR_OK && (o->task_type != NULL || o->task_id >= 0))
		st = cr_testhost_set_task(th, o->task_type, o->task_id, err);
	if (st == CR_OK && o->rpc_layer != NULL)
		st = cr_testhost_set_rpc_layer(th, o->rpc_layer, err);
	return st;
}

/* probe: a decline says so, with the plugin's reason. */
static cr_status probe(cr_testhost *th, cr_error *err)
{
	cr_status st = cr_testhost_probe(th, err);
	char reason[sizeof(err->message)];

	if (st != CR_DECLINED)
		return st;
	g_strlcpy(reason, err->message, sizeof(reason));
	if (reason[0] != '\0')
		g_snprintf(err->message, sizeof(err->message), "declined: %s", reason);
	else
		g_strlcpy(err->message, "declined (the plugin gave no reason)",
			  sizeof(err->message));
	return st;
}

static cr_status run(cr_testhost *th, const char *command, const opts *o, const char **out,
		     cr_error *err)
{
	*out = NULL;
	if (strcmp(command, "probe") == 0)
		return probe(th, err);
	if (strcmp(command, "resolve") == 0)
		return cr_testhost_resolve(th, o->format, out, err);
	if (strcmp(command, "master") == 0)
		return cr_testhost_master(th, out, err);
	if (strcmp(command, "enumerate") == 0)
		return cr_testhost_enumerate(th, out, err);
	return script_error(err, "cr-testhost", 0,
			    "unknown command (probe, resolve, master, enumerate)");
}

static char *read_config(const opts *o, cr_error *err)
{
	GError *gerr = NULL;
	char *text = NULL;

	if (o->config_file == NULL)
		return g_strdup(o->config != NULL ? o->config : "");
	if (!g_file_get_contents(o->config_file, &text, NULL, &gerr)) {
		script_error(err, o->config_file, 0, gerr->message);
		g_error_free(gerr);
	}
	return text;
}

static int run_plugin(const char *plugin, const char *command, const opts *o)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	const char *out = NULL;
	char *config = NULL;
	cr_status st = th != NULL ? CR_OK : err.code;

	if (st == CR_OK)
		cr_testhost_set_log_level(th, o->verbose >= 2   ? CR_LOG_DEBUG
					      : o->verbose == 1 ? CR_LOG_INFO
								: CR_LOG_WARNING);
	if (st == CR_OK && (config = read_config(o, &err)) == NULL)
		st = err.code;
	if (st == CR_OK)
		st = cr_testhost_load(th, plugin, config, &err);
	if (st == CR_OK)
		st = setup(th, o, &err);
	if (st == CR_OK)
		st = run(th, command, o, &out, &err);
	if (st == CR_OK)
		st = cr_testhost_verify(th, &err);
	if (th != NULL)
		fputs(cr_testhost_logs(th), stderr);
	if (st == CR_OK && out != NULL)
		fputs(out, stdout);
	if (st != CR_OK && err.message[0] != '\0')
		fail_line(&err);
	g_free(config);
	cr_testhost_free(th);
	return exit_for(st);
}

int main(int argc, char **argv)
{
	opts o = { .task_id = -1 };
	const GOptionEntry entries[] = {
		{ "config", 'c', 0, G_OPTION_ARG_STRING, &o.config,
		  "The plugin's config group as libconfig text", "TEXT" },
		{ "config-file", 0, 0, G_OPTION_ARG_FILENAME, &o.config_file,
		  "Read the config group text from FILE", "FILE" },
		{ "env", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &o.env,
		  "Set a variable (repeat); NAME alone hides it", "NAME=VALUE" },
		{ "inherit-env", 0, 0, G_OPTION_ARG_NONE, &o.inherit_env,
		  "Let the plugin see the real environment too", NULL },
		{ "file", 'f', 0, G_OPTION_ARG_STRING_ARRAY, &o.files,
		  "Add a file to the private root (repeat)", "PATH=CONTENTS" },
		{ "root", 0, 0, G_OPTION_ARG_FILENAME, &o.root,
		  "Read files under DIR (\"/\" for the real ones)", "DIR" },
		{ "http", 0, 0, G_OPTION_ARG_FILENAME, &o.http,
		  "Answer HTTP requests from the script FILE", "FILE" },
		{ "spawn", 0, 0, G_OPTION_ARG_FILENAME, &o.spawn,
		  "Answer child processes from the script FILE", "FILE" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &o.format,
		  "resolve's output format (default json)", "F" },
		{ "task-type", 0, 0, G_OPTION_ARG_STRING, &o.task_type, "Override the task type",
		  "T" },
		{ "task-id", 0, 0, G_OPTION_ARG_INT64, &o.task_id, "Override the task id", "N" },
		{ "rpc-layer", 0, 0, G_OPTION_ARG_STRING, &o.rpc_layer,
		  "Override the rpc layer (\"\" for none)", "R" },
		{ "verbose", 'v', G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK,
		  (gpointer)count_verbose, "Show info log lines (twice: debug)", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *oc = g_option_context_new("PLUGIN.so COMMAND");
	GOptionGroup *group = g_option_group_new(NULL, NULL, NULL, &o, NULL);
	GError *gerr = NULL;
	int rc;

	g_option_group_add_entries(group, entries);
	g_option_context_set_main_group(oc, group);
	g_option_context_set_summary(oc, summary);
	if (!g_option_context_parse(oc, &argc, &argv, &gerr)) {
		fprintf(stderr, "cr-testhost: %s\n", gerr->message);
		g_error_free(gerr);
		rc = EXIT_USAGE;
	} else if (argc != 3) {
		fprintf(stderr,
			"usage: cr-testhost [OPTIONS] PLUGIN.so probe|resolve|master|enumerate "
			"(try --help)\n");
		rc = EXIT_USAGE;
	} else if (o.config != NULL && o.config_file != NULL) {
		fprintf(stderr, "cr-testhost: give --config or --config-file, not both\n");
		rc = EXIT_USAGE;
	} else {
		rc = run_plugin(argv[1], argv[2], &o);
	}
	g_option_context_free(oc);
	g_free(o.config);
	g_free(o.config_file);
	g_free(o.root);
	g_free(o.http);
	g_free(o.spawn);
	g_free(o.format);
	g_free(o.task_type);
	g_free(o.rpc_layer);
	g_strfreev(o.env);
	g_strfreev(o.files);
	return rc;
}
