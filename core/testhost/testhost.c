/* SPDX-License-Identifier: MIT */
/*
 * testhost.c - cr-testhost: one plugin in a real cr_context whose I/O seam
 * (testhost-io.c: environment, files, HTTP, clock, spawn) and log handler
 * are the testhost's. Loading, schema checks and runs go through the core's own
 * code, so messages are the host's. The scripts of expected exchanges are in
 * testhost-http.c (HTTP requests) and testhost-spawn.c (child processes);
 * verify here asks both.
 */
#include <ftw.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "testhost-private.h"

static const char *const level_names[] = { "error", "warning", "info", "debug" };

static void log_line_free(gpointer p)
{
	th_log_line *l = p;

	g_free(l->text);
	g_free(l);
}

static void capture_log(cr_log_level level, const char *source, const char *message, void *data)
{
	cr_testhost *th = data;
	th_log_line *l = g_new0(th_log_line, 1);

	l->level = level;
	l->text = source != NULL ? g_strdup_printf("%s: %s", source, message) : g_strdup(message);
	g_ptr_array_add(th->logs, l);
}

cr_testhost *cr_testhost_new(cr_error *err)
{
	GError *gerr = NULL;
	char *root = g_dir_make_tmp("cr-testhost-XXXXXX", &gerr);
	cr_testhost *th;
	cr_context *ctx;

	if (root == NULL) {
		error_set(err, CR_ERR_IO, "cr-testhost: cannot make a temporary directory: %s",
			  gerr->message);
		g_error_free(gerr);
		return NULL;
	}
	th = g_new0(cr_testhost, 1);
	th->ctx = ctx = cr_context_new(err);
	th->file_root = g_strdup(root);
	cr_context_set_log_handler(ctx, capture_log, th);
	cr_context_set_log_level(ctx, CR_LOG_DEBUG);
	th->private_root = root;
	th->own_root = true;
	th->task_id = -1;
	th->logs = g_ptr_array_new_with_free_func(log_line_free);
	th->log_text = g_string_new(NULL);
	th_script_init(th);
	th_spawn_init(th);
	th_io_init(th);
	return th;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	g_remove(path);
	return 0;
}

void cr_testhost_free(cr_testhost *th)
{
	if (th == NULL)
		return;
	cr_context_free(th->ctx);
	nftw(th->private_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	g_free(th->private_root);
	g_free(th->task_type);
	g_free(th->rpc_layer);
	g_free(th->out);
	g_ptr_array_unref(th->logs);
	g_string_free(th->log_text, TRUE);
	th_script_free(th);
	th_spawn_free(th);
	th_io_free(th);
	g_free(th->file_root);
	g_free(th->mismatch);
	g_free(th);
}

/* ---- loading ------------------------------------------------------------- */

cr_status cr_testhost_load(cr_testhost *th, const char *plugin_path, const char *config,
			   cr_error *err)
{
	cr_instance *inst = NULL;
	char *path;
	cr_status st;

	if (th == NULL || plugin_path == NULL || *plugin_path == '\0')
		return error_set(err, CR_ERR_INVALID_ARG, "cr_testhost_load: NULL argument");
	if (th->inst != NULL)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr-testhost: a plugin is loaded already (%s)",
				 th->inst->plugin->path);
	/* The core's own plan, loader and schema checks, with no config file
	 * and no automatic accelerator plugins: only the one loaded. */
	path = g_canonicalize_filename(plugin_path, NULL);
	st = context_load_single(th->ctx, path, config, CR_TESTHOST_CONFIG_NAME, &inst, err);
	g_free(path);
	if (st == CR_OK)
		th->inst = inst;
	return st;
}

/* ---- environment and files ----------------------------------------------- */

cr_status cr_testhost_setenv(cr_testhost *th, const char *name, const char *value, cr_error *err)
{
	if (th == NULL || name == NULL || *name == '\0' || strchr(name, '=') != NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr-testhost: invalid variable name '%s'",
				 name != NULL ? name : "(null)");
	g_hash_table_insert(th->env, g_strdup(name), g_strdup(value));
	return CR_OK;
}

