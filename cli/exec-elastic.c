/* SPDX-License-Identifier: MIT */
/*
 * exec-elastic.c - `exec --elastic`: an elastic agent for any program. The
 * program runs supervised (its own process group, which we own and reap)
 * with the environment of the current generation of the cluster
 * (cr_context_watch; exec-generation.c: CR_GENERATION_ID, the world's id,
 * CR_GENERATION, CR_RESTART_COUNT, CR_JOIN_TIMEOUT, and a rendezvous port
 * of the membership's own), and
 *  - every generation, the first one included, must hold for --settle
 *    seconds (later ones within it are coalesced) before the program runs
 *    with it: a newcomer starts when the others restart for the change it
 *    brought, so the whole world starts together; a new one stops the
 *    program (SIGTERM to its group, SIGKILL after --stop-timeout) and
 *    starts it again with the new environment; a generation whose
 *    environment is the one the program has (a flap that came back)
 *    restarts nothing;
 *  - a failure while a new generation is pending, or followed within
 *    --settle by one, is the change's: not counted, and the program waits
 *    for that generation rather than restarting with the old cluster;
 *  - fewer than --min-tasks tasks: the program is stopped and we wait up
 *    to --min-wait seconds for them, then fail (exit 1) naming the count;
 *  - more than --max-tasks: the first M tasks in cluster order are used;
 *    a task after them waits as a spare, running nothing;
 *  - this process's task left the cluster: the program is stopped and we
 *    exit 0 with one line saying so;
 *  - the program exits 0: we exit 0; non-zero: it is started again with
 *    the same cluster after a wait (1 s doubling to --restart-backoff),
 *    up to --max-restarts times (torchrun's meaning: the restarts a
 *    membership change causes are not counted, and do not wait), then its
 *    status is ours (128+N for signal N); 126, 127 or an exec that failed
 *    (cannot execute) is never restarted;
 *  - SIGINT, SIGTERM, SIGHUP and SIGQUIT go to the program's group from
 *    the handler, as they come (with SIGCONT), whatever we are blocked in;
 *    its exit then ends us with its status, unless this task's removal is
 *    pending or comes within --settle (a Kubernetes pod's deletion): a
 *    clean leave, exit 0. Every exit that is not 0 says why in a line;
 *  - every SIGCHLD reaps every child that ended: the program, and the
 *    orphans it left (we are their subreaper), so none stays a zombie; a
 *    guard (exec-guard.c) stops the program's group if we are killed.
 *
 * On a terminal where we are the foreground job, each program's group gets
 * the terminal while it runs (stopping it with ^Z is not passed on: use
 * --supervise for interactive work).
 *
 * One thread: the signal handlers cancel the watch we block in
 * (cr_context_watch_cancel is async-signal-safe), so that a child's exit
 * or a signal is handled at once; the watch's own timeout is the next
 * deadline of ours (settling, the stop timeout, the --min-wait, the wait
 * after a failure or a signal for the change that explains it, the
 * restart backoff).
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
#include "exec-elastic.h"

extern char **environ;

static cr_context *volatile el_ctx;
static volatile sig_atomic_t el_child, el_signal;
/* The group el_on_signal last passed a signal to. */
static volatile sig_atomic_t el_forwarded;

/* A signal for the program goes to its group here, at once, whatever the
 * loop is in (a resolution can take minutes against a server that says
 * Retry-After), with SIGCONT so that a stopped program takes it. */
static void el_on_signal(int sig)
{
	int saved = errno;
	pid_t pgid = (pid_t)el_pgid;

	if (sig == SIGCHLD) {
		el_child = 1;
	} else {
		el_signal = sig;
		if (pgid > 0) {
			kill(-pgid, sig);
			kill(-pgid, SIGCONT);
			el_forwarded = pgid;
		}
	}
	if (el_ctx != NULL)
		cr_context_watch_cancel(el_ctx);
	errno = saved;
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
	pairs = cli_generation_vars(res, e->formats, e->o, &e->env_rc);
	if (pairs == NULL) {
		/* This generation cannot be written for the program (a format
		 * needs what it lacks): keep the one it runs with. */
		cr_result_free(res);
		return CLI_OK;
	}
	if ((e->pid >= 0 && e->kill_at < 0 && cli_pairs_equal(pairs, e->cur_pairs))) {
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
		if (e->start_ms > 0) /* it ran before: after a failure, a wait */
			cli_error("exec: generation %llu (%zu task%s): starting '%s' again",
				  (unsigned long long)gen, n, n == 1 ? "" : "s", e->argv[0]);
		el_start(e);
	}
	return CLI_OK;
}

