/* SPDX-License-Identifier: MIT */
/*
 * main.c - `cluster-resolver`: global options and dispatch. Results go to
 * stdout, diagnostics to stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const char usage_text[] =
	"usage: cluster-resolver [OPTIONS] COMMAND [ARGS]\n"
	"\n"
	"Commands:\n"
	"  resolve [--format F] [--dialect D] [--jobs J]  print the cluster: tf_config, json,\n"
	"                                clusterdef, env, torch, torchrun, jax, hostfile, "
	"horovod,\n"
	"                                hosts\n"
	"  master                        print the master URL of this (or the given) task\n"
	"  accelerators [--json]         print this task's accelerator counts\n"
	"  exec [--format F,...] [--jobs J] -- PROGRAM [ARGS]  run PROGRAM with the cluster in its "
	"env\n"
	"       [--supervise [--stop-timeout S]]  ... as a child: signals forwarded, resolvers "
	"told\n"
	"  explain [--json]              why the cluster came out as it did: each resolver's\n"
	"                                verdict, reason and facts, then the merged result\n"
	"  plugins [--json] [NAME...]    list installed plugins, their ABI and options\n"
	"  check-config [FILE]           validate a configuration file\n"
	"  hostlist expand EXPR | compress   Slurm hostlist tools\n"
	"  reservation serve|plan ...    TensorFlowOnSpark's cluster formation: the server\n"
	"                                executors register with, and its template\n"
	"  completion bash|zsh           print the shell completion script\n"
	"\n"
	"`cluster-resolver COMMAND --help` shows a command's options and examples.\n"
	"\n"
	"Options (before or after COMMAND):\n"
	"  -c, --config=FILE     configuration file (default: $CLUSTER_RESOLVER_CONFIG,\n"
	"                        else /etc/cluster-resolver/cluster-resolver.conf, else auto)\n"
	"  --task-type T         override this process's task type\n"
	"  --task-id N           override this process's task id\n"
	"  --rpc-layer R         override the rpc layer (\"\" for none)\n"
	"  -v, --verbose         more diagnostics (-vv: debug)\n"
	"  -h, --help            this text\n"
	"  --version             print the version\n"
	"\n"
	"Exit status: 0 success, 1 resolution failed, 2 usage or configuration error.\n";

static int cmd_completion(const cli_opts *o, int argc, char **argv);

static const cli_command_entry commands[] = {
	{ "resolve", cli_cmd_resolve },           { "master", cli_cmd_master },
	{ "accelerators", cli_cmd_accelerators }, { "exec", cli_cmd_exec },
	{ "explain", cli_cmd_explain },           { "plugins", cli_cmd_plugins },
	{ "check-config", cli_cmd_check_config }, { "hostlist", cli_cmd_hostlist },
	{ "completion", cmd_completion },         { "reservation", cli_cmd_reservation },
};

/* `completion` is made from the other commands: it is given this table. */
static int cmd_completion(const cli_opts *o, int argc, char **argv)
{
	return cli_cmd_completion(o, argc, argv, commands, sizeof(commands) / sizeof(commands[0]));
}

/*
 * Everything a command printed must reach stdout: a full disk, a closed
 * descriptor or a failed close is an error (exit 1), never a quiet success.
 * The only exit of every command but `exec` (which never returns) passes
 * here; a command that already failed keeps its own status.
 */
static int finish_stdout(int rc)
{
	int failed = ferror(stdout);
	int saved = errno;

	if (fflush(stdout) != 0) {
		failed = 1;
		saved = errno;
	}
	if (fclose(stdout) != 0 && !failed) {
		failed = 1;
		saved = errno;
	}
	if (!failed)
		return rc;
	cli_error("write error: %s", strerror(saved != 0 ? saved : EIO));
	return rc == CLI_OK ? CLI_FAIL : rc;
}

/* The command within two edits of @name (completion is never meant). */
static const char *nearest_command(const char *name)
{
	const char *names[sizeof(commands) / sizeof(commands[0]) + 1];
	size_t n = 0;

	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
		if (strcmp(commands[k].name, "completion") != 0)
			names[n++] = commands[k].name;
	names[n] = NULL;
	return cli_nearest(name, names);
}

int main(int argc, char **argv)
{
	cli_opts o = { .task_id = -1 };
	int rc = CLI_USAGE;
	const char *cmd;

	if (!cli_parse_globals(&argc, &argv, &o, &rc))
		return finish_stdout(rc);
	cmd = argc > 1 ? argv[1] : NULL;
	/* `help COMMAND` is `COMMAND --help`. */
	if (cmd != NULL && strcmp(cmd, "help") == 0 && argc == 3) {
		char *help_argv[] = { argv[2], (char *)"--help", NULL };

		for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
			if (strcmp(argv[2], commands[k].name) == 0)
				return finish_stdout(commands[k].fn(&o, 2, help_argv));
		cmd = argv[2];
		goto unknown;
	}
	if (cmd == NULL || strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
	    strcmp(cmd, "help") == 0) {
		fputs(usage_text, cmd == NULL ? stderr : stdout);
		return finish_stdout(cmd == NULL ? CLI_USAGE : CLI_OK);
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("cluster-resolver %s (plugin ABI %d.%d)\n", cr_version(), CR_ABI_MAJOR,
		       CR_ABI_MINOR);
		return finish_stdout(CLI_OK);
	}
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
		if (strcmp(cmd, commands[k].name) == 0)
			return finish_stdout(commands[k].fn(&o, argc - 1, argv + 1));
unknown:
	if (cmd[0] == '-') {
		cli_unknown_option(NULL, cmd);
	} else {
		const char *near = nearest_command(cmd);

		if (near != NULL)
			cli_error("unknown command '%s' (did you mean '%s'?)", cmd, near);
		else
			cli_error("unknown command '%s'; see 'cluster-resolver --help'", cmd);
	}
	return finish_stdout(rc);
}
