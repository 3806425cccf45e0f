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

#include <signal.h>
#include <sys/types.h>

#include <glib.h>

#include "common.h"

/*
 * A subcommand's options: its GOptionContext is made from this (the
 * global options join every command's), and so are `COMMAND --help` and
 * the shell completion.
 */
#define CLI_ARGS_AFTER_DASHDASH (-2) /* max_args: nothing before "--", a program after */
typedef struct cli_command {
	const char *name;                   /* "resolve", "hostlist expand" */
	const char *params;                 /* after the name in the usage line; NULL: none */
	const char *summary;                /* what it does */
	const char *examples;               /* "Examples:\n  ..." */
	const GOptionEntry *entries;        /* its own options; NULL: none */
	const GOptionEntry *format_entries; /* cli_format_entries or NULL */
	int max_args;                       /* positional arguments; -1: any number */
	/* For completion: the words its first argument may be (NULL: files or
	 * nothing) and, per option, the values it takes. */
	const char *const *words;
	bool plugin_names; /* its arguments are plugin names (from `plugins --json`) */
	const struct cli_value_words {
		const char *option; /* long name */
		const char *const *values;
	} * values;
} cli_command;

/* A command's entry point, and a line of main.c's table of them: main.c
 * dispatches through the table and hands it to `completion`, which asks
 * each of the other commands to describe itself. */
typedef int (*cli_command_fn)(const cli_opts *o, int argc, char **argv);
typedef struct cli_command_entry {
	const char *name;
	cli_command_fn fn;
} cli_command_entry;

/* The global options (options.c) and the value lists they complete from. */
extern const GOptionEntry cli_global_entries[];
extern const char *const cli_format_names[];
extern const char *const cli_var_format_names[];
extern const char *const cli_dialect_names[];
extern const char *const cli_rdzv_names[];
/* While completion.c asks the commands to describe themselves, cli_parse()
 * records the command in cli_describing and returns CLI_DESCRIBED. */
extern bool cli_describe_mode;
extern const cli_command *cli_describing;

/* Parse the global options before the command; *@argv then starts at the
 * command. false: stop with *@rc. */
bool cli_parse_globals(int *argc, char ***argv, cli_opts *o, int *rc);
/* Parse a command's options (and the global ones) from *@argv (argv[0]
 * is the command) into @cmd's entries and *@out (a copy of @in); *@argv
 * then holds the positional arguments. false: return *@rc (0 after
 * --help, 2 after a usage error, CLI_DESCRIBED while describing). */
bool cli_parse(const cli_command *cmd, const cli_opts *in, cli_opts *out, int *argc, char ***argv,
	       int *rc);
/* "unknown option '--fromat' (did you mean '--format'?); see
 * 'cluster-resolver resolve --help'" on stderr; @cmd NULL: a global one. */
void cli_unknown_option(const cli_command *cmd, const char *arg);
/* An option given at most once (a G_OPTION_ARG_STRING_ARRAY): false with
 * a message when it was given twice. */
bool cli_single_value(const char *command, const char *option, char **values, const char **out);
/* "torch, jax" -> { "torch", "jax" } (blanks around names dropped); NULL
 * with a message for an empty name. g_strfreev() it. */
char **cli_split_list(const char *command, const char *option, const char *text);

/* The format options of `resolve` and `exec` (format-args.c). */
typedef struct cli_format_args {
	char **format; /* every --format given */
	char *dialect, *jobs, *master_port, *port_range, *job_id, *rdzv, *ifname;
} cli_format_args;
extern cli_format_args cli_fmt;
extern const GOptionEntry cli_format_entries[];
extern const struct cli_value_words cli_format_value_words[];
/* exec's: only the formats that set variables, no --dialect. */
extern const GOptionEntry cli_exec_format_entries[];
extern const struct cli_value_words cli_exec_format_value_words[];
/* The --format list (default tf_config); false with a message when
 * --format was given twice, names an empty format, or a format option was
 * given that none of the listed formats takes (the message names those of
 * @accepted that do). g_strfreev(). */
bool cli_format_list(const char *command, const char *const *accepted, char ***formats);
/* "key=value" options for @format, one of @formats: each given option
 * the format takes (one that none of @formats takes goes to every one,
 * for the library to refuse); job_id defaults to $SLURM_JOB_ID. */
char **cli_format_options(const char *const *formats, const char *format);

/* Whether @format takes the option @key ("master_port"). */
bool cli_format_takes(const char *key, const char *format);

/* Whether @format lists the world's hosts (hosts, hostfile, horovod): for
 * those an empty world (CR_ERR_NOT_FOUND) is printed as nothing, with a
 * warning, and is no failure. */
bool cli_format_lists_hosts(const char *format);

/* exec, with or without --supervise (exec-supervise.c): clear FD_CLOEXEC
 * on the result's passed descriptors (just before execvp); report a failed
 * execvp and give its exit status (127, 126). */
void cli_exec_keep_fds(const cr_result *res);
int cli_exec_failed(const char *program, int error);
/* The variables exec gives the program for @res: those of each of
 * @formats (cr_result_env_vars), the resolvers' (cr_result_env) and one
 * per passed descriptor, appended to @pairs as name, value (g_strdup'd);
 * @port (NULL: none) is the master_port of the formats that take one.
 * CLI_OK, or the exit status after a message. */
