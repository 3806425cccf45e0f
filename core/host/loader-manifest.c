/* SPDX-License-Identifier: MIT */
/*
 * loader-manifest.c - a plugin's manifest: NAME.applies beside NAME.so,
 * the variables (and files) whose presence the plugin needs before it can
 * apply. Where none of them is present, the host never dlopens the plugin:
 * it stands in a built-in stub that declines with the manifest's reason,
 * so `explain` lists the resolver as before and an absent scheduler costs a
 * getenv, not a dlopen (cluster-resolver-plugin(7), "Manifests").
 *
 * A plugin without a manifest (a third-party one, any ABI) is loaded as
 * always; so is one whose group sets an option of its own (the options are
 * checked against its schema, which only the loaded plugin has), one named
 * by path, and one whose manifest is unreadable, untrusted or malformed:
 * the manifest can only save a load, never change an answer.
 */
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "host/host-private.h"
#include "host/io.h"

#define MANIFEST_GROUP "cluster-resolver manifest"
#define MANIFEST_MAX 4096

static cr_status stub_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	(void)ctx;
	(void)config;
	(void)err;
	*state = NULL;
	return CR_OK;
}

static void stub_destroy(void *state)
{
	(void)state;
}

static cr_status stub_probe(void *state, cr_plugin_ctx *pctx, cr_error *err)
{
	(void)state;
	return error_set(err, CR_DECLINED, "%s", pctx->inst->plugin->declined);
}

static cr_status stub_resolve(void *state, cr_plugin_ctx *pctx, cr_result_builder *b, cr_error *err)
{
	(void)b;
	return stub_probe(state, pctx, err);
}

static const cr_resolver_ops stub_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = stub_create,
	.destroy = stub_destroy,
	.probe = stub_probe,
	.resolve = stub_resolve,
};

static cr_status stub_enumerate(void *state, cr_plugin_ctx *pctx, cr_accel_list *list,
				cr_error *err)
{
	(void)list;
	return stub_probe(state, pctx, err);
}

static const cr_accel_ops stub_accel_ops = {
	.struct_size = sizeof(cr_accel_ops),
	.create = stub_create,
	.destroy = stub_destroy,
	.probe = stub_probe,
	.enumerate = stub_enumerate,
};

static const cr_option stub_options[] = { CR_OPTIONS_END };

#define STUB_DESC(k, field, ops)                                                                   \
	{                                                                                          \
		.struct_size = sizeof(cr_plugin_desc), .abi_major = CR_ABI_MAJOR,                  \
		.abi_minor = CR_ABI_MINOR, .kind = (k), .name = "(manifest)",                      \
		.version = "(not loaded: its manifest says it does not apply here)",               \
		.description = "a plugin its manifest kept unloaded", .options = stub_options,     \
		.option_size = sizeof(cr_option), .field = (ops),                                  \
		.watch_interval_s = CR_WATCH_STATIC,                                               \
	}

static const cr_plugin_desc stub_resolver = STUB_DESC(CR_PLUGIN_RESOLVER, resolver, &stub_ops);
static const cr_plugin_desc stub_accelerator =
	STUB_DESC(CR_PLUGIN_ACCELERATOR, accelerator, &stub_accel_ops);

/* Whether @g sets a key of the plugin's own (not plugin, name, policy,
 * watch_interval). */
static bool group_has_options(const config_setting_t *g)
{
	for (int i = 0; g != NULL && i < config_setting_length(g); i++) {
		const char *key = config_setting_name(config_setting_get_elem(g, (unsigned)i));

		if (key != NULL && !schema_is_host_key(key))
			return true;
	}
	return false;
}

/* A manifest, read: four keys of one group, `key=value` lines, `#`
 * comments. Read by hand, not with GKeyFile: GKeyFile cost 18,000
 * instructions for a five-line file (its locale and comment bookkeeping),
 * a third of the dlopen the manifest is there to save (bench/startup.sh). */
