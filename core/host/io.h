/* SPDX-License-Identifier: MIT */
/*
 * io.h - the I/O seam: every way a context reaches the outside world
 * (environment, files, HTTP, clock and sleep, child processes) is one
 * table of functions on the context. io-real.c is the real world;
 * cr-testhost installs its own table, so no test branch lives anywhere
 * else. Part of the plugin layer; never installed.
 */
#ifndef CR_IO_H
#define CR_IO_H

#include <glib.h>

#include <cluster-resolver/plugin.h>

/* An HTTP answer, filled by the transport (or a test's script). */
struct cr_http_response {
	long status;
	GString *body;
	GPtrArray *headers; /* "name", "value", ... (owned) */
	size_t max_body;
	uint64_t announced; /* the Content-Length of the answer being read, 0: none */
	bool too_big;
	struct http_pool *pool; /* where the body goes back when freed (http.c) */
};

/*
 * io_ops: the seam. @data is what was installed with the table
 * (ctx_set_io(); NULL for io_real()); every function reports failures
 * with the statuses of the host slot it serves.
 *   getenv:    a variable, or NULL. Borrowed until the next call.
 *   read_file, list_dir: as host->read_file / host->list_dir; messages
 *              name @path as the plugin gave it.
 *   http:      fill @reply (status, headers, body) for @req, already
 *              checked; @pctx is the calling instance (its connections).
 *   http_stream: as http, but a 2xx answer's body goes to @on_data piece
 *              by piece as it arrives (@reply's body stays empty) until
 *              the answer ends, @on_data returns false, @cancel_fd (-1:
 *              none) becomes readable (POLLIN; checked at least every
 *              100 ms) or @req's timeout_ms passes (0: none); an answer
 *              that is not 2xx is kept whole in @reply instead. Stopping
 *              early is CR_OK; the connection is closed, never reused.
 *   now_ms:    monotonic milliseconds.
 *   sleep_ms:  wait (or let the clock advance) @ms > 0 milliseconds.
 *   spawn:     as host->spawn, arguments already checked.
 */
typedef struct io_ops {
	const char *(*getenv)(void *data, const char *name);
	cr_status (*read_file)(void *data, const char *path, size_t max, char **buf, size_t *len,
			       cr_error *err);
	cr_status (*list_dir)(void *data, const char *path, char ***names, cr_error *err);
	cr_status (*http)(void *data, cr_plugin_ctx *pctx, const cr_http_request *req,
			  cr_http_response *reply, cr_error *err);
	int64_t (*now_ms)(void *data);
	void (*sleep_ms)(void *data, int64_t ms);
	cr_status (*spawn)(void *data, const char *const *argv, const char *const *env,
			   int64_t timeout_ms, size_t output_cap, cr_spawn_result **out,
			   cr_error *err);
	cr_status (*http_stream)(void *data, cr_plugin_ctx *pctx, const cr_http_request *req,
				 int cancel_fd, cr_http_data_fn on_data, void *user_data,
				 cr_http_response *reply, cr_error *err);
} io_ops;

/* The real world (io-real.c); its @data is unused. */
const io_ops *io_real(void);

/*
 * file-read.c: read @path whole, at most @max bytes, through the one
 * checked path (non-blocking open, fstat: a regular file only, the cap on
 * what is read). @data (transfer full, NUL-terminated) on FILE_READ_OK;
 * @errnum set on FILE_READ_ERRNO (EISDIR for a directory). The caller
 * words the message.
 */
typedef enum file_read_outcome {
	FILE_READ_OK,
	FILE_READ_ERRNO,
	FILE_READ_NOT_REGULAR,
	FILE_READ_TOO_BIG,
} file_read_outcome;
file_read_outcome file_read_checked(const char *path, size_t max, char **data, size_t *len,
				    int *errnum);

/* Read @real_path whole (at most @max bytes, 0 = 64 MiB), naming @path in
 * messages; list the directory @real_path likewise. The real table uses
 * them on the path itself, a test table on its path under a root. A
 * FIFO, device, socket or directory is refused at once (file_read_checked). */
cr_status io_read_path(const char *real_path, const char *path, size_t max, char **buf, size_t *len,
		       cr_error *err);
cr_status io_list_path(const char *real_path, const char *path, char ***names, cr_error *err);

/* spawn.c: the real host->spawn, and what both it and a scripted spawn
 * say on a timeout or past the output cap. */
#define IO_SPAWN_DEFAULT_TIMEOUT_MS 10000
#define IO_SPAWN_DEFAULT_CAP ((size_t)1 << 20)
cr_status io_spawn_real(const char *const *argv, const char *const *env, int64_t timeout_ms,
			size_t output_cap, cr_spawn_result **out, cr_error *err);
cr_spawn_result *spawn_result_new(void);
void spawn_result_free(cr_spawn_result *result);
cr_status spawn_timeout_error(cr_error *err, const char *argv0, int64_t timeout_ms);
/* The 1-based number of the first @env entry that is not NAME=value, or 0
 * when all are (NULL @env too). */
size_t spawn_env_bad_entry(const char *const *env);
cr_status spawn_cap_error(cr_error *err, const char *argv0, size_t output_cap);

/* http.c: the real transport, the libcurl module loaded on first use. */
cr_status http_transport(cr_plugin_ctx *pctx, const cr_http_request *req, cr_http_response *reply,
			 cr_error *err);
/* http-transport.c: the real http_stream, through the same module. */
cr_status http_transport_stream(cr_plugin_ctx *pctx, const cr_http_request *req, int cancel_fd,
				cr_http_data_fn on_data, void *user_data, cr_http_response *reply,
				cr_error *err);

#endif /* CR_IO_H */
