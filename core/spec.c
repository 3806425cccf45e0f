/* SPDX-License-Identifier: MIT */
/*
 * spec.c - the ClusterSpec value type.
 *
 * A job keeps its tasks sorted by index in two parallel arrays, so
 * task_indices() hands out the array itself and lookups are a binary search.
 * Addresses live in string chunks owned by the job (no allocation per task),
 * so the union can move a resolver's tasks into the merged spec without
 * copying them (spec_take_tasks). Jobs keep insertion order; a hash table
 * finds them by name.
 */
#include <string.h>

#include <glib.h>

#include "values-private.h"

/* Block size of a job's address chunks: ~250 "host:port" addresses. */
#define SPEC_CHUNK_SIZE 4096

typedef struct spec_job {
	char *name;
	GArray *indices;       /* int32, ascending */
	GPtrArray *addrs;      /* const char *, parallel to indices, in @strings/@adopted */
	GStringChunk *strings; /* this job's addresses; NULL until the first */
	GPtrArray *adopted;    /* GStringChunk *, taken from merged jobs; or NULL */
	GPtrArray *slots;      /* cache for job_tasks(); NULL when stale */
} spec_job;

struct cr_spec {
	GPtrArray *jobs;     /* spec_job *, insertion order */
	GHashTable *by_name; /* name -> spec_job * (borrowed) */
	spec_job *last;      /* the job found last: tasks come in runs of one job */
};

static void chunk_free(gpointer p)
{
	g_string_chunk_free(p);
}

static void job_free_strings(spec_job *job)
{
	if (job->strings != NULL)
		g_string_chunk_free(job->strings);
	if (job->adopted != NULL)
		g_ptr_array_unref(job->adopted);
	job->strings = NULL;
	job->adopted = NULL;
}

static void job_stale(spec_job *job)
{
	if (job->slots != NULL) {
		g_ptr_array_unref(job->slots);
		job->slots = NULL;
	}
}

static void job_free(gpointer p)
{
	spec_job *job = p;

	g_free(job->name);
	g_array_unref(job->indices);
	g_ptr_array_unref(job->addrs);
	job_free_strings(job);
	job_stale(job);
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

/* Readers only read the cache, so a spec nobody changes can be read from
 * several threads. */
static spec_job *find_job(const cr_spec *spec, const char *name)
{
	spec_job *job = spec->last;

	if (job != NULL && strcmp(job->name, name) == 0)
		return job;
	return g_hash_table_lookup(spec->by_name, name);
}

static spec_job *ensure_job(cr_spec *spec, const char *name)
{
	spec_job *job = find_job(spec, name);

	if (job != NULL) {
		spec->last = job;
		return job;
	}
	job = g_new0(spec_job, 1);
	job->name = g_strdup(name);
	job->indices = g_array_new(FALSE, FALSE, sizeof(int32_t));
	job->addrs = g_ptr_array_new();
	g_ptr_array_add(spec->jobs, job);
	g_hash_table_insert(spec->by_name, job->name, job);
	spec->last = job;
	return job;
}

/* A copy of @address in @job's own chunk. */
static const char *job_store(spec_job *job, const char *address)
{
	if (job->strings == NULL)
		job->strings = g_string_chunk_new(SPEC_CHUNK_SIZE);
	return g_string_chunk_insert(job->strings, address);
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
		g_ptr_array_set_size(dst->addrs, (gint)job->addrs->len);
		for (guint t = 0; t < job->addrs->len; t++)
			dst->addrs->pdata[t] = (gpointer)job_store(dst, g_ptr_array_index(job->addrs, t));
	}
	return copy;
}

