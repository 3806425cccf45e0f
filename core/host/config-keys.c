/* SPDX-License-Identifier: MIT */
/*
 * config-keys.c - the readers of a config's top-level keys into the plan
 * (cr_plan), for config.c, which calls config_read_root once for each file,
 * drop-in or string it has read (config_read_entry for cr-testhost's one
 * group): each key checked with FILE:LINE in every message (config-where.c,
 * the one config file this one uses), the resolvers and accelerators lists
 * read into plan entries with their names and policies (policy_name, which
 * the pipeline and `explain` print), which the loader checks against each
 * plugin's schema. It never calls config.c or config-text.c.
 */
#include <string.h>

#include <glib.h>

#include "values/format-options.h"
#include "host/host-private.h"

static const char *const top_keys[] = {
	"plugin_path",    "rpc_layer", "task",         "num_accelerators", "gpus_per_task",
	"skip_busy_gpus", "resolvers", "accelerators", "formats",          NULL
};

static bool in_list(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

static cr_status parse_policy(const config_setting_t *g, const char *label, cr_policy *out,
			      cr_error *err)
{
	const config_setting_t *s = config_setting_get_member(g, "policy");
	const char *v;

	*out = CR_POLICY_REQUIRED;
	if (s == NULL)
		return CR_OK;
	v = config_setting_get_string(s);
	if (v != NULL && strcmp(v, "required") == 0)
		*out = CR_POLICY_REQUIRED;
	else if (v != NULL && strcmp(v, "optional") == 0)
		*out = CR_POLICY_OPTIONAL;
	else if (v != NULL && strcmp(v, "sufficient") == 0)
		*out = CR_POLICY_SUFFICIENT;
	else
		return error_set(
			err, CR_ERR_CONFIG,
			"%s:%d: %s: policy must be \"required\", \"optional\" or \"sufficient\"",
			AT(s), label);
	return CR_OK;
}

const char *policy_name(cr_policy p)
{
	return p == CR_POLICY_OPTIONAL     ? "optional"
	       : p == CR_POLICY_SUFFICIENT ? "sufficient"
					   : "required";
}

/* "resolver 'NAME'": the `name` key, else the plugin's name (the file's
 * name without ".so" for an absolute path). */
static char *instance_label(cr_plugin_kind kind, const char *name, const char *plugin)
{
	char *base = name == NULL && plugin != NULL && plugin[0] == '/'
			     ? g_path_get_basename(plugin)
			     : NULL;
	char *label;

	if (base != NULL && g_str_has_suffix(base, ".so"))
		base[strlen(base) - 3] = '\0';
	label = g_strdup_printf("%s '%s'", kind_name(kind),
				name != NULL   ? name
				: base != NULL ? base
					       : plugin);
	g_free(base);
	return label;
}

void plan_entry_free(gpointer p)
{
	plan_entry *e = p;

	g_free(e->plugin);
	g_free(e->where);
	g_free(e);
}

/* One { plugin = ...; } group of a resolvers/accelerators list. @kind 0:
 * not known yet (cr-testhost names the file, the file says its kind). */
cr_status config_read_entry(const config_setting_t *g, cr_plugin_kind kind, plan_entry **out,
			    cr_error *err)
{
	const char *what = kind_name(kind);
	const config_setting_t *ps = config_setting_get_member(g, "plugin");
	const config_setting_t *ns = config_setting_get_member(g, "name");
	plan_entry *e;
	char *label;
	cr_status st;

	*out = NULL;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return error_set(err, CR_ERR_CONFIG,
				 "%s:%d: each %s must be a group { plugin = ...; }", AT(g), what);
	if (kind != 0 && (ps == NULL || config_setting_get_string(ps) == NULL))
		return error_set(err, CR_ERR_CONFIG, "%s:%d: %s without a \"plugin\" name", AT(g),
				 what);
	if (kind != 0 && ns != NULL && config_setting_get_string(ns) == NULL)
		return error_set(err, CR_ERR_CONFIG, "%s:%d: %s: name must be a string", AT(ns),
				 what);
	e = g_new0(plan_entry, 1);
	e->kind = kind;
	e->plugin = g_strdup(ps != NULL ? config_setting_get_string(ps) : NULL);
	e->name = ns != NULL ? config_setting_get_string(ns) : NULL;
	e->bad_name = ns != NULL && e->name == NULL ? ns : NULL;
	e->group = g;
	e->plugin_at = ps;
	e->where = g_strdup_printf("%s:%d", AT(g));
	/* The policy message names the instance as the loader will: the
	 * `name` key, else the plugin's name. cr-testhost runs one plugin and
	 * has no policies. */
	label = instance_label(kind, e->name, e->plugin);
	st = kind != 0 ? parse_policy(g, label, &e->policy, err) : CR_OK;
	g_free(label);
	if (st != CR_OK) {
		plan_entry_free(e);
		return st;
	}
	*out = e;
	return CR_OK;
}

static cr_status read_entries(cr_plan *plan, const config_setting_t *list, cr_plugin_kind kind,
			      cr_error *err)
{
	GPtrArray *to = kind == CR_PLUGIN_RESOLVER ? plan->resolvers : plan->accelerators;
	int ty = config_setting_type(list);
	int n = ty == CONFIG_TYPE_GROUP ? 1 : config_setting_length(list);

	if (ty != CONFIG_TYPE_LIST && ty != CONFIG_TYPE_GROUP)
		return error_set(err, CR_ERR_CONFIG, "%s:%d: '%s' must be a list ( { ... }, ... )",
				 AT(list), config_setting_name(list));
	for (int i = 0; i < n; i++) { /* a single group is a list of one */
		const config_setting_t *g =
			ty == CONFIG_TYPE_GROUP ? list : config_setting_get_elem(list, (unsigned)i);
		plan_entry *e = NULL;
		cr_status st = config_read_entry(g, kind, &e, err);

		if (st != CR_OK)
			return st;
		g_ptr_array_add(to, e);
	}
	return CR_OK;
}

static cr_status read_plugin_path(cr_plan *plan, const config_setting_t *s, cr_error *err)
{
	int ty = config_setting_type(s);
	int n = ty == CONFIG_TYPE_STRING ? 1 : config_setting_length(s);

	if (ty != CONFIG_TYPE_STRING && ty != CONFIG_TYPE_ARRAY && ty != CONFIG_TYPE_LIST)
		return error_set(err, CR_ERR_CONFIG,
				 "%s:%d: plugin_path must be a string or a list of strings", AT(s));
	for (int i = 0; i < n; i++) {
		const char *dir = ty == CONFIG_TYPE_STRING
					  ? config_setting_get_string(s)
					  : config_setting_get_string_elem(s, (unsigned)i);

		if (dir == NULL || !g_path_is_absolute(dir))
			return error_set(err, CR_ERR_CONFIG,
					 "%s:%d: plugin_path entries must be absolute directories",
					 AT(s));
		g_ptr_array_add(plan->plugin_path, g_strdup(dir));
	}
	return CR_OK;
}

/*
 * `formats = { master_port = "auto"; ifname = "auto"; };`: defaults for the
 * options of the output formats (each format takes those it has; the
 * caller's options win). Values are checked here, naming FILE:LINE.
 */
static cr_status read_formats(cr_plan *plan, const config_setting_t *g, cr_error *err)
{
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return error_set(err, CR_ERR_CONFIG,
				 "%s:%d: formats must be a group { master_port = \"auto\"; }",
				 AT(g));
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(s);
		char *value = NULL, *where;
		cr_status st;

		if (config_setting_type(s) == CONFIG_TYPE_STRING)
			value = g_strdup(config_setting_get_string(s));
		else if (strcmp(key, "master_port") == 0 &&
			 (config_setting_type(s) == CONFIG_TYPE_INT ||
			  config_setting_type(s) == CONFIG_TYPE_INT64))
			value = g_strdup_printf("%lld", (long long)config_setting_get_int64(s));
		if (value == NULL && format_default_known(key))
			return error_set(err, CR_ERR_CONFIG,
					 "%s:%d: formats: '%s' must be a string%s", AT(s), key,
					 strcmp(key, "master_port") == 0 ? " or a port number"
									 : "");
		where = g_strdup_printf("%s:%d: formats", AT(s));
		st = format_default_check(where, key, value, err);
		g_free(where);
		if (st != CR_OK) {
			g_free(value);
			return st;
		}
		g_ptr_array_add(plan->format_options, g_strdup_printf("%s=%s", key, value));
		g_free(value);
	}
	return CR_OK;
}

