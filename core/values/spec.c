/* SPDX-License-Identifier: MIT */
/*
 * spec.c - the ClusterSpec value type.
 *
 * A job keeps its tasks sorted by index in two parallel arrays, so
 * task_indices() hands out the array itself and lookups are a binary search.
 * Addresses live in blocks of text owned by the job (no allocation per task),
 * so the union can move a resolver's tasks into the merged spec without
 * copying them (spec_take_tasks). Jobs keep insertion order; a hash table
 * finds them by name.
 *
 * Appending is the hot path (a 65,536-task Slurm step appends every task
 * through it): the arrays are written in place and grown geometrically, and
 * an address is measured once and copied once.
 */
#include <string.h>

#include <glib.h>

#include "values/values-private.h"

/* Size of a job's text blocks: ~250 "host:port" addresses. Small blocks
 * fill the holes that freed heap leaves: a 65,536-task step takes ~40 page
 * faults fewer than with blocks growing to 64 KiB (measured). A longer
 * address gets a block of its own. */
#define SPEC_TEXT_SIZE 4096
/* Slots of a job's arrays when the first task comes. */
#define SPEC_TASKS_MIN 16

/* A block of addresses, each NUL-terminated; blocks never move, so an
 * address handed out stays where it is until its job is freed. */
typedef struct spec_text {
	struct spec_text *next; /* older blocks, this job's own or adopted */
	size_t used, size;
	char data[];
} spec_text;

typedef struct spec_job {
	char *name;
	int32_t *indices;   /* ascending; @len of @cap used */
	const char **addrs; /* parallel to indices, in @text */
	size_t len, cap;
	size_t text_len;  /* the addresses' lengths, summed (for writers) */
	spec_text *text;  /* newest block first; NULL until the first address */
	GPtrArray *slots; /* cache for job_tasks(), set atomically; NULL when stale */
} spec_job;

struct cr_spec {
	GPtrArray *jobs;     /* spec_job *, insertion order */
	GHashTable *by_name; /* name -> spec_job * (borrowed) */
	spec_job *last;      /* the job found last: tasks come in runs of one job */
	GHashTable *sizes;   /* job name -> declared size (spec-size.c); NULL: none */
};

static void text_free(spec_text *t)
{
	while (t != NULL) {
		spec_text *next = t->next;

		g_free(t);
		t = next;
	}
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
	g_free(job->indices);
	g_free(job->addrs);
	text_free(job->text);
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
	if (spec->sizes != NULL)
		g_hash_table_unref(spec->sizes);
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
	g_ptr_array_add(spec->jobs, job);
	g_hash_table_insert(spec->by_name, job->name, job);
	spec->last = job;
	return job;
}

/* Room for @n tasks in @job's arrays, at least twice what they had. */
static G_GNUC_NO_INLINE void job_reserve(spec_job *job, size_t n)
{
	size_t cap = job->cap < SPEC_TASKS_MIN / 2 ? SPEC_TASKS_MIN : job->cap * 2;

	if (n <= job->cap)
		return;
	if (cap < n)
		cap = n;
	job->indices = g_renew(int32_t, job->indices, cap);
	job->addrs = g_renew(const char *, job->addrs, cap);
	job->cap = cap;
}

/* A new block for @job with room for @len bytes and a NUL: the newest,
 * or for a long address one behind the newest, which stays the one to
 * fill. */
static G_GNUC_NO_INLINE spec_text *job_new_text(spec_job *job, size_t len)
{
	size_t size = len < SPEC_TEXT_SIZE ? SPEC_TEXT_SIZE : len + 1;
	spec_text *t = g_malloc(sizeof(*t) + size);

	t->used = 0;
	t->size = size;
	if (size > SPEC_TEXT_SIZE && job->text != NULL) {
		t->next = job->text->next;
		job->text->next = t;
	} else {
		t->next = job->text;
		job->text = t;
	}
	return t;
}

