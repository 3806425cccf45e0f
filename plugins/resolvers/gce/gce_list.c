/* SPDX-License-Identifier: MIT */
/*
 * gce_list.c - the group's members and their addresses.
 *
 * Members: POST .../instanceGroups/G/listInstances with body
 * {"instanceState":"RUNNING"}, maxResults = page_size and the pageToken of
 * the previous page, until no nextPageToken. No orderBy: the method does
 * not support it (TF sends it). A page without `items` is an empty page,
 * not an error (TF raised KeyError on an empty group, §14.13). A member's
 * name and zone come from its URL in items[].instance; it is never fetched.
 *
 * Addresses: for each zone, GET .../zones/Z/instances with
 * filter=name eq "(n1|n2|...)" (an RE2 regular expression that must match
 * the whole name) and a `fields` mask that keeps only names and network
 * interfaces, as many names per request as fit in GCE_URL_MAX, paged like
 * any list. N members cost ceil(N/500) + about ceil(N/150) requests where
 * TF makes N+1.
 */
#include <string.h>

#include "gce.h"

#define GCE_LIST_FIELDS "items(instance),nextPageToken"
#define GCE_ADDR_FIELDS                                                                            \
	"items(name,zone,networkInterfaces(networkIP,ipv6Address,accessConfigs(natIP))),"          \
	"nextPageToken"
#define GCE_TOKEN_ROOM 400 /* room kept in a URL for a pageToken */

static void gce_member_free(gpointer p)
{
	struct gce_member *m = p;

	g_free(m->name);
	g_free(m->zone);
	g_free(m->address);
	g_free(m->hostport);
	g_free(m);
}

void gce_members_free(GPtrArray *members)
{
	if (members != NULL)
		g_ptr_array_free(members, TRUE);
}

static char *gce_esc(const char *s)
{
	return g_uri_escape_string(s, NULL, FALSE);
}

cr_status gce_named_port(const struct gce *st, struct gcp *g, const struct gce_where *w,
			 const char *name, int64_t *port, cr_error *err)
{
	char *grp = gce_esc(w->group), *text = NULL;
	char *url = g_strdup_printf("%sinstanceGroups/%s?fields=namedPorts", w->base, grp);
	const cr_json *ports;
	cr_json *root = NULL;
	GString *known = g_string_new(NULL);
	size_t len = 0;
	cr_status rc;

	(void)st;
	rc = gcp_api_request(g, "GET", url, NULL, &text, &len, err);
	if (rc == CR_OK)
		rc = gcp_json_object(cr_host, text, len, url, &root, err);
	ports = rc == CR_OK ? cr_host->json_get(root, "/namedPorts") : NULL;
	for (size_t i = 0; rc == CR_OK && i < cr_host->json_length(ports); i++) {
		const cr_json *p = cr_host->json_index(ports, i);
		const char *n = cr_host->json_string(cr_host->json_get(p, "/name"));

		if (n != NULL && strcmp(n, name) == 0 &&
		    cr_host->json_int(cr_host->json_get(p, "/port"), port))
			goto out;
		g_string_append_printf(known, "%s%s", known->len ? ", " : "", n ? n : "?");
	}
	if (rc == CR_OK)
		rc = cr_host->error_set(
			err, CR_ERR_NOT_FOUND,
			"instance group %s has no named port \"%s\" (named ports: %s)", w->group,
			name, known->len ? known->str : "none");
out:
	cr_host->json_free(root);
	g_string_free(known, TRUE);
	g_free(text);
	g_free(url);
	g_free(grp);
	return rc;
}

/* items[].instance of one listInstances page into @out; *@next: the
 * nextPageToken (g_free) or NULL. */
static cr_status gce_members_page(const char *what, const char *text, size_t len, GPtrArray *out,
				  char **next, cr_error *err)
{
	cr_json *root = NULL;
	const cr_json *items;
	const char *tok;
	cr_status rc;

	rc = gcp_json_object(cr_host, text, len, what, &root, err);
	if (rc != CR_OK)
		return rc;
	items = cr_host->json_get(root, "/items");
	for (size_t i = 0; i < cr_host->json_length(items); i++) {
		const char *url = cr_host->json_string(
			cr_host->json_get(cr_host->json_index(items, i), "/instance"));
		const char *z = url ? strstr(url, "/zones/") : NULL;
		struct gce_member *m;

		if (z == NULL) {
			rc = cr_host->error_set(err, CR_ERR_PARSE,
						"%s: items[%zu].instance is not an instance URL",
						what, i);
			break;
		}
		m = g_new0(struct gce_member, 1);
		m->name = g_strdup(gcp_last_segment(url));
		z += strlen("/zones/");
		m->zone = g_strndup(z, strcspn(z, "/"));
		g_ptr_array_add(out, m);
	}
	tok = cr_host->json_string(cr_host->json_get(root, "/nextPageToken"));
	*next = rc == CR_OK && tok && *tok ? g_strdup(tok) : NULL;
	cr_host->json_free(root);
	return rc;
}

