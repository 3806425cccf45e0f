/* SPDX-License-Identifier: MIT */
/*
 * member.c - what a watched context remembers between generations, and the
 * rule that identity follows the member, not the number: a task given by
 * cr_context_set_task() or the config's `task` pins the first generation
 * only; later ones take the identity a resolver reports, else the task of
 * the remembered job whose address the member had, its index derived
 * again; when that address left, this process has no task. The digest
 * that tells one generation from the next is here too: a canonical text
 * (jobs by name, tasks by index, identity, rpc layer, accelerators by
 * task and kind) under SHA-256, so reordered answers are no change.
 */
#include <string.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"

watch_state *watch_state_new(void)
{
	watch_state *ws = g_new0(watch_state, 1);

	return ws;
}

void watch_state_free(watch_state *ws)
{
	if (ws == NULL)
		return;
	g_free(ws->member_job);
	g_free(ws->member_address);
	g_free(ws);
}

bool member_pins_dropped(const cr_context *ctx)
{
	return ctx->watch != NULL && ctx->watch->generation > 0;
}

void member_remember(watch_state *ws, const cr_result *res)
{
	const char *address = NULL;

	if (res->task_type == NULL || res->task_id < 0 ||
	    cr_spec_task_address(res->spec, res->task_type, res->task_id, &address, NULL) != CR_OK)
		return; /* no task now: keep following the last one known */
	g_free(ws->member_job);
	g_free(ws->member_address);
	ws->member_job = g_strdup(res->task_type);
	ws->member_address = g_strdup(address);
}

/* The index of the task of @job at @address in @spec, or -1. */
static int64_t index_of_address(const cr_spec *spec, const char *job, const char *address)
{
	for (size_t j = 0; j < cr_spec_num_jobs(spec); j++) {
		const int32_t *indices;
		const char *const *addrs;
		size_t n;

		if (strcmp(cr_spec_job_name(spec, j), job) != 0)
			continue;
		n = spec_job_arrays(spec, j, &indices, &addrs, NULL);
		for (size_t i = 0; i < n; i++)
			if (strcmp(addrs[i], address) == 0)
				return indices[i];
	}
	return -1;
}

void member_follow(cr_context *ctx, cr_result *res)
{
	watch_state *ws = ctx->watch;
	int64_t index;

	if (!member_pins_dropped(ctx) || ws->member_address == NULL)
		return;
	/* A resolver that knows this process (a pod's name, SLURM_PROCID)
	 * says which task it is now. */
	if (res->task_type != NULL && res->task_id >= 0 &&
	    cr_spec_task_address(res->spec, res->task_type, res->task_id, NULL, NULL) == CR_OK)
		return;
	index = index_of_address(res->spec, ws->member_job, ws->member_address);
	if (index >= 0) {
		g_free(res->task_type);
		res->task_type = g_strdup(ws->member_job);
		res->task_id = index;
		return;
	}
	ctx_log(ctx, CR_LOG_INFO, NULL, "this process's task (%s at %s) left the cluster",
		ws->member_job, ws->member_address);
	g_clear_pointer(&res->task_type, g_free);
	res->task_id = -1;
}

/* ---- the digest ----------------------------------------------------------- */

/* "TAG" @sep "DECIMAL" @end into @out (at least 64 bytes; a tag is a short
 * literal): the bytes g_snprintf's "%s%c%lld%c" gave, without its parsing,
 * which a digest of 10,000 tasks paid some 60,000 times. Returns the length. */
