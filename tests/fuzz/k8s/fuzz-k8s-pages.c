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
 * every string of a pod's view (k8s_view.c) is UTF-8 without NUL, its
 * accelerators are a count with a kind or none, and a pod made from a
 * Table row has a non-empty name, the list's namespace and phase Running;
 * a continue token is never empty.
 */
#include <stdlib.h>
#include <string.h>

#include "../../../plugins/resolvers/k8s/k8s_page.c"
#include "../../../plugins/resolvers/k8s/k8s_pb.c"
#include "../../../plugins/resolvers/k8s/k8s_proto.c"
#include "../../../plugins/resolvers/k8s/k8s_view.c"
#include "values/values-private.h"

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

/* A string of a view: absent, or UTF-8 without NUL. */
static void fz_check(const char *s)
{
	if (s != NULL && !g_utf8_validate(s, -1, NULL))
		abort();
}

static cr_status fz_pod(const struct k8s_pod_view *pod, void *ud, cr_error *err)
{
	struct fz_count *c = ud;
	const char *const strings[] = { pod->name,     pod->ns,       pod->uid,      pod->phase,
					pod->pod_ip,   pod->host_ip,  pod->hostname, pod->subdomain,
					pod->index[0], pod->index[1], pod->index[2] };

	(void)err;
	c->pods++;
	for (size_t i = 0; i < G_N_ELEMENTS(strings); i++)
		fz_check(strings[i]);
	for (guint i = 0; i < pod->n_sts_owners; i++)
		if (pod->sts_owners[i] == NULL || !g_utf8_validate(pod->sts_owners[i], -1, NULL))
			abort();
	for (guint i = 0; i < pod->n_pod_ips; i++)
		if (pod->pod_ips[i] == NULL || !g_utf8_validate(pod->pod_ips[i], -1, NULL))
			abort();
	if (pod->accel < 0 || (pod->accel > 0) != (pod->accel_kind != K8S_ACC_NONE))
		abort();
	/* a pod made from a Table row (its namespace is the list's own string):
	 * exactly what the row said */
	if (c->ns && pod->ns == c->ns && !c->proto &&
	    (pod->name == NULL || *pod->name == '\0' || pod->phase == NULL ||
	     strcmp(pod->phase, "Running") != 0))
		abort();
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
			   fz_pod, &c, &need_full, &next, NULL, &err);
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
