/* SPDX-License-Identifier: MIT */
/*
 * k8s.h - internal interfaces of the Kubernetes resolver plugin (k8s.so)
 * above its client (client/k8s_client.h: the API server's connection and
 * credentials); layers.txt gives the order in which the files stand.
 *
 *   k8s_view.c        a pod as the plugin reads it, whichever the encoding
 *   k8s_pb.c          the protobuf wire format and the API server's envelope
 *   k8s_proto.c       a page in Kubernetes' protobuf encoding
 *   k8s_page.c        one page, pod by pod, while the next one is fetched
 *   k8s_pbstream.c    a protobuf page read as it arrives
 *   k8s_fetch.c       listing pods: HTTP with retries, limit/continue paging
 *   k8s_legacy.c      the Job labels before Kubernetes 1.27: a selector
 *                     listed again under the legacy keys
 *   k8s_uid.c         one task per pod uid
 *   k8s_watched.c     what the last resolve listed, where a watch starts
 *   k8s_pods.c        pod records, ordering, addresses, building tasks
 *   k8s_wait.c        not_running = "wait": listing until the pods run
 *   k8s_watch.c       the watch op
 *   k8s.c             descriptor, options, create/probe/resolve
 */
#ifndef K8S_H
#define K8S_H

#include <glib.h>
#include <json-c/json.h>

#include <cluster-resolver/plugin.h>

#include "client/k8s_client.h"
#include "k8s_options.h"

/**
 * struct k8s_watch_list - one list of the last resolve (a job's selector),
 * as its watch (k8s_watch.c) starts from it: the list's resourceVersion
 * and, for every pod that counts for membership, a digest of what the
 * resolution reads of it (k8s_pod_digest), by a hash of "namespace/name"
 * (k8s_pod_key_hash): 16 bytes a pod, where a table of names took ~75.
 */
struct k8s_watch_list {
	char *selector; /* as sent; NULL: none */
	char *version;  /* NULL: the server gave none */
	GArray *pods;   /* struct k8s_pod_seen, sorted by key once sealed */
	bool sorted;
	bool relist; /* neither form of a Job label matched (k8s_legacy.c):
			   * which one the pods will carry is unknown, so the
			   * watch lists again instead of watching one */
	bool full;   /* each pod's record is kept (a watched resolution,
			   * k8s_pod_record): the watch keeps them as events
			   * come, and a resolve may answer from them (k8s_pods.c) */
};

/** What the last successful resolve listed (state->watched). */
struct k8s_watched {
	char *namespace;  /* NULL: all namespaces */
	GPtrArray *lists; /* struct k8s_watch_list *, in resolve order */
	char *self_ns;    /* the namespace of this process's pod, when known */
	/* How this process knows its pod (struct k8s_self's), for the
	 * records the watch makes of the pods its events bring. */
	char *self_pod_name, *self_hostname, *self_pod_ip;
	bool full; /* its lists keep each pod's view (k8s_watch_list.full) */
	/* The lists' pods are what the server holds as of each list's version:
	 * every list full, no fault, no 410 since (k8s_watch.c clears it). */
	bool fresh;
	/* A change the watch applied to the lists as the host ended its round
	 * (a signal to the agent as the pod was deleted): the round's answer
	 * is lost, the lists' versions are past the event, so the next watch
	 * op answers it at once (k8s_watch_many.c); a resolve from the lists
	 * answers it too (k8s.c). */
	bool unanswered;
};

/* k8s_view.c */
enum {
	K8S_ACC_NONE,
	K8S_ACC_GPU,
	K8S_ACC_TPU
};
/* The labels and the annotation that give a pod's index, in the order they
 * are tried (k8s_index_keys), and the container limits that count as
 * accelerators (k8s_acc_keys, k8s_acc_kinds). */
#define K8S_INDEX_KEYS 3
#define K8S_ACC_KEYS 3
extern const char *const k8s_acc_keys[K8S_ACC_KEYS];

/**
 * struct k8s_pod_view - what the plugin reads of one listed pod, filled
 * from a JSON pod, a protobuf one (k8s_proto.c) or a Table row
 * (k8s_page.c). Strings are UTF-8 without NUL, NULL where the pod lacks
 * the field; all of it is borrowed and valid during the k8s_pod_fn call
 * only.
 */
