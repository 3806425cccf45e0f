/* SPDX-License-Identifier: MIT */
/*
 * slurm.h - private declarations of the slurm resolver plugin.
 */
#ifndef CR_PLUGIN_SLURM_H
#define CR_PLUGIN_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

/* Where the number of tasks on each node comes from. */
typedef enum slurm_tpn_source {
	SLURM_TPN_ENV = 0,   /* SLURM_STEP_TASKS_PER_NODE (or the job's) */
	SLURM_TPN_INT = 1,   /* tasks_per_node = N: N on every node of the list */
	SLURM_TPN_GROUP = 2, /* tasks_per_node = { host = N; ... }: hosts too */
} slurm_tpn_source;

/* One job of the `jobs` option; the name is borrowed from the config. */
typedef struct slurm_job {
	const char *name;
	uint32_t count;
} slurm_job;

/* The plugin's configuration, read once in create(). */
typedef struct slurm_config {
	slurm_job *jobs; /* NULL: one "worker" job of every task */
	size_t n_jobs;
	int64_t port_base;
	slurm_tpn_source tpn_source;
	uint32_t tpn_int;
	const char **tpn_hosts; /* SLURM_TPN_GROUP: borrowed names */
	uint32_t *tpn_counts;
	size_t tpn_n;
	bool gpn_set;
	uint32_t gpn;
	bool gpt_set;
	uint32_t gpt;
	bool auto_set_gpu;
	const char *rpc_layer;
} slurm_config;

/* Which environment describes the tasks: the step's, or the job's. */
typedef struct slurm_env {
	const char *nodelist_var, *nodelist;
	const char *tpn_var, *tpn;
	const char *ntasks_var, *ntasks; /* nullable */
	bool in_step;
} slurm_env;

/* Where every rank runs. */
typedef struct slurm_layout {
	char *host_names;   /* the nodes' names, NUL-separated, in nodelist order */
	const char **hosts; /* NULL: name i is at host_names + i * stride; else
			     * n_nodes + 1 pointers into host_names: name i is
			     * hosts[i], hosts[i + 1] - hosts[i] - 1 bytes long */
	size_t stride;
	size_t n_nodes;
	uint32_t *tpn;      /* tasks on each node */
	uint32_t *host_tpn; /* from host->tasks_per_node_expand, or NULL */
	uint32_t max_tpn;
	bool uniform; /* max_tpn tasks on every node */
	size_t n_tasks;
	/* Block, cyclic and plane over a uniform list are computed from the
	 * rank (slurm_locate) with this plane size (block: max_tpn); other
	 * layouts are stored per rank: */
	uint32_t plane;
	uint32_t *node_of;  /* rank -> node index, or NULL */
	uint32_t *local_of; /* rank -> index among the tasks of its node */
	const char *dist;   /* distribution used: "block", "cyclic", ... */
	long local_node;    /* this process's node, or -1 when unknown */
} slurm_layout;

/* Walks the ranks in order from a start rank (no division per rank). */
typedef struct slurm_cursor {
	uint32_t node, local;
	/* computed layouts: the plane round, the index in this node's part of
	 * it and that part's size; full rounds (every node takes a plane) and
	 * what each node takes in the last, partial one */
	uint32_t round, j, width, full, rem;
	size_t rank;
} slurm_cursor;

static inline const char *slurm_host(const slurm_layout *lay, size_t node)
{
	return lay->hosts != NULL ? lay->hosts[node] : lay->host_names + node * lay->stride;
}

static inline size_t slurm_host_len(const slurm_layout *lay, size_t node)
{
	return lay->hosts != NULL ? (size_t)(lay->hosts[node + 1] - lay->hosts[node]) - 1
				  : lay->stride - 1;
}

/* GPUs of the tasks, when Slurm or the config says anything about them. */
typedef struct slurm_gpus {
	bool known;
	uint32_t per_task;
	char *mine; /* malloc'd CUDA_VISIBLE_DEVICES value for this task, or NULL */
} slurm_gpus;

/* slurm-env.c, below every other file: the variables and numbers in them. */
void slurm_env_read(cr_plugin_ctx *ctx, slurm_env *env);
cr_status slurm_parse_uint(const char *var, const char *value, uint32_t *out, cr_error *err);
cr_status slurm_nomem(cr_error *err);

cr_status slurm_config_read(cr_plugin_ctx *ctx, const cr_cfg *config, slurm_config *cfg,
			    cr_error *err);
void slurm_config_clear(slurm_config *cfg);

/* The most GPUs a node may have, from gpus_per_node or SLURM_GPUS_ON_NODE. */
#define SLURM_GPUS_MAX (1u << 20)
/* Where the tasks per node came from, for messages: the variable and its
 * value, or "tasks_per_node" and "(config)". */
void slurm_tpn_origin(const slurm_config *cfg, const slurm_env *env, const char **var,
		      const char **value);

/* The step's nodes in Slurm's order and the tasks on each (slurm-nodes.c),
 * from the environment or the config's fixed lists. */
cr_status slurm_nodes(cr_plugin_ctx *ctx, const slurm_config *cfg, const slurm_env *env,
		      slurm_layout *lay, cr_error *err);

cr_status slurm_layout_build(cr_plugin_ctx *ctx, const slurm_config *cfg, const slurm_env *env,
			     slurm_layout *lay, cr_error *err);
void slurm_layout_clear(slurm_layout *lay);
/* The node of @rank and its index among that node's tasks. */
void slurm_locate(const slurm_layout *lay, size_t rank, uint32_t *node, uint32_t *local);
void slurm_cursor_init(const slurm_layout *lay, slurm_cursor *c, size_t rank);

/* On to the next rank (inline: it runs once a task). */
static inline void slurm_cursor_next(const slurm_layout *lay, slurm_cursor *c)
{
	c->rank++;
	if (lay->node_of != NULL) {
		if (c->rank < lay->n_tasks) {
			c->node = lay->node_of[c->rank];
			c->local = lay->local_of[c->rank];
		}
		return;
	}
	if (++c->j >= c->width) {
		c->j = 0;
		if (++c->node == lay->n_nodes) {
			c->node = 0;
			if (++c->round == c->full)
				c->width = c->rem;
		}
	}
	c->local = c->round * lay->plane + c->j;
}

cr_status slurm_gpus_resolve(cr_plugin_ctx *ctx, const slurm_config *cfg, const slurm_layout *lay,
			     long rank, slurm_gpus *gpus, cr_error *err);
void slurm_gpus_clear(slurm_gpus *gpus);

#endif /* CR_PLUGIN_SLURM_H */
