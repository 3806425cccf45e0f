/* SPDX-License-Identifier: MIT */
/*
 * exec-guard.c - what the program's group does if `exec --supervise` or
 * `exec --elastic` dies without stopping it (SIGKILL, the OOM killer).
 * The kernel tells the program itself (PR_SET_PDEATHSIG in
 * exec-supervise.c), but not what it started in its group: a background
 * job, a data loader's workers. So before the first program starts we
 * fork a guard: a process of ours that holds one end of a socket pair
 * whose other end only we hold (close-on-exec: the program never gets it).
 * We tell it each program's group as it starts. When we die, its read
 * ends (no writer is left) and it does what we would have done: SIGTERM
 * and SIGCONT to the group, SIGKILL after the stop timeout, then exits.
 * When we end normally we tell it so (group 0) and reap it.
 *
 * What still escapes is what escapes us anyway: a process that left the
 * group (setsid(), setpgid()), or nothing is left to stop it when the guard
 * is killed with us (a kill of every process of a cgroup, which takes the
 * program's group as well, or a kill of the guard by its pid).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"

static bool guard_group_alive(pid_t pgid)
{
	return kill(-pgid, 0) == 0 || errno == EPERM;
}

/* The guard: wait for our end, then end the last group we named. Only
 * async-signal-safe calls (we may have threads). */
static void guard_run(int fd, int64_t stop_timeout_ms)
{
	static const int calm[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGPIPE };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct timespec tick = { 0, 50 * 1000000 };
	int32_t msg, pgid = 0;

	/* Signals meant for us (^C on our terminal reaches our group) are
	 * not the guard's: it ends only when we do. */
	for (size_t k = 0; k < sizeof(calm) / sizeof(calm[0]); k++)
		sigaction(calm[k], &ign, NULL);
	/* Nothing of ours but the socket: a connection we close must close
	 * (the server sees its end), a pipe we write must end with us. */
	if (fd > 0)
		close_range(0, (unsigned int)fd - 1, 0);
	close_range((unsigned int)fd + 1, ~0U, 0);
	prctl(PR_SET_NAME, "cr-exec-guard");
	/* A group of its own: `kill -KILL -PGID` of ours (a shell's kill of
	 * our job) does not take it with us. */
	setpgid(0, 0);
	for (;;) {
		ssize_t n = read(fd, &msg, sizeof(msg));

		if (n == (ssize_t)sizeof(msg)) {
			if (msg == 0)
				_exit(0);
			pgid = msg;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		break; /* 0: no writer left, we are gone */
	}
	if (pgid <= 0 || !guard_group_alive(pgid))
		_exit(0);
	kill(-pgid, SIGTERM);
	kill(-pgid, SIGCONT);
	for (int64_t waited = 0; waited < stop_timeout_ms; waited += 50) {
		nanosleep(&tick, NULL);
		if (!guard_group_alive(pgid))
			_exit(0);
	}
	kill(-pgid, SIGKILL);
	_exit(0);
}

void cli_guard_start(cli_guard *g, int64_t stop_timeout_ms)
{
	int sv[2];

	g->fd = -1;
	g->pid = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		cli_error("warning: exec: no guard for the program's group (%s): if this process "
			  "is killed, its background processes are not stopped",
			  strerror(errno));
		return;
	}
	fflush(NULL);
	g->pid = fork();
	if (g->pid == 0) {
		close(sv[0]);
		guard_run(sv[1], stop_timeout_ms);
	}
	close(sv[1]);
	if (g->pid < 0) {
		cli_error("warning: exec: no guard for the program's group (%s): if this process "
			  "is killed, its background processes are not stopped",
			  strerror(errno));
		close(sv[0]);
		return;
	}
	g->fd = sv[0];
}

void cli_guard_watch(const cli_guard *g, pid_t pgid)
{
	int32_t msg = (int32_t)pgid;

	if (g->fd >= 0)
		(void)send(g->fd, &msg, sizeof(msg), MSG_NOSIGNAL);
}

void cli_guard_end(cli_guard *g)
{
	int status;

	cli_guard_watch(g, 0);
	if (g->fd >= 0)
		close(g->fd);
	if (g->pid > 0)
		while (waitpid(g->pid, &status, 0) < 0 && errno == EINTR)
			;
	g->fd = -1;
	g->pid = -1;
}
