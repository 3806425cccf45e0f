/* SPDX-License-Identifier: MIT */
/*
 * fuzz-format.c - libFuzzer target for every output format
 * (cr_result_format: core/format/format.c, core/format/format-frameworks.c) on a result
 * built from the input. The input is text lines:
 *
 *   OPTION OPTION ...            format options ("-" or "" for none)
 *   TYPE ID [RPC_LAYER [ENV]]    this process ("-" for no identity)
 *   JOB INDEX ADDRESS | JOB ADDRESS   tasks (cr_spec_add_task / append)
 *   =NAME VALUE | #KIND COUNT         a resolver's variable, an accelerator count
 *
 * A task the ClusterSpec refuses is left out, as a backend would be told.
 * Properties, for each of the nine formats: an error is CR_ERR_INVALID_ARG
 * (an option), CR_ERR_NOT_FOUND (a world or task the format needs is
 * missing) or CR_ERR_BACKEND (a task without the port it needs) with
 * one line of message; text output is lines without control bytes (but
 * for a resolver's value inside an export's quotes); tf_config
 * and json are one JSON line whose "cluster" reads back equal and whose task
 * is this one; clusterdef decodes (protobuf wire format) back to the same
 * ClusterSpec; env, torch and jax are `export NAME='VALUE'` lines whose
 * unquoted values are cr_result_env_vars' own; hosts lines are valid
 * addresses, hostfile and horovod lines a host and a slot count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline-private.h"
#include "values/values-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const formats[] = { "tf_config", "json",     "clusterdef", "env",  "torch",
				       "jax",       "hostfile", "horovod",    "hosts" };

static void check_error(cr_status st, const cr_error *err)
{
	if (getenv("FZ_DEBUG") != NULL)
		fprintf(stderr, "status %d: %s\n", st, err->message);
	if (st != CR_ERR_INVALID_ARG && st != CR_ERR_NOT_FOUND && st != CR_ERR_BACKEND)
		abort();
	if (err->message[0] == '\0' || strchr(err->message, '\n') != NULL)
		abort();
}

/* Lines of printable text (UTF-8 bytes >= 0x80 allowed), each ending '\n'. */
static void check_lines(const char *out, size_t len)
{
	if (len > 0 && out[len - 1] != '\n')
		abort();
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)out[i] < 0x20 && out[i] != '\n') || out[i] == 0x7f)
			abort();
}

static void check_json(const cr_result *r, const char *out, size_t len)
{
	json_object *root = NULL, *cluster, *task, *v;
	cr_spec *back = NULL;

	if (memchr(out, '\n', len) != out + len - 1)
		abort();
	if (json_parse_text(out, len, "out", &root, NULL) != CR_OK ||
	    !json_object_object_get_ex(root, "cluster", &cluster) ||
	    spec_from_json_object(cluster, "out", &back, NULL) != CR_OK ||
	    !cr_spec_equal(back, r->spec))
		abort();
	if (r->task_type != NULL && r->task_id >= 0) {
		if (!json_object_object_get_ex(root, "task", &task) ||
		    !json_object_object_get_ex(task, "type", &v) ||
		    strcmp(json_object_get_string(v), r->task_type) != 0 ||
		    !json_object_object_get_ex(task, "index", &v) ||
		    json_object_get_int64(v) != r->task_id)
			abort();
	} else if (json_object_object_get_ex(root, "task", &task)) {
		abort();
	}
	cr_spec_free(back);
	json_object_put(root);
}

/* ---- a protobuf reader just big enough for ClusterDef ------------------- */

static bool pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* The next length-delimited field: its number, bytes and length. */
static bool pb_field(const uint8_t **p, const uint8_t *end, uint64_t *field, const uint8_t **val,
		     size_t *len)
{
	uint64_t key, n;

	if (!pb_varint(p, end, &key) || (key & 7) != 2 || !pb_varint(p, end, &n) ||
	    n > (uint64_t)(end - *p))
		return false;
	*field = key >> 3;
	*val = *p;
	*len = (size_t)n;
	*p += n;
	return true;
}

