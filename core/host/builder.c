/* SPDX-License-Identifier: MIT */
/*
 * builder.c - what a resolver or an accelerator plugin hands the host: the
 * result_* and accel_add slots of the host table, each copying what it is
 * given into the instance's builder (the union takes the builders over).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "host/host-private.h"

/* "JOB\nINDEX" into @key (@len + 22 bytes at least), returned. */
static char *task_key_into(char *key, const char *job, size_t len, int64_t index)
{
	uint64_t v = index < 0 ? -(uint64_t)index : (uint64_t)index;
	char digits[20];
	int n = 0;

	memcpy(key, job, len);
	key[len++] = '\n';
	if (index < 0)
		key[len++] = '-';
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		key[len++] = digits[--n];
	key[len] = '\0';
	return key;
}

char *task_key(const char *job, int64_t index)
{
	size_t len = strlen(job);

	return task_key_into(g_malloc(len + 22), job, len, index); /* '\n', '-', 19 digits, NUL */
}

GHashTable *task_accel_get(GHashTable *task_accel, const char *job, int64_t index)
{
	size_t len = strlen(job);
	char small[128], *key;
	GHashTable *counts;

	if (len + 22 > sizeof(small)) {
		key = task_key(job, index);
		counts = g_hash_table_lookup(task_accel, key);
		g_free(key);
		return counts;
	}
	/* task_key's bytes on the stack: a digest or a format of 10,000 tasks
	 * asks this 10,000 times */
	key = task_key_into(small, job, len, index);
	return g_hash_table_lookup(task_accel, key);
}

void passed_fd_free(gpointer p)
{
	passed_fd *pf = p;

	close(pf->fd);
	g_free(pf->env_name);
	g_free(pf);
}

cr_result_builder *builder_new(cr_instance *inst)
{
	cr_result_builder *b = g_new0(cr_result_builder, 1);

	b->inst = inst;
	b->spec = cr_spec_new();
	b->task_id = -1;
	b->task_accel = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					      (GDestroyNotify)g_hash_table_unref);
	b->own_accel = accel_counts_new();
	b->env = g_ptr_array_new_with_free_func(g_free);
	b->shared = g_hash_table_new(g_direct_hash, g_direct_equal);
	b->fds = g_ptr_array_new_with_free_func(passed_fd_free);
	return b;
}

void builder_free(cr_result_builder *b)
{
	if (b == NULL)
		return;
	cr_spec_free(b->spec);
	g_free(b->task_type);
	g_free(b->rpc_layer);
	g_free(b->environment);
	g_free(b->master);
	g_hash_table_unref(b->task_accel);
	g_hash_table_unref(b->own_accel);
	g_ptr_array_unref(b->env);
	if (b->last_counts != NULL)
		g_hash_table_unref(b->last_counts);
	g_hash_table_unref(b->shared);
	g_ptr_array_unref(b->fds);
	if (b->facts != NULL)
		json_object_put(b->facts);
	g_free(b->launcher);
	g_free(b);
}

#define CHECK_B(b, ...)                                                                            \
	do {                                                                                       \
		if ((b) == NULL || __VA_ARGS__)                                                    \
			return error_set(err, CR_ERR_INVALID_ARG, "%s: invalid argument",          \
					 G_STRFUNC);                                               \
	} while (0)

cr_status host_result_add_job(cr_result_builder *b, const char *job, cr_error *err)
{
	CHECK_B(b, job == NULL);
	return cr_spec_add_job(b->spec, job, err);
}

cr_status host_result_append_task(cr_result_builder *b, const char *job, const char *address,
				  cr_error *err)
{
	CHECK_B(b, job == NULL || address == NULL);
	return cr_spec_append_task(b->spec, job, address, err);
}

cr_status host_result_add_task(cr_result_builder *b, const char *job, int64_t index,
			       const char *address, cr_error *err)
{
	CHECK_B(b, job == NULL || address == NULL);
	return cr_spec_add_task(b->spec, job, index, address, err);
}