void cr_testhost_inherit_env(cr_testhost *th, bool inherit)
{
	if (th != NULL)
		th->inherit_env = inherit;
}

/* Where @path of the plugin's view lives in the private root. */
static cr_status private_path(cr_testhost *th, const char *path, char **real, cr_error *err)
{
	char **parts;
	bool dotdot = false;

	*real = NULL;
	if (th == NULL || path == NULL || path[0] != '/')
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr-testhost: '%s': a path must be absolute",
				 path != NULL ? path : "(null)");
	if (!th->own_root)
		return error_set(
			err, CR_ERR_INVALID_ARG,
			"cr-testhost: %s: files go into the private root, but the root is %s", path,
			th->file_root != NULL ? th->file_root : "/");
	parts = g_strsplit(path, "/", -1);
	for (char **p = parts; *p != NULL; p++)
		dotdot = dotdot || strcmp(*p, "..") == 0;
	g_strfreev(parts);
	if (dotdot)
		return error_set(err, CR_ERR_INVALID_ARG, "cr-testhost: %s: '..' is not allowed",
				 path);
	*real = g_build_filename(th->private_root, path, NULL);
	return CR_OK;
}

static cr_status make_dirs(const char *real, const char *path, cr_error *err)
{
	if (g_mkdir_with_parents(real, 0700) != 0)
		return error_set(err, CR_ERR_IO, "cr-testhost: cannot make %s: %s", path,
				 g_strerror(errno));
	return CR_OK;
}

cr_status cr_testhost_add_file(cr_testhost *th, const char *path, const char *contents, size_t len,
			       cr_error *err)
{
	GError *gerr = NULL;
	char *real, *dir;
	cr_status st = private_path(th, path, &real, err);

	if (st != CR_OK)
		return st;
	if (contents == NULL)
		contents = "";
	dir = g_path_get_dirname(real);
	st = make_dirs(dir, path, err);
	g_free(dir);
	if (st == CR_OK &&
	    !g_file_set_contents(real, contents, len == (size_t)-1 ? -1 : (gssize)len, &gerr)) {
		st = error_set(err, CR_ERR_IO, "cr-testhost: cannot write %s: %s", path,
			       gerr->message);
		g_error_free(gerr);
	}
	g_free(real);
	return st;
}

cr_status cr_testhost_add_dir(cr_testhost *th, const char *path, cr_error *err)
{
	char *real;
	cr_status st = private_path(th, path, &real, err);

	if (st == CR_OK)
		st = make_dirs(real, path, err);
	g_free(real);
	return st;
}