/* A copy of @address (@len bytes and its NUL) in @job's own text. */
static inline const char *job_store(spec_job *job, const char *address, size_t len)
{
	spec_text *t = job->text;
	char *copy;

	if (t == NULL || t->size - t->used <= len)
		t = job_new_text(job, len);
	copy = t->data + t->used;
	memcpy(copy, address, len + 1);
	t->used += len + 1;
	job->text_len += len;
	return copy;
}

/* Position of @index in @job, or where it would go (as ~pos). */
static gssize job_search(const spec_job *job, int32_t index)
{
	size_t lo = 0, hi = job->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int32_t v = job->indices[mid];

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

		job_reserve(dst, job->len);
		if (job->len > 0)
			memcpy(dst->indices, job->indices, job->len * sizeof(*job->indices));
		for (size_t t = 0; t < job->len; t++)
			dst->addrs[t] = job_store(dst, job->addrs[t], strlen(job->addrs[t]));
		dst->len = job->len;
	}
	if (spec->sizes != NULL) {
		GHashTableIter it;
		gpointer k, v;

		g_hash_table_iter_init(&it, spec->sizes);
		while (g_hash_table_iter_next(&it, &k, &v))
			g_hash_table_insert(spec_sizes_make(copy), g_strdup(k), v);
	}
	return copy;
}

