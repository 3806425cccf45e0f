/* SPDX-License-Identifier: MIT */
/*
 * watchy.c - a resolver for the tests of cr_context_watch: the tasks of one
 * file, `job address` a line, in file order. Its watch op (left out when
 * built with WATCHY_POLLED, so that the host polls it) answers "changed"
 * when the file is gone or its size or modification time differs from
 * what the last resolve read, and watches the host's cancel descriptor meanwhile.
 * With `record`, each watch call first appends to that file how long the
 * host gave it (its deadline less the host's clock now, in ms); its first
 * `quick` calls then answer "unchanged" at once, so the host calls it again
 * (the test of the calls' jitter). With `late`, a call that the host stops
 * looks at the file once more and, if it changed, answers "changed" and
 * takes the change as seen, as a plugin following a stream does when an
 * event arrives with the stop (the test of the change kept across rounds).
 */
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cluster-resolver/plugin.h>

#ifdef WATCHY_POLLED
#define WATCHY_NAME "polly"
#else
#define WATCHY_NAME "watchy"
#endif

typedef struct watchy {
	const char *file;
	const char *record;
	int64_t quick; /* calls left that answer at once */
	bool late;     /* a stopped call still reports a change, once */
	struct stat seen;
} watchy;

static cr_status w_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	watchy *w = calloc(1, sizeof(*w));

	(void)config;
	(void)err;
	w->file = cr_host->opt_string(ctx, "file");
	w->record = cr_host->opt_string(ctx, "record");
	w->quick = cr_host->opt_int(ctx, "quick");
	w->late = cr_host->opt_bool(ctx, "late");
	*state = w;
	return CR_OK;
}

static void w_destroy(void *state)
{
	free(state);
}

static cr_status w_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	watchy *w = state;
	char *text = NULL, *line, *save = NULL;
	size_t len;
	cr_status st;

	stat(w->file, &w->seen);
	st = cr_host->read_file(ctx, w->file, 0, &text, &len, err);
	if (st != CR_OK)
		return st;
	for (line = strtok_r(text, "\n", &save); line != NULL && st == CR_OK;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (sp == NULL)
			continue;
		*sp = '\0';
		st = cr_host->result_append_task(b, line, sp + 1, err);
	}
	cr_host->free(text);
	return st;
}

#ifndef WATCHY_POLLED
static cr_status w_watch(void *state, cr_plugin_ctx *ctx, int64_t deadline_ms, bool *changed,
			 cr_error *err)
{
	watchy *w = state;
	struct pollfd p = { .fd = cr_host->watch_cancel_fd(ctx), .events = POLLIN };

	(void)err;
	*changed = false;
	if (w->record != NULL) {
		FILE *f = fopen(w->record, "a");

		if (f != NULL) {
			fprintf(f, "%lld\n", (long long)(deadline_ms - cr_host->now_ms(ctx)));
			fclose(f);
		}
	}
	if (w->quick > 0) {
		w->quick--;
		return CR_OK;
	}
	while (cr_host->now_ms(ctx) < deadline_ms) {
		bool stopped = poll(&p, 1, 10) > 0 || cr_host->watch_cancelled(ctx);
		struct stat now;

		if (stopped && !w->late)
			return CR_OK;
		if (stat(w->file, &now) != 0 || now.st_size != w->seen.st_size ||
		    now.st_mtim.tv_sec != w->seen.st_mtim.tv_sec ||
		    now.st_mtim.tv_nsec != w->seen.st_mtim.tv_nsec) {
			*changed = true;
			if (stopped)
				w->seen = now; /* the cursor is past it now */
			return CR_OK;
		}
		if (stopped)
			return CR_OK;
	}
	return CR_OK;
}
#endif

static const cr_resolver_ops w_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = w_create,
	.destroy = w_destroy,
	.resolve = w_resolve,
#ifndef WATCHY_POLLED
	.watch = w_watch,
#endif
};

static const cr_option w_options[] = {
	CR_OPTION("file", CR_OPT_STRING, NULL, CR_OPT_REQUIRED, "the tasks, `job address` a line"),
	CR_OPTION("record", CR_OPT_STRING, NULL, 0, "append each watch call's time (ms) here"),
	CR_OPTION_RANGE("quick", CR_OPT_INT, "0", 0, "watch calls that answer at once", 0, 100000),
	CR_OPTION("late", CR_OPT_BOOL, "false", 0,
		  "a stopped watch call still reports a change, and takes it as seen"),
	CR_OPTIONS_END,
};

static const cr_plugin_desc w_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = WATCHY_NAME,
	.version = "1",
	.description = "tasks of a file, for the watch tests",
	.options = w_options,
	.option_size = sizeof(cr_option),
	.resolver = &w_ops,
	.watch_interval_s = 5,
};

CR_PLUGIN_DEFINE(w_desc)
