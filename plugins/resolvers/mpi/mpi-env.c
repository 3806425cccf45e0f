/* SPDX-License-Identifier: MIT */
/*
 * mpi-env.c - which MPI launcher started this process, and its place.
 *
 * Presence takes two variables of one launcher (a marker and the rank),
 * checked in this order: Open MPI 4 (OMPI_MCA_orte_hnp_uri with
 * OMPI_COMM_WORLD_RANK), Open MPI 5 / PRRTE (PRTE_LAUNCHED with
 * PMIX_NAMESPACE), MVAPICH2 (MV2_COMM_WORLD_RANK with _SIZE), MPICH's
 * Hydra and Intel MPI (PMI_RANK + PMI_SIZE with PMI_FD, or PMI_ID with
 * PMI_PORT), then any PMIx server (PMIX_RANK with PMIX_NAMESPACE, as
 * Slurm's --mpi=pmix). rank < size, size >= 1 and local rank < local
 * size are checked; a violation is an error naming the variables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

const char *mpi_query_name(enum mpi_query q)
{
	return q == MPI_QUERY_PMIX ? "pmix" : q == MPI_QUERY_PMI1 ? "pmi1" : "none";
}

static const char *env_get(cr_plugin_ctx *ctx, const char *name)
{
	const char *v = cr_host->getenv(ctx, name);

	return v != NULL && *v != '\0' ? v : NULL;
}

/* Read @name as a decimal in 0..2^31-1 into *@out (unchanged when unset);
 * note it as read. */
static cr_status env_int(cr_plugin_ctx *ctx, struct mpi_env *env, const char *name, int64_t *out,
			 cr_error *err)
{
	const char *v = env_get(ctx, name);
	char *end;
	long long n;

	if (v == NULL)
		return CR_OK;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (*v < '0' || *v > '9' || *end != '\0' || errno != 0 || n > 2147483647)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s is '%s', not a number in 0..2147483647", name, v);
	*out = n;
	if (env->nvars < MPI_MAX_VARS)
		env->vars[env->nvars++] = name;
	return CR_OK;
}

static void env_note(cr_plugin_ctx *ctx, struct mpi_env *env, const char *name)
{
	if (env_get(ctx, name) != NULL && env->nvars < MPI_MAX_VARS)
		env->vars[env->nvars++] = name;
}

/* The four numbers under @prefix ("OMPI_COMM_WORLD_", "MV2_COMM_WORLD_"). */
static cr_status env_world(cr_plugin_ctx *ctx, struct mpi_env *env, const char *const names[4],
			   cr_error *err)
{
	cr_status st = env_int(ctx, env, names[0], &env->rank, err);

	if (st == CR_OK)
		st = env_int(ctx, env, names[1], &env->size, err);
	if (st == CR_OK)
		st = env_int(ctx, env, names[2], &env->local_rank, err);
	if (st == CR_OK)
		st = env_int(ctx, env, names[3], &env->local_size, err);
	return st;
}

static const char *const ompi_names[4] = { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
					   "OMPI_COMM_WORLD_LOCAL_RANK",
					   "OMPI_COMM_WORLD_LOCAL_SIZE" };
static const char *const mv2_names[4] = { "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE",
					  "MV2_COMM_WORLD_LOCAL_RANK",
					  "MV2_COMM_WORLD_LOCAL_SIZE" };
static const char *const hydra_names[4] = { "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID",
					    "MPI_LOCALNRANKS" };

/* PMI_FD or PMI_PORT + PMI_ID: the PMI-1 server of Hydra (or MVAPICH2's). */
static cr_status env_pmi1(cr_plugin_ctx *ctx, struct mpi_env *env, cr_error *err)
{
	int64_t fd = -1;
	cr_status st = env_int(ctx, env, "PMI_FD", &fd, err);

	env->pmi_fd = (int)fd;
	if (st != CR_OK || fd >= 0) {
		env->query = MPI_QUERY_PMI1;
		return st;
	}
	env->pmi_port = env_get(ctx, "PMI_PORT");
	if (env->pmi_port == NULL)
		return CR_OK;
	env_note(ctx, env, "PMI_PORT");
	env->query = MPI_QUERY_PMI1;
	env->pmi_id = -1;
	st = env_int(ctx, env, "PMI_ID", &env->pmi_id, err);
	if (st == CR_OK && env->pmi_id < 0)
		env->pmi_id = env->rank;
	if (st == CR_OK && env->pmi_id < 0)
		return cr_host->error_set(err, CR_ERR_NOT_FOUND,
					  "PMI_PORT is set but neither PMI_ID nor a rank variable");
	return st;
}

