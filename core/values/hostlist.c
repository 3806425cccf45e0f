/* SPDX-License-Identifier: MIT */
/*
 * hostlist.c - Slurm host lists.
 *
 * Grammar accepted by cr_hostlist_expand() (Slurm's, without its bugs):
 *
 *   hostlist := item (sep item)* [","]      sep: "," or blanks, blanks around
 *                                           a "," are ignored
 *   item     := (text | group)+             text: any bytes but , [ ] blanks
 *   group    := "[" range ("," range)* "]"
 *   range    := NUM | NUM "-" NUM           NUM: 1 to 18 ASCII digits, lo <= hi
 *
 * Several groups in one item give their cartesian product, the leftmost
 * group varying slowest (rack[1-2]-n[1-2]: rack1-n1 rack1-n2 rack2-n1 ...).
 * Every value is zero-padded to the width of its range's first number
 * (n[009-1000] gives n009 ... n999 n1000, as scontrol does). Order and
 * duplicates are kept. Compression is in hostlist-compress.c, the
 * tasks-per-node grammar in tasks-per-node.c.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "values/values-private.h"
#include "values/hostlist-private.h"

/* Longest stretch of the input quoted in an error message. */
#define HL_QUOTE_MAX 160

/* One piece of an item: literal text, or a bracket group (a slice of the
 * item's ranges). */
typedef struct hl_seg {
	const char *text; /* NULL for a group */
	size_t len;
	size_t first; /* group: index of its first range */
	size_t n;     /* group: number of ranges */
} hl_seg;

