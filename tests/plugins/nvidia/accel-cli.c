/* SPDX-License-Identifier: MIT */
/*
 * accel-cli.c - see accel-cli.h.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "accel-cli.h"

/* Variables that would leak the test machine's binding into a case. */
static const char *const accel_scrubbed[] = {
	"CUDA_VISIBLE_DEVICES",
	"NVIDIA_VISIBLE_DEVICES",
	"CUDA_DEVICE_ORDER",
	"TPU_VISIBLE_CHIPS",
	"TPU_CHIPS_PER_PROCESS_BOUNDS",
	"TPU_PROCESS_BOUNDS",
	"FAKE_NVML_CONFIG",
	"LD_LIBRARY_PATH",
	NULL,
};

static char *accel_replace(char *text, const char *from, const char *to)
{
	char **parts = g_strsplit(text, from, -1);
	char *joined = g_strjoinv(to, parts);

	g_strfreev(parts);
	g_free(text);
	return joined;
}

char *accel_expand(const char *text)
{
	const char *src = g_getenv("CR_TEST_SOURCE_DIR");
	const char *build = g_getenv("CR_TEST_BUILD_DIR");
	const char *nvml = g_getenv("FAKE_NVML_DIR");
	char *fix = g_build_filename(src ? src : ".", "tests", "fixtures", "accel", NULL);
	char *out = g_strdup(text);

	out = accel_replace(out, "@FIX@", fix);
	out = accel_replace(out, "@NVML@", nvml ? nvml : "(FAKE_NVML_DIR unset)");
	out = accel_replace(out, "@BUILD@", build ? build : ".");
	g_free(fix);
	return out;
}

static char **accel_environ(const accel_case *c)
{
	char **env = g_get_environ();

	for (const char *const *v = accel_scrubbed; *v != NULL; v++)
		env = g_environ_unsetenv(env, *v);
	for (gsize i = 0; i < G_N_ELEMENTS(c->env) && c->env[i] != NULL; i++) {
		char *kv = accel_expand(c->env[i]);
		char *eq = strchr(kv, '=');

		g_assert_nonnull(eq);
		*eq = '\0';
		env = g_environ_setenv(env, kv, eq + 1, TRUE);
		g_free(kv);
	}
	return env;
}

void accel_case_run(gconstpointer data)
{
	const accel_case *c = data;
	const char *cli = g_getenv("CR_CLI");
	char *config = accel_expand(c->config);
	char *want_out = accel_expand(c->out);
	char *want_err = accel_expand(c->err ? c->err : "");
	char *path = NULL, *out = NULL, *err = NULL;
	char **env = accel_environ(c);
	GError *error = NULL;
	int fd, status = 0;
	const char *argv[6];
	int argc = 0;

	g_test_set_nonfatal_assertions();
	if (cli == NULL || !g_file_test(cli, G_FILE_TEST_IS_EXECUTABLE)) {
		g_test_skip("CR_CLI is not set to the built cluster-resolver");
		goto out;
	}
	fd = g_file_open_tmp("accel-XXXXXX.conf", &path, &error);
	g_assert_no_error(error);
	g_assert_true(write(fd, config, strlen(config)) == (ssize_t)strlen(config));
	close(fd);
	argv[argc++] = cli;
	argv[argc++] = "--config";
	argv[argc++] = path;
	argv[argc++] = "accelerators";
	if (c->json)
		argv[argc++] = "--json";
	argv[argc] = NULL;
	g_spawn_sync(NULL, (char **)argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
		     &error);
	g_assert_no_error(error);
	g_assert_true(WIFEXITED(status));
	g_assert_cmpstr(out, ==, want_out);
	g_assert_cmpstr(err, ==, want_err);
	g_assert_cmpint(WEXITSTATUS(status), ==, c->exit_status);
out:
	if (path != NULL)
		g_unlink(path);
	g_free(path);
	g_free(out);
	g_free(err);
	g_strfreev(env);
	g_free(want_err);
	g_free(want_out);
	g_free(config);
}

void accel_cases_add(const char *plugin, const accel_case *cases, gsize n)
{
	for (gsize i = 0; i < n; i++) {
		char *name = g_strdup_printf("/accel/%s/%s", plugin, cases[i].name);

		g_test_add_data_func(name, &cases[i], accel_case_run);
		g_free(name);
	}
}
