/* SPDX-License-Identifier: MIT */
/*
 * plugins-private.h - the plugin layer of the core: loaded plugins, their
 * instances, the config, the host table and HTTP. Builds on the value layer.
 * Never installed; plugins never include it.
 */
#ifndef CR_HOST_PRIVATE_H
#define CR_HOST_PRIVATE_H

#include <libconfig.h>

#include <cluster-resolver/plugin.h>

#include "values/values-private.h"
#include "host/io.h"

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
	/* Non-NULL: a stub its manifest (NAME.applies) made in place of a
	 * plugin that cannot apply here, never dlopened; this is the reason
	 * it declines with, and what the manifest looks for, asked again at
	 * every resolution (the environment may change: loader-manifest.c). */
	char *declined;
	char **applies_env;
	char **applies_files;
} cr_plugin;

typedef struct cr_instance cr_instance;
typedef struct http_conn http_conn;

struct cr_plugin_ctx {
	cr_context *ctx;
	cr_instance *inst;
};

/* What one resolver run came to, for `explain` (context.c). */
typedef enum run_verdict {
	VERDICT_NOT_RUN = 0,
	VERDICT_OK = 1,       /* its answer is in the union */
	VERDICT_DECLINED = 2, /* CR_DECLINED from probe or resolve */
	VERDICT_ERROR = 3,    /* create, probe or resolve failed */
	VERDICT_SKIPPED = 4,  /* never ran: an earlier resolver ended the run */
} run_verdict;

struct cr_instance {
	cr_plugin_kind kind;
	char *name;  /* instance name: `name` key, else the plugin name */
	char *label; /* "resolver 'k8s'" */
	char *where; /* "FILE:LINE" of the group, for messages */
	cr_policy policy;
	cr_plugin *plugin;
	const config_setting_t *setting; /* the group; never NULL */
	void *state;
	bool created;
	bool declined; /* the last probe/resolve/enumerate said CR_DECLINED */
	bool watching; /* inside its watch op (the host's watch slots answer) */
	/* The end of its watch op: written when the round is cancelled or the
	 * plugin calls watch_stop; what its http_stream requests and
	 * watch_cancel_fd wait on. -1: none (cr-testhost, before a watch). */
	int stop_fd;
	gint stopped;              /* atomic: the round ended or watch_stop was called */
	int64_t watch_interval_ms; /* when polled: its interval; 0: never polled */
	int64_t next_poll_ms;      /* cr_context_watch: when it is due again (now_ms) */
	int64_t backoff_ms;        /* after a failed watch op: the wait before the next */
	int64_t watch_after_ms;    /* its watch op is not called again before this */
	/* Its watch op answered "changed" and the context resolves again
	 * (pipeline/watch.c); when that brings no new generation its next
	 * watch waits relist_backoff_ms (0.8 s doubling to 30 s). */
	bool relist_asked;
	int64_t relist_backoff_ms;
	/* Its watch op answered "changed" as a round ended for another reason
	 * (a timeout, a cancel): kept, so that the next round resolves at once
	 * instead of asking an op whose cursor is already past the change. */
	bool change_kept;
	struct cr_plugin_ctx pctx;
	http_conn *http; /* its connection (made by the HTTP module on first use) */
	/* The last run, for `explain`. */
	run_verdict verdict;
	char *reason;       /* one line: why it declined/failed, or what it found */
	json_object *facts; /* (owned, nullable) what it told result_set_fact */
};

/* ---- the plan (config*.c): what the files say; nothing is loaded -------- */
typedef struct plan_entry {
	cr_plugin_kind kind; /* 0: unknown until the file is loaded (cr-testhost) */
	char *plugin;        /* as written: a short name or an absolute path */
	const char *name;    /* the `name` key, or NULL for the plugin's name */
	/* (nullable) a `name` key that is not a string, when @kind was unknown
	 * to the config: the message names the kind, so the loader gives it */
	const config_setting_t *bad_name;
	cr_policy policy;
	const config_setting_t *group;     /* the entry's group (borrowed from the plan) */
	const config_setting_t *plugin_at; /* its `plugin` key, for load errors */
	char *where;                       /* "FILE:LINE" of the group */
	int64_t watch_interval_ms;         /* set by the loader (schema_watch_interval) */
} plan_entry;

