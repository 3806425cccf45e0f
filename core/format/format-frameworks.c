/* SPDX-License-Identifier: MIT */
/*
 * format-frameworks.c - the cluster in the terms of non-TensorFlow launchers:
 * torch.distributed's, torchrun's (PET_*) and JAX's variables and shell
 * `export` lines; the host lists (MPI / DeepSpeed hostfiles, Horovod
 * discovery lines, a plain address list) are format-hostfiles.c, on the
 * world this file builds. The rendezvous port (master_port, port_range, job_id)
 * and the socket interface (ifname) are options, with defaults from the
 * config's `formats` group (r->format_options).
 *
 * All of them look at one "world": the tasks of the jobs named by the `jobs`
 * option (default chief, master, worker, in that order), each job's tasks by
 * ascending index. Rank N is the Nth task of that walk. ps and evaluator
 * tasks are not part of it unless asked for. The host of an address is
 * everything before its last ':' ("[::1]:2222" -> "[::1]"; MASTER_ADDR and
 * the "slots=" hostfiles drop the brackets, the "host:count" lists of MPICH
 * and Horovod refuse it); the hosts of the
 * world, in order of first appearance, are its nodes. A task's local rank is
 * its position among the world's tasks on the same host.
 */
#include <string.h>

#include <glib.h>

#include "format/format-private.h"
#include "values/format-options.h"

/* ---- the world ----------------------------------------------------------- */

/* @host without the brackets of an IPv6 literal ("[::1]" -> "::1"): what
 * getaddrinfo(), and so PyTorch's TCPStore and Open MPI, accept. */
char *fw_bare_host(const char *host)
{
	size_t len = strlen(host);

	if (len >= 2 && host[0] == '[' && host[len - 1] == ']')
		return g_strndup(host + 1, len - 2);
	return g_strdup(host);
}

/* Host and port of @addr; "[v6]:port" keeps its brackets in the host. */
static void fw_split_address(const char *addr, char **host, const char **port)
{
	const char *rb = addr[0] == '[' ? strchr(addr, ']') : NULL;
	const char *colon;

	if (rb != NULL) {
		*host = g_strndup(addr, (gsize)(rb - addr + 1));
		*port = rb[1] == ':' ? rb + 2 : NULL;
	} else if ((colon = strrchr(addr, ':')) != NULL) {
		*host = g_strndup(addr, (gsize)(colon - addr));
		*port = colon + 1;
	} else {
		*host = g_strdup(addr);
		*port = NULL;
	}
	if (*port != NULL && **port == '\0')
		*port = NULL;
}

void fw_world_free(fw_world *w)
{
	if (w == NULL)
		return;
	for (guint i = 0; w->tasks != NULL && i < w->tasks->len; i++)
		g_free(g_array_index(w->tasks, fw_task, i).host); /* NULL: unknown */
	if (w->tasks != NULL)
		g_array_unref(w->tasks);
	if (w->hosts != NULL)
		g_ptr_array_unref(w->hosts);
	if (w->slots != NULL)
		g_array_unref(w->slots);
	g_free(w->jobs_text);
	g_free(w);
}

/* Split the comma-separated job list; refuses empty and repeated names. */
static cr_status fw_job_list(const char *format, const char *jobs, char ***out, cr_error *err)
{
	char **names = g_strsplit(jobs, ",", -1);

	for (guint i = 0; names[i] != NULL; i++) {
		bool dup = false;

		for (guint k = 0; k < i; k++)
			dup = dup || strcmp(names[k], names[i]) == 0;
		if (names[i][0] == '\0' || dup) {
			cr_status st = error_set(err, CR_ERR_INVALID_ARG,
						 "format '%s': option jobs='%s' has %s job name",
						 format, jobs, dup ? "a repeated" : "an empty");
			g_strfreev(names);
			return st;
		}
	}
	*out = names;
	return CR_OK;
}

/* Append the tasks of @job in index order, numbering new hosts as nodes; a
 * job of a declared size has its unknown tasks too, with no host. */
