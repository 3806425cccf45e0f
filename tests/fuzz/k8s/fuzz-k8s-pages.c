/* SPDX-License-Identifier: MIT */
/*
 * fuzz-k8s-pages.c - libFuzzer target for k8s.so's page reader
 * (plugins/resolvers/k8s/k8s_page.c): a PodList page read pod by pod, or a
 * Table page (columnDefinitions, rows) read row by row into the small pods
 * the plugin builds from them, or a protobuf PodList page (k8s_proto.c).
 * The first input byte picks whether the list has a namespace (bit 0: Table
 * rows need one) and whether the page is protobuf (bit 1); the rest is the
 * page. Properties:
 * a failure is CR_ERR_PARSE with a message naming the request, or a Table
 * that cannot stand for the pods (need_full: CR_ERR_BACKEND, no message);
 * every pod handed on is an object, and a pod made from a Table row has a
 * non-empty name, the list's namespace and phase Running; a continue token
 * is never empty.
 */
#include <stdlib.h>
#include <string.h>

#include "../../../plugins/resolvers/k8s/k8s_page.c"
#include "../../../plugins/resolvers/k8s/k8s_proto.c"
#include "values-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const cr_host_api fz_host = {
	.struct_size = sizeof(cr_host_api),
	.error_set = error_set,
};

CR_HIDDEN const cr_host_api *cr_host = &fz_host;

struct fz_count {
	const char *ns;
	size_t pods;
	bool proto;
};

static const char *fz_str(json_object *pod, const char *pointer)
{
	json_object *v = NULL;

	if (json_pointer_get(pod, pointer, &v) != 0 || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static cr_status fz_pod(json_object *pod, void *ud, cr_error *err)
{
	struct fz_count *c = ud;
	const char *name, *ns, *phase;

	(void)err;
	if (!json_object_is_type(pod, json_type_object))
		abort();
	c->pods++;
	/* a pod made from a Table row: exactly what the row said */
	if (!c->proto && json_object_object_length(pod) == 2 && c->ns &&
	    json_object_object_get_ex(pod, "status", NULL) &&
	    json_object_object_get_ex(pod, "metadata", NULL) &&
	    !json_object_object_get_ex(pod, "spec", NULL)) {
		name = fz_str(pod, "/metadata/name");
		ns = fz_str(pod, "/metadata/namespace");
		phase = fz_str(pod, "/status/phase");
		/* a PodList item of the same shape may say anything */
		if (name && ns && phase && strcmp(ns, c->ns) == 0 &&
		    strcmp(phase, "Running") == 0 && *name == '\0')
			abort();
	}
	return CR_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_count c = { NULL, 0, false };
	cr_error err = CR_ERROR_INIT;
	bool need_full = false;
	char *text, *next = NULL;
	bool proto;
	cr_status rc;

	if (size < 1)
		return 0;
	c.ns = data[0] & 1 ? "train" : NULL;
	proto = c.proto = (data[0] & 2) != 0;
	/* a protobuf page is binary; a JSON one is text up to its first NUL */
	text = g_malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	rc = k8s_page_read("GET fz", c.ns, text, proto ? size - 1 : strnlen(text, size - 1), proto,
			   fz_pod, &c, &need_full, &next, &err);
	if (need_full) {
		if (rc != CR_ERR_BACKEND || err.message[0] != '\0')
			abort();
	} else if (rc != CR_OK) {
		if (rc != CR_ERR_PARSE || err.code != rc ||
		    strncmp(err.message, "GET fz: ", 8) != 0)
			abort();
	}
	if (next != NULL && *next == '\0')
		abort();
	g_free(next);
	g_free(text);
	return 0;
}
