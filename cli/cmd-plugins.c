/* SPDX-License-Identifier: MIT */
/* cmd-plugins.c - `plugins [--json]` and `check-config [FILE]`. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static gboolean plugins_json;
static const GOptionEntry plugins_entries[] = { { "json", 0, 0, G_OPTION_ARG_NONE, &plugins_json,
						  "one JSON array", NULL },
						G_OPTION_ENTRY_NULL };
static const cli_command plugins_cmd = {
	.name = "plugins",
	.params = "[NAME...]",
	.summary = "List the installed plugins (or those NAMEd), their ABI and options. With -c "
		   "FILE (or "
		   "$CLUSTER_RESOLVER_CONFIG) the configuration is loaded first and its "
		   "plugin_path searched too.",
	.examples = "Examples:\n"
		    "  cluster-resolver plugins\n"
		    "  cluster-resolver plugins k8s slurm\n"
		    "  cluster-resolver -c site.conf plugins --json\n",
	.entries = plugins_entries,
	.max_args = -1,
	.plugin_names = true,
};

static bool wanted(const char *name, size_t len, char **names, bool *seen)
{
	for (size_t i = 0; names[i] != NULL; i++)
		if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0) {
			seen[i] = true;
			return true;
		}
	return false;
}

/* The blocks of the text listing whose first word is a wanted name. */
static void filter_text(GString *out, const char *text, char **names, bool *seen)
{
	bool keep = false;

	for (const char *line = text; *line != '\0';) {
		const char *end = strchr(line, '\n');
		size_t len = end != NULL ? (size_t)(end - line + 1) : strlen(line);

		if (line[0] != ' ')
			keep = wanted(line, strcspn(line, " \n"), names, seen);
		if (keep)
			g_string_append_len(out, line, (gssize)len);
		line += len;
	}
}

/* The objects of the JSON array whose "name" is wanted, as the library
 * wrote them (each starts {"name": "NAME", ...; names are [A-Za-z0-9_-]). */
static void filter_json(GString *out, const char *json, char **names, bool *seen)
{
	static const char key[] = "{\"name\": \"";
	int depth = 0;
	bool in_string = false, first = true;
	const char *start = NULL;

	g_string_append_c(out, '[');
	for (const char *p = json; *p != '\0'; p++) {
		if (in_string) {
			if (*p == '\\' && p[1] != '\0')
				p++;
			else if (*p == '"')
				in_string = false;
			continue;
		}
		if (*p == '"')
			in_string = true;
		else if (*p == '{' && depth++ == 0)
			start = p;
		else if (*p == '}' && --depth == 0 && start != NULL &&
			 g_str_has_prefix(start, key) &&
			 wanted(start + strlen(key), strcspn(start + strlen(key), "\""), names,
				seen)) {
			g_string_append_printf(out, "%s%.*s", first ? "" : ", ",
					       (int)(p - start + 1), start);
			first = false;
		}
	}
	g_string_append(out, "]\n");
}

int cli_cmd_plugins(const cli_opts *in, int argc, char **argv)
{
	cli_opts o;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	const char *env = g_getenv("CLUSTER_RESOLVER_CONFIG");
	char *text = NULL;
	cr_status st;
	int rc;

	if (!cli_parse(&plugins_cmd, in, &o, &argc, &argv, &rc))
		return rc;
	/* A configuration named on purpose brings its plugin_path. */
	if (o.config != NULL || (env != NULL && env[0] != '\0')) {
		rc = cli_open(&o, &ctx);
		if (rc != CLI_OK)
			return rc;
	} else {
		ctx = cr_context_new(&err);
	}
	st = plugins_json ? cr_context_plugins_json(ctx, &text, &err)
			  : cr_context_plugins_text(ctx, &text, &err);
	rc = cli_exit_status(st, CLI_PHASE_RESOLVE);
	if (st != CR_OK) {
		cli_error("%s", err.message);
	} else if (argc > 1) {
		GString *out = g_string_new(NULL);
		bool *seen = g_new0(bool, (gsize)argc);

		if (plugins_json)
			filter_json(out, text, argv + 1, seen);
		else
			filter_text(out, text, argv + 1, seen);
		for (int i = 1; i < argc && rc == CLI_OK; i++)
			if (!seen[i - 1]) {
				cli_error("plugins: no plugin '%s' on the search path", argv[i]);
				rc = CLI_USAGE;
			}
		if (rc == CLI_OK)
			fputs(out->str, stdout);
		g_string_free(out, TRUE);
		g_free(seen);
	} else {
		fputs(text, stdout);
	}
	cr_free(text);
	cr_context_free(ctx);
	return rc;
}

static const cli_command check_cmd = {
	.name = "check-config",
	.params = "[FILE]",
	.summary = "Validate a configuration file (default: the one -c, "
		   "$CLUSTER_RESOLVER_CONFIG or the installed default names): every file read, "
		   "every resolver and accelerator with its options (secrets hidden). With -v, "
		   "also the merged top-level values.",
	.examples = "Examples:\n"
		    "  cluster-resolver check-config\n"
		    "  cluster-resolver check-config /etc/cluster-resolver/cluster-resolver.conf\n"
		    "  cluster-resolver -v check-config site.conf\n",
	.max_args = 1,
};

int cli_cmd_check_config(const cli_opts *in, int argc, char **argv)
{
	cli_opts co;
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	char *text = NULL;
	cr_status st;
	int rc;

	if (!cli_parse(&check_cmd, in, &co, &argc, &argv, &rc))
		return rc;
	if (argc == 2)
		co.config = argv[1];
	rc = cli_open(&co, &ctx);
	if (rc != CLI_OK)
		return rc;
	/* Checking is still loading: every failure is a configuration error. */
	st = cr_context_check(ctx, &text, &err);
	if (st != CR_OK) {
		cli_error("%s", err.message);
		rc = cli_exit_status(st, CLI_PHASE_CONFIG);
	} else {
		fputs(text, stdout);
	}
	cr_free(text);
	cr_context_free(ctx);
	return rc;
}
