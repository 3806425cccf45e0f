/* SPDX-License-Identifier: MIT */
/*
 * format-json.c - the JSON a result is written as: TF_CONFIG, the full
 * record (`json`: TF_CONFIG plus master and accelerator counts), the binary
 * ClusterDef, and the accelerators of a task (cr_result_accelerators_json).
 * The lowest file of the format layer: the framework formats embed
 * TF_CONFIG, and every writer of counts writes them here.
 */
#include <string.h>

#include <glib.h>

#include "format/format-private.h"

static bool has_identity(const cr_result *r)
{
	return r->task_type != NULL && r->task_id >= 0;
}

/* {"cluster": ..., "task": ..., "rpc_layer": ..., "environment": ...} without
 * the closing brace, so `json` can extend it. */
static void write_tf_config_body(const cr_result *r, GString *out)
{
	g_string_append(out, "{\"cluster\": ");
	spec_write_json(out, r->spec);
	if (has_identity(r)) {
		g_string_append(out, ", \"task\": {\"type\": ");
		jw_string(out, r->task_type);
		g_string_append_printf(out, ", \"index\": %" G_GINT64_FORMAT "}", r->task_id);
	}
	if (r->rpc_layer != NULL && *r->rpc_layer != '\0') {
		g_string_append(out, ", \"rpc_layer\": ");
		jw_string(out, r->rpc_layer);
	}
	if (r->environment != NULL && *r->environment != '\0') {
		g_string_append(out, ", \"environment\": ");
		jw_string(out, r->environment);
	}
}

cr_status format_need_addresses(const cr_result *r, const char *format, cr_error *err)
{
	for (size_t i = 0; i < cr_spec_num_jobs(r->spec); i++) {
		const char *job = cr_spec_job_name(r->spec, i), *by;
		size_t size = 0, unknown = cr_spec_num_unknown(r->spec, job);

		if (unknown == 0)
			continue;
		cr_spec_job_size(r->spec, job, &size, NULL);
		by = g_hash_table_lookup(r->partial, job);
		return error_set(err, CR_ERR_BACKEND,
				 "format '%s' needs every task's address: %s gave the addresses of "
				 "%zu of the %zu tasks of job '%s', not the others' (use --format "
				 "torch, torchrun, jax, env or json)",
				 format, by != NULL ? by : "the resolvers", size - unknown, size,
				 job);
	}
	return CR_OK;
}

cr_status fmt_tf_config(const cr_result *r, const char *const *options, GString *out, cr_error *err)
{
	cr_status st = format_need_addresses(r, "tf_config", err);

	if (st != CR_OK)
		return st;
	write_tf_config_body(r, out);
	g_string_append(out, "}\n");
	return CR_OK;
}

cr_status fmt_json(const cr_result *r, const char *const *options, GString *out, cr_error *err)
{
	char *master = NULL;

	write_tf_config_body(r, out);
	/* The `master` command's answer, for the same (effective) rpc layer;
	 * an unknown task gives "" here too. */
	if (cr_result_master(r, NULL, -1, NULL, &master, NULL) != CR_OK && master == NULL)
		master = g_strdup("");
	g_string_append(out, ", \"master\": ");
	jw_string(out, master);
	g_free(master);
	g_string_append(out, ", \"num_accelerators\": ");
	format_write_counts(out, r->accel);
	g_string_append(out, "}\n");
	return CR_OK;
}

cr_status fmt_clusterdef(const cr_result *r, const char *const *options, GString *out,
			 cr_error *err)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	cr_status st = format_need_addresses(r, "clusterdef", err);

	if (st == CR_OK)
		st = cr_spec_to_clusterdef(r->spec, &buf, &len, err);

	if (st == CR_OK)
		g_string_append_len(out, (const char *)buf, (gssize)len);
	g_free(buf);
	return st;
}

void format_write_counts(GString *out, GHashTable *counts)
{
	GPtrArray *kinds = accel_counts_kinds(counts);

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
	own = accel_is_own_task(r, task_type, task_id);
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
		format_write_counts(out, counts);
		g_string_append(out, ", \"devices\": [");
		for (guint i = 0; i < r->devices->len; i++) {
			const accel_device *d = g_ptr_array_index(r->devices, i);

			if (!accel_device_of_task(d, own ? r->task_type : task_type,
						  own ? r->task_id : task_id, own))
				continue;
			if (!first)
				g_string_append(out, ", ");
			first = false;
			write_device(out, d);
		}
		g_string_append(out, "]}");
	} else {
		format_write_counts(out, counts);
	}
	if (own_devices != NULL)
		g_hash_table_unref(own_devices);
	*json = g_string_free(out, FALSE);
	return CR_OK;
}
