/* SPDX-License-Identifier: MIT */
/*
 * fuzz-gce-pages.c - libFuzzer target for the two page walks of gce.so
 * (gce_list.c): a listInstances page (items[].instance URLs, nextPageToken)
 * and a filtered instances.list page (names and network interfaces), read
 * through the host's JSON slots (core/values/json.c, json-c) as the plugin reads
 * them. The first input byte picks the walk and the address kind; the rest
 * is the page. Properties: an error is CR_ERR_PARSE (not JSON, an item that
 * is no instance URL) or CR_ERR_BACKEND (a member without the address)
 * with a message naming the request; an accepted members page gives names
 * and zones without '/'; an address is only ever given to a requested
 * member, and is never empty.
 */
#include <stdlib.h>
#include <string.h>

#include "../../../plugins/resolvers/gce/gce_list.c"
#include "values/values-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_log(cr_plugin_ctx *ctx, cr_log_level level, const char *fmt, ...)
{
	(void)ctx;
	(void)level;
	(void)fmt;
}

static const cr_host_api fz_host = {
	.struct_size = sizeof(cr_host_api),
	.error_set = error_set,
	.log = fz_log,
	.json_parse = host_json_parse,
	.json_free = host_json_free,
	.json_get = host_json_get,
	.json_type = host_json_type,
	.json_string = host_json_string,
	.json_int = host_json_int,
	.json_length = host_json_length,
	.json_index = host_json_index,
};

CR_HIDDEN const cr_host_api *cr_host = &fz_host;

static void check_error(cr_status st, const cr_error *err)
{
	if (st != CR_ERR_PARSE && st != CR_ERR_BACKEND)
		abort();
	if (err->code != st || err->message[0] == '\0')
		abort();
}

static void fuzz_members(const char *text, size_t len)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(gce_member_free);
	cr_error err = CR_ERROR_INIT;
	char *next = NULL;
	cr_status st = gce_members_page("POST fz", text, len, out, &next, &err);

	if (st != CR_OK) {
		check_error(st, &err);
		if (st == CR_ERR_PARSE && strncmp(err.message, "POST fz", 7) != 0)
			abort();
	}
	for (guint i = 0; i < out->len; i++) {
		const struct gce_member *m = g_ptr_array_index(out, i);

		if (strchr(m->name, '/') || strchr(m->zone, '/') || m->address != NULL)
			abort();
	}
	if (next != NULL && *next == '\0')
		abort();
	g_free(next);
	g_ptr_array_free(out, TRUE);
}

static void fuzz_addresses(uint8_t kind, const char *text, size_t len)
{
	struct gce st = { .address = (enum gce_address)(kind % 3) };
	struct gce_member a = { .name = "w-0", .zone = "z" }, b = { .name = "w-1", .zone = "z" };
	GHashTable *byname = g_hash_table_new(g_str_hash, g_str_equal);
	cr_error err = CR_ERROR_INIT;
	char *next = NULL;
	size_t n_items = 0;
	cr_status rc;

	g_hash_table_insert(byname, a.name, &a);
	g_hash_table_insert(byname, b.name, &b);
	rc = gce_addr_page(&st, "GET fz", text, len, byname, &next, &n_items, &err);
	if (rc != CR_OK)
		check_error(rc, &err);
	if ((a.address != NULL && *a.address == '\0') || (b.address != NULL && *b.address == '\0'))
		abort();
	if (next != NULL && *next == '\0')
		abort();
	g_free(a.address);
	g_free(b.address);
	g_free(next);
	g_hash_table_destroy(byname);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	text = g_strndup((const char *)data + 1, size - 1);
	if (data[0] & 0x80)
		fuzz_addresses(data[0], text, size - 1);
	else
		fuzz_members(text, size - 1);
	g_free(text);
	return 0;
}
