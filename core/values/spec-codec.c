/* SPDX-License-Identifier: MIT */
/*
 * spec-codec.c - ClusterSpec <-> as_dict JSON, and ClusterSpec -> ClusterDef
 * protobuf (tensorflow/core/protobuf/cluster.proto:
 *   message JobDef { string name = 1; map<int32, string> tasks = 2; }
 *   message ClusterDef { repeated JobDef job = 1; }).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-c/json.h>

#include "values/values-private.h"

/* What spec_write_json writes when nothing needs escaping (a sparse key
 * counted at its longest), so that a big step's text is allocated once. */
static size_t spec_json_size(const cr_spec *spec)
{
	size_t size = 2;

	for (size_t i = 0; i < cr_spec_num_jobs(spec); i++) {
		const int32_t *idx;
		const char *const *addrs;
		size_t text_len, n = spec_job_arrays(spec, i, &idx, &addrs, &text_len);

		/* ", " "name" ": [" addresses "]"; each address "a", and a key */
		size += 8 + strlen(cr_spec_job_name(spec, i)) + text_len + 4 * n;
		if (!cr_spec_job_is_dense(spec, cr_spec_job_name(spec, i)))
			size += sizeof("\"2147483647\": ") * n;
	}
	return size;
}

/* A job of a declared size: a list of that many entries, null where the
 * address is unknown ({"worker": ["a:29500", null, null]}). */
static void write_sized_job(GString *out, const cr_spec *spec, const char *job, const int32_t *idx,
			    const char *const *addrs, size_t n)
{
	size_t size = 0, t = 0;

	cr_spec_job_size(spec, job, &size, NULL);
	g_string_append(out, ": [");
	for (size_t i = 0; i < size; i++) {
		if (i > 0)
			g_string_append(out, ", ");
		if (t < n && (size_t)idx[t] == i)
			jw_string(out, addrs[t++]);
		else
			g_string_append(out, "null");
	}
	g_string_append_c(out, ']');
}

void spec_write_json(GString *out, const cr_spec *spec)
{
	size_t njobs = cr_spec_num_jobs(spec);

	jw_reserve(out, spec_json_size(spec));
	g_string_append_c(out, '{');
	for (size_t i = 0; i < njobs; i++) {
		const char *job = cr_spec_job_name(spec, i);
		bool dense = cr_spec_job_is_dense(spec, job);
		const int32_t *idx;
		const char *const *addrs;
		size_t n = spec_job_arrays(spec, i, &idx, &addrs, NULL);

		if (i > 0)
			g_string_append(out, ", ");
		jw_string(out, job);
		if (spec_sizes(spec) != NULL && g_hash_table_contains(spec_sizes(spec), job)) {
			write_sized_job(out, spec, job, idx, addrs, n);
			continue;
		}
		g_string_append(out, dense ? ": [" : ": {");
		if (dense)
			jw_string_list(out, addrs, n);
		for (size_t t = 0; !dense && t < n; t++) {
			if (t > 0)
				g_string_append(out, ", ");
			g_string_append_printf(out, "\"%d\": ", idx[t]);
			jw_string(out, addrs[t]);
		}
		g_string_append_c(out, dense ? ']' : '}');
	}
	g_string_append_c(out, '}');
}

char *cr_spec_to_json(const cr_spec *spec)
{
	GString *out = g_string_new(NULL);

	if (spec != NULL)
		spec_write_json(out, spec);
	else
		g_string_append(out, "{}");
	return g_string_free(out, FALSE);
}

static const char *json_kind(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_int:
	case json_type_double:
		return "a number";
	case json_type_string:
		return "a string";
	case json_type_array:
		return "a list";
	case json_type_object:
		return "an object";
	}
	return "a value";
}

