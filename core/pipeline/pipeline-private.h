/* SPDX-License-Identifier: MIT */
/*
 * pipeline-private.h - the pipeline layer of the core: the context that runs
 * instances, result builders, the union, the accelerator layer and the
 * formats. Builds on the plugin layer.
 * Never installed; plugins never include it.
 */
#ifndef CR_PIPELINE_PRIVATE_H
#define CR_PIPELINE_PRIVATE_H

#include "host/host-private.h"

/* ---- results (builder.c: what plugins hand in; result.c: what comes out) */
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

struct cr_result {
	cr_spec *spec;
	char *task_type;
	int64_t task_id;
	char *rpc_layer;
	char *environment;
	char *master;
	GHashTable *accel;      /* kind -> count, for this process's task */
	char *accel_source;     /* "config", "resolver 'slurm'", "local devices" */
	GPtrArray *devices;     /* accel_device *, local devices enumerated */
	GPtrArray *env;         /* name, value, ... */
	GHashTable *task_accel; /* merged per-task counts */
	GPtrArray *fds;         /* passed_fd *, first of each env_name, owned */
	GPtrArray *answered;    /* cr_instance *, borrowed: who resolved, in order
				 * (compared, never dereferenced, by cr_context_supervise) */
	char **format_options;  /* the config's `formats` defaults, "key=value"; or NULL */
};

cr_result_builder *builder_new(cr_instance *inst);
void builder_free(cr_result_builder *b);
cr_result *result_new(void);
void accel_device_free(gpointer p);
/* Whether @name is a shell variable name, [A-Za-z_][A-Za-z0-9_]*
 * (format-frameworks.c; also the names of passed descriptors). */
bool env_name_valid(const char *name);
/* Close a passed descriptor and free its record (builder.c). */
void passed_fd_free(gpointer p);
char *task_key(const char *job, int64_t index);
/* The counts table of task (@job, @index) in a task_key-keyed @task_accel,
 * or NULL. */
GHashTable *task_accel_get(GHashTable *task_accel, const char *job, int64_t index);
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
cr_status host_result_add_cluster_json(cr_result_builder *b, const cr_json *cluster,
				       const char *what, cr_error *err);
cr_status host_result_pass_fd(cr_result_builder *b, int fd, const char *env_name, cr_error *err);
/* Move @b's passed descriptors into @res (a name already there: closed)
 * and note that @b's resolver answered. */
void result_take_extras(cr_result *res, cr_result_builder *b);
/* The master @b's resolver gives when no task is asked, for @rpc_layer
 * (the effective layer): its plugin's master op, else the string it set,
 * else NULL (*out). */
cr_status builder_master(const cr_result_builder *b, const char *rpc_layer, char **out,
			 cr_error *err);
cr_status host_result_set_fact(cr_result_builder *b, const char *key, const cr_json *value,
			       cr_error *err);
cr_status host_result_set_fact_string(cr_result_builder *b, const char *key, const char *value,
				      cr_error *err);
cr_status host_accel_add(cr_accel_list *list, const cr_accel_device *dev, cr_error *err);
cr_status host_text_set(cr_text *out, const char *text, cr_error *err);

/* ---- union (union.c) ----------------------------------------------------- */
/* Identity that beats the resolvers': the API/CLI's, else the config's. */
typedef struct union_overrides {
	const char *task_type; /* NULL = unset */
	int64_t task_id;       /* -1 = unset */
	const char *rpc_layer; /* with @rpc_layer_set; NULL = no layer */
	bool rpc_layer_set;
} union_overrides;

typedef struct union_state union_state;
union_state *union_new(void);
void union_free(union_state *u);
/* Keep one successful resolver's answer (ownership moves to @u). */
void union_take(union_state *u, cr_result_builder *b);
/* Merge the answers; @over beats their identity and rpc layer. The
 * answers' tasks move into the result: after this @u is only fit to free. */
cr_status union_merge(union_state *u, const union_overrides *over, cr_result **out, cr_error *err);

/* ---- the context (context.c) --------------------------------------------- */
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
};

cr_instance *instance_new(cr_context *ctx, cr_plugin_kind kind, cr_plugin *plugin, const char *name,
			  const config_setting_t *setting);
void instance_free(gpointer p);
cr_status instance_create(cr_instance *inst, cr_error *err);
/* Create and probe: CR_OK, CR_DECLINED (the plugin's reason, if any, in
 * @err) or an error whose message starts with the instance's label. */
cr_status instance_probe(cr_instance *inst, cr_error *err);
/* The status of an op of @inst as every caller reports it: a message for a
 * silent error, the instance's label before it (not for a decline). */
cr_status instance_normalise(cr_instance *inst, cr_status st, cr_error *err);
/* Whether a layer passes over @inst's status @st (its message in @e): a
 * decline, and a failure under the optional policy; each is logged as every
 * layer logs it. Anything else is the caller's to handle. */
bool instance_passed_over(cr_context *ctx, const cr_instance *inst, cr_status st,
			  const cr_error *e);
/* Load @group_text's plugin, @plugin_path, as this context's only instance
 * (cr-testhost): the same plan, loader and checks as a config file. */
cr_status context_load_single(cr_context *ctx, const char *plugin_path, const char *group_text,
			      const char *name, cr_instance **out, cr_error *err);
/* Run @ctx's accelerator instances into @res, then settle this task's
 * counts: @cfg_accel (the config's num_accelerators; NULL or empty for
 * none) beats a resolver's answer, which beats the local devices. */
cr_status accel_layer_run(cr_context *ctx, GHashTable *cfg_accel, cr_result *res, cr_error *err);
/* Add to @counts (kind -> count) the local devices of task (@job, @index):
 * those a plugin gave to that task, and for this process's own task (or
 * @job NULL) the unassigned ones. Returns: how many devices counted. */
size_t accel_count_devices(const cr_result *r, const char *job, int64_t index, GHashTable *counts);
void write_counts(GString *out, GHashTable *counts);

#endif /* CR_PIPELINE_PRIVATE_H */
