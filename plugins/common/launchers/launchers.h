/* SPDX-License-Identifier: MIT */
/*
 * launchers.h - the variables by which a launcher or batch scheduler says
 * how many processes it started (docs/launchers.md has the table and its
 * sources). A resolver that would answer "a world of one" asks here first:
 * under mpirun, torchrun or an sbatch script such an answer is silently
 * wrong (every process would be task 0 of 1).
 */
#ifndef CR_COMMON_LAUNCHERS_H
#define CR_COMMON_LAUNCHERS_H

#include <stdbool.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

typedef struct launch_size {
	const char *var;      /* the size variable, e.g. "OMPI_COMM_WORLD_SIZE" */
	const char *launcher; /* who sets it, e.g. "Open MPI's mpirun" */
	const char *plugin;   /* the resolver that reads it, NULL when none yet */
	const char *with;     /* a second variable that must be set too, or NULL */
	const char *unit;     /* what it counts: "processes", "nodes", "slots" */
} launch_size;

/* The first entry of the table whose variable holds a decimal number above
 * 1 in this process's environment (and whose @with variable is set), its
 * value in *@size; else an LSF job's LSB_MCPU_HOSTS whose "host slots"
 * pairs add up to more than 1 (the entry's var is "LSB_MCPU_HOSTS's
 * slots"); NULL when no launcher says there is more than one process. A
 * value that is not a decimal number (or such a list) is passed over: the
 * plugin that reads it reports it. */
const launch_size *launch_size_find(cr_plugin_ctx *ctx, uint64_t *size);

/* The largest size a size variable may say (19 digits): a longer number
 * is no size, passed over like a word. */
#define LAUNCH_SIZE_MAX UINT64_C(9999999999999999999)

/* @s as a decimal number of at most @max: digits only (no sign, blank or
 * prefix); true and the value in *@out, else false. The one reader of a
 * launcher's or scheduler's numbers (ranks, sizes, indices) for the
 * plugins that link this library; each words its own message. */
bool launch_decimal(const char *s, uint64_t max, uint64_t *out);

/* Variable @var as a decimal below 2^31, into *@out: 1; 0 when unset; -1
 * when it is no such number, with *@st and @err set to CR_ERR_BACKEND,
 * "@who: VAR=\"VALUE\" is not a non-negative integer". */
int launch_env_uint(cr_plugin_ctx *ctx, const char *who, const char *var, int64_t *out,
		    cr_status *st, cr_error *err);

#endif /* CR_COMMON_LAUNCHERS_H */
