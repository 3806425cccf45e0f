/* SPDX-License-Identifier: MIT */
/*
 * accel.c - the accelerator layer. The count for this process's task is, in
 * order: the config's num_accelerators, what a resolver knows about the task
 * (a pod's GPU limit, Slurm's binding), then the local accelerator plugins.
 */
#include <string.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"

static cr_status run_accel(cr_instance *inst, cr_result *res, cr_error *err)
{
	cr_accel_list list = { .inst = inst, .devices = res->devices };
	cr_status st = instance_probe(inst, err);

	if (st != CR_OK)
		return st;
	st = inst->plugin->desc->accelerator->enumerate(inst->state, &inst->pctx, &list, err);
	inst->declined = st == CR_DECLINED;
	return instance_normalise(inst, st, err);
}

cr_status accel_layer_run(cr_context *ctx, GHashTable *cfg_accel, cr_result *res, cr_error *err)
{
	cr_status st = CR_OK;

	for (guint i = 0; i < ctx->accelerators->len; i++) {
		cr_instance *inst = g_ptr_array_index(ctx->accelerators, i);
		cr_error aerr = CR_ERROR_INIT;

		st = run_accel(inst, res, &aerr);
		if (st != CR_OK && !instance_passed_over(ctx, inst, st, &aerr)) {
			if (err != NULL)
				*err = aerr;
			return st;
		}
	}
	if (cfg_accel != NULL && g_hash_table_size(cfg_accel) > 0) {
		GHashTableIter it;
		gpointer k, v;

		g_hash_table_remove_all(res->accel);
		g_hash_table_iter_init(&it, cfg_accel);
		while (g_hash_table_iter_next(&it, &k, &v))
			accel_counts_put(res->accel, k, *(int64_t *)v);
		g_free(res->accel_source);
		res->accel_source = g_strdup("config");
	} else if (res->accel_source == NULL &&
		   accel_count_devices(res, res->task_type, res->task_id, res->accel) > 0) {
		res->accel_source = g_strdup("local devices");
	}
	return CR_OK;
}

/* Whether device @d counts for task (@job, @index): a device a plugin gave
 * to a task counts for exactly that task (the job name and the index
 * compared whole, never as parts of a "/job:J/task:I" string: "worker1" is
 * not "worker10", "work" not "worker"); an unassigned one for this
 * process's own task (@own). With no task (either part unknown) every
 * device counts: TensorFlow filters only when both are given (issue 27
 * section 2). */
bool accel_device_of_task(const accel_device *d, const char *job, int64_t index, bool own)
{
	if (job == NULL || index < 0)
		return true;
	if (d->dev.task_job == NULL)
		return own;
	return job != NULL && strcmp(d->dev.task_job, job) == 0 && d->dev.task_index == index;
}

bool accel_is_own_task(const cr_result *r, const char *job, int64_t index)
{
	return job == NULL || (g_strcmp0(job, r->task_type) == 0 && index == r->task_id);
}

size_t accel_count_devices(const cr_result *r, const char *job, int64_t index, GHashTable *counts)
{
	bool own = accel_is_own_task(r, job, index);
	size_t found = 0;

	for (guint i = 0; i < r->devices->len; i++) {
		const accel_device *d = g_ptr_array_index(r->devices, i);
		int64_t *n;

		if (!accel_device_of_task(d, job, index, own))
			continue;
		n = g_hash_table_lookup(counts, d->dev.kind);
		accel_counts_put(counts, d->dev.kind, n != NULL ? *n + 1 : 1);
		found++;
	}
	return found;
}