typedef struct cr_plan {
	char *name;               /* the main file, "(built-in auto)" or a string's name */
	GPtrArray *configs;       /* config_t *: the entries' settings live here */
	GPtrArray *files;         /* char *: every config file read, in order */
	GPtrArray *plugin_path;   /* char *, absolute directories */
	GPtrArray *resolvers;     /* plan_entry *, config order */
	GPtrArray *accelerators;  /* plan_entry * */
	bool accelerators_listed; /* an `accelerators` key: no automatic ones */
	/* Top-level overrides of the union and the accelerator layer. */
	char *task_type; /* NULL = unset */
	int64_t task_id; /* -1 = unset */
	char *rpc_layer;
	bool rpc_layer_set;
	GHashTable *num_accelerators; /* kind -> int64_t count */
	GPtrArray *format_options;    /* char * "key=value": `formats`, in file order */
	int64_t gpus_per_task;        /* -1 = unset (pipeline/gpus.c) */
	char *gpus_at;                /* "FILE:LINE" of gpus_per_task, or NULL */
	int skip_busy_gpus;           /* -1 = unset, else 0 or 1 */
} cr_plan;

/* The largest gpus_per_task, top-level or a resolver's. */
#define CR_GPUS_PER_TASK_MAX 4096

/* Resolvers the built-in `auto` configuration tries, in order (NULL-ended). */
extern const char *const config_auto_order[];

/* config.c, the driver: a plan, then a file and its drop-ins, a string,
 * `auto` or a group read into it through the helpers below. */
cr_plan *plan_new(void);
void plan_free(cr_plan *plan);
/* The largest config file or drop-in read (documented in cluster-resolver.conf(5)). */
#define CONFIG_FILE_MAX (1u << 20)
/* Read @path and its conf.d drop-ins into @plan. Each must be a regular file
 * of at most CONFIG_FILE_MAX bytes without NUL bytes; a conf.d that exists but
 * cannot be listed is an error. */
cr_status config_parse_file(cr_plan *plan, const char *path, cr_error *err);
cr_status config_parse_string(cr_plan *plan, const char *text, const char *name, cr_error *err);
/* The built-in `auto` plan over @installed, a NULL-ended subset of
 * config_auto_order (the caller asked the loader which are installed). */
cr_status config_parse_auto(cr_plan *plan, const char *const *installed, cr_error *err);
/* Read @text as the keys of one group (cr-testhost): one entry of unknown
 * kind whose plugin is @plugin_path. Line 1 of @text is line 1 of @name. */
cr_status config_parse_group(cr_plan *plan, const char *text, const char *name,
			     const char *plugin_path, plan_entry **out, cr_error *err);
/* config-text.c, step 1: the text of the config file @path (transfer full,
 * g_free), checked before libconfig reads it: a regular file, its tokens,
 * and its @include targets under @dir (recursively; each one read is added
 * to @files). */
cr_status config_read_checked(const char *path, const char *dir, GPtrArray *files, char **text,
			      cr_error *err);
/* The tokens of @text (integer literals against libconfig's 32-bit cut,
 * comments closed, nesting depth), for a string or a group. */
cr_status config_check_tokens(const char *text, const char *name, cr_error *err);
/* config-keys.c, step 3: the top-level keys of @cfg (one file, a drop-in
 * or a string) checked and added to @plan, naming FILE:LINE. */
cr_status config_read_root(cr_plan *plan, const config_t *cfg, cr_error *err);
/* One { plugin = ...; } group @g of a resolvers/accelerators list into a
 * new *@out (transfer full, plan_entry_free). @kind 0: not known yet
 * (cr-testhost names the file, the file says its kind); no policy then. */
cr_status config_read_entry(const config_setting_t *g, cr_plugin_kind kind, plan_entry **out,
			    cr_error *err);
void plan_entry_free(gpointer p);
const char *policy_name(cr_policy p);
/* config-where.c, the bottom (used by the driver, config-keys.c and the
 * layers above): a config's display name, set once libconfig has read it. */
void config_name_set(config_t *cfg, const char *name);
const char *config_name_get(const config_t *cfg);
/* The path an @include'd file was read from (DIR/NAME), for libconfig's
 * name of it @f (as the directive wrote it); interned. */
