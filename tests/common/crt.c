/* SPDX-License-Identifier: MIT */
/* crt.c - see crt.h. */
#include <string.h>
#include <sys/wait.h>

#include "crt.h"

static char *tmpdir;

static void crt_cleanup(void)
{
	/* Tests leave no files behind; subdirectories are removed by name. */
	gchar *argv[] = { "rm", "-rf", tmpdir, NULL };

	if (tmpdir != NULL && g_getenv("CRT_KEEP_TMP") == NULL)
		g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
			     NULL);
	g_free(tmpdir);
	tmpdir = NULL;
}

const char *crt_tmpdir(void)
{
	GError *error = NULL;

	if (tmpdir == NULL) {
		tmpdir = g_dir_make_tmp("cr-test-XXXXXX", &error);
		g_assert_no_error(error);
		atexit(crt_cleanup);
	}
	return tmpdir;
}

static void replace_all(GString *s, const char *what, const char *with)
{
	if (with != NULL)
		g_string_replace(s, what, with, 0);
}

char *crt_subst(const char *text, const char *conf)
{
	GString *s = g_string_new(text);

	replace_all(s, "@CONF@", conf);
	replace_all(s, "@DIR@", crt_tmpdir());
	replace_all(s, "@PLUGINS@", g_getenv("CR_PLUGIN_BUILD_DIR"));
	replace_all(s, "@SRC@", g_getenv("CR_TEST_SOURCE_DIR"));
	replace_all(s, "@BUILD@", g_getenv("CR_TEST_BUILD_DIR"));
	replace_all(s, "@TESTPLUG@", g_getenv("CR_TEST_PLUGIN_DIR"));
	return g_string_free(s, FALSE);
}

void crt_write_file(const char *path, const char *text)
{
	GError *error = NULL;
	char *body = crt_subst(text, path);

	g_file_set_contents(path, body, -1, &error);
	g_assert_no_error(error);
	g_free(body);
}

int crt_run(const char *const *argv, const char *const *env, char **out, char **err)
{
	gchar **envp = g_get_environ();
	GPtrArray *args = g_ptr_array_new();
	GError *error = NULL;
	int status = -1;

	for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
		const char *eq = strchr(env[i], '=');

		if (eq == NULL) {
			envp = g_environ_unsetenv(envp, env[i]);
		} else {
			char *name = g_strndup(env[i], (gsize)(eq - env[i]));

			envp = g_environ_setenv(envp, name, eq + 1, TRUE);
			g_free(name);
		}
	}
	for (size_t i = 0; argv[i] != NULL; i++)
		g_ptr_array_add(args, strcmp(argv[i], "$CR_CLI") == 0 ? (gpointer)g_getenv("CR_CLI")
								      : (gpointer)argv[i]);
	g_ptr_array_add(args, NULL);
	g_assert_nonnull(g_ptr_array_index(args, 0));
	g_spawn_sync(NULL, (gchar **)args->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL, out, err,
		     &status, &error);
	g_assert_no_error(error);
	g_ptr_array_unref(args);
	g_strfreev(envp);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

void crt_check_cli(gconstpointer data)
{
	const crt_cli_case *c = data;
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	char *conf = NULL, *out = NULL, *err = NULL, *want_out, *want_err;
	int rc;

	g_ptr_array_add(argv, g_strdup("$CR_CLI"));
	if (c->config != NULL) {
		char *base = g_strdup_printf("%s.conf", c->name);

		for (char *p = base; *p != '\0'; p++)
			if (*p == '/')
				*p = '-';
		conf = g_build_filename(crt_tmpdir(), base, NULL);
		g_free(base);
		crt_write_file(conf, c->config);
		g_ptr_array_add(argv, g_strdup("--config"));
		g_ptr_array_add(argv, g_strdup(conf));
	}
	for (size_t i = 0; i < G_N_ELEMENTS(c->args) && c->args[i] != NULL; i++)
		g_ptr_array_add(argv, crt_subst(c->args[i], conf));
	g_ptr_array_add(argv, NULL);
	{
		const char *env[G_N_ELEMENTS(c->env) + 1] = { 0 };
		char *envs[G_N_ELEMENTS(c->env)] = { 0 };

		for (size_t i = 0; i < G_N_ELEMENTS(c->env) && c->env[i] != NULL; i++)
			env[i] = envs[i] = crt_subst(c->env[i], conf);
		rc = crt_run((const char *const *)argv->pdata, env, &out, &err);
		for (size_t i = 0; i < G_N_ELEMENTS(envs); i++)
			g_free(envs[i]);
	}
	want_out = crt_subst(c->out != NULL ? c->out : "", conf);
	want_err = crt_subst(c->err != NULL ? c->err : "", conf);
	g_assert_cmpstr(out, ==, want_out);
	g_assert_cmpstr(err, ==, want_err);
	g_assert_cmpint(rc, ==, c->rc);
	g_free(want_out);
	g_free(want_err);
	g_free(out);
	g_free(err);
	g_free(conf);
	g_ptr_array_unref(argv);
}

void crt_add_cli_cases(const char *prefix, const crt_cli_case *cases)
{
	for (const crt_cli_case *c = cases; c->name != NULL; c++) {
		char *path = g_strdup_printf("/%s/%s", prefix, c->name);

		g_test_add_data_func(path, c, crt_check_cli);
		g_free(path);
	}
}