static size_t put_head(char *out, const char *tag, char sep, int64_t v, char end)
{
	size_t n = strlen(tag);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char digits[20];
	int k = 0;

	memcpy(out, tag, n);
	out[n++] = sep;
	if (v < 0)
		out[n++] = '-';
	do {
		digits[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	while (k > 0)
		out[n++] = digits[--k];
	out[n++] = end;
	return n;
}

static void put_str(GChecksum *sum, const char *tag, const char *s)
{
	/* Length-prefixed, so no two different texts give the same bytes. */
	char head[64];
	size_t len = s != NULL ? strlen(s) : 0;
	size_t n = put_head(head, tag, s != NULL ? '=' : '~', (int64_t)len, ':');

	g_checksum_update(sum, (const guchar *)head, (gssize)n);
	if (s != NULL)
		g_checksum_update(sum, (const guchar *)s, (gssize)len);
}

static void put_int(GChecksum *sum, const char *tag, int64_t v)
{
	char text[64];

	g_checksum_update(sum, (const guchar *)text, (gssize)put_head(text, tag, '#', v, ';'));
}

/* A counts table (kind -> count), kinds in order. */
static void put_counts(GChecksum *sum, const char *tag, GHashTable *counts)
{
	GPtrArray *kinds = accel_counts_kinds(counts);

	put_int(sum, tag, kinds->len);
	for (guint i = 0; i < kinds->len; i++) {
		const char *kind = g_ptr_array_index(kinds, i);

		put_str(sum, "k", kind);
		put_int(sum, "n", *(int64_t *)g_hash_table_lookup(counts, kind));
	}
	g_ptr_array_unref(kinds);
}

static gint job_name_cmp(gconstpointer a, gconstpointer b, gpointer spec)
{
	return strcmp(cr_spec_job_name(spec, *(const size_t *)a),
		      cr_spec_job_name(spec, *(const size_t *)b));
}

void result_digest(const cr_result *res, char out[RESULT_DIGEST_LEN + 1])
{
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
	size_t njobs = cr_spec_num_jobs(res->spec);
	GArray *order = g_array_sized_new(FALSE, FALSE, sizeof(size_t), (guint)njobs);

	for (size_t j = 0; j < njobs; j++)
		g_array_append_val(order, j);
	g_array_sort_with_data(order, job_name_cmp, res->spec);
	put_int(sum, "jobs", (int64_t)njobs);
	for (guint o = 0; o < order->len; o++) {
		size_t j = g_array_index(order, size_t, o);
		const char *job = cr_spec_job_name(res->spec, j);
		const int32_t *indices;
		const char *const *addrs;
		size_t n = spec_job_arrays(res->spec, j, &indices, &addrs, NULL);

		put_str(sum, "job", job);
		put_int(sum, "tasks", (int64_t)n);
		/* A declared size only where it says more than the tasks. */
		if (cr_spec_num_unknown(res->spec, job) > 0) {
			size_t size = 0;

			cr_spec_job_size(res->spec, job, &size, NULL);
			put_int(sum, "size", (int64_t)size);
		}
		for (size_t i = 0; i < n; i++) {
			GHashTable *counts = task_accel_get(res->task_accel, job, indices[i]);

			put_int(sum, "i", indices[i]);
			put_str(sum, "a", addrs[i]);
			if (counts != NULL)
				put_counts(sum, "acc", counts);
		}
	}
	put_str(sum, "type", res->task_type);
	put_int(sum, "id", res->task_id);
	put_str(sum, "rpc", res->rpc_layer);
	put_counts(sum, "own", res->accel);
	g_strlcpy(out, g_checksum_get_string(sum), RESULT_DIGEST_LEN + 1);
	g_checksum_free(sum);
	g_array_unref(order);
}

/* ---- the world's id (cr_result_generation_id) ------------------------------ */

/* Its bytes are a contract (the Python package's generation_id() and every
 * CR_GENERATION_ID already handed out), unlike result_digest's. */
static char *generation_id_make(const cr_spec *spec)
{
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
	size_t njobs = cr_spec_num_jobs(spec), len = 32;
	GArray *order = g_array_sized_new(FALSE, FALSE, sizeof(size_t), (guint)njobs);
	guint8 d[32];
	char *hex = g_malloc(17);

	for (size_t j = 0; j < njobs; j++)
		g_array_append_val(order, j);
	g_array_sort_with_data(order, job_name_cmp, (gpointer)spec);
	for (guint o = 0; o < order->len; o++) {
		size_t j = g_array_index(order, size_t, o);
		const char *job = cr_spec_job_name(spec, j);
		const int32_t *indices;
		const char *const *addrs;
		size_t n = spec_job_arrays(spec, j, &indices, &addrs, NULL);

		g_checksum_update(sum, (const guchar *)job, (gssize)strlen(job) + 1);
		for (size_t i = 0; i < n; i++) {
			char num[16];
			int k = g_snprintf(num, sizeof(num), "%d", (int)indices[i]);
			const char *a = addrs[i] != NULL ? addrs[i] : "";

			g_checksum_update(sum, (const guchar *)num, k + 1);
			g_checksum_update(sum, (const guchar *)a, (gssize)strlen(a) + 1);
		}
	}
	g_checksum_get_digest(sum, d, &len);
	for (size_t i = 0; i < 8; i++)
		g_snprintf(hex + 2 * i, 3, "%02x", d[i]);
	g_checksum_free(sum);
	g_array_unref(order);
	return hex;
}

const char *cr_result_generation_id(const cr_result *result)
{
	cr_result *r = (cr_result *)result;
	char *id;

	if (r == NULL)
		return "";
	id = g_atomic_pointer_get(&r->generation_id);
	if (id != NULL)
		return id;
	id = generation_id_make(r->spec);
	if (!g_atomic_pointer_compare_and_exchange(&r->generation_id, NULL, id)) {
		g_free(id);
		id = g_atomic_pointer_get(&r->generation_id);
	}
	return id;
}
