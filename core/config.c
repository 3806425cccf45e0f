/* SPDX-License-Identifier: MIT */
/*
 * config.c - reading the libconfig file, its conf.d drop-ins and the built-in
 * `auto` configuration, and validating each plugin group against the
 * plugin's declared schema before the plugin ever runs.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>

#include "pipeline-private.h"

static const char *const top_keys[] = { "plugin_path", "rpc_layer", "task", "num_accelerators",
					"resolvers", "accelerators", NULL };
/* Keys of a resolver/accelerator group that belong to the host. */
static const char *const host_keys[] = { "plugin", "name", "policy", NULL };

const char *cfg_file_of(const config_setting_t *s)
{
	const char *f = s != NULL ? config_setting_source_file(s) : NULL;

	if (f != NULL)
		return f;
	if (s != NULL && s->config != NULL && config_name_get(s->config) != NULL)
		return config_name_get(s->config);
	return "(built-in)";
}

static int line_of(const config_setting_t *s)
{
	return s != NULL ? (int)config_setting_source_line(s) : 0;
}

#define AT(s) cfg_file_of(s), line_of(s)

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

cr_status config_validate_options(const cr_instance *inst, cr_error *err)
{
	const cr_plugin_desc *desc = inst->plugin->desc;
	const config_setting_t *g = inst->setting;

	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(s);
		const cr_option *o;

		if (key == NULL || in_list(host_keys, key))
			continue;
		o = schema_find(desc, key);
		if (o == NULL) {
			const char *hint = suggest(desc, key);

			return error_set(err, CR_ERR_CONFIG, "%s:%d: %s: unknown key '%s'%s%s%s",
					    AT(s), inst->label, key, hint ? " (did you mean '" : "",
					    hint ? hint : "", hint ? "'?)" : "");
		}
		if (!type_matches(s, o->type))
			return error_set(err, CR_ERR_CONFIG, "%s:%d: %s: key '%s' must be %s, not %s",
					    AT(s), inst->label, key, type_text(o->type),
					    setting_text(s));
	}
	for (size_t i = 0;; i++) {
		const cr_option *o = schema_option_at(desc, i);

		if (o == NULL || o->name == NULL)
			break;
		if ((o->flags & CR_OPT_REQUIRED) && config_setting_get_member(g, o->name) == NULL)
			return error_set(err, CR_ERR_CONFIG, "%s:%d: %s: missing required key '%s'",
					    AT(g), inst->label, o->name);
	}
	return CR_OK;
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
		return error_set(err, CR_ERR_CONFIG,
				    "%s:%d: %s: policy must be \"required\", \"optional\" or \"sufficient\"",
				    AT(s), label);
	return CR_OK;
}

static cr_status add_instance(cr_context *ctx, const config_setting_t *g, cr_plugin_kind kind,
			      cr_error *err)
{
	const char *what = kind_name(kind);
	const config_setting_t *ps = config_setting_get_member(g, "plugin");
	const config_setting_t *ns = config_setting_get_member(g, "name");
	const char *plugin_name, *name;
	cr_plugin *plugin = NULL;
	cr_instance *inst;
	cr_status st;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return error_set(err, CR_ERR_CONFIG, "%s:%d: each %s must be a group { plugin = ...; }",
				    AT(g), what);
	if (ps == NULL || config_setting_get_string(ps) == NULL)
		return error_set(err, CR_ERR_CONFIG, "%s:%d: %s without a \"plugin\" name", AT(g),
				    what);
	if (ns != NULL && config_setting_get_string(ns) == NULL)
		return error_set(err, CR_ERR_CONFIG, "%s:%d: %s: name must be a string", AT(ns),
				    what);
	plugin_name = config_setting_get_string(ps);
	st = loader_load(ctx, plugin_name, kind, &plugin, err);
	if (st != CR_OK)
		return error_prefix(err, "%s:%d: ", AT(ps));
	name = ns != NULL ? config_setting_get_string(ns) : plugin->name;
	inst = instance_new(ctx, kind, plugin, name, g);
	inst->where = g_strdup_printf("%s:%d", AT(g));
	if (kind == CR_PLUGIN_RESOLVER)
		g_ptr_array_add(ctx->resolvers, inst);
	else
		g_ptr_array_add(ctx->accelerators, inst);
	st = parse_policy(g, inst->label, &inst->policy, err);
	if (st != CR_OK)
		return st;
	return config_validate_options(inst, err);
}