struct k8s_pod_view {
	const char *name, *ns, *uid, *phase;
	const char *version; /* metadata.resourceVersion */
	const char *pod_ip, *host_ip, *hostname, *subdomain;
	const char *index[K8S_INDEX_KEYS];       /* the values of the index keys */
	const char *const *sts_owners;           /* names of its StatefulSet owners */
	const char *const *pod_ips;              /* status.podIPs[].ip */
	const char *const *labels;               /* key, value, key, value... */
	guint n_sts_owners, n_pod_ips, n_labels; /* n_labels: pairs */
	int32_t accel;                           /* its containers' accelerator limits, summed */
	uint8_t accel_kind;
};

/** Where a view's strings and lists live; reused pod after pod. */
struct k8s_view_store {
	GPtrArray *owners, *ips; /* const char * */
	char *text;              /* copies of protobuf strings, NUL-terminated */
	size_t cap, len;
	GPtrArray *labels; /* const char *: key, value, ... */
	bool want_labels;  /* keep every label (a watch's events) */
};

void k8s_view_store_init(struct k8s_view_store *s);
void k8s_view_store_clear(struct k8s_view_store *s);
/* Start a view whose copied strings take at most @text bytes in all. */
void k8s_view_begin(struct k8s_view_store *s, struct k8s_pod_view *v, size_t text);
const char *k8s_view_copy(struct k8s_view_store *s, const char *p, size_t n);
void k8s_view_end(struct k8s_view_store *s, struct k8s_pod_view *v);
int k8s_index_slot(bool annotation, const char *key, size_t n);
int k8s_acc_slot(const char *key, size_t n);
void k8s_view_add_limits(struct k8s_pod_view *v, const int64_t limits[K8S_ACC_KEYS]);
int64_t k8s_count(const char *s, size_t n);
bool k8s_text_ok(const char *s, size_t n);
/* Whether @v's labels satisfy @selector, a labelSelector as sent (k=v,
 * k==v, k!=v, k in (a,b), k notin (a,b), k, !k, comma-separated); NULL
 * or a selector this cannot read matches (the server judged it). */
bool k8s_view_selected(const struct k8s_pod_view *v, const char *selector);
const char *k8s_view_from_json(struct k8s_view_store *s, json_object *pod, struct k8s_pod_view *v);

/** Called for each pod of a list, in the server's order. */
typedef cr_status (*k8s_pod_fn)(const struct k8s_pod_view *pod, void *user_data, cr_error *err);
/** Told a page's continue token (NULL on the last page) and its list's
 *  resourceVersion (NULL: none) as soon as they are read. */
typedef void (*k8s_next_fn)(void *pager, const char *next, const char *version);
/** Called when a list restarts from the beginning after 410 Gone. */
typedef void (*k8s_restart_fn)(void *user_data);

/* k8s_fetch.c */
/* SERVER/api/v1[/namespaces/NS]/pods (transfer full). */
char *k8s_pods_path(const struct k8s_conn *conn, const char *ns);
/* Append "?KEY=VALUE" or "&KEY=VALUE", the value escaped. */
void k8s_query_add(GString *q, const char *key, const char *value);
/* "ENDPOINT: HTTP 403 Forbidden: pods is forbidden..." from an answer's
 * Status (JSON or protobuf), with @token (nullable), the Bearer token the
 * request sent, cut out of it: a server may echo it. */
cr_status k8s_answer_error(const char *endpoint, const char *token, const cr_http_response *resp,
			   int attempts, cr_error *err);
bool k8s_is_protobuf(const cr_http_response *resp);
/* @table: ask for the Table form (one row per pod: name, status, IP); the
 * list falls back to full pods when the server refuses it or a row is not
 * enough (see k8s_page.c). Only for a namespace (rows carry none). */
/* (out) (nullable) *@version: the list's resourceVersion, where a watch
 * starts (NULL when the server gave none). */
cr_status k8s_list_pods(const struct k8s *st, cr_plugin_ctx *ctx, const struct k8s_conn *conn,
			const char *namespace, const char *selector, bool table, k8s_pod_fn fn,
			k8s_restart_fn restart, void *user_data, char **version, cr_error *err);
/* A watch request's URL: @base + the selectors, watch=1, @version, bookmarks,
 * timeoutSeconds=@timeout_s (k8s_fetch.c). */
char *k8s_watch_url(const struct k8s *st, const char *base, const char *selector,
		    const char *version, int64_t timeout_s);

/* k8s_page.c */
struct k8s_pager;
/* @proto: the page is protobuf (its Content-Type said so), else JSON. */
struct k8s_pager *k8s_pager_start(const char *endpoint, const char *namespace, const char *text,
				  size_t len, bool proto, k8s_pod_fn fn, void *ud);
