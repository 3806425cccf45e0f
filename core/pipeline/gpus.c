/* SPDX-License-Identifier: MIT */
/*
 * gpus.c - `gpus_per_task = n`: which GPUs this task uses, for every
 * resolver (TensorFlowOnSpark's _get_gpus / get_gpus with the fixes of
 * tf-semantics §14.18). Runs after the accelerator layer:
 *
 *   - n: the `gpus_per_task` of the first answering resolver's group that
 *     has one (unless its plugin declares that option itself, as slurm
 *     does), else the top-level one; unset: nothing happens here.
 *     skip_busy_gpus is found the same way (default false).
 *   - The GPUs: those the accelerator layer found for this task, in its
 *     order, each named as CUDA_VISIBLE_DEVICES will name it (gpus_id).
 *     Only where no accelerator plugin reported a GPU (no NVML, no driver
 *     tree) and CUDA_VISIBLE_DEVICES is set are its entries taken as
 *     written (a binding, or Spark's resources, that nothing can check).
 *   - skip_busy_gpus: GPUs on which NVML sees compute processes are left
 *     out (gpus-busy.c).
 *   - The local index: this task's place among the cluster's tasks (jobs in
 *     order, then indices) whose whole host equals its host.
 *   - slot = local index mod (available div n); the task gets the n GPUs of
 *     that slot, never an empty or short slice. Fewer than n: TFoS's
 *     "unable to allocate n GPU(s) from available GPUs: [...]".
 *
 * The choice becomes CUDA_VISIBLE_DEVICES in the result's variables (exec,
 * `--format env`), this task's GPU count (unless the config's
 * num_accelerators says otherwise), and res->gpus for `explain`.
 */
#include <string.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"

#define CVD "CUDA_VISIBLE_DEVICES"

void gpus_choice_free(gpus_choice *c)
{
	if (c == NULL)
		return;
	g_free(c->at);
	g_free(c->host);
	g_free(c->source);
	g_ptr_array_unref(c->available);
	g_ptr_array_unref(c->busy);
	g_free(c->chosen);
	g_free(c);
}

bool gpus_slot(size_t available, int64_t n, int64_t local_index, size_t *first)
{
	int64_t slots;

	if (n <= 0 || (int64_t)available < n)
		return false;
	slots = (int64_t)available / n;
	*first = (size_t)(((local_index < 0 ? 0 : local_index) % slots) * n);
	return true;
}

/* The core's key @key of @inst's group, unless its plugin declares it. */
static const config_setting_t *gpus_group_key(const cr_instance *inst, const char *key)
{
	if (inst->setting == NULL || schema_core_key(inst->plugin->desc, key) == NULL)
		return NULL;
	return config_setting_get_member(inst->setting, key);
}

/* Key @key of the first answering resolver's group that has it (NULL:
 * none has; the top level's then). */
static const config_setting_t *gpus_answer_key(const cr_result *res, const char *key)
{
	const config_setting_t *s = NULL;

	for (guint i = 0; i < res->answered->len && s == NULL; i++)
		s = gpus_group_key(g_ptr_array_index(res->answered, i), key);
	return s;
}

/* n, where it was said, and skip_busy_gpus: each the first answering
 * resolver's group's that has it, else the top level's. false:
 * gpus_per_task is not set. */
static bool gpus_settings(const cr_context *ctx, const cr_result *res, gpus_choice *c)
{
	const config_setting_t *s = gpus_answer_key(res, "gpus_per_task");
	const config_setting_t *busy = gpus_answer_key(res, "skip_busy_gpus");

	if (s != NULL) {
		c->per_task = config_setting_get_int64(s);
		c->at = g_strdup_printf("%s:%d", AT(s));
	} else if (ctx->plan->gpus_per_task >= 0) {
		c->per_task = ctx->plan->gpus_per_task;
		c->at = g_strdup(ctx->plan->gpus_at);
	} else {
		return false;
	}
	c->skip_busy =
		busy != NULL ? config_setting_get_bool(busy) != 0 : ctx->plan->skip_busy_gpus > 0;
	return true;
}

/* The host of "host:port" / "[v6]:port" (brackets kept). */
static char *gpus_host_of(const char *address)
{
	const char *end = address[0] == '[' ? strchr(address, ']') : strchr(address, ':');

	if (end != NULL && address[0] == '[')
		end++;
	return end != NULL ? g_strndup(address, (gsize)(end - address)) : g_strdup(address);
}

/* This task's place among the cluster's tasks on its host (jobs in order,
 * then indices; the whole host compared, so 10.0.0.1 is not 10.0.0.10). */
