/* SPDX-License-Identifier: MIT */
/*
 * volcano.c - volcano.so: a pod of a Volcano Job (volcano-sh/volcano,
 * pkg/controllers/job/plugins). Each Volcano task is a job of the cluster,
 * its pods its tasks in index order at "host:port", the hosts those of the
 * svc plugin (volcano.h).
 *
 * A pod is told its index (VC_TASK_INDEX, and the older VK_TASK_INDEX: the
 * env plugin, env/env.go) but not its task's name, and a plugin cannot
 * list the environment to find VC_<TASK>_HOSTS. So the task names come
 * from the `<task>.host` files of the mounted ConfigMap (hosts_dir, where
 * svc.go mounts it in every pod, whether or not it also injects the
 * variables), or from the option `tasks` when that is not mounted; and this
 * pod's task is the one whose hosts hold its host name: Volcano names a
 * pod, and so its host, `<job>-<task>-<index>` (helpers.go, MakePodName;
 * svc.go sets the pod's hostname to its name and lists
 * `<hostname>.<job>`), from HOSTNAME, else gethostname(). Where no host
 * matches (a hostname set in the pod template), the index alone places a
 * pod of a one-task job; otherwise the plugin declines and says what would
 * place it (no template hostname, or a launcher inside the pod).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include <cluster-resolver/plugin.h>

#include "launchers.h"
#include "volcano.h"

typedef struct vc_state {
	char **tasks; /* the option's task names, or NULL */
} vc_state;

static cr_status vc_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const cr_cfg *list = cr_host->cfg_get(config, "tasks");
	size_t n = list != NULL ? cr_host->cfg_length(list) : 0;
	vc_state *s = g_new0(vc_state, 1);

	(void)ctx;
	if (list != NULL)
		s->tasks = g_new0(char *, n + 1);
	for (size_t i = 0; i < n; i++) {
		const char *name = cr_host->cfg_string(cr_host->cfg_elem(list, i));

		if (name == NULL || !vc_task_name_ok(name)) {
			g_strfreev(s->tasks);
			g_free(s);
			return cr_host->error_set(
				err, CR_ERR_CONFIG,
				"%s:%d: tasks: \"%.64s\" is not a Volcano task name",
				cr_host->cfg_file(list), cr_host->cfg_line(list),
				name != NULL ? name : "");
		}
		s->tasks[i] = g_strdup(name);
	}
	if (list != NULL && n == 0) {
		g_free(s->tasks);
		g_free(s);
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: tasks must name a task",
					  cr_host->cfg_file(list), cr_host->cfg_line(list));
	}
	*state = s;
	return CR_OK;
}

static void vc_destroy(void *state)
{
	vc_state *s = state;

	g_strfreev(s->tasks);
	g_free(s);
}

static cr_status vc_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	const char *dir = cr_host->opt_string(ctx, "hosts_dir");
	char **names = NULL;
	cr_status st;

	(void)state;
	if (cr_host->getenv(ctx, "VC_TASK_INDEX") != NULL ||
	    cr_host->getenv(ctx, "VK_TASK_INDEX") != NULL)
		return CR_OK;
	st = vc_task_names(ctx, dir, &names, err);
	g_strfreev(names);
	if (st == CR_OK)
		return CR_OK;
	return cr_host->error_set(err, CR_DECLINED,
				  "not in a Volcano job: VC_TASK_INDEX and VK_TASK_INDEX are not "
				  "set and %s has no <task>.host file",
				  dir);
}

