/* SPDX-License-Identifier: MIT */
/*
 * exec-elastic.c - `exec --elastic`: an elastic agent for any program. The
 * program runs supervised (its own process group, which we own and reap)
 * with the environment of the current generation of the cluster
 * (cr_context_watch) plus CR_GENERATION and CR_RESTART_COUNT, and
 *  - a new generation that holds for --settle seconds (later ones within
 *    it are coalesced) stops the program (SIGTERM to its group, SIGKILL
 *    after --stop-timeout) and starts it again with the new environment;
 *    a generation whose environment is the one the program has (a flap
 *    that came back) restarts nothing;
 *  - fewer than --min-tasks tasks: the program is stopped and we wait up
 *    to --min-wait seconds for them, then fail (exit 1) naming the count;
 *  - more than --max-tasks: the first M tasks in cluster order are used;
 *    a task after them waits as a spare, running nothing;
 *  - this process's task left the cluster: the program is stopped and we
 *    exit 0 with one line saying so;
 *  - the program exits 0: we exit 0; non-zero: it is started again with
 *    the same cluster, up to --max-restarts times (torchrun's meaning: the
 *    restarts a membership change causes are not counted), then its status
 *    is ours (128+N for signal N);
 *  - SIGINT, SIGTERM, SIGHUP and SIGQUIT go to the program's group; its
 *    exit then ends us with its status.
 *
 * On a terminal where we are the foreground job, each program's group gets
 * the terminal while it runs (stopping it with ^Z is not passed on: use
 * --supervise for interactive work).
 *
 * One thread: the signal handlers cancel the watch we block in
 * (cr_context_watch_cancel is async-signal-safe), so that a child's exit
 * or a signal is handled at once; the watch's own timeout is the next
 * deadline of ours (settling, the stop timeout, the --min-wait).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"

extern char **environ;

static cr_context *volatile el_ctx;
static volatile sig_atomic_t el_child, el_signal;

static void el_on_signal(int sig)
{
	if (sig == SIGCHLD)
		el_child = 1;
	else
		el_signal = sig;
	if (el_ctx != NULL)
		cr_context_watch_cancel(el_ctx);
}

static int64_t el_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct elastic {
	const cli_elastic_opts *o;
	cr_context *ctx;
	char **argv;
	const char *const *formats;
	char **base_env; /* our environment at start (borrowed) */
	sigset_t mask;   /* the mask the program gets */
	bool had_task;   /* the first generation had this process's task */

	/* The generation the program runs with (or would run with). */
	cr_result *cur;
	uint64_t cur_gen;
	GPtrArray *cur_pairs; /* its variables, without CR_GENERATION / CR_RESTART_COUNT */
	/* The newest generation, not yet settled. */
	cr_result *pending;
	uint64_t pending_gen;
	int64_t settle_at; /* -1: nothing pending */
	/* The program. */
	pid_t pid;               /* -1: none */
	int64_t kill_at;         /* SIGKILL due; -1: not stopping */
	bool restart_after_stop; /* stopped for a new generation: start cur then */
	bool final;              /* a forwarded signal: its exit is ours */
	bool leaving;            /* this task left the cluster: exit 0 once stopped */
	int64_t restarts;        /* restarts after a failure (CR_RESTART_COUNT) */
	/* Too few tasks, or this one a spare: not running, waiting. */
	int64_t min_wait_at; /* -1: not waiting for --min-tasks */
	bool spare;
	bool tty;          /* stdin is our terminal and we are its foreground job */
	int64_t start_ms;  /* when the program started */
	bool start_failed; /* fork failed */
	int env_rc;        /* the last generation's variables: CLI_OK or the exit status */
} elastic;

/* The tasks of the cluster, every job. */
static size_t el_count(const cr_result *res)
{
	const cr_spec *spec = cr_result_spec(res);
	size_t total = 0, n;

	for (size_t j = 0; j < cr_spec_num_jobs(spec); j++)
		if (cr_spec_num_tasks(spec, cr_spec_job_name(spec, j), &n, NULL) == CR_OK)
			total += n;
	return total;
}