cr_status host_result_set_task(cr_result_builder *b, const char *task_type, int64_t task_id,
			       cr_error *err)
{
	CHECK_B(b, task_type == NULL);
	if (task_id < 0 || task_id > G_MAXINT32)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "task id %" G_GINT64_FORMAT " is out of range (0..2147483647)",
				 task_id);
	if (spec_check_name(err, "task type", task_type) != CR_OK)
		return CR_ERR_INVALID_ARG;
	g_free(b->task_type);
	b->task_type = g_strdup(task_type);
	b->task_id = task_id;
	b->has_task = true;
	return CR_OK;
}

cr_status host_result_set_job_size(cr_result_builder *b, const char *job, int64_t size,
				   const char *launcher, cr_error *err)
{
	cr_status st;

	CHECK_B(b, job == NULL || launcher == NULL);
	if (spec_check_name(err, "launcher", launcher) != CR_OK)
		return CR_ERR_INVALID_ARG;
	st = cr_spec_set_job_size(b->spec, job, size, err);
	if (st == CR_OK) {
		g_free(b->launcher);
		b->launcher = g_strdup(launcher);
	}
	return st;
}

cr_status host_result_set_task_place(cr_result_builder *b, int64_t node_rank, int64_t num_nodes,
				     int64_t local_rank, int64_t local_size, cr_error *err)
{
	CHECK_B(b, false);
	if (num_nodes < 1 || node_rank < 0 || node_rank >= num_nodes || local_size < 1 ||
	    local_rank < 0 || local_rank >= local_size || num_nodes > G_MAXINT32 ||
	    local_size > G_MAXINT32)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "task place: node %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT
				 ", local rank %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT
				 " (a rank must be below its size)",
				 node_rank, num_nodes, local_rank, local_size);
	b->place = (task_place){ node_rank, num_nodes, local_rank, local_size };
	return CR_OK;
}

/* @what names the value in a refusal: it goes into every output format, so
 * it must be UTF-8 without control characters. */
static cr_status set_str(char **slot, const char *what, const char *value, cr_error *err)
{
	if (value == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "NULL value");
	if (spec_check_name(err, what, value) != CR_OK)
		return CR_ERR_INVALID_ARG;
	g_free(*slot);
	*slot = g_strdup(value);
	return CR_OK;
}

cr_status host_result_set_rpc_layer(cr_result_builder *b, const char *rpc_layer, cr_error *err)
{
	CHECK_B(b, false);
	return set_str(&b->rpc_layer, "rpc layer", rpc_layer, err);
}

cr_status host_result_set_environment(cr_result_builder *b, const char *env, cr_error *err)
{
	CHECK_B(b, false);
	return set_str(&b->environment, "environment", env, err);
}

cr_status host_result_set_master(cr_result_builder *b, const char *master, cr_error *err)
{
	CHECK_B(b, false);
	return set_str(&b->master, "master", master, err);
}

/* Whether @counts is exactly { @kind: @n }. */
static bool counts_are(GHashTable *counts, const char *kind, int64_t n)
{
	const int64_t *v;

	if (counts == NULL || g_hash_table_size(counts) != 1)
		return false;
	v = g_hash_table_lookup(counts, kind);
	return v != NULL && *v == n;
}

static GHashTable *counts_copy(GHashTable *counts)
{
	GHashTable *copy = accel_counts_new();
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, counts);
	while (g_hash_table_iter_next(&it, &k, &v))
		accel_counts_put(copy, k, *(int64_t *)v);
	return copy;
}

/* Tasks usually have the same counts (every task of a Slurm step one GPU):
 * a task whose first count equals the last task's shares that table, and
 * a shared table is copied before it changes. */
