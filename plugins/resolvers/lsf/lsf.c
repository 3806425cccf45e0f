/* SPDX-License-Identifier: MIT */
/*
 * lsf.c - lsf.so: a task of an IBM Spectrum LSF job. LSF describes the
 * allocation: LSB_MCPU_HOSTS ("host slots" pairs, the whole allocation),
 * else the job's host file LSB_DJOB_HOSTFILE or rank file LSB_DJOB_RANKFILE
 * (a host a line, a line a slot), else LSB_HOSTS (a host a word, a word a
 * slot; LSF drops it above 4096 bytes, so it is read only when nothing
 * else is there). Where jsrun runs (a CSM system: JSM_NAMESPACE_* or
 * CSM_ALLOCATION_ID set) the first host of each is the launch node, where
 * the job script runs and no task does (Lightning's reading of the rank
 * file), with one slot: `launch_node` says whether to leave it out.
 *
 * The cluster: one job (`job`) of, per host in LSF's order,
 * `tasks_per_host` tasks (one a slot with `per_slot`) at host:port_base+i.
 * This process's task: jsrun's JSM_NAMESPACE_RANK, in a world of exactly
 * JSM_NAMESPACE_SIZE tasks (placed block-wise when the allocation holds
 * that many, else only task 0's address is known, the first compute
 * host's); without jsrun the job script, on the first host, is task 0 when
 * there is one task a host; anything else declines, never "task 0".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

#include "alloc.h"
#include "launchers.h"

typedef struct lsf_jsrun {
	int64_t rank, size, local; /* local -1 when JSM_NAMESPACE_LOCAL_RANK is unset */
} lsf_jsrun;

/* @var as a decimal below 2^31: 1, 0 when unset, -1 after an error. */
static int lsf_uint(cr_plugin_ctx *ctx, const char *var, int64_t *out, cr_status *st, cr_error *err)
{
	return launch_env_uint(ctx, "LSF", var, out, st, err);
}

/* @text past its first @words blank-separated words. */
static const char *lsf_skip_words(const char *text, size_t words)
{
	const char *p = text;

	for (size_t w = 0; w < words; w++) {
		p += strspn(p, " \t\n");
		p += strcspn(p, " \t\n");
	}
	return p;
}

/* The allocation, in LSF's order, its first @skip entries passed over;
 * *@from names where it was read. */
static cr_status lsf_read_source(cr_plugin_ctx *ctx, size_t skip, launch_alloc *a,
				 const char **from, cr_error *err)
{
	static const char *const files[] = { "LSB_DJOB_HOSTFILE", "LSB_DJOB_RANKFILE" };
	const char *v = cr_host->getenv(ctx, "LSB_MCPU_HOSTS");

	if (v != NULL && *v != '\0') {
		*from = "LSB_MCPU_HOSTS";
		return launch_alloc_read_words("LSF", *from, lsf_skip_words(v, 2 * skip), true, a,
					       err);
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *path = cr_host->getenv(ctx, files[i]);

		if (path != NULL && *path != '\0') {
			*from = path;
			return launch_alloc_read_file(ctx, "LSF", path, LAUNCH_HOST_A_LINE, skip, a,
						      err);
		}
	}
	v = cr_host->getenv(ctx, "LSB_HOSTS");
	if (v == NULL || *v == '\0')
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "LSF: none of LSB_MCPU_HOSTS, LSB_DJOB_HOSTFILE, "
					  "LSB_DJOB_RANKFILE and LSB_HOSTS is set (LSF sets "
					  "LSB_MCPU_HOSTS in every job)");
	*from = "LSB_HOSTS";
	return launch_alloc_read_words("LSF", *from, lsf_skip_words(v, skip), false, a, err);
}

/* The allocation without its launch node when *@skip (the first host,
 * with "auto" only when it has one slot, as a launch node has: else
 * *@skip turns false). */
static cr_status lsf_read_hosts(cr_plugin_ctx *ctx, bool *skip, launch_alloc *a, const char **from,
				cr_error *err)
{
	bool forced = strcmp(cr_host->opt_string(ctx, "launch_node"), "skip") == 0;
	cr_status st = lsf_read_source(ctx, 0, a, from, err);

	if (st != CR_OK || !*skip)
		return st;
	if (!forced && a->slots[0] != 1) {
		*skip = false; /* a compute host of several slots, no launch node */
		return CR_OK;
	}
	if (a->n == 1)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "LSF: %s lists no host but the launch node %.64s", *from,
					  a->host[0]);
	launch_alloc_clear(a);
	return lsf_read_source(ctx, 1, a, from, err);
}

