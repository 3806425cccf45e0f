/* SPDX-License-Identifier: MIT */
/*
 * fuzz-kubeconfig.c - libFuzzer target for the k8s resolver's kubeconfig
 * reader (plugins/resolvers/k8s/client/k8s_kubeconfig.c, libyaml): the
 * input is the file the `kubeconfig` option names, read through
 * k8s_conn_load on a small host table made here (the core's error_setv).
 * Nothing reaches a network. The first line may be "#context NAME" to
 * give the `context` option.
 * Properties: an error is CR_ERR_CONFIG, CR_ERR_PARSE or
 * CR_ERR_UNSUPPORTED with a one-line message naming the file; no error
 * message holds the user's token or client key; an accepted connection
 * has an http(s) server without user info or a trailing '/', and names
 * its source.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "k8s.h"

#define KC_PATH "/home/u/.kube/config"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* core/values/error.c: the host's own message rules (one line) */
cr_status error_setv(cr_error *err, cr_status code, const char *fmt, va_list ap);

static const uint8_t *fz_file;
static size_t fz_file_len;

static cr_status fz_error_set(cr_error *err, cr_status code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(err, code, fmt, ap);
	va_end(ap);
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
	if (strcmp(path, KC_PATH) != 0)
		return fz_error_set(err, CR_ERR_IO, "%s: No such file or directory", path);
	if (fz_file_len > max)
		return fz_error_set(err, CR_ERR_IO, "%s: larger than %zu bytes", path, max);
	*data = g_malloc(fz_file_len + 1);
	memcpy(*data, fz_file, fz_file_len);
	(*data)[fz_file_len] = '\0';
	*len = fz_file_len;
	return CR_OK;
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
};

/* A secret from the file (token, client key) in a message; not when the
 * file has its text elsewhere too (a server name can hold it). */
static bool leaks(const char *message, const char *secret)
{
	const char *first;

	if (secret == NULL || strlen(secret) < 8 || strstr(message, secret) == NULL)
		return false;
	first = g_strstr_len((const char *)fz_file, (gssize)fz_file_len, secret);
	return first != NULL &&
	       g_strstr_len(first + 1, (gssize)fz_file_len - (first + 1 - (const char *)fz_file),
			    secret) == NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct k8s st = { 0 };
	struct k8s_conn conn = { 0 };
	cr_error err = CR_ERROR_INIT;
	char *context = NULL;
	cr_status rc;

	if (size >= 9 && memcmp(data, "#context ", 9) == 0) {
		const uint8_t *nl = memchr(data, '\n', size);

		context = g_strndup((const char *)data + 9,
				    (nl != NULL ? (size_t)(nl - data) : size) - 9);
	}
	fz_file = data;
	fz_file_len = size;
	st.kubeconfig = KC_PATH;
	st.context = context;
	st.auth = K8S_AUTH_KUBECONFIG;
	cr_host = &fz_host; /* k8s.c's, set by the loader in a real host */
	rc = k8s_conn_load(&st, NULL, &conn, &err);
	if (rc != CR_OK) {
		if (rc != CR_ERR_CONFIG && rc != CR_ERR_PARSE && rc != CR_ERR_UNSUPPORTED)
			abort();
		if (strchr(err.message, '\n') != NULL || strstr(err.message, KC_PATH) == NULL)
			abort();
		if (leaks(err.message, conn.token) || leaks(err.message, conn.key_pem))
			abort();
	} else {
		size_t n = strlen(conn.server);

		if ((!g_str_has_prefix(conn.server, "https://") &&
		     !g_str_has_prefix(conn.server, "http://")) ||
		    k8s_url_has_userinfo(conn.server) || (n > 0 && conn.server[n - 1] == '/'))
			abort();
		if (conn.source == NULL || strstr(conn.source, KC_PATH) == NULL)
			abort();
	}
	k8s_conn_clear(&conn);
	g_free(context);
	return 0;
}