static void fw_add_job(fw_world *w, const cr_spec *spec, const char *job, GHashTable *nodes)
{
	const int32_t *idx = NULL;
	size_t n = 0, size = 0, k = 0;

	if (cr_spec_task_indices(spec, job, &idx, &n, NULL) != CR_OK)
		return;
	if (cr_spec_num_unknown(spec, job) > 0)
		cr_spec_job_size(spec, job, &size, NULL);
	for (size_t t = 0; t < n || k < size; t++) {
		fw_task task = { .job = job, .index = size > 0 ? (int32_t)k++ : idx[t] };
		gpointer node;

		if (cr_spec_task_address(spec, job, task.index, &task.address, NULL) != CR_OK) {
			task.node = G_MAXUINT;
			w->unknown++;
			g_array_append_val(w->tasks, task);
			continue;
		}
		fw_split_address(task.address, &task.host, &task.port);
		if (!g_hash_table_lookup_extended(nodes, task.host, NULL, &node)) {
			node = GUINT_TO_POINTER(w->hosts->len);
			g_hash_table_insert(nodes, task.host, node);
			g_ptr_array_add(w->hosts, task.host);
			g_array_append_val(w->slots, (guint){ 0 });
		}
		task.node = GPOINTER_TO_UINT(node);
		g_array_index(w->slots, guint, task.node)++;
		g_array_append_val(w->tasks, task);
	}
}

cr_status fw_world_build(const cr_result *r, const char *format, const fw_opts *o, fw_world **out,
			 cr_error *err)
{
	fw_world *w;
	GHashTable *nodes;
	char **jobs = NULL;
	cr_status st = fw_job_list(format, o->jobs, &jobs, err);

	*out = NULL;
	if (st != CR_OK)
		return st;
	w = g_new0(fw_world, 1);
	w->format = format;
	w->jobs_text = g_strjoinv(", ", jobs);
	w->tasks = g_array_new(FALSE, TRUE, sizeof(fw_task));
	w->hosts = g_ptr_array_new();
	w->slots = g_array_new(FALSE, TRUE, sizeof(guint));
	w->self = -1;
	nodes = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint j = 0; jobs[j] != NULL; j++) {
		/* The spec's own copy of the name outlives the world. */
		for (size_t k = 0; k < cr_spec_num_jobs(r->spec); k++)
			if (strcmp(cr_spec_job_name(r->spec, k), jobs[j]) == 0)
				fw_add_job(w, r->spec, cr_spec_job_name(r->spec, k), nodes);
	}
	g_hash_table_unref(nodes);
	g_strfreev(jobs);
	for (guint i = 0; r->task_type != NULL && r->task_id >= 0 && i < w->tasks->len; i++) {
		const fw_task *t = &g_array_index(w->tasks, fw_task, i);

		if (t->index == r->task_id && strcmp(t->job, r->task_type) == 0)
			w->self = (gssize)i;
	}
	if (w->tasks->len == 0) {
		st = error_set(err, CR_ERR_NOT_FOUND, "format '%s': no task in jobs %s", format,
			       w->jobs_text);
		fw_world_free(w);
		return st;
	}
	*out = w;
	return CR_OK;
}

/* Whether this process is in the world; else an error saying why not. */
static cr_status fw_need_self(const cr_result *r, const fw_world *w, cr_error *err)
{
	if (r->task_type == NULL || r->task_id < 0)
		return error_set(err, CR_ERR_NOT_FOUND,
				 "format '%s' needs this process's task type and id, and none "
				 "was resolved (give --task-type and --task-id)",
				 w->format);
	if (w->self < 0)
		return error_set(err, CR_ERR_NOT_FOUND,
				 "format '%s': task '%s' %" G_GINT64_FORMAT
				 " is not in the world (jobs %s; choose others with jobs=)",
				 w->format, r->task_type, r->task_id, w->jobs_text);
	return CR_OK;
}

/*
 * master_port=auto: a port of [port_lo, port_hi] that every task of the job
 * computes alike and two jobs sharing rank 0's node do not. A numeric job
 * id (Slurm's) maps to LO + id mod span, so consecutive jobs never share a
 * port within a span; any other id, or the world's address list when no id
 * is given, is hashed (FNV-1a, 64 bits).
 */
