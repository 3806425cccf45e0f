/* SPDX-License-Identifier: MIT */
/* thc.c - see thc.h. */
#include <stdlib.h>
#include <string.h>

#include "thc.h"

typedef struct thc_run {
	const thc_case *c;
	char *plugin; /* absolute path */
} thc_run;

static void replace_env(GString *s, const char *what, const char *var, const char *suffix)
{
	const char *v = g_getenv(var);
	char *with = g_strconcat(v != NULL ? v : "", suffix, NULL);

	g_string_replace(s, what, with, 0);
	g_free(with);
}

static char *subst(const char *text, const char *plugin)
{
	GString *s;

	if (text == NULL)
		return NULL;
	s = g_string_new(text);
	g_string_replace(s, "@PLUGIN@", plugin, 0);
	replace_env(s, "@FIX@", "CR_TEST_SOURCE_DIR", "/tests/fixtures/accel");
	replace_env(s, "@SRC@", "CR_TEST_SOURCE_DIR", "");
	replace_env(s, "@BUILD@", "CR_TEST_BUILD_DIR", "");
	replace_env(s, "@NVML@", "FAKE_NVML_DIR", "");
	return g_string_free(s, FALSE);
}

/* "--name=value" or "--name value" at args[*i]; NULL when not @name. */
static const char *option(const char *const *args, size_t *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(args[*i], name, n) != 0)
		return NULL;
	if (args[*i][n] == '=')
		return args[*i] + n + 1;
	if (args[*i][n] == '\0' && args[*i + 1] != NULL)
		return args[++*i];
	return NULL;
}

static cr_status setup(cr_testhost *th, const thc_case *c, const char *plugin, cr_error *err)
{
	char *config = subst(c->config, plugin);
	cr_status st = cr_testhost_load(th, plugin, config, err);

	g_free(config);
	for (size_t i = 0; i < G_N_ELEMENTS(c->process_env) && c->process_env[i] != NULL; i++) {
		char *kv = subst(c->process_env[i], plugin);
		char *eq = strchr(kv, '=');

		g_assert_nonnull(eq);
		*eq = '\0';
		g_setenv(kv, eq + 1, TRUE);
		g_free(kv);
	}
	for (size_t i = 0; st == CR_OK && i < G_N_ELEMENTS(c->env) && c->env[i] != NULL; i++) {
		const char *eq = strchr(c->env[i], '=');
		char *name = g_strndup(c->env[i],
				       eq != NULL ? (gsize)(eq - c->env[i]) : strlen(c->env[i]));

		char *value = eq != NULL ? subst(eq + 1, plugin) : NULL;

		st = cr_testhost_setenv(th, name, value, err);
		g_free(value);
		g_free(name);
	}
	if (st == CR_OK && c->root != NULL) {
		char *root = subst(c->root, plugin);

		st = cr_testhost_set_root(th, root, err);
		g_free(root);
	}
	return st;
}

/* `accelerators` without --json: the counts of enumerate's answer. */
static cr_status counts_only(cr_status st, const char **out, char **keep)
{
	static const char head[] = "{\"num_accelerators\": ";
	const char *end;

	if (st != CR_OK)
		return st;
	g_assert_true(g_str_has_prefix(*out, head));
	end = strstr(*out, ", \"devices\": ");
	g_assert_nonnull(end);
	*keep = g_strdup_printf("%.*s\n", (int)(end - *out - strlen(head)), *out + strlen(head));
	*out = *keep;
	return st;
}

/* Run the operation of c->args; *keep holds an output made here. */
static cr_status run(cr_testhost *th, const thc_case *c, const char **out, char **keep,
		     cr_error *err)
{
	const char *cmd = NULL, *format = "tf_config", *type = NULL, *layer = NULL, *v;
	int64_t id = -1;
	bool json = false;
	cr_status st = CR_OK;

	for (size_t i = 0; i < G_N_ELEMENTS(c->args) && c->args[i] != NULL; i++) {
		if ((v = option(c->args, &i, "--format")) != NULL)
			format = v;
		else if ((v = option(c->args, &i, "--task-type")) != NULL)
			type = v;
		else if ((v = option(c->args, &i, "--task-id")) != NULL)
			id = g_ascii_strtoll(v, NULL, 10);
		else if ((v = option(c->args, &i, "--rpc-layer")) != NULL)
			layer = v;
		else if (strcmp(c->args[i], "--json") == 0)
			json = true;
		else
			cmd = c->args[i];
	}
	g_assert_nonnull(cmd);
	if (type != NULL || id >= 0)
		st = cr_testhost_set_task(th, type, id, err);
	if (st == CR_OK && layer != NULL)
		st = cr_testhost_set_rpc_layer(th, layer, err);
	if (st != CR_OK)
		return st;
	if (strcmp(cmd, "resolve") == 0)
		return cr_testhost_resolve(th, format, out, err);
	if (strcmp(cmd, "master") == 0)
		return cr_testhost_master(th, out, err);
	if (strcmp(cmd, "enumerate") == 0 || (strcmp(cmd, "accelerators") == 0 && json))
		return cr_testhost_enumerate(th, out, err);
	if (strcmp(cmd, "accelerators") == 0)
		return counts_only(cr_testhost_enumerate(th, out, err), out, keep);
	g_assert_cmpstr(cmd, ==, "probe");
	return cr_testhost_probe(th, err);
}

static void thc_check(gconstpointer data)
{
	const thc_run *r = data;
	const thc_case *c = r->c;
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	const char *out = NULL;
	char *keep = NULL;
	char *want_out = subst(c->out, r->plugin);
	char *want_err = subst(c->err != NULL ? c->err : "", r->plugin);
	char *want_logs = subst(c->logs != NULL ? c->logs : "", r->plugin);
	cr_status st;

	g_assert_nonnull(th);
	cr_testhost_set_log_level(th, CR_LOG_WARNING);
	st = setup(th, c, r->plugin, &err);
	if (st == CR_OK)
		st = run(th, c, &out, &keep, &err);
	g_assert_cmpstr(out != NULL ? out : "", ==, want_out != NULL ? want_out : "");
	g_assert_cmpstr(err.message, ==, want_err);
	g_assert_cmpint(st, ==, c->status);
	g_assert_cmpstr(cr_testhost_logs(th), ==, want_logs);
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	cr_testhost_free(th);
	for (size_t i = 0; i < G_N_ELEMENTS(c->process_env) && c->process_env[i] != NULL; i++) {
		char *name = g_strndup(c->process_env[i], strcspn(c->process_env[i], "="));

		g_unsetenv(name);
		g_free(name);
	}
	g_free(keep);
	g_free(want_out);
	g_free(want_err);
	g_free(want_logs);
}

static void run_free(gpointer p)
{
	thc_run *r = p;

	g_free(r->plugin);
	g_free(r);
}

void thc_add_cases(const char *prefix, const char *plugin, const thc_case *cases)
{
	const char *dir = g_getenv("CR_PLUGIN_BUILD_DIR");

	g_assert_nonnull(dir);
	for (const thc_case *c = cases; c->name != NULL; c++) {
		char *path = g_strdup_printf("/%s/%s", prefix, c->name);
		thc_run *r = g_new0(thc_run, 1);

		r->c = c;
		r->plugin = g_build_filename(dir, plugin, NULL);
		g_test_add_data_func_full(path, r, thc_check, run_free);
		g_free(path);
	}
}