static cr_status read_task(cr_plan *plan, const config_setting_t *g, cr_error *err)
{
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return error_set(err, CR_ERR_CONFIG,
				 "%s:%d: task must be a group { type = \"worker\"; id = 0; }",
				 AT(g));
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(s);
		long long id;

		if (strcmp(key, "type") == 0 && config_setting_type(s) == CONFIG_TYPE_STRING) {
			if (spec_check_name(err, "task type", config_setting_get_string(s)) !=
			    CR_OK) {
				error_prefix(err, "%s:%d: ", AT(s));
				return err != NULL ? (err->code = CR_ERR_CONFIG) : CR_ERR_CONFIG;
			}
			g_free(plan->task_type);
			plan->task_type = g_strdup(config_setting_get_string(s));
		} else if (strcmp(key, "id") == 0 &&
			   (config_setting_type(s) == CONFIG_TYPE_INT ||
			    config_setting_type(s) == CONFIG_TYPE_INT64)) {
			id = config_setting_get_int64(s);
			if (id < 0 || id > G_MAXINT32)
				return error_set(
					err, CR_ERR_CONFIG,
					"%s:%d: task id %lld is out of range (0..2147483647)",
					AT(s), id);
			plan->task_id = id;
		} else {
			return error_set(err, CR_ERR_CONFIG,
					 "%s:%d: task: unknown key '%s' or wrong type (type is a "
					 "string, id an integer)",
					 AT(s), key);
		}
	}
	return CR_OK;
}

