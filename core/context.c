/* SPDX-License-Identifier: MIT */
/*
 * context.c - the application's handle: configuration, plugin instances,
 * identity overrides, and the resolve pipeline (resolvers with their
 * policies -> union -> accelerator layer).
 */
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "pipeline-private.h"

static void stderr_log(cr_log_level level, const char *source, const char *message, void *data)
{
	static const char *const names[] = { "error: ", "warning: ", "", "" };

	(void)data;
	fprintf(stderr, "cluster-resolver: %s%s%s%s\n", names[level], source != NULL ? source : "",
		source != NULL ? ": " : "", message);
}

cr_context *cr_context_new(cr_error *err)
{
	cr_context *ctx = g_new0(cr_context, 1);

	(void)err;
	ctx->log_fn = stderr_log;
	ctx->log_level = CR_LOG_WARNING;
	ctx->added_dirs = g_ptr_array_new_with_free_func(g_free);
	ctx->config_dirs = g_ptr_array_new_with_free_func(g_free);
	ctx->configs = g_ptr_array_new();
	ctx->resolvers = g_ptr_array_new_with_free_func(instance_free);
	ctx->accelerators = g_ptr_array_new_with_free_func(instance_free);
	ctx->plugins = g_ptr_array_new_with_free_func((GDestroyNotify)loader_plugin_free);
	ctx->task_id = -1;
	ctx->cfg_task_id = -1;
	ctx->cfg_accel = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	ctx->io = io_real();
	ctx->builtin = g_new0(config_t, 1);
	config_init(ctx->builtin);
	config_name_set(ctx->builtin, "(built-in)");
	return ctx;
}

static void free_config(config_t *cfg)
{
	g_free((char *)config_name_get(cfg));
	config_destroy(cfg);
	g_free(cfg);
}

void cr_context_free(cr_context *ctx)
{
	if (ctx == NULL)
		return;
	/* States first, then the plugins' code, then the config they borrowed. */
	g_ptr_array_unref(ctx->resolvers);
	g_ptr_array_unref(ctx->accelerators);
	g_ptr_array_unref(ctx->plugins);
	for (guint i = 0; i < ctx->configs->len; i++)
		free_config(g_ptr_array_index(ctx->configs, i));
	g_ptr_array_unref(ctx->configs);
	free_config(ctx->builtin);
	g_ptr_array_unref(ctx->added_dirs);
	g_ptr_array_unref(ctx->config_dirs);
	g_hash_table_unref(ctx->cfg_accel);
	g_free(ctx->config_name);
	g_free(ctx->task_type);
	g_free(ctx->cfg_task_type);
	g_free(ctx->rpc_layer);
	g_free(ctx->cfg_rpc_layer);
	g_free(ctx);
}

void cr_context_set_log_handler(cr_context *ctx, cr_log_fn fn, void *user_data)
{
	if (ctx == NULL)
		return;
	ctx->log_fn = fn != NULL ? fn : stderr_log;
	ctx->log_data = fn != NULL ? user_data : NULL;
}

void cr_context_set_log_level(cr_context *ctx, cr_log_level level)
{
	if (ctx != NULL && level >= CR_LOG_ERROR && level <= CR_LOG_DEBUG)
		ctx->log_level = level;
}

cr_status cr_context_add_plugin_dir(cr_context *ctx, const char *dir, cr_error *err)
{
	if (ctx == NULL || dir == NULL || !g_path_is_absolute(dir))
		return error_set(err, CR_ERR_INVALID_ARG, "plugin directory must be an absolute path");
	g_ptr_array_add(ctx->added_dirs, g_strdup(dir));
	return CR_OK;
}

static cr_status check_fresh(cr_context *ctx, cr_error *err)
{
	if (ctx == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "NULL context");
	if (ctx->config_loaded)
		return error_set(err, CR_ERR_INVALID_ARG, "a configuration is already loaded");
	ctx->config_loaded = true;
	return CR_OK;
}

