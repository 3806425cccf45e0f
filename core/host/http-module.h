/* SPDX-License-Identifier: MIT */
/*
 * http-module.h - the contract between the core and its private HTTP
 * module, libcr-http.so (http-curl.c): the libcurl transport, kept out of
 * libcluster-resolver so that a resolution that makes no HTTP request
 * never loads libcurl and OpenSSL. http.c loads it on the first request.
 * Module and core are built together: the contract has no version beyond
 * the entry symbol's name and struct_size. Never installed as a header.
 */
#ifndef CR_HTTP_MODULE_H
#define CR_HTTP_MODULE_H

#include <cluster-resolver/plugin.h>

#include "host/io.h"

/* File name of the module, in the library's private directory. */
#define HTTP_MODULE_FILE "libcr-http.so"
/* Its one exported symbol, an http_module_entry_fn. */
#define HTTP_MODULE_ENTRY "cr_http_module_entry_v1"

typedef struct http_conn http_conn;

/* What the core lends the module for one request. */
typedef struct http_module_host {
	cr_status (*error_set)(cr_error *err, cr_status code, const char *fmt, ...)
		G_GNUC_PRINTF(3, 4);
	/* A debug line from the calling instance (@pctx may be NULL). */
	void (*debug)(cr_plugin_ctx *pctx, const char *message);
	/* The context's interrupt descriptor (cr_context_interrupt: readable
	 * from then on), or -1: every wait of a request polls it and ends. */
	int (*interrupt_fd)(cr_plugin_ctx *pctx);
} http_module_host;

typedef struct http_module {
	size_t struct_size;
	/* Perform @req, filling @reply. *@conn is the instance's handle (made
	 * when NULL, replaced when the TLS material changed); @conn NULL is a
	 * one-off request. Returns: as host->http_request. */
	cr_status (*perform)(const http_module_host *host, cr_plugin_ctx *pctx, http_conn **conn,
			     const cr_http_request *req, cr_http_response *reply, cr_error *err);
	/* Stream @req (io.h's http_stream). With @conn, over the instance's
	 * handle as perform; else on a connection of its own, closed when the
	 * answer ends or is stopped, with @cancel_fd (-1: none) polled beside
	 * it. Returns: as host->http_stream. */
	cr_status (*stream)(const http_module_host *host, cr_plugin_ctx *pctx, http_conn **conn,
			    const cr_http_request *req, int cancel_fd, cr_http_data_fn on_data,
			    void *user_data, cr_http_response *reply, cr_error *err);
	/* Close a handle's connections and free it. NULL is a no-op. */
	void (*conn_free)(http_conn *conn);
} http_module;

typedef const http_module *(*http_module_entry_fn)(void);

#endif /* CR_HTTP_MODULE_H */
