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
/* What gpus_per_task chose (gpus.c), for `explain`. */
typedef struct gpus_choice {
	int64_t per_task;
	char *at; /* "FILE:LINE" of the gpus_per_task key */
	bool skip_busy;
	char *host;           /* this task's host; NULL: the task is unknown */
	int64_t local_index;  /* among the cluster's tasks on @host */
	int64_t host_tasks;   /* the cluster's tasks on @host */
	char *source;         /* "accelerator 'nvidia'", ...; NULL: no GPU found */
	GPtrArray *available; /* char *: the GPUs, as CUDA_VISIBLE_DEVICES names them */
	GPtrArray *busy;      /* char *: those left out as busy */
	char *chosen;         /* this task's CUDA_VISIBLE_DEVICES */
} gpus_choice;

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
	/* Jobs with tasks whose addresses are unknown -> who declared them,
	 * "resolver 'torch-env' (torchrun)", for the formats' refusals. */
	GHashTable *partial;
	task_place place;      /* this process's place among nodes; num_nodes 0: unknown */
	GPtrArray *fds;        /* passed_fd *, first of each env_name, owned */
	GPtrArray *answered;   /* cr_instance *, borrowed: who resolved, in order
				 * (compared, never dereferenced, by cr_context_supervise) */
	char **format_options; /* the config's `formats` defaults, "key=value"; or NULL */
	gpus_choice *gpus;     /* (nullable) gpus_per_task's choice */
	/* cr_result_generation_id(), made at its first call (atomically: a
	 * result may be read from several threads). */
	char *generation_id;
	/* The context's log handler when it resolved: the formats warn through
	 * it (NULL: they stay quiet). */
	cr_log_fn log_fn;
	void *log_data;
	cr_log_level log_level;
};

cr_result *result_new(void);
/* A warning (or any @level) about @r, through the handler of the context
 * that resolved it; nothing when it has none or @level is filtered out. */
void result_log(const cr_result *r, cr_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
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

/* ---- jobs whose addresses are partly unknown (union-partial.c) ---------- */
/* Whether some answer of @answers (cr_result_builder *) declared @job's size. */
bool partial_declared(GPtrArray *answers, const char *job);
/* Merge @job, declared partial by some answer, into @res (see semantics.md):
 * the declared size, every answer's addresses of a job of that size (the
 * first in config order wins a task), and the note on who left it
 * partial. */
cr_status partial_merge_job(GPtrArray *answers, cr_result *res, const char *job, cr_error *err);
/* After a single answer became @res whole: its note and place. */
void partial_note(cr_result *res, const cr_result_builder *b);

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

/* ---- watching (member.c, watch.c) --------------------------------------- */
typedef struct watch_state {
	uint64_t generation; /* of the last result returned; 0 before the first */
	GBytes *canon;       /* its result_canon */
	char *member_job;    /* the task this process follows, by job and address */
	char *member_address;
	int64_t retry_ms; /* after failed resolutions: the backoff before the next */
} watch_state;
watch_state *watch_state_new(void);
void watch_state_free(watch_state *ws);
/* Whether the first generation is out: a task override no longer pins. */
bool member_pins_dropped(const cr_context *ctx);
/* Remember @res's own task (job and address) as the member to follow. */
void member_remember(watch_state *ws, const cr_result *res);
/* After the first generation: give @res the identity of the member (see
 * cr_context_watch), or none when it left. Called by cr_context_resolve
 * between the union and the accelerator layer. */
void member_follow(cr_context *ctx, cr_result *res);
/* @res's canonical bytes: jobs by name, tasks by index with their
 * addresses and accelerators, identity, rpc layer, own counts; equal bytes
 * are equal results (a reordered answer is no change). (transfer full) */
GBytes *result_canon(const cr_result *res);

/* ---- instances (instance.c), the context (context.c; its state is in
 * host/host-private.h) ------------------------------------------------------ */
cr_instance *instance_new(cr_context *ctx, cr_plugin_kind kind, cr_plugin *plugin, const char *name,
			  const config_setting_t *setting);
void instance_free(gpointer p);
cr_status instance_create(cr_instance *inst, cr_error *err);
/* A manifest's stub (loader-manifest.c) replaced by its plugin, loaded;
 * CR_OK at once for any other instance. */
cr_status instance_unstub(cr_instance *inst, cr_error *err);
/* Create and probe (a stub whose plugin applies now is loaded first): CR_OK, CR_DECLINED (the plugin's reason, if any, in
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

/* ---- GPUs per task (gpus.c, gpus-busy.c) ---------------------------------- */
/* After the accelerator layer: with a gpus_per_task (a resolver's group,
 * else the top level), choose this task's GPUs into @res (its
 * CUDA_VISIBLE_DEVICES, GPU count and res->gpus); too few GPUs is an
 * error naming the key's FILE:LINE. Nothing without one. */
cr_status gpus_layer_run(cr_context *ctx, cr_result *res, cr_error *err);
void gpus_choice_free(gpus_choice *c);
/* The slot of a task: the first of its @n GPUs among @available, with
 * slot = @local_index mod (@available div @n), so a slot is always whole
 * (TFoS wraps on index*n and can return an empty or short slice). false:
 * fewer than @n GPUs (or @n <= 0). */
bool gpus_slot(size_t available, int64_t n, int64_t local_index, size_t *first);
/* busy[i]: whether NVML sees compute processes on GPU @keys[i] (a UUID or
 * an NVML index; NULL: not asked). NVML is @from's `library` (the
 * accelerator instance that reported the GPUs; nullable), else
 * libnvidia-ml.so.1; without it none is busy. */
void gpus_busy_mark(cr_context *ctx, cr_instance *from, const char *const *keys, size_t n,
		    bool *busy);

#endif /* CR_PIPELINE_PRIVATE_H */