const char *config_include_path(const config_t *cfg, const char *f);
/* The file @s was read from: its @include'd file, its config's display
 * name, or "(built-in)". */
const char *cfg_file_of(const config_setting_t *s);
/* The line of @s, or 0 for NULL. */
int cfg_line_of(const config_setting_t *s);
/* "%s:%d" arguments naming where @s was read. */
#define AT(s) cfg_file_of(s), cfg_line_of(s)

/* ---- the loader (loader.c): plan entries -> checked plugins -------------- */
typedef struct loader {
	GPtrArray *added_dirs; /* char *, cr_context_add_plugin_dir */
	GPtrArray *plan_dirs;  /* (borrowed, nullable) the plan's plugin_path */
	GPtrArray *plugins;    /* cr_plugin *, each file loaded once */
} loader;

void loader_init(loader *l);
void loader_clear(loader *l);
/* Search directories in order: added, config plugin_path, env, built-in. */
GPtrArray *loader_search_path(const loader *l);
/* Whether @name is a plugin's short name ([A-Za-z0-9_-]+). */
bool loader_valid_short_name(const char *name);
/* Find and load @name (short name or absolute path) for @kind. */
cr_status loader_load(loader *l, const char *name, cr_plugin_kind kind, cr_plugin **out,
		      cr_error *err);
/* Load the file at @path with every check; used by `plugins` too (the
 * plugin is not kept: free it with loader_plugin_free). */
cr_status loader_open_file(const char *path, const char *expect_name, cr_plugin **out,
			   cr_error *err);
/* Load @e's plugin (by path when @e->kind is 0) and check its group against
 * the plugin's schema (keys, types, required keys, ranges), naming
 * FILE:LINE. *@label: "resolver 'NAME'" (transfer full). */
cr_status loader_load_entry(loader *l, plan_entry *e, cr_plugin **out, cr_error *err);
/* A declining stub in place of @e's plugin when its manifest says it cannot
 * apply in @ctx's environment (loader-manifest.c); *@out NULL: load it. */
cr_status loader_manifest_stub(loader *l, plan_entry *e, cr_context *ctx, cr_plugin **out,
			       cr_error *err);
/* The same for the short name @name of @kind with no config group (the
 * accelerators a config that lists none gets). */
cr_status loader_manifest_stub_named(loader *l, const char *name, cr_plugin_kind kind,
				     cr_context *ctx, cr_plugin **out);
/* Whether stub @p's plugin may apply in @ctx's environment now. */
bool loader_manifest_applies(const cr_plugin *p, cr_context *ctx);
/* Which of @names (NULL-ended) are installed as @kind plugins; a file that
 * is there but broken is an error. *@out: (transfer container) NULL-ended. */
cr_status loader_installed(loader *l, const char *const *names, cr_plugin_kind kind,
			   GPtrArray **out, cr_error *err);
/* A file the process will map and run (@kind "plugin" or "library"):
 * regular, not a symbolic link, not writable by others, owned by root or
 * this user, in a directory that is the same, below directories writable by
 * others only with the sticky bit. CR_ERR_NOT_FOUND when it is missing. */
cr_status loader_check_trusted(const char *kind, const char *path, cr_error *err);
void loader_plugin_free(cr_plugin *plugin);
const cr_option *schema_find(const cr_plugin_desc *desc, const char *name);
const cr_option *schema_option_at(const cr_plugin_desc *desc, size_t i);
/* Whether @o (an entry of @desc's schema) has the bound of @flag
 * (CR_OPT_MIN / CR_OPT_MAX): flagged, and inside the plugin's option_size. */
bool schema_has_bound(const cr_plugin_desc *desc, const cr_option *o, uint32_t flag);
/* Whether @key of a plugin's group is the host's (plugin, name, policy). */
bool schema_is_host_key(const char *key);
/* The core's own option @key of a resolver group (gpus_per_task,
 * skip_busy_gpus), unless @desc is no resolver or declares @key itself. */
const cr_option *schema_core_key(const cr_plugin_desc *desc, const char *key);
/* A bound as the messages and `plugins` show it: an integer when it is
 * one, else %g, in the C locale. @buf has G_ASCII_DTOSTR_BUF_SIZE bytes. */
