/* SPDX-License-Identifier: MIT */
/*
 * testhost-private.h - the inside of a cr_testhost, shared by testhost.c
 * (plugin, environment, files, runs, logs), testhost-io.c (its I/O seam),
 * testhost-http.c (the HTTP script), testhost-spawn.c (the spawn
 * script) and testhost-mismatch.c (a violation of either script). Never
 * installed.
 */
#ifndef CR_TESTHOST_PRIVATE_H
#define CR_TESTHOST_PRIVATE_H

#include <glib.h>

#include <cluster-resolver/testhost.h>

#include "pipeline/pipeline-private.h"

typedef struct th_log_line {
	cr_log_level level;
	char *text; /* "source: message" */
} th_log_line;

struct cr_testhost {
	cr_context *ctx;
	cr_instance *inst;  /* the plugin instance (owned by ctx) */
	char *private_root; /* temporary directory, removed at free */
	bool own_root;      /* file_root is private_root */

	/* What the plugin sees through the seam (testhost-io.c). */
	GHashTable *env;  /* name -> value (NULL value = hidden) */
	bool inherit_env; /* fall back to the process environment */
	char *file_root;  /* read_file/list_dir root; NULL = the real "/" */
	int64_t clock_ms; /* now_ms; sleep_ms advances it */

	char *task_type; /* master's task, as `--task-type` */
	int64_t task_id;
	char *rpc_layer; /* as `--rpc-layer`; NULL = none given */
	char *out;       /* the last run call's output */

	GPtrArray *logs;   /* th_log_line * */
	GString *log_text; /* cr_testhost_logs() */

	GPtrArray *script;  /* th_exchange * (testhost-http.c) */
	guint next;         /* index of the next expected exchange */
	guint requests;     /* requests seen */
	char *mismatch;     /* first script violation, kept for verify */
	bool call_mismatch; /* a violation happened during this run call */

	GPtrArray *spawns; /* th_spawn * (testhost-spawn.c) */
	guint next_spawn;  /* index of the next expected spawn */
	guint spawn_count; /* spawns seen */

	/* Since 1.2, at the end so that the struct only grows. */
	size_t stream_piece; /* a streamed body's pieces, bytes; 0: whole */
};

/* Where the testhost's clock starts: far from 0, so that a plugin's
 * "deadline = now + timeout" arithmetic has room either side. */
#define TH_CLOCK_START_MS ((int64_t)1000000)

/* testhost-mismatch.c: record a script violation (the first one is kept
 * for verify) and fail the call with "cr-testhost: WHAT N: WHY"; frees @why. */
cr_status th_mismatch(cr_testhost *th, const char *what, guint n, char *why, cr_error *err);

/* testhost-io.c */
void th_io_init(cr_testhost *th);
void th_io_free(cr_testhost *th);

/* testhost-http.c */
void th_script_init(cr_testhost *th);
void th_script_free(cr_testhost *th);
cr_status th_http_answer(cr_testhost *th, const cr_http_request *req, cr_http_response *reply,
			 cr_error *err);
/* As th_http_answer for host->http_stream: a 2xx body goes to @on_data in
 * pieces of th->stream_piece bytes, while @cancel_fd is not readable. */
cr_status th_http_stream_answer(cr_testhost *th, const cr_http_request *req, int cancel_fd,
				cr_http_data_fn on_data, void *user_data, cr_http_response *reply,
				cr_error *err);
/* CR_OK when every expected request was made; else CR_ERR_NOT_FOUND
 * naming the first one not made. */
cr_status th_http_verify(cr_testhost *th, cr_error *err);

/* testhost-spawn.c */
void th_spawn_init(cr_testhost *th);
void th_spawn_free(cr_testhost *th);
cr_status th_spawn_answer(cr_testhost *th, const char *const *argv, const char *const *env,
			  int64_t timeout_ms, size_t output_cap, cr_spawn_result **out,
			  cr_error *err);
/* CR_OK when every expected spawn was made; else CR_ERR_NOT_FOUND naming
 * the first one not made. */
cr_status th_spawn_verify(cr_testhost *th, cr_error *err);

#endif /* CR_TESTHOST_PRIVATE_H */
