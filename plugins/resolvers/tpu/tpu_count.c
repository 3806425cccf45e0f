/* SPDX-License-Identifier: MIT */
/*
 * tpu_count.c - TPUs per task, counted as TensorFlow counts devices
 * (docs/accelerators.md, "Counting rules"; the table in docs/tpu.md):
 *
 *   acceleratorType "vG-N": for v2, v3, v4 and v5p N counts TensorCores;
 *       a v2/v3 device is a TensorCore (N devices), a v4/v5p device is a
 *       chip of 2 TensorCores (N/2); for v5litepod, v5e and v6e N counts
 *       chips, one device each.
 *   acceleratorConfig {type, topology "AxBxC"}: chips = A*B*C; V2/V3 have
 *       2 devices per chip, the others 1.
 *
 * The slice's devices are spread evenly over its hosts (the workers).
 * With `devices_file` (a TensorFlow device list, JSON [{name,
 * device_type}]) TensorFlow's own rule applies instead: devices named
 * `…task:N/…device:TPU:M` grouped by task, every task the same count
 * (else an error), none at all giving 0.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tpu.h"

struct tpu_gen {
	const char *prefix;
	int per_core; /* N counts TensorCores (1) or chips (0) */
	int per_chip; /* devices per chip */
};

/* clang-format off */
static const struct tpu_gen tpu_gens[] = {
	{ "v2-", 1, 2 }, { "v3-", 1, 2 }, { "v4-", 1, 1 }, { "v5p-", 1, 1 },
	{ "v5litepod-", 0, 1 }, { "v5e-", 0, 1 }, { "v6e-", 0, 1 },
};
/* clang-format on */

static int64_t tpu_number(const char *s)
{
	char *end = NULL;
	long long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoll(s, &end, 10);
	return *end == '\0' && v > 0 && v < (1LL << 31) ? (int64_t)v : -1;
}

/* Devices of a whole slice of type "v4-32", -1 when unknown. */
int64_t tpu_devices_of_type(const char *accel_type)
{
	for (size_t i = 0; accel_type != NULL && i < G_N_ELEMENTS(tpu_gens); i++) {
		const struct tpu_gen *g = &tpu_gens[i];
		int64_t n;

		if (!g_str_has_prefix(accel_type, g->prefix))
			continue;
		n = tpu_number(accel_type + strlen(g->prefix));
		if (n < 0)
			return -1;
		if (!g->per_core)
			return n * g->per_chip;
		/* TensorCores: 2 a chip. */
		return n % 2 == 0 ? n / 2 * g->per_chip : -1;
	}
	return -1;
}

/* Devices of a slice given as acceleratorConfig, -1 when unknown. */
int64_t tpu_devices_of_config(const char *type, const char *topology)
{
	static const char *const two[] = { "V2", "V3", NULL };
	static const char *const one[] = { "V4", "V5P", "V5LITE_POD", "V6E", NULL };
	char **dims = g_strsplit(topology, "x", -1);
	int64_t chips = 1;
	int per_chip = g_strv_contains(two, type) ? 2 : g_strv_contains(one, type) ? 1 : 0;

	for (size_t i = 0; dims[i] != NULL && chips > 0; i++) {
		int64_t d = tpu_number(dims[i]);

		/* past tpu_number's own bound (2^31) the slice is unknown, and
		 * the product never overflows */
		chips = d > 0 && chips <= (INT64_C(1) << 31) / d ? chips * d : -1;
	}
	if (dims[0] == NULL)
		chips = -1;
	g_strfreev(dims);
	return chips > 0 && per_chip > 0 ? chips * per_chip : -1;
}

/* The tpu_device_map fact: task -> its TPU core ids, as TensorFlow keeps
 * it. */
static void tpu_fact_device_map(struct tpu_run *r, GHashTable *map, GPtrArray *order)
{
	json_object *o = json_object_new_object();
	const char *text;
	cr_json *doc = NULL;

	for (guint i = 0; i < order->len; i++) {
		GPtrArray *cores = g_hash_table_lookup(map, g_ptr_array_index(order, i));
		json_object *a = json_object_new_array();

		for (guint k = 0; k < cores->len; k++)
			json_object_array_add(a,
					      json_object_new_string(g_ptr_array_index(cores, k)));
		json_object_object_add(o, g_ptr_array_index(order, i), a);
	}
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (cr_host->json_parse(text, strlen(text), "tpu_device_map", &doc, NULL) == CR_OK)
		cr_host->result_set_fact(r->b, "tpu_device_map", doc, NULL);
	cr_host->json_free(doc);
	json_object_put(o);
}

/* Group the list's TPU cores by task; *@per_host as TensorFlow answers. */
static cr_status tpu_group(struct tpu_run *r, const cr_json *list, int64_t *per_host, cr_error *err)
{
	GRegex *re = g_regex_new(".*task:(\\d+)/.*device:TPU:(\\d+)$", 0, 0, NULL);
	GHashTable *map = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						(GDestroyNotify)g_ptr_array_unref);
	GPtrArray *order = g_ptr_array_new();
	cr_status st = CR_OK;

	for (size_t i = 0; i < cr_host->json_length(list); i++) {
		const char *name = cr_host->json_string(
			cr_host->json_get(cr_host->json_index(list, i), "/name"));
		GMatchInfo *m = NULL;

		if (name != NULL && g_regex_match(re, name, 0, &m)) {
			char *task = g_match_info_fetch(m, 1);
			GPtrArray *cores = g_hash_table_lookup(map, task);

			if (cores == NULL) {
				cores = g_ptr_array_new_with_free_func(g_free);
				g_hash_table_insert(map, task, cores);
				g_ptr_array_add(order, task);
			} else {
				g_free(task);
			}
			g_ptr_array_add(cores, g_match_info_fetch(m, 2));
		}
		g_match_info_free(m);
	}
	tpu_fact_device_map(r, map, order);
	*per_host = 0;
	for (guint i = 0; i < order->len && st == CR_OK; i++) {
		GPtrArray *cores = g_hash_table_lookup(map, g_ptr_array_index(order, i));

		if (i == 0)
			*per_host = cores->len;
		else if ((int64_t)cores->len != *per_host)
			st = cr_host->error_set(err, CR_ERR_BACKEND,
						"%s: TPU cores on each host are not the same: task "
						"%s has %u, task %s has %" G_GINT64_FORMAT,
						r->t->devices_file,
						(char *)g_ptr_array_index(order, i), cores->len,
						(char *)g_ptr_array_index(order, 0), *per_host);
	}
	g_ptr_array_unref(order);
	g_hash_table_unref(map);
	g_regex_unref(re);
	return st;
}

cr_status tpu_devices_file(struct tpu_run *r, int64_t *per_host, cr_error *err)
{
	const char *path = r->t->devices_file;
	char *text = NULL;
	size_t len = 0;
	cr_json *doc = NULL;
	cr_status st = cr_host->read_file(r->ctx, path, 0, &text, &len, err);

	if (st == CR_OK)
		st = cr_host->json_parse(text, len, path, &doc, err);
	if (st == CR_OK && cr_host->json_type(doc) != CR_JSON_ARRAY)
		st = cr_host->error_set(err, CR_ERR_PARSE,
					"%s: expected a JSON array of {name, device_type}", path);
	if (st == CR_OK)
		st = tpu_group(r, doc, per_host, err);
	cr_host->json_free(doc);
	cr_host->free(text);
	return st;
}