/* jsrun's variables: 1 when this is a jsrun task, 0 when not, -1 after an
 * error. */
static int lsf_jsrun_read(cr_plugin_ctx *ctx, lsf_jsrun *j, cr_status *st, cr_error *err)
{
	int has_rank = lsf_uint(ctx, "JSM_NAMESPACE_RANK", &j->rank, st, err);
	int has_size = has_rank < 0 ? -1 : lsf_uint(ctx, "JSM_NAMESPACE_SIZE", &j->size, st, err);
	int has_local =
		has_size < 0 ? -1 : lsf_uint(ctx, "JSM_NAMESPACE_LOCAL_RANK", &j->local, st, err);

	if (has_local < 0)
		return -1;
	if (!has_local)
		j->local = -1;
	if (!has_rank)
		return 0;
	if (!has_size) {
		*st = cr_host->error_set(err, CR_ERR_BACKEND,
					 "LSF: JSM_NAMESPACE_RANK is set but JSM_NAMESPACE_SIZE "
					 "is not (jsrun sets both)");
		return -1;
	}
	if (j->rank >= j->size) {
		*st = cr_host->error_set(err, CR_ERR_BACKEND,
					 "LSF: JSM_NAMESPACE_RANK=%lld is not below "
					 "JSM_NAMESPACE_SIZE=%lld",
					 (long long)j->rank, (long long)j->size);
		return -1;
	}
	return 1;
}

/* The host of task @task when the job is laid out block-wise, and that
 * host's first task. */
static size_t lsf_host_of(const launch_alloc *a, int64_t task, int64_t tph, bool per_slot,
			  int64_t *first)
{
	size_t h = 0;

	if (!per_slot) {
		*first = task - task % tph;
		return (size_t)(task / tph);
	}
	*first = 0;
	while (h + 1 < a->n && *first + (int64_t)a->slots[h] <= task)
		*first += (int64_t)a->slots[h++];
	return h;
}

/* A jsrun task: the world is jsrun's JSM_NAMESPACE_SIZE tasks. */
static cr_status lsf_emit_jsrun(cr_result_builder *b, const launch_alloc *a, const lsf_jsrun *j,
				const char *job, int64_t tph, bool per_slot, int64_t base,
				cr_error *err)
{
	int64_t total = per_slot ? (int64_t)a->nslots : (int64_t)a->n * tph, first = 0;
	char addr[LAUNCH_HOST_MAX + 8];
	size_t h;
	cr_status st;

	if (total != j->size) {
		/* jsrun placed them where its resource sets say, which no
		 * variable tells: only the first compute host's task 0 is known
		 * (Lightning's main address). */
		snprintf(addr, sizeof(addr), "%s:%lld", a->host[0], (long long)base);
		st = cr_host->result_set_job_size(b, job, j->size, "jsrun", err);
		if (st == CR_OK)
			st = cr_host->result_add_task(b, job, 0, addr, err);
		return st == CR_OK ? cr_host->result_set_task(b, job, j->rank, err) : st;
	}
	h = lsf_host_of(a, j->rank, tph, per_slot, &first);
	if (j->local >= 0 && j->local != j->rank - first)
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"LSF: jsrun task %lld is local task %lld (JSM_NAMESPACE_LOCAL_RANK), but "
			"%lld tasks laid out host by host put it at local task %lld of %s: "
			"jsrun placed them otherwise (set tasks_per_host to its tasks a host)",
			(long long)j->rank, (long long)j->local, (long long)j->size,
			(long long)(j->rank - first), a->host[h]);
	return launch_alloc_emit(b, "LSF", a, job, tph, per_slot, base, j->rank, err);
}

static cr_status lsf_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");
	const char *ln = cr_host->opt_string(ctx, "launch_node");

	if (job == NULL || *job == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: job must not be empty",
					  cr_host->cfg_file(config), cr_host->cfg_line(config));
	if (ln == NULL ||
	    (strcmp(ln, "auto") != 0 && strcmp(ln, "skip") != 0 && strcmp(ln, "keep") != 0))
		return cr_host->error_set(
			err, CR_ERR_CONFIG,
			"%s:%d: launch_node must be \"auto\", \"skip\" or \"keep\"",
			cr_host->cfg_file(config), cr_host->cfg_line(config));
	*state = ctx;
	return CR_OK;
}

