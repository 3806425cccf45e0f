/* SPDX-License-Identifier: MIT */
/*
 * result.c - what the application gets back: the cr_result made by the
 * union, its accessors, the master URL and the passed descriptors.
 */
#include <stdarg.h>
#include <string.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"

/* ---- cr_result ----------------------------------------------------------- */

cr_result *result_new(void)
{
	cr_result *r = g_new0(cr_result, 1);

	r->spec = cr_spec_new();
	r->task_id = -1;
	r->accel = accel_counts_new();
	r->devices = g_ptr_array_new_with_free_func(accel_device_free);
	r->env = g_ptr_array_new_with_free_func(g_free);
	r->task_accel = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					      (GDestroyNotify)g_hash_table_unref);
	r->fds = g_ptr_array_new_with_free_func(passed_fd_free);
	r->answered = g_ptr_array_new();
	r->partial = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return r;
}

void result_log(const cr_result *r, cr_log_level level, const char *fmt, ...)
{
	char *msg;
	va_list ap;

	if (r == NULL || r->log_fn == NULL || level > r->log_level)
		return;
	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	r->log_fn(level, NULL, msg, r->log_data);
	g_free(msg);
}

void result_take_extras(cr_result *res, cr_result_builder *b)
{
	if (b->inst != NULL)
		g_ptr_array_add(res->answered, b->inst);
	while (b->fds->len > 0) {
		passed_fd *pf = g_ptr_array_steal_index(b->fds, 0);
		bool taken = false;

		for (guint i = 0; i < res->fds->len && !taken; i++)
			taken = strcmp(((passed_fd *)g_ptr_array_index(res->fds, i))->env_name,
				       pf->env_name) == 0;
		if (taken)
			passed_fd_free(pf);
		else
			g_ptr_array_add(res->fds, pf);
	}
}

void cr_result_free(cr_result *r)
{
	if (r == NULL)
		return;
	cr_spec_free(r->spec);
	g_free(r->task_type);
	g_free(r->rpc_layer);
	g_free(r->own_layer);
	g_free(r->environment);
	g_free(r->master);
	g_free(r->accel_source);
	g_hash_table_unref(r->accel);
	g_hash_table_unref(r->task_accel);
	g_ptr_array_unref(r->devices);
	g_ptr_array_unref(r->env);
	g_ptr_array_unref(r->fds);
	g_ptr_array_unref(r->answered);
	g_hash_table_unref(r->partial);
	g_strfreev(r->format_options);
	gpus_choice_free(r->gpus);
	g_free(r->generation_id);
	g_free(r);
}

const cr_spec *cr_result_spec(const cr_result *r)
{
	return r != NULL ? r->spec : NULL;
}

const char *cr_result_task_type(const cr_result *r)
{
	return r != NULL ? r->task_type : NULL;
}

int64_t cr_result_task_id(const cr_result *r)
{
	return r != NULL ? r->task_id : -1;
}

const char *cr_result_rpc_layer(const cr_result *r)
{
	return r != NULL ? r->rpc_layer : NULL;
}

const char *cr_result_environment(const cr_result *r)
{
	return r != NULL ? r->environment : NULL;
}