static bool el_pairs_equal(const GPtrArray *a, const GPtrArray *b)
{
	if (a == NULL || b == NULL || a->len != b->len)
		return false;
	for (guint i = 0; i < a->len; i++)
		if (strcmp(g_ptr_array_index(a, i), g_ptr_array_index(b, i)) != 0)
			return false;
	return true;
}

/* The environment for the program: ours, then @pairs over it, then the
 * generation and restart count. g_strfreev(). */
static char **el_envp(const elastic *e)
{
	GPtrArray *env = g_ptr_array_new();
	GHashTable *set = g_hash_table_new(g_str_hash, g_str_equal);
	char gen[32], restarts[32];
	GPtrArray *add = g_ptr_array_new();

	snprintf(gen, sizeof(gen), "%llu", (unsigned long long)e->cur_gen);
	snprintf(restarts, sizeof(restarts), "%lld", (long long)e->restarts);
	for (guint i = 0; i + 1 < e->cur_pairs->len; i += 2) {
		g_ptr_array_add(add, g_ptr_array_index(e->cur_pairs, i));
		g_ptr_array_add(add, g_ptr_array_index(e->cur_pairs, i + 1));
	}
	g_ptr_array_add(add, (char *)"CR_GENERATION");
	g_ptr_array_add(add, gen);
	g_ptr_array_add(add, (char *)"CR_RESTART_COUNT");
	g_ptr_array_add(add, restarts);
	for (guint i = 0; i + 1 < add->len; i += 2)
		g_hash_table_add(set, g_ptr_array_index(add, i));
	for (char **p = e->base_env; p != NULL && *p != NULL; p++) {
		const char *eq = strchr(*p, '=');
		char *name = eq != NULL ? g_strndup(*p, (gsize)(eq - *p)) : NULL;

		if (name == NULL || !g_hash_table_contains(set, name))
			g_ptr_array_add(env, g_strdup(*p));
		g_free(name);
	}
	for (guint i = 0; i + 1 < add->len; i += 2)
		g_ptr_array_add(env, g_strdup_printf("%s=%s", (char *)g_ptr_array_index(add, i),
						     (char *)g_ptr_array_index(add, i + 1)));
	g_ptr_array_add(env, NULL);
	g_ptr_array_unref(add);
	g_hash_table_unref(set);
	return (char **)g_ptr_array_free(env, FALSE);
}

/* The variables of @res, with torchrun's elastic ones when it is listed.
 * NULL after a message. */
static GPtrArray *el_pairs(elastic *e, const cr_result *res)
{
	GPtrArray *pairs = g_ptr_array_new_with_free_func(g_free);
	bool torchrun = false;

	e->env_rc = cli_exec_env(res, e->formats, pairs);
	if (e->env_rc != CLI_OK) {
		g_ptr_array_unref(pairs);
		return NULL;
	}
	for (size_t f = 0; e->formats[f] != NULL; f++)
		torchrun = torchrun || strcmp(e->formats[f], "torchrun") == 0;
	for (guint i = 0; torchrun && i + 1 < pairs->len; i += 2) {
		char **value = (char **)&pairs->pdata[i + 1];
		long long nodes = strtoll(*value, NULL, 10);
		long long max = e->o->max_tasks > 0 ? e->o->max_tasks : nodes;

		if (strcmp(g_ptr_array_index(pairs, i), "PET_NNODES") != 0)
			continue;
		/* torchrun's own agent and ours agree on the range. */
		if (max < e->o->min_tasks)
			max = e->o->min_tasks;
		g_free(*value);
		*value = g_strdup_printf("%lld:%lld", (long long)e->o->min_tasks, max);
	}
	if (torchrun) {
		g_ptr_array_add(pairs, g_strdup("PET_MAX_RESTARTS"));
		g_ptr_array_add(pairs, g_strdup_printf("%lld", (long long)e->o->max_restarts));
	}
	return pairs;
}

/* Tell the resolvers' supervise hooks (between two watches: no call may
 * run beside one): STARTED after each start, EXITED after each end;
 * RUNNING is not sent under --elastic. One asking to stop the program
 * stops it for good. */