static void decode_task(cr_spec *spec, const char *job, const uint8_t *p, const uint8_t *end)
{
	uint64_t key, index, field;
	const uint8_t *addr;
	size_t alen;
	char *a;

	if (!pb_varint(&p, end, &key) || key != (1 << 3) || !pb_varint(&p, end, &index) ||
	    !pb_field(&p, end, &field, &addr, &alen) || field != 2 || p != end)
		abort();
	a = g_strndup((const char *)addr, alen);
	if (strlen(a) != alen || cr_spec_add_task(spec, job, (int64_t)index, a, NULL) != CR_OK)
		abort();
	g_free(a);
}

static void check_clusterdef(const cr_result *r, const char *out, size_t len)
{
	const uint8_t *p = (const uint8_t *)out, *end = p + len;
	cr_spec *back = cr_spec_new();

	while (p < end) {
		const uint8_t *job, *jend, *v;
		uint64_t field;
		size_t jlen, vlen;
		char *name = NULL;

		if (!pb_field(&p, end, &field, &job, &jlen) || field != 1)
			abort();
		jend = job + jlen;
		while (job < jend) {
			if (!pb_field(&job, jend, &field, &v, &vlen))
				abort();
			if (field == 1 && name == NULL) {
				name = g_strndup((const char *)v, vlen);
				if (cr_spec_add_job(back, name, NULL) != CR_OK)
					abort();
			} else if (field == 2) {
				if (name == NULL) {
					name = g_strdup("");
					cr_spec_add_job(back, name, NULL);
				}
				decode_task(back, name, v, v + vlen);
			} else {
				abort();
			}
		}
		if (name == NULL) /* a job with no name and no task */
			cr_spec_add_job(back, "", NULL);
		g_free(name);
	}
	if (!cr_spec_equal(back, r->spec))
		abort();
	cr_spec_free(back);
}

/* ---- shell exports ------------------------------------------------------- */

static void check_exports(const cr_result *r, const char *format, const char *const *options,
			  const char *out)
{
	char **pairs = NULL;
	const char *p = out;
	size_t i = 0;

	if (cr_result_env_vars(r, format, options, &pairs, NULL) != CR_OK)
		abort();
	for (; *p != '\0'; i += 2) {
		GString *value = g_string_new(NULL);
		size_t nlen;

		if (pairs[i] == NULL || strncmp(p, "export ", 7) != 0)
			abort();
		p += 7;
		nlen = strlen(pairs[i]);
		if (strncmp(p, pairs[i], nlen) != 0 || p[nlen] != '=' || p[nlen + 1] != '\'')
			abort();
		p += nlen + 2;
		for (;;) { /* '...' with '\'' for a quote, then the end of line */
			if (*p == '\0')
				abort();
			if (strncmp(p, "'\\''", 4) == 0) {
				g_string_append_c(value, '\'');
				p += 4;
			} else if (p[0] == '\'' && p[1] == '\n') {
				p += 2;
				break;
			} else if (*p == '\'') {
				abort();
			} else {
				g_string_append_c(value, *p++);
			}
		}
		if (strcmp(value->str, pairs[i + 1]) != 0)
			abort();
		g_string_free(value, TRUE);
	}
	if (pairs[i] != NULL)
		abort();
	g_strfreev(pairs);
}

/* ---- host lists ---------------------------------------------------------- */

static void check_host_lines(const char *format, const char *out)
{
	char **lines = g_strsplit(out, "\n", -1);

	for (size_t i = 0; lines[i] != NULL && lines[i + 1] != NULL; i++) {
		const char *l = lines[i];
		const char *sep;
		char *end;

		if (l[0] == '\0' || strchr(l, '\t') != NULL)
			abort();
		if (strcmp(format, "hosts") == 0) {
			if (spec_address_problem(l) != NULL)
				abort();
			continue;
		}
		sep = strstr(l, " slots=");
		if (sep != NULL)
			sep += 7;
		else if ((sep = strrchr(l, ':')) != NULL)
			sep++;
		else
			abort();
		if (sep == l + 1 || strtoul(sep, &end, 10) == 0 || *end != '\0' ||
		    (sep[-1] == '=' && strchr(l, ' ') != sep - 7))
			abort();
	}
	g_strfreev(lines);
}

