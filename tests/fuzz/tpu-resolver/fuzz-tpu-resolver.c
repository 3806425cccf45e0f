/* SPDX-License-Identifier: MIT */
/*
 * fuzz-tpu-resolver.c - libFuzzer target for the tpu resolver's parsers
 * (plugins/resolvers/tpu): endpoint lists (`tpu`,
 * KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS, TPU_PROCESS_ADDRESSES), the metadata's
 * worker-network-endpoints and tpu-env, a TPU API Node, a TensorFlow device
 * list (devices_file) and the accelerator-type table. The first byte picks
 * the parser, the rest is its text. The plugin's files run on a small host
 * table made here (json-c for the JSON slots); nothing reaches a network.
 * Properties: an error is CR_ERR_PARSE or CR_ERR_BACKEND with a message;
 * every accepted worker has a host and a port of 1..65535 digits.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <json-c/json_pointer.h>

#include "tpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *fz_file;
static size_t fz_file_len;

static cr_status fz_error_set(cr_error *err, cr_status code, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return code;
}

static void fz_log(cr_plugin_ctx *ctx, cr_log_level level, const char *fmt, ...)
{
	(void)ctx;
	(void)level;
	(void)fmt;
}

static const char *fz_getenv(cr_plugin_ctx *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return NULL;
}

static cr_status fz_read_file(cr_plugin_ctx *ctx, const char *path, size_t max, char **data,
			      size_t *len, cr_error *err)
{
	(void)ctx;
	(void)path;
	(void)max;
	(void)err;
	*data = g_strndup((const char *)fz_file, fz_file_len);
	*len = strlen(*data);
	return CR_OK;
}

static cr_status fz_json_parse(const char *text, size_t len, const char *what, cr_json **root,
			       cr_error *err)
{
	json_tokener *tok = json_tokener_new();
	json_object *o = json_tokener_parse_ex(tok, text, (int)len);
	cr_status st = CR_OK;

	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(o);
		o = NULL;
		st = fz_error_set(err, CR_ERR_PARSE, "%s: bad JSON", what);
	}
	json_tokener_free(tok);
	*root = (cr_json *)o;
	return st;
}

static void fz_json_free(cr_json *root)
{
	json_object_put((json_object *)root);
}

static const cr_json *fz_json_get(const cr_json *node, const char *pointer)
{
	json_object *out = NULL;

	if (node == NULL || json_pointer_get((json_object *)node, pointer, &out) != 0)
		return NULL;
	return (const cr_json *)out;
}

static const char *fz_json_string(const cr_json *node)
{
	json_object *o = (json_object *)node;

	return json_object_is_type(o, json_type_string) ? json_object_get_string(o) : NULL;
}

static bool fz_json_int(const cr_json *node, int64_t *out)
{
	json_object *o = (json_object *)node;

	if (!json_object_is_type(o, json_type_int))
		return false;
	*out = json_object_get_int64(o);
	return true;
}

static size_t fz_json_length(const cr_json *node)
{
	json_object *o = (json_object *)node;

	if (json_object_is_type(o, json_type_array))
		return json_object_array_length(o);
	return json_object_is_type(o, json_type_object) ? (size_t)json_object_object_length(o) : 0;
}

static const cr_json *fz_json_index(const cr_json *node, size_t i)
{
	json_object *o = (json_object *)node;

	if (!json_object_is_type(o, json_type_array) || i >= json_object_array_length(o))
		return NULL;
	return (const cr_json *)json_object_array_get_idx(o, i);
}

static cr_json_type fz_json_type(const cr_json *node)
{
	switch (json_object_get_type((json_object *)node)) {
	case json_type_boolean:
		return CR_JSON_BOOL;
	case json_type_double:
	case json_type_int:
		return CR_JSON_NUMBER;
	case json_type_string:
		return CR_JSON_STRING;
	case json_type_array:
		return CR_JSON_ARRAY;
	case json_type_object:
		return CR_JSON_OBJECT;
	default:
		return CR_JSON_NULL;
	}
}

static cr_status fz_fact(cr_result_builder *b, const char *key, const cr_json *value, cr_error *err)
{
	(void)b;
	(void)err;
	return key != NULL && value != NULL ? CR_OK : CR_ERR_INVALID_ARG;
}

static cr_status fz_fact_string(cr_result_builder *b, const char *key, const char *value,
				cr_error *err)
{
	(void)b;
	(void)err;
	return key != NULL && value != NULL ? CR_OK : CR_ERR_INVALID_ARG;
}

static void fz_free(void *p)
{
	g_free(p);
}

static const cr_host_api fz_host = {
	.struct_size = sizeof(cr_host_api),
	.error_set = fz_error_set,
	.log = fz_log,
	.getenv = fz_getenv,
	.read_file = fz_read_file,
	.free = fz_free,
	.json_parse = fz_json_parse,
	.json_free = fz_json_free,
	.json_get = fz_json_get,
	.json_type = fz_json_type,
	.json_string = fz_json_string,
	.json_int = fz_json_int,
	.json_length = fz_json_length,
	.json_index = fz_json_index,
	.result_set_fact = fz_fact,
	.result_set_fact_string = fz_fact_string,
};

const cr_host_api *cr_host = &fz_host;

/* The plugin's GCP calls never run here: no network, no metadata. */
bool gcp_on_gce(struct gcp *g)
{
	(void)g;
	return false;
}