static guint fw_derived_port(const fw_world *w, const fw_opts *o)
{
	guint64 span = (guint64)o->port_hi - o->port_lo + 1, h = 14695981039346656037ull;
	const char *id = o->job_id;

	if (id != NULL && strlen(id) <= 19 && id[strspn(id, "0123456789")] == '\0')
		return o->port_lo + (guint)(g_ascii_strtoull(id, NULL, 10) % span);
	for (guint i = 0; id == NULL && i < w->tasks->len; i++)
		for (const char *p = g_array_index(w->tasks, fw_task, i).address; p != NULL; p++) {
			h = (h ^ (guchar)*p) * 1099511628211ull;
			if (*p == '\0')
				break;
		}
	for (const char *p = id; p != NULL && *p != '\0'; p++)
		h = (h ^ (guchar)*p) * 1099511628211ull;
	return o->port_lo + (guint)(h % span);
}

/* Rank 0 and the port its rendezvous listens on: master_port, else rank
 * 0's own port, which it must then have. */
static cr_status fw_coordinator(const fw_world *w, const fw_opts *o, const fw_task **t0,
				char **port, cr_error *err)
{
	*t0 = &g_array_index(w->tasks, fw_task, 0);
	*port = NULL;
	if ((*t0)->address == NULL)
		return error_set(err, CR_ERR_BACKEND,
				 "format '%s': the address of task '%s' %d (rank 0) is unknown",
				 w->format, (*t0)->job, (int)(*t0)->index);
	if (o->master_port != NULL && strcmp(o->master_port, "auto") == 0)
		*port = g_strdup_printf("%u", fw_derived_port(w, o));
	else if (o->master_port != NULL)
		*port = g_strdup(o->master_port);
	else if ((*t0)->port != NULL)
		*port = g_strdup((*t0)->port);
	else
		return error_set(err, CR_ERR_BACKEND,
				 "format '%s': address '%s' of task '%s' %d (rank 0) has no port",
				 w->format, (*t0)->address, (*t0)->job, (int)(*t0)->index);
	return CR_OK;
}

/* ---- variables ----------------------------------------------------------- */

static void fw_put(GPtrArray *pairs, const char *name, char *value /* taken */)
{
	g_ptr_array_add(pairs, g_strdup(name));
	g_ptr_array_add(pairs, value);
}

/* NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME when ifname= was given. */
static cr_status fw_ifname_vars(const fw_world *w, const fw_opts *o, GPtrArray *pairs,
				cr_error *err)
{
	char *name, *bare;

	if (o->ifname == NULL)
		return CR_OK;
	if (strcmp(o->ifname, "auto") != 0) {
		name = g_strdup(o->ifname);
	} else if (g_array_index(w->tasks, fw_task, w->self).host == NULL) {
		return error_set(err, CR_ERR_BACKEND,
				 "format '%s': ifname=auto needs this task's address, which is "
				 "unknown (give ifname=NAME)",
				 w->format);
	} else {
		bare = fw_bare_host(g_array_index(w->tasks, fw_task, w->self).host);
		name = fw_interface_of(w->format, bare, err);
		g_free(bare);
		if (name == NULL)
			return CR_ERR_BACKEND;
	}
	fw_put(pairs, "NCCL_SOCKET_IFNAME", g_strdup(name));
	fw_put(pairs, "GLOO_SOCKET_IFNAME", name);
	return CR_OK;
}

static cr_status fw_tf_config_var(const cr_result *r, GPtrArray *pairs, cr_error *err)
{
	GString *text = g_string_new(NULL);
	cr_status st = fmt_tf_config(r, NULL, text, err);

	if (st != CR_OK) {
		g_string_free(text, TRUE);
		return st;
	}
	if (text->len > 0 && text->str[text->len - 1] == '\n')
		g_string_truncate(text, text->len - 1);
	fw_put(pairs, "TF_CONFIG", g_string_free(text, FALSE));
	return CR_OK;
}

/* This task's node, its rank there and its node's tasks: the place the
 * launcher gave (result_set_task_place: torchrun's GROUP_RANK, LOCAL_RANK,
 * which hold even where another resolver filled in the addresses), else
 * counted from the addresses; with unknown addresses and no place, an
 * error. */