int cli_exec_env(const cr_result *res, const char *const *formats, const char *port,
		 GPtrArray *pairs);
/* Start @argv as a child in its own process group (the terminal's
 * foreground group when @tty) with @envp (NULL: our environment) and the
 * signal mask @mask; SIGTERM reaches it if we die. The pid, or -1 (errno).
 * With @exec_errno, a failed exec is not reported by the child: *@exec_errno
 * is its errno (0: the exec succeeded), and the child exits 126 or 127. */
pid_t cli_program_start(const cr_result *res, char **argv, char **envp, const sigset_t *mask,
			bool tty, int *exec_errno);
/* The guard of the program's group if we are killed (exec-guard.c): start
 * it (a warning when it cannot be), name each program's group to it, end
 * it (it exits and is reaped). */
typedef struct cli_guard {
	int fd;
	pid_t pid;
} cli_guard;
void cli_guard_start(cli_guard *g, int64_t stop_timeout_ms);
void cli_guard_watch(const cli_guard *g, pid_t pgid);
void cli_guard_end(cli_guard *g);
/* After the program (leader of group @pgid) was reaped: SIGTERM to what
 * is left of its group, SIGKILL after @stop_timeout_ms, reaping all of it
 * (we are its subreaper). */
void cli_group_end(pid_t pgid, int64_t stop_timeout_ms, const char *program);
/* exec --supervise: run @argv as a child in its own process group, tell
 * the resolvers, forward signals; the child's exit status (128+N for a
 * signal). The default stop timeout is 10 seconds. */
#define CLI_STOP_TIMEOUT 10.0
int cli_supervise(cr_context *ctx, cr_result *res, char **argv, double stop_timeout);

/* exec --elastic (exec-elastic.c): run @argv supervised with the
 * variables of @formats for each generation of the cluster (the first
 * comes from cr_context_watch on @ctx), restarting it as the options say;
 * the program's final status, or 1 (too few tasks, a failed start). */
typedef struct cli_elastic_opts {
	int64_t min_tasks;      /* default 1 */
	int64_t max_tasks;      /* 0: no limit */
	double settle;          /* seconds, default 5 */
	int64_t max_restarts;   /* default 0 */
	double stop_timeout;    /* seconds, default CLI_STOP_TIMEOUT */
	double min_wait;        /* seconds, default 600 */
	double join_timeout;    /* seconds, default CLI_JOIN_TIMEOUT */
	double restart_backoff; /* seconds, the cap; default CLI_RESTART_BACKOFF */
} cli_elastic_opts;
/* The wait before a restart after a failure: 1 s, doubling with each
 * failure in a row, capped at --restart-backoff (default 30 s); a run of
 * CLI_BACKOFF_RESET_MS or more starts it again at 1 s. */
#define CLI_RESTART_BACKOFF 30.0
#define CLI_BACKOFF_RESET_MS (600 * 1000)
#define CLI_JOIN_TIMEOUT 600.0
int cli_elastic(cr_context *ctx, char **argv, const char *const *formats,
		const cli_elastic_opts *o);
/* What a generation's program gets (exec-generation.c): the tasks of
 * @res; the variables of @formats with this
 * membership's rendezvous port unless --master-port was given, torchrun's
 * elastic ones, CR_GENERATION_ID and CR_JOIN_TIMEOUT (NULL and *@rc the
 * exit status after a message); whether two such lists are equal; the
 * environment: @base, then @pairs, CR_GENERATION and CR_RESTART_COUNT
 * over it (g_strfreev()). */
size_t cli_result_tasks(const cr_result *res);
GPtrArray *cli_generation_vars(const cr_result *res, const char *const *formats,
			       const cli_elastic_opts *o, int *rc);
bool cli_pairs_equal(const GPtrArray *a, const GPtrArray *b);
/* The value of @name in @pairs (NULL: none). */
const char *cli_pairs_get(const GPtrArray *pairs, const char *name);
/* Whether the program can be given the first generation @res when it has
 * the tasks to run at all: a format that cannot write it ends the agent at
 * once (false, *@rc), as plain exec would, rather than after --settle. */
bool cli_generation_writable(const cr_result *res, const char *const *formats,
			     const cli_elastic_opts *o, int *rc);
char **cli_generation_envp(char **base, const GPtrArray *pairs, uint64_t gen, int64_t restarts);

int cli_cmd_resolve(const cli_opts *o, int argc, char **argv);
int cli_cmd_master(const cli_opts *o, int argc, char **argv);
int cli_cmd_accelerators(const cli_opts *o, int argc, char **argv);
int cli_cmd_exec(const cli_opts *o, int argc, char **argv);
int cli_cmd_explain(const cli_opts *o, int argc, char **argv);
int cli_cmd_plugins(const cli_opts *o, int argc, char **argv);
int cli_cmd_check_config(const cli_opts *o, int argc, char **argv);
int cli_cmd_hostlist(const cli_opts *o, int argc, char **argv);
int cli_cmd_reservation(const cli_opts *o, int argc, char **argv);
int cli_cmd_watch(const cli_opts *o, int argc, char **argv);
/* `completion bash|zsh`: the script for the commands of @table (@n lines). */
int cli_cmd_completion(const cli_opts *o, int argc, char **argv, const cli_command_entry *table,
		       size_t n);

#endif /* CR_CLI_COMMANDS_H */
