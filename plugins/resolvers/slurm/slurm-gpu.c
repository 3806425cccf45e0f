/* SPDX-License-Identifier: MIT */
/*
 * slurm-gpu.c - the GPUs of each task, from what Slurm bound.
 *
 * Slurm says it three ways: CUDA_VISIBLE_DEVICES (what CUDA will use),
 * SLURM_STEP_GPUS (the GPUs bound to this task or node) and
 * SLURM_GPUS_ON_NODE (how many the node has for the step). When the task's
 * own list is shorter than SLURM_GPUS_ON_NODE, Slurm bound GPUs per task
 * (--gpus-per-task) and that list is the task's. Otherwise the node's list
 * is shared and split as TensorFlow does: each task gets gpus_per_task
 * consecutive entries, gpus_per_task defaulting to gpus / most tasks on a
 * node (0 for a CPU-only allocation: empty lists, never a crash). An empty
 * CUDA_VISIBLE_DEVICES means 0 GPUs. With none of the variables and no
 * gpus_per_node / gpus_per_task in the config, the GPUs are unknown and
 * left to the accelerator plugins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"

/* A comma list split into malloc'd items; "" has none. */
typedef struct slurm_list {
	char **items;
	size_t n;
} slurm_list;

static void slurm_list_clear(slurm_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

static int slurm_list_push(slurm_list *l, const char *s, size_t len)
{
	char **bigger = realloc(l->items, (l->n + 1) * sizeof(char *));

	if (bigger == NULL)
		return -1;
	l->items = bigger;
	l->items[l->n] = strndup(s, len);
	if (l->items[l->n] == NULL)
		return -1;
	l->n++;
	return 0;
}

static int slurm_list_split(slurm_list *l, const char *v)
{
	while (v != NULL && *v != '\0') {
		size_t len = strcspn(v, ",");

		if (len > 0 && slurm_list_push(l, v, len) != 0)
			return -1;
		v += len;
		if (*v == ',')
			v++;
	}
	return 0;
}

static int slurm_list_numbers(slurm_list *l, uint32_t n)
{
	char buf[16];

	for (uint32_t i = 0; i < n; i++) {
		int len = snprintf(buf, sizeof(buf), "%u", i);

		if (slurm_list_push(l, buf, (size_t)len) != 0)
			return -1;
	}
	return 0;
}

/* "a,b,c" of items [from, from + n). */
static char *slurm_list_join(const slurm_list *l, size_t from, size_t n)
{
	size_t len = 1;
	char *out, *p;

	for (size_t i = from; i < from + n; i++)
		len += strlen(l->items[i]) + 1;
	out = p = malloc(len);
	if (out == NULL)
		return NULL;
	for (size_t i = from; i < from + n; i++) {
		size_t k = strlen(l->items[i]);

		if (i > from)
			*p++ = ',';
		memcpy(p, l->items[i], k);
		p += k;
	}
	*p = '\0';
	return out;
}

/* The node's shared GPU list, trimmed or made up by gpus_per_node. */
static cr_status slurm_node_list(const slurm_config *cfg, slurm_list *l, const char *var,
				 const char *value, cr_error *err)
{
	if (!cfg->gpn_set)
		return CR_OK;
	if (l->n == 0 && value == NULL)
		return slurm_list_numbers(l, cfg->gpn) == 0 ? CR_OK : slurm_nomem(err);
	if (l->n < cfg->gpn)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "gpus_per_node = %u, but %s \"%s\" lists %zu GPUs",
					  cfg->gpn, var, value, l->n);
	while (l->n > cfg->gpn)
		free(l->items[--l->n]);
	return CR_OK;
}

cr_status slurm_gpus_resolve(cr_plugin_ctx *ctx, const slurm_config *cfg, const slurm_layout *lay,
			     long rank, slurm_gpus *gpus, cr_error *err)
{
	const char *cvd = cr_host->getenv(ctx, "CUDA_VISIBLE_DEVICES");
	const char *step = cr_host->getenv(ctx, "SLURM_STEP_GPUS");
	const char *on_node = cr_host->getenv(ctx, "SLURM_GPUS_ON_NODE");
	const char *var = cvd != NULL ? "CUDA_VISIBLE_DEVICES" : "SLURM_STEP_GPUS";
	const char *value = cvd != NULL ? cvd : step;
	slurm_list l = { NULL, 0 };
	uint32_t node_total = 0, gpt;
	size_t first = 0;
	cr_status st = CR_OK;

	memset(gpus, 0, sizeof(*gpus));
	if (!cfg->gpn_set && !cfg->gpt_set && value == NULL && on_node == NULL)
		return CR_OK;
	if (on_node != NULL &&
	    (st = slurm_parse_uint("SLURM_GPUS_ON_NODE", on_node, &node_total, err)) != CR_OK)
		return st;
	/* The environment's count gets its config twin's cap: a list of 4e9
	 * made-up GPU numbers would exhaust memory before failing. */
	if (node_total > SLURM_GPUS_MAX)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "SLURM_GPUS_ON_NODE \"%s\" is more than %u GPUs", on_node,
					  SLURM_GPUS_MAX);
	if (slurm_list_split(&l, value) != 0 ||
	    (value == NULL && slurm_list_numbers(&l, node_total) != 0)) {
		st = slurm_nomem(err);
		goto out;
	}
	if (on_node != NULL && value != NULL && l.n < node_total && !cfg->gpn_set) {
		/* bound per task: this list is the task's own */
		gpt = cfg->gpt_set ? cfg->gpt : (uint32_t)l.n;
		if (gpt > l.n) {
			st = cr_host->error_set(err, CR_ERR_CONFIG,
						"gpus_per_task = %u, but %s \"%s\" gives this task "
						"%zu GPUs",
						gpt, var, value, l.n);
			goto out;
		}
	} else {
		st = slurm_node_list(cfg, &l, var, value, err);
		if (st != CR_OK)
			goto out;
		gpt = cfg->gpt_set ? cfg->gpt : (uint32_t)(l.n / lay->max_tpn);
		if ((uint64_t)gpt * lay->max_tpn > l.n) {
			st = cr_host->error_set(err, CR_ERR_CONFIG,
						"requested more GPUs per node than available: %u "
						"tasks x %u GPUs per task > %zu GPUs",
						lay->max_tpn, gpt, l.n);
			goto out;
		}
		if (rank >= 0) {
			uint32_t node, local;

			slurm_locate(lay, (size_t)rank, &node, &local);
			first = (size_t)local * gpt;
		}
	}
	gpus->known = true;
	gpus->per_task = gpt;
	if (rank >= 0 && (gpus->mine = slurm_list_join(&l, first, gpt)) == NULL)
		st = slurm_nomem(err);
out:
	slurm_list_clear(&l);
	return st;
}

void slurm_gpus_clear(slurm_gpus *gpus)
{
	free(gpus->mine);
	memset(gpus, 0, sizeof(*gpus));
}
