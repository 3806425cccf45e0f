/* SPDX-License-Identifier: MIT */
/*
 * cmd-watch.c - `watch [--format F] [--count N] [--timeout S]`: print the
 * current cluster, then each new generation (cr_context_watch), until
 * --count generations were printed, --timeout seconds passed, or SIGINT /
 * SIGTERM (all exit 0; a signal during a resolution interrupts it:
 * cr_context_interrupt). json and tf_config print one line a generation
 * with "generation": N added (JSON Lines); the other text formats print
 * their text followed by a blank line. A resolution that fails past the
 * resolvers' retries ends it as `resolve` would (exit 1, the usual line).
 *
 * A later generation that a format cannot write (this task left the world
 * of `torch`: the warning says so) is a warning, and the watch goes on:
 * the next generation may bring it back. The first one fails as `resolve`
 * would.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"

static char *watch_count_text, *watch_timeout_text;
static const GOptionEntry watch_entries[] = {
	{ "count", 'n', 0, G_OPTION_ARG_STRING, &watch_count_text,
	  "stop after N generations (the first included)", "N" },
	{ "timeout", 0, 0, G_OPTION_ARG_STRING, &watch_timeout_text,
	  "stop after S seconds (default: never)", "S" },
	G_OPTION_ENTRY_NULL
};
static const cli_command watch_cmd = {
	.name = "watch",
	.summary = "Print the cluster, then each new generation of it as the membership changes: "
		   "one JSON line each for json and tf_config (with \"generation\": N), else a "
		   "block ended by a blank line. SIGINT or SIGTERM ends it (exit 0).",
	.examples = "Examples:\n"
		    "  cluster-resolver watch --format json\n"
		    "  cluster-resolver watch --format hosts --count 2 --timeout 60\n"
		    "  # Horovod elastic reads the membership at each call of its script:\n"
		    "  horovodrun -np 8 --min-np 4 --host-discovery-script ./discover.sh "
		    "python train.py\n"
		    "  #   discover.sh: exec cluster-resolver resolve --format horovod\n",
	.entries = watch_entries,
	.format_entries = cli_format_entries,
	.max_args = 0,
	.values = cli_format_value_words,
};

/* The context the signal handler cancels (set while watching). */
static cr_context *volatile watch_ctx;
static volatile sig_atomic_t watch_stop;

/* SIGINT, SIGTERM: the watch ends in every phase, also in the middle of
 * a resolution (a request waiting for its answer or a Retry-After):
 * cr_context_interrupt ends every wait of the host at once. */
static void watch_on_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
	if (watch_ctx != NULL)
		cr_context_interrupt(watch_ctx);
}

static int64_t watch_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A count 1..2^31-1, or seconds 0..86400 (a decimal fraction allowed). */
static bool watch_parse_count(const char *text, int64_t *out)
{
	char *end = NULL;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (text[0] == '\0' || text[strspn(text, "0123456789")] != '\0' || errno != 0 || v < 1 ||
	    v > 2147483647) {
		cli_error("watch: invalid count \"%s\": expected an integer 1..2147483647", text);
		return false;
	}
	*out = v;
	return true;
}

static bool watch_parse_seconds(const char *text, int64_t *ms)
{
	double v;

	if (!cli_parse_seconds("watch", "timeout", text, &v))
		return false;
	*ms = (int64_t)(v * 1000);
	return true;
}

/* Whether @format prints one JSON object a result. */
static bool watch_json_lines(const char *format)
{
	return strcmp(format, "json") == 0 || strcmp(format, "tf_config") == 0;
}

/* Print generation @gen of @res; CLI_OK, or the exit status of a format
 * that failed (which only ends the watch on the first generation).
 * @had_task: the first generation had this process's task. */
