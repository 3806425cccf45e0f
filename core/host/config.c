/* SPDX-License-Identifier: MIT */
/*
 * config.c - the first stage of the pipeline: the libconfig file, its conf.d
 * drop-ins, a config string or the built-in `auto` configuration, read into
 * a plain plan (cr_plan): resolver and accelerator entries with their
 * groups, names, policies and FILE:LINE, the plugin path and the top-level
 * overrides. It loads no plugin; the loader checks each entry against its
 * plugin's schema.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "values/format-options.h"
#include "host/host-private.h"

static const char *const top_keys[] = {
	"plugin_path",    "rpc_layer", "task",         "num_accelerators", "gpus_per_task",
	"skip_busy_gpus", "resolvers", "accelerators", "formats",          NULL
};

const char *cfg_file_of(const config_setting_t *s)
{
	const char *f = s != NULL ? config_setting_source_file(s) : NULL;

	if (f != NULL)
		return config_include_path(s->config, f);
	if (s != NULL && s->config != NULL && config_name_get(s->config) != NULL)
		return config_name_get(s->config);
	return "(built-in)";
}

int cfg_line_of(const config_setting_t *s)
{
	return s != NULL ? (int)config_setting_source_line(s) : 0;
}

/* A config's display name (file or "(built-in auto)") rides on the root
 * setting's hook; libconfig 1.5 has no per-config hook. */
void config_name_set(config_t *cfg, const char *name)
{
	config_setting_set_hook(config_root_setting(cfg), g_strdup(name));
}

const char *config_name_get(const config_t *cfg)
{
	return config_setting_get_hook(config_root_setting(cfg));
}

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

static void entry_free(gpointer p)
{
	plan_entry *e = p;

	g_free(e->plugin);
	g_free(e->where);
	g_free(e);
}

/* One { plugin = ...; } group of a resolvers/accelerators list. @kind 0:
 * not known yet (cr-testhost names the file, the file says its kind). */