/* A list whose pages keep coming without items (each with a new
 * nextPageToken, or the same one) does not end: stop it. Real lists may
 * have an itemless page now and then, never this many in a row. */
#define GCE_MAX_EMPTY_PAGES 100

/* A list whose every page brings items and a fresh nextPageToken would
 * never end either: each list has list_timeout, and at most
 * GCE_PAGES_PER_S pages per second of it (a page takes longer than that on
 * the real API), whichever comes first; the message names both. */
#define GCE_PAGES_PER_S 10

struct gce_pager {
	const struct gce *st;
	const struct gce_where *w;
	int64_t deadline_ms, max_pages, pages;
	int empty_run;
};

static void gce_pager_start(struct gce_pager *p, const struct gce *st, const struct gce_where *w)
{
	*p = (struct gce_pager){ .st = st, .w = w };
	p->deadline_ms = cr_host->now_ms(w->ctx) + st->list_timeout_ms;
	p->max_pages = st->list_timeout_ms * GCE_PAGES_PER_S / 1000;
}

static cr_status gce_page_guard(struct gce_pager *p, const char *what, const char *token,
				const char *next, bool empty, cr_error *err)
{
	int *empty_run = &p->empty_run;

	if (next == NULL)
		return CR_OK;
	if (++p->pages >= p->max_pages || cr_host->now_ms(p->w->ctx) >= p->deadline_ms)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "%s: the list did not end within list_timeout (%.1f s) "
					  "or %lld pages (%d per second of list_timeout)",
					  what, (double)p->st->list_timeout_ms / 1000.0,
					  (long long)p->max_pages, GCE_PAGES_PER_S);
	if (token != NULL && strcmp(next, token) == 0)
		return cr_host->error_set(err, CR_ERR_BACKEND, "%s: the same nextPageToken twice",
					  what);
	*empty_run = empty ? *empty_run + 1 : 0;
	if (*empty_run >= GCE_MAX_EMPTY_PAGES)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "%s: %d pages in a row without items, each with a "
					  "nextPageToken: the list does not end",
					  what, GCE_MAX_EMPTY_PAGES);
	return CR_OK;
}

cr_status gce_list_members(const struct gce *st, struct gcp *g, const struct gce_where *w,
			   GPtrArray **out, int *requests, cr_error *err)
{
	char *grp = gce_esc(w->group);
	char *base = g_strdup_printf("%sinstanceGroups/%s/listInstances?maxResults=%lld&fields=%s",
				     w->base, grp, (long long)st->page_size,
				     "items%28instance%29%2CnextPageToken");
	char *what = g_strdup_printf("POST %sinstanceGroups/%s/listInstances", w->base, grp);
	char *token = NULL;
	struct gce_pager pager;
	cr_status rc;

	gce_pager_start(&pager, st, w);
	*out = g_ptr_array_new_with_free_func(gce_member_free);
	do {
		guint before = (*out)->len;
		char *etok = token ? gce_esc(token) : NULL;
		char *url = etok ? g_strconcat(base, "&pageToken=", etok, NULL) : g_strdup(base);
		char *text = NULL, *next = NULL;
		size_t len = 0;

		(*requests)++;
		rc = gcp_api_request(g, "POST", url, "{\"instanceState\":\"RUNNING\"}", &text, &len,
				     err);
		if (rc == CR_OK)
			rc = gce_members_page(what, text, len, *out, &next, err);
		if (rc == CR_OK)
			rc = gce_page_guard(&pager, what, token, next, (*out)->len == before, err);
		g_free(token);
		token = next;
		g_free(text);
		g_free(url);
		g_free(etok);
	} while (rc == CR_OK && token != NULL);
	g_free(token);
	g_free(what);
	g_free(base);
	g_free(grp);
	return rc;
}

static const char *gce_addr_ptr(enum gce_address a)
{
	return a == GCE_ADDR_INTERNAL   ? "/networkInterfaces/0/networkIP"
	       : a == GCE_ADDR_EXTERNAL ? "/networkInterfaces/0/accessConfigs/0/natIP"
					: "/networkInterfaces/0/ipv6Address";
}

static const char *gce_addr_field(enum gce_address a)
{
	return a == GCE_ADDR_INTERNAL   ? "networkInterfaces[0].networkIP"
	       : a == GCE_ADDR_EXTERNAL ? "networkInterfaces[0].accessConfigs[0].natIP"
					: "networkInterfaces[0].ipv6Address";
}

