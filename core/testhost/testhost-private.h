/* SPDX-License-Identifier: MIT */
/*
 * testhost-private.h - the inside of a cr_testhost, shared by testhost.c
 * (plugin, environment, files, runs, logs) and testhost-http.c (the HTTP
 * script). Never installed.
 */
#ifndef CR_TESTHOST_PRIVATE_H
#define CR_TESTHOST_PRIVATE_H

#include <glib.h>

#include <cluster-resolver/testhost.h>

#include "pipeline-private.h"

typedef struct th_log_line {
	cr_log_level level;
	char *text; /* "source: message" */
} th_log_line;

struct cr_testhost {
	cr_context *ctx;
	cr_instance *inst;   /* the plugin instance (owned by ctx) */
	char *private_root;  /* temporary directory, removed at free */
	bool own_root;       /* ctx->file_root is private_root */

	char *task_type;     /* master's task, as `--task-type` */
	int64_t task_id;
	char *rpc_layer;     /* as `--rpc-layer`; NULL = none given */
	char *out;           /* the last run call's output */

	GPtrArray *logs;     /* th_log_line * */
	GString *log_text;   /* cr_testhost_logs() */

	GPtrArray *script;   /* th_exchange * (testhost-http.c) */
	guint next;          /* index of the next expected exchange */
	guint requests;      /* requests seen */
	char *mismatch;      /* first script violation, kept for verify */
	bool call_mismatch;  /* a violation happened during this run call */
};

/* testhost-http.c */
void th_script_init(cr_testhost *th);
void th_script_free(cr_testhost *th);

#endif /* CR_TESTHOST_PRIVATE_H */
