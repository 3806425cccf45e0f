/* SPDX-License-Identifier: MIT */
/*
 * exec-elastic.h - the state of `exec --elastic` (exec-elastic.c, the
 * agent's loop) and the steps it takes on its program
 * (exec-elastic-program.c: start, stop, tell the resolvers), below it.
 */
#ifndef CR_CLI_EXEC_ELASTIC_H
#define CR_CLI_EXEC_ELASTIC_H

#include "commands.h"

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
	bool start_failed; /* fork or exec failed: end with start_code */
	int start_code;
	/* A restart after a failure waits until restart_at (-1: none), the
	 * wait doubling from 1 s to --restart-backoff. */
	int64_t restart_at;
	int64_t backoff_ms; /* the last wait; 0: none yet */
	int64_t ended_ms;   /* when the program last ended */
	cli_guard guard;    /* stops the program's group if we are killed */
	int env_rc;         /* the last generation's variables: CLI_OK or the exit status */
	/* The program failed with no change pending: until fail_at, a change
	 * that comes makes it the change's failure (not counted). */
	int64_t fail_at; /* -1: none */
	int fail_code;
	int64_t fail_ran_ms; /* how long it had run */
	/* A signal was passed on and the program ended with term_code: until
	 * term_at, this task's removal makes it a clean leave. */
	int64_t term_at; /* -1: none */
	int term_code;
	int final_sig;
} elastic;

/* The running program's group, for the signal handler to forward to at
 * once (0: none). It is set and cleared with the handled signals blocked
 * (el_block, el_unblock), so the handler never signals a group that is
 * not ours. */
extern volatile sig_atomic_t el_pgid;
void el_block(sigset_t *old);
void el_unblock(const sigset_t *old);

/* Monotonic milliseconds. */
int64_t el_now(void);
/* The tasks of @res; the world id of the generation the program runs
 * with; whether @res is a generation without this process's task. */
size_t el_count(const cr_result *res);
const char *el_id(const elastic *e);
bool el_gone(const elastic *e, const cr_result *res);
/* Tell the resolvers' supervise hooks @phase. */
void el_tell(elastic *e, cr_supervise_phase phase, int exit_status);
/* Start the program with the current generation (a failed exec ends the
 * agent: start_failed, with one line); stop it (SIGTERM to its
 * group, SIGKILL after --stop-timeout), to start it again when @restart. */
void el_start(elastic *e);
void el_stop(elastic *e, bool restart);
/* The wait before a restart after a failure of a run of @ran_ms (1 s
 * doubling to --restart-backoff, again from 1 s after a long run). */
int64_t el_backoff(elastic *e, int64_t ran_ms);
/* A wait status as an exit status (128+N for signal N). */
int el_exit_code(int status);

#endif /* CR_CLI_EXEC_ELASTIC_H */