static cr_status read_accel_counts(GHashTable *counts, const config_setting_t *g, cr_error *err)
{
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return error_set(err, CR_ERR_CONFIG,
				 "%s:%d: num_accelerators must be a group { GPU = 8; }", AT(g));
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		int ty = config_setting_type(s);
		long long n = config_setting_get_int64(s);

		if ((ty != CONFIG_TYPE_INT && ty != CONFIG_TYPE_INT64) || n < 0)
			return error_set(
				err, CR_ERR_CONFIG,
				"%s:%d: num_accelerators: '%s' must be a non-negative integer",
				AT(s), config_setting_name(s));
		accel_counts_put(counts, config_setting_name(s), n);
	}
	return CR_OK;
}

/* `gpus_per_task = n;` and `skip_busy_gpus = true;`: the GPUs of this task
 * (pipeline/gpus.c), for whichever resolver answers; a resolver's group may
 * say its own (loader-schema.c). A drop-in overrides the main file. */
static cr_status read_gpus(cr_plan *plan, const config_setting_t *root, cr_error *err)
{
	const config_setting_t *s = config_setting_get_member(root, "gpus_per_task");
	int ty;

	if (s != NULL) {
		ty = config_setting_type(s);
		if ((ty != CONFIG_TYPE_INT && ty != CONFIG_TYPE_INT64) ||
		    config_setting_get_int64(s) < 0 ||
		    config_setting_get_int64(s) > CR_GPUS_PER_TASK_MAX)
			return error_set(err, CR_ERR_CONFIG,
					 "%s:%d: gpus_per_task must be an integer from 0 to %d",
					 AT(s), CR_GPUS_PER_TASK_MAX);
		plan->gpus_per_task = config_setting_get_int64(s);
		g_free(plan->gpus_at);
		plan->gpus_at = g_strdup_printf("%s:%d", AT(s));
	}
	s = config_setting_get_member(root, "skip_busy_gpus");
	if (s != NULL) {
		if (config_setting_type(s) != CONFIG_TYPE_BOOL)
			return error_set(err, CR_ERR_CONFIG,
					 "%s:%d: skip_busy_gpus must be true or false", AT(s));
		plan->skip_busy_gpus = config_setting_get_bool(s) ? 1 : 0;
	}
	return CR_OK;
}

cr_status config_read_root(cr_plan *plan, const config_t *cfg, cr_error *err)
{
	const config_setting_t *root = config_root_setting(cfg);
	const config_setting_t *s;
	cr_status st = CR_OK;

	for (int i = 0; i < config_setting_length(root); i++) {
		const char *key;

		s = config_setting_get_elem(root, (unsigned)i);
		key = config_setting_name(s);
		if (!in_list(top_keys, key))
			return error_set(
				err, CR_ERR_CONFIG,
				"%s:%d: unknown top-level key '%s' (known: plugin_path, rpc_layer, "
				"task, num_accelerators, gpus_per_task, skip_busy_gpus, resolvers, "
				"accelerators, formats)",
				AT(s), key);
	}
	if ((s = config_setting_get_member(root, "plugin_path")) != NULL)
		st = read_plugin_path(plan, s, err);
	if (st == CR_OK && (s = config_setting_get_member(root, "rpc_layer")) != NULL) {
		if (config_setting_type(s) != CONFIG_TYPE_STRING)
			return error_set(err, CR_ERR_CONFIG, "%s:%d: rpc_layer must be a string",
					 AT(s));
		if (spec_check_name(err, "rpc_layer", config_setting_get_string(s)) != CR_OK) {
			error_prefix(err, "%s:%d: ", AT(s));
			return err != NULL ? (err->code = CR_ERR_CONFIG) : CR_ERR_CONFIG;
		}
		g_free(plan->rpc_layer);
		plan->rpc_layer = g_strdup(config_setting_get_string(s));
		plan->rpc_layer_set = true;
	}
	if (st == CR_OK && (s = config_setting_get_member(root, "task")) != NULL)
		st = read_task(plan, s, err);
	if (st == CR_OK && (s = config_setting_get_member(root, "num_accelerators")) != NULL)
		st = read_accel_counts(plan->num_accelerators, s, err);
	if (st == CR_OK)
		st = read_gpus(plan, root, err);
	if (st == CR_OK && (s = config_setting_get_member(root, "formats")) != NULL)
		st = read_formats(plan, s, err);
	if (st == CR_OK && (s = config_setting_get_member(root, "resolvers")) != NULL)
		st = read_entries(plan, s, CR_PLUGIN_RESOLVER, err);
	if (st == CR_OK && (s = config_setting_get_member(root, "accelerators")) != NULL) {
		plan->accelerators_listed = true;
		st = read_entries(plan, s, CR_PLUGIN_ACCELERATOR, err);
	}
	return st;
}
