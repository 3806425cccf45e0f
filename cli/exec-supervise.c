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
 * than running on unsupervised, and our guard (exec-guard.c) stops the
 * rest of its group.
 *
 * We own the program's whole process group: when the program ends (or we
 * stop it), whatever it left in its group (a background job) gets SIGTERM,
 * then SIGKILL after the stop timeout, and is reaped: we are the child
 * subreaper (PR_SET_CHILD_SUBREAPER), so orphans of the program come to
 * us, and are reaped as they end (every SIGCHLD), not only at the end.
 * What leaves the group escapes: a daemon that calls setsid() (or
 * setpgid()) is no longer ours, as under any shell.
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

/* Set the variables of @format, one of @formats, into @pairs; @port
 * (NULL: none) is the rendezvous port of a format that takes one. */
static int env_add_format(const cr_result *res, const char *const *formats, const char *format,
			  const char *port, GPtrArray *pairs)
{
	cr_error err = CR_ERROR_INIT;
	char **opts = cli_format_options(formats, format);
	char **vars = NULL;
	cr_status st;

	if (port != NULL && cli_format_takes("master_port", format)) {
		guint n = g_strv_length(opts);

		opts = g_renew(char *, opts, n + 2);
		opts[n] = g_strdup_printf("master_port=%s", port);
		opts[n + 1] = NULL;
	}
	st = cr_result_env_vars(res, format, (const char *const *)opts, &vars, &err);
	g_strfreev(opts);
	if (st != CR_OK) {
		cli_error("exec: %s", err.message);
		return cli_exit_status(st, CLI_PHASE_OUTPUT);
	}
	for (size_t i = 0; vars[i] != NULL && vars[i + 1] != NULL; i += 2) {
		g_ptr_array_add(pairs, g_strdup(vars[i]));
		g_ptr_array_add(pairs, g_strdup(vars[i + 1]));
	}
	cr_strv_free(vars);
	return CLI_OK;
}

int cli_exec_env(const cr_result *res, const char *const *formats, const char *port,
		 GPtrArray *pairs)
{
	int rc = CLI_OK;

	for (size_t f = 0; rc == CLI_OK && formats[f] != NULL; f++)
		rc = env_add_format(res, formats, formats[f], port, pairs);
	for (size_t k = 0; rc == CLI_OK && k < cr_result_num_env(res); k++) {
		const char *name, *value;

		if (cr_result_env(res, k, &name, &value)) {
			g_ptr_array_add(pairs, g_strdup(name));
			g_ptr_array_add(pairs, g_strdup(value));
		}
	}
	for (size_t k = 0; rc == CLI_OK && k < cr_result_num_fds(res); k++) {
		const char *name;
		int fd;

		if (cr_result_fd(res, k, &fd, &name)) {
			g_ptr_array_add(pairs, g_strdup(name));
			g_ptr_array_add(pairs, g_strdup_printf("%d", fd));
		}
	}
	return rc;
}

/* In the child: SIGTERM when @parent dies, own group (the terminal's
 * foreground one if we had it), descriptors kept, original mask, exec
 * (with @envp, or our environment when NULL). A failed exec is reported,
 * or its errno written to @errfd (>= 0: the parent reports it). */
static void child_exec(const cr_result *res, char **argv, char **envp, const sigset_t *mask,
		       bool tty, pid_t parent, int errfd)
{
	int error;

	/* Kept across exec. A parent already gone is as if it died now. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(128 + SIGTERM);
	setpgid(0, 0);
	if (tty)
		tcsetpgrp(STDIN_FILENO, getpid());
	cli_exec_keep_fds(res);
	sigprocmask(SIG_SETMASK, mask, NULL);
	if (envp != NULL)
		execvpe(argv[0], argv, envp);
	else
		execvp(argv[0], argv);
	error = errno;
	if (errfd < 0)
		_exit(cli_exec_failed(argv[0], error));
	(void)!write(errfd, &error, sizeof(error));
	_exit(error == ENOENT ? 127 : 126);
}

/* The errno a child wrote to @fd before exiting, 0 when it exec'd (the
 * close-on-exec end closed with nothing written). */
static int read_exec_errno(int fd)
{
	int error = 0;
	ssize_t n;

	while ((n = read(fd, &error, sizeof(error))) < 0 && errno == EINTR)
		;
	return n == (ssize_t)sizeof(error) ? error : 0;
}

pid_t cli_program_start(const cr_result *res, char **argv, char **envp, const sigset_t *mask,
			bool tty, int *exec_errno)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	pid_t self = getpid(), pid;
	int errpipe[2] = { -1, -1 };

	if (exec_errno != NULL) {
		*exec_errno = 0;
		if (pipe2(errpipe, O_CLOEXEC) != 0)
			errpipe[0] = errpipe[1] = -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* The child runs with default dispositions, as exec would give
		 * it for handled signals; ignored ones stay ignored. */
		for (int sig = 1; sig < NSIG; sig++) {
			struct sigaction cur;

			if (sigaction(sig, NULL, &cur) == 0 && cur.sa_handler != SIG_IGN &&
			    cur.sa_handler != SIG_DFL)
				sigaction(sig, &dfl, NULL);
		}
		if (errpipe[0] >= 0)
			close(errpipe[0]);
		child_exec(res, argv, envp, mask, tty, self, errpipe[1]);
	}
	if (errpipe[1] >= 0)
		close(errpipe[1]);
	if (pid < 0) {
		int error = errno;

		if (errpipe[0] >= 0)
			close(errpipe[0]);
		errno = error;
		return -1;
	}
	/* Both sides set the group (and the terminal's), so nothing reaches
	 * the wrong group in between. */
	setpgid(pid, pid);
	if (tty)
		tcsetpgrp(STDIN_FILENO, pid);
	if (errpipe[0] >= 0) {
		*exec_errno = read_exec_errno(errpipe[0]);
		close(errpipe[0]);
	}
	return pid;
}

