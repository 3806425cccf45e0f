/* SPDX-License-Identifier: MIT */
/*
 * config.c - the first stage of the pipeline, and the one file that drives
 * the config reader: the libconfig file, its conf.d drop-ins, a config
 * string or the built-in `auto` configuration, read into a plain plan
 * (cr_plan): resolver and accelerator entries with their groups, names,
 * policies and FILE:LINE, the plugin path and the top-level overrides. It
 * loads no plugin; the loader checks each entry against its plugin's
 * schema. For the file, then each drop-in in sorted order, the steps are:
 *
 *   1. its text, checked (config-text.c: the file, its tokens, its
 *      @include targets), each file read listed in the plan;
 *   2. libconfig reads it into a config the plan keeps, named after the
 *      file (config-where.c);
 *   3. its top-level keys read into the plan (config-keys.c).
 *
 * A string takes the same steps from its text; a group (cr-testhost) is
 * read by libconfig before its tokens are checked, and its keys are one
 * entry (config_read_entry). The helpers call downward only: config-text.c
 * and config-keys.c never call this file or each other; config-where.c,
 * under config-keys.c, calls none.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "host/host-private.h"

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
	plan->resolvers = g_ptr_array_new_with_free_func(plan_entry_free);
	plan->accelerators = g_ptr_array_new_with_free_func(plan_entry_free);
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
	char *dir = g_path_get_dirname(path), *text = NULL;
	cr_status st;

	g_ptr_array_add(plan->files, g_strdup(path));
	st = config_read_checked(path, dir, plan->files, &text, err);
	if (st != CR_OK) {
		g_free(dir);
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
	return config_read_root(plan, cfg, err);
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
	return config_read_root(plan, cfg, err);
}

/* The built-in `auto` configuration: every installed environment resolver in
 * a fixed order, each `sufficient` (the first that applies wins; an error is
 * fatal), then one local task so a lone process still gets a TF_CONFIG
 * (unless a launcher says it is one of several: no silent world of one).
 * The launchers come before the schedulers: the innermost one started this
 * process (docs/launchers.md). */
const char *const config_auto_order[] = { "tfconfig", "torch-env", "mpi",  "slurm",     "pbs",
					  "sge",      "lsf",       "flux", "vertex",    "volcano",
					  "k8s",      "gce",       "tpu",  "sagemaker", "aws-batch",
					  "skypilot", "aws",       NULL };

cr_status config_parse_auto(cr_plan *plan, const char *const *installed, cr_error *err)
{
	GString *text = g_string_new("resolvers = (\n");
	cr_status st;

	for (const char *const *n = installed; *n != NULL; n++)
		g_string_append_printf(text, "  { plugin = \"%s\"; policy = \"sufficient\"; },\n",
				       *n);
	g_string_append(
		text,
		"  { plugin = \"simple\"; name = \"local\"; policy = \"sufficient\";\n"
		"    cluster = { worker = [ \"localhost:2222\" ]; };\n"
		"    task_type = \"worker\"; task_id = 0; refuse_if_launched = true; }\n);\n");
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
	st = config_read_entry(g, 0, out, err);
	if (st == CR_OK) { /* the plugin is the file given, not a `plugin` key */
		g_free((*out)->plugin);
		(*out)->plugin = g_strdup(plugin_path);
		(*out)->plugin_at = NULL;
	}
	return st;
}