static cr_status fw_place(const cr_result *r, const fw_world *w, task_place *p, cr_error *err)
{
	const fw_task *me = &g_array_index(w->tasks, fw_task, w->self);

	if (r->place.num_nodes > 0) {
		*p = r->place;
		return CR_OK;
	}
	if (w->unknown > 0)
		return error_set(err, CR_ERR_BACKEND,
				 "format '%s': %u tasks of the world have no known address and no "
				 "resolver gave this task's node: its local rank cannot be counted",
				 w->format, w->unknown);
	*p = (task_place){ .node_rank = me->node, .num_nodes = w->hosts->len };
	for (gssize i = 0; i < w->self; i++)
		p->local_rank += g_array_index(w->tasks, fw_task, i).node == me->node;
	p->local_size = g_array_index(w->slots, guint, me->node);
	return CR_OK;
}

/* The variables torch.distributed's env:// reads, for this process (one
 * process per task). */
static cr_status fw_torch_vars(const cr_result *r, const fw_world *w, const fw_opts *o,
			       GPtrArray *pairs, cr_error *err)
{
	const fw_task *t0 = NULL;
	char *port = NULL;
	task_place p;
	cr_status st = fw_need_self(r, w, err);

	if (st == CR_OK)
		st = fw_place(r, w, &p, err);
	if (st == CR_OK)
		st = fw_coordinator(w, o, &t0, &port, err);
	if (st != CR_OK)
		return st;
	fw_put(pairs, "MASTER_ADDR", fw_bare_host(t0->host));
	fw_put(pairs, "MASTER_PORT", port);
	fw_put(pairs, "WORLD_SIZE", g_strdup_printf("%u", w->tasks->len));
	fw_put(pairs, "RANK", g_strdup_printf("%" G_GSSIZE_FORMAT, w->self));
	fw_put(pairs, "LOCAL_RANK", g_strdup_printf("%" G_GINT64_FORMAT, p.local_rank));
	fw_put(pairs, "LOCAL_WORLD_SIZE", g_strdup_printf("%" G_GINT64_FORMAT, p.local_size));
	fw_put(pairs, "NODE_RANK", g_strdup_printf("%" G_GINT64_FORMAT, p.node_rank));
	fw_put(pairs, "GROUP_RANK", g_strdup_printf("%" G_GINT64_FORMAT, p.node_rank));
	return fw_ifname_vars(w, o, pairs, err);
}

/*
 * torchrun counts hosts as nodes and starts one agent per host: two tasks
 * on one host become two agents that each believe they are a node, with
 * the same node rank and the same master port. Said once, for the first
 * such host.
 */
static void fw_warn_shared_hosts(const cr_result *r, const fw_world *w)
{
	for (guint i = 0; i < w->hosts->len; i++) {
		guint n = g_array_index(w->slots, guint, i);

		if (n < 2)
			continue;
		result_log(r, CR_LOG_WARNING,
			   "format 'torchrun': host '%s' has %u tasks, but torchrun expects one "
			   "agent per host: give it one task and --nproc_per_node %u, or use "
			   "--format torch",
			   (const char *)g_ptr_array_index(w->hosts, i), n, n);
		return;
	}
}

/*
 * torchrun's own variables: one torchrun per node (host), each starting
 * that node's processes itself. torchrun takes every option from PET_NAME
 * (--nnodes: PET_NNODES) and ignores MASTER_ADDR and WORLD_SIZE. Static
 * rendezvous (the default): node N's rank is the position of its host among
 * the world's hosts, rank 0's host is the master. rdzv=c10d: the nodes meet
 * at rank 0's host and port and torchrun numbers them itself.
 */
