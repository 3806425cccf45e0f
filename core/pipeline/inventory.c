/* SPDX-License-Identifier: MIT */
/*
 * inventory.c - `cluster-resolver plugins`: every plugin file on the search
 * path with its ABI, version and config schema, or why it was refused.
 */
#include <string.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"

static const char *opt_type_name(cr_option_type t)
{
	switch (t) {
	case CR_OPT_STRING:
		return "string";
	case CR_OPT_INT:
		return "int";
	case CR_OPT_BOOL:
		return "bool";
	case CR_OPT_FLOAT:
		return "float";
	case CR_OPT_STRING_LIST:
		return "string-list";
	case CR_OPT_GROUP:
		return "group";
	case CR_OPT_ANY:
		return "any";
	}
	return "unknown";
}

/* ", "min": 1": a bound as a JSON number (an integer when it is one). */
static void write_bound(GString *out, const char *key, double v)
{
	char buf[G_ASCII_DTOSTR_BUF_SIZE];

	g_string_append_printf(out, ", \"%s\": %s", key, schema_bound_text(buf, v));
}

static void write_schema(GString *out, const cr_plugin_desc *d)
{
	g_string_append(out, "[");
	for (size_t i = 0;; i++) {
		const cr_option *o = schema_option_at(d, i);

		if (o == NULL || o->name == NULL)
			break;
		g_string_append(out, i ? ", {\"name\": " : "{\"name\": ");
		jw_string(out, o->name);
		g_string_append_printf(out, ", \"type\": \"%s\"", opt_type_name(o->type));
		if (o->default_value != NULL) {
			g_string_append(out, ", \"default\": ");
			/* A secret's default is not shown either. */
			jw_string(out, (o->flags & CR_OPT_SECRET) ? "(secret)" : o->default_value);
		}
		g_string_append_printf(out, ", \"required\": %s, \"secret\": %s",
				       (o->flags & CR_OPT_REQUIRED) ? "true" : "false",
				       (o->flags & CR_OPT_SECRET) ? "true" : "false");
		if (o->help != NULL) {
			g_string_append(out, ", \"help\": ");
			jw_string(out, o->help);
		}
		if (schema_has_bound(d, o, CR_OPT_MIN))
			write_bound(out, "min", o->min);
		if (schema_has_bound(d, o, CR_OPT_MAX))
			write_bound(out, "max", o->max);
		g_string_append_c(out, '}');
	}
	g_string_append(out, "]");
}

static void write_plugin(GString *out, const cr_plugin *p)
{
	const cr_plugin_desc *d = p->desc;

	g_string_append(out, "{\"name\": ");
	jw_string(out, d->name);
	g_string_append_printf(out, ", \"kind\": \"%s\", \"file\": ", kind_name(d->kind));
	jw_string(out, p->path);
	g_string_append_printf(out, ", \"abi\": \"%u.%u\", \"version\": ", d->abi_major,
			       d->abi_minor);
	jw_string(out, d->version != NULL ? d->version : "");
	g_string_append(out, ", \"description\": ");
	jw_string(out, d->description != NULL ? d->description : "");
	g_string_append(out, ", \"options\": ");
	write_schema(out, d);
	g_string_append_c(out, '}');
}

