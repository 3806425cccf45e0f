/* SPDX-License-Identifier: MIT */
/*
 * k8s_options.h - the state of a k8s.so instance: its options as create()
 * (k8s.c) parses them, read by every file of the plugin, its client
 * (client/) included. Only data: no file defines anything declared here.
 */
#ifndef K8S_OPTIONS_H
#define K8S_OPTIONS_H

#include <glib.h>

#include <cluster-resolver/plugin.h>

struct k8s_watched; /* k8s.h */

#define K8S_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

/** How a task's address is formed. */
enum k8s_address {
	K8S_ADDR_POD_IP,
	K8S_ADDR_HOST_IP,
	K8S_ADDR_POD_NAME,
	K8S_ADDR_DNS,
};

/** What a pod that is not Running does to the resolution. */
enum k8s_not_running {
	K8S_NR_ERROR,
	K8S_NR_SKIP,
	K8S_NR_WAIT,
};

/** Where credentials come from. */
enum k8s_auth_mode {
	K8S_AUTH_AUTO,
	K8S_AUTH_IN_CLUSTER,
	K8S_AUTH_KUBECONFIG,
};

/**
 * struct k8s_selector - one label selector of a job, as written and, where
 * it names a Job label that clusters before Kubernetes 1.27 lack, in its
 * legacy form (k8s_legacy.c). The two flags are what the instance learns
 * of its cluster: set by the lists (k8s_list_selector), under a const
 * struct k8s as the resolve and the watch op never run at once.
 */
struct k8s_selector {
	const char *text; /* as written (config-owned) */
	char *legacy;     /* (owned, nullable) the legacy form; NULL: the same */
	bool use_legacy;  /* the legacy form found the pods: sent from now on */
	bool none;        /* this resolve listed both forms and neither matched */
};

/** One job of the `jobs` option: its name and its selectors, in order. */
struct k8s_job {
	const char *name;
	GPtrArray *selectors; /* struct k8s_selector * (owned) */
};

/** The plugin state: options as parsed by create(). */
struct k8s {
	GArray *jobs; /* struct k8s_job */
	const char *namespace;
	const char *field_selector;
	const char *rpc_layer;
	const char *kubeconfig;
	const char *context;
	const char *server;
	const char *token_file;
	const char *ca_file;
	const char *namespace_file;
	const char *cluster_domain;
	int64_t port;
	int64_t page_size;
	int64_t retries;
	int64_t wait_timeout_ms;
	int64_t wait_interval_ms;
	long connect_timeout_ms;
	long request_timeout_ms;
	int64_t max_retry_wait_ms;
	int64_t exec_timeout_ms;
	int64_t list_timeout_ms;     /* one whole list, all pages and retries */
	int64_t max_pages;           /* pages of one list before it is endless */
	bool accelerators;           /* per-task accelerators from container limits */
	bool order_by_index;         /* order = "index" (else "name") */
	bool table;                  /* list_format = "auto": Table rows when enough */
	bool protobuf;               /* full pods: ask for protobuf before JSON */
	bool from_cache;             /* list from the watch cache (resourceVersion=0) */
	int64_t start_jitter_ms;     /* random wait before the first list, at most */
	int64_t watch_timeout_s;     /* timeoutSeconds of one watch request */
	struct k8s_watched *watched; /* (owned, nullable) the last resolve's lists */
	/* The resolution in progress is a watch's (host->watched): a pod that
	 * is not Running is not a member yet, whatever not_running says. */
	bool in_watch;
	enum k8s_address address;
	enum k8s_not_running not_running;
	enum k8s_auth_mode auth;
};

#endif /* K8S_OPTIONS_H */
