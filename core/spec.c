/* SPDX-License-Identifier: MIT */
/*
 * spec.c - the ClusterSpec value type.
 *
 * A job keeps its tasks sorted by index in two parallel arrays, so
 * task_indices() hands out the array itself and lookups are a binary search.
 * Jobs keep insertion order; a hash table finds them by name.
 */
#include <string.h>

#include <glib.h>

#include "core-private.h"

typedef struct spec_job {
	char *name;
	GArray *indices;     /* int32, ascending */
	GPtrArray *addrs;    /* char *, parallel to indices */
	GPtrArray *slots;    /* cache for job_tasks(); NULL when stale */
} spec_job;

struct cr_spec {
	GPtrArray *jobs;     /* spec_job *, insertion order */
	GHashTable *by_name; /* name -> spec_job * (borrowed) */
};

static void job_free(gpointer p)
{
	spec_job *job = p;

	g_free(job->name);
	g_array_unref(job->indices);
	g_ptr_array_unref(job->addrs);
	if (job->slots != NULL)
		g_ptr_array_unref(job->slots);
	g_free(job);
}

cr_spec *cr_spec_new(void)
{
	cr_spec *spec = g_new0(cr_spec, 1);

	spec->jobs = g_ptr_array_new_with_free_func(job_free);
	spec->by_name = g_hash_table_new(g_str_hash, g_str_equal);
	return spec;
}

void cr_spec_free(cr_spec *spec)
{
	if (spec == NULL)
		return;
	g_hash_table_unref(spec->by_name);
	g_ptr_array_unref(spec->jobs);
	g_free(spec);
}

static spec_job *find_job(const cr_spec *spec, const char *name)
{
	return g_hash_table_lookup(spec->by_name, name);
}

static spec_job *ensure_job(cr_spec *spec, const char *name)
{
	spec_job *job = find_job(spec, name);

	if (job != NULL)
		return job;
	job = g_new0(spec_job, 1);
	job->name = g_strdup(name);
	job->indices = g_array_new(FALSE, FALSE, sizeof(int32_t));
	job->addrs = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(spec->jobs, job);
	g_hash_table_insert(spec->by_name, job->name, job);
	return job;
}

