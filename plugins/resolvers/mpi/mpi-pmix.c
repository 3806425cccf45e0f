/* SPDX-License-Identifier: MIT */
/*
 * mpi-pmix.c - every rank's host through PMIx (Open MPI 4 and 5, PRRTE,
 * Slurm --mpi=pmix): PMIx_Init, PMIX_JOB_SIZE, each rank's PMIX_HOSTNAME
 * and PMIX_LOCAL_RANK, PMIx_Finalize. With `interface`, each rank's own
 * address instead of PMIX_HOSTNAME: PMIx_Put, PMIx_Commit and a collecting
 * PMIx_Fence of the job, then PMIx_Get of each rank's. libpmix.so.2 is opened at run time
 * (host->dl_open): mpi.so loads without it, and declines where it is
 * absent. pmix.h gives the types only; nothing is linked.
 *
 * The program `exec` starts calls PMIx_Init again as the same rank; the
 * server accepts that after a clean PMIx_Finalize (Open MPI 4.1.4 with
 * PMIx 4.2.2, tested), while a process that ends without finalizing is
 * taken for a failed rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "mpi.h"

#define PMIX_SONAME "libpmix.so.2"

struct pmix_lib {
	void *handle;
	pmix_status_t (*init)(pmix_proc_t *, pmix_info_t[], size_t);
	pmix_status_t (*fin)(const pmix_info_t[], size_t);
	pmix_status_t (*get)(const pmix_proc_t *, const char[], const pmix_info_t[], size_t,
			     pmix_value_t **);
	pmix_status_t (*put)(pmix_scope_t, const char[], pmix_value_t *);
	pmix_status_t (*commit)(void);
	pmix_status_t (*fence)(const pmix_proc_t[], size_t, const pmix_info_t[], size_t);
	void (*destruct)(pmix_value_t *);
	const char *(*error_string)(pmix_status_t);
};

static cr_status pmix_open(cr_plugin_ctx *ctx, struct pmix_lib *l, cr_error *err)
{
	cr_status st = cr_host->dl_open(ctx, PMIX_SONAME, &l->handle, err);

	if (st == CR_DECLINED)
		return cr_host->error_set(err, CR_DECLINED,
					  "%s (Debian: libpmix2) is not installed: cannot ask the "
					  "launcher's PMIx server for the ranks' hosts",
					  PMIX_SONAME);
	if (st != CR_OK)
		return st;
	*(void **)&l->init = cr_host->dl_sym(l->handle, "PMIx_Init");
	*(void **)&l->fin = cr_host->dl_sym(l->handle, "PMIx_Finalize");
	*(void **)&l->get = cr_host->dl_sym(l->handle, "PMIx_Get");
	*(void **)&l->put = cr_host->dl_sym(l->handle, "PMIx_Put");
	*(void **)&l->commit = cr_host->dl_sym(l->handle, "PMIx_Commit");
	*(void **)&l->fence = cr_host->dl_sym(l->handle, "PMIx_Fence");
	*(void **)&l->destruct = cr_host->dl_sym(l->handle, "PMIx_Value_destruct");
	*(void **)&l->error_string = cr_host->dl_sym(l->handle, "PMIx_Error_string");
	if (l->init == NULL || l->fin == NULL || l->get == NULL || l->put == NULL ||
	    l->commit == NULL || l->fence == NULL || l->destruct == NULL || l->error_string == NULL)
		return cr_host->error_set(err, CR_ERR_IO,
					  "%s lacks PMIx_Init, PMIx_Get or PMIx_Finalize",
					  PMIX_SONAME);
	return CR_OK;
}

static void pmix_value_release(struct pmix_lib *l, pmix_value_t *v)
{
	if (v != NULL) {
		l->destruct(v);
		free(v);
	}
}

/* PMIx_Get(@proc, @key) as an unsigned number (uint16/uint32/rank). */
static cr_status pmix_get_uint(struct pmix_lib *l, const pmix_proc_t *proc, const char *key,
			       int64_t *out, cr_error *err)
{
	pmix_value_t *v = NULL;
	pmix_status_t rc = l->get(proc, key, NULL, 0, &v);
	cr_status st = CR_OK;

	if (rc != PMIX_SUCCESS || v == NULL)
		st = cr_host->error_set(err, CR_ERR_NOT_FOUND, "PMIx_Get(%s, rank %u): %s", key,
					proc->rank, l->error_string(rc));
	else if (v->type == PMIX_UINT32)
		*out = v->data.uint32;
	else if (v->type == PMIX_UINT16)
		*out = v->data.uint16;
	else if (v->type == PMIX_PROC_RANK)
		*out = v->data.rank;
	else
		st = cr_host->error_set(err, CR_ERR_PARSE, "PMIx_Get(%s): type %d, not a number",
					key, (int)v->type);
	pmix_value_release(l, v);
	return st;
}

static cr_status pmix_get_host(struct pmix_lib *l, const pmix_proc_t *proc, const char *key,
			       char **out, cr_error *err)
{
	pmix_value_t *v = NULL;
	pmix_status_t rc = l->get(proc, key, NULL, 0, &v);
	cr_status st = CR_OK;

	if (rc != PMIX_SUCCESS || v == NULL)
		st = cr_host->error_set(err, CR_ERR_NOT_FOUND, "PMIx_Get(%s, rank %u): %s", key,
					proc->rank, l->error_string(rc));
	else if (v->type != PMIX_STRING || v->data.string == NULL || *v->data.string == '\0')
		st = cr_host->error_set(err, CR_ERR_PARSE, "PMIx_Get(%s, rank %u): not a name", key,
					proc->rank);
	else if ((*out = strdup(v->data.string)) == NULL)
		st = cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	pmix_value_release(l, v);
	return st;
}

