/* SPDX-License-Identifier: MIT */
/*
 * loader.c - the second stage of the pipeline: finding, checking and
 * loading the plugin file of each plan entry (its group is then checked
 * against the plugin's schema, loader-schema.c).
 *
 * Only regular files are loaded, never through a symlink, never from the
 * current directory, and never when the file or its directory is writable by
 * group or others. Each refusal is one line naming the file and the reason.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "host/host-private.h"

/* The end of the ABI 1.0 part of each struct a plugin hands us. */
#define DESC_MIN_SIZE (offsetof(cr_plugin_desc, flags) + sizeof(uint64_t))
#define RESOLVER_OPS_MIN_SIZE (offsetof(cr_resolver_ops, master) + sizeof(void *))
#define ACCEL_OPS_MIN_SIZE (offsetof(cr_accel_ops, enumerate) + sizeof(void *))
#define OPTION_MIN_SIZE (offsetof(cr_option, help) + sizeof(const char *))
/* Bounds on a plugin's option table, so that a corrupt descriptor is refused
 * instead of read far past its end: an entry may grow in later ABI minors but
 * never to kilobytes, and no backend has hundreds of options. */
#define OPTION_MAX_SIZE 4096u
#define OPTIONS_MAX 256u

/* Append the absolute entries of the ':'-list @list to @out; relative ones
 * (and "") would mean the current directory: they are left out and, when
 * @ignored is given, named there ("'a', 'b'"). */
static void add_dirs(GPtrArray *out, const char *list, GString *ignored)
{
	gchar **parts;

	if (list == NULL || *list == '\0')
		return;
	parts = g_strsplit(list, ":", -1);
	for (gchar **p = parts; *p != NULL; p++) {
		if (g_path_is_absolute(*p))
			g_ptr_array_add(out, g_strdup(*p));
		else if (ignored != NULL && **p != '\0')
			g_string_append_printf(ignored, "%s'%s'", ignored->len ? ", " : "", *p);
	}
	g_strfreev(parts);
}

void loader_init(loader *l)
{
	l->added_dirs = g_ptr_array_new_with_free_func(g_free);
	l->plan_dirs = NULL;
	l->plugins = g_ptr_array_new_with_free_func((GDestroyNotify)loader_plugin_free);
}

void loader_clear(loader *l)
{
	g_ptr_array_unref(l->plugins);
	g_ptr_array_unref(l->added_dirs);
	l->plugins = l->added_dirs = l->plan_dirs = NULL;
}

static GPtrArray *search_path(const loader *l, GString *ignored)
{
	GPtrArray *dirs = g_ptr_array_new_with_free_func(g_free);

	for (guint i = 0; i < l->added_dirs->len; i++)
		g_ptr_array_add(dirs, g_strdup(g_ptr_array_index(l->added_dirs, i)));
	for (guint i = 0; l->plan_dirs != NULL && i < l->plan_dirs->len; i++)
		g_ptr_array_add(dirs, g_strdup(g_ptr_array_index(l->plan_dirs, i)));
	add_dirs(dirs, g_getenv("CLUSTER_RESOLVER_PLUGIN_PATH"), ignored);
	g_ptr_array_add(dirs, g_strdup(CR_BUILTIN_PLUGINDIR "/resolvers"));
	g_ptr_array_add(dirs, g_strdup(CR_BUILTIN_PLUGINDIR "/accelerators"));
	return dirs;
}

GPtrArray *loader_search_path(const loader *l)
{
	return search_path(l, NULL);
}

