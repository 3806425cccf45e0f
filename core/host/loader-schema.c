/* SPDX-License-Identifier: MIT */
/*
 * loader-schema.c - the loader's last check of a plan entry: every key of
 * its group against the plugin's declared schema (unknown key with a "did
 * you mean", wrong type, missing required key, a number out of its range),
 * each refusal naming FILE:LINE, before the plugin ever runs.
 */
#include <string.h>

#include <glib.h>

#include "host/host-private.h"

/* Keys of a resolver/accelerator group that belong to the host. */
static const char *const host_keys[] = { "plugin", "name", "policy", NULL };

bool schema_is_host_key(const char *s)
{
	for (const char *const *k = host_keys; *k != NULL; k++)
		if (strcmp(*k, s) == 0)
			return true;
	return false;
}

/* Keys of a resolver's group that the core reads (pipeline/gpus.c), unless
 * the plugin declares an option of the same name (slurm's gpus_per_task
 * splits Slurm's own binding): checked here like a plugin's options. */
static const cr_option core_resolver_keys[] = {
	CR_OPTION_RANGE("gpus_per_task", CR_OPT_INT, NULL, 0,
			"GPUs of this task from the accelerator layer (sets CUDA_VISIBLE_DEVICES)",
			0, CR_GPUS_PER_TASK_MAX),
	CR_OPTION("skip_busy_gpus", CR_OPT_BOOL, NULL, 0,
		  "with gpus_per_task: leave out GPUs on which NVML sees compute processes"),
	CR_OPTIONS_END
};

const cr_option *schema_core_key(const cr_plugin_desc *desc, const char *key)
{
	if (desc == NULL || desc->kind != CR_PLUGIN_RESOLVER || key == NULL ||
	    schema_find(desc, key) != NULL)
		return NULL;
	for (const cr_option *o = core_resolver_keys; o->name != NULL; o++)
		if (strcmp(o->name, key) == 0)
			return o;
	return NULL;
}

const cr_option *schema_option_at(const cr_plugin_desc *desc, size_t i)
{
	const char *base = (const char *)desc->options;

	if (base == NULL)
		return NULL;
	return (const cr_option *)(const void *)(base + i * desc->option_size);
}

const cr_option *schema_find(const cr_plugin_desc *desc, const char *name)
{
	for (size_t i = 0;; i++) {
		const cr_option *o = schema_option_at(desc, i);

		if (o == NULL || o->name == NULL)
			return NULL;
		if (strcmp(o->name, name) == 0)
			return o;
	}
}

/* Levenshtein distance, for "did you mean" hints on short keys. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = g_new(size_t, lb + 1);
	size_t result;

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t best = prev + (a[i - 1] == b[j - 1] ? 0 : 1);

			best = MIN(best, row[j] + 1);
			best = MIN(best, row[j - 1] + 1);
			row[j] = best;
			prev = cur;
		}
	}
	result = row[lb];
	g_free(row);
	return result;
}

static const char *suggest(const cr_plugin_desc *desc, const char *key)
{
	const char *best = NULL;
	size_t best_d = 3;

	for (size_t i = 0;; i++) {
		const cr_option *o = schema_option_at(desc, i);
		size_t d;

		if (o == NULL || o->name == NULL)
			break;
		d = edit_distance(key, o->name);
		if (d < best_d) {
			best_d = d;
			best = o->name;
		}
	}
	return best;
}

static const char *type_text(cr_option_type t)
{
	switch (t) {
	case CR_OPT_STRING:
		return "a string";
	case CR_OPT_INT:
		return "an integer";
	case CR_OPT_BOOL:
		return "a boolean";
	case CR_OPT_FLOAT:
		return "a number";
	case CR_OPT_STRING_LIST:
		return "a list of strings";
	case CR_OPT_GROUP:
		return "a group";
	case CR_OPT_ANY:
		return "a value";
	}
	return "a value";
}

static const char *setting_text(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_GROUP:
		return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a float";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array";
	case CONFIG_TYPE_LIST:
		return "a list";
	}
	return "a value";
}

static bool type_matches(const config_setting_t *s, cr_option_type t)
{
	int ty = config_setting_type(s);

	switch (t) {
	case CR_OPT_STRING:
		return ty == CONFIG_TYPE_STRING;
	case CR_OPT_INT:
		return ty == CONFIG_TYPE_INT || ty == CONFIG_TYPE_INT64;
	case CR_OPT_BOOL:
		return ty == CONFIG_TYPE_BOOL;
	case CR_OPT_FLOAT:
		return ty == CONFIG_TYPE_FLOAT || ty == CONFIG_TYPE_INT || ty == CONFIG_TYPE_INT64;
	case CR_OPT_STRING_LIST:
		if (ty != CONFIG_TYPE_ARRAY && ty != CONFIG_TYPE_LIST)
			return false;
		for (int i = 0; i < config_setting_length(s); i++)
			if (config_setting_type(config_setting_get_elem(s, (unsigned)i)) !=
			    CONFIG_TYPE_STRING)
				return false;
		return true;
	case CR_OPT_GROUP:
		return ty == CONFIG_TYPE_GROUP;
	case CR_OPT_ANY:
		return true;
	}
	return false;
}

bool schema_has_bound(const cr_plugin_desc *desc, const cr_option *o, uint32_t flag)
{
	size_t end = flag == CR_OPT_MIN ? offsetof(cr_option, min) + sizeof(double)
					: offsetof(cr_option, max) + sizeof(double);

	if (o->type != CR_OPT_INT && o->type != CR_OPT_FLOAT)
		return false;
	return (o->flags & flag) != 0 && desc->option_size >= end;
}

/* A bound as an admin wrote it: 1, 0.5, 86400, 1e+30. */
const char *schema_bound_text(char *buf, double v)
{
	if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v)
		return g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, "%.0f", v);
	return g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, "%g", v);
}