static void el_tell(elastic *e, cr_supervise_phase phase, int exit_status)
{
	cr_supervise_event ev = { .struct_size = sizeof(ev),
				  .phase = phase,
				  .pid = e->pid,
				  .exit_status = exit_status,
				  .elapsed_ms = el_now() - e->start_ms };
	cr_error err = CR_ERROR_INIT;
	bool stop = false;

	if (cr_context_supervise(e->ctx, e->cur, &ev, &stop, &err) != CR_OK)
		cli_error("exec: %s", err.message);
	if (stop && phase != CR_SUPERVISE_EXITED && e->pid >= 0) {
		e->final = true;
		kill(-e->pid, SIGTERM);
		e->kill_at = el_now() + (int64_t)(e->o->stop_timeout * 1000);
	}
}

static void el_start(elastic *e)
{
	char **envp = el_envp(e);

	e->pid = cli_program_start(e->cur, e->argv, envp, &e->mask, e->tty);
	if (e->pid < 0) {
		cli_error("exec: cannot start '%s': %s", e->argv[0], strerror(errno));
		e->start_failed = true;
	}
	g_strfreev(envp);
	e->kill_at = -1;
	e->restart_after_stop = false;
	e->start_ms = el_now();
	if (e->pid >= 0)
		el_tell(e, CR_SUPERVISE_STARTED, -1);
}

static void el_stop(elastic *e, bool restart)
{
	e->restart_after_stop = restart;
	if (e->pid < 0 || e->kill_at >= 0)
		return;
	kill(-e->pid, SIGTERM);
	kill(-e->pid, SIGCONT);
	e->kill_at = el_now() + (int64_t)(e->o->stop_timeout * 1000);
}

/* A settled generation: decide what the program runs with. CLI_OK to go
 * on; else the status to end with (*@done). */
static int el_apply(elastic *e, cr_result *res, uint64_t gen, bool *done)
{
	size_t n = el_count(res);
	GPtrArray *pairs;
	cr_error err = CR_ERROR_INIT;

	if (e->had_task && cr_result_task_id(res) < 0) {
		cli_error("exec: this task is no longer in the cluster (generation %llu); "
			  "stopping '%s'",
			  (unsigned long long)gen, e->argv[0]);
		cr_result_free(res);
		*done = true;
		return CLI_OK;
	}
	if (n < (size_t)e->o->min_tasks) {
		if (e->min_wait_at < 0) {
			cli_error("exec: %zu task%s in the cluster, fewer than --min-tasks %lld; "
				  "waiting up to %g s",
				  n, n == 1 ? "" : "s", (long long)e->o->min_tasks, e->o->min_wait);
			e->min_wait_at = el_now() + (int64_t)(e->o->min_wait * 1000);
		}
		el_stop(e, false);
		cr_result_free(e->cur);
		e->cur = res;
		e->cur_gen = gen;
		if (e->cur_pairs != NULL)
			g_ptr_array_unref(e->cur_pairs);
		e->cur_pairs = NULL;
		return CLI_OK;
	}
	e->min_wait_at = -1;
	if (e->o->max_tasks > 0 && n > (size_t)e->o->max_tasks &&
	    cr_result_keep_tasks(res, (size_t)e->o->max_tasks, &err) != CR_OK) {
		cli_error("exec: %s", err.message);
		cr_result_free(res);
		*done = true;
		return CLI_FAIL;
	}
	n = el_count(res); /* what the program gets */
	if (e->had_task && cr_result_task_type(res) != NULL) {
		const char *addr = NULL;

		e->spare = cr_spec_task_address(cr_result_spec(res), cr_result_task_type(res),
						cr_result_task_id(res), &addr, NULL) != CR_OK;
		if (e->spare) {
			cli_error("exec: this task is after the first %lld (--max-tasks); "
				  "waiting as a spare",
				  (long long)e->o->max_tasks);
			el_stop(e, false);
			cr_result_free(e->cur);
			e->cur = res;
			e->cur_gen = gen;
			return CLI_OK;
		}
	}
	pairs = el_pairs(e, res);
	if (pairs == NULL) {
		/* This generation cannot be written for the program (a format
		 * needs what it lacks): keep the one it runs with. */
		cr_result_free(res);
		return CLI_OK;
	}
	if ((e->pid >= 0 && e->kill_at < 0 && el_pairs_equal(pairs, e->cur_pairs))) {
		/* What the program sees did not change (a flap that came back). */
		g_ptr_array_unref(pairs);
		cr_result_free(res);
		return CLI_OK;
	}
	cr_result_free(e->cur);
	e->cur = res;
	e->cur_gen = gen;
	if (e->cur_pairs != NULL)
		g_ptr_array_unref(e->cur_pairs);
	e->cur_pairs = pairs;
	if (e->pid >= 0) {
		cli_error("exec: generation %llu (%zu task%s): restarting '%s'",
			  (unsigned long long)gen, n, n == 1 ? "" : "s", e->argv[0]);
		el_stop(e, true);
	} else {
		el_start(e);
	}
	return CLI_OK;
}

