/* SPDX-License-Identifier: MIT */
/*
 * context.c - the application's handle, and the stage that drives the
 * pipeline: config (files -> plan) -> loader (plan entries -> plugins) ->
 * instances, created and run here under their policies -> union ->
 * accelerator layer -> GPUs per task (gpus.c). Each stage it calls only
 * calls the stages below it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"

/* The default log handler. A message may quote a server or a plugin: its
 * control characters and stray bytes are shown as \xNN, never sent to the
 * terminal (cr_text_escape). */
static void stderr_log(cr_log_level level, const char *source, const char *message, void *data)
{
	static const char *const names[] = { "error: ", "warning: ", "", "" };
	char *line =
		g_strdup_printf("cluster-resolver: %s%s%s%s", names[level],
				source != NULL ? source : "", source != NULL ? ": " : "", message);
	char *safe = cr_text_escape(line);

	(void)data;
	fprintf(stderr, "%s\n", safe);
	g_free(safe);
	g_free(line);
}

cr_context *cr_context_new(cr_error *err)
{
	cr_context *ctx = g_new0(cr_context, 1);

	ctx->interrupt_fd = -1;
	ctx->log_fn = stderr_log;
	ctx->log_level = CR_LOG_WARNING;
	loader_init(&ctx->loader);
	ctx->resolvers = g_ptr_array_new_with_free_func(instance_free);
	ctx->accelerators = g_ptr_array_new_with_free_func(instance_free);
	ctx->task_id = -1;
	ctx->io = io_real();
	ctx->http_pool = http_pool_new();
	ctx->builtin = g_new0(config_t, 1);
	config_init(ctx->builtin);
	config_name_set(ctx->builtin, "(built-in)");
	ctx->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ctx->cancel_fd < 0) {
		error_set(err, CR_ERR_IO, "cannot make the context's cancel descriptor: %s",
			  g_strerror(errno));
		cr_context_free(ctx);
		return NULL;
	}
	ctx->interrupt_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ctx->interrupt_fd < 0) {
		error_set(err, CR_ERR_IO, "cannot make the context's interrupt descriptor: %s",
			  g_strerror(errno));
		cr_context_free(ctx);
		return NULL;
	}
	return ctx;
}

void cr_context_free(cr_context *ctx)
{
	if (ctx == NULL)
		return;
	/* States first, then the plugins' code, then the config they borrowed. */
	g_ptr_array_unref(ctx->resolvers);
	g_ptr_array_unref(ctx->accelerators);
	loader_clear(&ctx->loader);
	plan_free(ctx->plan);
	g_free((char *)config_name_get(ctx->builtin));
	config_destroy(ctx->builtin);
	g_free(ctx->builtin);
	g_free(ctx->task_type);
	g_free(ctx->rpc_layer);
	http_pool_close(ctx->http_pool);
	watch_state_free(ctx->watch);
	if (ctx->cancel_fd >= 0)
		close(ctx->cancel_fd);
	if (ctx->interrupt_fd >= 0)
		close(ctx->interrupt_fd);
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
		return error_set(err, CR_ERR_INVALID_ARG,
				 "plugin directory must be an absolute path");
	g_ptr_array_add(ctx->loader.added_dirs, g_strdup(dir));
	return CR_OK;
}

static cr_status check_fresh(cr_context *ctx, cr_error *err)
{
	if (ctx == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "NULL context");
	if (ctx->plan != NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "a configuration is already loaded");
	ctx->plan = plan_new();
	ctx->loader.plan_dirs = ctx->plan->plugin_path;
	return CR_OK;
}

/* The loader turns a plan entry into a checked plugin; the instance is
 * made here. */
static cr_status load_entry(cr_context *ctx, plan_entry *e, cr_instance **out, cr_error *err)
{
	cr_plugin *plugin = NULL;
	cr_status st = loader_manifest_stub(&ctx->loader, e, ctx, &plugin, err);

	if (st == CR_OK && plugin == NULL)
		st = loader_load_entry(&ctx->loader, e, &plugin, err);
	*out = NULL;
	if (st != CR_OK)
		return st;
	*out = instance_new(ctx, e->kind, plugin, e->name != NULL ? e->name : plugin->name,
			    e->group);
	(*out)->where = g_strdup(e->where);
	(*out)->policy = e->policy;
	(*out)->watch_interval_ms = e->watch_interval_ms;
	return CR_OK;
}

static cr_status load_entries(cr_context *ctx, GPtrArray *entries, GPtrArray *to, cr_error *err)
{
	for (guint i = 0; i < entries->len; i++) {
		cr_instance *inst = NULL;
		cr_status st = load_entry(ctx, g_ptr_array_index(entries, i), &inst, err);

		if (st != CR_OK)
			return st;
		g_ptr_array_add(to, inst);
	}
	return CR_OK;
}