typedef struct manifest {
	char *kind;     /* "resolver" or "accelerator" */
	char **env;     /* the variables, NULL-terminated */
	char **files;   /* the files, NULL-terminated */
	char *declined; /* the reason; NULL: the manifest only says the kind */
} manifest;

static void manifest_free(manifest *m)
{
	if (m == NULL)
		return;
	g_free(m->kind);
	g_strfreev(m->env);
	g_strfreev(m->files);
	g_free(m->declined);
	g_free(m);
}

static char **manifest_list(const char *value)
{
	char **list = g_strsplit(value, ";", -1);
	size_t n = 0;

	for (size_t i = 0; list[i] != NULL; i++) {
		g_strstrip(list[i]);
		if (list[i][0] != '\0')
			list[n++] = list[i];
		else
			g_free(list[i]);
	}
	list[n] = NULL;
	return list;
}

/* @text as a manifest; NULL when it is not one (no group line, a line that
 * is neither a comment nor key=value, no valid kind). */
static manifest *manifest_parse(char *text)
{
	manifest *m = g_new0(manifest, 1);
	bool group = false;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq;

		g_strstrip(line);
		if (*line == '\0' || *line == '#')
			continue;
		if (*line == '[') {
			group = strcmp(line, "[" MANIFEST_GROUP "]") == 0;
			continue;
		}
		if ((eq = strchr(line, '=')) == NULL) {
			manifest_free(m);
			return NULL;
		}
		*eq = '\0';
		g_strstrip(line);
		if (!group)
			continue;
		if (strcmp(line, "kind") == 0) {
			g_free(m->kind);
			m->kind = g_strstrip(g_strdup(eq + 1));
		} else if (strcmp(line, "env") == 0) {
			g_strfreev(m->env);
			m->env = manifest_list(eq + 1);
		} else if (strcmp(line, "files") == 0) {
			g_strfreev(m->files);
			m->files = manifest_list(eq + 1);
		} else if (strcmp(line, "declined") == 0) {
			g_free(m->declined);
			m->declined = g_strstrip(g_strdup(eq + 1));
		}
	}
	if (m->declined != NULL && m->declined[0] == '\0')
		g_clear_pointer(&m->declined, g_free);
	if (g_strcmp0(m->kind, "resolver") != 0 && g_strcmp0(m->kind, "accelerator") != 0) {
		manifest_free(m);
		return NULL;
	}
	return m;
}

/* Whether file @path of a manifest exists ("~/" is $HOME's). */
static bool manifest_file_exists(cr_context *ctx, const char *path)
{
	const char *home = ctx_getenv(ctx, "HOME");
	char *full;
	bool found;

	if (!g_str_has_prefix(path, "~/"))
		return *path != '\0' && access(path, F_OK) == 0;
	if (home == NULL || *home == '\0')
		return false;
	full = g_build_filename(home, path + 2, NULL);
	found = access(full, F_OK) == 0;
	g_free(full);
	return found;
}

/* Whether the plugin may apply: its manifest gives no reason to decline
 * (it only says the kind), or something it names is present: a variable
 * set (even empty: the plugin judges its value), or a file that exists.
 * Files are looked at only in the real world; behind a test host's seam a
 * manifest with files counts as present. */
static bool manifest_lists_present(char **env, char **files, cr_context *ctx)
{
	void *data;

	for (char **e = env; e != NULL && *e != NULL; e++)
		if (ctx_getenv(ctx, *e) != NULL)
			return true;
	if (files != NULL && files[0] != NULL && ctx_io(ctx, &data) != io_real())
		return true;
	for (char **f = files; f != NULL && *f != NULL; f++)
		if (manifest_file_exists(ctx, *f))
			return true;
	return false;
}

static bool manifest_present(const manifest *m, cr_context *ctx)
{
	return m->declined == NULL || manifest_lists_present(m->env, m->files, ctx);
}

