/* SPDX-License-Identifier: MIT */
/*
 * member.c - what a watched context remembers between generations, and the
 * rule that identity follows the member, not the number: a task given by
 * cr_context_set_task() or the config's `task` pins the first generation
 * only; later ones take the identity a resolver reports, else the task of
 * the remembered job whose address the member had, its index derived
 * again; when that address left, this process has no task. What
 * tells one generation from the next is here too: a canonical text
 * (jobs by name, tasks by index, identity, rpc layer, accelerators by
 * task and kind), kept and compared, so reordered answers are no change.
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
	if (ws->canon != NULL)
		g_bytes_unref(ws->canon);
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

/* ---- the canonical text ---------------------------------------------------- */

/* "TAG" @sep "DECIMAL" @end into @out (at least 64 bytes; a tag is a short
 * literal): the bytes g_snprintf's "%s%c%lld%c" gave, without its parsing,
 * which the text of 10,000 tasks paid some 60,000 times. Returns the length. */
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

/* The canonical bytes of a result, which the next generation's are
 * compared with (a SHA-256 of them cost 2 ms at 10,000 tasks, for a
 * comparison that a memcmp of the kept bytes makes exact). Each distinct
 * accelerator counts table is written once: a task names the one it has
 * by its number in order of first use ("acc@N;"), the first use writes it
 * whole ("acc+" and its text). The bytes still decode to one sequence of
 * tasks, so equal bytes are equal results; they are this file's alone
 * (never handed out; CR_GENERATION_ID is generation_id_make's). */
typedef struct canon_out {
	char *buf;
	size_t len, cap;
	GHashTable *last_counts; /* the table a task last had, */
	int64_t last_id;         /* and its number */
	GHashTable *counts_ids;  /* a table's text -> its number + 1 */
	GString *scratch;
} canon_out;

static void put_raw(canon_out *d, const char *p, size_t n)
{
	if (d->len + n > d->cap) {
		d->cap = MAX(d->cap * 2, d->len + n);
		d->buf = g_realloc(d->buf, d->cap);
	}
	memcpy(d->buf + d->len, p, n);
	d->len += n;
}

static void put_str(canon_out *d, const char *tag, const char *s)
{
	/* Length-prefixed, so no two different texts give the same bytes. */
	char head[64];
	size_t len = s != NULL ? strlen(s) : 0;
	size_t n = put_head(head, tag, s != NULL ? '=' : '~', (int64_t)len, ':');

	put_raw(d, head, n);
	if (s != NULL)
		put_raw(d, s, len);
}

static void put_int(canon_out *d, const char *tag, int64_t v)
{
	char text[64];

	put_raw(d, text, put_head(text, tag, '#', v, ';'));
}

/* A counts table (kind -> count), kinds in order, into @out. */
static void counts_text(GString *out, GHashTable *counts)
{
	GPtrArray *kinds = accel_counts_kinds(counts);
	char text[64];

	g_string_append_len(out, text, (gssize)put_head(text, "", '#', kinds->len, ';'));
	for (guint i = 0; i < kinds->len; i++) {
		const char *kind = g_ptr_array_index(kinds, i);

		g_string_append_len(out, text,
				    (gssize)put_head(text, "k", '=', (int64_t)strlen(kind), ':'));
		g_string_append(out, kind);
		g_string_append_len(out, text,
				    (gssize)put_head(text, "n", '#',
						     *(int64_t *)g_hash_table_lookup(counts, kind),
						     ';'));
	}
	g_ptr_array_unref(kinds);
}

static void put_counts(canon_out *d, const char *tag, GHashTable *counts)
{
	g_string_truncate(d->scratch, 0);
	counts_text(d->scratch, counts);
	put_str(d, tag, d->scratch->str);
}

/* A task's counts table: its number, or its text at its first use. */
static void put_task_counts(canon_out *d, GHashTable *counts)
{
	gpointer id;

	if (counts != d->last_counts) {
		g_string_truncate(d->scratch, 0);
		counts_text(d->scratch, counts);
		id = g_hash_table_lookup(d->counts_ids, d->scratch->str);
		d->last_counts = counts;
		if (id == NULL) {
			d->last_id = g_hash_table_size(d->counts_ids);
			g_hash_table_insert(d->counts_ids, g_strdup(d->scratch->str),
					    GSIZE_TO_POINTER((gsize)d->last_id + 1));
			put_str(d, "acc+", d->scratch->str);
			return;
		}
		d->last_id = (int64_t)GPOINTER_TO_SIZE(id) - 1;
	}
	put_int(d, "acc@", d->last_id);
}

static gint job_name_cmp(gconstpointer a, gconstpointer b, gpointer spec)
{
	return strcmp(cr_spec_job_name(spec, *(const size_t *)a),
		      cr_spec_job_name(spec, *(const size_t *)b));
}

GBytes *result_canon(const cr_result *res)
{
	canon_out d = { NULL,
			0,
			0,
			NULL,
			-1,
			g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
			g_string_new(NULL) };
	size_t njobs = cr_spec_num_jobs(res->spec);
	GArray *order = g_array_sized_new(FALSE, FALSE, sizeof(size_t), (guint)njobs);
	bool any_counts = res->task_accel != NULL && g_hash_table_size(res->task_accel) > 0;

	for (size_t j = 0; j < njobs; j++)
		g_array_append_val(order, j);
	g_array_sort_with_data(order, job_name_cmp, res->spec);
	put_int(&d, "jobs", (int64_t)njobs);
	for (guint o = 0; o < order->len; o++) {
		size_t j = g_array_index(order, size_t, o);
		const char *job = cr_spec_job_name(res->spec, j);
		const int32_t *indices;
		const char *const *addrs;
		size_t n = spec_job_arrays(res->spec, j, &indices, &addrs, NULL);

		put_str(&d, "job", job);
		put_int(&d, "tasks", (int64_t)n);
		/* A declared size only where it says more than the tasks. */
		if (cr_spec_num_unknown(res->spec, job) > 0) {
			size_t size = 0;

			cr_spec_job_size(res->spec, job, &size, NULL);
			put_int(&d, "size", (int64_t)size);
		}
		for (size_t i = 0; i < n; i++) {
			GHashTable *counts =
				any_counts ? task_accel_get(res->task_accel, job, indices[i])
					   : NULL;

			put_int(&d, "i", indices[i]);
			put_str(&d, "a", addrs[i]);
			if (counts != NULL)
				put_task_counts(&d, counts);
		}
	}
	put_str(&d, "type", res->task_type);
	put_int(&d, "id", res->task_id);
	put_str(&d, "rpc", res->rpc_layer);
	put_counts(&d, "own", res->accel);
	g_hash_table_unref(d.counts_ids);
	g_string_free(d.scratch, TRUE);
	g_array_unref(order);
	return g_bytes_new_take(d.buf, d.len);
}

/* ---- the world's id (cr_result_generation_id) ------------------------------ */

/* Its bytes are a contract (the Python package's generation_id() and every
 * CR_GENERATION_ID already handed out), unlike result_canon's. */
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
