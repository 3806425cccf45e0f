/* SPDX-License-Identifier: MIT */
/*
 * io-real.c - the real side of the I/O seam (io.h): the process
 * environment, the file system, the HTTP module, the monotonic clock, real
 * sleeps and real children. Also the file helpers a test table shares.
 */
#include <errno.h>

#include <glib.h>

#include "host/io.h"
#include "values/values-private.h"

cr_status io_read_path(const char *real_path, const char *path, size_t max, char **data,
		       size_t *len, cr_error *err)
{
	int errnum;

	if (max == 0)
		max = 64u << 20;
	switch (file_read_checked(real_path, max, data, len, &errnum)) {
	case FILE_READ_OK:
		return CR_OK;
	case FILE_READ_NOT_REGULAR:
		return error_set(err, CR_ERR_IO, "cannot read %s: not a regular file", path);
	case FILE_READ_TOO_BIG:
		return error_set(err, CR_ERR_IO, "cannot read %s: larger than %zu bytes", path,
				 max);
	case FILE_READ_ERRNO:
	default:
		return error_set(err, errnum == ENOENT ? CR_ERR_NOT_FOUND : CR_ERR_IO,
				 "cannot read %s: %s", path, g_strerror(errnum));
	}
}

cr_status io_list_path(const char *real_path, const char *path, char ***names, cr_error *err)
{
	GError *gerr = NULL;
	GDir *d = g_dir_open(real_path, 0, &gerr);
	GPtrArray *list;
	const char *n;
	cr_status st;

	*names = NULL;
	if (d == NULL) {
		st = error_set(err,
			       g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_NOENT)
				       ? CR_ERR_NOT_FOUND
				       : CR_ERR_IO,
			       "cannot list %s: %s", path, gerr->message);
		g_error_free(gerr);
		return st;
	}
	list = g_ptr_array_new();
	while ((n = g_dir_read_name(d)) != NULL)
		g_ptr_array_add(list, g_strdup(n));
	g_dir_close(d);
	g_ptr_array_sort(list, str_ptr_cmp);
	g_ptr_array_add(list, NULL);
	*names = (char **)g_ptr_array_free(list, FALSE);
	return CR_OK;
}

static const char *real_getenv(void *data, const char *name)
{
	(void)data;
	return g_getenv(name);
}

static cr_status real_read_file(void *data, const char *path, size_t max, char **buf, size_t *len,
				cr_error *err)
{
	(void)data;
	return io_read_path(path, path, max, buf, len, err);
}

static cr_status real_list_dir(void *data, const char *path, char ***names, cr_error *err)
{
	(void)data;
	return io_list_path(path, path, names, err);
}

static cr_status real_http(void *data, cr_plugin_ctx *pctx, const cr_http_request *req,
			   cr_http_response *reply, cr_error *err)
{
	(void)data;
	return http_transport(pctx, req, reply, err);
}

static int64_t real_now_ms(void *data)
{
	(void)data;
	return g_get_monotonic_time() / 1000;
}

static void real_sleep_ms(void *data, int64_t ms)
{
	(void)data;
	g_usleep((gulong)ms * 1000);
}

static cr_status real_spawn(void *data, const char *const *argv, const char *const *env,
			    int64_t timeout_ms, size_t output_cap, cr_spawn_result **out,
			    cr_error *err)
{
	(void)data;
	return io_spawn_real(argv, env, timeout_ms, output_cap, out, err);
}

static cr_status real_http_stream(void *data, cr_plugin_ctx *pctx, const cr_http_request *req,
				  int cancel_fd, cr_http_data_fn on_data, void *user_data,
				  cr_http_response *reply, cr_error *err)
{
	(void)data;
	return http_transport_stream(pctx, req, cancel_fd, on_data, user_data, reply, err);
}

static const io_ops real_ops = {
	.getenv = real_getenv,
	.read_file = real_read_file,
	.list_dir = real_list_dir,
	.http = real_http,
	.now_ms = real_now_ms,
	.sleep_ms = real_sleep_ms,
	.spawn = real_spawn,
	.http_stream = real_http_stream,
};

const io_ops *io_real(void)
{
	return &real_ops;
}
