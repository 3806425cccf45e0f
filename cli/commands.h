/* SPDX-License-Identifier: MIT */
/*
 * commands.h - the subcommands of `cluster-resolver`. Each is a thin client
 * of the library API and returns the process exit status:
 * 0 success, 1 resolution failure, 2 usage or configuration error.
 */
#ifndef CR_CLI_COMMANDS_H
#define CR_CLI_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include <cluster-resolver/cluster-resolver.h>

enum {
	CLI_OK = 0,
	CLI_FAIL = 1,
	CLI_USAGE = 2
};

/* Options every command understands (parsed by main.c). */
typedef struct cli_opts {
	const char *config;
	const char *task_type;
	int64_t task_id; /* -1 = not given */
	const char *rpc_layer;
	int verbose;
} cli_opts;

/* Print "cluster-resolver: MESSAGE" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Flush and close stdout; a write error there is reported and makes a
 * successful @rc CLI_FAIL (main.c, after every command). */
int cli_finish_stdout(int rc);
/* Where a library call failed: reading the configuration, resolving, or
 * printing the result (formats, variables, master). */
typedef enum {
	CLI_PHASE_CONFIG = 0,
	CLI_PHASE_RESOLVE = 1,
	CLI_PHASE_OUTPUT = 2
} cli_phase;
/* The exit status for @st (main.c holds the one table). */
int cli_exit_status(cr_status st, cli_phase phase);
/* Make a context, load the config, apply --task-type/--task-id/--rpc-layer. */
int cli_open(const cli_opts *o, cr_context **ctx);
/* cli_open, then resolve; *@ctx and *@res are the caller's to free, also
 * after a failure. */
int cli_resolve(const cli_opts *o, cr_context **ctx, cr_result **res);
/* "--name VALUE" / "--name=VALUE" at argv[*i]: true when argv[*i] is that
 * option (*@val NULL when its value is missing). */
bool cli_opt_value(int argc, char **argv, int *i, const char *name, const char **val);
/* "key=value" for cr_result_format's options; free(). */
char *cli_format_option(const char *key, const char *value);
/* Parse a non-negative task id; false (with a message) when invalid. */
bool cli_parse_task_id(const char *text, int64_t *out);

/* exec: clear FD_CLOEXEC on the result's passed descriptors (just before
 * execvp); report a failed execvp and give its exit status (127, 126). */
void cli_exec_keep_fds(const cr_result *res);
int cli_exec_failed(const char *program, int error);
/* exec --supervise: run @argv as a child in its own process group, tell
 * the resolvers, forward signals; the child's exit status (128+N for a
 * signal). The default stop timeout is 10 seconds. */
#define CLI_STOP_TIMEOUT 10.0
int cli_supervise(cr_context *ctx, cr_result *res, char **argv, double stop_timeout);

int cli_cmd_resolve(const cli_opts *o, int argc, char **argv);
int cli_cmd_master(const cli_opts *o, int argc, char **argv);
int cli_cmd_accelerators(const cli_opts *o, int argc, char **argv);
int cli_cmd_exec(const cli_opts *o, int argc, char **argv);
int cli_cmd_explain(const cli_opts *o, int argc, char **argv);
int cli_cmd_plugins(const cli_opts *o, int argc, char **argv);
int cli_cmd_check_config(const cli_opts *o, int argc, char **argv);
/* `hostlist` needs no config: it gets the raw arguments. */
int cli_cmd_hostlist(int argc, char **argv);

#endif /* CR_CLI_COMMANDS_H */
