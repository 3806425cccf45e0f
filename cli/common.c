/* SPDX-License-Identifier: MIT */
/*
 * common.c - what every command shares, below all of them: the error line
 * on stderr, the one table from a library status to the exit status,
 * opening a context with the global options applied (and resolving it),
 * and the --task-id parser. It calls only the library.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL, *safe;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("cluster-resolver: out of memory\n", stderr);
		return;
	}
	/* Text from servers, plugins and arguments lands here: no byte of it
	 * may drive the terminal (an ESC sequence could rewrite what was
	 * printed), so every control character and stray byte is shown as
	 * \xNN. */
	safe = cr_text_escape(msg);
	fprintf(stderr, "cluster-resolver: %s\n", safe != NULL ? safe : "out of memory");
	cr_free(safe);
	free(msg);
}

/*
 * The one table from a library status to the exit status: 0 success,
 * 1 resolution failed, 2 usage or configuration error. A status means
 * something else in each phase: while the configuration is read, every
 * failure is a configuration error (a missing file is CR_ERR_NOT_FOUND);
 * while resolving, a bad value is a backend's (CR_ERR_INVALID_ARG from a
 * plugin fails the resolution); while printing, a bad value is the
 * caller's (an unknown format, a bad option: usage).
 */
static const struct {
	cr_status status;
	int exit_code[3]; /* CLI_PHASE_CONFIG, _RESOLVE, _OUTPUT */
} status_exits[] = {
	{ CR_OK, { CLI_OK, CLI_OK, CLI_OK } },
	{ CR_ERR_INVALID_ARG, { CLI_USAGE, CLI_FAIL, CLI_USAGE } },
	{ CR_ERR_CONFIG, { CLI_USAGE, CLI_USAGE, CLI_USAGE } },
	{ CR_ERR_ABI, { CLI_USAGE, CLI_USAGE, CLI_USAGE } },
	{ CR_ERR_PLUGIN, { CLI_USAGE, CLI_USAGE, CLI_USAGE } },
};

int cli_exit_status(cr_status st, cli_phase phase)
{
	for (size_t i = 0; i < sizeof(status_exits) / sizeof(status_exits[0]); i++)
		if (status_exits[i].status == st)
			return status_exits[i].exit_code[phase];
	return phase == CLI_PHASE_CONFIG ? CLI_USAGE : CLI_FAIL;
}

bool cli_parse_task_id(const char *text, int64_t *out)
{
	char *end = NULL;
	long long v;

	/* Digits only: strtoll alone takes "-0", "+1" and leading blanks. */
	errno = 0;
	v = strtoll(text, &end, 10);
	if (text[0] == '\0' || text[strspn(text, "0123456789")] != '\0' || errno != 0 ||
	    v > 2147483647) {
		cli_error("invalid task id \"%s\": expected an integer 0..2147483647", text);
		return false;
	}
	*out = v;
	return true;
}

bool cli_parse_seconds(const char *command, const char *what, const char *text, double *out)
{
	size_t whole, frac = 0;
	char *end = NULL;
	double v = -1;

	whole = strspn(text, "0123456789");
	if (text[whole] == '.')
		frac = strspn(text + whole + 1, "0123456789") + 1;
	if ((whole > 0 || frac > 1) && text[whole + frac] == '\0') {
		errno = 0;
		v = strtod(text, &end);
		if (errno != 0 || *end != '\0')
			v = -1;
	}
	if (!(v >= 0 && v <= 86400)) {
		cli_error("%s: invalid %s \"%s\": expected seconds 0..86400", command, what, text);
		return false;
	}
	*out = v;
	return true;
}

int cli_open(const cli_opts *o, cr_context **out)
{
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = cr_context_new(&err);
	cr_status st;

	*out = NULL;
	cr_context_set_log_level(ctx, o->verbose >= 2   ? CR_LOG_DEBUG
				      : o->verbose == 1 ? CR_LOG_INFO
							: CR_LOG_WARNING);
	st = cr_context_load_config(ctx, o->config, &err);
	if (st == CR_OK && (o->task_type != NULL || o->task_id >= 0))
		st = cr_context_set_task(ctx, o->task_type, o->task_id, &err);
	if (st == CR_OK && o->rpc_layer != NULL)
		st = cr_context_set_rpc_layer(ctx, o->rpc_layer, &err);
	if (st != CR_OK) {
		cli_error("%s", err.message);
		cr_context_free(ctx);
		return cli_exit_status(st, CLI_PHASE_CONFIG);
	}
	*out = ctx;
	return CLI_OK;
}

int cli_resolve(const cli_opts *o, cr_context **ctx, cr_result **res)
{
	cr_error err = CR_ERROR_INIT;
	int rc = cli_open(o, ctx);
	cr_status st;

	*res = NULL;
	if (rc != CLI_OK)
		return rc;
	st = cr_context_resolve(*ctx, res, &err);
	if (st != CR_OK) {
		cli_error("%s", err.message);
		return cli_exit_status(st, CLI_PHASE_RESOLVE);
	}
	return CLI_OK;
}

/* Optimal string alignment distance of @a and @b (both at most 64 bytes). */
static size_t edit_distance(const char *a, size_t n, const char *b, size_t m)
{
	size_t d[66][66];

	for (size_t i = 0; i <= n; i++)
		for (size_t j = 0; j <= m; j++) {
			size_t best = i == 0   ? j
				      : j == 0 ? i
					       : d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (i > 0 && j > 0 && d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (i > 0 && j > 0 && d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m];
}

const char *cli_nearest(const char *word, const char *const *names)
{
	size_t n = strlen(word), best = 3;
	const char *found = NULL;

	if (n > 64)
		return NULL;
	for (size_t k = 0; names[k] != NULL; k++) {
		size_t m = strlen(names[k]), d;

		if (m > 64)
			continue;
		d = edit_distance(word, n, names[k], m);
		if (d < best && d < n) {
			best = d;
			found = names[k];
		}
	}
	return found;
}