cr_status cr_testhost_set_root(cr_testhost *th, const char *dir, cr_error *err)
{
	if (th == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_testhost_set_root: NULL testhost");
	if (dir != NULL && (!g_path_is_absolute(dir) || !g_file_test(dir, G_FILE_TEST_IS_DIR)))
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr-testhost: root '%s' is not an absolute directory", dir);
	g_free(th->file_root);
	th->own_root = dir == NULL;
	if (dir == NULL)
		th->file_root = g_strdup(th->private_root);
	else if (strcmp(dir, "/") == 0)
		th->file_root = NULL; /* the real file system */
	else
		th->file_root = g_strdup(dir);
	return CR_OK;
}

/* ---- runs ---------------------------------------------------------------- */

cr_status cr_testhost_set_task(cr_testhost *th, const char *task_type, int64_t task_id,
			       cr_error *err)
{
	cr_status st;

	if (th == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_testhost_set_task: NULL testhost");
	st = cr_context_set_task(th->ctx, task_type, task_id, err);
	if (st == CR_OK) {
		g_free(th->task_type);
		th->task_type = g_strdup(task_type);
		th->task_id = task_id;
	}
	return st;
}

cr_status cr_testhost_set_rpc_layer(cr_testhost *th, const char *rpc_layer, cr_error *err)
{
	if (th == NULL)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr_testhost_set_rpc_layer: NULL testhost");
	g_free(th->rpc_layer);
	th->rpc_layer = g_strdup(rpc_layer);
	return cr_context_set_rpc_layer(th->ctx, rpc_layer, err);
}

/* Start a run call of @kind: a plugin of that kind is loaded. */
static cr_status begin_call(cr_testhost *th, cr_plugin_kind kind, const char *call,
			    const char **out, cr_error *err)
{
	if (out != NULL)
		*out = NULL;
	if (err != NULL)
		err->message[0] = '\0';
	if (th == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_testhost_%s: NULL testhost", call);
	g_clear_pointer(&th->out, g_free);
	th->call_mismatch = false;
	if (th->inst == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr-testhost: %s: no plugin is loaded",
				 call);
	if (kind != 0 && th->inst->kind != kind)
		return error_set(err, CR_ERR_INVALID_ARG, "cr-testhost: %s: '%s' is a%s %s plugin",
				 call, th->inst->plugin->name,
				 th->inst->kind == CR_PLUGIN_ACCELERATOR ? "n" : "",
				 kind_name(th->inst->kind));
	return CR_OK;
}

/* End a run call: a script violation beats whatever the plugin made of it. */
static cr_status end_call(cr_testhost *th, cr_status st, char *text, const char **out,
			  cr_error *err)
{
	if (th->call_mismatch) {
		g_free(text);
		return error_set(err, CR_ERR_NETWORK, "%s", th->mismatch);
	}
	if (st != CR_OK) {
		g_free(text);
		return st;
	}
	th->out = text;
	if (out != NULL)
		*out = th->out;
	return CR_OK;
}

cr_status cr_testhost_probe(cr_testhost *th, cr_error *err)
{
	cr_status st = begin_call(th, 0, "probe", NULL, err);

	if (st == CR_OK)
		st = instance_probe(th->inst, err);
	return end_call(th, st, NULL, NULL, err);
}

/* Resolve as `cluster-resolver resolve` does; *res on CR_OK. */
static cr_status run_resolve(cr_testhost *th, cr_result **res, cr_error *err)
{
	cr_status st = cr_context_resolve(th->ctx, res, err);

	if (st == CR_ERR_NOT_FOUND && th->inst->declined) {
		st = CR_DECLINED;
		if (err != NULL)
			err->code = st;
	}
	return st;
}

cr_status cr_testhost_resolve(cr_testhost *th, const char *format, const char **out, cr_error *err)
{
	cr_result *res = NULL;
	char *text = NULL;
	cr_status st = begin_call(th, CR_PLUGIN_RESOLVER, "resolve", out, err);

	if (st != CR_OK)
		return st;
	st = run_resolve(th, &res, err);
	if (st == CR_OK)
		st = cr_result_format(res, format != NULL ? format : "json", NULL, &text, NULL,
				      err);
	cr_result_free(res);
	return end_call(th, st, text, out, err);
}

cr_status cr_testhost_watch(cr_testhost *th, int64_t timeout_ms, bool *changed, cr_error *err)
{
	const cr_resolver_ops *ops;
	cr_status st = begin_call(th, CR_PLUGIN_RESOLVER, "watch", NULL, err);

	if (changed != NULL)
		*changed = false;
	if (st != CR_OK)
		return st;
	ops = th->inst->plugin->desc->resolver;
	if (changed == NULL || timeout_ms < 0)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_testhost_watch: invalid argument");
	if (ops->struct_size < offsetof(cr_resolver_ops, watch) + sizeof(ops->watch) ||
	    ops->watch == NULL)
		return error_set(err, CR_ERR_UNSUPPORTED,
				 "cr-testhost: watch: '%s' has no watch op",
				 th->inst->plugin->name);
	if (!th->inst->created || th->inst->verdict != VERDICT_OK)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr-testhost: watch: the plugin has not resolved yet");
	/* A round no one cancels: the testhost's watch ends by the script
	 * (or the plugin's watch_stop), and waits on the testhost's clock. */
	instance_watch_begin(th->inst, false);
	st = ops->watch(th->inst->state, &th->inst->pctx, th->clock_ms + timeout_ms, changed, err);
	th->inst->watching = false;
	if (st != CR_OK)
		*changed = false;
	return end_call(th, st, NULL, NULL, err);
}

void cr_testhost_set_watched(cr_testhost *th, bool watched)
{
	if (th != NULL && th->ctx != NULL)
		th->ctx->watched = watched;
}

void cr_testhost_set_stream_piece(cr_testhost *th, size_t bytes)
{
	if (th != NULL)
		th->stream_piece = bytes;
}

cr_status cr_testhost_master(cr_testhost *th, const char **out, cr_error *err)
{
	cr_result *res = NULL;
	char *url = NULL, *text = NULL;
	bool both;
	cr_status st = begin_call(th, CR_PLUGIN_RESOLVER, "master", out, err);

	if (st != CR_OK)
		return st;
	st = run_resolve(th, &res, err);
	/* As `cluster-resolver master`: a task given (a lone part completed
	 * from this process's identity) is that task, which must exist; with
	 * none, an unknown task gives TensorFlow's "" with a warning. */
	both = st == CR_OK && (th->task_type != NULL || th->task_id >= 0) &&
	       cr_result_task_type(res) != NULL && cr_result_task_id(res) >= 0;
	if (st == CR_OK)
		st = cr_result_master(res, both ? cr_result_task_type(res) : NULL,
				      both ? cr_result_task_id(res) : -1, th->rpc_layer, &url, err);
	if (st == CR_ERR_NOT_FOUND && url != NULL) {
		ctx_log(th->ctx, CR_LOG_WARNING, NULL, "%s",
			err != NULL ? err->message : "no master");
		if (err != NULL)
			*err = (cr_error)CR_ERROR_INIT;
		st = CR_OK;
	}
	if (st == CR_OK)
		text = g_strdup_printf("%s\n", url);
	g_free(url);
	cr_result_free(res);
	return end_call(th, st, text, out, err);
}

cr_status cr_testhost_enumerate(cr_testhost *th, const char **out, cr_error *err)
{
	cr_result *res;
	char *json = NULL, *text = NULL;
	cr_status st = begin_call(th, CR_PLUGIN_ACCELERATOR, "enumerate", out, err);

	if (st != CR_OK)
		return st;
	res = result_new();
	st = accel_layer_run(th->ctx, NULL, res, err);
	if (st == CR_OK && th->inst->declined)
		st = error_set(err, CR_DECLINED, "%s declined", th->inst->label);
	if (st == CR_OK)
		st = cr_result_accelerators_json(res, NULL, -1, true, &json, err);
	if (st == CR_OK)
		text = g_strdup_printf("%s\n", json);
	g_free(json);
	cr_result_free(res);
	return end_call(th, st, text, out, err);
}

/* ---- the scripts --------------------------------------------------------- */

/* The first violation of either script; else the HTTP script's requests
 * not made, then the spawn script's. */
cr_status cr_testhost_verify(cr_testhost *th, cr_error *err)
{
	cr_status st;

	if (th == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_testhost_verify: NULL testhost");
	if (th->mismatch != NULL)
		return error_set(err, CR_ERR_NETWORK, "%s", th->mismatch);
	st = th_http_verify(th, err);
	if (st == CR_OK)
		st = th_spawn_verify(th, err);
	return st;
}

/* ---- logs ---------------------------------------------------------------- */

void cr_testhost_set_log_level(cr_testhost *th, cr_log_level level)
{
	if (th != NULL)
		cr_context_set_log_level(th->ctx, level);
}

size_t cr_testhost_log_count(const cr_testhost *th)
{
	return th != NULL ? th->logs->len : 0;
}

const char *cr_testhost_log_line(const cr_testhost *th, size_t i, cr_log_level *level)
{
	const th_log_line *l;

	if (th == NULL || i >= th->logs->len)
		return NULL;
	l = g_ptr_array_index(th->logs, i);
	if (level != NULL)
		*level = l->level;
	return l->text;
}

const char *cr_testhost_logs(cr_testhost *th)
{
	if (th == NULL)
		return "";
	g_string_truncate(th->log_text, 0);
	for (guint i = 0; i < th->logs->len; i++) {
		const th_log_line *l = g_ptr_array_index(th->logs, i);

		g_string_append_printf(th->log_text, "%s: %s\n", level_names[l->level], l->text);
	}
	return th->log_text->str;
}

void cr_testhost_clear_logs(cr_testhost *th)
{
	if (th != NULL)
		g_ptr_array_set_size(th->logs, 0);
}