cr_status cr_context_load_config(cr_context *ctx, const char *path, cr_error *err)
{
	const char *env;
	cr_status st = check_fresh(ctx, err);

	if (st != CR_OK)
		return st;
	if (path == NULL) {
		env = g_getenv("CLUSTER_RESOLVER_CONFIG");
		if (env != NULL && *env != '\0')
			path = env;
		else if (g_file_test(CR_DEFAULT_CONFIG, G_FILE_TEST_EXISTS))
			path = CR_DEFAULT_CONFIG;
	}
	if (path == NULL) {
		ctx_log(ctx, CR_LOG_INFO, "config", "no config file; using the built-in auto configuration");
		return config_load_auto(ctx, err);
	}
	return config_load_file(ctx, path, err);
}

cr_status cr_context_load_config_string(cr_context *ctx, const char *text, const char *name,
					cr_error *err)
{
	cr_status st = check_fresh(ctx, err);

	if (st != CR_OK)
		return st;
	if (text == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "NULL config text");
	return config_load_string(ctx, text, name != NULL ? name : "(string)", err);
}

cr_status cr_context_set_task(cr_context *ctx, const char *task_type, int64_t task_id,
			      cr_error *err)
{
	if (ctx == NULL || task_id < -1 || task_id > G_MAXINT32)
		return error_set(err, CR_ERR_INVALID_ARG,
				    "task id %" G_GINT64_FORMAT " is out of range (0..2147483647)",
				    task_id);
	g_free(ctx->task_type);
	ctx->task_type = g_strdup(task_type);
	ctx->task_id = task_id;
	return CR_OK;
}

cr_status cr_context_set_rpc_layer(cr_context *ctx, const char *rpc_layer, cr_error *err)
{
	if (ctx == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "NULL context");
	g_free(ctx->rpc_layer);
	ctx->rpc_layer = g_strdup(rpc_layer);
	ctx->rpc_layer_set = rpc_layer != NULL;
	return CR_OK;
}

/* ---- instances ----------------------------------------------------------- */

cr_instance *instance_new(cr_context *ctx, cr_plugin_kind kind, cr_plugin *plugin,
			  const char *name, const config_setting_t *setting)
{
	cr_instance *inst = g_new0(cr_instance, 1);

	inst->kind = kind;
	inst->plugin = plugin;
	inst->name = g_strdup(name);
	inst->label = g_strdup_printf("%s '%s'", kind_name(kind), name);
	inst->setting = setting != NULL ? setting : config_root_setting(ctx->builtin);
	inst->pctx.ctx = ctx;
	inst->pctx.inst = inst;
	return inst;
}

void instance_free(gpointer p)
{
	cr_instance *inst = p;

	if (inst->created) {
		if (inst->kind == CR_PLUGIN_RESOLVER)
			inst->plugin->desc->resolver->destroy(inst->state);
		else
			inst->plugin->desc->accelerator->destroy(inst->state);
	}
	http_conn_free(inst->http);
	g_free(inst->name);
	g_free(inst->label);
	g_free(inst->where);
	g_free(inst);
}

cr_status instance_create(cr_instance *inst, cr_error *err)
{
	const cr_cfg *cfg = (const cr_cfg *)(const void *)inst->setting;
	cr_status st;

	if (inst->created)
		return CR_OK;
	inst->state = NULL;
	if (inst->kind == CR_PLUGIN_RESOLVER)
		st = inst->plugin->desc->resolver->create(&inst->pctx, cfg, &inst->state, err);
	else
		st = inst->plugin->desc->accelerator->create(&inst->pctx, cfg, &inst->state, err);
	if (st != CR_OK) {
		if (err != NULL && err->message[0] == '\0')
			error_set(err, st, "%s", cr_strerror(st));
		return error_prefix(err, "%s (%s): create failed: ", inst->label,
				       inst->plugin->path);
	}
	inst->created = true;
	return CR_OK;
}

/* ---- resolve ------------------------------------------------------------- */

static const char *policy_name(cr_policy p)
{
	return p == CR_POLICY_OPTIONAL ? "optional" : p == CR_POLICY_SUFFICIENT ? "sufficient" : "required";
}

