/* SPDX-License-Identifier: MIT */
/*
 * test-testhost-spawn.c - cr-testhost's scripted spawn and clock, through
 * spawner.so (a resolver that sleeps, spawns once and reports what came
 * back): argv and environment entries are checked in order and never
 * print an environment value; exits, timeouts, the output cap and
 * failures to start read as the real spawn's; the clock only moves when
 * the plugin sleeps or a spawn times out; unmade spawns are reported.
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

typedef struct spawn_script {
	const char *argv[3];
	const char *env[2];
	enum {
		ANSWER_NONE,
		ANSWER_EXIT,
		ANSWER_TIMEOUT,
		ANSWER_FAIL
	} answer;
	int exit_status;
	const char *out, *err; /* for ANSWER_FAIL, @err is the message */
} spawn_script;

typedef struct spawn_case {
	const char *name;
	const char *config; /* the spawner group */
	spawn_script script[2];
	cr_status status; /* of resolve */
	const char *out;  /* resolve's output, NULL on failure */
	const char *err;  /* resolve's message */
	const char *logs; /* the info lines */
	cr_status verify;
	const char *verify_err;
} spawn_case;

#define TAIL "}, \"master\": \"\", \"num_accelerators\": {}}\n"
#define HELPER_A                                                                                   \
	{                                                                                          \
		"helper", "a"                                                                      \
	}
#define RESOLVED "info: resolver 'spawner': resolved (required)\n"

/* clang-format off */
static const spawn_case cases[] = {
	{ "exit-and-output", "arg = \"a\"; env = \"X=1\";",
	  { { HELPER_A, { "X=1" }, ANSWER_EXIT, 3, "o1\no2\n", "e\n" } }, CR_OK,
	  "{\"cluster\": {\"exit\": [\"3\"], \"elapsed\": [\"0\"], \"out\": [\"o1\", \"o2\"], "
	  "\"err\": [\"e\"]" TAIL,
	  "", RESOLVED, CR_OK, "" },
	{ "sleep-advances-the-clock", "sleep_ms = 250;",
	  { { { "helper" }, { NULL }, ANSWER_EXIT, 0, "", "" } }, CR_OK,
	  "{\"cluster\": {\"exit\": [\"0\"], \"elapsed\": [\"250\"], \"out\": [], \"err\": []" TAIL,
	  "", RESOLVED, CR_OK, "" },
	{ "timeout", "arg = \"a\"; timeout_ms = 1500;", { { HELPER_A, { NULL }, ANSWER_TIMEOUT } },
	  CR_ERR_TIMEOUT, NULL, "resolver 'spawner': helper: still running after 1.5 s: killed",
	  "info: resolver 'spawner': exit 137 after 1500 ms\n", CR_OK, "" },
	{ "default-timeout", "arg = \"a\";", { { HELPER_A, { NULL }, ANSWER_TIMEOUT } },
	  CR_ERR_TIMEOUT, NULL, "resolver 'spawner': helper: still running after 10.0 s: killed",
	  "info: resolver 'spawner': exit 137 after 10000 ms\n", CR_OK, "" },
	{ "output-cap", "arg = \"a\"; output_cap = 4;",
	  { { HELPER_A, { NULL }, ANSWER_EXIT, 0, "12345", "" } }, CR_ERR_IO, NULL,
	  "resolver 'spawner': helper: more than 4 bytes of output: killed",
	  "info: resolver 'spawner': exit 137 after 0 ms\n", CR_OK, "" },
	{ "cannot-start", "arg = \"a\";",
	  { { HELPER_A, { NULL }, ANSWER_FAIL, 0, NULL, "Failed to execute child process \"helper\"" } },
	  CR_ERR_IO, NULL, "resolver 'spawner': Failed to execute child process \"helper\"", "", CR_OK,
	  "" },
	{ "wrong-argv", "arg = \"a\";", { { { "helper", "b" }, { NULL }, ANSWER_EXIT, 0, "", "" } },
	  CR_ERR_NETWORK, NULL, "cr-testhost: spawn 1: expected 'helper b', got 'helper a'", "",
	  CR_ERR_NETWORK, "cr-testhost: spawn 1: expected 'helper b', got 'helper a'" },
	{ "env-missing", "arg = \"a\";", { { HELPER_A, { "TOKEN=abc" }, ANSWER_EXIT, 0, "", "" } },
	  CR_ERR_NETWORK, NULL,
	  "cr-testhost: spawn 1: helper: expected TOKEN (3 bytes) in its environment, got none", "",
	  CR_ERR_NETWORK,
	  "cr-testhost: spawn 1: helper: expected TOKEN (3 bytes) in its environment, got none" },
	{ "env-value-never-printed", "arg = \"a\"; env = \"TOKEN=s3cr3t\";",
	  { { HELPER_A, { "TOKEN=abc" }, ANSWER_EXIT, 0, "", "" } }, CR_ERR_NETWORK, NULL,
	  "cr-testhost: spawn 1: helper: expected TOKEN (3 bytes) in its environment, got another "
	  "value (6 bytes)",
	  "", CR_ERR_NETWORK,
	  "cr-testhost: spawn 1: helper: expected TOKEN (3 bytes) in its environment, got another "
	  "value (6 bytes)" },
	{ "unexpected", "arg = \"a\";", { { { NULL } } }, CR_ERR_NETWORK, NULL,
	  "cr-testhost: spawn 1: unexpected 'helper a' (the script has 0 spawns)", "", CR_ERR_NETWORK,
	  "cr-testhost: spawn 1: unexpected 'helper a' (the script has 0 spawns)" },
	{ "no-answer", "arg = \"a\";", { { HELPER_A, { NULL }, ANSWER_NONE } }, CR_ERR_NETWORK, NULL,
	  "cr-testhost: spawn 1: helper: the script has no answer for it", "", CR_ERR_NETWORK,
	  "cr-testhost: spawn 1: helper: the script has no answer for it" },
	{ "unmade", "arg = \"a\";",
	  { { HELPER_A, { NULL }, ANSWER_EXIT, 0, "", "" },
	    { { "other" }, { NULL }, ANSWER_EXIT, 0, "", "" } },
	  CR_OK,
	  "{\"cluster\": {\"exit\": [\"0\"], \"elapsed\": [\"0\"], \"out\": [], \"err\": []" TAIL, "",
	  RESOLVED, CR_ERR_NOT_FOUND, "cr-testhost: 1 of 2 expected spawns were not made; the first: other" },
	{ NULL },
};
/* clang-format on */