/* A failure that no change explains: restart it with the same cluster,
 * up to --max-restarts, else its status is ours (with a line). */
static int el_count_failure(elastic *e, int code, int64_t ran_ms, bool *done)
{
	int64_t wait_ms;

	if (code == 126 || code == 127) {
		/* The shell's "cannot execute" and "not found": a restart
		 * would fail the same way. */
		cli_error("exec: '%s' exited with %d (%s): not restarted", e->argv[0], code,
			  code == 126 ? "cannot execute" : "command not found");
		*done = true;
		return code;
	}
	if (e->restarts >= e->o->max_restarts) {
		double j = e->o->join_timeout * 1000;

		/* A program that gave up on its join (CR_JOIN_TIMEOUT) ends
		 * about then (torch 1.13's rank 0 waits for the store, then
		 * for gloo's connections, each up to it): say which world
		 * did not form. */
		if (j > 0 && ran_ms >= 0.9 * j && ran_ms <= 3 * j + 30000)
			cli_error("exec: '%s' exited with %d %.1f s after its start, about "
				  "--join-timeout (%g s): generation %llu (%zu task%s, id %s) may "
				  "not have formed",
				  e->argv[0], code, (double)ran_ms / 1000, e->o->join_timeout,
				  (unsigned long long)e->cur_gen, el_count(e->cur),
				  el_count(e->cur) == 1 ? "" : "s", el_id(e));
		if (e->o->max_restarts > 0)
			cli_error("exec: '%s' exited with %d after %lld restart%s (--max-restarts)",
				  e->argv[0], code, (long long)e->restarts,
				  e->restarts == 1 ? "" : "s");
		else
			cli_error("exec: '%s' exited with %d; no restart (--max-restarts 0)",
				  e->argv[0], code);
		*done = true;
		return code;
	}
	e->restarts++;
	wait_ms = el_backoff(e, ran_ms);
	if (wait_ms > 0)
		cli_error("exec: '%s' exited with %d; restart %lld of %lld in %g s", e->argv[0],
			  code, (long long)e->restarts, (long long)e->o->max_restarts,
			  (double)wait_ms / 1000);
	else
		cli_error("exec: '%s' exited with %d; restart %lld of %lld", e->argv[0], code,
			  (long long)e->restarts, (long long)e->o->max_restarts);
	/* The wait runs from its end (a wait for a change to explain it,
	 * --settle, is part of it). */
	e->restart_at = e->ended_ms + wait_ms;
	if (e->restart_at <= el_now())
		el_start(e);
	return CLI_OK;
}

/* After a signal was passed on, the program ended with @code: this
 * task's removal (pending, or seen within --settle) makes it a clean
 * leave; anything else ends us with its status. */
static int el_signalled_end(elastic *e, int code, bool *done)
{
	if (el_gone(e, e->pending) || e->leaving) {
		cli_error("exec: this task left the cluster (generation %llu) as signal %d came: "
			  "'%s' stopped, a clean leave",
			  (unsigned long long)(e->leaving ? e->cur_gen : e->pending_gen),
			  e->final_sig, e->argv[0]);
		*done = true;
		return CLI_OK;
	}
	if (e->final_sig == SIGTERM && e->o->settle > 0 && e->term_at < 0) {
		/* A Kubernetes pod's deletion SIGTERMs it as the watch hears of
		 * it: wait --settle for the removal. */
		e->term_at = el_now() + (int64_t)(e->o->settle * 1000);
		e->term_code = code;
		return CLI_OK;
	}
	if (code != 0)
		cli_error("exec: '%s' ended with %d after signal %d was passed on", e->argv[0],
			  code, e->final_sig);
	*done = true;
	return code;
}