static int el_exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* The program (and its group) ended with @status: what next. */
static int el_ended(elastic *e, int status, bool *done)
{
	int code = el_exit_code(status);
	bool stopped = e->kill_at >= 0 || e->restart_after_stop;
	bool restart = e->restart_after_stop;

	if (e->tty) /* the terminal is ours again until the next program */
		tcsetpgrp(STDIN_FILENO, getpgrp());
	cli_group_end(e->pid, (int64_t)(e->o->stop_timeout * 1000), e->argv[0]);
	el_tell(e, CR_SUPERVISE_EXITED, code);
	e->pid = -1;
	e->kill_at = -1;
	e->restart_after_stop = false;
	if (e->leaving) {
		*done = true;
		return CLI_OK;
	}
	if (e->final || (!stopped && code == 0)) {
		*done = true;
		return code;
	}
	if (restart) {
		el_start(e);
		return CLI_OK;
	}
	if (stopped) /* for --min-tasks or as a spare: wait */
		return CLI_OK;
	if (e->restarts >= e->o->max_restarts) {
		if (e->o->max_restarts > 0)
			cli_error("exec: '%s' exited with %d after %lld restart%s (--max-restarts)",
				  e->argv[0], code, (long long)e->restarts,
				  e->restarts == 1 ? "" : "s");
		*done = true;
		return code;
	}
	e->restarts++;
	cli_error("exec: '%s' exited with %d; restart %lld of %lld", e->argv[0], code,
		  (long long)e->restarts, (long long)e->o->max_restarts);
	el_start(e);
	return CLI_OK;
}

static int el_loop(elastic *e)
{
	for (;;) {
		int64_t now = el_now(), due = -1;
		cr_error err = CR_ERROR_INIT;
		cr_result *res = NULL;
		uint64_t gen = 0;
		bool done = false;
		int rc = CLI_OK, status;
		pid_t w;
		cr_status st;

		if (el_signal != 0) {
			int sig = el_signal;

			el_signal = 0;
			if (e->pid < 0)
				return 128 + sig;
			e->final = true;
			kill(-e->pid, sig);
		}
		el_child = 0;
		while (e->pid >= 0 && (w = waitpid(e->pid, &status, WNOHANG)) == e->pid) {
			rc = el_ended(e, status, &done);
			if (done)
				return rc;
		}
		if (e->start_failed)
			return 126; /* as --supervise */
		if (e->pid < 0 && e->min_wait_at < 0 && !e->spare && e->cur_pairs == NULL)
			return CLI_FAIL; /* nothing could be started */
		if (e->kill_at >= 0 && now >= e->kill_at) {
			cli_error("warning: exec: '%s' did not stop on SIGTERM; sending SIGKILL",
				  e->argv[0]);
			kill(-e->pid, SIGKILL);
			e->kill_at = now + 3600 * 1000;
		}
		if (e->min_wait_at >= 0 && now >= e->min_wait_at && e->pid < 0) {
			cli_error("exec: %zu task%s in the cluster after %g s, fewer than "
				  "--min-tasks %lld",
				  el_count(e->cur), el_count(e->cur) == 1 ? "" : "s",
				  e->o->min_wait, (long long)e->o->min_tasks);
			return CLI_FAIL;
		}
		if (e->pending != NULL && now >= e->settle_at) {
			res = e->pending;
			gen = e->pending_gen;
			e->pending = NULL;
			e->settle_at = -1;
			rc = el_apply(e, res, gen, &done);
			if (done && e->pid >= 0 && rc == CLI_OK) {
				/* This task left: stop the program, then exit 0. */
				e->leaving = true;
				el_stop(e, false);
				continue;
			}
			if (done)
				return rc;
			continue;
		}
		if (e->settle_at >= 0)
			due = e->settle_at;
		if (e->kill_at >= 0 && (due < 0 || e->kill_at < due))
			due = e->kill_at;
		if (e->min_wait_at >= 0 && (due < 0 || e->min_wait_at < due))
			due = e->min_wait_at;
		if (el_signal != 0 || el_child != 0)
			continue;
		st = cr_context_watch(e->ctx, due < 0 ? -1 : (due > now ? due - now : 0), &res,
				      &gen, &err);
		if (st != CR_OK) {
			/* The program keeps the cluster it has; the core backs
			 * off before it resolves again. */
			struct timespec pause = { 1, 0 };

			cli_error("warning: exec: %s", err.message);
			nanosleep(&pause, NULL);
			continue;
		}
		if (res == NULL)
			continue;
		cr_result_free(e->pending);
		e->pending = res;
		e->pending_gen = gen;
		e->settle_at = el_now() + (int64_t)(e->o->settle * 1000);
	}
}