static void gpus_local_index(const cr_result *res, gpus_choice *c)
{
	const char *self = NULL;
	bool found = false;

	c->local_index = 0;
	c->host_tasks = 0;
	/* A launcher's own place for this task (torchrun's LOCAL_RANK) wins. */
	if (res->place.num_nodes > 0) {
		c->local_index = res->place.local_rank;
		c->host_tasks = res->place.local_size;
		c->host = g_strdup_printf("(node %" G_GINT64_FORMAT ")", res->place.node_rank);
		return;
	}
	if (res->task_type == NULL || res->task_id < 0 ||
	    cr_spec_task_address(res->spec, res->task_type, res->task_id, &self, NULL) != CR_OK)
		return;
	c->host = gpus_host_of(self);
	for (size_t j = 0; j < cr_spec_num_jobs(res->spec); j++) {
		const char *job = cr_spec_job_name(res->spec, j);
		const int32_t *idx = NULL;
		size_t n = 0;

		cr_spec_task_indices(res->spec, job, &idx, &n, NULL);
		for (size_t k = 0; k < n; k++) {
			const char *a = NULL;
			char *host;

			cr_spec_task_address(res->spec, job, idx[k], &a, NULL);
			host = gpus_host_of(a);
			if (strcmp(host, c->host) == 0) {
				if (strcmp(job, res->task_type) == 0 && idx[k] == res->task_id)
					found = true;
				else if (!found)
					c->local_index++;
				c->host_tasks++;
			}
			g_free(host);
		}
	}
}

/* Whether CUDA_VISIBLE_DEVICES must name device @d by UUID, for a process
 * started with it (which replaces this process's value): a MIG instance,
 * a device that a binding variable numbered, one without an index. */
static bool gpus_needs_uuid(const accel_device *d)
{
	return d->dev.parent_index >= 0 || d->dev.visible_by != NULL || d->dev.index < 0;
}

/* How CUDA_VISIBLE_DEVICES names @d: by UUID when @by_uuid (one device of
 * the list needs it: the list is named one way) or it has no index, else
 * by the index CUDA gives it. NULL: it cannot be named. */
static char *gpus_id(const accel_device *d, bool by_uuid)
{
	const cr_accel_device *v = &d->dev;

	if (v->uuid != NULL && (by_uuid || v->index < 0))
		return g_strdup(v->uuid);
	return v->index >= 0 ? g_strdup_printf("%d", (int)v->index) : NULL;
}

static cr_instance *gpus_accel_instance(const cr_context *ctx, const char *name)
{
	for (guint i = 0; i < ctx->accelerators->len; i++) {
		cr_instance *inst = g_ptr_array_index(ctx->accelerators, i);

		if (strcmp(inst->name, name) == 0)
			return inst;
	}
	return NULL;
}

/* The candidates, in order, into c->available; @keys: what NVML is asked
 * about each (a UUID, an index, or NULL: never busy). *@from: the
 * accelerator instance that reported them (the first one). */
static void gpus_candidates(cr_context *ctx, const cr_result *res, gpus_choice *c, GPtrArray *keys,
			    cr_instance **from)
{
	GString *source = g_string_new(NULL);
	bool by_uuid = false;
	const char *cvd;

	*from = NULL;
	for (guint i = 0; i < res->devices->len; i++) {
		const accel_device *d = g_ptr_array_index(res->devices, i);

		by_uuid = by_uuid || (strcmp(d->dev.kind, "GPU") == 0 &&
				      accel_device_of_task(d, res->task_type, res->task_id, true) &&
				      gpus_needs_uuid(d));
	}
	for (guint i = 0; i < res->devices->len; i++) {
		const accel_device *d = g_ptr_array_index(res->devices, i);
		char *id, *name;

		if (strcmp(d->dev.kind, "GPU") != 0 ||
		    !accel_device_of_task(d, res->task_type, res->task_id, true))
			continue;
		id = gpus_id(d, by_uuid);
		if (id == NULL) {
			ctx_log(ctx, CR_LOG_WARNING, "gpus",
				"a GPU of accelerator '%s' has neither an index nor a UUID: left "
				"out",
				d->plugin);
			continue;
		}
		g_ptr_array_add(c->available, id);
		g_ptr_array_add(keys, g_strdup(d->dev.uuid));
		if (*from == NULL)
			*from = gpus_accel_instance(ctx, d->plugin);
		name = g_strdup_printf("accelerator '%s'", d->plugin);
		if (strstr(source->str, name) == NULL)
			g_string_append_printf(source, "%s%s", source->len ? ", " : "", name);
		g_free(name);
	}
	cvd = ctx_getenv(ctx, CVD);
	if (c->available->len == 0 && cvd != NULL) {
		/* CUDA's rule: the list ends at an empty or negative entry. */
		gchar **parts = g_strsplit(cvd, ",", -1);

		for (gchar **p = parts; *p != NULL; p++) {
			g_strstrip(*p);
			if (**p == '\0' || **p == '-' || strcmp(*p, "NoDevFiles") == 0)
				break;
			g_ptr_array_add(c->available, g_strdup(*p));
			g_ptr_array_add(keys, g_strdup(*p));
		}
		g_strfreev(parts);
		g_string_assign(source, CVD " (no accelerator plugin reported a GPU)");
	}
	c->source = g_string_free(source, source->len == 0);
}

