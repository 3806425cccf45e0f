/* SPDX-License-Identifier: MIT */
/*
 * gce.h - internal interfaces of the Compute Engine resolver (gce.so).
 *
 *   gce.c          descriptor, options, create/probe/resolve, facts
 *   gce_list.c     the group's RUNNING members (listInstances) and their
 *                  addresses (filtered instances.list, chunked)
 *   gce_members.c  ordering, this VM among the members, the tasks
 */
#ifndef GCE_H
#define GCE_H

#include <glib.h>

#include <cluster-resolver/plugin.h>

#include "gcp.h"

#define GCE_DEFAULT_ENDPOINT "https://compute.googleapis.com/compute/v1/"
/** Longest URL an instances.list request may have (Google front ends
 *  refuse URLs over 8 KiB): names are chunked to stay under it. */
#define GCE_URL_MAX 8000

enum gce_address {
	GCE_ADDR_INTERNAL,
	GCE_ADDR_EXTERNAL,
	GCE_ADDR_IPV6
};
enum gce_order {
	GCE_ORDER_ADDRESS,
	GCE_ORDER_NAME,
	GCE_ORDER_STRING
};

/** The plugin state: options as parsed by create(). Strings are borrowed
 *  from the config. */
struct gce {
	struct gcp_opts gcp;
	const char *project, *zone, *region, *instance_group, *port_name;
	const char *task_type, *rpc_layer, *endpoint;
	int64_t port; /* 0 with port_name */
	bool task_id_set;
	int64_t task_id;
	enum gce_address address;
	enum gce_order order;
	int64_t page_size, min_instances;
	int64_t wait_timeout_ms, wait_interval_ms;
	int64_t list_timeout_ms; /* one list's pages; also GCE_PAGES_PER_S of it at most */
	char *master;            /* the last resolve's task address (master()), or NULL */
};

/** Where the group is, as resolve() settled it. Strings owned. */
struct gce_where {
	char *project;
	char *scope;    /* "zones" or "regions" */
	char *location; /* the zone or the region */
	char *group;
	char *base;         /* ENDPOINT/projects/P/, escaped */
	cr_plugin_ctx *ctx; /* the resolve's: its clock bounds every list */
};

/** One RUNNING member. Strings owned. */
struct gce_member {
	char *name;
	char *zone;
	char *address; /* NULL until instances.list answered */
	char *hostport;
};

/* gce_list.c */
/**
 * gce_named_port: the port of named port @name of the group (instanceGroups.get).
 * Returns: CR_OK, CR_ERR_NOT_FOUND naming the group's named ports, API errors.
 */
cr_status gce_named_port(const struct gce *st, struct gcp *g, const struct gce_where *w,
			 const char *name, int64_t *port, cr_error *err);
/**
 * gce_list_members: the group's RUNNING members, page by page (no items in a
 * page = none). (transfer full) *@out: struct gce_member *, free with
 * gce_members_free. *@requests counts the requests made.
 */
cr_status gce_list_members(const struct gce *st, struct gcp *g, const struct gce_where *w,
			   GPtrArray **out, int *requests, cr_error *err);
/**
 * gce_fill_addresses: the address of each member through filtered
 * instances.list requests, one zone at a time, names chunked under
 * GCE_URL_MAX. Members instances.list does not return keep a NULL address.
 * Returns: CR_OK; CR_ERR_BACKEND for a member without the chosen address;
 *     API errors.
 */
cr_status gce_fill_addresses(const struct gce *st, struct gcp *g, const struct gce_where *w,
			     GPtrArray *members, int *requests, cr_error *err);
void gce_members_free(GPtrArray *members);

/* gce_members.c */
/** Sort @members by the `order` option (address, name, string). */
void gce_sort(const struct gce *st, GPtrArray *members);
/**
 * gce_find_self: index of the member that is this VM: metadata
 * instance/name (and zone) when @use_metadata, else a member whose address
 * is one of this machine's. -1 when none; *@self_name is what was looked
 * for (g_free).
 */
int64_t gce_find_self(struct gcp *g, cr_plugin_ctx *ctx, GPtrArray *members, bool use_metadata,
		      char **self_name);

#endif /* GCE_H */