cr_status cr_result_keep_tasks(cr_result *r, size_t max_tasks, cr_error *err)
{
	cr_spec *kept;
	size_t left = max_tasks;
	cr_status st = CR_OK;

	if (r == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_result_keep_tasks: no result");
	kept = cr_spec_new();
	for (size_t j = 0; st == CR_OK && j < cr_spec_num_jobs(r->spec); j++) {
		const char *job = cr_spec_job_name(r->spec, j);
		const int32_t *idx = NULL;
		size_t n = 0;

		st = cr_spec_add_job(kept, job, err);
		if (st == CR_OK)
			st = cr_spec_task_indices(r->spec, job, &idx, &n, err);
		for (size_t t = 0; st == CR_OK && t < n && left > 0; t++, left--) {
			const char *address = NULL;

			st = cr_spec_task_address(r->spec, job, idx[t], &address, err);
			if (st == CR_OK)
				st = cr_spec_add_task(kept, job, idx[t], address, err);
		}
	}
	if (st != CR_OK) {
		cr_spec_free(kept);
		return st;
	}
	cr_spec_free(r->spec);
	r->spec = kept;
	return CR_OK;
}

char *format_master_url(const char *address, const char *rpc_layer)
{
	/* TensorFlow gives "grpc://" for an empty address; we give "" (fix). */
	if (address == NULL || *address == '\0')
		return g_strdup("");
	if (rpc_layer == NULL || *rpc_layer == '\0')
		return g_strdup(address);
	return g_strdup_printf("%s://%s", rpc_layer, address);
}

/* TensorFlow's union asks the first resolver: master(rpc_layer=...). A
 * plugin with a master op answers for the effective layer (CR_DECLINED:
 * the host decides); otherwise the string it set is used verbatim. */
cr_status builder_master(const cr_result_builder *b, const char *rpc_layer, char **out,
			 cr_error *err)
{
	const cr_resolver_ops *ops =
		b->inst != NULL && b->inst->plugin != NULL ? b->inst->plugin->desc->resolver : NULL;
	cr_text text = { NULL };
	cr_status st;

	*out = NULL;
	if (ops != NULL && ops->master != NULL) {
		st = ops->master(b->inst->state, &b->inst->pctx, NULL, -1, rpc_layer, &text, err);
		if (st == CR_OK) {
			*out = text.text != NULL ? text.text : g_strdup("");
			return CR_OK;
		}
		g_free(text.text);
		if (st != CR_DECLINED) {
			if (err != NULL && err->message[0] == '\0')
				error_set(err, st, "%s", cr_strerror(st));
			error_prefix(err, "%s: master: ", b->inst->label);
			return st;
		}
	}
	*out = g_strdup(b->master);
	return CR_OK;
}

/* The layer @b's resolver gives a master for an rpc layer of "": the
 * scheme of its master op's answer (gce, tpu: their own, as TensorFlow's
 * `rpc_layer or self.rpc_layer`); NULL where it has no master op, or
 * answers without one (then "" means none, as TFConfig's). */
char *builder_own_layer(const cr_result_builder *b)
{
	const cr_resolver_ops *ops =
		b->inst != NULL && b->inst->plugin != NULL ? b->inst->plugin->desc->resolver : NULL;
	cr_text text = { NULL };
	const char *sep;
	char *layer = NULL;

	if (ops == NULL || ops->master == NULL)
		return NULL;
	if (ops->master(b->inst->state, &b->inst->pctx, NULL, -1, "", &text, NULL) == CR_OK &&
	    text.text != NULL && (sep = strstr(text.text, "://")) != NULL && sep > text.text)
		layer = g_strndup(text.text, (gsize)(sep - text.text));
	g_free(text.text);
	return layer;
}

cr_status cr_result_master(const cr_result *r, const char *task_type, int64_t task_id,
			   const char *rpc_layer, char **url, cr_error *err)
{
	const char *addr = NULL;
	const char *layer = rpc_layer != NULL ? rpc_layer : (r != NULL ? r->rpc_layer : NULL);
	cr_status st;

	if (r == NULL || url == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_result_master: NULL argument");
	/* "" is "the resolver's own layer" where TensorFlow's resolver says
	 * `rpc_layer or self.rpc_layer` (issue 27 section 2), a task given or not. */
	if (layer != NULL && *layer == '\0' && r->own_layer != NULL)
		layer = r->own_layer;
	*url = NULL;
	if ((task_type == NULL) != (task_id < 0))
		return error_set(err, CR_ERR_INVALID_ARG,
				 "a master for one task needs both a task type and a task id");
	/* No task asked for: the first resolver's own master, else our task's. */
	if (task_type == NULL && r->master != NULL) {
		*url = g_strdup(r->master);
		return CR_OK;
	}
	if (task_type == NULL && (r->task_type == NULL || r->task_id < 0)) {
		/* TensorFlow's Slurm and Kubernetes resolvers answer "" here; the
		 * status says why, for the caller to warn. */
		*url = g_strdup("");
		return error_set(err, CR_ERR_NOT_FOUND,
				 "no master: no task was given and this process's task is unknown");
	}
	if (task_type == NULL) {
		task_type = r->task_type;
		task_id = r->task_id;
	}
	st = cr_spec_task_address(r->spec, task_type, task_id, &addr, err);
	if (st != CR_OK && cr_spec_task_known(r->spec, task_type, task_id, NULL, NULL) == CR_OK)
		return error_set(err, CR_ERR_NOT_FOUND,
				 "the address of task '%s' %" G_GINT64_FORMAT
				 " is unknown (%s gave "
				 "only its coordinator's)",
				 task_type, task_id,
				 g_hash_table_contains(r->partial, task_type)
					 ? (const char *)g_hash_table_lookup(r->partial, task_type)
					 : "the resolvers");
	if (st != CR_OK)
		return st;
	*url = format_master_url(addr, layer);
	return CR_OK;
}

size_t cr_result_num_fds(const cr_result *r)
{
	return r != NULL ? r->fds->len : 0;
}

bool cr_result_fd(const cr_result *r, size_t i, int *fd, const char **env_name)
{
	const passed_fd *pf;

	if (r == NULL || i >= r->fds->len)
		return false;
	pf = g_ptr_array_index(r->fds, i);
	if (fd != NULL)
		*fd = pf->fd;
	if (env_name != NULL)
		*env_name = pf->env_name;
	return true;
}

size_t cr_result_num_accelerator_kinds(const cr_result *r)
{
	return r != NULL ? g_hash_table_size(r->accel) : 0;
}

bool cr_result_accelerator(const cr_result *r, size_t i, const char **kind, int64_t *count)
{
	GPtrArray *kinds;
	bool ok = false;

	if (r == NULL)
		return false;
	kinds = accel_counts_kinds(r->accel);
	if (i < kinds->len) {
		const char *k = g_ptr_array_index(kinds, i);

		if (kind != NULL)
			*kind = k;
		if (count != NULL)
			*count = *(int64_t *)g_hash_table_lookup(r->accel, k);
		ok = true;
	}
	g_ptr_array_unref(kinds);
	return ok;
}

size_t cr_result_num_env(const cr_result *r)
{
	return r != NULL ? r->env->len / 2 : 0;
}

bool cr_result_env(const cr_result *r, size_t i, const char **name, const char **value)
{
	if (r == NULL || 2 * i + 1 >= r->env->len)
		return false;
	if (name != NULL)
		*name = g_ptr_array_index(r->env, 2 * i);
	if (value != NULL)
		*value = g_ptr_array_index(r->env, 2 * i + 1);
	return true;
}