cr_status cr_context_plugins_json(cr_context *ctx, char **json, cr_error *err)
{
	GPtrArray *dirs;
	GString *out;
	bool first = true;

	if (ctx == NULL || json == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_context_plugins_json: NULL argument");
	dirs = loader_search_path(&ctx->loader);
	out = g_string_new("[");
	for (guint i = 0; i < dirs->len; i++) {
		const char *dir = g_ptr_array_index(dirs, i);
		GDir *d = g_dir_open(dir, 0, NULL);
		GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
		const char *n;

		while (d != NULL && (n = g_dir_read_name(d)) != NULL)
			if (g_str_has_suffix(n, ".so"))
				g_ptr_array_add(names, g_strdup(n));
		if (d != NULL)
			g_dir_close(d);
		g_ptr_array_sort(names, str_ptr_cmp);
		for (guint k = 0; k < names->len; k++) {
			char *path = g_build_filename(dir, g_ptr_array_index(names, k), NULL);
			cr_error perr = CR_ERROR_INIT;
			cr_plugin *p = NULL;

			g_string_append(out, first ? "" : ", ");
			first = false;
			if (loader_open_file(path, NULL, &p, &perr) == CR_OK) {
				write_plugin(out, p);
				loader_plugin_free(p);
			} else {
				g_string_append(out, "{\"file\": ");
				jw_string(out, path);
				g_string_append(out, ", \"error\": ");
				jw_string(out, perr.message);
				g_string_append_c(out, '}');
			}
			g_free(path);
		}
		g_ptr_array_unref(names);
	}
	g_string_append(out, "]\n");
	g_ptr_array_unref(dirs);
	*json = g_string_free(out, FALSE);
	return CR_OK;
}

/* " [range: 1..10000]", " [min: 0]", " [max: 60]" from the JSON entry. */
static void write_range_text(GString *out, json_object *o)
{
	json_object *lo = NULL, *hi = NULL;
	bool has_lo = json_object_object_get_ex(o, "min", &lo);
	bool has_hi = json_object_object_get_ex(o, "max", &hi);

	if (has_lo && has_hi)
		g_string_append_printf(out, " [range: %s..%s]", json_object_to_json_string(lo),
				       json_object_to_json_string(hi));
	else if (has_lo || has_hi)
		g_string_append_printf(out, " [%s: %s]", has_lo ? "min" : "max",
				       json_object_to_json_string(has_lo ? lo : hi));
}

cr_status cr_context_plugins_text(cr_context *ctx, char **text, cr_error *err)
{
	char *json = NULL;
	json_object *arr = NULL;
	GString *out;
	cr_status st;

	if (text == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_context_plugins_text: NULL argument");
	st = cr_context_plugins_json(ctx, &json, err);
	if (st == CR_OK)
		st = json_parse_text(json, strlen(json), "plugin list", &arr, err);
	g_free(json);
	if (st != CR_OK)
		return st;
	out = g_string_new(NULL);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *p = json_object_array_get_idx(arr, i), *v, *opts;

		if (json_object_object_get_ex(p, "error", &v)) {
			g_string_append_printf(out, "BROKEN  %s\n", json_object_get_string(v));
			continue;
		}
#define F(key) (json_object_object_get_ex(p, key, &v) ? json_object_get_string(v) : "")
		g_string_append_printf(out, "%-12s %-11s ABI %-4s %-8s %s\n", F("name"), F("kind"),
				       F("abi"), F("version"), F("file"));
		g_string_append_printf(out, "    %s\n", F("description"));
#undef F
		json_object_object_get_ex(p, "options", &opts);
		for (size_t k = 0; k < json_object_array_length(opts); k++) {
			json_object *o = json_object_array_get_idx(opts, k), *f;
			const char *def = json_object_object_get_ex(o, "default", &f)
						  ? json_object_get_string(f)
						  : NULL;

#define G(key) (json_object_object_get_ex(o, key, &f) ? json_object_get_string(f) : "")
			g_string_append_printf(out, "    %-18s %-11s %s%s%s%s", G("name"),
					       G("type"), G("help"),
					       def != NULL ? " [default: " : "",
					       def != NULL ? def : "", def != NULL ? "]" : "");
			write_range_text(out, o);
			g_string_append_printf(
				out, "%s\n",
				json_object_get_boolean(json_object_object_get(o, "required"))
					? " (required)"
					: "");
#undef G
		}
	}
	json_object_put(arr);
	*text = g_string_free(out, FALSE);
	return CR_OK;
}

static void describe_value(GString *out, const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_STRING:
		jw_string(out, config_setting_get_string(s));
		break;
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		g_string_append_printf(out, "%lld", config_setting_get_int64(s));
		break;
	case CONFIG_TYPE_FLOAT:
		g_string_append_printf(out, "%g", config_setting_get_float(s));
		break;
	case CONFIG_TYPE_BOOL:
		g_string_append(out, config_setting_get_bool(s) ? "true" : "false");
		break;
	case CONFIG_TYPE_GROUP:
		g_string_append_printf(out, "{ %d keys }", config_setting_length(s));
		break;
	default:
		g_string_append_printf(out, "( %d items )", config_setting_length(s));
		break;
	}
}