/* The pod's index, -1 when neither variable is set. */
static cr_status vc_index(cr_plugin_ctx *ctx, int64_t *index, const char **var, cr_error *err)
{
	static const char *const vars[] = { "VC_TASK_INDEX", "VK_TASK_INDEX" };
	uint64_t v[2] = { 0, 0 };
	const char *s[2];

	*index = -1;
	for (int i = 0; i < 2; i++) {
		s[i] = cr_host->getenv(ctx, vars[i]);
		if (s[i] != NULL && !launch_decimal(s[i], INT32_MAX, &v[i]))
			return cr_host->error_set(err, CR_ERR_PARSE,
						  "Volcano: %s=\"%.64s\" is not a non-negative "
						  "integer",
						  vars[i], s[i]);
	}
	if (s[0] != NULL && s[1] != NULL && v[0] != v[1])
		return cr_host->error_set(
			err, CR_ERR_PARSE,
			"Volcano: VC_TASK_INDEX=%llu and VK_TASK_INDEX=%llu differ",
			(unsigned long long)v[0], (unsigned long long)v[1]);
	if (s[0] != NULL || s[1] != NULL) {
		*index = (int64_t)(s[0] != NULL ? v[0] : v[1]);
		*var = s[0] != NULL ? vars[0] : vars[1];
	}
	return CR_OK;
}

/* @a and @b name one host: equal, or equal up to the first '.' of each
 * (the pod's short host name beside its `hostname.subdomain`). */
static bool vc_same_host(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");

	return strcmp(a, b) == 0 || (la == lb && strncmp(a, b, la) == 0);
}

typedef struct vc_self {
	char name[256]; /* this pod's host name */
	const char *from;
	size_t task; /* the task whose hosts hold it, when found */
	int64_t index;
	bool found;
} vc_self;

static void vc_find_self(cr_plugin_ctx *ctx, const vc_task *t, size_t n, vc_self *me)
{
	const char *h = cr_host->getenv(ctx, "HOSTNAME");

	me->from = "HOSTNAME";
	if (h == NULL || *h == '\0') {
		me->from = "the host name";
		if (gethostname(me->name, sizeof(me->name) - 1) != 0)
			me->name[0] = '\0';
	} else {
		snprintf(me->name, sizeof(me->name), "%s", h);
	}
	for (size_t i = 0; me->name[0] != '\0' && i < n && !me->found; i++)
		for (size_t k = 0; k < t[i].n && !me->found; k++)
			if (vc_same_host(me->name, t[i].host[k])) {
				me->task = i;
				me->index = (int64_t)k;
				me->found = true;
			}
}

/* This pod's task: the one whose hosts hold its host name, its index
 * agreeing with VC_TASK_INDEX; else, with one task, the index alone. */
static cr_status vc_place(cr_plugin_ctx *ctx, const vc_task *t, size_t n, vc_self *me,
			  cr_error *err)
{
	const char *var = NULL;
	int64_t index;
	cr_status st = vc_index(ctx, &index, &var, err);

	if (st != CR_OK)
		return st;
	vc_find_self(ctx, t, n, me);
	if (me->found && index >= 0 && (uint64_t)index >= t[me->task].n)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "Volcano: %s=%lld is not below the %zu hosts of %s", var,
					  (long long)index, t[me->task].n, t[me->task].from);
	if (me->found && index >= 0 && index != me->index)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "Volcano: %s=%lld, but this pod (%s %.64s) is %s %lld "
					  "of %s",
					  var, (long long)index, me->from, me->name,
					  t[me->task].name, (long long)me->index, t[me->task].from);
	if (me->found)
		return CR_OK;
	if (index >= 0 && n == 1 && (uint64_t)index >= t[0].n)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "Volcano: %s=%lld is not below the %zu hosts of %s", var,
					  (long long)index, t[0].n, t[0].from);
	if (index >= 0 && n == 1) {
		me->task = 0;
		me->index = index;
		return CR_OK;
	}
	return cr_host->error_set(err, CR_DECLINED,
				  "in a Volcano job of %zu tasks, but this pod's host name "
				  "(%s %.64s) is none of their hosts, so its task is unknown: "
				  "leave hostname out of the pod template (Volcano then names "
				  "each pod's host <job>-<task>-<index>), or start the "
				  "processes with a launcher (torchrun, mpirun)",
				  n, me->from, me->name[0] != '\0' ? me->name : "(none)");
}

