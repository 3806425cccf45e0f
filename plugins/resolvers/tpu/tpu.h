/* SPDX-License-Identifier: MIT */
/*
 * tpu.h - internal interfaces of the Cloud TPU resolver (resolvers/tpu.so).
 *
 *   tpu.c          descriptor, options, create/probe/resolve/master
 *   tpu_source.c   which source applies: local, endpoint lists, GKE, node
 *                  name, TPU-VM metadata; the `tpu-env` attribute
 *   tpu_api.c      the Cloud TPU API: nodes and queued resources
 *   tpu_build.c    multislice, coordinator, identity, facts, builder calls
 *   tpu_count.c    TPUs per task: accelerator type/config, devices_file
 *
 * The accelerator plugin of the same short name (accelerators/tpu.so)
 * counts the chips of this host; this one finds the hosts of a slice.
 */
#ifndef TPU_RESOLVER_H
#define TPU_RESOLVER_H

#include <glib.h>

#include <cluster-resolver/plugin.h>

#include "gcp.h"

#define TPU_DEFAULT_PORT "8470"

/** Where the workers came from (the `source` fact). */
enum tpu_source {
	TPU_SRC_NONE,
	TPU_SRC_LOCAL,     /* tpu = "local" */
	TPU_SRC_ENDPOINTS, /* an endpoint list: tpu or KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS */
	TPU_SRC_GKE,       /* TPU_PROCESS_ADDRESSES / TPU_WORKER_HOSTNAMES */
	TPU_SRC_API,       /* a node name through the Cloud TPU API */
	TPU_SRC_METADATA,  /* the TPU VM's own metadata */
};

/** The plugin state: options as create() checked them. */
struct tpu {
	struct gcp_opts gopts;
	char *tpu; /* the single name of `tpu`, NULL when the key is absent */
	const char *project, *zone, *job_name;
	const char *coordinator_name, *coordinator_address;
	const char *queued_resource, *tpu_endpoint, *api_version, *devices_file;
	int64_t port, coordinator_port;
	bool require_healthy;
	/* Set by probe on a TPU VM: the metadata's agent-worker-number. */
	char *worker_number;
	/* Set by resolve for master(): this process's worker, "local". */
	char *master;
	bool local;
};

/** One worker: its address as the API words it (port kept as text). */
struct tpu_ep {
	char *ip;
	char *port;
};

/** What one resolution found; tpu_run_clear() frees it. */
struct tpu_run {
	struct tpu *t;
	struct gcp *g; /* metadata and API access for this resolution */
	cr_plugin_ctx *ctx;
	cr_result_builder *b;
	enum tpu_source source;
	const char *source_what; /* the variable or option the list came from */
	char *name;              /* node name (tpu_name fact) */
	char *project, *zone;
	GPtrArray *eps;      /* struct tpu_ep *, every worker of every slice */
	int64_t self;        /* this process's worker index in this slice, -1 unknown */
	char *self_ip;       /* this VM's address, when known */
	char *accel_type;    /* "v4-32", when known */
	char *accel_config;  /* "V4 2x2x4", when known */
	GHashTable *tpu_env; /* the TPU VM's tpu-env attribute, KEY -> value */
	/* Multislice (MEGASCALE_*): slices and this one's place among them. */
	int64_t num_slices, slice_id;
	size_t per_slice;  /* workers in one slice */
	char *coordinator; /* the coordinator task's address */
};

/* tpu_env.c, the lowest layer (layers.txt has the order) */
void tpu_ep_free(gpointer p);
bool tpu_is_endpoint_list(const char *text);
bool tpu_port_ok(const char *p);
cr_status tpu_parse_endpoints(const char *text, const char *what, const char *port, GPtrArray *eps,
			      cr_error *err);
cr_status tpu_parse_worker_endpoints(const char *text, const char *port, GPtrArray *eps,
				     cr_error *err);
GHashTable *tpu_parse_env(const char *text);
const char *tpu_getenv(cr_plugin_ctx *ctx, const char *name);
const char *tpu_no_metadata(struct tpu_run *r);

/* tpu_api.c */
cr_status tpu_api_node(struct tpu_run *r, const char *project, const char *zone, const char *name,
		       bool facts, cr_error *err);
cr_status tpu_api_slices(struct tpu_run *r, cr_error *err);
cr_status tpu_node_parse(struct tpu_run *r, const char *name, const cr_json *node, bool facts,
			 cr_error *err);

/* tpu_source.c */
cr_status tpu_probe_source(struct tpu *t, cr_plugin_ctx *ctx, cr_error *err);
cr_status tpu_gather(struct tpu_run *r, cr_error *err);
const char *tpu_source_name(enum tpu_source s);

/* tpu_build.c */
cr_status tpu_build(struct tpu_run *r, cr_error *err);
void tpu_fact_endpoints(struct tpu_run *r);
char *tpu_address(const char *ip, const char *port);

/* tpu_count.c */
int64_t tpu_devices_of_type(const char *accel_type);
int64_t tpu_devices_of_config(const char *type, const char *topology);
cr_status tpu_devices_file(struct tpu_run *r, int64_t *per_host, cr_error *err);

#endif /* TPU_RESOLVER_H */