/* The program (and its group) ended with @status: what next. */
static int el_ended(elastic *e, int status, bool *done)
{
	int code = el_exit_code(status);
	bool stopped = e->kill_at >= 0 || e->restart_after_stop;
	bool restart = e->restart_after_stop;
	int64_t ran = el_now() - e->start_ms;

	e->ended_ms = el_now();
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
	if (e->final)
		return el_signalled_end(e, code, done);
	if (!stopped && code == 0) {
		*done = true;
		return code;
	}
	if (restart) {
		el_start(e);
		return CLI_OK;
	}
	if (stopped) /* for --min-tasks or as a spare: wait */
		return CLI_OK;
	if (e->pending != NULL) {
		/* Its peer left, its store moved: the change's failure. */
		cli_error("exec: '%s' exited with %d while generation %llu is pending: not "
			  "counted; waiting for it",
			  e->argv[0], code, (unsigned long long)e->pending_gen);
		return CLI_OK;
	}
	if (e->o->settle > 0) {
		/* The change that caused it may not have reached us yet. */
		e->fail_at = el_now() + (int64_t)(e->o->settle * 1000);
		e->fail_code = code;
		e->fail_ran_ms = ran;
		return CLI_OK;
	}
	return el_count_failure(e, code, ran, done);
}

/* Signal @sig came to us: passed on to the program's group; with none
 * running, its end is decided now. CLI_OK, or the status to end with. */
static int el_signalled(elastic *e, int sig, bool *done)
{
	e->final = true;
	e->final_sig = sig;
	e->fail_at = -1; /* a failure waiting for its change: the signal decides */
	e->restart_at = -1;
	if (e->pid >= 0) {
		/* el_on_signal passed it on as it came, unless it came just
		 * before this program started. */
		if (el_forwarded != e->pid) {
			kill(-e->pid, sig);
			kill(-e->pid, SIGCONT);
		}
		return CLI_OK;
	}
	if (e->term_at >= 0) { /* a second signal: no more waiting */
		*done = true;
		cli_error("exec: signal %d; exiting with %d", sig, e->term_code);
		return e->term_code;
	}
	return el_signalled_end(e, 128 + sig, done);
}

/* The earliest of our deadlines, -1 for none. */
static int64_t el_due(const elastic *e)
{
	const int64_t at[] = { e->settle_at, e->kill_at, e->min_wait_at,
			       e->fail_at,   e->term_at, e->restart_at };
	int64_t due = -1;

	for (size_t k = 0; k < G_N_ELEMENTS(at); k++)
		if (at[k] >= 0 && (due < 0 || at[k] < due))
			due = at[k];
	return due;
}

/* A new generation came from the watch: it settles for --settle. */
static int el_heard(elastic *e, cr_result *res, uint64_t gen, bool *done)
{
	if (e->final && e->pid < 0 && el_gone(e, res)) {
		cli_error("exec: this task left the cluster (generation %llu) as signal %d came: "
			  "'%s' stopped, a clean leave",
			  (unsigned long long)gen, e->final_sig, e->argv[0]);
		cr_result_free(res);
		*done = true;
		return CLI_OK;
	}
	if (e->fail_at >= 0) {
		cli_error("exec: '%s' exited with %d as the membership changed (generation %llu): "
			  "not counted; waiting for it",
			  e->argv[0], e->fail_code, (unsigned long long)gen);
		e->fail_at = -1;
	}
	cr_result_free(e->pending);
	e->pending = res;
	e->pending_gen = gen;
	e->settle_at = el_now() + (int64_t)(e->o->settle * 1000);
	return CLI_OK;
}

