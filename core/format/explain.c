/* SPDX-License-Identifier: MIT */
/*
 * explain.c - `cluster-resolver explain`: one resolution, told resolver by
 * resolver (verdict, reason, facts), what gpus_per_task chose (when set)
 * and then the merged result, so an admin sees in one screen why the
 * cluster came out as it did.
 */
#include <string.h>

#include <glib.h>

#include "format/format-private.h"

static const char *verdict_name(run_verdict v)
{
	switch (v) {
	case VERDICT_OK:
		return "ok";
	case VERDICT_DECLINED:
		return "declined";
	case VERDICT_ERROR:
		return "error";
	case VERDICT_NOT_RUN:
	case VERDICT_SKIPPED:
		break;
	}
	return "skipped";
}

static const char *fact_text(json_object *v)
{
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void human_resolver(GString *out, guint i, const cr_instance *inst)
{
	g_string_append_printf(out, "%u. %s (plugin %s, %s, at %s)\n", i + 1, inst->label,
			       inst->plugin->name, policy_name(inst->policy),
			       inst->where != NULL ? inst->where : "(built-in)");
	if (inst->verdict == VERDICT_DECLINED && inst->reason == NULL)
		g_string_append(out, "   declined (the plugin gave no reason)\n");
	else
		g_string_append_printf(out, "   %s%s%s\n", verdict_name(inst->verdict),
				       inst->reason != NULL ? ": " : "",
				       inst->reason != NULL ? inst->reason : "");
	if (inst->facts == NULL)
		return;
	json_object_object_foreach(inst->facts, key, val)
		g_string_append_printf(out, "   fact %s: %s\n", key, fact_text(val));
}

static void json_resolver(GString *out, guint i, const cr_instance *inst)
{
	bool first = true;

	g_string_append(out, i > 0 ? ", {\"name\": " : "{\"name\": ");
	jw_string(out, inst->name);
	g_string_append(out, ", \"plugin\": ");
	jw_string(out, inst->plugin->name);
	g_string_append_printf(out, ", \"policy\": \"%s\", \"at\": ", policy_name(inst->policy));
	jw_string(out, inst->where != NULL ? inst->where : "(built-in)");
	g_string_append_printf(out,
			       ", \"verdict\": \"%s\", \"reason\": ", verdict_name(inst->verdict));
	jw_string(out, inst->reason != NULL ? inst->reason : "");
	g_string_append(out, ", \"facts\": {");
	if (inst->facts != NULL) {
		json_object_object_foreach(inst->facts, key, val)
		{
			g_string_append(out, first ? "" : ", ");
			jw_string(out, key);
			g_string_append_printf(out, ": %s", fact_text(val));
			first = false;
		}
	}
	g_string_append(out, "}}");
}

static void json_ids(GString *out, const GPtrArray *ids)
{
	g_string_append_c(out, '[');
	for (guint i = 0; i < ids->len; i++) {
		g_string_append(out, i > 0 ? ", " : "");
		jw_string(out, g_ptr_array_index(ids, i));
	}
	g_string_append_c(out, ']');
}

static char *human_ids(const GPtrArray *ids)
{
	GString *s = g_string_new(NULL);

	for (guint i = 0; i < ids->len; i++)
		g_string_append_printf(s, "%s%s", i > 0 ? ", " : "",
				       (const char *)g_ptr_array_index(ids, i));
	return g_string_free(s, FALSE);
}

/* What gpus_per_task chose, and from what. */
static void human_gpus(GString *out, const gpus_choice *c)
{
	char *avail = human_ids(c->available);

	g_string_append_printf(out, "gpus: gpus_per_task = %" G_GINT64_FORMAT " (at %s)%s\n",
			       c->per_task, c->at, c->skip_busy ? ", busy GPUs skipped" : "");
	if (c->host != NULL)
		g_string_append_printf(out,
				       "   local index %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT
				       " tasks on host %s\n",
				       c->local_index, c->host_tasks, c->host);
	else
		g_string_append(out,
				"   local index 0: this process's task is not in the cluster\n");
	if (c->per_task > 0) {
		g_string_append_printf(out, "   GPUs from %s: %s\n",
				       c->source != NULL ? c->source : "nowhere", avail);
		if (c->busy->len > 0) {
			char *busy = human_ids(c->busy);

			g_string_append_printf(out, "   busy, left out: %s\n", busy);
			g_free(busy);
		}
	}
	g_string_append_printf(out, "   CUDA_VISIBLE_DEVICES=%s\n", c->chosen);
	g_free(avail);
}

static void json_gpus(GString *out, const gpus_choice *c)
{
	g_string_append_printf(
		out, ", \"gpus\": {\"gpus_per_task\": %" G_GINT64_FORMAT ", \"at\": ", c->per_task);
	jw_string(out, c->at);
	g_string_append_printf(
		out, ", \"skip_busy_gpus\": %s, \"host\": ", c->skip_busy ? "true" : "false");
	if (c->host != NULL)
		jw_string(out, c->host);
	else
		g_string_append(out, "null");
	g_string_append_printf(out,
			       ", \"local_index\": %" G_GINT64_FORMAT
			       ", \"host_tasks\": %" G_GINT64_FORMAT ", \"source\": ",
			       c->local_index, c->host_tasks);
	if (c->source != NULL)
		jw_string(out, c->source);
	else
		g_string_append(out, "null");
	g_string_append(out, ", \"available\": ");
	json_ids(out, c->available);
	g_string_append(out, ", \"busy\": ");
	json_ids(out, c->busy);
	g_string_append(out, ", \"CUDA_VISIBLE_DEVICES\": ");
	jw_string(out, c->chosen);
	g_string_append_c(out, '}');
}

cr_status cr_context_explain(cr_context *ctx, bool json, char **text, cr_error *err)
{
	cr_error rerr = CR_ERROR_INIT;
	cr_result *res = NULL;
	char *merged = NULL;
	GString *out, *gpus = g_string_new(NULL);
	cr_status st;

	if (ctx == NULL || text == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_context_explain: NULL argument");
	*text = NULL;
	st = cr_context_resolve(ctx, &res, &rerr);
	if (st == CR_OK)
		st = cr_result_format(res, "json", NULL, &merged, NULL, &rerr);
	if (st == CR_OK && res->gpus != NULL) {
		if (json)
			json_gpus(gpus, res->gpus);
		else
			human_gpus(gpus, res->gpus);
	}
	cr_result_free(res);
	out = g_string_new(NULL);
	if (json) {
		g_string_append(out, "{\"config\": ");
		jw_string(out, ctx->plan->name);
		g_string_append(out, ", \"resolvers\": [");
	} else {
		g_string_append_printf(out, "config: %s\n", ctx->plan->name);
	}
	for (guint i = 0; i < ctx->resolvers->len; i++) {
		const cr_instance *inst = g_ptr_array_index(ctx->resolvers, i);

		if (json)
			json_resolver(out, i, inst);
		else
			human_resolver(out, i, inst);
	}
	if (merged != NULL)
		g_strchomp(merged);
	if (json)
		g_string_append_c(out, ']');
	g_string_append_len(out, gpus->str, (gssize)gpus->len);
	g_string_free(gpus, TRUE);
	if (json && st == CR_OK) {
		g_string_append_printf(out, ", \"result\": %s, \"error\": null}\n", merged);
	} else if (json) {
		g_string_append(out, ", \"result\": null, \"error\": ");
		jw_string(out, rerr.message);
		g_string_append(out, "}\n");
	} else if (st == CR_OK) {
		g_string_append_printf(out, "result: %s\n", merged);
	} else {
		g_string_append_printf(out, "result: failed: %s\n", rerr.message);
	}
	g_free(merged);
	*text = g_string_free(out, FALSE);
	if (err != NULL)
		*err = rerr;
	return st;
}