cr_status cr_spec_add_job(cr_spec *spec, const char *job, cr_error *err)
{
	if (spec == NULL || job == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_spec_add_job: NULL argument");
	ensure_job(spec, job);
	return CR_OK;
}

/* Insert @address at @index of @j: appending is O(1), an insertion in the
 * middle a binary search and a move. */
static cr_status job_add(spec_job *j, int64_t index, const char *address, cr_error *err)
{
	guint len = j->indices->len;
	int32_t idx32 = (int32_t)index;
	gssize pos;

	if (len == 0 || g_array_index(j->indices, int32_t, len - 1) < idx32) {
		g_array_append_val(j->indices, idx32);
		g_ptr_array_add(j->addrs, (gpointer)job_store(j, address));
		job_stale(j);
		return CR_OK;
	}
	pos = job_search(j, idx32);
	if (pos >= 0)
		return error_set(err, CR_ERR_CONFLICT,
				    "job '%s' has two tasks with index %" G_GINT64_FORMAT
				    " ('%s' and '%s')",
				    j->name, index, (const char *)g_ptr_array_index(j->addrs, pos),
				    address);
	pos = ~pos;
	g_array_insert_val(j->indices, (guint)pos, idx32);
	g_ptr_array_insert(j->addrs, (gint)pos, (gpointer)job_store(j, address));
	job_stale(j);
	return CR_OK;
}

static cr_status index_range_error(cr_error *err, const char *job, int64_t index)
{
	return error_set(err, CR_ERR_INVALID_ARG,
			    "task index %" G_GINT64_FORMAT " of job '%s' is out of range (0..2147483647)",
			    index, job);
}

cr_status cr_spec_add_task(cr_spec *spec, const char *job, int64_t index, const char *address,
			   cr_error *err)
{
	if (spec == NULL || job == NULL || address == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_spec_add_task: NULL argument");
	if (index < 0 || index > G_MAXINT32)
		return index_range_error(err, job, index);
	return job_add(ensure_job(spec, job), index, address, err);
}

cr_status cr_spec_append_task(cr_spec *spec, const char *job, const char *address, cr_error *err)
{
	spec_job *j;
	int64_t next = 0;

	if (spec == NULL || job == NULL || address == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_spec_append_task: NULL argument");
	j = ensure_job(spec, job);
	if (j->indices->len > 0)
		next = (int64_t)g_array_index(j->indices, int32_t, j->indices->len - 1) + 1;
	if (next > G_MAXINT32)
		return index_range_error(err, job, next);
	return job_add(j, next, address, err);
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
		error_set(err, CR_ERR_INVALID_ARG, "No such job in cluster: %s",
			     job == NULL ? "None" : "(no cluster)");
		return NULL;
	}
	j = find_job(spec, job);
	if (j == NULL)
		error_set(err, CR_ERR_NOT_FOUND, "No such job in cluster: '%s'", job);
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
		return error_set(err, CR_ERR_NOT_FOUND,
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

/* Swap what two jobs hold (tasks and their strings), not their names. */
static void job_swap(spec_job *a, spec_job *b)
{
	spec_job tmp = *a;

	a->indices = b->indices;
	a->addrs = b->addrs;
	a->strings = b->strings;
	a->adopted = b->adopted;
	b->indices = tmp.indices;
	b->addrs = tmp.addrs;
	b->strings = tmp.strings;
	b->adopted = tmp.adopted;
	job_stale(a);
	job_stale(b);
}

/* @d takes over @s's string chunks; @s keeps none. */
static void job_adopt_strings(spec_job *d, spec_job *s)
{
	if (d->adopted == NULL && (s->strings != NULL || s->adopted != NULL))
		d->adopted = g_ptr_array_new_with_free_func(chunk_free);
	if (s->strings != NULL)
		g_ptr_array_add(d->adopted, s->strings);
	s->strings = NULL;
	if (s->adopted != NULL) {
		g_ptr_array_extend(d->adopted, s->adopted, NULL, NULL);
		g_ptr_array_set_free_func(s->adopted, NULL);
		g_ptr_array_unref(s->adopted);
		s->adopted = NULL;
	}
}

/* Merge @s's tasks (indices + @offset) into @d in one pass; nothing changes
 * on a conflict. */
static cr_status job_merge_sorted(spec_job *d, const spec_job *s, int32_t offset, cr_error *err)
{
	guint nd = d->indices->len, ns = s->indices->len, i = 0, k = 0;
	GArray *indices = g_array_sized_new(FALSE, FALSE, sizeof(int32_t), nd + ns);
	GPtrArray *addrs = g_ptr_array_sized_new(nd + ns);

	while (i < nd || k < ns) {
		int32_t a = i < nd ? g_array_index(d->indices, int32_t, i) : G_MAXINT32;
		int32_t b = k < ns ? g_array_index(s->indices, int32_t, k) + offset : G_MAXINT32;

		if (i < nd && k < ns && a == b) {
			error_set(err, CR_ERR_CONFLICT,
				     "job '%s' has two tasks with index %d ('%s' and '%s')", d->name,
				     a, (const char *)g_ptr_array_index(d->addrs, i),
				     (const char *)g_ptr_array_index(s->addrs, k));
			g_array_unref(indices);
			g_ptr_array_unref(addrs);
			return CR_ERR_CONFLICT;
		}
		if (k == ns || (i < nd && a < b)) {
			g_array_append_val(indices, a);
			g_ptr_array_add(addrs, g_ptr_array_index(d->addrs, i++));
		} else {
			g_array_append_val(indices, b);
			g_ptr_array_add(addrs, g_ptr_array_index(s->addrs, k++));
		}
	}
	g_array_unref(d->indices);
	g_ptr_array_unref(d->addrs);
	d->indices = indices;
	d->addrs = addrs;
	return CR_OK;
}

cr_status spec_take_tasks(cr_spec *dst, cr_spec *src, const char *job, int64_t offset,
			  cr_error *err)
{
	spec_job *s = find_job(src, job);
	spec_job *d = ensure_job(dst, job);
	guint ns = s != NULL ? s->indices->len : 0;
	cr_status st = CR_OK;

	if (ns == 0)
		return CR_OK;
	if (offset < 0 || g_array_index(s->indices, int32_t, ns - 1) + offset > G_MAXINT32) {
		for (guint t = 0; t < ns; t++) {
			int64_t to = g_array_index(s->indices, int32_t, t) + offset;

			if (to < 0 || to > G_MAXINT32)
				return index_range_error(err, job, to);
		}
	}
	if (d->indices->len == 0 && offset == 0) {
		job_swap(d, s);
		return CR_OK;
	}
	if (d->indices->len == 0 ||
	    g_array_index(d->indices, int32_t, d->indices->len - 1) <
		    g_array_index(s->indices, int32_t, 0) + offset) {
		guint base = d->indices->len;

		g_array_set_size(d->indices, base + ns);
		for (guint t = 0; t < ns; t++)
			g_array_index(d->indices, int32_t, base + t) =
				g_array_index(s->indices, int32_t, t) + (int32_t)offset;
		g_ptr_array_extend(d->addrs, s->addrs, NULL, NULL);
	} else {
		st = job_merge_sorted(d, s, (int32_t)offset, err);
	}
	if (st != CR_OK)
		return st;
	job_adopt_strings(d, s);
	g_array_set_size(s->indices, 0);
	g_ptr_array_set_size(s->addrs, 0);
	job_stale(d);
	job_stale(s);
	return CR_OK;
}