/* Which launcher: fills env->launcher and reads its numbers. */
static cr_status env_detect(cr_plugin_ctx *ctx, struct mpi_env *env, cr_error *err)
{
	if (env_get(ctx, "OMPI_MCA_orte_hnp_uri") && env_get(ctx, "OMPI_COMM_WORLD_RANK")) {
		env->launcher = "Open MPI 4 (ORTE)";
		env_note(ctx, env, "OMPI_MCA_orte_hnp_uri");
		env->query = MPI_QUERY_PMIX;
		return env_world(ctx, env, ompi_names, err);
	}
	if (env_get(ctx, "PRTE_LAUNCHED") && env_get(ctx, "PMIX_NAMESPACE")) {
		env->launcher = "Open MPI 5 (PRRTE)";
		env_note(ctx, env, "PRTE_LAUNCHED");
		env_note(ctx, env, "PMIX_NAMESPACE");
		env->query = MPI_QUERY_PMIX;
		if (env_get(ctx, "OMPI_COMM_WORLD_RANK"))
			return env_world(ctx, env, ompi_names, err);
		return env_int(ctx, env, "PMIX_RANK", &env->rank, err);
	}
	if (env_get(ctx, "MV2_COMM_WORLD_RANK") && env_get(ctx, "MV2_COMM_WORLD_SIZE")) {
		cr_status st;

		env->launcher = "MVAPICH2";
		st = env_world(ctx, env, mv2_names, err);
		return st == CR_OK ? env_pmi1(ctx, env, err) : st;
	}
	if ((env_get(ctx, "PMI_RANK") && env_get(ctx, "PMI_SIZE") && env_get(ctx, "PMI_FD")) ||
	    (env_get(ctx, "PMI_ID") && env_get(ctx, "PMI_PORT"))) {
		cr_status st;

		env->launcher = "MPICH or Intel MPI (Hydra)";
		st = env_world(ctx, env, hydra_names, err);
		return st == CR_OK ? env_pmi1(ctx, env, err) : st;
	}
	if (env_get(ctx, "PMIX_RANK") && env_get(ctx, "PMIX_NAMESPACE")) {
		env->launcher = "a PMIx server";
		env_note(ctx, env, "PMIX_NAMESPACE");
		env->query = MPI_QUERY_PMIX;
		return env_int(ctx, env, "PMIX_RANK", &env->rank, err);
	}
	return cr_host->error_set(
		err, CR_DECLINED,
		"not launched by an MPI launcher: none of OMPI_COMM_WORLD_RANK with "
		"OMPI_MCA_orte_hnp_uri, PRTE_LAUNCHED, MV2_COMM_WORLD_RANK, PMI_RANK "
		"with PMI_FD, PMI_ID with PMI_PORT, PMIX_RANK with PMIX_NAMESPACE is "
		"set");
}

/* rank < size, size >= 1, local rank < local size; PMIX_RANK agrees. */
static cr_status env_check(cr_plugin_ctx *ctx, struct mpi_env *env, const char *const names[4],
			   cr_error *err)
{
	int64_t pmix_rank = -1;

	if (env->size < 0 && env->query != MPI_QUERY_PMIX && env->pmi_port == NULL)
		return cr_host->error_set(err, CR_ERR_NOT_FOUND, "%s is unset under %s", names[1],
					  env->launcher);
	if (env->size >= 0 && env->rank >= env->size)
		return cr_host->error_set(err, CR_ERR_CONFLICT, "%s (%lld) is not below %s (%lld)",
					  names[0], (long long)env->rank, names[1],
					  (long long)env->size);
	if (env->local_size >= 0 && env->local_rank >= env->local_size)
		return cr_host->error_set(err, CR_ERR_CONFLICT, "%s (%lld) is not below %s (%lld)",
					  names[2], (long long)env->local_rank, names[3],
					  (long long)env->local_size);
	if ((env->local_size >= 0) != (env->local_rank >= 0))
		return cr_host->error_set(err, CR_ERR_NOT_FOUND, "%s is set but %s is not",
					  env->local_rank >= 0 ? names[2] : names[3],
					  env->local_rank >= 0 ? names[3] : names[2]);
	if (env->size >= 0 && env->local_size > env->size)
		return cr_host->error_set(err, CR_ERR_CONFLICT, "%s (%lld) is above %s (%lld)",
					  names[3], (long long)env->local_size, names[1],
					  (long long)env->size);
	if (names != NULL && strcmp(names[0], "PMIX_RANK") != 0 &&
	    env_get(ctx, "PMIX_RANK") != NULL) {
		struct mpi_env scratch = *env;
		cr_status st = env_int(ctx, &scratch, "PMIX_RANK", &pmix_rank, err);

		if (st != CR_OK)
			return st;
		if (pmix_rank != env->rank)
			return cr_host->error_set(
				err, CR_ERR_CONFLICT, "%s (%lld) and PMIX_RANK (%lld) disagree",
				names[0], (long long)env->rank, (long long)pmix_rank);
		*env = scratch;
	}
	return CR_OK;
}

cr_status mpi_env_read(cr_plugin_ctx *ctx, struct mpi_env *env, cr_error *err)
{
	static const char *const pmix_names[4] = { "PMIX_RANK", "size", "PMIX_LOCAL_RANK",
						   "local size" };
	const char *const *names = pmix_names;
	cr_status st;

	memset(env, 0, sizeof(*env));
	env->rank = -1;
	env->size = -1;
	env->local_rank = -1;
	env->local_size = -1;
	env->pmi_fd = -1;
	st = env_detect(ctx, env, err);
	if (st != CR_OK)
		return st;
	if (env->vars[0] != NULL && strncmp(env->launcher, "Open MPI", 8) == 0 &&
	    env_get(ctx, "OMPI_COMM_WORLD_RANK"))
		names = ompi_names;
	else if (strcmp(env->launcher, "MVAPICH2") == 0)
		names = mv2_names;
	else if (env->query == MPI_QUERY_PMI1)
		names = hydra_names;
	if (env->rank < 0 && env->pmi_port == NULL)
		return cr_host->error_set(err, CR_ERR_NOT_FOUND, "%s is unset under %s", names[0],
					  env->launcher);
	return env_check(ctx, env, names, err);
}