/* Whether any process of group @pgid is left. */
static bool group_alive(pid_t pgid)
{
	return kill(-pgid, 0) == 0 || errno == EPERM;
}

void cli_group_end(pid_t pgid, int64_t stop_timeout_ms, const char *program)
{
	int64_t kill_at = now_ms() + stop_timeout_ms, give_up = -1;
	struct timespec tick = { 0, 10 * 1000000 };
	int status;

	if (!group_alive(pgid)) {
		while (waitpid(-1, &status, WNOHANG) > 0)
			;
		return;
	}
	kill(-pgid, SIGTERM);
	kill(-pgid, SIGCONT);
	for (;;) {
		int64_t now;

		/* We are the subreaper of what the program left: reap it. */
		while (waitpid(-1, &status, WNOHANG) > 0)
			;
		if (!group_alive(pgid))
			return;
		now = now_ms();
		if (give_up < 0 && now >= kill_at) {
			cli_error("warning: exec: what '%s' left in its group did not stop on "
				  "SIGTERM; sending SIGKILL",
				  program);
			kill(-pgid, SIGKILL);
			/* What is not our child is reaped by its own parent. */
			give_up = now + 5000;
		}
		if (give_up >= 0 && now >= give_up)
			return;
		nanosleep(&tick, NULL);
	}
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

/* Reap every child that ended (orphans of the program come to us): the
 * program's own end (or stop) is returned as its pid, with *@status. */
static pid_t reap(const supervisor *s, int *status)
{
	pid_t w, program = 0;
	int st;

	while ((w = waitpid(-1, &st, WNOHANG | (s->tty ? WUNTRACED : 0))) > 0 ||
	       (w < 0 && errno == EINTR)) {
		if (w != s->pid)
			continue; /* an orphan (or its stop): reaped, nothing more */
		*status = st;
		program = w;
		if (WIFSTOPPED(st))
			break;
	}
	if (program == 0 && w < 0 && errno != ECHILD)
		return -1;
	return program;
}

/* Wait for the child, ticking, forwarding and escalating meanwhile. */
static int supervise_loop(supervisor *s, const sigset_t *set)
{
	int64_t next_tick = s->start_ms + TICK_MS;
	int status = 0;

	for (;;) {
		pid_t w = reap(s, &status);
		int64_t now = now_ms(), due;
		struct timespec ts;
		int sig;

		if (w == s->pid && WIFSTOPPED(status)) {
			job_stopped(s);
			continue;
		}
		if (w == s->pid)
			break;
		if (w < 0) {
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
		if (sig > 0 && sig != SIGCHLD) {
			/* A stopped program would take it only once continued. */
			kill(-s->pid, sig);
			kill(-s->pid, SIGCONT);
		}
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
	cli_guard guard;
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
	/* What the program leaves running when it ends (a background job, a
	 * double fork) comes to us, so that we can reap it. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	cli_guard_start(&guard, s.stop_timeout_ms);
	s.pid = cli_program_start(res, argv, NULL, &old, s.tty, NULL);
	if (s.pid < 0) {
		rc = errno;
		cli_guard_end(&guard);
		sigprocmask(SIG_SETMASK, &old, NULL);
		cli_error("exec: cannot start '%s': %s", argv[0], strerror(rc));
		return 126;
	}
	cli_guard_watch(&guard, s.pid);
	s.start_ms = now_ms();
	drop_parent_fds(res);
	tell(&s, CR_SUPERVISE_STARTED, -1);
	rc = supervise_loop(&s, &set);
	if (s.tty)
		tcsetpgrp(STDIN_FILENO, getpgrp());
	/* Nothing of the program's group outlives it. */
	cli_group_end(s.pid, s.stop_timeout_ms, s.program);
	cli_guard_end(&guard);
	tell(&s, CR_SUPERVISE_EXITED, rc);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
