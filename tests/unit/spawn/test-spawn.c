/* SPDX-License-Identifier: MIT */
/*
 * test-spawn.c - the real host->spawn (spawn.c through the host table, no
 * context: the real I/O seam). Table-driven: each case is a shell command
 * with what it must give back; then the timeout that must kill a
 * grandchild too, and the process group.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "host/host-private.h"

typedef struct spawn_case {
	const char *name;
	const char *script; /* sh -c SCRIPT; NULL: argv[0] is @program */
	const char *program;
	const char *env[3];
	int64_t timeout_ms;
	size_t cap;
	cr_status status;
	const char *message;
	bool has_result;
	int exit_status, term_signal;
	const char *out, *err;
} spawn_case;

/* clang-format off */
static const spawn_case cases[] = {
	{ "exit-status-and-output", "echo out; echo err >&2; exit 3", NULL, { NULL }, 0, 0, CR_OK, "",
	  true, 3, 0, "out\n", "err\n" },
	{ "env-on-top", "printf '%s/%s' \"$CR_SPAWN_A\" \"$CR_SPAWN_B\"", NULL,
	  { "CR_SPAWN_A=1", "CR_SPAWN_B=x=y" }, 0, 0, CR_OK, "", true, 0, 0, "1/x=y", "" },
	{ "stdin-is-dev-null", "cat; echo end", NULL, { NULL }, 0, 0, CR_OK, "", true, 0, 0, "end\n",
	  "" },
	{ "signal-death", "kill -TERM $$", NULL, { NULL }, 0, 0, CR_OK, "", true, 128 + SIGTERM,
	  SIGTERM, "", "" },
	{ "output-cap", "head -c 5000 /dev/zero | tr '\\0' a; exec sleep 30", NULL, { NULL }, 0, 1000, CR_ERR_IO,
	  "sh: more than 1000 bytes of output: killed", true, 128 + SIGKILL, SIGKILL, NULL, "" },
	{ "stderr-cap", "head -c 5000 /dev/zero >&2; exec sleep 30", NULL, { NULL }, 0, 1000, CR_ERR_IO,
	  "sh: more than 1000 bytes of output: killed", true, 128 + SIGKILL, SIGKILL, "", NULL },
	{ "missing-program", NULL, "cr-no-such-program", { NULL }, 0, 0, CR_ERR_IO,
	  "Failed to execute child process \xe2\x80\x9c" "cr-no-such-program\xe2\x80\x9d (No such file or "
	  "directory)",
	  false, 0, 0, NULL, NULL },
	{ "bad-env-entry", "true", NULL, { "NOEQUALS" }, 0, 0, CR_ERR_INVALID_ARG,
	  "spawn sh: environment entry 1 is not NAME=value", false, 0, 0, NULL, NULL },
	{ NULL },
};
/* clang-format on */

static void check_case(gconstpointer data)
{
	const spawn_case *c = data;
	const char *argv[] = { "sh", "-c", c->script, NULL };
	const char *prog[] = { c->program, NULL };
	cr_spawn_result *r = NULL;
	cr_error err = CR_ERROR_INIT;
	cr_status st;

	st = host_api()->spawn(NULL, c->script != NULL ? argv : prog, c->env, c->timeout_ms, c->cap,
			       &r, &err);
	g_assert_cmpint(st, ==, c->status);
	g_assert_cmpstr(err.message, ==, c->message);
	if (!c->has_result) {
		g_assert_null(r);
		return;
	}
	g_assert_nonnull(r);
	g_assert_cmpuint(r->struct_size, ==, sizeof(cr_spawn_result));
	g_assert_cmpint(r->exit_status, ==, c->exit_status);
	g_assert_cmpint(r->term_signal, ==, c->term_signal);
	if (c->out != NULL) {
		g_assert_cmpstr(r->out, ==, c->out);
		g_assert_cmpuint(r->out_len, ==, strlen(c->out));
	}
	if (c->err != NULL) {
		g_assert_cmpstr(r->err, ==, c->err);
		g_assert_cmpuint(r->err_len, ==, strlen(c->err));
	}
	if (c->cap > 0) { /* never more than the cap is kept */
		g_assert_cmpuint(r->out_len, <=, c->cap);
		g_assert_cmpuint(r->err_len, <=, c->cap);
	}
	host_api()->spawn_result_free(r);
}

/* A process is gone, or a zombie nobody reaped yet (PID 1 may reap late). */
static bool gone(pid_t pid)
{
	char *path = g_strdup_printf("/proc/%d/stat", (int)pid);
	char *text = NULL;
	bool dead = true;

	if (g_file_get_contents(path, &text, NULL, NULL)) {
		const char *paren = strrchr(text, ')');

		dead = paren != NULL && paren[1] == ' ' && paren[2] == 'Z';
	}
	g_free(text);
	g_free(path);
	return dead;
}

