/* SPDX-License-Identifier: MIT */
/*
 * flux.h - the parts of flux.so: the job's resource set R (flux_r.c) and
 * the resolver (flux.c).
 */
#ifndef CR_FLUX_H
#define CR_FLUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

/* The most hosts (execution targets) an R may name, and the most bytes it
 * may weigh: far above any machine, far below what would exhaust memory. */
#define FLUX_R_HOSTS_MAX (1u << 22)
#define FLUX_R_BYTES_MAX (16u << 20)

/* What a task needs of R (RFC 20 version 1). */
typedef struct flux_r {
	char **host;       /* a host a node, in execution-target (rank) order */
	size_t n;          /* nodes */
	bool cores_differ; /* R_lite gives its nodes different core counts */
} flux_r;

/* Parse R (@len bytes of @text; @what names where it came from in
 * messages): the hosts from execution.nodelist (RFC 29 hostlists, through
 * the core's hostlist grammar), or, in an R older than the nodelist key,
 * from the R_lite entries' "node" names in rank order; checked against
 * R_lite's execution targets. */
cr_status flux_r_parse(const char *text, size_t len, const char *what, flux_r *r, cr_error *err);

void flux_r_clear(flux_r *r);

#endif /* CR_FLUX_H */
