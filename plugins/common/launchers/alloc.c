/* SPDX-License-Identifier: MIT */
/*
 * alloc.c - a scheduler's allocation (alloc.h): unique hosts in order with
 * their slots, looked up through a hash table so that a node file of a
 * million lines costs a million lookups, not a million squared.
 */
#include "alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "launchers.h"

static cr_status alloc_nomem(cr_error *err)
{
	return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
}

void launch_alloc_init(launch_alloc *a)
{
	memset(a, 0, sizeof(*a));
}

void launch_alloc_clear(launch_alloc *a)
{
	if (a->index != NULL)
		g_hash_table_destroy(a->index);
	for (size_t i = 0; i < a->n; i++)
		free(a->host[i]);
	free(a->host);
	free(a->slots);
	free(a->line_host);
	launch_alloc_init(a);
}

static cr_status alloc_new_host(launch_alloc *a, const char *name, size_t len, size_t *pos,
				cr_error *err)
{
	if (a->n == UINT32_MAX)
		return cr_host->error_set(err, CR_ERR_PARSE, "more than 2^32 hosts");
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		char **nh = realloc(a->host, cap * sizeof(*nh));
		uint64_t *ns;

		if (nh == NULL)
			return alloc_nomem(err);
		a->host = nh;
		if ((ns = realloc(a->slots, cap * sizeof(*ns))) == NULL)
			return alloc_nomem(err);
		a->slots = ns;
		a->cap = cap;
	}
	if ((a->host[a->n] = strndup(name, len)) == NULL)
		return alloc_nomem(err);
	a->slots[a->n] = 0;
	g_hash_table_insert(a->index, a->host[a->n], GSIZE_TO_POINTER(a->n + 1));
	*pos = a->n++;
	return CR_OK;
}

cr_status launch_alloc_add(launch_alloc *a, const char *name, size_t len, uint64_t slots,
			   cr_error *err)
{
	char key[LAUNCH_HOST_MAX + 1];
	size_t pos = 0;
	gpointer found;

	if (len == 0 || len > LAUNCH_HOST_MAX)
		return cr_host->error_set(err, CR_ERR_PARSE, "a host name of %zu bytes", len);
	if (a->index == NULL)
		a->index = g_hash_table_new(g_str_hash, g_str_equal);
	memcpy(key, name, len);
	key[len] = '\0';
	found = g_hash_table_lookup(a->index, key);
	if (found != NULL) {
		pos = GPOINTER_TO_SIZE(found) - 1;
	} else {
		cr_status st = alloc_new_host(a, name, len, &pos, err);

		if (st != CR_OK)
			return st;
	}
	if (slots > UINT32_MAX || a->nslots + slots > UINT32_MAX)
		return cr_host->error_set(err, CR_ERR_PARSE, "more than 2^32 slots");
	a->slots[pos] += slots;
	a->nslots += slots;
	if (a->lines == a->line_cap) {
		size_t cap = a->line_cap ? a->line_cap * 2 : 64;
		uint32_t *nl = realloc(a->line_host, cap * sizeof(*nl));

		if (nl == NULL)
			return alloc_nomem(err);
		a->line_host = nl;
		a->line_cap = cap;
	}
	a->line_host[a->lines++] = (uint32_t)pos;
	return CR_OK;
}

static size_t short_len(const char *name)
{
	const char *dot = strchr(name, '.');

	return dot ? (size_t)(dot - name) : strlen(name);
}

long launch_alloc_find(const launch_alloc *a, const char *name)
{
	size_t len = short_len(name);
	long hit = -1;
	gpointer found;

	if (a->index != NULL && (found = g_hash_table_lookup(a->index, name)) != NULL)
		return (long)GPOINTER_TO_SIZE(found) - 1;
	for (size_t i = 0; i < a->n; i++) {
		if (short_len(a->host[i]) != len || memcmp(a->host[i], name, len) != 0)
			continue;
		if (hit >= 0)
			return -1; /* two hosts of that short name */
		hit = (long)i;
	}
	return hit;
}

/* @err's message, prefixed with where it was read. */
static cr_status alloc_where(cr_error *err, cr_status st, const char *who, const char *where,
			     size_t n)
{
	char why[CR_ERROR_MSG_MAX];

	snprintf(why, sizeof(why), "%s", err->message);
	return cr_host->error_set(err, st, "%s: %s:%zu: %s", who, where, n, why);
}

/* One line's entry: @p (@n bytes, trimmed, not blank) in @format. */
static cr_status alloc_line(launch_alloc *a, const char *who, const char *path, size_t lineno,
			    const char *p, size_t n, launch_format format, cr_error *err)
{
	size_t name = 0;
	uint64_t slots = 1;
	cr_status st;

	while (name < n && p[name] != ' ' && p[name] != '\t')
		name++;
	if (format == LAUNCH_HOST_A_LINE && name != n)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: %s:%zu: not a host name (one host a line)", who,
					  path, lineno);
	if (format == LAUNCH_HOST_SLOTS) {
		char num[24];
		size_t s = name, e;

		while (s < n && (p[s] == ' ' || p[s] == '\t'))
			s++;
		for (e = s; e < n && p[e] != ' ' && p[e] != '\t'; e++)
			;
		if (e - s == 0 || e - s >= sizeof(num) ||
		    (memcpy(num, p + s, e - s), num[e - s] = '\0',
		     !launch_decimal(num, UINT32_MAX, &slots)) ||
		    slots == 0)
			return cr_host->error_set(
				err, CR_ERR_PARSE,
				"%s: %s:%zu: want \"host slots ...\", with slots a number above 0",
				who, path, lineno);
	}
	if (name > LAUNCH_HOST_MAX)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: %s:%zu: a host name over %u bytes", who, path,
					  lineno, LAUNCH_HOST_MAX);
	st = launch_alloc_add(a, p, name, slots, err);
	if (st != CR_OK && st != CR_ERR_NOMEM)
		return alloc_where(err, st, who, path, lineno);
	return st;
}

