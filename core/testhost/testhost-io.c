/* SPDX-License-Identifier: MIT */
/*
 * testhost-io.c - cr-testhost's side of the I/O seam (io.h): the only way
 * a plugin under test reaches anything. The environment is the test's
 * table (the process's only when inherited), files are read under the
 * test's root, HTTP (streamed too) and spawn answer from the scripts, and the clock is
 * the testhost's own: a sleep advances it at once.
 */
#include <string.h>

#include "testhost-private.h"

static const char *th_getenv(void *data, const char *name)
{
	cr_testhost *th = data;
	gpointer value;

	if (g_hash_table_lookup_extended(th->env, name, NULL, &value))
		return value;
	return th->inherit_env ? g_getenv(name) : NULL;
}

/* @path under the root; the real path when the root is "/". */
static char *rooted(const cr_testhost *th, const char *path)
{
	if (th->file_root == NULL)
		return g_strdup(path);
	return g_build_filename(th->file_root, path, NULL);
}

static cr_status th_read_file(void *data, const char *path, size_t max, char **buf, size_t *len,
			      cr_error *err)
{
	char *real = rooted(data, path);
	cr_status st = io_read_path(real, path, max, buf, len, err);

	g_free(real);
	return st;
}

static cr_status th_list_dir(void *data, const char *path, char ***names, cr_error *err)
{
	char *real = rooted(data, path);
	cr_status st = io_list_path(real, path, names, err);

	g_free(real);
	return st;
}

static cr_status th_http(void *data, cr_plugin_ctx *pctx, const cr_http_request *req,
			 cr_http_response *reply, cr_error *err)
{
	(void)pctx;
	return th_http_answer(data, req, reply, err);
}

static int64_t th_now_ms(void *data)
{
	return ((cr_testhost *)data)->clock_ms;
}

static void th_sleep_ms(void *data, int64_t ms)
{
	((cr_testhost *)data)->clock_ms += ms;
}

static cr_status th_spawn(void *data, const char *const *argv, const char *const *env,
			  int64_t timeout_ms, size_t output_cap, cr_spawn_result **out,
			  cr_error *err)
{
	return th_spawn_answer(data, argv, env, timeout_ms, output_cap, out, err);
}

static cr_status th_http_stream(void *data, cr_plugin_ctx *pctx, const cr_http_request *req,
				int cancel_fd, cr_http_data_fn on_data, void *user_data,
				cr_http_response *reply, cr_error *err)
{
	(void)pctx;
	return th_http_stream_answer(data, req, cancel_fd, on_data, user_data, reply, err);
}

static const io_ops th_io = {
	.getenv = th_getenv,
	.read_file = th_read_file,
	.list_dir = th_list_dir,
	.http = th_http,
	.now_ms = th_now_ms,
	.sleep_ms = th_sleep_ms,
	.spawn = th_spawn,
	.http_stream = th_http_stream,
};

void th_io_init(cr_testhost *th)
{
	th->env = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	th->clock_ms = TH_CLOCK_START_MS;
	ctx_set_io(th->ctx, &th_io, th);
}

void th_io_free(cr_testhost *th)
{
	g_hash_table_unref(th->env);
}
