/* SPDX-License-Identifier: MIT */
/*
 * fuzz-tpn.c - libFuzzer target for the two tasks-per-node parsers: the
 * core's (cr_tasks_per_node_expand) and the slurm plugin's own copy
 * (slurm_tpn_parse). They must agree on every input: the same counts, or
 * the same error at the same position.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "hostlist-private.h"
#include "slurm.h"

/* slurm-tpn.c never calls the host, but slurm.h declares this. */
const cr_host_api *cr_host;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = g_strndup((const char *)data, size);
	cr_error err = CR_ERROR_INIT;
	uint32_t *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, pos = 0;
	char why[160], tail[220];
	cr_status st;
	int rc;

	st = tasks_per_node_expand_limit(text, 4096, &a, &na, &err);
	rc = slurm_tpn_parse(text, 4096, &b, &nb, &pos, why, sizeof(why));
	if ((st == CR_OK) != (rc == 0))
		abort();
	if (st == CR_OK) {
		if (na != nb || (na > 0 && memcmp(a, b, na * sizeof(*a)) != 0))
			abort();
	} else {
		size_t len = strlen(err.message);

		if (pos == 0)
			snprintf(tail, sizeof(tail), "\": %s", why);
		else
			snprintf(tail, sizeof(tail), "\": %s at position %zu", why, pos);
		if (len < sizeof(err.message) - 1 &&
		    (len < strlen(tail) || strcmp(err.message + len - strlen(tail), tail) != 0))
			abort();
	}
	g_free(a);
	free(b);
	g_free(text);
	return 0;
}
