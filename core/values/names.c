/* SPDX-License-Identifier: MIT */
/*
 * names.c - small value rules that several layers read: the name of a
 * plugin kind, what a shell variable name may be, and the tables of
 * accelerator counts (kind -> count). Here, below them all, so that the
 * config, the loader, the result builders and the formats share them
 * without calling one another.
 */
#include <glib.h>

#include "values/values-private.h"

const char *kind_name(cr_plugin_kind kind)
{
	return kind == CR_PLUGIN_ACCELERATOR ? "accelerator" : "resolver";
}

bool env_name_valid(const char *name)
{
	if (name == NULL || (!g_ascii_isalpha(name[0]) && name[0] != '_'))
		return false;
	for (const char *p = name; *p != '\0'; p++)
		if (!g_ascii_isalnum(*p) && *p != '_')
			return false;
	return true;
}

GHashTable *accel_counts_new(void)
{
	return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

void accel_counts_put(GHashTable *counts, const char *kind, int64_t n)
{
	g_hash_table_insert(counts, g_strdup(kind), g_memdup2(&n, sizeof(n)));
}

GPtrArray *accel_counts_kinds(GHashTable *counts)
{
	GPtrArray *kinds = g_ptr_array_new();
	GHashTableIter it;
	gpointer k;

	if (counts != NULL) {
		g_hash_table_iter_init(&it, counts);
		while (g_hash_table_iter_next(&it, &k, NULL))
			g_ptr_array_add(kinds, k);
	}
	g_ptr_array_sort(kinds, str_ptr_cmp);
	return kinds;
}