cr_status host_result_set_task_accelerators(cr_result_builder *b, const char *job, int64_t index,
					    const char *kind, int64_t count, cr_error *err)
{
	GHashTable *counts;
	char *key;

	CHECK_B(b, kind == NULL || *kind == '\0' || count < 0);
	if (job == NULL) { /* this process's own task */
		accel_counts_put(b->own_accel, kind, count);
		return CR_OK;
	}
	key = task_key(job, index);
	counts = g_hash_table_lookup(b->task_accel, key);
	if (counts == NULL && counts_are(b->last_counts, kind, count)) {
		g_hash_table_add(b->shared, b->last_counts);
		g_hash_table_insert(b->task_accel, key, g_hash_table_ref(b->last_counts));
		return CR_OK;
	}
	if (counts == NULL || g_hash_table_contains(b->shared, counts)) {
		counts = counts == NULL ? accel_counts_new() : counts_copy(counts);
		g_hash_table_replace(b->task_accel, key, counts);
	} else {
		g_free(key);
	}
	accel_counts_put(counts, kind, count);
	if (b->last_counts != counts) {
		if (b->last_counts != NULL)
			g_hash_table_unref(b->last_counts);
		b->last_counts = g_hash_table_ref(counts);
	}
	return CR_OK;
}

/* Facts for `explain`, in the order first set; a cr_json is a json-c node
 * (json.c), copied whole. A NULL @value is JSON null. */
/* Store @value (owned) as fact @key of @b, replacing an earlier one. */
static void put_fact(cr_result_builder *b, const char *key, json_object *value)
{
	if (b->facts == NULL)
		b->facts = json_object_new_object();
	json_object_object_add(b->facts, key, value);
}

cr_status host_result_set_fact(cr_result_builder *b, const char *key, const cr_json *value,
			       cr_error *err)
{
	json_object *copy = NULL;

	CHECK_B(b, key == NULL || *key == '\0');
	if (value != NULL && json_object_deep_copy((json_object *)(void *)value, &copy, NULL) != 0)
		return error_set(err, CR_ERR_INVALID_ARG, "fact '%s': the value cannot be copied",
				 key);
	put_fact(b, key, copy);
	return CR_OK;
}

cr_status host_result_set_fact_string(cr_result_builder *b, const char *key, const char *value,
				      cr_error *err)
{
	CHECK_B(b, key == NULL || *key == '\0' || value == NULL);
	put_fact(b, key, json_object_new_string(value));
	return CR_OK;
}

cr_status host_result_set_env(cr_result_builder *b, const char *name, const char *value,
			      cr_error *err)
{
	CHECK_B(b, name == NULL || value == NULL || *name == '\0' || strchr(name, '=') != NULL);
	for (guint i = 0; i + 1 < b->env->len; i += 2) {
		if (strcmp(g_ptr_array_index(b->env, i), name) == 0) {
			g_free(b->env->pdata[i + 1]);
			b->env->pdata[i + 1] = g_strdup(value);
			return CR_OK;
		}
	}
	g_ptr_array_add(b->env, g_strdup(name));
	g_ptr_array_add(b->env, g_strdup(value));
	return CR_OK;
}

/* The walk goes into a copy of the builder's spec (empty for most
 * resolvers, so the copy costs nothing) that replaces it only when the whole
 * cluster went in: nothing is added on an error. With no builder the
 * cluster is only checked (a plugin's create() validating its options). */
cr_status host_result_add_cluster_json(cr_result_builder *b, const cr_json *cluster,
				       const char *what, cr_error *err)
{
	cr_spec *next;
	cr_status st;

	if (cluster == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "%s: invalid argument", G_STRFUNC);
	if (what == NULL)
		what = "cluster";
	next = b != NULL ? cr_spec_copy(b->spec) : cr_spec_new();
	st = spec_add_json(next, (json_object *)(void *)cluster, what, err);
	if (st != CR_OK || b == NULL) {
		cr_spec_free(next);
		return st;
	}
	cr_spec_free(b->spec);
	b->spec = next;
	return CR_OK;
}