static void hl_quote(const char *expr, char *out, size_t outsz)
{
	size_t len = strlen(expr);
	size_t keep = len > HL_QUOTE_MAX ? HL_QUOTE_MAX - 3 : len;
	size_t o = 0;

	for (size_t i = 0; i < keep && o + 1 < outsz; i++) {
		unsigned char c = (unsigned char)expr[i];
		out[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (keep < len)
		for (int i = 0; i < 3 && o + 1 < outsz; i++)
			out[o++] = '.';
	out[o] = '\0';
}

/* Record 'invalid WHAT "EXPR": WHY at position N' (N is 1-based). */
cr_status hl_fail(hl_parser *p, size_t pos, const char *fmt, ...)
{
	char quoted[HL_QUOTE_MAX + 1];
	char why[CR_ERROR_MSG_MAX];
	va_list ap;

	if (p->err == NULL)
		return CR_ERR_PARSE;
	va_start(ap, fmt);
	g_vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	hl_quote(p->expr, quoted, sizeof(quoted));
	p->err->struct_size = sizeof(*p->err);
	p->err->code = CR_ERR_PARSE;
	if (pos == 0)
		g_snprintf(p->err->message, sizeof(p->err->message), "invalid %s \"%s\": %s",
			   p->what, quoted, why);
	else
		g_snprintf(p->err->message, sizeof(p->err->message),
			   "invalid %s \"%s\": %s at position %zu", p->what, quoted, why, pos);
	return CR_ERR_PARSE;
}

/* "'x'" for a printable byte, "byte 0xNN" otherwise, "end of input" at NUL. */
const char *hl_describe(char c, char *buf, size_t bufsz)
{
	unsigned char u = (unsigned char)c;

	if (c == '\0')
		return "end of input";
	if (u >= 0x20 && u < 0x7f)
		g_snprintf(buf, bufsz, "'%c'", c);
	else
		g_snprintf(buf, bufsz, "byte 0x%02x", u);
	return buf;
}

bool hl_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool hl_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void hl_skip_blanks(hl_parser *p)
{
	while (hl_is_blank(p->expr[p->pos]))
		p->pos++;
}

/* Read 1..CR_HOSTLIST_MAX_DIGITS ASCII digits at p->pos. @open is the
 * position of the enclosing '[' (for "unterminated"). */
static cr_status hl_number(hl_parser *p, size_t open, uint64_t *value, int *width)
{
	const char *s = p->expr + p->pos;
	char buf[16];
	size_t n = 0;
	uint64_t v = 0;

	if (!hl_is_digit(s[0])) {
		if (s[0] == '\0')
			return hl_fail(p, open + 1, "unterminated '['");
		if (s[0] == '[')
			return hl_fail(p, p->pos + 1, "nested '['");
		if (s[0] == ',' || s[0] == ']')
			return hl_fail(p, p->pos + 1, "empty range");
		return hl_fail(p, p->pos + 1, "expected a digit, found %s",
			       hl_describe(s[0], buf, sizeof(buf)));
	}
	while (hl_is_digit(s[n])) {
		if (n == CR_HOSTLIST_MAX_DIGITS)
			return hl_fail(p, p->pos + 1, "number longer than %d digits",
				       CR_HOSTLIST_MAX_DIGITS);
		v = v * 10 + (uint64_t)(s[n] - '0');
		n++;
	}
	p->pos += n;
	*value = v;
	*width = (int)n;
	return CR_OK;
}

/* Parse "[r,r-r,...]" at p->pos (on the '['), appending to @ranges. */
static cr_status hl_group(hl_parser *p, GArray *ranges, size_t *n_out)
{
	size_t open = p->pos;
	size_t n = 0;
	char buf[16];
	cr_status st;

	p->pos++;
	for (;;) {
		hl_range r;
		size_t start = p->pos;
		int hi_width;
		char c;

		st = hl_number(p, open, &r.lo, &r.width);
		if (st != CR_OK)
			return st;
		r.hi = r.lo;
		if (p->expr[p->pos] == '-') {
			p->pos++;
			st = hl_number(p, open, &r.hi, &hi_width);
			if (st != CR_OK)
				return st;
			if (r.hi < r.lo)
				return hl_fail(p, start + 1, "reversed range %.*s",
					       (int)(p->pos - start), p->expr + start);
		}
		g_array_append_val(ranges, r);
		n++;
		c = p->expr[p->pos];
		if (c == ']') {
			p->pos++;
			*n_out = n;
			return CR_OK;
		}
		if (c == ',') {
			p->pos++;
			continue;
		}
		if (c == '\0')
			return hl_fail(p, open + 1, "unterminated '['");
		if (c == '[')
			return hl_fail(p, p->pos + 1, "nested '['");
		return hl_fail(p, p->pos + 1, "expected ',' or ']', found %s",
			       hl_describe(c, buf, sizeof(buf)));
	}
}

/* Split one item into literal and group segments. */
static cr_status hl_item(hl_parser *p, GArray *segs, GArray *ranges)
{
	for (;;) {
		char c = p->expr[p->pos];
		hl_seg seg = { NULL, 0, 0, 0 };
		cr_status st;

		if (c == '\0' || c == ',' || hl_is_blank(c))
			return CR_OK;
		if (c == ']')
			return hl_fail(p, p->pos + 1, "unexpected ']'");
		if (c == '[') {
			seg.first = ranges->len;
			st = hl_group(p, ranges, &seg.n);
			if (st != CR_OK)
				return st;
		} else {
			seg.text = p->expr + p->pos;
			while ((c = p->expr[p->pos]) != '\0' && c != ',' && c != '[' && c != ']' &&
			       !hl_is_blank(c))
				p->pos++;
			seg.len = (size_t)(p->expr + p->pos - seg.text);
		}
		g_array_append_val(segs, seg);
	}
}

/* Write @v zero-padded to @width at @out; returns the bytes written. */
static size_t hl_format_number(char *out, uint64_t v, int width)
{
	char digits[24];
	size_t n = 0, o = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	for (size_t i = n; i < (size_t)width; i++)
		out[o++] = '0';
	while (n > 0)
		out[o++] = digits[--n];
	return o;
}

/* Append @v zero-padded to @width. */
void hl_append_number(GString *s, uint64_t v, int width)
{
	char buf[48];

	g_string_append_len(s, buf, (gssize)hl_format_number(buf, v, width));
}

/* Number of names an item expands to, or 0 when above @max. */
static size_t hl_item_count(const GArray *segs, const GArray *ranges, size_t max)
{
	uint64_t total = 1;

	for (guint i = 0; i < segs->len; i++) {
		const hl_seg *seg = &g_array_index(segs, hl_seg, i);
		uint64_t group = 0;

		if (seg->text != NULL)
			continue;
		for (size_t r = seg->first; r < seg->first + seg->n; r++) {
			const hl_range *rg = &g_array_index(ranges, hl_range, r);

			group += rg->hi - rg->lo + 1;
			if (group > max)
				return 0;
		}
		if (total > max / group)
			return 0;
		total *= group;
	}
	return total > max ? 0 : (size_t)total;
}

/* Odometer position of one group: which range, which value. */
typedef struct hl_cursor {
	size_t range;
	uint64_t value;
} hl_cursor;

/* Advance the odometer; the rightmost group moves fastest. Returns the
 * leftmost segment that changed (segs->len when it wrapped around). */
static guint hl_advance(const GArray *segs, const GArray *ranges, hl_cursor *cur)
{
	for (guint i = segs->len; i-- > 0;) {
		const hl_seg *seg = &g_array_index(segs, hl_seg, i);
		const hl_range *rg;

		if (seg->text != NULL)
			continue;
		rg = &g_array_index(ranges, hl_range, cur[i].range);
		if (cur[i].value < rg->hi) {
			cur[i].value++;
			return i;
		}
		if (cur[i].range + 1 < seg->first + seg->n) {
			cur[i].range++;
			cur[i].value = g_array_index(ranges, hl_range, cur[i].range).lo;
			return i;
		}
		cur[i].range = seg->first;
		cur[i].value = g_array_index(ranges, hl_range, seg->first).lo;
	}
	return segs->len;
}

/* Longest name an item can give: its text plus each group's widest number. */
static size_t hl_item_max_len(const GArray *segs, const GArray *ranges)
{
	size_t len = 0;

	for (guint i = 0; i < segs->len; i++) {
		const hl_seg *seg = &g_array_index(segs, hl_seg, i);
		size_t widest = 0;

		if (seg->text != NULL) {
			len += seg->len;
			continue;
		}
		for (size_t r = seg->first; r < seg->first + seg->n; r++) {
			const hl_range *rg = &g_array_index(ranges, hl_range, r);
			size_t w = (size_t)rg->width > 20 ? (size_t)rg->width : 20;

			widest = w > widest ? w : widest;
		}
		len += widest;
	}
	return len;
}

/* When group @i only went one up in its range, add one to the digits it
 * wrote last time, in place, and return true; false when they must be
 * written whole (a new range, or a carry out of them: 99 to 100). */
static bool hl_bump(const GArray *segs, const GArray *ranges, const hl_cursor *cur, guint i,
		    char *name, const size_t *start)
{
	char *first, *d;

	if (g_array_index(segs, hl_seg, i).text != NULL ||
	    cur[i].value == g_array_index(ranges, hl_range, cur[i].range).lo)
		return false; /* (the first name too: nothing written yet) */
	first = name + start[i];
	d = name + start[i + 1];
	while (d > first) {
		if (*--d != '9') {
			(*d)++;
			return true;
		}
		*d = '0';
	}
	return false;
}

/* Call @fn for each of the @count names of one item; false when it stopped.
 * Each name is rebuilt only from the leftmost segment that changed (in
 * node[00001-16384] only the number is written again). */
static bool hl_emit(const GArray *segs, const GArray *ranges, size_t count, cr_hostlist_fn fn,
		    void *user_data)
{
	hl_cursor *cur = g_new0(hl_cursor, segs->len);
	size_t *start = g_new(size_t, segs->len + 1); /* where each segment begins */
	char *name = g_malloc(hl_item_max_len(segs, ranges) + 1);
	guint from = 0; /* first segment to write */
	bool go_on = true;

	for (guint i = 0; i < segs->len; i++) {
		const hl_seg *seg = &g_array_index(segs, hl_seg, i);

		if (seg->text == NULL) {
			cur[i].range = seg->first;
			cur[i].value = g_array_index(ranges, hl_range, seg->first).lo;
		}
	}
	start[0] = 0;
	for (size_t k = 0; k < count && go_on; k++) {
		if (from < segs->len && hl_bump(segs, ranges, cur, from, name, start))
			from++;
		for (guint i = from; i < segs->len; i++) {
			const hl_seg *seg = &g_array_index(segs, hl_seg, i);
			size_t len = start[i];

			if (seg->text != NULL) {
				memcpy(name + len, seg->text, seg->len);
				len += seg->len;
			} else {
				len += hl_format_number(
					name + len, cur[i].value,
					g_array_index(ranges, hl_range, cur[i].range).width);
			}
			start[i + 1] = len;
		}
		name[start[segs->len]] = '\0';
		go_on = fn(name, start[segs->len], user_data) == 0;
		from = hl_advance(segs, ranges, cur);
	}
	g_free(name);
	g_free(start);
	g_free(cur);
	return go_on;
}

/* Walk the expression item by item: check each and, with @fn, give its names
 * to @fn (stopping when it asks to). *@total counts the names. */
static cr_status hl_walk(hl_parser *p, size_t max, cr_hostlist_fn fn, void *user_data,
			 size_t *total)
{
	GArray *segs = g_array_new(FALSE, FALSE, sizeof(hl_seg));
	GArray *ranges = g_array_new(FALSE, FALSE, sizeof(hl_range));
	cr_status st = CR_OK;

	*total = 0;
	hl_skip_blanks(p);
	while (p->expr[p->pos] != '\0') {
		size_t start = p->pos;
		size_t count;

		if (p->expr[p->pos] == ',') {
			st = hl_fail(p, p->pos + 1, "empty host name");
			goto out;
		}
		g_array_set_size(segs, 0);
		g_array_set_size(ranges, 0);
		st = hl_item(p, segs, ranges);
		if (st != CR_OK)
			goto out;
		count = hl_item_count(segs, ranges, max - *total);
		if (count == 0) {
			st = hl_fail(p, start + 1, "expands to more than %zu hosts", max);
			goto out;
		}
		*total += count;
		if (fn != NULL && !hl_emit(segs, ranges, count, fn, user_data))
			goto out;
		hl_skip_blanks(p);
		if (p->expr[p->pos] == ',') {
			p->pos++;
			hl_skip_blanks(p);
		}
	}
out:
	g_array_free(segs, TRUE);
	g_array_free(ranges, TRUE);
	return st;
}

/* The vector sink of hostlist_expand_limit(). */
static int hl_collect(const char *name, size_t len, void *user_data)
{
	g_ptr_array_add(user_data, g_memdup2(name, len + 1));
	return 0;
}

cr_status hostlist_expand_limit(const char *expr, size_t max_hosts, char ***hosts, size_t *count,
				cr_error *err)
{
	hl_parser p = { "hostlist", expr, 0, err };
	GPtrArray *out;
	size_t total;
	cr_status st;

	if (hosts == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "hostlist: no output vector");
	*hosts = NULL;
	if (count != NULL)
		*count = 0;
	if (expr == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "hostlist: NULL expression");
	/* Count first (parsing is cheap), so the vector is allocated once. */
	st = hl_walk(&p, max_hosts, NULL, NULL, &total);
	if (st != CR_OK)
		return st;
	p.pos = 0;
	out = g_ptr_array_new_full((guint)total + 1, g_free);
	hl_walk(&p, max_hosts, hl_collect, out, &total);
	if (count != NULL)
		*count = out->len;
	g_ptr_array_set_free_func(out, NULL);
	g_ptr_array_add(out, NULL);
	*hosts = (char **)g_ptr_array_free(out, FALSE);
	return CR_OK;
}

cr_status cr_hostlist_expand(const char *expr, char ***hosts, size_t *count, cr_error *err)
{
	return hostlist_expand_limit(expr, CR_HOSTLIST_MAX_HOSTS, hosts, count, err);
}

cr_status hostlist_foreach_limit(const char *expr, size_t max_hosts, cr_hostlist_fn fn,
				 void *user_data, cr_error *err)
{
	hl_parser p = { "hostlist", expr, 0, err };
	size_t total;
	cr_status st;

	if (fn == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "hostlist: no callback");
	if (expr == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "hostlist: NULL expression");
	/* Check all of it first: a bad item at the end must not come after
	 * names already handed out. */
	st = hl_walk(&p, max_hosts, NULL, NULL, &total);
	if (st != CR_OK)
		return st;
	p.pos = 0;
	return hl_walk(&p, max_hosts, fn, user_data, &total);
}

cr_status cr_hostlist_foreach(const char *expr, cr_hostlist_fn fn, void *user_data, cr_error *err)
{
	return hostlist_foreach_limit(expr, CR_HOSTLIST_MAX_HOSTS, fn, user_data, err);
}
