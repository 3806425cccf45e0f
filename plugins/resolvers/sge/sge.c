/* SPDX-License-Identifier: MIT */
/*
 * sge.c - sge.so: the master task of a Grid Engine parallel job (Son of
 * Grid Engine, Univa / Altair Grid Engine). Grid Engine describes the
 * allocation in PE_HOSTFILE, one line a queue instance: "host slots
 * queue-instance processor-range" (the fourth field UNDEFINED, <NULL> or a
 * binding string: not read; host names kept as written, short or FQDN),
 * with NSLOTS, NHOSTS and NQUEUES, which must agree with it. The cluster:
 * one job (`job`) with, per host in the file's order, `tasks_per_host`
 * tasks (1 by default, one a node as TensorFlow's resolvers; `per_slot` for
 * one a slot), "host:port_base+i".
 *
 * This process's task: execd forwards PE_HOSTFILE to the master task only
 * (the job script, on the master queue's host: exec_job.c's
 * responsible_queue() takes the first granted queue, the file's first
 * line), not to the tasks `qrsh -inherit` starts (JOB_SCRIPT=QRSH, no
 * PE_HOSTFILE, no rank). So the job script is task 0 when it is the only
 * task of the first host; anywhere else (several tasks there, a host listed
 * further down) Grid Engine gives no rank and it declines, saying what
 * would place the process (mpirun through the mpi resolver), never "task
 * 0" (not --task-id: a resolver cannot see it, and it would not place the
 * hosts' other tasks). A process that a launcher started inside the job
 * (torchrun, mpirun: their size variable above 1) inherits the job script's
 * PE_HOSTFILE but is not the job script: declined, the launcher's resolver
 * places it. SGE_TASK_ID (an array job's task, `undefined` otherwise) is not
 * read: each array task is a job of its own, with its own PE_HOSTFILE.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cluster-resolver/plugin.h>

#include "alloc.h"
#include "launchers.h"

#define SGE_WHO "Grid Engine"

static cr_status sge_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");

	if (job == NULL || *job == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: job must not be empty",
					  cr_host->cfg_file(config), cr_host->cfg_line(config));
	*state = ctx;
	return CR_OK;
}

static void sge_destroy(void *state)
{
	(void)state;
}

static cr_status sge_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	const char *id = cr_host->getenv(ctx, "JOB_ID"), *script;
	const launch_size *l;
	uint64_t size = 0;

	(void)state;
	if (id == NULL)
		return cr_host->error_set(
			err, CR_DECLINED,
			"not in a Grid Engine job: JOB_ID and PE_HOSTFILE are not set");
	if (cr_host->getenv(ctx, "PE_HOSTFILE") == NULL) {
		script = cr_host->getenv(ctx, "JOB_SCRIPT");
		if (script != NULL && strcmp(script, "QRSH") == 0 &&
		    cr_host->getenv(ctx, "PE") != NULL)
			return cr_host->error_set(
				err, CR_DECLINED,
				"a task of Grid Engine job %.64s started by qrsh -inherit "
				"(JOB_SCRIPT=QRSH): Grid Engine gives it neither PE_HOSTFILE (the "
				"master task's only) nor a rank; start the tasks with mpirun (the "
				"mpi "
				"resolver places each rank)",
				id);
		return cr_host->error_set(
			err, CR_DECLINED,
			"in Grid Engine job %.64s but not in a parallel environment "
			"(PE_HOSTFILE is not set: a serial job, one slot)",
			id);
	}
	/* A task launcher inside the job (a size in processes: torchrun,
	 * mpirun, mpiexec, jsrun, srun): its processes inherit the job script's
	 * PE_HOSTFILE, and are not the job script. An allocation's count
	 * (Slurm's, Torque's) that qsub -V carried in says nothing of that. */
	l = launch_size_find(ctx, &size);
	if (l != NULL && strcmp(l->unit, "processes") == 0)
		return cr_host->error_set(
			err, CR_DECLINED,
			"in Grid Engine job %.64s, but %s=%llu says %s started this process (one "
			"of %llu %s), not the job script: %s%s%s",
			id, l->var, (unsigned long long)size, l->launcher, (unsigned long long)size,
			l->unit,
			l->plugin != NULL ? "the " : "no resolver of this version reads it",
			l->plugin != NULL ? l->plugin : "",
			l->plugin != NULL ? " resolver places it" : "");
	return CR_OK;
}

/* @var, when set, must be the number @want of PE_HOSTFILE: a decimal; a
 * mismatch names both. */
static cr_status sge_check(cr_plugin_ctx *ctx, const char *var, uint64_t want, const char *what,
			   const char *path, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, var);
	uint64_t n = 0;

	if (v == NULL)
		return CR_OK;
	if (!launch_decimal(v, UINT32_MAX, &n))
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  SGE_WHO ": %s=\"%.64s\" is not a non-negative integer",
					  var, v);
	if (n != want)
		return cr_host->error_set(
			err, CR_ERR_BACKEND, SGE_WHO ": %s=%llu, but PE_HOSTFILE %s lists %llu %s",
			var, (unsigned long long)n, path, (unsigned long long)want, what);
	return CR_OK;
}