/* TensorFlow's as_dict walk, once for every caller (cr_spec_from_json,
 * host->result_add_cluster_json): one set of checks and status codes.
 *   wrong shape                                -> CR_ERR_PARSE
 *   index not a canonical decimal in 0..INT32  -> CR_ERR_INVALID_ARG
 *   index already taken in @spec               -> CR_ERR_CONFLICT
 * A dense list gives indices 0..n-1; an empty list or object an empty job. */

/* "12" -> 12: "0" or ASCII digits without a leading zero (no sign, spaces,
 * '+', '_' or "01": each index has one spelling), at most 2147483647. */
static bool parse_index(const char *key, int64_t *out)
{
	int64_t v = 0;

	if (key[0] == '\0' || (key[0] == '0' && key[1] != '\0'))
		return false;
	for (const char *p = key; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (*p - '0');
		if (v > G_MAXINT32)
			return false;
	}
	*out = v;
	return true;
}

static cr_status address_error(cr_error *err, const char *what, const char *job, const char *task,
			       json_object *a)
{
	return error_set(err, CR_ERR_PARSE,
			 "%s: job '%s' task %s: address must be a string, not %s", what, job, task,
			 json_kind(a));
}

static cr_status add_task(cr_spec *spec, const char *job, int64_t idx, json_object *a,
			  const char *what, cr_error *err)
{
	cr_status st = cr_spec_add_task(spec, job, idx, json_object_get_string(a), err);

	if (st != CR_OK)
		error_prefix(err, "%s: ", what);
	return st;
}

static cr_status add_dense_job(cr_spec *spec, const char *job, json_object *tasks, const char *what,
			       cr_error *err)
{
	size_t n = json_object_array_length(tasks);
	cr_status st = CR_OK;

	for (size_t i = 0; i < n && st == CR_OK; i++) {
		json_object *a = json_object_array_get_idx(tasks, i);
		char task[24];

		if (json_object_is_type(a, json_type_string)) {
			st = add_task(spec, job, (int64_t)i, a, what, err);
		} else {
			g_snprintf(task, sizeof(task), "%zu", i);
			st = address_error(err, what, job, task, a);
		}
	}
	return st;
}

static cr_status add_sparse_job(cr_spec *spec, const char *job, json_object *tasks,
				const char *what, cr_error *err)
{
	json_object_object_foreach(tasks, key, a)
	{
		int64_t idx;
		cr_status st;

		if (!parse_index(key, &idx))
			return error_set(
				err, CR_ERR_INVALID_ARG,
				"%s: job '%s': task index \"%s\" is not a canonical decimal "
				"in 0..2147483647",
				what, job, key);
		if (!json_object_is_type(a, json_type_string))
			return address_error(err, what, job, key, a);
		st = add_task(spec, job, idx, a, what, err);
		if (st != CR_OK)
			return st;
	}
	return CR_OK;
}

static cr_status add_json_job(cr_spec *spec, const char *job, json_object *tasks, const char *what,
			      cr_error *err)
{
	cr_status st = cr_spec_add_job(spec, job, err);

	if (st != CR_OK) {
		error_prefix(err, "%s: ", what);
		return st;
	}
	if (json_object_is_type(tasks, json_type_array))
		return add_dense_job(spec, job, tasks, what, err);
	if (json_object_is_type(tasks, json_type_object))
		return add_sparse_job(spec, job, tasks, what, err);
	return error_set(err, CR_ERR_PARSE,
			 "%s: the tasks for job '%s' must be a list or an object from indices to "
			 "addresses, not %s",
			 what, job, json_kind(tasks));
}

cr_status spec_add_json(cr_spec *spec, json_object *cluster, const char *what, cr_error *err)
{
	if (!json_object_is_type(cluster, json_type_object))
		return error_set(
			err, CR_ERR_PARSE,
			"%s: the cluster must be an object mapping job names to tasks, not %s",
			what, json_kind(cluster));
	json_object_object_foreach(cluster, job, tasks)
	{
		cr_status st = add_json_job(spec, job, tasks, what, err);

		if (st != CR_OK)
			return st;
	}
	return CR_OK;
}

