/* SPDX-License-Identifier: MIT */
/*
 * spawn.c - host->spawn for real: a child in a process group of its own
 * (so that a timeout also ends what it started), stdin from /dev/null,
 * stdout and stderr collected up to a cap, a deadline on the whole run.
 * What a child writes may be a credential: it is never logged, and the
 * final buffers are wiped when freed (copies a growing buffer left behind
 * are not).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "host/io.h"
#include "values/values-private.h"

cr_spawn_result *spawn_result_new(void)
{
	cr_spawn_result *r = g_new0(cr_spawn_result, 1);

	r->struct_size = sizeof(*r);
	return r;
}

static void wipe_free(char *s, size_t len)
{
	if (s != NULL)
		explicit_bzero(s, len);
	g_free(s);
}

void spawn_result_free(cr_spawn_result *result)
{
	if (result == NULL)
		return;
	wipe_free(result->out, result->out_len);
	wipe_free(result->err, result->err_len);
	g_free(result);
}

size_t spawn_env_bad_entry(const char *const *env)
{
	for (size_t i = 0; env != NULL && env[i] != NULL; i++)
		if (env[i][0] == '=' || strchr(env[i], '=') == NULL)
			return i + 1;
	return 0;
}

cr_status spawn_timeout_error(cr_error *err, const char *argv0, int64_t timeout_ms)
{
	return error_set(err, CR_ERR_TIMEOUT, "%s: still running after %.1f s: killed", argv0,
			 (double)timeout_ms / 1000.0);
}

cr_status spawn_cap_error(cr_error *err, const char *argv0, size_t output_cap)
{
	return error_set(err, CR_ERR_IO, "%s: more than %zu bytes of output: killed", argv0,
			 output_cap);
}

/* One output pipe of the child. */
typedef struct spawn_pipe {
	int fd;
	GString *buf;
} spawn_pipe;

/* Read what is there; false at end of file or a read error. */
static bool pipe_read(spawn_pipe *p)
{
	char chunk[4096];
	ssize_t n;

	do
		n = read(p->fd, chunk, sizeof(chunk));
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return false;
	/* The output may be a credential: when it outgrows its block, move it
	 * ourselves and wipe the old block, which GString's own growth would
	 * free as it is. */
	if (p->buf->len + (size_t)n >= p->buf->allocated_len) {
		GString *bigger = g_string_sized_new(
			MAX(p->buf->allocated_len * 2, p->buf->len + (size_t)n + 1));

		g_string_append_len(bigger, p->buf->str, (gssize)p->buf->len);
		explicit_bzero(p->buf->str, p->buf->allocated_len);
		g_string_free(p->buf, TRUE);
		p->buf = bigger;
	}
	g_string_append_len(p->buf, chunk, n);
	explicit_bzero(chunk, sizeof(chunk));
	return true;
}

typedef enum spawn_end {
	SPAWN_DONE,
	SPAWN_TIMEOUT,
	SPAWN_OVER_CAP
} spawn_end;

/* Collect both pipes until they close, the deadline passes or one is over
 * @cap. A closed pipe's fd becomes -1. */
static spawn_end collect(spawn_pipe pipes[2], int64_t deadline, size_t cap)
{
	while (pipes[0].fd >= 0 || pipes[1].fd >= 0) {
		struct pollfd p[2];
		int64_t left = deadline - g_get_monotonic_time() / 1000;

		if (left <= 0)
			return SPAWN_TIMEOUT;
		for (int i = 0; i < 2; i++)
			p[i] = (struct pollfd){ .fd = pipes[i].fd, .events = POLLIN };
		if (poll(p, 2, left > 1000 ? 1000 : (int)left) <= 0)
			continue; /* a time slice or EINTR: check the deadline */
		for (int i = 0; i < 2; i++) {
			if (p[i].revents == 0 || pipes[i].fd < 0)
				continue;
			if (!pipe_read(&pipes[i])) {
				close(pipes[i].fd);
				pipes[i].fd = -1;
			} else if (pipes[i].buf->len > cap) {
				return SPAWN_OVER_CAP;
			}
		}
	}
	return SPAWN_DONE;
}

/* Wait for @pid to exit until @deadline; false when it did not. */
static bool reap(GPid pid, int64_t deadline, int *status)
{
	pid_t done;

	while ((done = waitpid(pid, status, WNOHANG)) == 0 || (done < 0 && errno == EINTR)) {
		if (g_get_monotonic_time() / 1000 >= deadline)
			return false;
		g_usleep(1000);
	}
	return done == pid;
}

static void kill_group(GPid pid, int *status)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

/* In the child, before exec: a group of its own, and SIGKILL when the
 * process waiting for it dies (the CLI killed by a prolog's time limit), so
 * a helper never outlives its reader. @data: that process's pid. */