cr_status launch_alloc_read_file(cr_plugin_ctx *ctx, const char *who, const char *path,
				 launch_format format, size_t skip, launch_alloc *a, cr_error *err)
{
	char *text = NULL;
	size_t len = 0, lineno = 0;
	cr_status st = cr_host->read_file(ctx, path, LAUNCH_FILE_MAX, &text, &len, err);

	if (st != CR_OK && st != CR_ERR_NOMEM) {
		char why[CR_ERROR_MSG_MAX];

		snprintf(why, sizeof(why), "%s", err->message);
		return cr_host->error_set(err, st, "%s: %s", who, why);
	}
	if (st != CR_OK)
		return st;
	for (char *p = text, *end; st == CR_OK && p < text + len; p = end + 1) {
		size_t n;

		end = memchr(p, '\n', (size_t)(text + len - p));
		if (end == NULL)
			end = text + len;
		lineno++;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		n = (size_t)(end - p);
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
			n--;
		if (n == 0 || *p == '#')
			continue;
		if (skip > 0) {
			skip--;
			continue;
		}
		st = alloc_line(a, who, path, lineno, p, n, format, err);
	}
	cr_host->free(text);
	if (st == CR_OK && a->n == 0)
		st = cr_host->error_set(err, CR_ERR_PARSE, "%s: %s lists no host", who, path);
	return st;
}

cr_status launch_alloc_read_words(const char *who, const char *var, const char *text, bool pairs,
				  launch_alloc *a, cr_error *err)
{
	const char *p = text;
	size_t word = 0;

	for (;;) {
		const char *host, *num = NULL;
		size_t hlen, nlen = 0;
		uint64_t slots = 1;
		char buf[24];
		cr_status st;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		host = p;
		hlen = strcspn(p, " \t\n");
		p += hlen;
		word++;
		if (pairs) {
			while (*p == ' ' || *p == '\t' || *p == '\n')
				p++;
			num = p;
			nlen = strcspn(p, " \t\n");
			p += nlen;
			if (nlen == 0 || nlen >= sizeof(buf) ||
			    (memcpy(buf, num, nlen), buf[nlen] = '\0',
			     !launch_decimal(buf, UINT32_MAX, &slots)) ||
			    slots == 0)
				return cr_host->error_set(err, CR_ERR_PARSE,
							  "%s: %s: host \"%.*s\" (pair %zu) has no "
							  "slot count above 0",
							  who, var, (int)(hlen > 64 ? 64 : hlen),
							  host, word);
		}
		if (hlen > LAUNCH_HOST_MAX)
			return cr_host->error_set(err, CR_ERR_PARSE,
						  "%s: %s: word %zu: a host name over %u bytes",
						  who, var, word, LAUNCH_HOST_MAX);
		st = launch_alloc_add(a, host, hlen, slots, err);
		if (st != CR_OK && st != CR_ERR_NOMEM)
			return alloc_where(err, st, who, var, word);
		if (st != CR_OK)
			return st;
	}
	if (a->n == 0)
		return cr_host->error_set(err, CR_ERR_PARSE, "%s: %s lists no host", who, var);
	return CR_OK;
}

int64_t launch_alloc_first_task(const launch_alloc *a, size_t host, int64_t tasks_per_host,
				bool per_slot)
{
	int64_t before = 0;

	if (!per_slot)
		return (int64_t)host * tasks_per_host;
	for (size_t i = 0; i < host; i++)
		before += (int64_t)a->slots[i];
	return before;
}

int64_t launch_alloc_line_task(const launch_alloc *a, size_t line)
{
	uint32_t host = a->line_host[line];
	int64_t nth = 0;

	for (size_t l = 0; l < line; l++)
		nth += a->line_host[l] == host;
	return launch_alloc_first_task(a, host, 1, true) + nth;
}

cr_status launch_alloc_emit(cr_result_builder *b, const char *who, const launch_alloc *a,
			    const char *job, int64_t tasks_per_host, bool per_slot,
			    int64_t port_base, int64_t task, cr_error *err)
{
	char addr[LAUNCH_HOST_MAX + 8];
	cr_status st = cr_host->result_add_job(b, job, err);

	for (size_t i = 0; st == CR_OK && i < a->n; i++) {
		int64_t k = per_slot ? (int64_t)a->slots[i] : tasks_per_host;

		if (port_base + k - 1 > 65535)
			return cr_host->error_set(
				err, CR_ERR_CONFIG,
				"%s: port_base %lld + %lld tasks on %s passes port 65535", who,
				(long long)port_base, (long long)k, a->host[i]);
		for (int64_t t = 0; st == CR_OK && t < k; t++) {
			snprintf(addr, sizeof(addr), "%s:%lld", a->host[i],
				 (long long)(port_base + t));
			st = cr_host->result_append_task(b, job, addr, err);
		}
	}
	if (st == CR_OK && task >= 0)
		st = cr_host->result_set_task(b, job, task, err);
	return st;
}