#define PMIX_ADDR_KEY "cluster-resolver.addr"

/* With `interface`: every rank's own address, exchanged: PMIx_Put,
 * PMIx_Commit, a PMIx_Fence of the whole job that collects the data. */
static cr_status pmix_share(struct pmix_lib *l, const pmix_proc_t *me, const char *self,
			    cr_error *err)
{
	pmix_proc_t all = *me;
	pmix_value_t v;
	pmix_info_t collect;
	char copy[256];
	pmix_status_t rc;

	snprintf(copy, sizeof(copy), "%s", self);
	memset(&v, 0, sizeof(v));
	v.type = PMIX_STRING;
	v.data.string = copy;
	rc = l->put(PMIX_GLOBAL, PMIX_ADDR_KEY, &v);
	if (rc == PMIX_SUCCESS)
		rc = l->commit();
	if (rc != PMIX_SUCCESS)
		return cr_host->error_set(err, CR_ERR_IO, "PMIx_Put/PMIx_Commit of %s: %s",
					  PMIX_ADDR_KEY, l->error_string(rc));
	memset(&collect, 0, sizeof(collect));
	snprintf(collect.key, sizeof(collect.key), "%s", PMIX_COLLECT_DATA);
	collect.value.type = PMIX_BOOL;
	collect.value.data.flag = true;
	all.rank = PMIX_RANK_WILDCARD;
	rc = l->fence(&all, 1, &collect, 1);
	if (rc != PMIX_SUCCESS)
		return cr_host->error_set(err, CR_ERR_IO, "PMIx_Fence: %s", l->error_string(rc));
	return CR_OK;
}

static cr_status pmix_ranks(struct pmix_lib *l, const pmix_proc_t *me, struct mpi_env *env,
			    const char *key, struct mpi_peer **peers, cr_error *err)
{
	pmix_proc_t job = *me, p = *me;
	int64_t size = 0;
	cr_status st;

	job.rank = PMIX_RANK_WILDCARD;
	st = pmix_get_uint(l, &job, PMIX_JOB_SIZE, &size, err);
	if (st != CR_OK)
		return st;
	if (size < 1 || (env->size >= 0 && size != env->size))
		return cr_host->error_set(err, CR_ERR_CONFLICT,
					  "PMIx says the job has %lld ranks, the environment %lld",
					  (long long)size, (long long)env->size);
	if (env->rank >= 0 && (int64_t)me->rank != env->rank)
		return cr_host->error_set(err, CR_ERR_CONFLICT,
					  "PMIx says this is rank %u, the environment %lld",
					  me->rank, (long long)env->rank);
	env->size = size;
	env->rank = me->rank;
	*peers = calloc((size_t)size, sizeof(**peers));
	if (*peers == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	for (int64_t r = 0; r < size && st == CR_OK; r++) {
		p.rank = (pmix_rank_t)r;
		st = pmix_get_host(l, &p, key, &(*peers)[r].host, err);
		if (st == CR_OK)
			st = pmix_get_uint(l, &p, PMIX_LOCAL_RANK, &(*peers)[r].local_rank, err);
	}
	if (st != CR_OK) {
		mpi_peers_free(*peers, size);
		*peers = NULL;
	}
	return st;
}

cr_status mpi_pmix_query(cr_plugin_ctx *ctx, struct mpi_env *env, const char *interface,
			 const char *self, struct mpi_peer **peers, cr_error *err)
{
	struct pmix_lib l = { 0 };
	char gds[] = "hash";
	pmix_info_t info;
	pmix_proc_t me;
	pmix_status_t rc;
	cr_status st;

	bool share = interface != NULL && *interface != '\0';

	*peers = NULL;
	st = pmix_open(ctx, &l, err);
	if (st != CR_OK) {
		cr_host->dl_close(l.handle);
		return st;
	}
	memset(&me, 0, sizeof(me));
	/* The job's data by message, not through the shared-memory store
	 * (ds21), in which PMIx_Init hung now and then under Open MPI 4.1.4
	 * with 16 ranks on 2 cores. */
	memset(&info, 0, sizeof(info));
	snprintf(info.key, sizeof(info.key), "%s", PMIX_GDS_MODULE);
	info.value.type = PMIX_STRING;
	info.value.data.string = gds;
	rc = l.init(&me, &info, 1);
	if (rc != PMIX_SUCCESS) {
		st = cr_host->error_set(err, CR_ERR_IO,
					"PMIx_Init failed: %s (PMIX_NAMESPACE is set, but no PMIx "
					"server answered)",
					l.error_string(rc));
		cr_host->dl_close(l.handle);
		return st;
	}
	st = share ? pmix_share(&l, &me, self, err) : CR_OK;
	if (st == CR_OK)
		st = pmix_ranks(&l, &me, env, share ? PMIX_ADDR_KEY : PMIX_HOSTNAME, peers, err);
	rc = l.fin(NULL, 0);
	if (rc != PMIX_SUCCESS && st == CR_OK) {
		mpi_peers_free(*peers, env->size);
		*peers = NULL;
		st = cr_host->error_set(err, CR_ERR_IO, "PMIx_Finalize failed: %s",
					l.error_string(rc));
	}
	/* libpmix keeps threads and handlers: never unloaded once initialized. */
	return st;
}
