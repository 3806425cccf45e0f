/* SPDX-License-Identifier: MIT */
/*
 * plugins-private.h - the plugin layer of the core: loaded plugins, their
 * instances, the config, the host table and HTTP. Builds on the value layer.
 * Never installed; plugins never include it.
 */
#ifndef CR_PLUGINS_PRIVATE_H
#define CR_PLUGINS_PRIVATE_H

#include <libconfig.h>

#include <cluster-resolver/plugin.h>

#include "values-private.h"
#include "io.h"

/* ---- plugins and instances (loader.c) ------------------------------------ */
typedef enum cr_policy {
	CR_POLICY_REQUIRED = 0,
	CR_POLICY_OPTIONAL = 1,
	CR_POLICY_SUFFICIENT = 2,
} cr_policy;

typedef struct cr_plugin {
	char *path;
	char *name;
	void *handle;
	const cr_plugin_desc *desc;
} cr_plugin;

typedef struct cr_instance cr_instance;
typedef struct http_conn http_conn;

struct cr_plugin_ctx {
	cr_context *ctx;
	cr_instance *inst;
};

struct cr_instance {
	cr_plugin_kind kind;
	char *name;   /* instance name: `name` key, else the plugin name */
	char *label;  /* "resolver 'k8s'" */
	char *where;  /* "FILE:LINE" of the group, for messages */
	cr_policy policy;
	cr_plugin *plugin;
	const config_setting_t *setting; /* the group; never NULL */
	void *state;
	bool created;
	bool declined; /* the last probe/resolve/enumerate said CR_DECLINED */
	struct cr_plugin_ctx pctx;
	http_conn *http; /* its libcurl handle (http.c), made on first use */
};

/* Search directories in order: added, config plugin_path, env, built-in. */
GPtrArray *loader_search_path(cr_context *ctx);
/* Find and load @name (short name or absolute path) for @kind. */
cr_status loader_load(cr_context *ctx, const char *name, cr_plugin_kind kind, cr_plugin **out,
		      cr_error *err);
/* Load the file at @path with every check; used by `plugins` too. */
cr_status loader_open_file(cr_context *ctx, const char *path, const char *expect_name,
			   cr_plugin **out, cr_error *err);
void loader_plugin_free(cr_plugin *plugin);
const char *kind_name(cr_plugin_kind kind);

/* ---- config (config.c) --------------------------------------------------- */
cr_status config_load_file(cr_context *ctx, const char *path, cr_error *err);
cr_status config_load_string(cr_context *ctx, const char *text, const char *name, cr_error *err);
cr_status config_load_auto(cr_context *ctx, cr_error *err);
cr_status config_validate_options(const cr_instance *inst, cr_error *err);
const cr_option *schema_find(const cr_plugin_desc *desc, const char *name);
const char *cfg_file_of(const config_setting_t *s);
void config_name_set(config_t *cfg, const char *name);
const char *config_name_get(const config_t *cfg);
const cr_option *schema_option_at(const cr_plugin_desc *desc, size_t i);

/* ---- host table (host.c) ------------------------------------------------- */
const cr_host_api *host_api(void);
void ctx_log(cr_context *ctx, cr_log_level level, const char *source, const char *fmt, ...)
	G_GNUC_PRINTF(4, 5);
const char *ctx_getenv(cr_context *ctx, const char *name);
/* Put @io (with its @data) between @ctx and the world; NULL for the real
 * world again. */
void ctx_set_io(cr_context *ctx, const io_ops *io, void *data);

/* ---- HTTP (http.c) ------------------------------------------------------- */
/* The host table's http_request, through the context's I/O seam. */
cr_status http_perform(cr_plugin_ctx *pctx, const cr_http_request *req, cr_http_response **resp,
		       cr_error *err);
long http_status(const cr_http_response *resp);
const char *http_body(const cr_http_response *resp, size_t *len);
const char *http_header(const cr_http_response *resp, const char *name);
void http_response_free(cr_http_response *resp);
/* Close an instance's connections and free its handle. NULL is a no-op. */
void http_conn_free(http_conn *conn);
/* Load the HTTP module from @path instead of looking for it: for programs
 * that link the core statically, so that no library tells where it is. */
void http_module_set_path(const char *path);

#endif /* CR_PLUGINS_PRIVATE_H */
