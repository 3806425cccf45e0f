/* SPDX-License-Identifier: MIT */
/*
 * torch_env.h - torch-env.so's own interface between its files (layers.txt):
 * te_vars.c reads and checks variables, te_sources.c knows each launcher,
 * torch_env.c is the resolver.
 */
#ifndef TORCH_ENV_H
#define TORCH_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

/* ---- te_vars.c ----------------------------------------------------------- */
/* Whether @name is set and not empty. */
bool te_has(cr_plugin_ctx *ctx, const char *name);
/* @name of launcher @src, required: CR_ERR_NOT_FOUND "SRC sets NAME, but
 * NAME is not set" when absent. */
cr_status te_str(cr_plugin_ctx *ctx, const char *src, const char *name, const char **out,
		 cr_error *err);
/* @name as a decimal integer >= @min (and <= 2147483648): CR_ERR_PARSE
 * quoting the variable and its value. Absent: as te_str. */
cr_status te_int(cr_plugin_ctx *ctx, const char *src, const char *name, int64_t min, int64_t *out,
		 cr_error *err);
/* CR_ERR_PARSE "SRC: RANK_NAME=R is not below SIZE_NAME=S" unless r < s. */
cr_status te_below(const char *src, const char *rank_name, int64_t r, const char *size_name,
		   int64_t s, cr_error *err);

/* CR_ERR_PARSE "SRC: PART_NAME=P is more than WHOLE_NAME=W" unless p <= w. */
cr_status te_not_over(const char *src, const char *part_name, int64_t part, const char *whole_name,
		      int64_t whole, cr_error *err);

/* ---- te_sources.c -------------------------------------------------------- */
/* What a launcher tells this process: a world of @size tasks of @job, this
 * one @index, task 0 at @coord, this task's node and local rank. */
typedef struct te_world {
	const char *launcher; /* "torchrun", "Kubeflow PyTorchJob", ... */
	const char *job;
	int64_t size, index;
	char coord[320];        /* task 0's address, "host:port" */
	const char *coord_vars; /* the variables it came from */
	int64_t node_rank, num_nodes, local_rank, local_size;
	const char *vars; /* the variables read, for `explain` */
	char note[256];   /* what the launcher's variables mean here ("" none) */
} te_world;

/* The launcher that placed this process, its variables checked into @w.
 * @job names the job of processes ("worker"). Returns: CR_OK; CR_DECLINED
 * (reason in @err) when no launcher's variables are there; CR_ERR_PARSE or
 * CR_ERR_NOT_FOUND naming the variables that contradict each other or
 * are missing. */
cr_status te_detect(cr_plugin_ctx *ctx, const char *job, te_world *w, cr_error *err);

#endif /* TORCH_ENV_H */
