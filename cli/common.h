/* SPDX-License-Identifier: MIT */
/*
 * common.h - the helpers every command (and the reservation server) uses,
 * in common.c: the exit statuses, the global options, the error line, the
 * status-to-exit table, opening and resolving a context.
 */
#ifndef CR_CLI_COMMON_H
#define CR_CLI_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include <cluster-resolver/cluster-resolver.h>

enum {
	CLI_OK = 0,
	CLI_FAIL = 1,
	CLI_USAGE = 2,
	/* Not an exit status: the command was only described (completion.c). */
	CLI_DESCRIBED = -100
};

/* Options every command understands (parsed by options.c, before and
 * after the command). */
typedef struct cli_opts {
	const char *config;
	const char *task_type;
	int64_t task_id; /* -1 = not given */
	const char *rpc_layer;
	int verbose;
} cli_opts;

/* Print "cluster-resolver: MESSAGE" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where a library call failed: reading the configuration, resolving, or
 * printing the result (formats, variables, master). */
typedef enum {
	CLI_PHASE_CONFIG = 0,
	CLI_PHASE_RESOLVE = 1,
	CLI_PHASE_OUTPUT = 2
} cli_phase;
/* The exit status for @st (the one table). */
int cli_exit_status(cr_status st, cli_phase phase);
/* Make a context, load the config, apply --task-type/--task-id/--rpc-layer. */
int cli_open(const cli_opts *o, cr_context **ctx);
/* cli_open, then resolve; *@ctx and *@res are the caller's to free, also
 * after a failure. */
int cli_resolve(const cli_opts *o, cr_context **ctx, cr_result **res);
/* The name of @names (NULL-ended) within two edits (insert, delete,
 * substitute, swap of neighbours) of @word, as git suggests one; NULL when
 * none is, or when @word is too short for a guess to mean anything. */
const char *cli_nearest(const char *word, const char *const *names);
/* Seconds 0..86400 for @command's @what ("stop timeout"), written in
 * decimal (DIGITS, DIGITS.DIGITS, .DIGITS: no sign, blank, exponent,
 * hexadecimal, "inf" or "nan", which strtod alone would take); false with
 * a message naming both when invalid. */
bool cli_parse_seconds(const char *command, const char *what, const char *text, double *out);
/* Parse a non-negative task id; false (with a message) when invalid. */
bool cli_parse_task_id(const char *text, int64_t *out);

#endif /* CR_CLI_COMMON_H */