static int watch_print(const cr_result *res, const char *format, uint64_t gen, bool had_task)
{
	const char *const formats[] = { format, NULL };
	char **opts = cli_format_options(formats, format);
	cr_error err = CR_ERROR_INIT;
	char *text = NULL;
	size_t len = 0;
	cr_status st = cr_result_format(res, format, (const char *const *)opts, &text, &len, &err);

	g_strfreev(opts);
	if (st == CR_ERR_NOT_FOUND && cli_format_lists_hosts(format)) {
		cli_error("warning: %s; printing nothing", err.message);
		len = 0;
	} else if (st != CR_OK && gen > 1 && had_task && cr_result_task_id(res) < 0) {
		/* Not "give --task-type": they were given, the task left. */
		cli_error("warning: generation %llu: this task is no longer in the cluster; "
			  "format '%s' has nothing to print for it",
			  (unsigned long long)gen, format);
		cr_free(text);
		return CLI_OK;
	} else if (st != CR_OK && gen > 1) {
		cli_error("warning: generation %llu: %s", (unsigned long long)gen, err.message);
		cr_free(text);
		return CLI_OK;
	} else if (st != CR_OK) {
		cli_error("%s", err.message);
		return cli_exit_status(st, CLI_PHASE_OUTPUT);
	}
	if (watch_json_lines(format)) {
		/* "{...}\n" -> "{..., "generation": N}\n" */
		size_t end = len;

		while (end > 0 && text[end - 1] == '\n')
			end--;
		if (end > 0 && text[end - 1] == '}')
			end--;
		printf("%.*s%s\"generation\": %llu}\n", (int)end, text, end > 1 ? ", " : "",
		       (unsigned long long)gen);
	} else {
		fwrite(text != NULL ? text : "", 1, len, stdout);
		putchar('\n');
	}
	cr_free(text);
	return fflush(stdout) == 0 ? CLI_OK : CLI_FAIL;
}

int cli_cmd_watch(const cli_opts *in, int argc, char **argv)
{
	cli_opts o;
	cr_context *ctx = NULL;
	char **formats = NULL;
	int64_t count = -1, timeout_ms = -1, until = -1;
	bool had_task = false;
	struct sigaction sa = { .sa_handler = watch_on_signal }, old_int, old_term;
	int rc;

	if (!cli_parse(&watch_cmd, in, &o, &argc, &argv, &rc))
		return rc;
	if ((watch_count_text != NULL && !watch_parse_count(watch_count_text, &count)) ||
	    (watch_timeout_text != NULL && !watch_parse_seconds(watch_timeout_text, &timeout_ms)))
		return CLI_USAGE;
	if (!cli_format_list("watch", cli_format_names, &formats))
		return CLI_USAGE;
	if (formats[1] != NULL || strcmp(formats[0], "clusterdef") == 0) {
		cli_error("watch: give one text format (%s)",
			  formats[1] != NULL
				  ? "a list cannot be told apart generation by generation"
				  : "clusterdef is binary");
		g_strfreev(formats);
		return CLI_USAGE;
	}
	rc = cli_open(&o, &ctx);
	if (rc != CLI_OK) {
		g_strfreev(formats);
		return rc;
	}
	watch_ctx = ctx;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (timeout_ms >= 0)
		until = watch_now_ms() + timeout_ms;
	for (int64_t printed = 0; rc == CLI_OK && !watch_stop && printed != count;) {
		cr_error err = CR_ERROR_INIT;
		cr_result *res = NULL;
		uint64_t gen = 0;
		int64_t left = until < 0 ? -1 : until - watch_now_ms();
		cr_status st;

		if (until >= 0 && left <= 0)
			break;
		st = cr_context_watch(ctx, left, &res, &gen, &err);
		if (st != CR_OK && watch_stop) {
			break; /* cut short by the signal: the exit 0 it asks for */
		} else if (st != CR_OK) {
			cli_error("%s", err.message);
			rc = cli_exit_status(st, CLI_PHASE_RESOLVE);
		} else if (res != NULL) {
			had_task = had_task || (gen == 1 && cr_result_task_id(res) >= 0);
			rc = watch_print(res, formats[0], gen, had_task);
			printed++;
		} else if (until < 0 && !watch_stop) {
			continue; /* no timeout asked: nothing ends it but a signal */
		} else {
			break;
		}
		cr_result_free(res);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	watch_ctx = NULL;
	g_strfreev(formats);
	cr_context_free(ctx);
	return rc;
}
