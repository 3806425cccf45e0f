/* SPDX-License-Identifier: MIT */
/*
 * slurm-env.c - the lowest layer of slurm.so: which of Slurm's variables
 * describe this process (a step's, else the job's), and reading a number
 * from one with an error that names it. Every other file of the plugin
 * stands on it.
 */
#include <string.h>

#include "slurm.h"

void slurm_env_read(cr_plugin_ctx *ctx, slurm_env *env)
{
	const char *step = cr_host->getenv(ctx, "SLURM_STEP_NODELIST");

	memset(env, 0, sizeof(*env));
	env->in_step = step != NULL;
	if (env->in_step) {
		env->nodelist_var = "SLURM_STEP_NODELIST";
		env->tpn_var = "SLURM_STEP_TASKS_PER_NODE";
		env->ntasks_var = "SLURM_STEP_NUM_TASKS";
	} else {
		env->nodelist_var = "SLURM_JOB_NODELIST";
		env->tpn_var = "SLURM_TASKS_PER_NODE";
		env->ntasks_var = "SLURM_NTASKS";
		if (cr_host->getenv(ctx, env->nodelist_var) == NULL)
			env->nodelist_var = "SLURM_NODELIST";
	}
	env->nodelist = cr_host->getenv(ctx, env->nodelist_var);
	env->tpn = cr_host->getenv(ctx, env->tpn_var);
	env->ntasks = cr_host->getenv(ctx, env->ntasks_var);
}

cr_status slurm_parse_uint(const char *var, const char *value, uint32_t *out, cr_error *err)
{
	uint64_t v = 0;
	size_t i = 0;

	for (; value[i] >= '0' && value[i] <= '9' && v <= UINT32_MAX; i++)
		v = v * 10 + (uint64_t)(value[i] - '0');
	if (i == 0 || value[i] != '\0' || v > UINT32_MAX)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "%s \"%s\" is not a non-negative integer", var, value);
	*out = (uint32_t)v;
	return CR_OK;
}

cr_status slurm_nomem(cr_error *err)
{
	return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
}