/* Position of @index in @job, or where it would go (as ~pos). */
static gssize job_search(const spec_job *job, int32_t index)
{
	gsize lo = 0, hi = job->indices->len;

	while (lo < hi) {
		gsize mid = lo + (hi - lo) / 2;
		int32_t v = g_array_index(job->indices, int32_t, mid);

		if (v == index)
			return (gssize)mid;
		if (v < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return ~(gssize)lo;
}

cr_spec *cr_spec_copy(const cr_spec *spec)
{
	cr_spec *copy;

	if (spec == NULL)
		return NULL;
	copy = cr_spec_new();
	for (guint i = 0; i < spec->jobs->len; i++) {
		const spec_job *job = g_ptr_array_index(spec->jobs, i);
		spec_job *dst = ensure_job(copy, job->name);

		g_array_append_vals(dst->indices, job->indices->data, job->indices->len);
		for (guint t = 0; t < job->addrs->len; t++)
			g_ptr_array_add(dst->addrs, g_strdup(g_ptr_array_index(job->addrs, t)));
	}
	return copy;
}

cr_status cr_spec_add_job(cr_spec *spec, const char *job, cr_error *err)
{
	if (spec == NULL || job == NULL)
		return cr_error_set(err, CR_ERR_INVALID_ARG, "cr_spec_add_job: NULL argument");
	ensure_job(spec, job);
	return CR_OK;
}

cr_status cr_spec_add_task(cr_spec *spec, const char *job, int64_t index, const char *address,
			   cr_error *err)
{
	spec_job *j;
	gssize pos;

	if (spec == NULL || job == NULL || address == NULL)
		return cr_error_set(err, CR_ERR_INVALID_ARG, "cr_spec_add_task: NULL argument");
	if (index < 0 || index > G_MAXINT32)
		return cr_error_set(err, CR_ERR_INVALID_ARG,
				    "task index %" G_GINT64_FORMAT
				    " of job '%s' is out of range (0..2147483647)",
				    index, job);
	j = ensure_job(spec, job);
	pos = job_search(j, (int32_t)index);
	if (pos >= 0)
		return cr_error_set(err, CR_ERR_CONFLICT,
				    "job '%s' has two tasks with index %" G_GINT64_FORMAT
				    " ('%s' and '%s')",
				    job, index, (const char *)g_ptr_array_index(j->addrs, pos),
				    address);
	pos = ~pos;
	int32_t idx32 = (int32_t)index;
	g_array_insert_val(j->indices, (guint)pos, idx32);
	g_ptr_array_insert(j->addrs, (gint)pos, g_strdup(address));
	if (j->slots != NULL) {
		g_ptr_array_unref(j->slots);
		j->slots = NULL;
	}
	return CR_OK;
}

cr_status cr_spec_append_task(cr_spec *spec, const char *job, const char *address, cr_error *err)
{
	const spec_job *j;
	int64_t next = 0;

	if (spec == NULL || job == NULL || address == NULL)
		return cr_error_set(err, CR_ERR_INVALID_ARG, "cr_spec_append_task: NULL argument");
	j = find_job(spec, job);
	if (j != NULL && j->indices->len > 0)
		next = (int64_t)g_array_index(j->indices, int32_t, j->indices->len - 1) + 1;
	return cr_spec_add_task(spec, job, next, address, err);
}

size_t cr_spec_num_jobs(const cr_spec *spec)
{
	return spec != NULL ? spec->jobs->len : 0;
}

const char *cr_spec_job_name(const cr_spec *spec, size_t i)
{
	if (spec == NULL || i >= spec->jobs->len)
		return NULL;
	return ((const spec_job *)g_ptr_array_index(spec->jobs, i))->name;
}

bool cr_spec_has_job(const cr_spec *spec, const char *job)
{
	return spec != NULL && job != NULL && find_job(spec, job) != NULL;
}

static const spec_job *lookup(const cr_spec *spec, const char *job, cr_error *err)
{
	const spec_job *j = NULL;

	if (spec == NULL || job == NULL) {
		cr_error_set(err, CR_ERR_INVALID_ARG, "No such job in cluster: %s",
			     job == NULL ? "None" : "(no cluster)");
		return NULL;
	}
	j = find_job(spec, job);
	if (j == NULL)
		cr_error_set(err, CR_ERR_NOT_FOUND, "No such job in cluster: '%s'", job);
	return j;
}

cr_status cr_spec_num_tasks(const cr_spec *spec, const char *job, size_t *count, cr_error *err)
{
	const spec_job *j = lookup(spec, job, err);

	if (j == NULL)
		return err != NULL ? err->code : CR_ERR_NOT_FOUND;
	if (count != NULL)
		*count = j->indices->len;
	return CR_OK;
}

cr_status cr_spec_task_indices(const cr_spec *spec, const char *job, const int32_t **indices,
			       size_t *count, cr_error *err)
{
	const spec_job *j = lookup(spec, job, err);

	if (j == NULL)
		return err != NULL ? err->code : CR_ERR_NOT_FOUND;
	if (indices != NULL)
		*indices = (const int32_t *)(const void *)j->indices->data;
	if (count != NULL)
		*count = j->indices->len;
	return CR_OK;
}

cr_status cr_spec_task_address(const cr_spec *spec, const char *job, int64_t index,
			       const char **address, cr_error *err)
{
	const spec_job *j = lookup(spec, job, err);
	gssize pos = -1;

	if (j == NULL)
		return err != NULL ? err->code : CR_ERR_NOT_FOUND;
	if (index >= G_MININT32 && index <= G_MAXINT32)
		pos = job_search(j, (int32_t)index);
	if (pos < 0)
		return cr_error_set(err, CR_ERR_NOT_FOUND,
				    "No task with index %" G_GINT64_FORMAT " in job '%s'", index, job);
	if (address != NULL)
		*address = g_ptr_array_index(j->addrs, pos);
	return CR_OK;
}

cr_status cr_spec_job_tasks(const cr_spec *spec, const char *job, const char *const **slots,
			    size_t *count, cr_error *err)
{
	spec_job *j = (spec_job *)lookup(spec, job, err);

	if (j == NULL)
		return err != NULL ? err->code : CR_ERR_NOT_FOUND;
	if (j->slots == NULL) {
		guint n = j->indices->len == 0
				  ? 0
				  : (guint)g_array_index(j->indices, int32_t, j->indices->len - 1) + 1;

		j->slots = g_ptr_array_sized_new(n + 1);
		g_ptr_array_set_size(j->slots, (gint)n);
		for (guint t = 0; t < j->indices->len; t++)
			j->slots->pdata[g_array_index(j->indices, int32_t, t)] =
				g_ptr_array_index(j->addrs, t);
	}
	if (slots != NULL)
		*slots = (const char *const *)j->slots->pdata;
	if (count != NULL)
		*count = j->slots->len;
	return CR_OK;
}

bool cr_spec_job_is_dense(const cr_spec *spec, const char *job)
{
	const spec_job *j = spec != NULL && job != NULL ? find_job(spec, job) : NULL;

	if (j == NULL)
		return false;
	/* Sorted, unique, non-negative: dense iff the last index is len-1. */
	return j->indices->len == 0 ||
	       g_array_index(j->indices, int32_t, j->indices->len - 1) == (int32_t)j->indices->len - 1;
}

bool cr_spec_equal(const cr_spec *a, const cr_spec *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	if (a->jobs->len != b->jobs->len)
		return false;
	for (guint i = 0; i < a->jobs->len; i++) {
		const spec_job *ja = g_ptr_array_index(a->jobs, i);
		const spec_job *jb = find_job(b, ja->name);

		if (jb == NULL || ja->indices->len != jb->indices->len)
			return false;
		for (guint t = 0; t < ja->indices->len; t++) {
			if (g_array_index(ja->indices, int32_t, t) !=
				    g_array_index(jb->indices, int32_t, t) ||
			    strcmp(g_ptr_array_index(ja->addrs, t), g_ptr_array_index(jb->addrs, t)) != 0)
				return false;
		}
	}
	return true;
}

/* Internal iteration used by the encoders and the union. */
size_t spec_job_len(const cr_spec *spec, size_t job_i)
{
	const spec_job *j = g_ptr_array_index(spec->jobs, job_i);

	return j->indices->len;
}

void spec_job_task(const cr_spec *spec, size_t job_i, size_t t, int32_t *index, const char **address)
{
	const spec_job *j = g_ptr_array_index(spec->jobs, job_i);

	*index = g_array_index(j->indices, int32_t, t);
	*address = g_ptr_array_index(j->addrs, t);
}