cr_status gcp_metadata_get(struct gcp *g, const char *key, char **value, cr_error *err)
{
	(void)g;
	(void)value;
	return fz_error_set(err, CR_ERR_NETWORK, "fuzz: no metadata for %s", key);
}

cr_status gcp_api_request(struct gcp *g, const char *method, const char *url, const char *body,
			  char **resp_body, size_t *resp_len, cr_error *err)
{
	(void)g;
	(void)body;
	(void)resp_body;
	(void)resp_len;
	return fz_error_set(err, CR_ERR_NETWORK, "fuzz: no %s %s", method, url);
}

cr_status gcp_json_object(const cr_host_api *host, const char *text, size_t len, const char *what,
			  cr_json **root, cr_error *err)
{
	(void)host;
	(void)text;
	(void)len;
	*root = NULL;
	return fz_error_set(err, CR_ERR_PARSE, "fuzz: no answer to %s", what);
}

struct gcp *gcp_new(const cr_host_api *host, cr_plugin_ctx *ctx, const struct gcp_opts *o,
		    cr_error *err)
{
	(void)host;
	(void)ctx;
	(void)o;
	(void)err;
	return NULL;
}

void gcp_free(struct gcp *g)
{
	(void)g;
}

static void check_status(cr_status st, const cr_error *err)
{
	if (st == CR_OK)
		return;
	if ((st != CR_ERR_PARSE && st != CR_ERR_BACKEND) || err->code != st ||
	    err->message[0] == '\0')
		abort();
}

static void check_eps(const GPtrArray *eps)
{
	for (guint i = 0; i < eps->len; i++) {
		const struct tpu_ep *ep = g_ptr_array_index(eps, i);
		long port = strtol(ep->port, NULL, 10);

		if (ep->ip[0] == '\0' || port < 1 || port > 65535)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tpu t = { .job_name = "worker", .port = 8470, .devices_file = "/dev.json" };
	struct tpu_run r = { .t = &t, .self = -1 };
	cr_error err = CR_ERROR_INIT;
	char *text;
	cr_json *doc = NULL;
	cr_status st = CR_OK;
	int64_t n = 0;

	if (size < 1)
		return 0;
	text = g_strndup((const char *)data + 1, size - 1);
	r.eps = g_ptr_array_new_with_free_func(tpu_ep_free);
	switch (data[0] % 6) {
	case 0:
		st = tpu_parse_endpoints(text, "fz", "8470", r.eps, &err);
		break;
	case 1:
		st = tpu_parse_worker_endpoints(text, "8470", r.eps, &err);
		break;
	case 2:
		g_hash_table_unref(tpu_parse_env(text));
		break;
	case 3:
		t.require_healthy = size % 2 == 0;
		if (fz_json_parse(text, strlen(text), "fz", &doc, &err) == CR_OK)
			st = tpu_node_parse(&r, "fz", doc, true, &err);
		fz_json_free(doc);
		break;
	case 4:
		fz_file = data + 1;
		fz_file_len = size - 1;
		st = tpu_devices_file(&r, &n, &err);
		if (st == CR_OK && n < 0)
			abort();
		break;
	default:
		n = tpu_devices_of_type(text);
		if (n == 0 || n < -1)
			abort();
		n = tpu_devices_of_config(text, text + strlen(text) / 2);
		if (n == 0 || n < -1)
			abort();
		break;
	}
	check_status(st, &err);
	if (st == CR_OK)
		check_eps(r.eps);
	g_ptr_array_unref(r.eps);
	g_free(r.accel_type);
	g_free(r.accel_config);
	g_free(text);
	return 0;
}
