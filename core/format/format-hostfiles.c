/* SPDX-License-Identifier: MIT */
/*
 * format-hostfiles.c - the world (format-frameworks.c) as the host lists of
 * launchers that start the processes themselves: MPI and DeepSpeed
 * hostfiles, Horovod's discovery lines and a plain address list, one line
 * per host with its slots (or per task). MPICH's and Horovod's "host:count"
 * lines cannot hold an IPv6 literal and refuse one; DeepSpeed's slots are
 * the host's GPUs.
 */
#include <string.h>

#include <glib.h>

#include "format/format-private.h"
#include "values/format-options.h"

static cr_status fw_open_world(const cr_result *r, const char *format, const char *const *options,
			       unsigned allowed, fw_opts *o, fw_world **w, cr_error *err)
{
	cr_status st = fw_parse_options(r, format, options, allowed, o, err);

	*w = NULL;
	if (st == CR_OK)
		st = format_need_addresses(r, format, err);
	return st == CR_OK ? fw_world_build(r, format, o, w, err) : st;
}

/* Launchers whose host lists are "host:count" have no way to write an
 * IPv6 literal (neither MPICH's Hydra nor Horovod documents one): refuse
 * with the address, before printing anything. */
static cr_status fw_refuse_ipv6(const fw_world *w, const char *what, const char *advice,
				cr_error *err)
{
	for (guint i = 0; i < w->hosts->len; i++) {
		const char *host = g_ptr_array_index(w->hosts, i);

		if (strchr(host, ':') != NULL)
			return error_set(
				err, CR_ERR_BACKEND,
				"%s: host '%s' is an IPv6 address, which a \"host:count\" "
				"line cannot hold; give the hosts names (/etc/hosts, DNS)%s",
				what, host, advice);
	}
	return CR_OK;
}

/*
 * A task's GPUs as the result knows them: what its resolver said for that
 * task, else this process's own count (the tasks of a job alike); -1 when
 * neither knows any.
 */
static int64_t fw_task_gpus(const cr_result *r, const fw_task *t)
{
	GHashTable *counts = task_accel_get(r->task_accel, t->job, t->index);
	const int64_t *n;

	if (counts == NULL)
		counts = r->accel;
	n = counts != NULL ? g_hash_table_lookup(counts, "GPU") : NULL;
	return n != NULL && *n > 0 ? *n : -1;
}

/*
 * DeepSpeed reads "slots" as the GPUs of a host and starts one process per
 * GPU: the sum of its tasks' GPUs. A host with a task of unknown count gets
 * its task count, with one warning for all such hosts.
 */
static GArray *fw_deepspeed_slots(const cr_result *r, const fw_world *w)
{
	GArray *slots = g_array_sized_new(FALSE, TRUE, sizeof(guint64), w->hosts->len);
	GArray *unknown = g_array_sized_new(FALSE, TRUE, sizeof(gboolean), w->hosts->len);
	guint first = G_MAXUINT, missing = 0;

	g_array_set_size(slots, w->hosts->len);
	g_array_set_size(unknown, w->hosts->len);
	for (guint i = 0; i < w->tasks->len; i++) {
		const fw_task *t = &g_array_index(w->tasks, fw_task, i);
		int64_t gpus = fw_task_gpus(r, t);

		if (gpus < 0)
			g_array_index(unknown, gboolean, t->node) = TRUE;
		else
			g_array_index(slots, guint64, t->node) += (guint64)gpus;
	}
	for (guint i = 0; i < w->hosts->len; i++) {
		if (!g_array_index(unknown, gboolean, i))
			continue;
		g_array_index(slots, guint64, i) = g_array_index(w->slots, guint, i);
		first = MIN(first, i);
		missing++;
	}
	if (missing == 1)
		result_log(
			r, CR_LOG_WARNING,
			"format 'hostfile' (dialect deepspeed): no GPU count is known for host "
			"'%s': slots= is its task count, but DeepSpeed reads slots= as GPUs (set "
			"num_accelerators = { GPU = N; }, the GPUs of each task)",
			(const char *)g_ptr_array_index(w->hosts, first));
	else if (missing > 1)
		result_log(
			r, CR_LOG_WARNING,
			"format 'hostfile' (dialect deepspeed): no GPU count is known for %u "
			"hosts (the first '%s'): slots= is their task count, but DeepSpeed reads "
			"slots= as GPUs (set num_accelerators = { GPU = N; }, the GPUs of each "
			"task)",
			missing, (const char *)g_ptr_array_index(w->hosts, first));
	g_array_unref(unknown);
	return slots;
}

/* One line per node with its slots: world tasks on that host, or with
 * dialect deepspeed its GPUs. */
cr_status fmt_hostfile(const cr_result *r, const char *const *options, GString *out, cr_error *err)
{
	fw_world *w;
	fw_opts o;
	cr_status st =
		fw_open_world(r, "hostfile", options, FW_OPT_JOBS | FW_OPT_DIALECT, &o, &w, err);
	bool colon = st == CR_OK && strcmp(o.dialect, "mpich") == 0;
	GArray *gpus = NULL;

	if (colon)
		st = fw_refuse_ipv6(w, "format 'hostfile' (dialect mpich)", " or --dialect openmpi",
				    err);
	if (st == CR_OK && strcmp(o.dialect, "deepspeed") == 0)
		gpus = fw_deepspeed_slots(r, w);
	for (guint i = 0; st == CR_OK && i < w->hosts->len; i++) {
		char *name = fw_bare_host(g_ptr_array_index(w->hosts, i));

		if (gpus != NULL)
			g_string_append_printf(out, "%s slots=%" G_GUINT64_FORMAT "\n", name,
					       g_array_index(gpus, guint64, i));
		else
			g_string_append_printf(out, colon ? "%s:%u\n" : "%s slots=%u\n", name,
					       g_array_index(w->slots, guint, i));
		g_free(name);
	}
	if (gpus != NULL)
		g_array_unref(gpus);
	fw_world_free(w);
	return st;
}

/* What a Horovod host discovery script prints: "host:slots" per line. */
cr_status fmt_horovod(const cr_result *r, const char *const *options, GString *out, cr_error *err)
{
	fw_world *w;
	fw_opts o;
	cr_status st = fw_open_world(r, "horovod", options, FW_OPT_JOBS, &o, &w, err);

	if (st == CR_OK)
		st = fw_refuse_ipv6(w, "format 'horovod'", "", err);
	for (guint i = 0; st == CR_OK && i < w->hosts->len; i++)
		g_string_append_printf(out, "%s:%u\n", (const char *)g_ptr_array_index(w->hosts, i),
				       g_array_index(w->slots, guint, i));
	fw_world_free(w);
	return st;
}

/* The world's addresses, one a line: line N is rank N. */
cr_status fmt_hosts(const cr_result *r, const char *const *options, GString *out, cr_error *err)
{
	fw_world *w;
	fw_opts o;
	cr_status st = fw_open_world(r, "hosts", options, FW_OPT_JOBS, &o, &w, err);

	for (guint i = 0; st == CR_OK && i < w->tasks->len; i++)
		g_string_append_printf(out, "%s\n", g_array_index(w->tasks, fw_task, i).address);
	fw_world_free(w);
	return st;
}