/* The process whose pid @pidfile holds is gone within 5 s (else it is
 * killed, and the test has failed); then @pidfile and @dir go. Frees both. */
static void assert_gone(char *dir, char *pidfile)
{
	char *text = NULL;
	pid_t pid = 0;

	g_assert_true(g_file_get_contents(pidfile, &text, NULL, NULL));
	if (text != NULL)
		pid = (pid_t)g_ascii_strtoll(text, NULL, 10);
	g_assert_cmpint(pid, >, 1);
	for (int i = 0; pid > 1 && i < 500 && !gone(pid); i++)
		g_usleep(10000);
	g_assert_true(pid > 1 && gone(pid));
	if (pid > 1 && !gone(pid))
		kill(pid, SIGKILL);
	g_unlink(pidfile);
	g_rmdir(dir);
	g_free(text);
	g_free(pidfile);
	g_free(dir);
}

/* The child starts a grandchild that holds the pipes open; on the timeout
 * both are killed, with the group. */
static void test_timeout_kills_group(void)
{
	char *dir = g_dir_make_tmp("cr-spawn-XXXXXX", NULL);
	char *pidfile = g_build_filename(dir, "pid", NULL);
	char *script = g_strdup_printf("sleep 30 & echo $! > %s; echo started; wait", pidfile);
	const char *argv[] = { "sh", "-c", script, NULL };
	cr_spawn_result *r = NULL;
	cr_error err = CR_ERROR_INIT;

	g_assert_cmpint(host_api()->spawn(NULL, argv, NULL, 3000, 0, &r, &err), ==, CR_ERR_TIMEOUT);
	g_assert_cmpstr(err.message, ==, "sh: still running after 3.0 s: killed");
	g_assert_nonnull(r);
	g_assert_cmpstr(r->out, ==, "started\n");
	g_assert_cmpint(r->exit_status, ==, 128 + SIGKILL);
	g_assert_cmpint(r->term_signal, ==, SIGKILL);
	host_api()->spawn_result_free(r);
	assert_gone(dir, pidfile);
	g_free(script);
}

/* The child leads a process group of its own. */
static void test_own_process_group(void)
{
	const char *argv[] = { "sh", "-c", "echo $$; cut -d' ' -f5 /proc/$$/stat", NULL };
	cr_spawn_result *r = NULL;
	cr_error err = CR_ERROR_INIT;
	char **lines;

	g_assert_cmpint(host_api()->spawn(NULL, argv, NULL, 0, 0, &r, &err), ==, CR_OK);
	lines = g_strsplit(r->out, "\n", -1);
	g_assert_cmpuint(g_strv_length(lines), ==, 3);
	g_assert_cmpstr(lines[0], ==, lines[1]);
	g_assert_cmpint(g_ascii_strtoll(lines[1], NULL, 10), !=, getpgrp());
	g_strfreev(lines);
	host_api()->spawn_result_free(r);
}

/* A helper does not outlive the process that waits for it: that process
 * (here a forked copy of this test) killed with SIGKILL, the helper gets
 * SIGKILL from the kernel. */
static void test_helper_dies_with_its_reader(void)
{
	char *dir = g_dir_make_tmp("cr-spawn-XXXXXX", NULL);
	char *pidfile = g_build_filename(dir, "pid", NULL);
	char *script = g_strdup_printf("echo $$ > %s.tmp; mv %s.tmp %s; exec sleep 30", pidfile,
				       pidfile, pidfile);
	const char *argv[] = { "sh", "-c", script, NULL };
	pid_t reader;
	int status;

	reader = fork();
	g_assert_cmpint(reader, >=, 0);
	if (reader == 0) {
		cr_spawn_result *r = NULL;

		host_api()->spawn(NULL, argv, NULL, 60000, 0, &r, NULL);
		_exit(0); /* not reached: killed while it waits */
	}
	for (int i = 0; i < 3000 && !g_file_test(pidfile, G_FILE_TEST_EXISTS); i++)
		g_usleep(10000);
	g_assert_true(g_file_test(pidfile, G_FILE_TEST_EXISTS));
	kill(reader, SIGKILL);
	g_assert_cmpint(waitpid(reader, &status, 0), ==, reader);
	assert_gone(dir, pidfile);
	g_free(script);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (const spawn_case *c = cases; c->name != NULL; c++) {
		char *path = g_strdup_printf("/spawn/%s", c->name);

		g_test_add_data_func(path, c, check_case);
		g_free(path);
	}
	g_test_add_func("/spawn/timeout-kills-the-group", test_timeout_kills_group);
	g_test_add_func("/spawn/own-process-group", test_own_process_group);
	g_test_add_func("/spawn/helper-dies-with-its-reader", test_helper_dies_with_its_reader);
	return g_test_run();
}
