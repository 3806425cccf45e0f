/* SPDX-License-Identifier: MIT */
/*
 * spec-size.c - a job's declared size: the tasks a launcher counts whose
 * addresses it does not give (torchrun tells a worker WORLD_SIZE and its
 * coordinator, never its peers), and the equality of two specs, sizes
 * included. The sizes live beside the jobs (spec_sizes), the addresses in
 * spec.c's arrays.
 */
#include <string.h>

#include <glib.h>

#include "values/values-private.h"

/* Position of @job among @spec's jobs, or -1. */
static gssize job_position(const cr_spec *spec, const char *job)
{
	for (size_t i = 0; i < cr_spec_num_jobs(spec); i++)
		if (strcmp(cr_spec_job_name(spec, i), job) == 0)
			return (gssize)i;
	return -1;
}

/* One more than the highest index of job @i (0 when it has no task). */
static size_t job_span(const cr_spec *spec, size_t i, size_t *defined)
{
	const int32_t *idx;
	const char *const *addrs;
	size_t n = spec_job_arrays(spec, i, &idx, &addrs, NULL);

	if (defined != NULL)
		*defined = n;
	return n == 0 ? 0 : (size_t)idx[n - 1] + 1;
}

/* The declared size of @job, 0 when none. */
static size_t declared(const cr_spec *spec, const char *job)
{
	GHashTable *sizes = spec_sizes(spec);

	return sizes != NULL ? GPOINTER_TO_SIZE(g_hash_table_lookup(sizes, job)) : 0;
}

cr_status cr_spec_set_job_size(cr_spec *spec, const char *job, int64_t size, cr_error *err)
{
	gssize pos;
	cr_status st;

	if (spec == NULL || job == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_spec_set_job_size: NULL argument");
	if (size < 1 || size > (int64_t)G_MAXINT32 + 1)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "size %" G_GINT64_FORMAT
				 " of job '%s' is out of range (1..2147483648)",
				 size, job);
	st = cr_spec_add_job(spec, job, err);
	if (st != CR_OK)
		return st;
	pos = job_position(spec, job);
	if (job_span(spec, (size_t)pos, NULL) > (size_t)size)
		return error_set(err, CR_ERR_CONFLICT,
				 "job '%s' cannot have %" G_GINT64_FORMAT
				 " tasks: it has a task at index %zu",
				 job, size, job_span(spec, (size_t)pos, NULL) - 1);
	g_hash_table_insert(spec_sizes_make(spec), g_strdup(job), GSIZE_TO_POINTER((gsize)size));
	return CR_OK;
}

/* Size of job @i (named @job) and its defined tasks. */
static size_t job_size(const cr_spec *spec, size_t i, const char *job, size_t *defined)
{
	size_t span = job_span(spec, i, defined), want = declared(spec, job);

	if (want == 0)
		return *defined;
	return span > want ? span : want;
}

cr_status cr_spec_job_size(const cr_spec *spec, const char *job, size_t *size, cr_error *err)
{
	gssize pos = spec != NULL && job != NULL ? job_position(spec, job) : -1;
	size_t defined;

	if (pos < 0)
		return error_set(err, CR_ERR_NOT_FOUND, "No such job in cluster: '%s'",
				 job != NULL ? job : "(null)");
	if (size != NULL)
		*size = job_size(spec, (size_t)pos, job, &defined);
	return CR_OK;
}

cr_status cr_spec_task_known(const cr_spec *spec, const char *job, int64_t index, bool *known,
			     cr_error *err)
{
	size_t size;
	cr_status st = cr_spec_job_size(spec, job, &size, err);

	if (st != CR_OK)
		return st;
	if (cr_spec_task_address(spec, job, index, NULL, NULL) == CR_OK) {
		if (known != NULL)
			*known = true;
		return CR_OK;
	}
	if (index < 0 || (uint64_t)index >= size || declared(spec, job) == 0)
		return error_set(err, CR_ERR_NOT_FOUND,
				 "No task with index %" G_GINT64_FORMAT " in job '%s'", index, job);
	if (known != NULL)
		*known = false;
	return CR_OK;
}

size_t cr_spec_num_unknown(const cr_spec *spec, const char *job)
{
	size_t total = 0;

	for (size_t i = 0; spec != NULL && i < cr_spec_num_jobs(spec); i++) {
		const char *name = cr_spec_job_name(spec, i);
		size_t defined, size;

		if (job != NULL && strcmp(job, name) != 0)
			continue;
		size = job_size(spec, i, name, &defined);
		total += size - defined;
	}
	return total;
}

bool cr_spec_equal(const cr_spec *a, const cr_spec *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	if (cr_spec_num_jobs(a) != cr_spec_num_jobs(b))
		return false;
	for (size_t i = 0; i < cr_spec_num_jobs(a); i++) {
		const char *job = cr_spec_job_name(a, i);
		gssize k = job_position(b, job);
		const int32_t *ia, *ib;
		const char *const *aa, *const *ab;
		size_t na, nb;

		if (k < 0)
			return false;
		na = spec_job_arrays(a, i, &ia, &aa, NULL);
		nb = spec_job_arrays(b, (size_t)k, &ib, &ab, NULL);
		if (na != nb || declared(a, job) != declared(b, job))
			return false;
		for (size_t t = 0; t < na; t++)
			if (ia[t] != ib[t] || strcmp(aa[t], ab[t]) != 0)
				return false;
	}
	return true;
}