/* One instances.list page: addresses of the members in @byname. */
static cr_status gce_addr_page(const struct gce *st, const char *what, const char *text, size_t len,
			       GHashTable *byname, char **next, size_t *n_items, cr_error *err)
{
	cr_json *root = NULL;
	const cr_json *items;
	const char *tok;
	cr_status rc;

	rc = gcp_json_object(cr_host, text, len, what, &root, err);
	if (rc != CR_OK)
		return rc;
	items = cr_host->json_get(root, "/items");
	*n_items = cr_host->json_length(items);
	for (size_t i = 0; rc == CR_OK && i < cr_host->json_length(items); i++) {
		const cr_json *it = cr_host->json_index(items, i);
		const char *name = cr_host->json_string(cr_host->json_get(it, "/name"));
		const char *addr =
			cr_host->json_string(cr_host->json_get(it, gce_addr_ptr(st->address)));
		struct gce_member *m = name ? g_hash_table_lookup(byname, name) : NULL;

		if (m == NULL)
			continue;
		if (addr == NULL || *addr == '\0')
			rc = cr_host->error_set(err, CR_ERR_BACKEND,
						"instance %s (zone %s) has no %s address (%s)",
						m->name, m->zone,
						st->address == GCE_ADDR_INTERNAL   ? "internal"
						: st->address == GCE_ADDR_EXTERNAL ? "external"
										   : "IPv6",
						gce_addr_field(st->address));
		else if (m->address == NULL)
			m->address = g_strdup(addr);
	}
	tok = cr_host->json_string(cr_host->json_get(root, "/nextPageToken"));
	*next = rc == CR_OK && tok && *tok ? g_strdup(tok) : NULL;
	cr_host->json_free(root);
	return rc;
}

/* GET one chunk's filtered list, all its pages. */
static cr_status gce_addr_chunk(const struct gce *st, struct gcp *g, const struct gce_where *w,
				const char *base, const char *what, GHashTable *byname,
				int *requests, cr_error *err)
{
	char *token = NULL;
	struct gce_pager pager;
	cr_status rc;

	gce_pager_start(&pager, st, w);
	do {
		char *etok = token ? gce_esc(token) : NULL;
		char *url = etok ? g_strconcat(base, "&pageToken=", etok, NULL) : g_strdup(base);
		char *text = NULL, *next = NULL;
		size_t len = 0, n_items = 0;

		(*requests)++;
		rc = gcp_api_request(g, "GET", url, NULL, &text, &len, err);
		if (rc == CR_OK)
			rc = gce_addr_page(st, what, text, len, byname, &next, &n_items, err);
		if (rc == CR_OK)
			rc = gce_page_guard(&pager, what, token, next, n_items == 0, err);
		g_free(token);
		token = next;
		g_free(text);
		g_free(url);
		g_free(etok);
	} while (rc == CR_OK && token != NULL);
	g_free(token);
	return rc;
}

/* Members of zone @zone from @from on: one chunk of names under GCE_URL_MAX.
 * Returns the index after the chunk. */
static guint gce_chunk_url(const struct gce *st, const struct gce_where *w, GPtrArray *members,
			   const char *zone, guint from, GHashTable *byname, char **url)
{
	char *p = gce_esc(w->project), *z = gce_esc(zone), *fields = gce_esc(GCE_ADDR_FIELDS);
	GString *s = g_string_new(NULL);
	size_t tail = strlen(fields) + 64, n = 0;
	guint i;

	g_string_printf(s, "%sprojects/%s/zones/%s/instances?filter=name%%20eq%%20%%22%%28",
			st->endpoint, p, z);
	for (i = from; i < members->len; i++) {
		struct gce_member *m = g_ptr_array_index(members, i);
		char *e;

		if (strcmp(m->zone, zone) != 0 || g_hash_table_contains(byname, m->name))
			continue;
		e = gce_esc(m->name);
		if (n > 0 && s->len + strlen(e) + 3 + tail + GCE_TOKEN_ROOM > GCE_URL_MAX) {
			g_free(e);
			break;
		}
		g_string_append_printf(s, "%s%s", n++ ? "%7C" : "", e);
		g_hash_table_insert(byname, m->name, m);
		g_free(e);
	}
	g_string_append_printf(s, "%%29%%22&fields=%s&maxResults=%lld", fields,
			       (long long)st->page_size);
	*url = g_string_free(s, FALSE);
	g_free(p);
	g_free(z);
	g_free(fields);
	return i;
}

cr_status gce_fill_addresses(const struct gce *st, struct gcp *g, const struct gce_where *w,
			     GPtrArray *members, int *requests, cr_error *err)
{
	GHashTable *zones = g_hash_table_new(g_str_hash, g_str_equal);
	cr_status rc = CR_OK;

	for (guint i = 0; rc == CR_OK && i < members->len; i++) {
		const char *zone = ((struct gce_member *)g_ptr_array_index(members, i))->zone;
		guint next = i;

		if (g_hash_table_contains(zones, zone))
			continue;
		g_hash_table_add(zones, (gpointer)zone);
		while (rc == CR_OK && next < members->len) {
			GHashTable *byname = g_hash_table_new(g_str_hash, g_str_equal);
			char *url = NULL, *what;

			next = gce_chunk_url(st, w, members, zone, next, byname, &url);
			what = g_strdup_printf("GET %sprojects/%s/zones/%s/instances", st->endpoint,
					       w->project, zone);
			if (g_hash_table_size(byname) > 0)
				rc = gce_addr_chunk(st, g, w, url, what, byname, requests, err);
			g_free(what);
			g_free(url);
			g_hash_table_destroy(byname);
		}
	}
	g_hash_table_destroy(zones);
	return rc;
}
