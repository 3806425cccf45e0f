/* SPDX-License-Identifier: MIT */
/*
 * union.c - merging the resolvers' answers, TensorFlow's
 * UnionClusterResolver rules with its bugs fixed:
 *  - jobs appear in first-seen order;
 *  - a job that is dense (indices 0..n-1, or empty) in every answer stays a
 *    list and the answers concatenate in config order;
 *  - if any answer has the job sparse, the job is an index map: dense answers
 *    contribute 0..n-1, sparse ones their own indices, and an index defined
 *    twice is an error naming both resolvers;
 *  - an empty job counts as an empty list (TensorFlow made it a dict);
 *  - identity overrides count when set, even to 0 or "" (TensorFlow tested
 *    truthiness).
 * The answers are spent by the merge: one answer becomes the result whole,
 * several give up their tasks (the addresses change owner, they are not
 * copied), so a 100,000-task answer is held once.
 */
#include <string.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"

struct union_state {
	GPtrArray *answers; /* cr_result_builder *, config order */
};

union_state *union_new(void)
{
	union_state *u = g_new0(union_state, 1);

	u->answers = g_ptr_array_new_with_free_func((GDestroyNotify)builder_free);
	return u;
}

void union_free(union_state *u)
{
	if (u == NULL)
		return;
	g_ptr_array_unref(u->answers);
	g_free(u);
}

void union_take(union_state *u, cr_result_builder *b)
{
	g_ptr_array_add(u->answers, b);
}

static const char *who(const cr_result_builder *b)
{
	return b->inst != NULL ? b->inst->label : "resolver";
}

static const char *where(const cr_result_builder *b)
{
	return b->inst != NULL && b->inst->where != NULL ? b->inst->where : "?";
}

static bool job_sparse_anywhere(const union_state *u, const char *job)
{
	for (guint i = 0; i < u->answers->len; i++) {
		const cr_result_builder *b = g_ptr_array_index(u->answers, i);

		if (cr_spec_has_job(b->spec, job) && !cr_spec_job_is_dense(b->spec, job))
			return true;
	}
	return false;
}

/* Per-task accelerator counts of @b's tasks of @job, at their new indices. */
static void copy_task_accel(cr_result *res, const cr_result_builder *b, const char *job,
			    int64_t offset)
{
	const int32_t *idx;
	size_t n;

	if (g_hash_table_size(b->task_accel) == 0)
		return;
	cr_spec_task_indices(b->spec, job, &idx, &n, NULL);
	for (size_t t = 0; t < n; t++) {
		GHashTable *counts = task_accel_get(b->task_accel, job, idx[t]);
		char *dst;

		if (counts == NULL)
			continue;
		dst = task_key(job, idx[t] + offset);
		if (g_hash_table_contains(res->task_accel, dst))
			g_free(dst);
		else
			g_hash_table_insert(res->task_accel, dst, g_hash_table_ref(counts));
	}
}

/* In a sparse job every answer keeps its own indices: the first index that
 * an earlier answer already has is a conflict naming both. */
static cr_status find_conflict(const union_state *u, const char *job, cr_error *err)
{
	for (guint i = 0; i < u->answers->len; i++) {
		const cr_result_builder *b = g_ptr_array_index(u->answers, i);
		const int32_t *idx;
		size_t n;

		if (cr_spec_task_indices(b->spec, job, &idx, &n, NULL) != CR_OK)
			continue;
		for (size_t t = 0; t < n; t++) {
			for (guint k = 0; k < i; k++) {
				const cr_result_builder *prev = g_ptr_array_index(u->answers, k);

				if (cr_spec_task_address(prev->spec, job, idx[t], NULL, NULL) !=
				    CR_OK)
					continue;
				return error_set(err, CR_ERR_CONFLICT,
						 "job '%s' task %" G_GINT32_FORMAT
						 " is defined by both %s (%s) and %s (%s)",
						 job, idx[t], who(prev), where(prev), who(b),
						 where(b));
			}
		}
	}
	return CR_OK;
}

/* Move every answer's tasks of @job into @res: a dense job's answers follow
 * each other, a sparse job's keep their indices. The addresses are taken
 * over, not copied (the answers are spent after the merge). */
static cr_status merge_job(union_state *u, cr_result *res, const char *job, cr_error *err)
{
	bool sparse = job_sparse_anywhere(u, job);
	int64_t next = 0;
	cr_status st;

	if (partial_declared(u->answers, job))
		return partial_merge_job(u->answers, res, job, err);
	st = cr_spec_add_job(res->spec, job, err);

	if (st == CR_OK && sparse)
		st = find_conflict(u, job, err);
	for (guint i = 0; i < u->answers->len && st == CR_OK; i++) {
		cr_result_builder *b = g_ptr_array_index(u->answers, i);
		int64_t offset = sparse ? 0 : next;
		size_t n;

		if (cr_spec_num_tasks(b->spec, job, &n, NULL) != CR_OK)
			continue;
		copy_task_accel(res, b, job, offset);
		st = spec_take_tasks(res->spec, b->spec, job, offset, err);
		next += (int64_t)n;
	}
	return st;
}

/* One answer is the union: take it over whole. */
static void take_answer(cr_result *res, cr_result_builder *b)
{
	cr_spec *spec = res->spec;
	GHashTable *task_accel = res->task_accel;

	res->spec = b->spec;
	res->task_accel = b->task_accel;
	b->spec = spec;
	b->task_accel = task_accel;
}