const char *schema_bound_text(char *buf, double v);
/* A resolver's `watch_interval` (seconds, a host key of its group): the
 * plugin's declared default and floor (ABI 1.2; the host's for older
 * plugins), never below WATCH_INTERVAL_FLOOR_S nor above
 * WATCH_INTERVAL_MAX_S. *@ms: how often cr_context_watch resolves it again
 * when it has no watch op (the longest one watch call lasts when it has);
 * 0 for a static source or an accelerator. Refusals name FILE:LINE. */
#define WATCH_INTERVAL_DEFAULT_S 60u
#define WATCH_INTERVAL_FLOOR_S 5u
#define WATCH_INTERVAL_MAX_S 86400
cr_status schema_watch_interval(const cr_plugin_desc *desc, const config_setting_t *g,
				const char *label, int64_t *ms, cr_error *err);
/* Check @g's keys against @desc's schema (loader-schema.c); @label names
 * the instance in messages. */
cr_status schema_check_group(const cr_plugin_desc *desc, const config_setting_t *g,
			     const char *label, cr_error *err);

/* ---- host table (host.c) ------------------------------------------------- */
const cr_host_api *host_api(void);
/* A watch op of @inst begins (its end descriptor made and emptied; @fd
 * false: none, for a test host's clock) and ends early (the round is over,
 * or the plugin's host->watch_stop). begin returns false when no
 * descriptor could be made. */
bool instance_watch_begin(cr_instance *inst, bool fd);
void instance_watch_stop(cr_instance *inst);
void ctx_log(cr_context *ctx, cr_log_level level, const char *source, const char *fmt, ...)
	G_GNUC_PRINTF(4, 5);
const char *ctx_getenv(cr_context *ctx, const char *name);
/* Put @io (with its @data) between @ctx and the world; NULL for the real
 * world again. */
void ctx_set_io(cr_context *ctx, const io_ops *io, void *data);
/* @ctx's seam and its data; the real world (io_real()) for a NULL @ctx. */
const io_ops *ctx_io(cr_context *ctx, void **data);

/* ---- HTTP (http.c) ------------------------------------------------------- */
/* The host table's http_request, through the context's I/O seam. */
cr_status http_perform(cr_plugin_ctx *pctx, const cr_http_request *req, cr_http_response **resp,
		       cr_error *err);
/* The host table's http_stream (ABI 1.2), through the context's I/O seam. */
cr_status http_stream_perform(cr_plugin_ctx *pctx, const cr_http_request *req,
			      cr_http_data_fn on_data, void *user_data, cr_http_response **resp,
			      cr_error *err);
long http_status(const cr_http_response *resp);
const char *http_body(const cr_http_response *resp, size_t *len);
const char *http_header(const cr_http_response *resp, const char *name);
void http_response_free(cr_http_response *resp);
/* Close an instance's connections and free its handle. NULL is a no-op. */
void http_conn_free(http_conn *conn);
/* A context's spare answer bodies: made with the context, closed (spares
 * freed) with it; an answer still held after that frees its own body. */
typedef struct http_pool http_pool;
http_pool *http_pool_new(void);
void http_pool_close(http_pool *pool);
/* Load the HTTP module from @path instead of looking for it: for programs
 * that link the core statically, so that no library tells where it is. */
void http_module_set_path(const char *path);

/* ---- the context's state ------------------------------------------------ */
/* What a context holds. Its log and I/O seam are read by this layer
 * (log.c, seam.c); creating it and running it is the pipeline's
 * (pipeline/context.c). */
struct cr_context {
	cr_log_fn log_fn;
	void *log_data;
	cr_log_level log_level;

	cr_plan *plan;     /* what the config said; NULL until loaded */
	loader loader;     /* search path and loaded plugin files */
	config_t *builtin; /* an empty config for plugins without a group */

	GPtrArray *resolvers;     /* cr_instance *, the plan's entries loaded */
	GPtrArray *accelerators;  /* cr_instance * */
	bool accelerators_listed; /* the automatic ones are in (or not wanted) */

	/* Identity: CLI/API overrides beat the config's `task` / `rpc_layer`. */
	char *task_type;
	int64_t task_id; /* -1 = unset */
	char *rpc_layer;
	bool rpc_layer_set;