static void gpus_skip_busy(cr_context *ctx, gpus_choice *c, GPtrArray *keys, cr_instance *from)
{
	GPtrArray *kept = g_ptr_array_new_with_free_func(g_free);
	bool *busy = g_new0(bool, keys->len + 1);

	gpus_busy_mark(ctx, from, (const char *const *)keys->pdata, keys->len, busy);
	for (guint i = 0; i < c->available->len; i++) {
		const char *id = g_ptr_array_index(c->available, i);

		if (busy[i])
			ctx_log(ctx, CR_LOG_INFO, "gpus",
				"GPU %s is busy (compute processes): skipped", id);
		g_ptr_array_add(busy[i] ? c->busy : kept, g_strdup(id));
	}
	g_ptr_array_unref(c->available);
	c->available = kept;
	g_free(busy);
}

static char *gpus_join(const GPtrArray *ids, guint from, guint n, const char *sep)
{
	GString *s = g_string_new(NULL);

	for (guint i = from; i < from + n && i < ids->len; i++)
		g_string_append_printf(s, "%s%s", i > from ? sep : "",
				       (const char *)g_ptr_array_index(ids, i));
	return g_string_free(s, FALSE);
}

static void gpus_set_env(cr_context *ctx, cr_result *res, const char *value)
{
	for (guint i = 0; i + 1 < res->env->len; i += 2) {
		if (strcmp(g_ptr_array_index(res->env, i), CVD) != 0)
			continue;
		ctx_log(ctx, CR_LOG_INFO, "gpus", "gpus_per_task replaces a resolver's " CVD "=%s",
			(const char *)g_ptr_array_index(res->env, i + 1));
		g_free(res->env->pdata[i + 1]);
		res->env->pdata[i + 1] = g_strdup(value);
		return;
	}
	g_ptr_array_add(res->env, g_strdup(CVD));
	g_ptr_array_add(res->env, g_strdup(value));
}

/* This task's GPU count is n (the config's num_accelerators still wins). */
static void gpus_set_count(cr_context *ctx, cr_result *res, int64_t n)
{
	if (ctx->plan->num_accelerators != NULL && g_hash_table_size(ctx->plan->num_accelerators))
		return;
	if (n > 0)
		accel_counts_put(res->accel, "GPU", n);
	else
		g_hash_table_remove(res->accel, "GPU");
	g_free(res->accel_source);
	res->accel_source = g_strdup("gpus_per_task");
}

static cr_status gpus_choose(cr_context *ctx, cr_result *res, gpus_choice *c, cr_error *err)
{
	GPtrArray *keys = g_ptr_array_new_with_free_func(g_free);
	cr_instance *from = NULL;
	size_t first = 0;
	char *list, *busy;
	cr_status st;

	gpus_candidates(ctx, res, c, keys, &from);
	if (c->skip_busy && c->available->len > 0)
		gpus_skip_busy(ctx, c, keys, from);
	g_ptr_array_unref(keys);
	if (gpus_slot(c->available->len, c->per_task, c->local_index, &first)) {
		c->chosen = gpus_join(c->available, (guint)first, (guint)c->per_task, ",");
		return CR_OK;
	}
	list = gpus_join(c->available, 0, c->available->len, ", ");
	busy = gpus_join(c->busy, 0, c->busy->len, ", ");
	st = error_set(err, CR_ERR_BACKEND,
		       "%s: gpus_per_task = %" G_GINT64_FORMAT
		       ": unable to allocate %" G_GINT64_FORMAT
		       " GPU(s) from available GPUs: [%s]%s%s%s",
		       c->at, c->per_task, c->per_task, list, c->busy->len ? " (busy: [" : "", busy,
		       c->busy->len ? "])" : "");
	g_free(list);
	g_free(busy);
	return st;
}

cr_status gpus_layer_run(cr_context *ctx, cr_result *res, cr_error *err)
{
	gpus_choice *c = g_new0(gpus_choice, 1);
	cr_status st = CR_OK;

	c->available = g_ptr_array_new_with_free_func(g_free);
	c->busy = g_ptr_array_new_with_free_func(g_free);
	if (!gpus_settings(ctx, res, c)) {
		gpus_choice_free(c);
		return CR_OK;
	}
	gpus_local_index(res, c);
	if (c->per_task == 0)
		c->chosen = g_strdup("");
	else
		st = gpus_choose(ctx, res, c, err);
	if (st != CR_OK) {
		gpus_choice_free(c);
		return st;
	}
	ctx_log(ctx, CR_LOG_INFO, "gpus", CVD "=%s (local index %" G_GINT64_FORMAT " on host %s)",
		c->chosen, c->local_index, c->host != NULL ? c->host : "(unknown)");
	gpus_set_env(ctx, res, c->chosen);
	gpus_set_count(ctx, res, c->per_task);
	gpus_choice_free(res->gpus);
	res->gpus = c;
	return CR_OK;
}