cr_status cr_spec_add_job(cr_spec *spec, const char *job, cr_error *err)
{
	if (spec == NULL || job == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_spec_add_job: NULL argument");
	if (!g_utf8_validate(job, -1, NULL) || strlen(job) > SPEC_NAME_MAX)
		return spec_check_name(err, "job name", job);
	ensure_job(spec, job);
	return CR_OK;
}

/* Put @address at position @pos of @j's arrays (@pos == len appends). */
static void job_put(spec_job *j, size_t pos, int32_t index, const char *address)
{
	size_t len = strlen(address);

	if (j->len == j->cap)
		job_reserve(j, j->len + 1);
	if (pos < j->len) {
		memmove(j->indices + pos + 1, j->indices + pos,
			(j->len - pos) * sizeof(*j->indices));
		memmove(j->addrs + pos + 1, j->addrs + pos, (j->len - pos) * sizeof(*j->addrs));
	}
	j->indices[pos] = index;
	j->addrs[pos] = job_store(j, address, len);
	j->len++;
	job_stale(j);
}

/* Insert @address at @index of @j: appending is O(1), an insertion in the
 * middle a binary search and a move. */
static cr_status job_add(spec_job *j, int64_t index, const char *address, cr_error *err)
{
	int32_t idx32 = (int32_t)index;
	gssize pos;

	if (j->len == 0 || j->indices[j->len - 1] < idx32) {
		job_put(j, j->len, idx32, address);
		return CR_OK;
	}
	pos = job_search(j, idx32);
	if (pos >= 0)
		return error_set(err, CR_ERR_CONFLICT,
				 "job '%s' has two tasks with index %" G_GINT64_FORMAT
				 " ('%s' and '%s')",
				 j->name, index, j->addrs[pos], address);
	job_put(j, (size_t)~pos, idx32, address);
	return CR_OK;
}

static cr_status index_range_error(cr_error *err, const char *job, int64_t index)
{
	return error_set(err, CR_ERR_INVALID_ARG,
			 "task index %" G_GINT64_FORMAT
			 " of job '%s' is out of range (0..2147483647)",
			 index, job);
}

cr_status cr_spec_add_task(cr_spec *spec, const char *job, int64_t index, const char *address,
			   cr_error *err)
{
	const char *why;

	if (spec == NULL || job == NULL || address == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_spec_add_task: NULL argument");
	if (!g_utf8_validate(job, -1, NULL) || strlen(job) > SPEC_NAME_MAX)
		return spec_check_name(err, "job name", job);
	if (index < 0 || index > G_MAXINT32)
		return index_range_error(err, job, index);
	why = spec_address_problem(address);
	if (why != NULL)
		return spec_address_error(err, job, address, why);
	return job_add(ensure_job(spec, job), index, address, err);
}

cr_status cr_spec_append_task(cr_spec *spec, const char *job, const char *address, cr_error *err)
{
	spec_job *j;
	int64_t next = 0;
	size_t len;
	const char *why;

	if (spec == NULL || job == NULL || address == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_spec_append_task: NULL argument");
	why = spec_address_problem(address);
	if (why != NULL)
		return spec_address_error(err, job, address, why);
	j = spec->last; /* a job of the spec: its name was checked */
	if (j == NULL || strcmp(j->name, job) != 0) {
		if (!g_utf8_validate(job, -1, NULL) || strlen(job) > SPEC_NAME_MAX)
			return spec_check_name(err, "job name", job);
		j = ensure_job(spec, job);
	}
	if (j->len > 0)
		next = (int64_t)j->indices[j->len - 1] + 1;
	if (next > G_MAXINT32)
		return index_range_error(err, job, next);
	/* job_put's append, written out: this is the per-task path. */
	len = strlen(address);
	if (j->len == j->cap)
		job_reserve(j, j->len + 1);
	j->indices[j->len] = (int32_t)next;
	j->addrs[j->len] = job_store(j, address, len);
	j->len++;
	job_stale(j);
	return CR_OK;
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
		*count = j->len;
	return CR_OK;
}

cr_status cr_spec_task_indices(const cr_spec *spec, const char *job, const int32_t **indices,
			       size_t *count, cr_error *err)
{
	const spec_job *j = lookup(spec, job, err);

	if (j == NULL)
		return err != NULL ? err->code : CR_ERR_NOT_FOUND;
	if (indices != NULL)
		*indices = j->indices;
	if (count != NULL)
		*count = j->len;
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
		*address = j->addrs[pos];
	return CR_OK;
}

cr_status cr_spec_job_tasks(const cr_spec *spec, const char *job, const char *const **slots,
			    size_t *count, cr_error *err)
{
	spec_job *j = (spec_job *)lookup(spec, job, err);
	GPtrArray *built = NULL, *cached;

	if (j == NULL)
		return err != NULL ? err->code : CR_ERR_NOT_FOUND;
	/* A reader fills the cache, and readers may run in several threads
	 * (spec.h): each builds its own array and publishes it whole; one
	 * that loses the race frees its own and takes the winner's. */
	cached = g_atomic_pointer_get(&j->slots);
	if (cached == NULL) {
		guint n = j->len == 0 ? 0 : (guint)j->indices[j->len - 1] + 1;

		built = g_ptr_array_sized_new(n + 1);
		g_ptr_array_set_size(built, (gint)n);
		for (size_t t = 0; t < j->len; t++)
			built->pdata[j->indices[t]] = (gpointer)j->addrs[t];
		if (g_atomic_pointer_compare_and_exchange(&j->slots, NULL, built))
			cached = built;
		else {
			g_ptr_array_unref(built);
			cached = g_atomic_pointer_get(&j->slots);
		}
	}
	if (slots != NULL)
		*slots = (const char *const *)cached->pdata;
	if (count != NULL)
		*count = cached->len;
	return CR_OK;
}

bool cr_spec_job_is_dense(const cr_spec *spec, const char *job)
{
	const spec_job *j = spec != NULL && job != NULL ? find_job(spec, job) : NULL;

	if (j == NULL)
		return false;
	/* Sorted, unique, non-negative: dense iff the last index is len-1. */
	return j->len == 0 || j->indices[j->len - 1] == (int32_t)j->len - 1;
}

/* The declared sizes (spec-size.c); NULL when none was declared. */
GHashTable *spec_sizes(const cr_spec *spec)
{
	return spec->sizes;
}

GHashTable *spec_sizes_make(cr_spec *spec)
{
	if (spec->sizes == NULL)
		spec->sizes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	return spec->sizes;
}

/* Internal iteration, used by the encoders and the union. */
size_t spec_job_arrays(const cr_spec *spec, size_t job_i, const int32_t **indices,
		       const char *const **addrs, size_t *text_len)
{
	const spec_job *j = g_ptr_array_index(spec->jobs, job_i);

	*indices = j->indices;
	*addrs = j->addrs;
	if (text_len != NULL)
		*text_len = j->text_len;
	return j->len;
}

/* Swap what two jobs hold (tasks and their text), not their names. */
static void job_swap(spec_job *a, spec_job *b)
{
	spec_job tmp = *a;

	a->indices = b->indices;
	a->addrs = b->addrs;
	a->len = b->len;
	a->cap = b->cap;
	a->text_len = b->text_len;
	a->text = b->text;
	b->indices = tmp.indices;
	b->addrs = tmp.addrs;
	b->len = tmp.len;
	b->cap = tmp.cap;
	b->text_len = tmp.text_len;
	b->text = tmp.text;
	job_stale(a);
	job_stale(b);
}

/* @d takes over @s's text blocks, behind its own newest one (which stays
 * the one @d appends to); @s keeps none. */
static void job_adopt_text(spec_job *d, spec_job *s)
{
	spec_text *last = s->text;

	if (last == NULL)
		return;
	while (last->next != NULL)
		last = last->next;
	if (d->text == NULL) {
		d->text = s->text;
	} else {
		last->next = d->text->next;
		d->text->next = s->text;
	}
	s->text = NULL;
}

/* Merge @s's tasks (indices + @offset) into @d in one pass; nothing changes
 * on a conflict. */
static cr_status job_merge_sorted(spec_job *d, const spec_job *s, int32_t offset, cr_error *err)
{
	size_t nd = d->len, ns = s->len, i = 0, k = 0, n = 0;
	int32_t *indices = g_new(int32_t, nd + ns);
	const char **addrs = g_new(const char *, nd + ns);

	while (i < nd || k < ns) {
		int32_t a = i < nd ? d->indices[i] : G_MAXINT32;
		int32_t b = k < ns ? s->indices[k] + offset : G_MAXINT32;

		if (i < nd && k < ns && a == b) {
			error_set(err, CR_ERR_CONFLICT,
				  "job '%s' has two tasks with index %d ('%s' and '%s')", d->name,
				  a, d->addrs[i], s->addrs[k]);
			g_free(indices);
			g_free(addrs);
			return CR_ERR_CONFLICT;
		}
		if (k == ns || (i < nd && a < b)) {
			indices[n] = a;
			addrs[n++] = d->addrs[i++];
		} else {
			indices[n] = b;
			addrs[n++] = s->addrs[k++];
		}
	}
	g_free(d->indices);
	g_free(d->addrs);
	d->indices = indices;
	d->addrs = addrs;
	d->len = d->cap = n;
	return CR_OK;
}

cr_status spec_take_tasks(cr_spec *dst, cr_spec *src, const char *job, int64_t offset,
			  cr_error *err)
{
	spec_job *s = find_job(src, job);
	spec_job *d = ensure_job(dst, job);
	size_t ns = s != NULL ? s->len : 0;
	cr_status st = CR_OK;

	if (ns == 0)
		return CR_OK;
	if (offset < 0 || s->indices[ns - 1] + offset > G_MAXINT32) {
		for (size_t t = 0; t < ns; t++) {
			int64_t to = s->indices[t] + offset;

			if (to < 0 || to > G_MAXINT32)
				return index_range_error(err, job, to);
		}
	}
	if (d->len == 0 && offset == 0) {
		job_swap(d, s);
		return CR_OK;
	}
	if (d->len == 0 || d->indices[d->len - 1] < s->indices[0] + offset) {
		job_reserve(d, d->len + ns);
		for (size_t t = 0; t < ns; t++)
			d->indices[d->len + t] = s->indices[t] + (int32_t)offset;
		memcpy(d->addrs + d->len, s->addrs, ns * sizeof(*s->addrs));
		d->len += ns;
	} else {
		st = job_merge_sorted(d, s, (int32_t)offset, err);
	}
	if (st != CR_OK)
		return st;
	job_adopt_text(d, s);
	d->text_len += s->text_len;
	s->text_len = 0;
	s->len = 0;
	job_stale(d);
	job_stale(s);
	return CR_OK;
}