static cr_status load_plan(cr_context *ctx, cr_error *err)
{
	cr_status st = load_entries(ctx, ctx->plan->resolvers, ctx->resolvers, err);

	if (st == CR_OK)
		st = load_entries(ctx, ctx->plan->accelerators, ctx->accelerators, err);
	ctx->accelerators_listed = ctx->plan->accelerators_listed;
	return st;
}

/* `auto`: the loader says which environment resolvers are installed, the
 * config writes the plan over them. */
static cr_status read_auto(cr_context *ctx, cr_error *err)
{
	GPtrArray *installed = NULL;
	cr_status st = loader_installed(&ctx->loader, config_auto_order, CR_PLUGIN_RESOLVER,
					&installed, err);

	if (st != CR_OK)
		return st;
	st = config_parse_auto(ctx->plan, (const char *const *)installed->pdata, err);
	g_ptr_array_unref(installed);
	return st;
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
		ctx_log(ctx, CR_LOG_INFO, "config",
			"no config file; using the built-in auto configuration");
		st = read_auto(ctx, err);
	} else {
		st = config_parse_file(ctx->plan, path, err);
		for (guint i = 0; i < ctx->plan->files->len; i++)
			ctx_log(ctx, CR_LOG_INFO, "config", "read %s",
				(const char *)g_ptr_array_index(ctx->plan->files, i));
	}
	return st == CR_OK ? load_plan(ctx, err) : st;
}

cr_status cr_context_load_config_string(cr_context *ctx, const char *text, const char *name,
					cr_error *err)
{
	cr_status st = check_fresh(ctx, err);

	if (st != CR_OK)
		return st;
	if (text == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "NULL config text");
	st = config_parse_string(ctx->plan, text, name != NULL ? name : "(string)", err);
	return st == CR_OK ? load_plan(ctx, err) : st;
}

cr_status context_load_single(cr_context *ctx, const char *plugin_path, const char *group_text,
			      const char *name, cr_instance **out, cr_error *err)
{
	plan_entry *e = NULL;
	cr_status st = check_fresh(ctx, err);

	*out = NULL;
	if (st != CR_OK)
		return st;
	st = config_parse_group(ctx->plan, group_text, name, plugin_path, &e, err);
	if (st == CR_OK) {
		g_ptr_array_add(ctx->plan->resolvers, e); /* the plan owns it, whatever its kind */
		st = load_entry(ctx, e, out, err);
	}
	if (st != CR_OK) { /* nothing was made: the context stays fresh */
		g_clear_pointer(&ctx->plan, plan_free);
		ctx->loader.plan_dirs = NULL;
		return st;
	}
	ctx->accelerators_listed = true; /* only this plugin */
	g_ptr_array_add(e->kind == CR_PLUGIN_ACCELERATOR ? ctx->accelerators : ctx->resolvers,
			*out);
	return CR_OK;
}

/* Accelerator plugins tried, in this order, when the config lists none. */
static const char *const auto_accel[] = { "nvidia", "tpu", NULL };

/* The config listed no accelerators: every installed one of auto_accel,
 * optional (the loader skips what is not there, as for `auto`). */
static cr_status auto_accelerators(cr_context *ctx, cr_error *err)
{
	cr_status st = CR_OK;

	for (const char *const *n = auto_accel; st == CR_OK && *n != NULL; n++) {
		cr_plugin *plugin = NULL;
		cr_instance *inst;

		/* A manifest that says it cannot apply here: its stub, not
		 * the file. Else not installed, or only a plugin of the other
		 * kind (tpu.so is both): skip it; a file that is there but
		 * broken is reported, as it would be when named in a config. */
		loader_manifest_stub_named(&ctx->loader, *n, CR_PLUGIN_ACCELERATOR, ctx, &plugin);
		if (plugin == NULL) {
			st = loader_load(&ctx->loader, *n, CR_PLUGIN_ACCELERATOR, &plugin, err);
			if (st == CR_ERR_NOT_FOUND || st == CR_ERR_CONFIG) {
				st = CR_OK;
				continue;
			}
			if (st != CR_OK)
				break;
		}
		inst = instance_new(ctx, CR_PLUGIN_ACCELERATOR, plugin, *n, NULL);
		inst->where = g_strdup("(built-in)");
		inst->policy = CR_POLICY_OPTIONAL;
		g_ptr_array_add(ctx->accelerators, inst);
	}
	if (st == CR_OK)
		ctx->accelerators_listed = true;
	return st;
}

