/* SPDX-License-Identifier: MIT */
/*
 * exec-supervise.c - `exec --supervise`: the program runs as a child in
 * its own process group while we stay, so that
 *  - SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to us reach the whole group;
 *  - the resolvers hear STARTED, RUNNING about every second, and EXITED
 *    with the exit status (cr_context_supervise), and may ask to stop it:
 *    SIGTERM to the group, SIGKILL after the stop timeout;
 *  - our exit status is the program's, or 128+N when signal N killed it.
 *
 * No handler is installed: the signals are blocked and taken with
 * sigtimedwait(), whose timeout is also the RUNNING clock. The child gets
 * the original mask back before it execs.
 *
 * If we die without stopping it (SIGKILL, the OOM killer), the program
 * gets SIGTERM from the kernel (PR_SET_PDEATHSIG), as on a stop, rather
 * than running on unsupervised.
 *
 * On a terminal where we are the foreground job the program's group gets
 * the terminal (so it can read it, and ^C reaches it directly), and gets
 * it back after ^Z: when the program stops, we stop too, and when the
 * shell continues us, we continue it. SIGTTOU stays blocked meanwhile, so
 * handing the terminal over from the background is allowed.
 *
 * cli_exec_keep_fds() and cli_exec_failed() are here, below cmd-exec.c,
 * because both ways of running the program use them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"

#define TICK_MS 1000

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

typedef struct supervisor {
	cr_context *ctx;
	const cr_result *res;
	const char *program;
	pid_t pid;
	int64_t start_ms;
	int64_t stop_timeout_ms;
	int64_t kill_at_ms; /* SIGKILL due; -1: not stopping */
	bool stopping;
	bool tty; /* stdin is our terminal and we are its foreground job */
} supervisor;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cli_exec_keep_fds(const cr_result *res)
{
	int fd;

	for (size_t k = 0; cr_result_fd(res, k, &fd, NULL); k++)
		fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) & ~FD_CLOEXEC);
}

int cli_exec_failed(const char *program, int error)
{
	cli_error("exec: cannot run '%s': %s", program, strerror(error));
	return error == ENOENT ? 127 : 126;
}

/* In the child: SIGTERM when @parent dies, own group (the terminal's
 * foreground one if we had it), descriptors kept, original mask, exec. */
static void child_exec(const cr_result *res, char **argv, const sigset_t *mask, bool tty,
		       pid_t parent)
{
	/* Kept across exec. A parent already gone is as if it died now. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(128 + SIGTERM);
	setpgid(0, 0);
	if (tty)
		tcsetpgrp(STDIN_FILENO, getpid());
	cli_exec_keep_fds(res);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execvp(argv[0], argv);
	_exit(cli_exec_failed(argv[0], errno));
}

/* The parent's copies of the passed descriptors now point at /dev/null:
 * the program holds the real ones, and the result can still close its
 * numbers without touching anything else. */
static void drop_parent_fds(const cr_result *res)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC), fd;

	for (size_t k = 0; null >= 0 && cr_result_fd(res, k, &fd, NULL); k++)
		dup3(null, fd, O_CLOEXEC);
	if (null >= 0)
		close(null);
}

static void tell(supervisor *s, cr_supervise_phase phase, int exit_status)
{
	cr_supervise_event ev = { .struct_size = sizeof(ev),
				  .phase = phase,
				  .pid = s->pid,
				  .exit_status = exit_status,
				  .elapsed_ms = now_ms() - s->start_ms };
	cr_error err = CR_ERROR_INIT;
	bool stop = false;

	if (cr_context_supervise(s->ctx, s->res, &ev, &stop, &err) != CR_OK)
		cli_error("exec: %s", err.message);
	if (stop && !s->stopping && phase != CR_SUPERVISE_EXITED) {
		s->stopping = true;
		kill(-s->pid, SIGTERM);
		s->kill_at_ms = now_ms() + s->stop_timeout_ms;
	}
}

