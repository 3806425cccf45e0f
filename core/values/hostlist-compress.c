/* SPDX-License-Identifier: MIT */
/*
 * hostlist-compress.c - cr_hostlist_compress(): names back into one
 * expression, in their order (never sorted), so that expanding the result
 * gives the names again.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <glib.h>

#include "values/values-private.h"
#include "values/hostlist-private.h"

/* A name split around its last run of digits: PREFIX NUMBER SUFFIX. */
typedef struct hl_name {
	const char *name;
	size_t prefix_len;
	const char *suffix; /* NULL: no usable number, the name stays literal */
	uint64_t value;
	int width; /* digits as written */
} hl_name;

static cr_status hl_split_name(const char *name, hl_name *out, cr_error *err)
{
	size_t len = strlen(name);
	size_t end = len;
	size_t start;

	if (len == 0)
		return error_set(err, CR_ERR_INVALID_ARG, "cannot compress an empty host name");
	for (size_t i = 0; i < len; i++)
		if (name[i] == ',' || name[i] == '[' || name[i] == ']' || hl_is_blank(name[i]))
			return error_set(err, CR_ERR_INVALID_ARG,
					 "cannot compress host name \"%s\": it contains '%c'", name,
					 hl_is_blank(name[i]) ? ' ' : name[i]);
	out->name = name;
	out->suffix = NULL;
	while (end > 0 && !hl_is_digit(name[end - 1]))
		end--;
	start = end;
	while (start > 0 && hl_is_digit(name[start - 1]))
		start--;
	if (start == end || end - start > CR_HOSTLIST_MAX_DIGITS)
		return CR_OK;
	out->prefix_len = start;
	out->suffix = name + end;
	out->width = (int)(end - start);
	out->value = 0;
	for (size_t i = start; i < end; i++)
		out->value = out->value * 10 + (uint64_t)(name[i] - '0');
	return CR_OK;
}

/* Digits of @v printed without padding. */
static int hl_digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Whether @n can come from a range started with width @width: its digits
 * are exactly what the expansion would print. */
static bool hl_fits_width(const hl_name *n, int width)
{
	int natural = hl_digits(n->value);

	return n->width == (natural > width ? natural : width);
}

static bool hl_same_stem(const hl_name *a, const hl_name *b)
{
	return a->suffix != NULL && b->suffix != NULL && a->prefix_len == b->prefix_len &&
	       memcmp(a->name, b->name, a->prefix_len) == 0 && strcmp(a->suffix, b->suffix) == 0;
}

static void hl_append_range(GString *s, const hl_range *r)
{
	hl_append_number(s, r->lo, r->width);
	if (r->hi != r->lo) {
		g_string_append_c(s, '-');
		hl_append_number(s, r->hi, r->width);
	}
}

/* Write one stem's ranges: "n5" for a single name, else "n[1-3,7]-ib". */
static void hl_flush(GString *s, const hl_name *stem, const GArray *ranges)
{
	const hl_range *first = &g_array_index(ranges, hl_range, 0);
	bool bracket = ranges->len > 1 || first->hi != first->lo;

	if (s->len > 0)
		g_string_append_c(s, ',');
	g_string_append_len(s, stem->name, (gssize)stem->prefix_len);
	if (bracket)
		g_string_append_c(s, '[');
	for (guint i = 0; i < ranges->len; i++) {
		if (i > 0)
			g_string_append_c(s, ',');
		hl_append_range(s, &g_array_index(ranges, hl_range, i));
	}
	if (bracket)
		g_string_append_c(s, ']');
	g_string_append(s, stem->suffix);
}

/* Extend the current stem with @n; returns false when @n starts a new one. */
static bool hl_extend(const hl_name *stem, GArray *ranges, const hl_name *n)
{
	hl_range *last;
	hl_range r;

	if (ranges->len == 0 || !hl_same_stem(stem, n))
		return false;
	last = &g_array_index(ranges, hl_range, ranges->len - 1);
	if (last->hi != UINT64_MAX && n->value == last->hi + 1 && hl_fits_width(n, last->width)) {
		last->hi = n->value;
		return true;
	}
	r.lo = r.hi = n->value;
	r.width = n->width;
	g_array_append_val(ranges, r);
	return true;
}

cr_status cr_hostlist_compress(const char *const *hosts, size_t count, char **expr, cr_error *err)
{
	GString *s;
	GArray *ranges;
	hl_name stem = { NULL, 0, NULL, 0, 0 };
	cr_status st = CR_OK;

	if (expr == NULL || (hosts == NULL && count > 0))
		return error_set(err, CR_ERR_INVALID_ARG, "hostlist compress: NULL argument");
	*expr = NULL;
	s = g_string_new(NULL);
	ranges = g_array_new(FALSE, FALSE, sizeof(hl_range));
	for (size_t i = 0; i < count; i++) {
		hl_name n;
		hl_range r;

		if (hosts[i] == NULL) {
			st = error_set(err, CR_ERR_INVALID_ARG,
				       "hostlist compress: host %zu is NULL", i);
			goto out;
		}
		st = hl_split_name(hosts[i], &n, err);
		if (st != CR_OK)
			goto out;
		if (hl_extend(&stem, ranges, &n))
			continue;
		if (ranges->len > 0)
			hl_flush(s, &stem, ranges);
		g_array_set_size(ranges, 0);
		if (n.suffix == NULL) {
			if (s->len > 0)
				g_string_append_c(s, ',');
			g_string_append(s, n.name);
			continue;
		}
		stem = n;
		r.lo = r.hi = n.value;
		r.width = n.width;
		g_array_append_val(ranges, r);
	}
	if (ranges->len > 0)
		hl_flush(s, &stem, ranges);
out:
	g_array_free(ranges, TRUE);
	if (st != CR_OK) {
		g_string_free(s, TRUE);
		return st;
	}
	*expr = g_string_free(s, FALSE);
	return CR_OK;
}