static void child_setup(gpointer data)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != *(const pid_t *)data)
		_exit(128 + SIGKILL); /* it died before the line above */
}

static void wipe_free_str(char *s)
{
	if (s != NULL)
		wipe_free(s, strlen(s));
}

static void environ_wipe_free(char **envp)
{
	for (size_t i = 0; envp[i] != NULL; i++)
		wipe_free_str(envp[i]);
	g_free(envp);
}

/* The process environment with @env's "NAME=value" entries on top. The
 * entries may carry credentials, so each is copied once as it is (no
 * printf, whose scratch buffer would be freed unwiped) and a replaced one
 * is wiped: free the whole with environ_wipe_free(). */
static char **child_environ(const char *const *env)
{
	GPtrArray *envp = g_ptr_array_new();
	char **inherited = g_get_environ();

	for (size_t i = 0; inherited[i] != NULL; i++)
		g_ptr_array_add(envp, inherited[i]);
	g_free(inherited); /* the strings now belong to envp */
	for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
		size_t name_len = (size_t)(strchr(env[i], '=') - env[i]) + 1; /* with '=' */
		guint k = 0;

		while (k < envp->len && strncmp(envp->pdata[k], env[i], name_len) != 0)
			k++;
		if (k < envp->len)
			wipe_free_str(envp->pdata[k]);
		else
			g_ptr_array_add(envp, NULL);
		envp->pdata[k] = g_strdup(env[i]);
	}
	g_ptr_array_add(envp, NULL);
	return (char **)g_ptr_array_free(envp, FALSE);
}

static void take_output(cr_spawn_result *r, spawn_pipe pipes[2])
{
	r->out_len = pipes[0].buf->len;
	r->out = g_string_free(pipes[0].buf, FALSE);
	r->err_len = pipes[1].buf->len;
	r->err = g_string_free(pipes[1].buf, FALSE);
}

static void set_status(cr_spawn_result *r, int status)
{
	if (WIFSIGNALED(status)) {
		r->term_signal = WTERMSIG(status);
		r->exit_status = 128 + r->term_signal;
	} else {
		r->exit_status = WEXITSTATUS(status);
	}
}

cr_status io_spawn_real(const char *const *argv, const char *const *env, int64_t timeout_ms,
			size_t output_cap, cr_spawn_result **out, cr_error *err)
{
	spawn_pipe pipes[2] = { { -1, NULL }, { -1, NULL } };
	char **envp = child_environ(env);
	GError *gerr = NULL;
	GPid pid = 0;
	int status = 0;
	int64_t deadline = g_get_monotonic_time() / 1000 + timeout_ms;
	spawn_end end;
	cr_status st = CR_OK;
	pid_t self = getpid();

	if (!g_spawn_async_with_pipes(NULL, (char **)argv, envp,
				      G_SPAWN_SEARCH_PATH_FROM_ENVP | G_SPAWN_DO_NOT_REAP_CHILD,
				      child_setup, &self, &pid, NULL, &pipes[0].fd, &pipes[1].fd,
				      &gerr)) {
		environ_wipe_free(envp);
		st = error_set(err, CR_ERR_IO, "%s", gerr->message);
		g_error_free(gerr);
		return st;
	}
	environ_wipe_free(envp);
	setpgid(pid, pid); /* as the child does: no kill can miss the group */
	pipes[0].buf = g_string_new(NULL);
	pipes[1].buf = g_string_new(NULL);
	end = collect(pipes, deadline, output_cap);
	if (end == SPAWN_DONE && !reap(pid, deadline, &status))
		end = SPAWN_TIMEOUT;
	if (end != SPAWN_DONE)
		kill_group(pid, &status);
	for (int i = 0; i < 2; i++)
		if (pipes[i].fd >= 0)
			close(pipes[i].fd);
	g_spawn_close_pid(pid);
	/* Over the cap: keep exactly the cap (the last read may have gone up
	 * to a chunk beyond it). */
	for (int i = 0; end == SPAWN_OVER_CAP && i < 2; i++)
		if (pipes[i].buf->len > output_cap) {
			explicit_bzero(pipes[i].buf->str + output_cap,
				       pipes[i].buf->len - output_cap);
			g_string_truncate(pipes[i].buf, output_cap);
		}
	*out = spawn_result_new();
	take_output(*out, pipes);
	set_status(*out, status);
	if (end == SPAWN_TIMEOUT)
		st = spawn_timeout_error(err, argv[0], timeout_ms);
	else if (end == SPAWN_OVER_CAP)
		st = spawn_cap_error(err, argv[0], output_cap);
	return st;
}