static void run_format(const cr_result *r, const char *format, const char *const *options)
{
	cr_error err = CR_ERROR_INIT;
	char *out = NULL;
	size_t len = 0;
	cr_status st = cr_result_format(r, format, options, &out, &len, &err);

	if (st != CR_OK) {
		check_error(st, &err);
		if (out != NULL)
			abort();
		return;
	}
	if (strcmp(format, "clusterdef") == 0) {
		check_clusterdef(r, out, len);
	} else {
		if (strlen(out) != len)
			abort();
		if (strcmp(format, "env") == 0 || strcmp(format, "torch") == 0 ||
		    strcmp(format, "jax") == 0) {
			/* a resolver's value goes into '...' as it is */
			check_exports(r, format, options, out);
		} else {
			check_lines(out, len);
			if (strcmp(format, "tf_config") == 0 || strcmp(format, "json") == 0)
				check_json(r, out, len);
			else
				check_host_lines(format, out);
		}
	}
	g_free(out);
}

static cr_result *build(char **lines, size_t n)
{
	cr_result *r = result_new();

	if (n > 1 && strcmp(lines[1], "-") != 0) {
		char **id = g_strsplit(lines[1], " ", 4);

		/* what host_result_set_task and the config accept */
		if (id[0] != NULL && id[1] != NULL && g_utf8_validate(id[0], -1, NULL)) {
			r->task_type = g_strdup(id[0]);
			r->task_id = g_ascii_strtoll(id[1], NULL, 10);
			/* UTF-8 only: what the JSON writer is given (known gap: the
			 * entry points do not check these two yet) */
			if (id[2] != NULL && g_utf8_validate(id[2], -1, NULL)) {
				r->rpc_layer = g_strdup(id[2]);
				if (id[3] != NULL && g_utf8_validate(id[3], -1, NULL))
					r->environment = g_strdup(id[3]);
			}
		}
		g_strfreev(id);
	}
	for (size_t i = 2; i < n; i++) {
		char **t;

		if (lines[i][0] == '=' || lines[i][0] == '#') {
			/* "=NAME VALUE": a resolver's variable; "#KIND N": an
			 * accelerator count; both UTF-8, as the JSON writer needs */
			char **kv = g_strsplit(lines[i] + 1, " ", 2);

			if (kv[0] != NULL && kv[1] != NULL && lines[i][0] == '#' &&
			    g_utf8_validate(kv[0], -1, NULL))
				accel_counts_put(r->accel, kv[0], g_ascii_strtoll(kv[1], NULL, 10));
			else if (kv[0] != NULL && kv[1] != NULL &&
				 g_utf8_validate(lines[i], -1, NULL)) {
				g_ptr_array_add(r->env, g_strdup(kv[0]));
				g_ptr_array_add(r->env, g_strdup(kv[1]));
			}
			g_strfreev(kv);
			continue;
		}
		t = g_strsplit(lines[i], " ", 3);

		if (t[0] != NULL && t[1] != NULL && t[2] != NULL)
			cr_spec_add_task(r->spec, t[0], g_ascii_strtoll(t[1], NULL, 10), t[2],
					 NULL);
		else if (t[0] != NULL && t[1] != NULL)
			cr_spec_append_task(r->spec, t[0], t[1], NULL);
		g_strfreev(t);
	}
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	char **lines, **options;
	size_t n;
	cr_result *r;

	if (memchr(data, '\0', size) != NULL)
		return 0;
	text = g_strndup((const char *)data, size);
	lines = g_strsplit(text, "\n", 4096);
	n = g_strv_length(lines);
	options = n > 0 && lines[0][0] != '\0' && strcmp(lines[0], "-") != 0
			  ? g_strsplit(lines[0], " ", 8)
			  : g_new0(char *, 1);
	r = build(lines, n);
	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++)
		run_format(r, formats[i], (const char *const *)options);
	cr_result_free(r);
	g_strfreev(options);
	g_strfreev(lines);
	g_free(text);
	return 0;
}