int cli_elastic(cr_context *ctx, char **argv, const char *const *formats, const cli_elastic_opts *o)
{
	elastic e = { .o = o,
		      .ctx = ctx,
		      .argv = argv,
		      .formats = formats,
		      .base_env = environ,
		      .pid = -1,
		      .kill_at = -1,
		      .settle_at = -1,
		      .min_wait_at = -1 };
	struct sigaction sa = { .sa_handler = el_on_signal, .sa_flags = SA_NOCLDSTOP };
	static const int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction old[5];
	cr_error err = CR_ERROR_INIT;
	cr_result *res = NULL;
	uint64_t gen = 0;
	bool done = false;
	cr_status st;
	int rc;

	/* The first generation comes at once. */
	st = cr_context_watch(ctx, -1, &res, &gen, &err);
	if (st != CR_OK || res == NULL) {
		cli_error("%s", st != CR_OK ? err.message : "exec: no cluster");
		cr_result_free(res);
		return cli_exit_status(st != CR_OK ? st : CR_ERR_INTERNAL, CLI_PHASE_RESOLVE);
	}
	e.had_task = cr_result_task_id(res) >= 0;
	sigprocmask(SIG_SETMASK, NULL, &e.mask);
	/* On our terminal each program gets it (so it can read it and ^C
	 * reaches it) and gives it back when it ends; handing it over from
	 * what is then a background group needs SIGTTOU blocked. */
	e.tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	if (e.tty) {
		sigset_t ttou;

		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		sigprocmask(SIG_BLOCK, &ttou, NULL);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	el_ctx = ctx;
	sigemptyset(&sa.sa_mask);
	for (size_t k = 0; k < G_N_ELEMENTS(sigs); k++)
		sigaction(sigs[k], &sa, &old[k]);
	rc = el_apply(&e, res, gen, &done);
	if (!done && e.cur_pairs == NULL && e.min_wait_at < 0 && !e.spare)
		rc = e.env_rc != CLI_OK ? e.env_rc : CLI_FAIL; /* as exec would exit */
	else if (!done)
		rc = el_loop(&e);
	if (e.pid >= 0) {
		/* Ending with the program still running (an error): stop it. */
		int status;

		kill(-e.pid, SIGTERM);
		waitpid(e.pid, &status, 0);
		cli_group_end(e.pid, (int64_t)(o->stop_timeout * 1000), argv[0]);
	}
	if (e.tty)
		tcsetpgrp(STDIN_FILENO, getpgrp());
	sigprocmask(SIG_SETMASK, &e.mask, NULL);
	for (size_t k = 0; k < G_N_ELEMENTS(sigs); k++)
		sigaction(sigs[k], &old[k], NULL);
	el_ctx = NULL;
	cr_result_free(e.cur);
	cr_result_free(e.pending);
	if (e.cur_pairs != NULL)
		g_ptr_array_unref(e.cur_pairs);
	return rc;
}