char *k8s_pager_next(struct k8s_pager *w);
/* After k8s_pager_next: the list's resourceVersion, or NULL. (transfer full) */
char *k8s_pager_version(struct k8s_pager *w);
cr_status k8s_pager_finish(struct k8s_pager *w, bool *need_full, cr_error *err);
/* The whole page at once on the caller's thread (fuzzing, tests). */
cr_status k8s_page_read(const char *endpoint, const char *namespace, const char *text, size_t len,
			bool proto, k8s_pod_fn fn, void *ud, bool *need_full, char **next,
			char **version, cr_error *err);

/* k8s_pbstream.c: a protobuf PodList page read as it arrives (a
 * cr_http_data_fn is k8s_pbs_feed, with the page as its user data). */
struct k8s_pbs;
/* The most one page may hold: the host's cap on an answer's body. */
#define K8S_PAGE_MAX ((size_t)256 << 20)
struct k8s_pbs *k8s_pbs_new(const char *endpoint, k8s_pod_fn fn, void *ud);
bool k8s_pbs_feed(const char *data, size_t n, void *page);
cr_status k8s_pbs_finish(struct k8s_pbs *s, bool proto, const char *namespace, bool *need_full,
			 char **next, char **version, cr_error *err);
void k8s_pbs_free(struct k8s_pbs *s);

/* k8s_proto.c */
#define K8S_PROTOBUF "application/vnd.kubernetes.protobuf"
cr_status k8s_pb_page(const char *endpoint, const uint8_t *buf, size_t len, k8s_next_fn on_next,
		      void *pager, struct k8s_view_store *store, k8s_pod_fn fn, void *ud,
		      cr_error *err);
json_object *k8s_pb_status(const char *buf, size_t len);
/* One protobuf watch event (a frame's bytes, its length prefix gone):
 * *@type its type (transfer full); a Pod's view in *@pod (pod->name NULL
 * when the object is not a Pod) living in @store; a Status object as
 * {"reason", "message"} in *@status (transfer full, NULL when none).
 * Returns: CR_OK, CR_ERR_PARSE naming @endpoint and the offset. */
cr_status k8s_pb_event(const char *endpoint, const uint8_t *buf, size_t len,
		       struct k8s_view_store *store, char **type, struct k8s_pod_view *pod,
		       json_object **status, cr_error *err);

/* k8s_legacy.c */
/* @selector with its equality requirements on batch.kubernetes.io/job-name
 * and .../controller-uid under the legacy keys; NULL when it has none.
 * (transfer full) */
char *k8s_legacy_selector(const char *selector);
/* The form of @sel this instance sends. */
const char *k8s_selector_sent(const struct k8s_selector *sel);
/* A resolve starts: each selector may try its legacy form again. */
void k8s_legacy_begin(const struct k8s *st);
/* k8s_list_pods() of @sel, listed again in its legacy form when it finds
 * no pod (the form that finds pods is kept in @sel). */
cr_status k8s_list_selector(const struct k8s *st, cr_plugin_ctx *ctx, const struct k8s_conn *conn,
			    const char *namespace, struct k8s_selector *sel, bool table,
			    k8s_pod_fn fn, k8s_restart_fn restart, void *user_data, char **version,
			    cr_error *err);
/* explain's "legacy_selectors": as written -> as sent, when any. */
void k8s_legacy_fact(const struct k8s *st, cr_result_builder *b);

/* k8s_pods.c */
struct k8s_self {
	const char *pod_name; /* POD_NAME */
	const char *hostname; /* HOSTNAME, when POD_NAME is unset */
	const char *pod_ip;   /* POD_IP, when both are unset */
	char *namespace;      /* POD_NAMESPACE or the service account's; owned */
	bool found;
};
/* @watched: (nullable) filled with each list's version and pods. @from:
 * (nullable) a fresh watch's pods (k8s_watch.c), answered instead of
 * listing: one list a selector, in order; nothing is asked of the server. */
cr_status k8s_build(const struct k8s *st, cr_plugin_ctx *ctx, const struct k8s_conn *conn,
		    const char *namespace, struct k8s_self *self, cr_result_builder *b,
		    struct k8s_watched *watched, const struct k8s_watched *from, cr_error *err);
/* Whether the pod counts for membership (not_running = "skip" drops the
 * pods not Running), and the digest of what a resolution reads of it:
 * phase, address, and index and accelerators where configured. @scratch
 * is reused. */