/* Run one resolver: create, probe, resolve. On CR_OK *b holds its answer. */
static cr_status run_resolver(cr_instance *inst, cr_result_builder **out, cr_error *err)
{
	const cr_resolver_ops *ops = inst->plugin->desc->resolver;
	cr_result_builder *b = NULL;
	cr_status st;

	*out = NULL;
	st = instance_create(inst, err);
	if (st != CR_OK)
		return st;
	if (err != NULL)
		err->message[0] = '\0';
	st = ops->probe != NULL ? ops->probe(inst->state, &inst->pctx, err) : CR_OK;
	if (st == CR_OK) {
		b = builder_new(inst);
		st = ops->resolve(inst->state, &inst->pctx, b, err);
	}
	inst->declined = st == CR_DECLINED;
	if (st == CR_OK) {
		*out = b;
		return CR_OK;
	}
	builder_free(b);
	if (st != CR_DECLINED) {
		if (err != NULL && err->message[0] == '\0')
			error_set(err, st, "%s", cr_strerror(st));
		else if (err != NULL)
			err->code = st;
		error_prefix(err, "%s: ", inst->label);
	}
	return st;
}

cr_status cr_context_resolve(cr_context *ctx, cr_result **result, cr_error *err)
{
	union_state *u;
	GString *declined = g_string_new(NULL);
	cr_result *res = NULL;
	cr_status st = CR_OK;
	guint ok = 0;

	if (ctx == NULL || result == NULL) {
		g_string_free(declined, TRUE);
		return error_set(err, CR_ERR_INVALID_ARG, "cr_context_resolve: NULL argument");
	}
	*result = NULL;
	if (!ctx->config_loaded && (st = cr_context_load_config(ctx, NULL, err)) != CR_OK) {
		g_string_free(declined, TRUE);
		return st;
	}
	u = union_new();
	for (guint i = 0; i < ctx->resolvers->len; i++) {
		cr_instance *inst = g_ptr_array_index(ctx->resolvers, i);
		cr_error rerr = CR_ERROR_INIT;
		cr_result_builder *b = NULL;

		st = run_resolver(inst, &b, &rerr);
		if (st == CR_DECLINED) {
			ctx_log(ctx, CR_LOG_INFO, inst->label, "declined%s%s",
				rerr.message[0] ? ": " : "", rerr.message);
			g_string_append_printf(declined, "%s%s", declined->len ? ", " : "", inst->name);
			st = CR_OK;
			continue;
		}
		if (st != CR_OK && inst->policy == CR_POLICY_OPTIONAL) {
			ctx_log(ctx, CR_LOG_WARNING, NULL, "%s (optional, skipped)", rerr.message);
			st = CR_OK;
			continue;
		}
		if (st != CR_OK) {
			if (err != NULL)
				*err = rerr;
			break;
		}
		ctx_log(ctx, CR_LOG_INFO, inst->label, "resolved (%s)", policy_name(inst->policy));
		union_take(u, b);
		ok++;
		if (inst->policy == CR_POLICY_SUFFICIENT)
			break;
	}
	if (st == CR_OK && ok == 0)
		st = error_set(err, CR_ERR_NOT_FOUND, "no resolver applies here (declined: %s)",
				  declined->len ? declined->str : "none configured");
	if (st == CR_OK)
		st = union_merge(u, ctx, &res, err);
	union_free(u);
	g_string_free(declined, TRUE);
	if (st == CR_OK)
		st = accel_layer_run(ctx, res, err);
	if (st != CR_OK) {
		cr_result_free(res);
		return st;
	}
	if (res->task_type != NULL && res->task_id >= 0 &&
	    cr_spec_task_address(res->spec, res->task_type, res->task_id, NULL, NULL) != CR_OK)
		ctx_log(ctx, CR_LOG_WARNING, NULL,
			"this process's task %s:%" G_GINT64_FORMAT " is not in the cluster",
			res->task_type, res->task_id);
	*result = res;
	return CR_OK;
}