/* PE_HOSTFILE, checked against NSLOTS (its slots), NHOSTS (its distinct
 * hosts) and NQUEUES (its lines), as exec_job.c counts them. */
static cr_status sge_read(cr_plugin_ctx *ctx, launch_alloc *a, const char **path, cr_error *err)
{
	cr_status st;

	*path = cr_host->getenv(ctx, "PE_HOSTFILE");
	if (*path == NULL || **path == '\0')
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  SGE_WHO ": PE_HOSTFILE is empty (Grid Engine sets it to "
						  "the master task's host file)");
	st = launch_alloc_read_file(ctx, SGE_WHO, *path, LAUNCH_HOST_SLOTS, 0, a, err);
	if (st == CR_OK)
		st = sge_check(ctx, "NSLOTS", a->nslots, "slots", *path, err);
	if (st == CR_OK)
		st = sge_check(ctx, "NHOSTS", a->n, "hosts", *path, err);
	if (st == CR_OK)
		st = sge_check(ctx, "NQUEUES", a->lines, "queue instances (lines)", *path, err);
	return st;
}

/* The job script's task: 0 when it is the only task of the first host;
 * otherwise a decline. A process on a host that PE_HOSTFILE lists further
 * down (HOSTNAME, else the kernel's name; as written, else the same short
 * name: launch_alloc_find)
 * is not the master task, whatever its environment says. */
static cr_status sge_rank(cr_plugin_ctx *ctx, const launch_alloc *a, bool per_slot, int64_t tph,
			  cr_error *err)
{
	const char *id = cr_host->getenv(ctx, "JOB_ID");
	const char *sge_host = cr_host->getenv(ctx, "HOSTNAME");
	uint64_t first = per_slot ? a->slots[0] : (uint64_t)tph;
	char me[LAUNCH_HOST_MAX + 1];
	long at = -1;

	/* Grid Engine sets HOSTNAME in a job's environment (exec_job.c);
	 * the kernel's name where it does not. */
	if (sge_host != NULL && *sge_host != '\0' && strlen(sge_host) <= LAUNCH_HOST_MAX) {
		snprintf(me, sizeof(me), "%s", sge_host);
		at = launch_alloc_find(a, me);
	} else if (gethostname(me, sizeof(me)) == 0) {
		me[sizeof(me) - 1] = '\0';
		at = launch_alloc_find(a, me);
	}
	if (at > 0)
		return cr_host->error_set(
			err, CR_DECLINED,
			"in Grid Engine job %.64s, but this host (%.64s) is host %ld of "
			"PE_HOSTFILE, "
			"and the master task runs on the first (%.64s): not the job script; start "
			"the tasks with mpirun (the mpi resolver places each rank)",
			id, me, at, a->host[0]);
	if (first == 1)
		return CR_OK;
	return cr_host->error_set(
		err, CR_DECLINED,
		"in Grid Engine job %.64s of %zu hosts, but Grid Engine gives this process no "
		"rank among the %llu tasks of %s (%s): start the tasks with mpirun (the mpi "
		"resolver places each rank)",
		id, a->n, (unsigned long long)first, a->host[0],
		per_slot ? "per_slot: one a slot" : "tasks_per_host > 1");
}

static cr_status sge_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job"), *path = NULL, *pe;
	bool per_slot = cr_host->opt_bool(ctx, "per_slot");
	int64_t tph = cr_host->opt_int(ctx, "tasks_per_host");
	int64_t base = cr_host->opt_int(ctx, "port_base");
	launch_alloc a;
	cr_status st;

	(void)state;
	launch_alloc_init(&a);
	st = sge_read(ctx, &a, &path, err);
	if (st == CR_OK)
		st = sge_rank(ctx, &a, per_slot, tph, err);
	if (st == CR_OK) {
		cr_host->result_set_fact_string(b, "launcher", SGE_WHO, NULL);
		pe = cr_host->getenv(ctx, "PE");
		if (pe != NULL)
			cr_host->result_set_fact_string(b, "pe", pe, NULL);
		cr_host->result_set_fact_string(b, "pe_hostfile", path, NULL);
		st = launch_alloc_emit(b, SGE_WHO, &a, job, tph, per_slot, base, 0, err);
	}
	launch_alloc_clear(&a);
	return st;
}

static const cr_option sge_options[] = {
	LAUNCH_ALLOC_OPTIONS("one task a slot of PE_HOSTFILE instead of tasks_per_host"),
	CR_OPTIONS_END,
};

static const cr_resolver_ops sge_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = sge_create,
	.destroy = sge_destroy,
	.probe = sge_probe,
	.resolve = sge_resolve,
	.master = NULL,
};

static const cr_plugin_desc sge_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "sge",
	.version = CR_VERSION_STRING,
	.description = "the master task of a Grid Engine parallel job: the hosts of "
		       "PE_HOSTFILE, the job script's place",
	.options = sge_options,
	.option_size = sizeof(cr_option),
	.resolver = &sge_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(sge_desc)
