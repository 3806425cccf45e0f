/* SPDX-License-Identifier: MIT */
/*
 * instance.c - one configured plugin group as a live instance: made from a
 * loaded plugin and its group, created (the plugin's create op), probed,
 * and freed; and how every caller reports an instance's status (its label
 * before a failure, a decline passed over, an optional failure skipped).
 * The context runs resolvers through it, the accelerator layer
 * accelerators.
 */
#include <glib.h>

#include "pipeline/pipeline-private.h"

cr_instance *instance_new(cr_context *ctx, cr_plugin_kind kind, cr_plugin *plugin, const char *name,
			  const config_setting_t *setting)
{
	cr_instance *inst = g_new0(cr_instance, 1);

	inst->kind = kind;
	inst->plugin = plugin;
	inst->name = g_strdup(name);
	inst->label = g_strdup_printf("%s '%s'", kind_name(kind), name);
	inst->setting = setting != NULL ? setting : config_root_setting(ctx->builtin);
	inst->pctx.ctx = ctx;
	inst->pctx.inst = inst;
	inst->stop_fd = -1;
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
	if (inst->stop_fd >= 0)
		close(inst->stop_fd);
	if (inst->facts != NULL)
		json_object_put(inst->facts);
	g_free(inst->reason);
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
		error_prefix(err, "%s (%s): create failed: ", inst->label, inst->plugin->path);
		return st;
	}
	inst->created = true;
	return CR_OK;
}

/* Give a failure a message and the instance's label; a decline keeps the
 * plugin's reason, if it gave one, as it is. */
cr_status instance_normalise(cr_instance *inst, cr_status st, cr_error *err)
{
	if (st == CR_OK || err == NULL)
		return st;
	if (st != CR_DECLINED && err->message[0] == '\0')
		error_set(err, st, "%s", cr_strerror(st));
	err->code = st;
	if (st != CR_DECLINED)
		error_prefix(err, "%s: ", inst->label);
	return st;
}

bool instance_passed_over(cr_context *ctx, const cr_instance *inst, cr_status st, const cr_error *e)
{
	if (st == CR_DECLINED) {
		ctx_log(ctx, CR_LOG_INFO, inst->label, "declined%s%s", e->message[0] ? ": " : "",
			e->message);
		return true;
	}
	if (st != CR_OK && inst->policy == CR_POLICY_OPTIONAL) {
		ctx_log(ctx, CR_LOG_WARNING, NULL, "%s (optional, skipped)", e->message);
		return true;
	}
	return false;
}

cr_status instance_unstub(cr_instance *inst, cr_error *err)
{
	cr_plugin *real = NULL;
	cr_status st;

	if (inst->plugin->declined == NULL)
		return CR_OK;
	st = loader_load(&inst->pctx.ctx->loader, inst->plugin->name, inst->kind, &real, err);
	if (st != CR_OK)
		return st;
	/* The stub's state is nothing (its create sets NULL). */
	inst->created = false;
	inst->state = NULL;
	inst->plugin = real;
	return CR_OK;
}

cr_status instance_probe(cr_instance *inst, cr_error *err)
{
	cr_status (*probe)(void *state, cr_plugin_ctx *pctx, cr_error *perr);
	cr_status st = CR_OK;

	inst->declined = false;
	/* A stub whose plugin applies now (a variable set since the context
	 * was made: TF_CONFIG is read afresh at every resolution). */
	if (inst->plugin->declined != NULL && loader_manifest_applies(inst->plugin, inst->pctx.ctx))
		st = instance_unstub(inst, err);
	if (st == CR_OK)
		st = instance_create(inst, err);

	if (st != CR_OK)
		return st;
	if (err != NULL)
		err->message[0] = '\0';
	probe = inst->kind == CR_PLUGIN_RESOLVER ? inst->plugin->desc->resolver->probe
						 : inst->plugin->desc->accelerator->probe;
	st = probe != NULL ? probe(inst->state, &inst->pctx, err) : CR_OK;
	inst->declined = st == CR_DECLINED;
	return instance_normalise(inst, st, err);
}
