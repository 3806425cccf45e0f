/* SPDX-License-Identifier: MIT */
/*
 * fuzz-hostlist.c - libFuzzer target for the core hostlist parser.
 *
 * Property: any input either fails with CR_ERR_PARSE and a message that
 * quotes it, or expands to names that compress back to an expression which
 * expands to exactly the same names, in the same order. The streaming walk
 * (hostlist_foreach_limit) gives the same names or the same error, and on
 * an error gives no name at all.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "values/hostlist-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_roundtrip(char **hosts, size_t count)
{
	cr_error err = CR_ERROR_INIT;
	char *expr = NULL;
	char **again = NULL;
	size_t n = 0;

	if (cr_hostlist_compress((const char *const *)hosts, count, &expr, &err) != CR_OK) {
		/* only names a hostlist cannot spell: blanks inside are impossible,
		 * so compress must accept every expanded name */
		abort();
	}
	if (hostlist_expand_limit(expr, count, &again, &n, &err) != CR_OK || n != count)
		abort();
	for (size_t i = 0; i < count; i++)
		if (strcmp(hosts[i], again[i]) != 0)
			abort();
	cr_strv_free(again);
	cr_free(expr);
}

/* Each streamed name must be the next one of the vector expansion. */
typedef struct walk_check {
	char **hosts; /* NULL when the expansion failed */
	size_t count, seen;
} walk_check;

static int walk_name(const char *name, size_t len, void *user_data)
{
	walk_check *w = user_data;

	if (w->hosts == NULL || w->seen == w->count || strlen(name) != len ||
	    strcmp(name, w->hosts[w->seen]) != 0)
		abort();
	w->seen++;
	return 0;
}

static void check_walk(const char *text, cr_status st, const cr_error *err, char **hosts,
		       size_t count)
{
	walk_check w = { hosts, count, 0 };
	cr_error werr = CR_ERROR_INIT;

	if (hostlist_foreach_limit(text, 4096, walk_name, &w, &werr) != st || w.seen != count)
		abort();
	if (st != CR_OK && strcmp(werr.message, err->message) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = g_strndup((const char *)data, size);
	cr_error err = CR_ERROR_INIT;
	char **hosts = NULL;
	size_t count = 0;
	cr_status st;

	st = hostlist_expand_limit(text, 4096, &hosts, &count, &err);
	check_walk(text, st, &err, hosts, count);
	if (st == CR_OK) {
		for (size_t i = 0; i < count; i++)
			if (hosts[i][0] == '\0' || strpbrk(hosts[i], ",[] \t\n\r\v\f") != NULL)
				abort();
		check_roundtrip(hosts, count);
		cr_strv_free(hosts);
	} else if (st != CR_ERR_PARSE || hosts != NULL || count != 0 ||
		   strncmp(err.message, "invalid hostlist \"", 18) != 0) {
		abort();
	}
	g_free(text);
	return 0;
}