/* The copy is close-on-exec and at 3 or above, so no path but `exec`'s
 * (which clears the flag) lets it escape; a name passed twice keeps the
 * later descriptor. */
cr_status host_result_pass_fd(cr_result_builder *b, int fd, const char *env_name, cr_error *err)
{
	passed_fd *pf;
	int copy;

	CHECK_B(b, false);
	if (!env_name_valid(env_name))
		return error_set(
			err, CR_ERR_INVALID_ARG,
			"result_pass_fd: \"%s\" is not a variable name ([A-Za-z_][A-Za-z0-9_]*)",
			env_name != NULL ? env_name : "(null)");
	copy = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;
	if (copy < 0 && (fd < 0 || errno == EBADF))
		return error_set(err, CR_ERR_INVALID_ARG,
				 "result_pass_fd: %d is not an open descriptor", fd);
	if (copy < 0)
		return error_set(err, CR_ERR_IO,
				 "result_pass_fd: cannot duplicate descriptor %d: %s", fd,
				 g_strerror(errno));
	for (guint i = 0; i < b->fds->len; i++) {
		pf = g_ptr_array_index(b->fds, i);
		if (strcmp(pf->env_name, env_name) == 0) {
			g_ptr_array_remove_index(b->fds, i);
			break;
		}
	}
	pf = g_new0(passed_fd, 1);
	pf->fd = copy;
	pf->env_name = g_strdup(env_name);
	g_ptr_array_add(b->fds, pf);
	return CR_OK;
}

void accel_device_free(gpointer p)
{
	accel_device *d = p;

	g_free(d->plugin);
	g_free((char *)d->dev.kind);
	g_free((char *)d->dev.vendor);
	g_free((char *)d->dev.model);
	g_free((char *)d->dev.uuid);
	g_free((char *)d->dev.pci_bus_id);
	g_free((char *)d->dev.visible_by);
	g_free((char *)d->dev.task_job);
	g_free(d);
}

cr_status host_accel_add(cr_accel_list *list, const cr_accel_device *dev, cr_error *err)
{
	accel_device *d;

	if (list == NULL || dev == NULL || dev->kind == NULL || *dev->kind == '\0' ||
	    dev->struct_size < offsetof(cr_accel_device, parent_index) + sizeof(int32_t))
		return error_set(err, CR_ERR_INVALID_ARG, "accel_add: invalid device");
	d = g_new0(accel_device, 1);
	d->plugin = g_strdup(list->inst != NULL ? list->inst->name : "");
	/* Only the fields @dev's struct_size covers: a 1.0 plugin's device is
	 * shorter and belongs to no task in particular. */
	d->dev = (cr_accel_device)CR_ACCEL_DEVICE_INIT;
	memcpy(&d->dev, dev, MIN(dev->struct_size, sizeof(cr_accel_device)));
	if (dev->struct_size < offsetof(cr_accel_device, task_index) + sizeof(dev->task_index)) {
		d->dev.task_job = NULL;
		d->dev.task_index = -1;
	}
	if (d->dev.task_job == NULL)
		d->dev.task_index = -1;
	d->dev.struct_size = sizeof(cr_accel_device);
	d->dev.task_job = g_strdup(d->dev.task_job);
	d->dev.kind = g_strdup(dev->kind);
	d->dev.vendor = g_strdup(dev->vendor);
	d->dev.model = g_strdup(dev->model);
	d->dev.uuid = g_strdup(dev->uuid);
	d->dev.pci_bus_id = g_strdup(dev->pci_bus_id);
	d->dev.visible_by = g_strdup(dev->visible_by);
	g_ptr_array_add(list->devices, d);
	return CR_OK;
}

cr_status host_text_set(cr_text *out, const char *text, cr_error *err)
{
	if (out == NULL || text == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "text_set: NULL argument");
	g_free(out->text);
	out->text = g_strdup(text);
	return CR_OK;
}
