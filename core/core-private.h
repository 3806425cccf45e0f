/* SPDX-License-Identifier: MIT */
/*
 * core-private.h - declarations shared inside libcluster-resolver. Never
 * installed; plugins never include it.
 */
#ifndef CR_CORE_PRIVATE_H
#define CR_CORE_PRIVATE_H

#include <stdarg.h>

#include <glib.h>
#include <json-c/json.h>
#include <libconfig.h>

#include <cluster-resolver/cluster-resolver.h>
#include <cluster-resolver/hostlist.h>

/* ---- errors (error.c) ---------------------------------------------------- */
cr_status cr_error_set(cr_error *err, cr_status code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
cr_status cr_error_setv(cr_error *err, cr_status code, const char *fmt, va_list ap)
	G_GNUC_PRINTF(3, 0);
/* Sort callback for GPtrArray of strings (g_ptr_array_sort). */
gint str_ptr_cmp(gconstpointer a, gconstpointer b);
/* Prepend text to the message already in @err; returns err->code. */
cr_status cr_error_prefix(cr_error *err, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* ---- JSON (json.c, spec-codec.c) ----------------------------------------- */
cr_status json_parse_text(const char *text, size_t len, const char *what, json_object **out,
			  cr_error *err);
void jw_string(GString *out, const char *s);
void spec_write_json(GString *out, const cr_spec *spec);
cr_status spec_from_json_object(json_object *cluster, const char *what, cr_spec **out,
				cr_error *err);
size_t spec_job_len(const cr_spec *spec, size_t job_i);
void spec_job_task(const cr_spec *spec, size_t job_i, size_t t, int32_t *index,
		   const char **address);
/* Move the tasks of @job from @src into @job of @dst (added at the end when
 * missing), each index raised by @offset; the addresses change owner, not
 * place, and @src's job is left empty. CR_ERR_INVALID_ARG past int32,
 * CR_ERR_CONFLICT when an index is taken (then nothing moves). */
cr_status spec_take_tasks(cr_spec *dst, cr_spec *src, const char *job, int64_t offset,
			  cr_error *err);

cr_status host_json_parse(const char *text, size_t len, const char *what, cr_json **root,
			  cr_error *err);
void host_json_free(cr_json *root);
const cr_json *host_json_get(const cr_json *node, const char *pointer);
cr_json_type host_json_type(const cr_json *node);
const char *host_json_string(const cr_json *node);
bool host_json_int(const cr_json *node, int64_t *out);
bool host_json_double(const cr_json *node, double *out);
bool host_json_bool(const cr_json *node, bool *out);
size_t host_json_length(const cr_json *node);
const cr_json *host_json_index(const cr_json *node, size_t i);
void host_json_each(const cr_json *node, cr_json_each_fn fn, void *user_data);

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

/* An HTTP answer, from the transport or from a test hook (http.c). */
struct cr_http_response {
	long status;
	GString *body;
	GPtrArray *headers; /* "name", "value", ... (owned) */
	size_t max_body;
	bool too_big;
};

/* Test hook (cr-testhost): answers every HTTP request of a context in
 * place of libcurl. It fills @reply's status, headers and body and returns
 * CR_OK, or fails the request with a status and a message in @err. */
typedef cr_status (*host_http_hook_fn)(cr_plugin_ctx *pctx, const cr_http_request *req,
				       cr_http_response *reply, cr_error *err, void *data);

/* ---- HTTP (http.c) ------------------------------------------------------- */
/* The host table's http_request: libcurl, or the context's test hook. */
cr_status http_perform(cr_plugin_ctx *pctx, const cr_http_request *req, cr_http_response **resp,
		       cr_error *err);
long http_status(const cr_http_response *resp);
const char *http_body(const cr_http_response *resp, size_t *len);
const char *http_header(const cr_http_response *resp, const char *name);
void http_response_free(cr_http_response *resp);
/* Close an instance's connections and free its handle. NULL is a no-op. */
void http_conn_free(http_conn *conn);

/* ---- results (result.c) -------------------------------------------------- */
struct cr_result_builder {
	cr_instance *inst;
	cr_spec *spec;
	char *task_type;
	int64_t task_id;
	bool has_task;
	char *rpc_layer;
	char *environment;
	char *master;
	GHashTable *task_accel; /* "job\nindex" -> GHashTable(kind -> count) */
	GHashTable *own_accel;  /* kind -> count */
	GPtrArray *env;         /* name, value, name, value, ... */
	GHashTable *last_counts; /* (owned ref) counts last given to a task, or NULL */
	GHashTable *shared;      /* counts tables held by several tasks (a set) */
};

typedef struct accel_device {
	char *plugin;
	cr_accel_device dev; /* strings owned */
} accel_device;

struct cr_accel_list {
	cr_instance *inst;
	GPtrArray *devices; /* accel_device * */
};

struct cr_text {
	char *text;
};

struct cr_result {
	cr_spec *spec;
	char *task_type;
	int64_t task_id;
	char *rpc_layer;
	char *environment;
	char *master;
	GHashTable *accel;  /* kind -> count, for this process's task */
	char *accel_source; /* "config", "resolver 'slurm'", "local devices" */
	GPtrArray *devices; /* accel_device *, local devices enumerated */
	GPtrArray *env;     /* name, value, ... */
	GHashTable *task_accel; /* merged per-task counts */
};

cr_result_builder *builder_new(cr_instance *inst);
void builder_free(cr_result_builder *b);
cr_result *result_new(void);
void accel_device_free(gpointer p);
void accel_counts_put(GHashTable *counts, const char *kind, int64_t n);
char *task_key(const char *job, int64_t index);
/* "layer://addr", or addr when layer is NULL/empty, or "" when addr is empty. */
char *format_master_url(const char *address, const char *rpc_layer);

cr_status host_result_add_job(cr_result_builder *b, const char *job, cr_error *err);
cr_status host_result_append_task(cr_result_builder *b, const char *job, const char *address,
				  cr_error *err);
cr_status host_result_add_task(cr_result_builder *b, const char *job, int64_t index,
			       const char *address, cr_error *err);
cr_status host_result_set_task(cr_result_builder *b, const char *task_type, int64_t task_id,
			       cr_error *err);
cr_status host_result_set_rpc_layer(cr_result_builder *b, const char *rpc_layer, cr_error *err);
cr_status host_result_set_environment(cr_result_builder *b, const char *env, cr_error *err);
cr_status host_result_set_master(cr_result_builder *b, const char *master, cr_error *err);
cr_status host_result_set_task_accelerators(cr_result_builder *b, const char *job, int64_t index,
					    const char *kind, int64_t count, cr_error *err);
cr_status host_result_set_env(cr_result_builder *b, const char *name, const char *value,
			      cr_error *err);
cr_status host_accel_add(cr_accel_list *list, const cr_accel_device *dev, cr_error *err);
cr_status host_text_set(cr_text *out, const char *text, cr_error *err);

/* ---- union (union.c) ----------------------------------------------------- */
typedef struct union_state union_state;
union_state *union_new(void);
void union_free(union_state *u);
/* Keep one successful resolver's answer (ownership moves to @u). */
void union_take(union_state *u, cr_result_builder *b);
/* Merge the answers; identity and rpc layer overrides come from @ctx. The
 * answers' tasks move into the result: after this @u is only fit to free. */
cr_status union_merge(union_state *u, cr_context *ctx, cr_result **out, cr_error *err);

/* ---- the context (context.c) --------------------------------------------- */
struct cr_context {
	cr_log_fn log_fn;
	void *log_data;
	cr_log_level log_level;

	GPtrArray *added_dirs;   /* char * */
	GPtrArray *config_dirs;  /* char *, from plugin_path */
	GPtrArray *configs;      /* config_t *, kept alive for settings */
	config_t *builtin;       /* an empty config for plugins without a group */
	char *config_name;       /* main config file name, or "(built-in auto)" */
	bool config_loaded;

	GPtrArray *resolvers;    /* cr_instance * */
	GPtrArray *accelerators; /* cr_instance * */
	bool accelerators_listed;
	GPtrArray *plugins;      /* cr_plugin *, loaded files */

	/* Identity: CLI/API overrides beat the config's `task` / `rpc_layer`. */
	char *task_type, *cfg_task_type;
	int64_t task_id, cfg_task_id; /* -1 = unset */
	char *rpc_layer, *cfg_rpc_layer;
	bool rpc_layer_set, cfg_rpc_layer_set;
	GHashTable *cfg_accel; /* top-level num_accelerators, kind -> count */

	GHashTable *env_override; /* name -> value (NULL value = unset); tests */
	char *file_root;          /* prefix for read_file/list_dir; tests */
	bool env_isolated;        /* tests: only env_override is visible */
	host_http_hook_fn http_hook; /* tests: answers HTTP instead of http.c */
	void *http_hook_data;
};

cr_instance *instance_new(cr_context *ctx, cr_plugin_kind kind, cr_plugin *plugin,
			  const char *name, const config_setting_t *setting);
void instance_free(gpointer p);
cr_status instance_create(cr_instance *inst, cr_error *err);
cr_status accel_layer_run(cr_context *ctx, cr_result *res, cr_error *err);
void write_counts(GString *out, GHashTable *counts);

#endif /* CR_CORE_PRIVATE_H */