static cr_status fw_torchrun_vars(const cr_result *r, const fw_world *w, const fw_opts *o,
				  GPtrArray *pairs, cr_error *err)
{
	bool c10d = strcmp(o->rdzv, "c10d") == 0;
	const fw_task *t0 = NULL;
	char *port = NULL;
	task_place p;
	cr_status st = fw_need_self(r, w, err);

	if (st == CR_OK)
		st = fw_place(r, w, &p, err);
	if (st == CR_OK)
		st = fw_coordinator(w, o, &t0, &port, err);
	if (st != CR_OK)
		return st;
	if (w->unknown == 0)
		fw_warn_shared_hosts(r, w);
	fw_put(pairs, "PET_NNODES", g_strdup_printf("%" G_GINT64_FORMAT, p.num_nodes));
	if (c10d) {
		fw_put(pairs, "PET_RDZV_BACKEND", g_strdup("c10d"));
		fw_put(pairs, "PET_RDZV_ENDPOINT", g_strdup_printf("%s:%s", t0->host, port));
		/* Every node must give the same id; the job's own when known. */
		fw_put(pairs, "PET_RDZV_ID",
		       o->job_id != NULL
			       ? g_strdup(o->job_id)
			       : g_strdup_printf(
					 "cluster-resolver-%u",
					 fw_derived_port(
						 w, &(fw_opts){ .port_lo = 0, .port_hi = 65535 })));
		g_free(port);
	} else {
		fw_put(pairs, "PET_NODE_RANK", g_strdup_printf("%" G_GINT64_FORMAT, p.node_rank));
		fw_put(pairs, "PET_MASTER_ADDR", fw_bare_host(t0->host));
		fw_put(pairs, "PET_MASTER_PORT", port);
	}
	return fw_ifname_vars(w, o, pairs, err);
}

/* jax.distributed.initialize()'s variables. */
static cr_status fw_jax_vars(const cr_result *r, const fw_world *w, const fw_opts *o,
			     GPtrArray *pairs, cr_error *err)
{
	const fw_task *t0 = NULL;
	char *port = NULL;
	cr_status st = fw_need_self(r, w, err);

	if (st == CR_OK)
		st = fw_coordinator(w, o, &t0, &port, err);
	if (st != CR_OK)
		return st;
	fw_put(pairs, "JAX_COORDINATOR_ADDRESS", g_strdup_printf("%s:%s", t0->host, port));
	fw_put(pairs, "JAX_NUM_PROCESSES", g_strdup_printf("%u", w->tasks->len));
	fw_put(pairs, "JAX_PROCESS_ID", g_strdup_printf("%" G_GSSIZE_FORMAT, w->self));
	g_free(port);
	return CR_OK;
}

/*
 * `env`: TF_CONFIG; torch and jax variables when this process is a task of
 * the world; then what the resolvers asked for (CUDA_VISIBLE_DEVICES, ...).
 */
static cr_status fw_env_vars(const cr_result *r, const fw_opts *o, GPtrArray *pairs, cr_error *err)
{
	fw_world *w = NULL;
	char **jobs = NULL;
	cr_status st = fw_job_list("env", o->jobs, &jobs, err);

	g_strfreev(jobs);
	/* Without every address there is no TF_CONFIG, only the rest. */
	if (st == CR_OK && format_need_addresses(r, "env", NULL) == CR_OK)
		st = fw_tf_config_var(r, pairs, err);
	/* An empty world only means there is nothing to add to TF_CONFIG. */
	if (st == CR_OK && fw_world_build(r, "env", o, &w, NULL) == CR_OK && w->self >= 0) {
		st = fw_torch_vars(r, w, o, pairs, err);
		if (st == CR_OK)
			st = fw_jax_vars(r, w, o, pairs, err);
	}
	fw_world_free(w);
	for (size_t i = 0; st == CR_OK && i < cr_result_num_env(r); i++) {
		const char *name, *value;

		if (cr_result_env(r, i, &name, &value))
			fw_put(pairs, name, g_strdup(value));
	}
	return st;
}

/* The variable formats and the options each takes. */
static const struct {
	const char *name;
	unsigned options;
	cr_status (*vars)(const cr_result *r, const fw_world *w, const fw_opts *o, GPtrArray *pairs,
			  cr_error *err);
} fw_var_formats[] = {
	{ "tf_config", 0, NULL },
	{ "torch", FW_OPT_JOBS | FW_OPT_PORT | FW_OPT_IFNAME, fw_torch_vars },
	{ "torchrun", FW_OPT_JOBS | FW_OPT_PORT | FW_OPT_IFNAME | FW_OPT_RDZV, fw_torchrun_vars },
	{ "jax", FW_OPT_JOBS | FW_OPT_PORT, fw_jax_vars },
	/* env holds the torch and jax variables: their options too. */
	{ "env", FW_OPT_JOBS | FW_OPT_PORT | FW_OPT_IFNAME, NULL },
};