static int exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* ^Z (or any stop) of the program on our terminal: the shell sees only
 * us, so we take the terminal back and stop as well; once continued, the
 * program gets the terminal and a SIGCONT. */
static void job_stopped(supervisor *s)
{
	tcsetpgrp(STDIN_FILENO, getpgrp());
	raise(SIGTSTP); /* discarded, so no stop, in an orphaned group */
	tcsetpgrp(STDIN_FILENO, s->pid);
	kill(-s->pid, SIGCONT);
}

/* Wait for the child, ticking, forwarding and escalating meanwhile. */
static int supervise_loop(supervisor *s, const sigset_t *set)
{
	int64_t next_tick = s->start_ms + TICK_MS;
	int status = 0;

	for (;;) {
		pid_t w = waitpid(s->pid, &status, WNOHANG | (s->tty ? WUNTRACED : 0));
		int64_t now = now_ms(), due;
		struct timespec ts;
		int sig;

		if (w == s->pid && WIFSTOPPED(status)) {
			job_stopped(s);
			continue;
		}
		if (w == s->pid)
			break;
		if (w < 0 && errno != EINTR) {
			cli_error("exec: cannot wait for '%s': %s", s->program, strerror(errno));
			return CLI_FAIL;
		}
		if (s->kill_at_ms >= 0 && now >= s->kill_at_ms) {
			cli_error("warning: exec: '%s' did not stop on SIGTERM; sending SIGKILL",
				  s->program);
			kill(-s->pid, SIGKILL);
			s->kill_at_ms = -1;
		}
		if (now >= next_tick) {
			tell(s, CR_SUPERVISE_RUNNING, -1);
			next_tick = now + TICK_MS;
		}
		due = s->kill_at_ms >= 0 && s->kill_at_ms < next_tick ? s->kill_at_ms : next_tick;
		due = due > now ? due - now : 0;
		ts.tv_sec = (time_t)(due / 1000);
		ts.tv_nsec = (long)(due % 1000) * 1000000;
		sig = sigtimedwait(set, NULL, &ts);
		if (sig > 0 && sig != SIGCHLD)
			kill(-s->pid, sig);
	}
	return exit_code(status);
}

int cli_supervise(cr_context *ctx, cr_result *res, char **argv, double stop_timeout)
{
	supervisor s = { .ctx = ctx,
			 .res = res,
			 .program = argv[0],
			 .kill_at_ms = -1,
			 .stop_timeout_ms = (int64_t)(stop_timeout * 1000) };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set, block, old;
	pid_t self = getpid();
	int rc;

	/* An inherited SIG_IGN for SIGCHLD would reap the child for us. */
	sigaction(SIGCHLD, &dfl, NULL);
	sigemptyset(&set);
	for (size_t k = 0; k < sizeof(forwarded) / sizeof(forwarded[0]); k++)
		sigaddset(&set, forwarded[k]);
	sigaddset(&set, SIGCHLD);
	block = set;
	sigaddset(&block, SIGTTOU);
	sigprocmask(SIG_BLOCK, &block, &old);
	s.tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	fflush(NULL);
	s.pid = fork();
	if (s.pid < 0) {
		rc = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		cli_error("exec: cannot start '%s': %s", argv[0], strerror(rc));
		return 126;
	}
	if (s.pid == 0)
		child_exec(res, argv, &old, s.tty, self);
	/* Both sides set the group (and the terminal's), so nothing reaches
	 * the wrong group in between. */
	setpgid(s.pid, s.pid);
	if (s.tty)
		tcsetpgrp(STDIN_FILENO, s.pid);
	s.start_ms = now_ms();
	drop_parent_fds(res);
	tell(&s, CR_SUPERVISE_STARTED, -1);
	rc = supervise_loop(&s, &set);
	if (s.tty)
		tcsetpgrp(STDIN_FILENO, getpgrp());
	tell(&s, CR_SUPERVISE_EXITED, rc);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