static cr_status read_entry(const config_setting_t *g, cr_plugin_kind kind, plan_entry **out,
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
		entry_free(e);
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
		cr_status st = read_entry(g, kind, &e, err);

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

static cr_status read_root(cr_plan *plan, const config_t *cfg, cr_error *err)
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

/* A config the plan keeps: its settings are the entries' groups. It is
 * named after reading, since reading replaces the root setting. */
static config_t *new_config(cr_plan *plan)
{
	config_t *cfg = g_new0(config_t, 1);

	config_init(cfg);
	g_ptr_array_add(plan->configs, cfg);
	return cfg;
}

static void free_config(gpointer p)
{
	config_t *cfg = p;

	g_free((char *)config_name_get(cfg));
	config_destroy(cfg);
	g_free(cfg);
}

cr_plan *plan_new(void)
{
	cr_plan *plan = g_new0(cr_plan, 1);

	plan->configs = g_ptr_array_new_with_free_func(free_config);
	plan->files = g_ptr_array_new_with_free_func(g_free);
	plan->plugin_path = g_ptr_array_new_with_free_func(g_free);
	plan->resolvers = g_ptr_array_new_with_free_func(entry_free);
	plan->accelerators = g_ptr_array_new_with_free_func(entry_free);
	plan->task_id = -1;
	plan->gpus_per_task = -1;
	plan->skip_busy_gpus = -1;
	plan->num_accelerators = accel_counts_new();
	plan->format_options = g_ptr_array_new_with_free_func(g_free);
	return plan;
}

void plan_free(cr_plan *plan)
{
	if (plan == NULL)
		return;
	g_ptr_array_unref(plan->resolvers);
	g_ptr_array_unref(plan->accelerators);
	g_ptr_array_unref(plan->configs);
	g_ptr_array_unref(plan->files);
	g_ptr_array_unref(plan->plugin_path);
	g_hash_table_unref(plan->num_accelerators);
	g_ptr_array_unref(plan->format_options);
	g_free(plan->name);
	g_free(plan->task_type);
	g_free(plan->rpc_layer);
	g_free(plan->gpus_at);
	g_free(plan);
}

static cr_status read_one_file(cr_plan *plan, const char *path, cr_error *err)
{
	config_t *cfg;
	char *dir, *text = NULL;
	cr_status st;

	g_ptr_array_add(plan->files, g_strdup(path));
	st = config_read_text(path, &text, err);
	if (st != CR_OK)
		return st;
	dir = g_path_get_dirname(path);
	st = config_check_tokens(text, path, err);
	if (st == CR_OK)
		st = config_check_includes(dir, path, text, 0, plan->files, err);
	if (st != CR_OK) {
		g_free(dir);
		g_free(text);
		return st;
	}
	cfg = new_config(plan);
	config_set_include_dir(cfg, dir);
	g_free(dir);
	/* Reading clears the root, and with it the name: named after. */
	if (config_read_string(cfg, text) != CONFIG_TRUE) {
		const char *f = config_include_path(cfg, config_error_file(cfg));

		st = error_set(err, CR_ERR_CONFIG, "%s:%d: %s", f != NULL ? f : path,
			       config_error_line(cfg), config_error_text(cfg));
		config_name_set(cfg, path);
		g_free(text);
		return st;
	}
	config_name_set(cfg, path);
	g_free(text);
	return read_root(plan, cfg, err);
}

/* Drop-ins: DIR/conf.d/NAME.conf next to the main file, in sorted order. Lists
 * (resolvers, accelerators, plugin_path) append; scalars override. */
static cr_status read_dropins(cr_plan *plan, const char *path, cr_error *err)
{
	char *dir = g_path_get_dirname(path);
	char *dropdir = g_build_filename(dir, "conf.d", NULL);
	DIR *d = opendir(dropdir);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	struct dirent *e;
	cr_status st = CR_OK;

	/* No conf.d is the common case; one that exists but cannot be listed
	 * would change the answer without a word. */
	if (d == NULL && errno != ENOENT)
		st = error_set(err, CR_ERR_CONFIG, "%s: cannot read the drop-in directory: %s",
			       dropdir, g_strerror(errno));
	while (d != NULL && (errno = 0, e = readdir(d)) != NULL)
		if (g_str_has_suffix(e->d_name, ".conf") && e->d_name[0] != '.')
			g_ptr_array_add(names, g_strdup(e->d_name));
	if (d != NULL && errno != 0)
		st = error_set(err, CR_ERR_CONFIG, "%s: cannot read the drop-in directory: %s",
			       dropdir, g_strerror(errno));
	g_ptr_array_sort(names, str_ptr_cmp);
	for (guint i = 0; i < names->len && st == CR_OK; i++) {
		char *file = g_build_filename(dropdir, g_ptr_array_index(names, i), NULL);

		st = read_one_file(plan, file, err);
		g_free(file);
	}
	if (d != NULL)
		closedir(d);
	g_ptr_array_unref(names);
	g_free(dropdir);
	g_free(dir);
	return st;
}

cr_status config_parse_file(cr_plan *plan, const char *path, cr_error *err)
{
	cr_status st;

	g_free(plan->name);
	plan->name = g_strdup(path);
	st = read_one_file(plan, path, err);
	if (st == CR_OK)
		st = read_dropins(plan, path, err);
	return st;
}

cr_status config_parse_string(cr_plan *plan, const char *text, const char *name, cr_error *err)
{
	config_t *cfg = new_config(plan);

	g_free(plan->name);
	plan->name = g_strdup(name);
	if (config_check_tokens(text, name, err) != CR_OK)
		return CR_ERR_CONFIG;
	if (config_read_string(cfg, text) != CONFIG_TRUE) {
		cr_status st = error_set(err, CR_ERR_CONFIG, "%s:%d: %s", name,
					 config_error_line(cfg), config_error_text(cfg));

		config_name_set(cfg, name);
		return st;
	}
	config_name_set(cfg, name);
	return read_root(plan, cfg, err);
}

/* The built-in `auto` configuration: every installed environment resolver in
 * a fixed order, each `sufficient` (the first that applies wins; an error is
 * fatal), then one local task so a lone process still gets a TF_CONFIG. */
const char *const config_auto_order[] = { "tfconfig", "slurm",     "k8s", "gce",
					  "tpu",      "sagemaker", "aws", NULL };

cr_status config_parse_auto(cr_plan *plan, const char *const *installed, cr_error *err)
{
	GString *text = g_string_new("resolvers = (\n");
	cr_status st;

	for (const char *const *n = installed; *n != NULL; n++)
		g_string_append_printf(text, "  { plugin = \"%s\"; policy = \"sufficient\"; },\n",
				       *n);
	g_string_append(text,
			"  { plugin = \"simple\"; name = \"local\"; policy = \"sufficient\";\n"
			"    cluster = { worker = [ \"localhost:2222\" ]; };\n"
			"    task_type = \"worker\"; task_id = 0; }\n);\n");
	st = config_parse_string(plan, text->str, "(built-in auto)", err);
	g_string_free(text, TRUE);
	return st;
}

#define GROUP_KEY "cr_testhost_group"

cr_status config_parse_group(cr_plan *plan, const char *text, const char *name,
			     const char *plugin_path, plan_entry **out, cr_error *err)
{
	config_t *cfg = new_config(plan);
	char *wrapped = g_strdup_printf(GROUP_KEY " = { %s\n};", text != NULL ? text : "");
	const config_setting_t *root, *g;
	int ok;
	cr_status st;

	*out = NULL;
	g_free(plan->name);
	plan->name = g_strdup(name);
	plan->accelerators_listed = true; /* only the one plugin */
	ok = config_read_string(cfg, wrapped);
	g_free(wrapped);
	config_name_set(cfg, name);
	if (ok != CONFIG_TRUE)
		return error_set(err, CR_ERR_CONFIG, "%s:%d: %s", name, config_error_line(cfg),
				 config_error_text(cfg));
	if (text != NULL && config_check_tokens(text, name, err) != CR_OK)
		return CR_ERR_CONFIG;
	root = config_root_setting(cfg);
	g = config_setting_get_member(root, GROUP_KEY);
	if (config_setting_length(root) != 1 || g == NULL ||
	    config_setting_type(g) != CONFIG_TYPE_GROUP)
		return error_set(err, CR_ERR_CONFIG,
				 "%s: the config text must be the keys of one group (a stray '}'?)",
				 name);
	st = read_entry(g, 0, out, err);
	if (st == CR_OK) { /* the plugin is the file given, not a `plugin` key */
		g_free((*out)->plugin);
		(*out)->plugin = g_strdup(plugin_path);
		(*out)->plugin_at = NULL;
	}
	return st;
}
