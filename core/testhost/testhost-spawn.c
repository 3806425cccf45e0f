/* SPDX-License-Identifier: MIT */
/*
 * testhost-spawn.c - the scripted host->spawn of cr-testhost. Nothing is
 * run: each spawn must be the next one of the spawn script (argv exactly,
 * required environment entries) and gets the scripted exit status and
 * output, a timeout (the testhost's clock jumps past it) or a failure to
 * start. The timeout and output cap read as the real spawn words them.
 * Environment values are compared but never written into a message: they
 * may be credentials.
 */
#include <signal.h>
#include <string.h>

#include "testhost-private.h"

typedef enum th_spawn_end {
	TH_EXIT = 1,
	TH_TIMEOUT,
	TH_FAIL
} th_spawn_end;

typedef struct th_spawn {
	char **argv;
	char **env;       /* "NAME=value" entries the spawn must carry */
	th_spawn_end end; /* 0 until answered */
	int exit_status;
	char *out, *err;
	char *fail_message;
} th_spawn;

static void spawn_free(gpointer p)
{
	th_spawn *s = p;

	g_strfreev(s->argv);
	g_strfreev(s->env);
	g_free(s->out);
	g_free(s->err);
	g_free(s->fail_message);
	g_free(s);
}

void th_spawn_init(cr_testhost *th)
{
	th->spawns = g_ptr_array_new_with_free_func(spawn_free);
}

void th_spawn_free(cr_testhost *th)
{
	g_ptr_array_unref(th->spawns);
}

/* "a b c", for messages. */
static char *show_argv(const char *const *argv)
{
	return g_strjoinv(" ", (char **)argv);
}

