/* SPDX-License-Identifier: MIT */
/*
 * launchers.c - the table of size variables (see launchers.h). The facts
 * and their sources are in docs/launchers.md; only variables that a source
 * confirms are here. Task-level launchers come first, then allocations, so
 * the message names the innermost launcher.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "launchers.h"

static const launch_size table[] = {
	{ "WORLD_SIZE", "torchrun or another torch env:// launcher", "torch-env", NULL,
	  "processes" },
	{ "CROSS_SIZE", "the DeepSpeed launcher", "torch-env", "WORLD_SIZE", "nodes" },
	{ "NUM_PROCESSES", "a Kubeflow JAXJob", "torch-env", "COORDINATOR_ADDRESS", "processes" },
	{ "PET_NNODES", "a Kubeflow TrainJob (torchrun's PET_ options)", "torch-env", NULL,
	  "nodes" },
	{ "OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun", "mpi", NULL, "processes" },
	{ "PMI_SIZE", "a PMI launcher (MPICH's or Intel MPI's mpiexec, Flux)", "mpi", NULL,
	  "processes" },
	{ "MV2_COMM_WORLD_SIZE", "MVAPICH2's mpirun_rsh", "mpi", NULL, "processes" },
	{ "JSM_NAMESPACE_SIZE", "an LSF jsrun launch", "lsf", NULL, "processes" },
	{ "FLUX_JOB_SIZE", "a Flux job", "flux", NULL, "processes" },
	{ "SLURM_STEP_NUM_TASKS", "a Slurm step (srun)", "slurm", NULL, "processes" },
	{ "SLURM_NTASKS", "a Slurm job (sbatch, salloc)", "slurm", "SLURM_JOB_ID", "tasks" },
	{ "SLURM_JOB_NUM_NODES", "a Slurm job (sbatch, salloc)", "slurm", "SLURM_JOB_ID", "nodes" },
	{ "PBS_NP", "a Torque job", "pbs", "PBS_JOBID", "processors" },
	{ "PBS_NUM_NODES", "a Torque job", "pbs", "PBS_JOBID", "nodes" },
	{ "NSLOTS", "a Grid Engine job", "sge", "JOB_ID", "slots" },
	{ "NHOSTS", "a Grid Engine job", "sge", "JOB_ID", "hosts" },
	{ "SKYPILOT_NUM_NODES", "a SkyPilot cluster", "skypilot", NULL, "nodes" },
	{ "AWS_BATCH_JOB_NUM_NODES", "an AWS Batch multi-node parallel job", "aws-batch", NULL,
	  "nodes" },
};

bool launch_decimal(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (i == 0 || s[i] != '\0')
		return false;
	*out = v;
	return true;
}

int launch_env_uint(cr_plugin_ctx *ctx, const char *who, const char *var, int64_t *out,
		    cr_status *st, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, var);
	uint64_t n = 0;

	if (v == NULL)
		return 0;
	if (!launch_decimal(v, INT32_MAX, &n)) {
		*st = cr_host->error_set(err, CR_ERR_BACKEND,
					 "%s: %s=\"%.64s\" is not a non-negative integer", who, var,
					 v);
		return -1;
	}
	*out = (int64_t)n;
	return 1;
}

/* An allocation that says its size only as "host slots host slots ..."
 * (LSF's LSB_MCPU_HOSTS: no number of slots of its own is confirmed):
 * the sum of the slots. Looked at after the table, as an allocation. */
typedef struct launch_pairs {
	const char *env; /* the variable read */
	launch_size size;
} launch_pairs;

static const launch_pairs pairs_table[] = {
	{ "LSB_MCPU_HOSTS",
	  { "LSB_MCPU_HOSTS's slots", "an LSF job", "lsf", "LSB_JOBID", "slots" } },
};

/* The sum of the slots of "host slots ..." @s; false when it is not such
 * a list. */
static bool launch_pairs_sum(const char *s, uint64_t *sum)
{
	char num[24];

	*sum = 0;
	for (const char *p = s + strspn(s, " \t\n"); *p != '\0'; p += strspn(p, " \t\n")) {
		size_t n;
		uint64_t v;

		p += strcspn(p, " \t\n"); /* the host */
		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n == 0 || n >= sizeof(num))
			return false;
		memcpy(num, p, n);
		num[n] = '\0';
		if (!launch_decimal(num, UINT32_MAX, &v) || *sum + v > LAUNCH_SIZE_MAX)
			return false;
		*sum += v;
		p += n;
	}
	return true;
}

const launch_size *launch_size_find(cr_plugin_ctx *ctx, uint64_t *size)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const char *v = cr_host->getenv(ctx, table[i].var);
		uint64_t n;

		if (v == NULL || !launch_decimal(v, LAUNCH_SIZE_MAX, &n) || n < 2)
			continue;
		if (table[i].with != NULL && cr_host->getenv(ctx, table[i].with) == NULL)
			continue;
		*size = n;
		return &table[i];
	}
	for (size_t i = 0; i < sizeof(pairs_table) / sizeof(pairs_table[0]); i++) {
		const launch_size *l = &pairs_table[i].size;
		const char *v = cr_host->getenv(ctx, pairs_table[i].env);
		uint64_t n;

		if (v == NULL || !launch_pairs_sum(v, &n) || n < 2 ||
		    cr_host->getenv(ctx, l->with) == NULL)
			continue;
		*size = n;
		return l;
	}
	return NULL;
}
