/* SPDX-License-Identifier: MIT */
/*
 * fuzz-tpn.c - libFuzzer target for the tasks-per-node parser
 * (cr_tasks_per_node_expand, which slurm.so reaches through
 * host->tasks_per_node_expand). Properties: an accepted list written back
 * as "N(xR)" runs reads back the same counts; an error is CR_ERR_PARSE
 * quoting the list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "values/hostlist-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* {3, 3, 2} -> "3(x2),2" */
static char *tpn_write(const uint32_t *counts, size_t n)
{
	GString *out = g_string_new(NULL);

	for (size_t i = 0; i < n;) {
		size_t run = 1;

		while (i + run < n && counts[i + run] == counts[i])
			run++;
		g_string_append_printf(out, "%s%u", out->len > 0 ? "," : "", counts[i]);
		if (run > 1)
			g_string_append_printf(out, "(x%zu)", run);
		i += run;
	}
	return g_string_free(out, FALSE);
}

static void check_error(cr_status st, const cr_error *err)
{
	if (st != CR_ERR_PARSE || err->code != CR_ERR_PARSE ||
	    strncmp(err->message, "invalid tasks-per-node list \"", 29) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = g_strndup((const char *)data, size);
	cr_error err = CR_ERROR_INIT;
	uint32_t *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	cr_status st;

	st = tasks_per_node_expand_limit(text, 4096, &a, &na, &err);
	if (st != CR_OK) {
		check_error(st, &err);
	} else if (na > 0) { /* "2(x0)" is a list of no entry */
		char *again = tpn_write(a, na);

		if (tasks_per_node_expand_limit(again, 4096, &b, &nb, NULL) != CR_OK || nb != na ||
		    memcmp(a, b, na * sizeof(*a)) != 0)
			abort();
		g_free(again);
	}
	g_free(a);
	g_free(b);
	g_free(text);
	return 0;
}