static const cr_result_builder *first_with(const union_state *u, size_t offset)
{
	for (guint i = 0; i < u->answers->len; i++) {
		const cr_result_builder *b = g_ptr_array_index(u->answers, i);

		if (G_STRUCT_MEMBER(const void *, b, offset) != NULL)
			return b;
	}
	return NULL;
}

static void pick_identity(union_state *u, const union_overrides *over, cr_result *res)
{
	const cr_result_builder *known = NULL;
	const cr_result_builder *b;

	for (guint i = 0; i < u->answers->len && known == NULL; i++) {
		b = g_ptr_array_index(u->answers, i);
		if (b->has_task)
			known = b;
	}
	if (over->task_type != NULL)
		res->task_type = g_strdup(over->task_type);
	else if (known != NULL)
		res->task_type = g_strdup(known->task_type);

	if (over->task_id >= 0)
		res->task_id = over->task_id;
	else if (known != NULL)
		res->task_id = known->task_id;

	if (over->rpc_layer_set)
		res->rpc_layer = g_strdup(over->rpc_layer);
	else if ((b = first_with(u, G_STRUCT_OFFSET(cr_result_builder, rpc_layer))) != NULL)
		res->rpc_layer = g_strdup(b->rpc_layer);

	if ((b = first_with(u, G_STRUCT_OFFSET(cr_result_builder, environment))) != NULL)
		res->environment = g_strdup(b->environment);
}

static void merge_env(union_state *u, cr_result *res)
{
	for (guint i = 0; i < u->answers->len; i++) {
		const cr_result_builder *b = g_ptr_array_index(u->answers, i);

		for (guint e = 0; e + 1 < b->env->len; e += 2) {
			const char *name = g_ptr_array_index(b->env, e);
			bool seen = false;

			for (guint k = 0; k + 1 < res->env->len && !seen; k += 2)
				seen = strcmp(g_ptr_array_index(res->env, k), name) == 0;
			if (seen)
				continue;
			g_ptr_array_add(res->env, g_strdup(name));
			g_ptr_array_add(res->env, g_strdup(g_ptr_array_index(b->env, e + 1)));
		}
	}
}

/* What the resolvers know of this process's accelerators, if anything. */
static void resolver_accel(union_state *u, cr_result *res)
{
	GHashTable *counts = NULL;
	const char *source = NULL;

	if (res->task_type != NULL && res->task_id >= 0) {
		counts = task_accel_get(res->task_accel, res->task_type, res->task_id);
		if (counts != NULL)
			source = "the resolvers";
	}
	for (guint i = 0; i < u->answers->len && counts == NULL; i++) {
		const cr_result_builder *b = g_ptr_array_index(u->answers, i);

		if (g_hash_table_size(b->own_accel) > 0) {
			counts = b->own_accel;
			source = who(b);
		}
	}
	if (counts == NULL)
		return;
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, counts);
	while (g_hash_table_iter_next(&it, &k, &v))
		accel_counts_put(res->accel, k, *(int64_t *)v);
	res->accel_source = g_strdup(source);
}

cr_status union_merge(union_state *u, const union_overrides *over, cr_result **out, cr_error *err)
{
	cr_result *res = result_new();
	GPtrArray *jobs = g_ptr_array_new();
	cr_status st = CR_OK;

	*out = NULL;
	if (u->answers->len == 1) {
		take_answer(res, g_ptr_array_index(u->answers, 0));
		partial_note(res, g_ptr_array_index(u->answers, 0));
	}
	for (guint i = 0; i < u->answers->len && u->answers->len > 1; i++) {
		const cr_result_builder *b = g_ptr_array_index(u->answers, i);

		for (size_t j = 0; j < cr_spec_num_jobs(b->spec); j++) {
			const char *job = cr_spec_job_name(b->spec, j);

			if (!g_ptr_array_find_with_equal_func(jobs, job, g_str_equal, NULL))
				g_ptr_array_add(jobs, (gpointer)job);
		}
	}
	for (guint j = 0; j < jobs->len && st == CR_OK; j++)
		st = merge_job(u, res, g_ptr_array_index(jobs, j), err);
	g_ptr_array_unref(jobs);
	if (st != CR_OK) {
		cr_result_free(res);
		return st;
	}
	pick_identity(u, over, res);
	/* Like TensorFlow's union, only the first resolver's master counts; it
	 * is asked for the effective rpc layer (TensorFlow's bug 14.9 fixed). */
	if (u->answers->len > 0) {
		const cr_result_builder *first = g_ptr_array_index(u->answers, 0);

		st = builder_master(first, res->rpc_layer, &res->master, err);
		if (st == CR_OK)
			res->own_layer = builder_own_layer(first);
		/* An identity set from outside (--task-type/--task-id, the API's
		 * setters) is the task whose master a resolver with a master op
		 * (gce, tpu) gives, as TensorFlow's object pair is: the host
		 * writes that task's address (issue 27 section 2). */
		if (st == CR_OK && res->own_layer != NULL &&
		    (over->task_type != NULL || over->task_id >= 0))
			g_clear_pointer(&res->master, g_free);
	}
	if (st != CR_OK) {
		cr_result_free(res);
		return st;
	}
	merge_env(u, res);
	for (guint i = 0; i < u->answers->len && res->place.num_nodes == 0; i++) {
		const cr_result_builder *b = g_ptr_array_index(u->answers, i);

		res->place = b->place;
	}
	/* The launcher's place is its own task's: not one set from outside. */
	if (over->task_type != NULL || over->task_id >= 0)
		res->place = (task_place){ 0 };
	for (guint i = 0; i < u->answers->len; i++)
		result_take_extras(res, g_ptr_array_index(u->answers, i));
	resolver_accel(u, res);
	*out = res;
	return CR_OK;
}