static cr_status vc_emit(cr_result_builder *b, const vc_task *t, size_t n, const vc_self *me,
			 int64_t port, cr_error *err)
{
	cr_status st = CR_OK;

	for (size_t i = 0; st == CR_OK && i < n; i++) {
		st = cr_host->result_add_job(b, t[i].name, err);
		for (size_t k = 0; st == CR_OK && k < t[i].n; k++) {
			char *addr = g_strdup_printf("%s:%lld", t[i].host[k], (long long)port);

			st = cr_host->result_append_task(b, t[i].name, addr, err);
			g_free(addr);
		}
	}
	if (st == CR_OK)
		st = cr_host->result_set_task(b, t[me->task].name, me->index, err);
	return st;
}

/* The task names (the option's, else hosts_dir's) and each one's hosts. */
static cr_status vc_read(cr_plugin_ctx *ctx, const vc_state *s, vc_task **tasks, size_t *n,
			 cr_error *err)
{
	const char *dir = cr_host->opt_string(ctx, "hosts_dir");
	char **names = s->tasks;
	char msg[CR_ERROR_MSG_MAX];
	cr_status st = CR_OK;

	if (names == NULL)
		st = vc_task_names(ctx, dir, &names, err);
	if (st == CR_DECLINED && err != NULL) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		return cr_host->error_set(
			err, CR_DECLINED,
			"in a Volcano job, but its tasks are unknown: %s (Volcano's "
			"svc plugin mounts it) and the option tasks is not set",
			msg);
	}
	if (st != CR_OK)
		return st;
	*n = g_strv_length(names);
	*tasks = g_new0(vc_task, *n);
	for (size_t i = 0; st == CR_OK && i < *n; i++) {
		(*tasks)[i].name = g_strdup(names[i]);
		st = vc_task_hosts(ctx, dir, &(*tasks)[i], err);
	}
	if (names != s->tasks)
		g_strfreev(names);
	if (st != CR_OK && err != NULL) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		st = cr_host->error_set(err, st, "Volcano: %s", msg);
	}
	return st;
}

static cr_status vc_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	vc_task *t = NULL;
	vc_self me = { 0 };
	size_t n = 0;
	cr_status st = vc_read(ctx, state, &t, &n, err);

	if (st == CR_OK)
		st = vc_place(ctx, t, n, &me, err);
	if (st == CR_OK) {
		cr_host->result_set_fact_string(b, "launcher", "Volcano", NULL);
		cr_host->result_set_fact_string(b, "host", me.name, NULL);
		cr_host->result_set_fact_string(b, "hosts", t[me.task].from, NULL);
		st = vc_emit(b, t, n, &me, cr_host->opt_int(ctx, "port"), err);
	}
	for (size_t i = 0; i < n && t != NULL; i++)
		vc_task_clear(&t[i]);
	g_free(t);
	return st;
}

static const cr_option vc_options[] = {
	CR_OPTION("tasks", CR_OPT_STRING_LIST, NULL, 0,
		  "the job's task names, when hosts_dir is not mounted (its <task>.host files "
		  "name them otherwise)"),
	CR_OPTION("hosts_dir", CR_OPT_STRING, "/etc/volcano", 0,
		  "where Volcano's svc plugin mounts the job's hosts"),
	CR_OPTION_RANGE("port", CR_OPT_INT, "2222", 0,
			"the port of every task (Volcano's tensorflow plugin's default)", 1, 65535),
	CR_OPTIONS_END,
};

static const cr_resolver_ops vc_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = vc_create,
	.destroy = vc_destroy,
	.probe = vc_probe,
	.resolve = vc_resolve,
	.master = NULL,
};

static const cr_plugin_desc vc_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "volcano",
	.version = CR_VERSION_STRING,
	.description = "a pod of a Volcano Job: each Volcano task a job, its pods' hosts from "
		       "VC_<TASK>_HOSTS or /etc/volcano",
	.options = vc_options,
	.option_size = sizeof(cr_option),
	.resolver = &vc_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(vc_desc)