cr_status spec_from_json_object(json_object *cluster, const char *what, cr_spec **out,
				cr_error *err)
{
	cr_spec *spec = cr_spec_new();
	cr_status st = spec_add_json(spec, cluster, what, err);

	*out = NULL;
	if (st != CR_OK) {
		cr_spec_free(spec);
		return st;
	}
	*out = spec;
	return CR_OK;
}

cr_spec *cr_spec_from_json(const char *json, size_t len, const char *what, cr_error *err)
{
	json_object *obj = NULL;
	cr_spec *spec = NULL;

	if (what == NULL)
		what = "cluster JSON";
	if (json_parse_text(json, len, what, &obj, err) != CR_OK)
		return NULL;
	/* spec.h (ABI 1.0) documents CR_ERR_PARSE for broken JSON text only and
	 * CR_ERR_INVALID_ARG for a wrong shape: keep that promise. */
	if (spec_from_json_object(obj, what, &spec, err) == CR_ERR_PARSE && err != NULL)
		err->code = CR_ERR_INVALID_ARG;
	json_object_put(obj);
	return spec;
}

/* ---- ClusterDef -------------------------------------------------------- */

static void pb_varint(GByteArray *b, uint64_t v)
{
	do {
		uint8_t byte = (uint8_t)(v & 0x7f);

		v >>= 7;
		if (v != 0)
			byte |= 0x80;
		g_byte_array_append(b, &byte, 1);
	} while (v != 0);
}

static void pb_bytes(GByteArray *b, uint32_t field, const void *data, size_t len)
{
	pb_varint(b, ((uint64_t)field << 3) | 2);
	pb_varint(b, len);
	g_byte_array_append(b, data, (guint)len);
}

static int cmp_job_names(const void *a, const void *b, void *spec)
{
	const char *na = cr_spec_job_name(spec, *(const size_t *)a);
	const char *nb = cr_spec_job_name(spec, *(const size_t *)b);

	return strcmp(na, nb);
}

static void encode_job(GByteArray *out, const cr_spec *spec, size_t job_i)
{
	const char *name = cr_spec_job_name(spec, job_i);
	GByteArray *job = g_byte_array_new();
	const int32_t *indices;
	const char *const *addrs;
	size_t n = spec_job_arrays(spec, job_i, &indices, &addrs, NULL);

	/* proto3 leaves a default ("") string out; protoc --encode does too. */
	if (*name != '\0')
		pb_bytes(job, 1, name, strlen(name));
	for (size_t t = 0; t < n; t++) {
		GByteArray *entry = g_byte_array_new();

		/* Map entry: key (int32 varint, written even when 0), value. */
		pb_varint(entry, 1 << 3 | 0);
		pb_varint(entry, (uint64_t)(int64_t)indices[t]);
		pb_bytes(entry, 2, addrs[t], strlen(addrs[t]));
		pb_bytes(job, 2, entry->data, entry->len);
		g_byte_array_unref(entry);
	}
	pb_bytes(out, 1, job->data, job->len);
	g_byte_array_unref(job);
}

cr_status cr_spec_to_clusterdef(const cr_spec *spec, uint8_t **buf, size_t *len, cr_error *err)
{
	size_t njobs;
	size_t *order;
	GByteArray *out;

	if (spec == NULL || buf == NULL || len == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_spec_to_clusterdef: NULL argument");
	njobs = cr_spec_num_jobs(spec);
	order = g_new(size_t, njobs + 1);
	for (size_t i = 0; i < njobs; i++)
		order[i] = i;
	g_qsort_with_data(order, (gint)njobs, sizeof(size_t), cmp_job_names, (gpointer)spec);
	out = g_byte_array_new();
	for (size_t i = 0; i < njobs; i++)
		encode_job(out, spec, order[i]);
	g_free(order);
	*len = out->len;
	*buf = g_byte_array_free(out, FALSE);
	return CR_OK;
}