bool loader_valid_short_name(const char *name)
{
	if (*name == '\0')
		return false;
	for (const char *p = name; *p != '\0'; p++)
		if (!g_ascii_isalnum(*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

static cr_status check_ops(const cr_plugin_desc *d, const char *path, cr_error *err)
{
	const char *missing = NULL;

	if (d->kind == CR_PLUGIN_RESOLVER) {
		const cr_resolver_ops *o = d->resolver;

		if (o == NULL)
			missing = "resolver ops table";
		else if (o->struct_size < RESOLVER_OPS_MIN_SIZE)
			return error_set(err, CR_ERR_ABI,
					 "plugin '%s' (%s): resolver ops struct_size %zu is "
					 "smaller than ABI 1.0's %zu",
					 d->name, path, o->struct_size,
					 (size_t)RESOLVER_OPS_MIN_SIZE);
		else if (o->create == NULL)
			missing = "op 'create'";
		else if (o->destroy == NULL)
			missing = "op 'destroy'";
		else if (o->resolve == NULL)
			missing = "op 'resolve'";
	} else if (d->kind == CR_PLUGIN_ACCELERATOR) {
		const cr_accel_ops *o = d->accelerator;

		if (o == NULL)
			missing = "accelerator ops table";
		else if (o->struct_size < ACCEL_OPS_MIN_SIZE)
			return error_set(err, CR_ERR_ABI,
					 "plugin '%s' (%s): accelerator ops struct_size %zu is "
					 "smaller than ABI 1.0's %zu",
					 d->name, path, o->struct_size, (size_t)ACCEL_OPS_MIN_SIZE);
		else if (o->create == NULL)
			missing = "op 'create'";
		else if (o->destroy == NULL)
			missing = "op 'destroy'";
		else if (o->enumerate == NULL)
			missing = "op 'enumerate'";
	} else {
		return error_set(err, CR_ERR_PLUGIN, "plugin '%s' (%s): unknown kind %d", d->name,
				 path, (int)d->kind);
	}
	if (missing != NULL)
		return error_set(err, CR_ERR_PLUGIN, "plugin '%s' (%s): required %s is NULL",
				 d->name, path, missing);
	return CR_OK;
}

static cr_status check_desc(const cr_plugin_desc *d, const char *path, const char *expect_name,
			    cr_error *err)
{
	if (d == NULL)
		return error_set(err, CR_ERR_PLUGIN, "plugin %s returned no descriptor", path);
	if (d->struct_size < DESC_MIN_SIZE)
		return error_set(
			err, CR_ERR_ABI,
			"plugin %s: descriptor struct_size %zu is smaller than ABI 1.0's %zu", path,
			d->struct_size, (size_t)DESC_MIN_SIZE);
	if (d->name == NULL || !loader_valid_short_name(d->name))
		return error_set(err, CR_ERR_PLUGIN, "plugin %s: invalid plugin name", path);
	if (d->abi_major != CR_ABI_MAJOR)
		return error_set(err, CR_ERR_ABI,
				 "plugin '%s' (%s) was built for ABI %u.%u; this host has ABI "
				 "%d.%d (major differs)",
				 d->name, path, d->abi_major, d->abi_minor, CR_ABI_MAJOR,
				 CR_ABI_MINOR);
	if (d->abi_minor > CR_ABI_MINOR)
		return error_set(err, CR_ERR_ABI,
				 "plugin '%s' (%s) needs ABI %u.%u; this host has only ABI %d.%d",
				 d->name, path, d->abi_major, d->abi_minor, CR_ABI_MAJOR,
				 CR_ABI_MINOR);
	if (expect_name != NULL && strcmp(d->name, expect_name) != 0)
		return error_set(err, CR_ERR_PLUGIN, "plugin %s calls itself '%s', not '%s'", path,
				 d->name, expect_name);
	if (d->options != NULL && d->option_size < OPTION_MIN_SIZE)
		return error_set(err, CR_ERR_ABI,
				 "plugin '%s' (%s): option_size %zu is smaller than ABI 1.0's %zu",
				 d->name, path, d->option_size, (size_t)OPTION_MIN_SIZE);
	if (d->options != NULL && d->option_size > OPTION_MAX_SIZE)
		return error_set(err, CR_ERR_ABI,
				 "plugin '%s' (%s): option_size %zu is larger than %u bytes",
				 d->name, path, d->option_size, OPTION_MAX_SIZE);
	for (size_t i = 0; d->options != NULL && schema_option_at(d, i)->name != NULL; i++)
		if (i + 1 >= OPTIONS_MAX)
			return error_set(err, CR_ERR_PLUGIN,
					 "plugin '%s' (%s): no end to its option table within %u "
					 "entries",
					 d->name, path, OPTIONS_MAX);
	return check_ops(d, path, err);
}

void loader_plugin_free(cr_plugin *plugin)
{
	if (plugin == NULL)
		return;
	/* CLUSTER_RESOLVER_NO_DLCLOSE=1 (cluster-resolver(1)) keeps a plugin's
	 * symbols for valgrind's leak stacks. */
	if (plugin->handle != NULL && g_strcmp0(g_getenv("CLUSTER_RESOLVER_NO_DLCLOSE"), "1") != 0)
		dlclose(plugin->handle);
	g_free(plugin->path);
	g_free(plugin->name);
	g_free(plugin->declined);
	g_strfreev(plugin->applies_env);
	g_strfreev(plugin->applies_files);
	g_free(plugin);
}

cr_status loader_open_file(const char *path, const char *expect_name, cr_plugin **out,
			   cr_error *err)
{
	cr_plugin_entry_fn entry;
	const cr_plugin_desc *desc = NULL;
	cr_error perr = CR_ERROR_INIT;
	void *handle;
	cr_status st;

	*out = NULL;
	st = loader_check_trusted("plugin", path, err);
	if (st != CR_OK)
		return st;
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (handle == NULL)
		return error_set(err, CR_ERR_PLUGIN, "cannot load plugin %s: %s", path, dlerror());
	*(void **)(&entry) = dlsym(handle, CR_PLUGIN_ENTRY_SYMBOL);
	if (entry == NULL) {
		dlclose(handle);
		return error_set(err, CR_ERR_PLUGIN,
				 "plugin %s has no '%s' symbol (not a cluster-resolver plugin)",
				 path, CR_PLUGIN_ENTRY_SYMBOL);
	}
	st = entry(host_api(), CR_ABI_MAJOR, CR_ABI_MINOR, &desc, &perr);
	if (st != CR_OK) {
		dlclose(handle);
		return error_set(err, st == CR_ERR_ABI ? CR_ERR_ABI : CR_ERR_PLUGIN,
				 "plugin %s refused to load: %s", path,
				 perr.message[0] != '\0' ? perr.message : cr_strerror(st));
	}
	st = check_desc(desc, path, expect_name, err);
	if (st != CR_OK) {
		dlclose(handle);
		return st;
	}
	*out = g_new0(cr_plugin, 1);
	(*out)->path = g_strdup(path);
	(*out)->name = g_strdup(desc->name);
	(*out)->handle = handle;
	(*out)->desc = desc;
	return CR_OK;
}

/* Load the file at @path once per context: instances share a plugin. */
static cr_status load_path(loader *l, const char *path, const char *expect, cr_plugin **out,
			   cr_error *err)
{
	cr_status st;

	for (guint i = 0; i < l->plugins->len; i++) {
		cr_plugin *p = g_ptr_array_index(l->plugins, i);

		/* A manifest's stub stands for one entry only: an entry that
		 * sets options loads the real file. */
		if (p->declined == NULL && strcmp(p->path, path) == 0) {
			*out = p;
			return CR_OK;
		}
	}
	st = loader_open_file(path, expect, out, err);
	if (st == CR_OK)
		g_ptr_array_add(l->plugins, *out);
	return st;
}

static cr_status kind_mismatch(const cr_plugin *p, cr_plugin_kind kind, cr_error *err)
{
	return error_set(err, CR_ERR_CONFIG, "plugin '%s' (%s) is a%s %s plugin, not a%s %s plugin",
			 p->name, p->path, p->desc->kind == CR_PLUGIN_ACCELERATOR ? "n" : "",
			 kind_name(p->desc->kind), kind == CR_PLUGIN_ACCELERATOR ? "n" : "",
			 kind_name(kind));
}

static cr_status not_found(const loader *l, const char *name, cr_plugin_kind kind, cr_error *err)
{
	GString *ignored = g_string_new(NULL);
	GPtrArray *dirs = search_path(l, ignored);
	char *list;
	cr_status st;

	/* Relative entries are dropped on purpose; say so, since that is the
	 * usual mistake. */
	g_ptr_array_add(dirs, NULL);
	list = g_strjoinv(":", (gchar **)dirs->pdata);
	st = error_set(err, CR_ERR_NOT_FOUND, "%s plugin '%s' not found (searched %s%s%s)",
		       kind_name(kind), name, list,
		       ignored->len ? "; relative CLUSTER_RESOLVER_PLUGIN_PATH entries are "
				      "ignored: "
				    : "",
		       ignored->str);
	g_string_free(ignored, TRUE);
	g_free(list);
	g_ptr_array_unref(dirs);
	return st;
}

/* A short name may exist as a resolver and as an accelerator (tpu.so in
 * resolvers/ and accelerators/): take the first file on the search path of
 * the wanted kind. A file that fails to load is reported, not skipped. */
static cr_status load_short(loader *l, const char *name, cr_plugin_kind kind, cr_plugin **out,
			    cr_error *err)
{
	GPtrArray *dirs = loader_search_path(l);
	char *file = g_strdup_printf("%s.so", name);
	cr_plugin *other = NULL;
	cr_status st = CR_ERR_NOT_FOUND;

	for (guint i = 0; i < dirs->len && *out == NULL; i++) {
		char *path = g_build_filename(g_ptr_array_index(dirs, i), file, NULL);
		struct stat sb;
		cr_plugin *p = NULL;

		if (lstat(path, &sb) == 0) {
			st = load_path(l, path, name, &p, err);
			if (st != CR_OK) {
				g_free(path);
				break;
			}
			if (p->desc->kind == kind)
				*out = p;
			else if (other == NULL)
				other = p;
		}
		g_free(path);
	}
	g_free(file);
	g_ptr_array_unref(dirs);
	if (*out != NULL)
		return CR_OK;
	if (st != CR_OK && st != CR_ERR_NOT_FOUND)
		return st;
	if (other != NULL)
		return kind_mismatch(other, kind, err);
	return not_found(l, name, kind, err);
}

cr_status loader_load(loader *l, const char *name, cr_plugin_kind kind, cr_plugin **out,
		      cr_error *err)
{
	cr_plugin *plugin = NULL;
	cr_status st;

	*out = NULL;
	if (loader_valid_short_name(name))
		return load_short(l, name, kind, out, err);
	if (!g_path_is_absolute(name))
		return error_set(
			err, CR_ERR_CONFIG,
			"plugin \"%s\" must be a short name ([A-Za-z0-9_-]) or an absolute path",
			name);
	st = load_path(l, name, NULL, &plugin, err);
	if (st != CR_OK)
		return st;
	if (kind != 0 && plugin->desc->kind != kind)
		return kind_mismatch(plugin, kind, err);
	*out = plugin;
	return CR_OK;
}

cr_status loader_load_entry(loader *l, plan_entry *e, cr_plugin **out, cr_error *err)
{
	cr_plugin *plugin = NULL;
	char *label;
	cr_status st;

	*out = NULL;
	st = loader_load(l, e->plugin, e->kind, &plugin, err);
	if (st != CR_OK) {
		if (e->plugin_at != NULL)
			error_prefix(err, "%s:%d: ", AT(e->plugin_at));
		return st;
	}
	if (e->kind == 0)
		e->kind = plugin->desc->kind;
	if (e->bad_name != NULL)
		return error_set(err, CR_ERR_CONFIG, "%s:%d: %s: name must be a string",
				 AT(e->bad_name), kind_name(e->kind));
	label = g_strdup_printf("%s '%s'", kind_name(e->kind),
				e->name != NULL ? e->name : plugin->name);
	st = schema_check_group(plugin->desc, e->group, label, err);
	if (st == CR_OK)
		st = schema_watch_interval(plugin->desc, e->group, label, &e->watch_interval_ms,
					   err);
	g_free(label);
	if (st == CR_OK)
		*out = plugin;
	return st;
}

cr_status loader_installed(loader *l, const char *const *names, cr_plugin_kind kind,
			   GPtrArray **out, cr_error *err)
{
	*out = g_ptr_array_new();
	for (const char *const *n = names; *n != NULL; n++) {
		cr_plugin *plugin = NULL;
		/* Not installed, or only a plugin of the other kind (tpu.so is
		 * both): skip it. A file that is there but broken is reported,
		 * as it would be when named in a config. */
		cr_status st = loader_load(l, *n, kind, &plugin, err);

		if (st == CR_OK)
			g_ptr_array_add(*out, (gpointer)*n);
		else if (st != CR_ERR_NOT_FOUND && st != CR_ERR_CONFIG) {
			g_ptr_array_unref(*out);
			*out = NULL;
			return st;
		}
	}
	g_ptr_array_add(*out, NULL);
	return CR_OK;
}