	const io_ops *io; /* the I/O seam (io.h): io_real(), or a test host's */
	void *io_data;
	http_pool *http_pool; /* spare answer bodies (http.c) */

	/* cr_context_watch (pipeline/watch.c): a cancel that any thread or a
	 * signal handler may ask for (a flag and an eventfd, made with the
	 * context), and the round of watch ops in progress, which the host
	 * table's watch slots read. */
	int cancel_fd;       /* eventfd, readable while a cancel is pending */
	gint cancel_pending; /* atomic */
	/* cr_context_interrupt: set once, never cleared; the eventfd stays
	 * readable from then on, so every wait of the host (sleep_ms, an HTTP
	 * request or stream) polls it and ends. */
	int interrupt_fd;
	gint interrupted;          /* atomic */
	struct watch_state *watch; /* (owned, nullable) what the last generation was */
	bool watch_running;        /* a cr_context_watch is in progress */
	/* Its resolutions are a watch's (host->watched, ABI 1.3): set while
	 * cr_context_watch runs (cr-testhost: cr_testhost_set_watched). */
	bool watched;
};

/* Whether cr_context_interrupt was called on @ctx (NULL: no). */
static inline bool ctx_interrupted(cr_context *ctx)
{
	return ctx != NULL && g_atomic_int_get(&ctx->interrupted) != 0;
}

/* ---- result builders (builder.c): what plugins hand in ------------------ */
/* This process's place among nodes (result_set_task_place). */
typedef struct task_place {
	int64_t node_rank, num_nodes, local_rank, local_size;
} task_place;

struct cr_result_builder {
	cr_instance *inst;
	cr_spec *spec;
	char *task_type;
	int64_t task_id;
	bool has_task;
	char *rpc_layer;
	char *environment;
	char *master;
	GHashTable *task_accel;  /* "job\nindex" -> GHashTable(kind -> count) */
	GHashTable *own_accel;   /* kind -> count */
	GPtrArray *env;          /* name, value, name, value, ... */
	GHashTable *last_counts; /* (owned ref) counts last given to a task, or NULL */
	GHashTable *shared;      /* counts tables held by several tasks (a set) */
	GPtrArray *fds;          /* passed_fd *: result_pass_fd's copies (owned) */
	json_object *facts;      /* (owned, nullable) result_set_fact, for `explain` */
	char *launcher;          /* result_set_job_size's launcher; NULL: none declared */
	task_place place;        /* result_set_task_place; num_nodes 0: not set */
};

/* A descriptor for the program `exec` starts (host->result_pass_fd): the
 * host's close-on-exec copy and the variable that names its number. */
typedef struct passed_fd {
	int fd;
	char *env_name;
} passed_fd;

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

cr_result_builder *builder_new(cr_instance *inst);
void builder_free(cr_result_builder *b);
void accel_device_free(gpointer p);
/* Close a passed descriptor and free its record (builder.c). */
void passed_fd_free(gpointer p);
char *task_key(const char *job, int64_t index);
/* The counts table of task (@job, @index) in a task_key-keyed @task_accel,
 * or NULL. */
GHashTable *task_accel_get(GHashTable *task_accel, const char *job, int64_t index);

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
cr_status host_result_add_cluster_json(cr_result_builder *b, const cr_json *cluster,
				       const char *what, cr_error *err);
cr_status host_result_set_job_size(cr_result_builder *b, const char *job, int64_t size,
				   const char *launcher, cr_error *err);
cr_status host_result_set_task_place(cr_result_builder *b, int64_t node_rank, int64_t num_nodes,
				     int64_t local_rank, int64_t local_size, cr_error *err);
cr_status host_result_pass_fd(cr_result_builder *b, int fd, const char *env_name, cr_error *err);
cr_status host_result_set_fact(cr_result_builder *b, const char *key, const cr_json *value,
			       cr_error *err);
cr_status host_result_set_fact_string(cr_result_builder *b, const char *key, const char *value,
				      cr_error *err);
cr_status host_accel_add(cr_accel_list *list, const cr_accel_device *dev, cr_error *err);
cr_status host_text_set(cr_text *out, const char *text, cr_error *err);

#endif /* CR_HOST_PRIVATE_H */
