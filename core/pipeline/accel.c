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
 * process's own task (@own). */
static bool device_of_task(const accel_device *d, const char *job, int64_t index, bool own)
{
	if (d->dev.task_job == NULL)
		return own;
	return job != NULL && strcmp(d->dev.task_job, job) == 0 && d->dev.task_index == index;
}

static bool is_own_task(const cr_result *r, const char *job, int64_t index)
{
	return job == NULL || (g_strcmp0(job, r->task_type) == 0 && index == r->task_id);
}

size_t accel_count_devices(const cr_result *r, const char *job, int64_t index, GHashTable *counts)
{
	bool own = is_own_task(r, job, index);
	size_t found = 0;

	for (guint i = 0; i < r->devices->len; i++) {
		const accel_device *d = g_ptr_array_index(r->devices, i);
		int64_t *n;

		if (!device_of_task(d, job, index, own))
			continue;
		n = g_hash_table_lookup(counts, d->dev.kind);
		accel_counts_put(counts, d->dev.kind, n != NULL ? *n + 1 : 1);
		found++;
	}
	return found;
}

void write_counts(GString *out, GHashTable *counts)
{
	GPtrArray *kinds = g_ptr_array_new();
	GHashTableIter it;
	gpointer k;

	if (counts != NULL) {
		g_hash_table_iter_init(&it, counts);
		while (g_hash_table_iter_next(&it, &k, NULL))
			g_ptr_array_add(kinds, k);
	}
	g_ptr_array_sort(kinds, str_ptr_cmp);
	g_string_append_c(out, '{');
	for (guint i = 0; i < kinds->len; i++) {
		const char *kind = g_ptr_array_index(kinds, i);

		if (i > 0)
			g_string_append(out, ", ");
		jw_string(out, kind);
		g_string_append_printf(out, ": %" G_GINT64_FORMAT,
				       *(int64_t *)g_hash_table_lookup(counts, kind));
	}
	g_string_append_c(out, '}');
	g_ptr_array_unref(kinds);
}

static void write_device(GString *out, const accel_device *d)
{
	const cr_accel_device *v = &d->dev;

	g_string_append(out, "{\"plugin\": ");
	jw_string(out, d->plugin);
	g_string_append(out, ", \"kind\": ");
	jw_string(out, v->kind);
#define STR_FIELD(f)                                                                               \
	if (v->f != NULL) {                                                                        \
		g_string_append(out, ", \"" #f "\": ");                                            \
		jw_string(out, v->f);                                                              \
	}
#define INT_FIELD(f)                                                                               \
	if (v->f >= 0)                                                                             \
		g_string_append_printf(out, ", \"" #f "\": %d", (int)v->f);
	STR_FIELD(vendor);
	STR_FIELD(model);
	INT_FIELD(index);
	INT_FIELD(physical_index);
	STR_FIELD(uuid);
	if (v->memory_bytes > 0)
		g_string_append_printf(out, ", \"memory_bytes\": %" G_GUINT64_FORMAT,
				       v->memory_bytes);
	STR_FIELD(pci_bus_id);
	STR_FIELD(visible_by);
	INT_FIELD(parent_index);
	STR_FIELD(task_job);
	if (v->task_job != NULL && v->task_index >= 0)
		g_string_append_printf(out, ", \"task_index\": %" G_GINT64_FORMAT, v->task_index);
#undef STR_FIELD
#undef INT_FIELD
	g_string_append_c(out, '}');
}

cr_status cr_result_accelerators_json(const cr_result *r, const char *task_type, int64_t task_id,
				      bool devices, char **json, cr_error *err)
{
	GString *out;
	GHashTable *counts, *own_devices = NULL;
	bool own;

	if (r == NULL || json == NULL)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr_result_accelerators_json: NULL argument");
	if ((task_type == NULL) != (task_id < 0))
		return error_set(err, CR_ERR_INVALID_ARG,
				 "accelerators of one task need both a task type and a task id");
	own = is_own_task(r, task_type, task_id);
	if (!own && cr_spec_task_address(r->spec, task_type, task_id, NULL, err) != CR_OK)
		return err != NULL ? err->code : CR_ERR_NOT_FOUND;
	if (own) {
		counts = r->accel;
	} else {
		counts = task_accel_get(r->task_accel, task_type, task_id);
		/* Nothing from a resolver: the local devices given to that task. */
		if (counts == NULL) {
			own_devices = accel_counts_new();
			accel_count_devices(r, task_type, task_id, own_devices);
			counts = own_devices;
		}
	}
	out = g_string_new(NULL);
	if (devices) {
		bool first = true;

		g_string_append(out, "{\"num_accelerators\": ");
		write_counts(out, counts);
		g_string_append(out, ", \"devices\": [");
		for (guint i = 0; i < r->devices->len; i++) {
			const accel_device *d = g_ptr_array_index(r->devices, i);

			if (!device_of_task(d, own ? r->task_type : task_type,
					    own ? r->task_id : task_id, own))
				continue;
			if (!first)
				g_string_append(out, ", ");
			first = false;
			write_device(out, d);
		}
		g_string_append(out, "]}");
	} else {
		write_counts(out, counts);
	}
	if (own_devices != NULL)
		g_hash_table_unref(own_devices);
	*json = g_string_free(out, FALSE);
	return CR_OK;
}