cr_status cr_context_set_task(cr_context *ctx, const char *task_type, int64_t task_id,
			      cr_error *err)
{
	if (ctx == NULL || task_id < -1 || task_id > G_MAXINT32)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "task id %" G_GINT64_FORMAT " is out of range (0..2147483647)",
				 task_id);
	if (task_type != NULL && spec_check_name(err, "task type", task_type) != CR_OK)
		return CR_ERR_INVALID_ARG;
	g_free(ctx->task_type);
	ctx->task_type = g_strdup(task_type);
	ctx->task_id = task_id;
	return CR_OK;
}

cr_status cr_context_set_rpc_layer(cr_context *ctx, const char *rpc_layer, cr_error *err)
{
	if (ctx == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "NULL context");
	if (rpc_layer != NULL && spec_check_name(err, "rpc layer", rpc_layer) != CR_OK)
		return CR_ERR_INVALID_ARG;
	g_free(ctx->rpc_layer);
	ctx->rpc_layer = g_strdup(rpc_layer);
	ctx->rpc_layer_set = rpc_layer != NULL;
	return CR_OK;
}

/* ---- resolve ------------------------------------------------------------- */

static void set_verdict(cr_instance *inst, run_verdict v, char *reason)
{
	inst->verdict = v;
	g_free(inst->reason);
	inst->reason = reason;
}

/* "2 jobs, 5 tasks; this task worker:1": what an answer holds. */
static char *answer_summary(const cr_result_builder *b)
{
	size_t jobs = cr_spec_num_jobs(b->spec), tasks = 0;
	GString *s = g_string_new(NULL);

	for (size_t j = 0; j < jobs; j++) {
		size_t n = 0;

		cr_spec_job_size(b->spec, cr_spec_job_name(b->spec, j), &n, NULL);
		tasks += n;
	}
	g_string_append_printf(s, "%zu job%s, %zu task%s", jobs, jobs == 1 ? "" : "s", tasks,
			       tasks == 1 ? "" : "s");
	if (cr_spec_num_unknown(b->spec, NULL) > 0)
		g_string_append_printf(s, " (%zu addresses unknown: %s)",
				       cr_spec_num_unknown(b->spec, NULL),
				       b->launcher != NULL ? b->launcher : "?");
	if (b->has_task)
		g_string_append_printf(s, "; this task %s:%" G_GINT64_FORMAT, b->task_type,
				       b->task_id);
	return g_string_free(s, FALSE);
}

/* @err's message without the "resolver 'x': " that explain's line has. */
static const char *unlabelled(const cr_instance *inst, const cr_error *err)
{
	size_t n = strlen(inst->label);

	if (err == NULL)
		return "";
	if (strncmp(err->message, inst->label, n) == 0 && strncmp(err->message + n, ": ", 2) == 0)
		return err->message + n + 2;
	return err->message;
}

/* Run one resolver: create, probe, resolve. On CR_OK *b holds its answer.
 * The verdict, reason and facts stay on the instance for `explain`. */
static cr_status run_resolver(cr_instance *inst, cr_result_builder **out, cr_error *err)
{
	cr_result_builder *b = NULL;
	cr_status st;

	*out = NULL;
	st = instance_probe(inst, err);
	if (st == CR_OK) {
		b = builder_new(inst);
		st = inst->plugin->desc->resolver->resolve(inst->state, &inst->pctx, b, err);
		inst->declined = st == CR_DECLINED;
		st = instance_normalise(inst, st, err);
		inst->facts = b->facts;
		b->facts = NULL;
	}
	if (st == CR_OK) {
		set_verdict(inst, VERDICT_OK, answer_summary(b));
		*out = b;
		return CR_OK;
	}
	builder_free(b);
	if (st == CR_DECLINED)
		set_verdict(inst, VERDICT_DECLINED,
			    err != NULL && err->message[0] ? g_strdup(err->message) : NULL);
	else
		set_verdict(inst, VERDICT_ERROR, g_strdup(unlabelled(inst, err)));
	return st;
}

static void reset_verdicts(cr_context *ctx)
{
	for (guint i = 0; i < ctx->resolvers->len; i++) {
		cr_instance *inst = g_ptr_array_index(ctx->resolvers, i);

		set_verdict(inst, VERDICT_NOT_RUN, NULL);
		if (inst->facts != NULL)
			g_clear_pointer(&inst->facts, json_object_put);
	}
}

/* The resolvers after @stop never ran: say why. */
static void mark_skipped(cr_context *ctx, guint stop, bool answered)
{
	cr_instance *by = g_ptr_array_index(ctx->resolvers, stop);

	for (guint i = stop + 1; i < ctx->resolvers->len; i++)
		set_verdict(g_ptr_array_index(ctx->resolvers, i), VERDICT_SKIPPED,
			    answered ? g_strdup_printf("%s (sufficient) answered first", by->label)
				     : g_strdup_printf("%s (required) failed", by->label));
}

