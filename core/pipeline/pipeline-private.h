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

/* ---- results (result.c): what a resolution comes to --------------------- */
struct cr_result {
	cr_spec *spec;
	char *task_type;
	int64_t task_id;
	char *rpc_layer;
	char *environment;
	char *master;
	/* What an rpc layer of "" means for a task's master: the first
	 * resolver's own layer where its master op says so (gce, tpu:
	 * TensorFlow's `rpc_layer or self.rpc_layer`; builder_own_layer), else
	 * NULL: "" means none. */
	char *own_layer;
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

cr_result *result_new(void);
/* "layer://addr", or addr when layer is NULL/empty, or "" when addr is empty. */
char *format_master_url(const char *address, const char *rpc_layer);
/* Move @b's passed descriptors into @res (a name already there: closed)
 * and note that @b's resolver answered. */
void result_take_extras(cr_result *res, cr_result_builder *b);
/* The master @b's resolver gives when no task is asked, for @rpc_layer
 * (the effective layer): its plugin's master op, else the string it set,
 * else NULL (*out). */
cr_status builder_master(const cr_result_builder *b, const char *rpc_layer, char **out,
			 cr_error *err);
/* The layer @b's resolver uses for a master asked with rpc layer "" (its
 * master op's answer's scheme), or NULL: "" means none. (transfer full) */
char *builder_own_layer(const cr_result_builder *b);

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

/* ---- instances (instance.c), the context (context.c; its state is in
 * host/host-private.h) ------------------------------------------------------ */
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
/* Whether local device @d counts for task (@job, @index): one a plugin
 * gave to a task for exactly that task; an unassigned one for this
 * process's own task (@own). */
bool accel_device_of_task(const accel_device *d, const char *job, int64_t index, bool own);
/* Whether (@job, @index) is @r's own task (@job NULL: it is). */
bool accel_is_own_task(const cr_result *r, const char *job, int64_t index);

#endif /* CR_PIPELINE_PRIVATE_H */