/* Fill @pairs (name, value, ...) for one of the variable formats. */
static cr_status fw_vars(const cr_result *r, const char *format, const char *const *options,
			 GPtrArray *pairs, cr_error *err)
{
	fw_world *w = NULL;
	fw_opts o;
	cr_status st;
	size_t k = 0;

	while (k < G_N_ELEMENTS(fw_var_formats) && strcmp(fw_var_formats[k].name, format) != 0)
		k++;
	if (k == G_N_ELEMENTS(fw_var_formats))
		return error_set(err, CR_ERR_INVALID_ARG,
				 "format '%s' sets no environment variables (these do: "
				 "tf_config, torch, torchrun, jax, env)",
				 format);
	st = fw_parse_options(r, format, options, fw_var_formats[k].options, &o, err);
	if (st != CR_OK)
		return st;
	if (strcmp(format, "tf_config") == 0)
		return fw_tf_config_var(r, pairs, err);
	if (strcmp(format, "env") == 0)
		return fw_env_vars(r, &o, pairs, err);
	st = fw_world_build(r, format, &o, &w, err);
	if (st == CR_OK)
		st = fw_var_formats[k].vars(r, w, &o, pairs, err);
	fw_world_free(w);
	return st;
}

cr_status cr_result_env_vars(const cr_result *result, const char *format,
			     const char *const *options, char ***pairs, cr_error *err)
{
	GPtrArray *a;
	cr_status st;

	if (result == NULL || format == NULL || pairs == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_result_env_vars: NULL argument");
	*pairs = NULL;
	a = g_ptr_array_new_with_free_func(g_free);
	st = fw_vars(result, format, options, a, err);
	if (st != CR_OK) {
		g_ptr_array_unref(a);
		return st;
	}
	g_ptr_array_set_free_func(a, NULL);
	g_ptr_array_add(a, NULL);
	*pairs = (char **)g_ptr_array_free(a, FALSE);
	return CR_OK;
}

/* ---- shell output -------------------------------------------------------- */

/* `export NAME='value'`: inside single quotes only ' itself needs care. */
static void fw_export(GString *out, const char *name, const char *value)
{
	g_string_append_printf(out, "export %s='", name);
	for (const char *p = value; *p != '\0'; p++) {
		if (*p == '\'')
			g_string_append(out, "'\\''");
		else
			g_string_append_c(out, *p);
	}
	g_string_append(out, "'\n");
}

static cr_status fw_print_exports(const cr_result *r, const char *format,
				  const char *const *options, GString *out, cr_error *err)
{
	GPtrArray *pairs = g_ptr_array_new_with_free_func(g_free);
	cr_status st = fw_vars(r, format, options, pairs, err);

	for (guint i = 0; st == CR_OK && i + 1 < pairs->len; i += 2) {
		const char *name = g_ptr_array_index(pairs, i);

		if (!env_name_valid(name))
			st = error_set(
				err, CR_ERR_INVALID_ARG,
				"format '%s': variable name '%s' cannot be exported by a shell",
				format, name);
		else
			fw_export(out, name, g_ptr_array_index(pairs, i + 1));
	}
	g_ptr_array_unref(pairs);
	return st;
}

cr_status fmt_env(const cr_result *r, const char *const *options, GString *out, cr_error *err)
{
	return fw_print_exports(r, "env", options, out, err);
}

cr_status fmt_torch(const cr_result *r, const char *const *options, GString *out, cr_error *err)
{
	return fw_print_exports(r, "torch", options, out, err);
}

cr_status fmt_jax(const cr_result *r, const char *const *options, GString *out, cr_error *err)
{
	return fw_print_exports(r, "jax", options, out, err);
}

cr_status fmt_torchrun(const cr_result *r, const char *const *options, GString *out, cr_error *err)
{
	return fw_print_exports(r, "torchrun", options, out, err);
}
