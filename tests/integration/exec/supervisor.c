/* SPDX-License-Identifier: MIT */
/*
 * supervisor.c - a test resolver for `exec --supervise` and descriptor
 * passing. It resolves one task (worker 0 at `address`), and
 *  - with `events = "FILE"` appends one line per supervise event: "started
 *    (own group)" when the program leads its own process group, "running N",
 *    "exited STATUS";
 *  - with `stop_after = N` asks for the program to be stopped on the Nth
 *    RUNNING event (0: on STARTED), noting " (stop)" on that line, and logs
 *    no RUNNING line after it, so the file does not depend on timing;
 *  - with `fail = true` fails every supervise call;
 *  - with `pass_file = "FILE"` opens FILE and hands it to the program as
 *    `pass_env` (default CR_TEST_FD), closing its own descriptor at once.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include <cluster-resolver/plugin.h>

typedef struct sup_state {
	int64_t running;
	bool stopped;
} sup_state;

static cr_status sup_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	sup_state *s = calloc(1, sizeof(*s));

	(void)ctx;
	(void)config;
	if (s == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	*state = s;
	return CR_OK;
}

static void sup_destroy(void *state)
{
	free(state);
}

static cr_status sup_pass(cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	const char *path = cr_host->opt_string(ctx, "pass_file");
	cr_status st;
	int fd;

	if (path == NULL)
		return CR_OK;
	if (!CR_HOST_HAS(cr_host, result_pass_fd))
		return cr_host->error_set(err, CR_ERR_UNSUPPORTED,
					  "the host cannot pass descriptors");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cr_host->error_set(err, CR_ERR_IO, "cannot open %s", path);
	st = cr_host->result_pass_fd(b, fd, cr_host->opt_string(ctx, "pass_env"), err);
	close(fd);
	return st;
}

static cr_status sup_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	cr_status st;

	(void)state;
	st = cr_host->result_append_task(b, "worker", cr_host->opt_string(ctx, "address"), err);
	if (st == CR_OK)
		st = cr_host->result_set_task(b, "worker", 0, err);
	if (st == CR_OK)
		st = sup_pass(ctx, b, err);
	return st;
}

static void sup_note(cr_plugin_ctx *ctx, const char *line)
{
	const char *path = cr_host->opt_string(ctx, "events");
	FILE *f = path != NULL ? fopen(path, "a") : NULL;

	if (f == NULL)
		return;
	fputs(line, f);
	fclose(f);
}

static cr_status sup_supervise(void *state, cr_plugin_ctx *ctx, const cr_supervise_event *ev,
			       bool *stop, cr_error *err)
{
	sup_state *s = state;
	int64_t after = cr_host->opt_int(ctx, "stop_after");
	bool now = false;
	char line[64] = "";

	if (cr_host->opt_bool(ctx, "fail"))
		return cr_host->error_set(err, CR_ERR_BACKEND, "supervise fails on purpose");
	if (ev->phase == CR_SUPERVISE_STARTED) {
		now = after == 0;
		snprintf(line, sizeof(line), "started (%s group)\n",
			 getpgid((pid_t)ev->pid) == (pid_t)ev->pid ? "own" : "shared");
	} else if (ev->phase == CR_SUPERVISE_RUNNING && !s->stopped) {
		s->running++;
		now = s->running == after;
		snprintf(line, sizeof(line), "running %" PRId64 "%s\n", s->running,
			 now ? " (stop)" : "");
	} else if (ev->phase == CR_SUPERVISE_EXITED) {
		snprintf(line, sizeof(line), "exited %d\n", ev->exit_status);
	}
	if (line[0] != '\0')
		sup_note(ctx, line);
	if (now) {
		s->stopped = true;
		*stop = true;
	}
	return CR_OK;
}

/* clang-format off */
static const cr_option sup_options[] = {
	CR_OPTION("address", CR_OPT_STRING, "127.0.0.1:1", 0, "the one worker's address"),
	CR_OPTION("events", CR_OPT_STRING, NULL, 0, "file the supervise events are appended to"),
	CR_OPTION("stop_after", CR_OPT_INT, "-1", 0, "ask to stop on this RUNNING event (0: STARTED)"),
	CR_OPTION("fail", CR_OPT_BOOL, "false", 0, "fail every supervise call"),
	CR_OPTION("pass_file", CR_OPT_STRING, NULL, 0, "file to open and pass to the program"),
	CR_OPTION("pass_env", CR_OPT_STRING, "CR_TEST_FD", 0, "variable naming the passed descriptor"),
	CR_OPTIONS_END,
};
/* clang-format on */

static const cr_resolver_ops sup_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = sup_create,
	.destroy = sup_destroy,
	.resolve = sup_resolve,
	.supervise = sup_supervise,
};

static const cr_plugin_desc sup_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "supervisor",
	.version = "0.1-test",
	.description = "test plugin: supervise events and a passed descriptor",
	.options = sup_options,
	.option_size = sizeof(cr_option),
	.resolver = &sup_ops,
};

CR_PLUGIN_DEFINE(sup_desc)
