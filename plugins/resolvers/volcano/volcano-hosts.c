/* SPDX-License-Identifier: MIT */
/*
 * volcano-hosts.c - the tasks of a Volcano Job and the hosts of each, as
 * its svc plugin gives them to a pod (volcano.h): the task names from the
 * `<task>.host` files of the mounted ConfigMap, a task's hosts from its
 * VC_<TASK>_HOSTS variable or, with the variables' injection off, its file.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "launchers.h"
#include "volcano.h"

#define VC_FILE_MAX (64u << 20)

bool vc_task_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 63)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '-' && name[i] != '_')
			return false;
	return true;
}

cr_status vc_task_names(cr_plugin_ctx *ctx, const char *dir, char ***names, cr_error *err)
{
	GPtrArray *out = g_ptr_array_new();
	char **entries = NULL;
	cr_status st = cr_host->list_dir(ctx, dir, &entries, err);

	*names = NULL;
	if (st == CR_ERR_NOT_FOUND)
		st = cr_host->error_set(err, CR_DECLINED, "%s does not exist", dir);
	for (size_t i = 0; st == CR_OK && entries[i] != NULL; i++) {
		const char *e = entries[i];
		size_t len = strlen(e);

		/* The ConfigMap's own entries (..data, VC_*) are not tasks. */
		if (e[0] == '.' || len <= 5 || strcmp(e + len - 5, ".host") != 0)
			continue;
		g_ptr_array_add(out, g_strndup(e, len - 5));
		g_strdelimit(out->pdata[out->len - 1], "_", '-');
		if (!vc_task_name_ok(out->pdata[out->len - 1]))
			st = cr_host->error_set(err, CR_ERR_PARSE,
						"%s/%.80s: not a Volcano task's host file", dir, e);
	}
	if (st == CR_OK && out->len == 0)
		st = cr_host->error_set(err, CR_DECLINED, "%s has no <task>.host file", dir);
	cr_host->strv_free(entries);
	g_ptr_array_add(out, NULL);
	if (st == CR_OK)
		*names = (char **)g_ptr_array_free(out, FALSE);
	else
		g_strfreev((char **)g_ptr_array_free(out, FALSE));
	return st;
}

/* A host name as Volcano writes it: `hostname.subdomain`, letters,
 * digits, `-`, `.`, `_`, at most 255. */
static bool vc_host_ok(const char *s, size_t len)
{
	if (len == 0 || len > 255)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("-._", s[i]) == NULL)
			return false;
	return true;
}

/* Split @text at @sep into @t's hosts: blanks around an entry trimmed,
 * empty entries (a trailing newline) skipped. @line: name entries by line
 * ("FILE:N") rather than by position ("VAR: entry N"). */
static cr_status vc_split(const char *text, char sep, bool line, vc_task *t, cr_error *err)
{
	GPtrArray *hosts = g_ptr_array_new_with_free_func(g_free);
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
	cr_status st = CR_OK;
	size_t k = 0;

	for (const char *p = text; st == CR_OK && p != NULL; k++) {
		const char *end = strchr(p, sep);
		const char *e = end != NULL ? end : p + strlen(p);
		const char *next = end != NULL ? end + 1 : NULL;

		while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (e > p && !vc_host_ok(p, (size_t)(e - p)))
			st = cr_host->error_set(err, CR_ERR_PARSE,
						"%s%s%zu: \"%.*s\" is not a host name", t->from,
						line ? ":" : ": entry ", k + 1,
						(int)((e - p) > 64 ? 64 : (e - p)), p);
		else if (e > p && hosts->len >= VC_HOSTS_MAX)
			st = cr_host->error_set(err, CR_ERR_PARSE, "%s lists more than %u hosts",
						t->from, VC_HOSTS_MAX);
		else if (e > p)
			g_ptr_array_add(hosts, g_strndup(p, (size_t)(e - p)));
		/* Two pods never share a host name: a repeated one is no pod's. */
		if (st == CR_OK && e > p && !g_hash_table_add(seen, hosts->pdata[hosts->len - 1]))
			st = cr_host->error_set(err, CR_ERR_PARSE, "%s%s%zu: \"%.64s\" again",
						t->from, line ? ":" : ": entry ", k + 1,
						(const char *)hosts->pdata[hosts->len - 1]);
		p = next;
	}
	g_hash_table_destroy(seen);
	t->n = hosts->len;
	g_ptr_array_set_free_func(hosts, NULL);
	g_ptr_array_add(hosts, NULL);
	t->host = (char **)g_ptr_array_free(hosts, FALSE);
	return st;
}

/* VC_<TASK>_NUM, when set, must be the number of hosts listed. */
static cr_status vc_check_num(cr_plugin_ctx *ctx, const char *var, const vc_task *t, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, var);
	uint64_t n = 0;

	if (v == NULL)
		return CR_OK;
	if (!launch_decimal(v, INT32_MAX, &n))
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s=\"%.64s\" is not a non-negative integer", var, v);
	if (n != t->n)
		return cr_host->error_set(err, CR_ERR_PARSE, "%s=%llu, but %s lists %zu hosts", var,
					  (unsigned long long)n, t->from, t->n);
	return CR_OK;
}

cr_status vc_task_hosts(cr_plugin_ctx *ctx, const char *dir, vc_task *t, cr_error *err)
{
	char *key = g_ascii_strup(t->name, -1);
	char *var = g_strdup_printf("VC_%s_HOSTS", g_strdelimit(key, "-", '_'));
	char *num = g_strdup_printf("VC_%s_NUM", key);
	char *file = g_strdup_printf("%s/%s.host", dir, t->name);
	const char *text = cr_host->getenv(ctx, var);
	char *data = NULL, msg[CR_ERROR_MSG_MAX];
	size_t len = 0;
	cr_status st;

	if (text != NULL) {
		snprintf(t->from, sizeof(t->from), "%s", var);
		st = vc_split(text, ',', false, t, err);
		if (st == CR_OK)
			st = vc_check_num(ctx, num, t, err);
		goto out;
	}
	g_strdelimit(file + strlen(dir) + 1, "-", '_');
	snprintf(t->from, sizeof(t->from), "%s", file);
	st = cr_host->read_file(ctx, file, VC_FILE_MAX, &data, &len, err);
	if (st != CR_OK && err != NULL) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		st = cr_host->error_set(err, st, "%s is not set, and %s", var, msg);
	}
	if (st == CR_OK && strlen(data) != len)
		st = cr_host->error_set(err, CR_ERR_PARSE, "%s: a NUL byte", file);
	if (st == CR_OK)
		st = vc_split(data, '\n', true, t, err);
	cr_host->free(data);
out:
	g_free(key);
	g_free(var);
	g_free(num);
	g_free(file);
	return st;
}

void vc_task_clear(vc_task *t)
{
	g_strfreev(t->host);
	g_free(t->name);
	memset(t, 0, sizeof(*t));
}
