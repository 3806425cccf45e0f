/* SPDX-License-Identifier: MIT */
/*
 * gce_members.c - the members' order and this VM's place among them.
 *
 * order = "address" (default): IPv4 addresses as numbers, then IPv6 ones
 * by their bytes, then the port and the name; "name": instance names with
 * digit runs compared as numbers (w-2 before w-10); "string": the
 * "ip:port" strings compared byte by byte, as TensorFlow sorts them
 * (10.0.0.10 before 10.0.0.2; §14.13), for jobs that must match TF's
 * numbering exactly.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "gce.h"
#include "natural.h"

/* Sort key of an address: family rank (IPv4 first) and its bytes. */
static int gce_addr_key(const char *addr, unsigned char key[17])
{
	memset(key, 0, 17);
	if (inet_pton(AF_INET, addr, key + 1) == 1)
		return 0;
	key[0] = 1;
	if (inet_pton(AF_INET6, addr, key + 1) == 1)
		return 0;
	key[0] = 2; /* not an address: after all, by text */
	return -1;
}

static int gce_cmp_address(gconstpointer pa, gconstpointer pb)
{
	const struct gce_member *a = *(struct gce_member *const *)pa;
	const struct gce_member *b = *(struct gce_member *const *)pb;
	unsigned char ka[17], kb[17];
	int c;

	gce_addr_key(a->address, ka);
	gce_addr_key(b->address, kb);
	c = memcmp(ka, kb, sizeof(ka));
	if (c == 0 && ka[0] == 2)
		c = strcmp(a->address, b->address);
	return c != 0 ? c : natural_cmp(a->name, b->name);
}

static int gce_cmp_name(gconstpointer pa, gconstpointer pb)
{
	const struct gce_member *a = *(struct gce_member *const *)pa;
	const struct gce_member *b = *(struct gce_member *const *)pb;
	int c = natural_cmp(a->name, b->name);

	return c != 0 ? c : strcmp(a->zone, b->zone);
}

static int gce_cmp_string(gconstpointer pa, gconstpointer pb)
{
	const struct gce_member *a = *(struct gce_member *const *)pa;
	const struct gce_member *b = *(struct gce_member *const *)pb;
	int c = strcmp(a->hostport, b->hostport);

	return c != 0 ? c : strcmp(a->name, b->name);
}

void gce_sort(const struct gce *st, GPtrArray *members)
{
	g_ptr_array_sort(members, st->order == GCE_ORDER_ADDRESS ? gce_cmp_address
				  : st->order == GCE_ORDER_NAME  ? gce_cmp_name
								 : gce_cmp_string);
}

/* This machine's addresses, as text. */
static GHashTable *gce_local_addresses(void)
{
	GHashTable *set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	struct ifaddrs *ifs = NULL;

	if (getifaddrs(&ifs) != 0)
		return set;
	for (struct ifaddrs *i = ifs; i != NULL; i = i->ifa_next) {
		char text[INET6_ADDRSTRLEN];
		const void *a;

		if (i->ifa_addr == NULL)
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			a = &((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr;
		else if (i->ifa_addr->sa_family == AF_INET6)
			a = &((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr;
		else
			continue;
		if (inet_ntop(i->ifa_addr->sa_family, a, text, sizeof(text)) != NULL)
			g_hash_table_add(set, g_strdup(text));
	}
	freeifaddrs(ifs);
	return set;
}

int64_t gce_find_self(struct gcp *g, cr_plugin_ctx *ctx, GPtrArray *members, bool use_metadata,
		      char **self_name)
{
	char *name = NULL, *zone = NULL;
	int64_t found = -1;

	*self_name = NULL;
	if (use_metadata && gcp_metadata_get(g, "instance/name", &name, NULL) == CR_OK) {
		if (gcp_metadata_get(g, "instance/zone", &zone, NULL) != CR_OK)
			zone = NULL;
		g_strstrip(name);
		for (guint i = 0; i < members->len && found < 0; i++) {
			const struct gce_member *m = g_ptr_array_index(members, i);

			if (strcmp(m->name, name) == 0 &&
			    (zone == NULL ||
			     strcmp(m->zone, gcp_last_segment(g_strstrip(zone))) == 0))
				found = i;
		}
		*self_name = name;
		g_free(zone);
		return found;
	}
	g_free(name);
	{
		GHashTable *local = gce_local_addresses();

		for (guint i = 0; i < members->len && found < 0; i++) {
			const struct gce_member *m = g_ptr_array_index(members, i);

			if (g_hash_table_contains(local, m->address))
				found = i;
		}
		g_hash_table_destroy(local);
	}
	(void)ctx;
	*self_name =
		g_strdup(found >= 0 ? ((struct gce_member *)g_ptr_array_index(members, found))->name
				    : "no metadata; none of its addresses is a member's");
	return found;
}