static cr_status read_instances(cr_context *ctx, const config_setting_t *list, cr_plugin_kind kind,
				cr_error *err)
{
	int ty = config_setting_type(list);

	if (ty != CONFIG_TYPE_LIST && ty != CONFIG_TYPE_GROUP)
		return error_set(err, CR_ERR_CONFIG, "%s:%d: '%s' must be a list ( { ... }, ... )",
				    AT(list), config_setting_name(list));
	if (ty == CONFIG_TYPE_GROUP) /* a single group is a list of one */
		return add_instance(ctx, list, kind, err);
	for (int i = 0; i < config_setting_length(list); i++) {
		cr_status st = add_instance(ctx, config_setting_get_elem(list, (unsigned)i), kind, err);

		if (st != CR_OK)
			return st;
	}
	return CR_OK;
}

static cr_status read_plugin_path(cr_context *ctx, const config_setting_t *s, cr_error *err)
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
		g_ptr_array_add(ctx->config_dirs, g_strdup(dir));
	}
	return CR_OK;
}

static cr_status read_task(cr_context *ctx, const config_setting_t *g, cr_error *err)
{
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return error_set(err, CR_ERR_CONFIG,
				    "%s:%d: task must be a group { type = \"worker\"; id = 0; }", AT(g));
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(s);
		long long id;

		if (strcmp(key, "type") == 0 && config_setting_type(s) == CONFIG_TYPE_STRING) {
			g_free(ctx->cfg_task_type);
			ctx->cfg_task_type = g_strdup(config_setting_get_string(s));
		} else if (strcmp(key, "id") == 0 && (config_setting_type(s) == CONFIG_TYPE_INT ||
						       config_setting_type(s) == CONFIG_TYPE_INT64)) {
			id = config_setting_get_int64(s);
			if (id < 0 || id > G_MAXINT32)
				return error_set(err, CR_ERR_CONFIG,
						    "%s:%d: task id %lld is out of range (0..2147483647)",
						    AT(s), id);
			ctx->cfg_task_id = id;
		} else {
			return error_set(err, CR_ERR_CONFIG,
					    "%s:%d: task: unknown key '%s' or wrong type (type is a string, id an integer)",
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
			return error_set(err, CR_ERR_CONFIG,
					    "%s:%d: num_accelerators: '%s' must be a non-negative integer",
					    AT(s), config_setting_name(s));
		accel_counts_put(counts, config_setting_name(s), n);
	}
	return CR_OK;
}

static cr_status read_root(cr_context *ctx, const config_t *cfg, cr_error *err)
{
	const config_setting_t *root = config_root_setting(cfg);
	const config_setting_t *s;
	cr_status st = CR_OK;

	for (int i = 0; i < config_setting_length(root); i++) {
		const char *key;

		s = config_setting_get_elem(root, (unsigned)i);
		key = config_setting_name(s);
		if (!in_list(top_keys, key))
			return error_set(err, CR_ERR_CONFIG,
					    "%s:%d: unknown top-level key '%s' (known: plugin_path, rpc_layer, task, num_accelerators, resolvers, accelerators)",
					    AT(s), key);
	}
	/* plugin_path first: the resolvers below are loaded from it. */
	if ((s = config_setting_get_member(root, "plugin_path")) != NULL)
		st = read_plugin_path(ctx, s, err);
	if (st == CR_OK && (s = config_setting_get_member(root, "rpc_layer")) != NULL) {
		if (config_setting_type(s) != CONFIG_TYPE_STRING)
			return error_set(err, CR_ERR_CONFIG, "%s:%d: rpc_layer must be a string",
					    AT(s));
		g_free(ctx->cfg_rpc_layer);
		ctx->cfg_rpc_layer = g_strdup(config_setting_get_string(s));
		ctx->cfg_rpc_layer_set = true;
	}
	if (st == CR_OK && (s = config_setting_get_member(root, "task")) != NULL)
		st = read_task(ctx, s, err);
	if (st == CR_OK && (s = config_setting_get_member(root, "num_accelerators")) != NULL)
		st = read_accel_counts(ctx->cfg_accel, s, err);
	if (st == CR_OK && (s = config_setting_get_member(root, "resolvers")) != NULL)
		st = read_instances(ctx, s, CR_PLUGIN_RESOLVER, err);
	if (st == CR_OK && (s = config_setting_get_member(root, "accelerators")) != NULL) {
		ctx->accelerators_listed = true;
		st = read_instances(ctx, s, CR_PLUGIN_ACCELERATOR, err);
	}
	return st;
}

static config_t *new_config(cr_context *ctx, const char *name)
{
	config_t *cfg = g_new0(config_t, 1);

	config_init(cfg);
	g_ptr_array_add(ctx->configs, cfg);
	(void)name; /* named after reading: reading replaces the root setting */
	return cfg;
}

static cr_status read_error(const config_t *cfg, const char *path, cr_error *err)
{
	if (config_error_type(cfg) == CONFIG_ERR_FILE_IO)
		return error_set(err, CR_ERR_CONFIG, "%s: cannot read the config file: %s", path,
				    g_strerror(errno != 0 ? errno : ENOENT));
	return error_set(err, CR_ERR_CONFIG, "%s:%d: %s",
			    config_error_file(cfg) != NULL ? config_error_file(cfg) : path,
			    config_error_line(cfg), config_error_text(cfg));
}

static cr_status load_one_file(cr_context *ctx, const char *path, cr_error *err)
{
	config_t *cfg = new_config(ctx, path);
	char *dir = g_path_get_dirname(path);
	cr_status st;

	config_set_include_dir(cfg, dir);
	g_free(dir);
	errno = 0;
	if (config_read_file(cfg, path) != CONFIG_TRUE) {
		st = read_error(cfg, path, err);
		config_name_set(cfg, path);
		return st;
	}
	config_name_set(cfg, path);
	st = read_root(ctx, cfg, err);
	return st;
}

/* Drop-ins: DIR/conf.d/NAME.conf next to the main file, in sorted order. Lists
 * (resolvers, accelerators, plugin_path) append; scalars override. */
static cr_status load_dropins(cr_context *ctx, const char *path, cr_error *err)
{
	char *dir = g_path_get_dirname(path);
	char *dropdir = g_build_filename(dir, "conf.d", NULL);
	GDir *d = g_dir_open(dropdir, 0, NULL);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	const char *n;
	cr_status st = CR_OK;

	while (d != NULL && (n = g_dir_read_name(d)) != NULL)
		if (g_str_has_suffix(n, ".conf") && n[0] != '.')
			g_ptr_array_add(names, g_strdup(n));
	g_ptr_array_sort(names, str_ptr_cmp);
	for (guint i = 0; i < names->len && st == CR_OK; i++) {
		char *file = g_build_filename(dropdir, g_ptr_array_index(names, i), NULL);

		st = load_one_file(ctx, file, err);
		g_free(file);
	}
	if (d != NULL)
		g_dir_close(d);
	g_ptr_array_unref(names);
	g_free(dropdir);
	g_free(dir);
	return st;
}

cr_status config_load_file(cr_context *ctx, const char *path, cr_error *err)
{
	cr_status st;

	g_free(ctx->config_name);
	ctx->config_name = g_strdup(path);
	st = load_one_file(ctx, path, err);
	if (st == CR_OK)
		st = load_dropins(ctx, path, err);
	return st;
}

cr_status config_load_string(cr_context *ctx, const char *text, const char *name, cr_error *err)
{
	config_t *cfg = new_config(ctx, name);

	g_free(ctx->config_name);
	ctx->config_name = g_strdup(name);
	if (config_read_string(cfg, text) != CONFIG_TRUE) {
		cr_status st = error_set(err, CR_ERR_CONFIG, "%s:%d: %s", name,
					    config_error_line(cfg), config_error_text(cfg));

		config_name_set(cfg, name);
		return st;
	}
	config_name_set(cfg, name);
	return read_root(ctx, cfg, err);
}

/* The built-in `auto` configuration: every installed environment resolver in
 * a fixed order, each `sufficient` (the first that applies wins; an error is
 * fatal), then one local task so a lone process still gets a TF_CONFIG. */
static const char *const auto_order[] = { "tfconfig", "slurm", "k8s", "gce", "tpu", "aws", NULL };

cr_status config_load_auto(cr_context *ctx, cr_error *err)
{
	GString *text = g_string_new("resolvers = (\n");
	cr_status st;

	for (const char *const *n = auto_order; *n != NULL; n++) {
		cr_plugin *plugin = NULL;

		/* Only resolvers: an accelerator may share the name (tpu.so). A
		 * file that is there but broken is reported, as it would be
		 * when named in a config. */
		st = loader_load(ctx, *n, CR_PLUGIN_RESOLVER, &plugin, err);
		if (st == CR_OK)
			g_string_append_printf(text, "  { plugin = \"%s\"; policy = \"sufficient\"; },\n",
					       *n);
		else if (st != CR_ERR_NOT_FOUND && st != CR_ERR_CONFIG)
			goto out;
	}
	g_string_append(text, "  { plugin = \"simple\"; name = \"local\"; policy = \"sufficient\";\n"
			      "    cluster = { worker = [ \"localhost:2222\" ]; };\n"
			      "    task_type = \"worker\"; task_id = 0; }\n);\n");
	st = config_load_string(ctx, text->str, "(built-in auto)", err);
out:
	g_string_free(text, TRUE);
	return st;
}