static int el_loop(elastic *e)
{
	for (;;) {
		int64_t now = el_now(), due;
		cr_error err = CR_ERROR_INIT;
		cr_result *res = NULL;
		uint64_t gen = 0;
		bool done = false;
		int rc = CLI_OK, status;
		sigset_t held;
		pid_t w;
		cr_status st;

		if (el_signal != 0) {
			int sig = el_signal;

			el_signal = 0;
			rc = el_signalled(e, sig, &done);
			if (done)
				return rc;
		}
		el_child = 0;
		/* Every child that ended: the program, and the orphans it left
		 * (we are their subreaper), so none stays a zombie. */
		for (;;) {
			el_block(&held);
			w = waitpid(-1, &status, WNOHANG);
			if (w > 0 && w == e->pid)
				el_pgid = 0;
			el_unblock(&held);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			if (w != e->pid)
				continue;
			if (el_signal != 0) {
				/* A signal that came with this end decides it, as it
				 * would have had we looked a moment earlier. */
				int sig = el_signal;

				el_signal = 0;
				(void)el_signalled(e, sig, &done);
			}
			if ((rc = el_ended(e, status, &done), done))
				return rc;
		}
		if (e->start_failed)
			return e->start_code;
		if (e->pid < 0 && e->min_wait_at < 0 && !e->spare && e->cur_pairs == NULL &&
		    e->pending == NULL && e->fail_at < 0 && e->term_at < 0)
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
		if (e->term_at >= 0 && now >= e->term_at) {
			if (e->term_code != 0)
				cli_error("exec: '%s' ended with %d after signal %d was passed on",
					  e->argv[0], e->term_code, e->final_sig);
			return e->term_code;
		}
		if (e->restart_at >= 0 && now >= e->restart_at && e->pid < 0 && !e->final) {
			el_start(e);
			continue;
		}
		if (e->fail_at >= 0 && now >= e->fail_at) {
			e->fail_at = -1;
			rc = el_count_failure(e, e->fail_code, e->fail_ran_ms, &done);
			if (done)
				return rc;
			continue;
		}
		if (e->pending != NULL && now >= e->settle_at && !e->final) {
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
		due = el_due(e);
		if (e->final && due == e->settle_at) /* a signal ended the generations */
			due = e->term_at >= 0 ? e->term_at : (e->kill_at >= 0 ? e->kill_at : -1);
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
		if (res != NULL && (rc = el_heard(e, res, gen, &done), done))
			return rc;
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
		      .min_wait_at = -1,
		      .fail_at = -1,
		      .term_at = -1,
		      .restart_at = -1,
		      .guard = { -1, -1 } };
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
	cli_guard_start(&e.guard, (int64_t)(o->stop_timeout * 1000));
	el_ctx = ctx;
	sigemptyset(&sa.sa_mask);
	for (size_t k = 0; k < G_N_ELEMENTS(sigs); k++)
		sigaction(sigs[k], &sa, &old[k]);
	if (o->settle > 0 && cli_generation_writable(res, formats, o, &e.env_rc)) {
		/* The first generation settles too: a newcomer starts with the
		 * others, when they restart for the change it brought. */
		e.pending = res;
		e.pending_gen = gen;
		e.settle_at = el_now() + (int64_t)(o->settle * 1000);
		rc = el_loop(&e);
	} else if (o->settle > 0) {
		cr_result_free(res);
		rc = e.env_rc != CLI_OK ? e.env_rc : CLI_FAIL; /* as exec would exit */
	} else {
		rc = el_apply(&e, res, gen, &done);
		if (!done && e.cur_pairs == NULL && e.min_wait_at < 0 && !e.spare)
			rc = e.env_rc != CLI_OK ? e.env_rc : CLI_FAIL; /* as exec would exit */
		else if (!done)
			rc = el_loop(&e);
	}
	if (e.pid >= 0) {
		/* Ending with the program still running (an error): stop it. */
		sigset_t held;
		int status;

		el_block(&held);
		el_pgid = 0;
		el_unblock(&held);
		kill(-e.pid, SIGTERM);
		kill(-e.pid, SIGCONT);
		waitpid(e.pid, &status, 0);
		cli_group_end(e.pid, (int64_t)(o->stop_timeout * 1000), argv[0]);
	}
	cli_guard_end(&e.guard);
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