cr_status cr_testhost_expect_spawn(cr_testhost *th, const char *const *argv, const char *const *env,
				   cr_error *err)
{
	size_t bad = spawn_env_bad_entry(env);
	th_spawn *s;

	if (th == NULL || argv == NULL || argv[0] == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_testhost_expect_spawn: no argv");
	if (bad != 0)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr-testhost: environment entry %zu is not NAME=value", bad);
	s = g_new0(th_spawn, 1);
	s->argv = g_strdupv((char **)argv);
	s->env = env != NULL ? g_strdupv((char **)env) : g_new0(char *, 1);
	g_ptr_array_add(th->spawns, s);
	return CR_OK;
}

static th_spawn *unanswered(cr_testhost *th, cr_error *err)
{
	th_spawn *s;

	if (th == NULL || th->spawns->len == 0) {
		error_set(err, CR_ERR_INVALID_ARG, "cr-testhost: no spawn is expected yet");
		return NULL;
	}
	s = g_ptr_array_index(th->spawns, th->spawns->len - 1);
	if (s->end != 0) {
		error_set(err, CR_ERR_INVALID_ARG, "cr-testhost: spawn %s is answered already",
			  s->argv[0]);
		return NULL;
	}
	return s;
}

cr_status cr_testhost_spawn_exit(cr_testhost *th, int exit_status, const char *out,
				 const char *err_text, cr_error *err)
{
	th_spawn *s = unanswered(th, err);

	if (s == NULL)
		return CR_ERR_INVALID_ARG;
	if (exit_status < 0 || exit_status > 255)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr-testhost: exit status %d is not in 0..255", exit_status);
	s->end = TH_EXIT;
	s->exit_status = exit_status;
	s->out = g_strdup(out != NULL ? out : "");
	s->err = g_strdup(err_text != NULL ? err_text : "");
	return CR_OK;
}

cr_status cr_testhost_spawn_timeout(cr_testhost *th, cr_error *err)
{
	th_spawn *s = unanswered(th, err);

	if (s == NULL)
		return CR_ERR_INVALID_ARG;
	s->end = TH_TIMEOUT;
	return CR_OK;
}

cr_status cr_testhost_spawn_fail(cr_testhost *th, const char *message, cr_error *err)
{
	th_spawn *s = unanswered(th, err);

	if (s == NULL)
		return CR_ERR_INVALID_ARG;
	s->end = TH_FAIL;
	s->fail_message = g_strdup(message != NULL ? message : "cannot be started");
	return CR_OK;
}

/* ---- answering ---------------------------------------------------------- */

/* Value of @name in @env ("NAME=value" entries, last wins), or NULL. */
static const char *env_value(const char *const *env, const char *name, size_t name_len)
{
	const char *found = NULL;

	for (size_t i = 0; env != NULL && env[i] != NULL; i++)
		if (strncmp(env[i], name, name_len) == 0 && env[i][name_len] == '=')
			found = env[i] + name_len + 1;
	return found;
}

/* What is wrong with the spawn as the answer to @s, or NULL. (transfer full) */
static char *compare(const th_spawn *s, const char *const *argv, const char *const *env)
{
	const char *const *want_argv = (const char *const *)s->argv;

	if (!g_strv_equal(want_argv, argv)) {
		char *w = show_argv(want_argv), *g = show_argv(argv);
		char *why = g_strdup_printf("expected '%s', got '%s'", w, g);

		g_free(w);
		g_free(g);
		return why;
	}
	for (char **e = s->env; *e != NULL; e++) {
		size_t n = (size_t)(strchr(*e, '=') - *e);
		const char *want = *e + n + 1;
		const char *got = env_value(env, *e, n);

		if (got == NULL)
			return g_strdup_printf("%s: expected %.*s (%zu bytes) in its environment, "
					       "got none",
					       argv[0], (int)n, *e, strlen(want));
		if (strcmp(got, want) != 0)
			return g_strdup_printf("%s: expected %.*s (%zu bytes) in its environment, "
					       "got another value (%zu bytes)",
					       argv[0], (int)n, *e, strlen(want), strlen(got));
	}
	return NULL;
}

static cr_status answer(cr_testhost *th, const th_spawn *s, int64_t timeout_ms, size_t output_cap,
			cr_spawn_result **out, cr_error *err)
{
	cr_spawn_result *r;

	if (s->end == TH_FAIL)
		return error_set(err, CR_ERR_IO, "%s", s->fail_message);
	r = spawn_result_new();
	*out = r;
	if (s->end == TH_TIMEOUT) {
		th->clock_ms += timeout_ms;
		r->term_signal = SIGKILL;
		r->exit_status = 128 + SIGKILL;
		r->out = g_strdup("");
		r->err = g_strdup("");
		return spawn_timeout_error(err, s->argv[0], timeout_ms);
	}
	r->exit_status = s->exit_status;
	r->out_len = strlen(s->out);
	r->out = g_strdup(s->out);
	r->err_len = strlen(s->err);
	r->err = g_strdup(s->err);
	if (r->out_len > output_cap || r->err_len > output_cap) {
		r->term_signal = SIGKILL;
		r->exit_status = 128 + SIGKILL;
		return spawn_cap_error(err, s->argv[0], output_cap);
	}
	return CR_OK;
}

cr_status th_spawn_answer(cr_testhost *th, const char *const *argv, const char *const *env,
			  int64_t timeout_ms, size_t output_cap, cr_spawn_result **out,
			  cr_error *err)
{
	th_spawn *s;
	char *why;

	th->spawn_count++;
	if (th->next_spawn >= th->spawns->len) {
		char *a = show_argv(argv);

		why = g_strdup_printf("unexpected '%s' (the script has %u spawn%s)", a,
				      th->spawns->len, th->spawns->len == 1 ? "" : "s");
		g_free(a);
		return th_mismatch(th, "spawn", th->spawn_count, why, err);
	}
	s = g_ptr_array_index(th->spawns, th->next_spawn);
	why = compare(s, argv, env);
	if (why != NULL)
		return th_mismatch(th, "spawn", th->spawn_count, why, err);
	if (s->end == 0)
		return th_mismatch(th, "spawn", th->spawn_count,
				   g_strdup_printf("%s: the script has no answer for it", argv[0]),
				   err);
	th->next_spawn++;
	return answer(th, s, timeout_ms, output_cap, out, err);
}

cr_status th_spawn_verify(cr_testhost *th, cr_error *err)
{
	th_spawn *s;

	if (th->next_spawn >= th->spawns->len)
		return CR_OK;
	s = g_ptr_array_index(th->spawns, th->next_spawn);
	return error_set(err, CR_ERR_NOT_FOUND,
			 "cr-testhost: %u of %u expected spawns were not made; the first: %s",
			 th->spawns->len - th->next_spawn, th->spawns->len, s->argv[0]);
}