bool k8s_pod_counts(const struct k8s *st, const struct k8s_pod_view *pod);
guint64 k8s_pod_digest(const struct k8s *st, const struct k8s_pod_view *pod, const char *ns,
		       GString *scratch);
/* What a resolution reads of a pod, in one allocation: its order, phase,
 * address, accelerators, whether it is this process's (@self: nullable),
 * its name and namespace; a watched resolution keeps one a pod
 * (k8s_watched.c), and answers from them with no view to read again.
 * @scratch is reused. (transfer full) */
char *k8s_pod_record(const struct k8s *st, const struct k8s_pod_view *pod, const char *ns,
		     const struct k8s_self *self, GString *scratch);
/* The identity of @self kept in @w, and read back (borrowed from @w). */
void k8s_self_keep(struct k8s_watched *w, const struct k8s_self *self);
void k8s_self_kept(const struct k8s_watched *w, struct k8s_self *self);
/* "namespace/name" of a pod (transfer full). */
char *k8s_pod_key(const struct k8s_pod_view *pod, const char *ns);
/* A 64-bit hash (FNV-1a) of "namespace/name". */
guint64 k8s_pod_key_hash(const struct k8s_pod_view *pod, const char *ns);
/* Whether Table rows say all this configuration reads of a pod (@self:
 * nullable, no identity to find). */
bool k8s_table_enough(const struct k8s *st, const char *ns, const struct k8s_self *self);

/* k8s_wait.c */
/* not_running = "wait": list until every selected pod is Running. */
cr_status k8s_wait_running(const struct k8s *st, cr_plugin_ctx *ctx, const struct k8s_conn *conn,
			   const char *namespace, cr_error *err);

/* k8s_watched.c */
struct k8s_watched *k8s_watched_new(const char *namespace);
/* A list of the resolve; its selector is set once it is listed. */
struct k8s_watch_list *k8s_watched_add(struct k8s_watched *w);
/* A pod the list gave (its key hash, its digest, its record when the list
 * is full, else NULL); a key put again replaces the earlier one. */
struct k8s_pod_seen {
	guint64 key, digest;
	char *rec; /* (owned, nullable) k8s_pod_record */
};
/* @rec: (transfer full) (nullable). */
void k8s_watch_list_put(struct k8s_watch_list *l, guint64 key, guint64 digest, char *rec);
/* Sorted for k8s_watch_list_get (k8s_watch does it when a watch starts). */
void k8s_watch_list_seal(struct k8s_watch_list *l);
bool k8s_watch_list_get(const struct k8s_watch_list *l, guint64 key, guint64 *digest);
/* A sealed list after an event: the pod set (@rec: transfer full) or
 * gone (@rec NULL), in its place by key. */
void k8s_watch_list_update(struct k8s_watch_list *l, guint64 key, guint64 digest, char *rec,
			   bool gone);
void k8s_watch_list_clear(struct k8s_watch_list *l);
void k8s_watched_free(struct k8s_watched *w);

/* k8s_watch.c: one list's watch, and a wait the watch's end cuts short. */
struct k8s_watch_one {
	const struct k8s *st;
	cr_plugin_ctx *ctx;
	const struct k8s_conn *conn;
	struct k8s_watch_list *list;
	int64_t deadline_ms;
	/* what it ended with */
	cr_status rc;
	cr_error err;
	bool changed, expired;
	char *version; /* (owned) where a next watch of the list resumes */
};
void k8s_watch_one(struct k8s_watch_one *o);
void k8s_watch_sleep(cr_plugin_ctx *ctx, int64_t ms);
/* k8s_watch_many.c: the watch op, a stream per selector. */
cr_status k8s_watch(void *state, cr_plugin_ctx *ctx, int64_t deadline_ms, bool *changed,
		    cr_error *err);

/* k8s_uid.c: one task per pod uid. Each uid is kept as 16 bytes (a UUID's
 * bytes, or a SHA-256 of any other form) beside the pod's place in the
 * list, 20 bytes a pod; once the list is read, k8s_uid_repeats sorts them
 * and calls @fn for every pod whose uid came earlier (a server's pages
 * shifting under the list). */
GArray *k8s_uids_new(void);
void k8s_uid_add(GArray *uids, const char *uid, uint32_t pod);
void k8s_uid_repeats(GArray *uids, void (*fn)(uint32_t pod, void *ud), void *ud);

#endif /* K8S_H */
