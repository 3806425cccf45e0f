/* SPDX-License-Identifier: MIT */
/*
 * exec-elastic-program.c - what `exec --elastic` (exec-elastic.c) does to
 * its program: start it with a generation's environment
 * (exec-generation.c), stop it, tell the resolvers' supervise hooks.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec-elastic.h"

volatile sig_atomic_t el_pgid;

/* Block the signals exec-elastic.c handles (*@old: the mask before), and
 * put the mask back. */
void el_block(sigset_t *old)
{
	static const int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	sigset_t set;

	sigemptyset(&set);
	for (size_t k = 0; k < G_N_ELEMENTS(sigs); k++)
		sigaddset(&set, sigs[k]);
	sigprocmask(SIG_BLOCK, &set, old);
}

void el_unblock(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

int64_t el_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

size_t el_count(const cr_result *res)
{
	return cli_result_tasks(res);
}

/* The world id of the generation the program runs with. */
const char *el_id(const elastic *e)
{
	const char *id = cli_pairs_get(e->cur_pairs, "CR_GENERATION_ID");

	return id != NULL ? id : "?";
}

/* Whether @res is a generation without this process's task: it left. */
bool el_gone(const elastic *e, const cr_result *res)
{
	return e->had_task && res != NULL && cr_result_task_id(res) < 0;
}

/* Tell the resolvers' supervise hooks (between two watches: no call may
 * run beside one): STARTED after each start, EXITED after each end;
 * RUNNING is not sent under --elastic. One asking to stop the program
 * stops it for good. */
void el_tell(elastic *e, cr_supervise_phase phase, int exit_status)
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

void el_start(elastic *e)
{
	char **envp = cli_generation_envp(e->base_env, e->cur_pairs, e->cur_gen, e->restarts);
	int exec_errno = 0, status;
	sigset_t held;

	/* A signal that comes meanwhile is handled once el_pgid is the
	 * program's: forwarded to it. */
	el_block(&held);
	e->pid = cli_program_start(e->cur, e->argv, envp, &e->mask, e->tty, &exec_errno);
	if (e->pid < 0) {
		cli_error("exec: cannot start '%s': %s", e->argv[0], strerror(errno));
		e->start_failed = true;
		e->start_code = 126; /* as --supervise */
	} else if (exec_errno != 0) {
		/* It cannot be executed: no restart would change that. */
		while (waitpid(e->pid, &status, 0) < 0 && errno == EINTR)
			;
		if (e->tty)
			tcsetpgrp(STDIN_FILENO, getpgrp());
		e->pid = -1;
		e->start_failed = true;
		e->start_code = exec_errno == ENOENT ? 127 : 126;
		cli_error("exec: cannot run '%s': %s (exit %d; not restarted)", e->argv[0],
			  strerror(exec_errno), e->start_code);
	} else {
		el_pgid = e->pid;
		cli_guard_watch(&e->guard, e->pid);
	}
	el_unblock(&held);
	g_strfreev(envp);
	e->kill_at = -1;
	e->restart_after_stop = false;
	e->restart_at = -1;
	e->start_ms = el_now();
	if (e->pid >= 0)
		el_tell(e, CR_SUPERVISE_STARTED, -1);
}

void el_stop(elastic *e, bool restart)
{
	e->restart_after_stop = restart;
	if (e->pid < 0 || e->kill_at >= 0)
		return;
	kill(-e->pid, SIGTERM);
	kill(-e->pid, SIGCONT);
	e->kill_at = el_now() + (int64_t)(e->o->stop_timeout * 1000);
}

/* The wait before the next restart after a failure of a run of @ran_ms:
 * 1 s, doubling with each failure in a row, capped at --restart-backoff
 * (Kubernetes' CrashLoopBackOff shape; a run of 10 minutes starts it
 * again at 1 s, as the kubelet does). */
int64_t el_backoff(elastic *e, int64_t ran_ms)
{
	int64_t cap = (int64_t)(e->o->restart_backoff * 1000);

	if (ran_ms >= CLI_BACKOFF_RESET_MS)
		e->backoff_ms = 0;
	e->backoff_ms = e->backoff_ms == 0 ? 1000 : e->backoff_ms * 2;
	if (e->backoff_ms > cap)
		e->backoff_ms = cap;
	return e->backoff_ms;
}

int el_exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