bool loader_manifest_applies(const cr_plugin *p, cr_context *ctx)
{
	return p->declined == NULL || manifest_lists_present(p->applies_env, p->applies_files, ctx);
}

/* The manifest beside @so; NULL when there is none, or it is not one a
 * host may trust (owned by root or us, not writable by others) and read.
 * A manifest without a `declined` reason only says which kind the file is
 * (tpu.so is both). */
static manifest *manifest_read(const char *so)
{
	char *path = g_strdup_printf("%.*s.applies", (int)(strlen(so) - 3), so);
	manifest *m = NULL;
	char *text = NULL;
	size_t len = 0;
	cr_error err = CR_ERROR_INIT;

	int errnum = 0;

	/* The host's one checked reader: a FIFO or a device is refused. */
	if (access(path, F_OK) == 0 &&
	    loader_check_trusted("plugin manifest", path, &err) == CR_OK &&
	    file_read_checked(path, MANIFEST_MAX, &text, &len, &errnum) == FILE_READ_OK &&
	    strlen(text) == len)
		m = manifest_parse(text);
	g_free(text);
	g_free(path);
	return m;
}

/* The first NAME.so of @kind on the search path, as the loader would take
 * it, and its manifest in *@m; NULL when that file has no manifest (a file
 * without one is of a kind only loading tells: load it). */
static char *find_so_of_kind(const loader *l, const char *name, cr_plugin_kind kind, manifest **m)
{
	GPtrArray *dirs = loader_search_path(l);
	char *file = g_strdup_printf("%s.so", name);
	char *found = NULL;

	*m = NULL;
	for (guint i = 0; i < dirs->len; i++) {
		char *path = g_build_filename(g_ptr_array_index(dirs, i), file, NULL);
		manifest *mf;

		if (access(path, F_OK) != 0) {
			g_free(path);
			continue;
		}
		mf = manifest_read(path);
		if (mf != NULL && strcmp(mf->kind, kind_name(kind)) == 0) {
			found = path;
			*m = mf;
			break;
		}
		g_free(path);
		if (mf == NULL)
			break;
		manifest_free(mf); /* the other kind: look further */
	}
	g_free(file);
	g_ptr_array_unref(dirs);
	return found;
}

cr_status loader_manifest_stub_named(loader *l, const char *name, cr_plugin_kind kind,
				     cr_context *ctx, cr_plugin **out)
{
	manifest *m = NULL;
	char *so;
	cr_plugin *p;

	*out = NULL;
	if (!loader_valid_short_name(name))
		return CR_OK;
	so = find_so_of_kind(l, name, kind, &m);
	if (m == NULL || manifest_present(m, ctx)) {
		manifest_free(m);
		g_free(so);
		return CR_OK;
	}
	p = g_new0(cr_plugin, 1);
	p->path = so;
	p->name = g_strdup(name);
	p->desc = kind == CR_PLUGIN_RESOLVER ? &stub_resolver : &stub_accelerator;
	p->declined = g_steal_pointer(&m->declined);
	p->applies_env = g_steal_pointer(&m->env);
	p->applies_files = g_steal_pointer(&m->files);
	manifest_free(m);
	g_ptr_array_add(l->plugins, p);
	*out = p;
	return CR_OK;
}

cr_status loader_manifest_stub(loader *l, plan_entry *e, cr_context *ctx, cr_plugin **out,
			       cr_error *err)
{
	*out = NULL;
	if ((e->kind != CR_PLUGIN_RESOLVER && e->kind != CR_PLUGIN_ACCELERATOR) ||
	    e->bad_name != NULL || group_has_options(e->group))
		return CR_OK;
	loader_manifest_stub_named(l, e->plugin, e->kind, ctx, out);
	if (*out == NULL)
		return CR_OK;
	return schema_watch_interval((*out)->desc, e->group, e->name != NULL ? e->name : e->plugin,
				     &e->watch_interval_ms, err);
}