/* Run the resolvers under their policies into @u; CR_ERR_NOT_FOUND when
 * none answered. */
static cr_status run_resolvers(cr_context *ctx, union_state *u, cr_error *err)
{
	GString *declined = g_string_new(NULL);
	cr_status st = CR_OK;
	guint ok = 0;

	for (guint i = 0; i < ctx->resolvers->len; i++) {
		cr_instance *inst = g_ptr_array_index(ctx->resolvers, i);
		cr_error rerr = CR_ERROR_INIT;
		cr_result_builder *b = NULL;

		st = run_resolver(inst, &b, &rerr);
		if (instance_passed_over(ctx, inst, st, &rerr)) {
			if (st == CR_DECLINED)
				g_string_append_printf(declined, "%s%s", declined->len ? ", " : "",
						       inst->name);
			st = CR_OK;
			continue;
		}
		if (st != CR_OK) {
			if (err != NULL)
				*err = rerr;
			mark_skipped(ctx, i, false);
			break;
		}
		ctx_log(ctx, CR_LOG_INFO, inst->label, "resolved (%s)", policy_name(inst->policy));
		union_take(u, b);
		ok++;
		if (inst->policy == CR_POLICY_SUFFICIENT) {
			mark_skipped(ctx, i, true);
			break;
		}
	}
	if (st == CR_OK && ok == 0)
		st = error_set(err, CR_ERR_NOT_FOUND, "no resolver applies here (declined: %s)",
			       declined->len ? declined->str : "none configured");
	g_string_free(declined, TRUE);
	return st;
}

/* The API's identity beats the config's. */
static union_overrides overrides_of(const cr_context *ctx)
{
	union_overrides o = { ctx->task_type, ctx->task_id, ctx->rpc_layer, ctx->rpc_layer_set };

	if (o.task_type == NULL)
		o.task_type = ctx->plan->task_type;
	if (o.task_id < 0)
		o.task_id = ctx->plan->task_id;
	/* A watched context pins the first generation only: then the member
	 * is followed (member.c). */
	if (member_pins_dropped(ctx)) {
		o.task_type = NULL;
		o.task_id = -1;
	}
	if (!o.rpc_layer_set) {
		o.rpc_layer = ctx->plan->rpc_layer;
		o.rpc_layer_set = ctx->plan->rpc_layer_set;
	}
	return o;
}

cr_status cr_context_resolve(cr_context *ctx, cr_result **result, cr_error *err)
{
	union_overrides over;
	union_state *u;
	cr_result *res = NULL;
	cr_status st;

	if (ctx == NULL || result == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_context_resolve: NULL argument");
	*result = NULL;
	if (ctx_interrupted(ctx))
		return error_set(err, CR_ERR_TIMEOUT, "interrupted (cr_context_interrupt)");
	if (ctx->plan == NULL && (st = cr_context_load_config(ctx, NULL, err)) != CR_OK)
		return st;
	reset_verdicts(ctx);
	u = union_new();
	st = run_resolvers(ctx, u, err);
	over = overrides_of(ctx);
	if (st == CR_OK)
		st = union_merge(u, &over, &res, err);
	union_free(u);
	if (st == CR_OK)
		member_follow(ctx, res);
	if (st == CR_OK && !ctx->accelerators_listed)
		st = auto_accelerators(ctx, err);
	if (st == CR_OK)
		st = accel_layer_run(ctx, ctx->plan->num_accelerators, res, err);
	if (st == CR_OK)
		st = gpus_layer_run(ctx, res, err);
	if (st == CR_OK && ctx->plan->format_options->len > 0) {
		res->format_options = g_new0(char *, ctx->plan->format_options->len + 1);
		for (guint i = 0; i < ctx->plan->format_options->len; i++)
			res->format_options[i] =
				g_strdup(g_ptr_array_index(ctx->plan->format_options, i));
	}
	if (st != CR_OK) {
		cr_result_free(res);
		return st;
	}
	if (res->task_type != NULL && res->task_id >= 0 &&
	    cr_spec_task_known(res->spec, res->task_type, res->task_id, NULL, NULL) != CR_OK)
		ctx_log(ctx, CR_LOG_WARNING, NULL,
			"this process's task %s:%" G_GINT64_FORMAT " is not in the cluster",
			res->task_type, res->task_id);
	res->log_fn = ctx->log_fn;
	res->log_data = ctx->log_data;
	res->log_level = ctx->log_level;
	*result = res;
	return CR_OK;
}