static cr_status check_range(const cr_plugin_desc *desc, const cr_option *o,
			     const config_setting_t *s, const char *label, cr_error *err)
{
	/* a core key's bounds are the host's own: always there */
	bool core = schema_find(desc, o->name) != o;
	bool lo = core ? (o->flags & CR_OPT_MIN) != 0 : schema_has_bound(desc, o, CR_OPT_MIN);
	bool hi = core ? (o->flags & CR_OPT_MAX) != 0 : schema_has_bound(desc, o, CR_OPT_MAX);
	double v = config_setting_type(s) == CONFIG_TYPE_FLOAT
			   ? config_setting_get_float(s)
			   : (double)config_setting_get_int64(s);
	char value[G_ASCII_DTOSTR_BUF_SIZE], min[G_ASCII_DTOSTR_BUF_SIZE],
		max[G_ASCII_DTOSTR_BUF_SIZE];

	if ((!lo || v >= o->min) && (!hi || v <= o->max) && v == v) /* NaN is out */
		return CR_OK;
	if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
		g_ascii_formatd(value, sizeof(value), "%g", v);
	else
		g_snprintf(value, sizeof(value), "%lld", config_setting_get_int64(s));
	schema_bound_text(min, o->min);
	schema_bound_text(max, o->max);
	if (lo && hi)
		return error_set(err, CR_ERR_CONFIG,
				 "%s:%d: %s: key '%s' is %s, out of its range %s..%s", AT(s), label,
				 o->name, value, min, max);
	return error_set(err, CR_ERR_CONFIG, "%s:%d: %s: key '%s' is %s; it must be %s %s", AT(s),
			 label, o->name, value, lo ? "at least" : "at most", lo ? min : max);
}

cr_status schema_check_group(const cr_plugin_desc *desc, const config_setting_t *g,
			     const char *label, cr_error *err)
{
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(s);
		const cr_option *o;
		cr_status st;

		if (key == NULL || schema_is_host_key(key))
			continue;
		o = schema_find(desc, key);
		if (o == NULL)
			o = schema_core_key(desc, key);
		if (o == NULL) {
			const char *hint = suggest(desc, key);

			return error_set(err, CR_ERR_CONFIG, "%s:%d: %s: unknown key '%s'%s%s%s",
					 AT(s), label, key, hint ? " (did you mean '" : "",
					 hint ? hint : "", hint ? "'?)" : "");
		}
		if (!type_matches(s, o->type))
			return error_set(err, CR_ERR_CONFIG,
					 "%s:%d: %s: key '%s' must be %s, not %s", AT(s), label,
					 key, type_text(o->type), setting_text(s));
		st = check_range(desc, o, s, label, err);
		if (st != CR_OK)
			return st;
	}
	for (size_t i = 0;; i++) {
		const cr_option *o = schema_option_at(desc, i);

		if (o == NULL || o->name == NULL)
			break;
		if ((o->flags & CR_OPT_REQUIRED) && config_setting_get_member(g, o->name) == NULL)
			return error_set(err, CR_ERR_CONFIG, "%s:%d: %s: missing required key '%s'",
					 AT(g), label, o->name);
	}
	return CR_OK;
}