static cr_status describe_instance(GString *out, cr_instance *inst, cr_error *err)
{
	const config_setting_t *g = inst->setting;
	/* check-config checks every plugin file, manifest or not. */
	cr_status st = instance_unstub(inst, err);

	if (st == CR_OK)
		st = instance_create(inst, err);
	if (st != CR_OK)
		return st;
	g_string_append_printf(
		out, "%s: plugin %s %s (%s), policy %s, at %s\n", inst->label, inst->plugin->name,
		inst->plugin->desc->version ? inst->plugin->desc->version : "", inst->plugin->path,
		policy_name(inst->policy), inst->where ? inst->where : "(built-in)");
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(s);
		const cr_option *o;

		if (schema_is_host_key(key))
			continue;
		o = schema_find(inst->plugin->desc, key);
		g_string_append_printf(out, "    %s = ", key);
		if (o != NULL && (o->flags & CR_OPT_SECRET))
			g_string_append(out, "(secret)");
		else
			describe_value(out, s);
		g_string_append_c(out, '\n');
	}
	return CR_OK;
}

/* The merged top-level values (main file, then drop-ins): what the check
 * shows at -v (log level info and above). */
static void describe_top_level(GString *out, const cr_plan *plan)
{
	GList *kinds = plan->num_accelerators != NULL
			       ? g_list_sort(g_hash_table_get_keys(plan->num_accelerators),
					     (GCompareFunc)strcmp)
			       : NULL;

	g_string_append(out, "top level:\n    plugin_path = ");
	if (plan->plugin_path->len == 0)
		g_string_append(out, "(none)");
	for (guint i = 0; i < plan->plugin_path->len; i++)
		g_string_append_printf(out, "%s%s", i ? ":" : "",
				       (const char *)g_ptr_array_index(plan->plugin_path, i));
	g_string_append(out, "\n    rpc_layer = ");
	if (plan->rpc_layer_set)
		jw_string(out, plan->rpc_layer != NULL ? plan->rpc_layer : "");
	else
		g_string_append(out, "(unset)");
	g_string_append(out, "\n    task = ");
	if (plan->task_type == NULL && plan->task_id < 0)
		g_string_append(out, "(unset)");
	else
		g_string_append_printf(out, "%s:%" G_GINT64_FORMAT,
				       plan->task_type != NULL ? plan->task_type : "?",
				       plan->task_id);
	g_string_append(out, "\n    num_accelerators = ");
	if (kinds == NULL)
		g_string_append(out, "(unset)");
	for (GList *k = kinds; k != NULL; k = k->next)
		g_string_append_printf(
			out, "%s%s=%" G_GINT64_FORMAT, k == kinds ? "" : ", ",
			(const char *)k->data,
			*(const int64_t *)g_hash_table_lookup(plan->num_accelerators, k->data));
	g_string_append(out, "\n    gpus_per_task = ");
	if (plan->gpus_per_task < 0)
		g_string_append(out, "(unset)");
	else
		g_string_append_printf(out, "%" G_GINT64_FORMAT " (at %s)", plan->gpus_per_task,
				       plan->gpus_at);
	g_string_append_printf(out, "\n    skip_busy_gpus = %s",
			       plan->skip_busy_gpus < 0 ? "(unset)"
			       : plan->skip_busy_gpus   ? "true"
							: "false");
	g_string_append(out, "\n    formats = ");
	if (plan->format_options->len == 0)
		g_string_append(out, "(none)");
	for (guint i = 0; i < plan->format_options->len; i++)
		g_string_append_printf(out, "%s%s", i ? ", " : "",
				       (const char *)g_ptr_array_index(plan->format_options, i));
	g_string_append(out, "\n");
	g_list_free(kinds);
}

cr_status cr_context_check(cr_context *ctx, char **text, cr_error *err)
{
	GString *out;
	cr_status st = CR_OK;

	if (ctx == NULL || text == NULL || ctx->plan == NULL)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr_context_check: no configuration loaded");
	out = g_string_new(NULL);
	g_string_append_printf(out, "%s: ok\n", ctx->plan->name);
	for (guint i = 0; i < ctx->plan->files->len; i++)
		g_string_append_printf(out, "read %s\n",
				       (const char *)g_ptr_array_index(ctx->plan->files, i));
	if (ctx->log_level >= CR_LOG_INFO)
		describe_top_level(out, ctx->plan);
	for (guint i = 0; i < ctx->resolvers->len && st == CR_OK; i++)
		st = describe_instance(out, g_ptr_array_index(ctx->resolvers, i), err);
	for (guint i = 0; i < ctx->accelerators->len && st == CR_OK; i++)
		st = describe_instance(out, g_ptr_array_index(ctx->accelerators, i), err);
	if (st != CR_OK) {
		g_string_free(out, TRUE);
		return st;
	}
	*text = g_string_free(out, FALSE);
	return CR_OK;
}
