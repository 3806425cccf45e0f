/* SPDX-License-Identifier: MIT */
/*
 * union-partial.c - the union of a job whose size a resolver declared
 * without every address (host->result_set_job_size: torchrun's WORLD_SIZE
 * and MASTER_ADDR, "4 tasks, task 0 at ADDR"). The rules, as
 * docs/semantics.md gives them:
 *  - the declared size is the job's size; two answers that declare
 *    different sizes for one job are a conflict naming both;
 *  - an answer that lists the job whole (Slurm's step, a TF_CONFIG) fills
 *    the unknown addresses when its job has exactly that many tasks, each
 *    at its own index; of a different size it describes another world
 *    (Slurm's 2 nodes under torchrun's 4 processes) and adds nothing;
 *  - a task two answers know keeps the address of the first in config
 *    order (the innermost launcher comes first in the chain);
 *  - tasks still unknown after the merge are noted with the resolver and
 *    launcher that declared the size, for the formats' refusals.
 */
#include <string.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"

static bool declares(const cr_result_builder *b, const char *job)
{
	GHashTable *sizes = spec_sizes(b->spec);

	return sizes != NULL && g_hash_table_contains(sizes, job);
}

bool partial_declared(GPtrArray *answers, const char *job)
{
	for (guint i = 0; i < answers->len; i++)
		if (declares(g_ptr_array_index(answers, i), job))
			return true;
	return false;
}

static const char *who(const cr_result_builder *b)
{
	return b->inst != NULL ? b->inst->label : "resolver";
}

static char *describe(const cr_result_builder *b)
{
	return g_strdup_printf("%s (%s)", who(b), b->launcher != NULL ? b->launcher : "?");
}

/* Add @b's tasks of @job that @res does not have yet. */
static cr_status fill_from(cr_result *res, const cr_result_builder *b, const char *job,
			   cr_error *err)
{
	const int32_t *idx;
	size_t n;

	if (cr_spec_task_indices(b->spec, job, &idx, &n, NULL) != CR_OK)
		return CR_OK;
	for (size_t t = 0; t < n; t++) {
		const char *addr = NULL;
		cr_status st;

		if (cr_spec_task_address(res->spec, job, idx[t], NULL, NULL) == CR_OK)
			continue;
		cr_spec_task_address(b->spec, job, idx[t], &addr, NULL);
		st = cr_spec_add_task(res->spec, job, idx[t], addr, err);
		if (st != CR_OK)
			return st;
	}
	return CR_OK;
}

cr_status partial_merge_job(GPtrArray *answers, cr_result *res, const char *job, cr_error *err)
{
	const cr_result_builder *first = NULL;
	size_t size = 0;
	cr_status st;

	for (guint i = 0; i < answers->len && first == NULL; i++)
		if (declares(g_ptr_array_index(answers, i), job))
			first = g_ptr_array_index(answers, i);
	cr_spec_job_size(first->spec, job, &size, NULL);
	st = cr_spec_set_job_size(res->spec, job, (int64_t)size, err);
	for (guint i = 0; i < answers->len && st == CR_OK; i++) {
		const cr_result_builder *b = g_ptr_array_index(answers, i);
		size_t n = 0;

		if (cr_spec_job_size(b->spec, job, &n, NULL) != CR_OK)
			continue;
		if (n != size && declares(b, job)) {
			char *a = describe(first), *c = describe(b);

			st = error_set(err, CR_ERR_CONFLICT,
				       "job '%s' has %zu tasks by %s and %zu by %s", job, size, a,
				       n, c);
			g_free(a);
			g_free(c);
		} else if (n == size) {
			st = fill_from(res, b, job, err);
		}
	}
	if (st == CR_OK && cr_spec_num_unknown(res->spec, job) > 0)
		g_hash_table_insert(res->partial, g_strdup(job), describe(first));
	return st;
}

void partial_note(cr_result *res, const cr_result_builder *b)
{
	GHashTable *sizes = spec_sizes(res->spec);
	GHashTableIter it;
	gpointer job;

	res->place = b->place;
	if (sizes == NULL)
		return;
	g_hash_table_iter_init(&it, sizes);
	while (g_hash_table_iter_next(&it, &job, NULL))
		if (cr_spec_num_unknown(res->spec, job) > 0)
			g_hash_table_insert(res->partial, g_strdup(job), describe(b));
}