static void script(cr_testhost *th, const spawn_script *s)
{
	cr_error err = CR_ERROR_INIT;

	g_assert_cmpint(cr_testhost_expect_spawn(th, s->argv, s->env, &err), ==, CR_OK);
	switch (s->answer) {
	case ANSWER_EXIT:
		g_assert_cmpint(cr_testhost_spawn_exit(th, s->exit_status, s->out, s->err, &err),
				==, CR_OK);
		break;
	case ANSWER_TIMEOUT:
		g_assert_cmpint(cr_testhost_spawn_timeout(th, &err), ==, CR_OK);
		break;
	case ANSWER_FAIL:
		g_assert_cmpint(cr_testhost_spawn_fail(th, s->err, &err), ==, CR_OK);
		break;
	case ANSWER_NONE:
		break;
	}
	g_assert_cmpstr(err.message, ==, "");
}

/* The captured lines at info level and above. */
static char *info_lines(cr_testhost *th)
{
	GString *s = g_string_new(NULL);
	cr_log_level level;
	const char *line;

	for (size_t i = 0; (line = cr_testhost_log_line(th, i, &level)) != NULL; i++)
		if (level <= CR_LOG_INFO)
			g_string_append_printf(s, "%s: %s\n",
					       level == CR_LOG_INFO ? "info" : "other", line);
	return g_string_free(s, FALSE);
}

static void check_spawn(gconstpointer data)
{
	const spawn_case *c = data;
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	char *path = g_build_filename(g_getenv("CR_TEST_PLUGIN_DIR"), "spawner.so", NULL);
	const char *out = NULL;
	char *logs;

	g_assert_cmpint(cr_testhost_load(th, path, c->config, &err), ==, CR_OK);
	for (const spawn_script *s = c->script; s->argv[0] != NULL; s++)
		script(th, s);
	g_assert_cmpint(cr_testhost_resolve(th, "json", &out, &err), ==, c->status);
	g_assert_cmpstr(out, ==, c->out);
	g_assert_cmpstr(err.message, ==, c->err);
	logs = info_lines(th);
	g_assert_cmpstr(logs, ==, c->logs);
	err.message[0] = '\0';
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, c->verify);
	g_assert_cmpstr(err.message, ==, c->verify_err);
	g_assert_null(strstr(cr_testhost_logs(th), "s3cr3t"));
	g_free(logs);
	g_free(path);
	cr_testhost_free(th);
}

/* Answers need an expected spawn; argv and env entries are checked. */
static void test_spawn_misuse(void)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	const char *empty[] = { NULL };
	const char *argv[] = { "helper", NULL };
	const char *bad_env[] = { "NOEQUALS", NULL };

	g_assert_cmpint(cr_testhost_spawn_exit(th, 0, NULL, NULL, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr-testhost: no spawn is expected yet");
	g_assert_cmpint(cr_testhost_expect_spawn(th, empty, NULL, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr_testhost_expect_spawn: no argv");
	g_assert_cmpint(cr_testhost_expect_spawn(th, argv, bad_env, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr-testhost: environment entry 1 is not NAME=value");
	g_assert_cmpint(cr_testhost_expect_spawn(th, argv, NULL, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_spawn_exit(th, 256, NULL, NULL, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr-testhost: exit status 256 is not in 0..255");
	g_assert_cmpint(cr_testhost_spawn_timeout(th, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_spawn_fail(th, NULL, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr-testhost: spawn helper is answered already");
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (const spawn_case *c = cases; c->name != NULL; c++) {
		char *path = g_strdup_printf("/testhost/spawn/%s", c->name);

		g_test_add_data_func(path, c, check_spawn);
		g_free(path);
	}
	g_test_add_func("/testhost/spawn/misuse", test_spawn_misuse);
	return g_test_run();
}