static void lsf_destroy(void *state)
{
	(void)state;
}

static cr_status lsf_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	const char *id = cr_host->getenv(ctx, "LSB_JOBID");

	(void)state;
	if (id != NULL && *id != '\0')
		return CR_OK;
	return cr_host->error_set(err, CR_DECLINED, "not in an LSF job: LSB_JOBID is not set");
}

/* Whether the first host is a launch node: `launch_node`, or with "auto"
 * a CSM system (jsrun's variables, CSM_ALLOCATION_ID). */
static bool lsf_launch_node(cr_plugin_ctx *ctx, bool jsrun)
{
	const char *ln = cr_host->opt_string(ctx, "launch_node");

	if (strcmp(ln, "auto") != 0)
		return strcmp(ln, "skip") == 0;
	return jsrun || cr_host->getenv(ctx, "CSM_ALLOCATION_ID") != NULL;
}

/* No jsrun: the job script, on the first host, is task 0 when there is
 * one task a host; else no rank from LSF. */
static cr_status lsf_emit_script(cr_plugin_ctx *ctx, cr_result_builder *b, const launch_alloc *a,
				 bool launch_node, const char *job, int64_t tph, bool per_slot,
				 int64_t base, cr_error *err)
{
	const char *id = cr_host->getenv(ctx, "LSB_JOBID");

	if (launch_node)
		return cr_host->error_set(
			err, CR_DECLINED,
			"in LSF job %.64s of %zu compute hosts, on its launch node (a jsrun job's "
			"script runs there, no task does): start the tasks with jsrun or mpirun "
			"(the mpi resolver places each rank)",
			id, a->n);
	if (per_slot || tph != 1)
		return cr_host->error_set(
			err, CR_DECLINED,
			"in LSF job %.64s of %zu hosts, but LSF gives this process no rank among "
			"%s: start the tasks with jsrun or mpirun (the mpi resolver places each "
			"rank)",
			id, a->n, per_slot ? "the slots" : "several tasks a host");
	return launch_alloc_emit(b, "LSF", a, job, tph, per_slot, base, 0, err);
}

static cr_status lsf_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job"), *from = NULL;
	bool per_slot = cr_host->opt_bool(ctx, "per_slot"), skip;
	int64_t tph = cr_host->opt_int(ctx, "tasks_per_host");
	int64_t base = cr_host->opt_int(ctx, "port_base");
	lsf_jsrun j = { 0, 0, -1 };
	cr_status st = CR_OK;
	int jsrun;
	launch_alloc a;

	(void)state;
	launch_alloc_init(&a);
	jsrun = lsf_jsrun_read(ctx, &j, &st, err);
	if (jsrun < 0)
		return st;
	skip = lsf_launch_node(ctx, jsrun == 1);
	st = lsf_read_hosts(ctx, &skip, &a, &from, err);
	if (st == CR_OK) {
		cr_host->result_set_fact_string(b, "launcher", jsrun ? "LSF jsrun" : "LSF", NULL);
		cr_host->result_set_fact_string(b, "hosts_from", from, NULL);
		cr_host->result_set_fact_string(b, "launch_node", skip ? "left out" : "none", NULL);
		st = jsrun ? lsf_emit_jsrun(b, &a, &j, job, tph, per_slot, base, err)
			   : lsf_emit_script(ctx, b, &a, skip, job, tph, per_slot, base, err);
	}
	launch_alloc_clear(&a);
	return st;
}

static const cr_option lsf_options[] = {
	LAUNCH_ALLOC_OPTIONS("one task a slot (LSB_MCPU_HOSTS's counts) instead of tasks_per_host"),
	CR_OPTION("launch_node", CR_OPT_STRING, "auto", 0,
		  "whether the first host is a launch node that runs no task: auto (where "
		  "jsrun or CSM_ALLOCATION_ID says a CSM system), skip or keep"),
	CR_OPTIONS_END,
};

static const cr_resolver_ops lsf_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = lsf_create,
	.destroy = lsf_destroy,
	.probe = lsf_probe,
	.resolve = lsf_resolve,
	.master = NULL,
};

static const cr_plugin_desc lsf_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "lsf",
	.version = CR_VERSION_STRING,
	.description = "a task of an IBM Spectrum LSF job: the hosts of LSB_MCPU_HOSTS, jsrun's "
		       "rank or the job script's place",
	.options = lsf_options,
	.option_size = sizeof(cr_option),
	.resolver = &lsf_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(lsf_desc)
