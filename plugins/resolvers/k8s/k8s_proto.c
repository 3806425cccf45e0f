/* SPDX-License-Identifier: MIT */
/*
 * k8s_proto.c - a pod list in Kubernetes' protobuf encoding, pod by pod.
 *
 * The API server's PodList, inside the envelope k8s_pb.c unwraps:
 *
 *     PodList   { metadata 1: ListMeta { continue 3 }, items 2: Pod }
 *     Pod       { metadata 1: ObjectMeta, spec 2: PodSpec, status 3: PodStatus }
 *     ObjectMeta{ name 1, namespace 3, uid 5, labels 11, annotations 12,
 *                 ownerReferences 13: { kind 1, name 3 } }
 *     PodSpec   { containers 2: Container { resources 8: { limits 1 } },
 *                 hostname 16, subdomain 17 }
 *     PodStatus { phase 1, hostIP 5, podIP 6, podIPs 12: { ip 1 } }
 *
 * A watch streams frames (a 4-byte big-endian length, then the bytes) of
 *
 *     WatchEvent   { type 1, object 2: RawExtension { raw 1 } }
 *
 * without an envelope; raw is the object in its envelope (Pod, or the
 * Status of an ERROR event).
 *
 * Maps are repeated { key 1, value 2 } entries; a Quantity is { string 1 }.
 * Every nested message is length-prefixed, so what the plugin does not
 * read (managedFields, volumes, env, probes, conditions, container
 * statuses: most of a pod's bytes) is stepped over without being looked
 * at. The fields above fill the pod's view (k8s_view.c) straight from the
 * bytes, of labels and annotations only the index keys and of limits only
 * the accelerators: no object is built for a pod, and its kept strings are
 * copied once, into a buffer reused pod after pod.
 *
 * Strings must be UTF-8 without NUL (what protobuf and the API server
 * promise); any other string in a field the plugin keeps refuses the page.
 */
#include <string.h>

#include "k8s_pb.h"

/* Field numbers, from k8s.io/api/core/v1 and k8s.io/apimachinery's
 * generated.proto (the wire contract, stable across releases). */
enum {
	LIST_METADATA = 1,
	LIST_ITEMS = 2,
	LISTMETA_VERSION = 2,
	LISTMETA_CONTINUE = 3,
	POD_METADATA = 1,
	POD_SPEC = 2,
	POD_STATUS = 3,
	META_NAME = 1,
	META_NAMESPACE = 3,
	META_UID = 5,
	META_VERSION = 6,
	META_LABELS = 11,
	META_ANNOTATIONS = 12,
	META_OWNERS = 13,
	OWNER_KIND = 1,
	OWNER_NAME = 3,
	SPEC_CONTAINERS = 2,
	SPEC_HOSTNAME = 16,
	SPEC_SUBDOMAIN = 17,
	CONTAINER_RESOURCES = 8,
	RESOURCES_LIMITS = 1,
	QUANTITY_STRING = 1,
	STATUS_PHASE = 1,
	STATUS_HOST_IP = 5,
	STATUS_POD_IP = 6,
	STATUS_POD_IPS = 12,
	PODIP_IP = 1,
	ENTRY_KEY = 1,
	ENTRY_VALUE = 2,
};

/* The fields each message is read for; the walk steps over the others
 * without a call. */
#define WANT_LIST (PB_FIELD(LIST_METADATA) | PB_FIELD(LIST_ITEMS))
#define WANT_POD (PB_FIELD(POD_METADATA) | PB_FIELD(POD_SPEC) | PB_FIELD(POD_STATUS))
#define WANT_META                                                                                  \
	(PB_FIELD(META_NAME) | PB_FIELD(META_NAMESPACE) | PB_FIELD(META_UID) |                     \
	 PB_FIELD(META_VERSION) | PB_FIELD(META_LABELS) | PB_FIELD(META_ANNOTATIONS) |             \
	 PB_FIELD(META_OWNERS))
#define WANT_SPEC (PB_FIELD(SPEC_CONTAINERS) | PB_FIELD(SPEC_HOSTNAME) | PB_FIELD(SPEC_SUBDOMAIN))
#define WANT_STATUS                                                                                \
	(PB_FIELD(STATUS_PHASE) | PB_FIELD(STATUS_HOST_IP) | PB_FIELD(STATUS_POD_IP) |             \
	 PB_FIELD(STATUS_POD_IPS))
#define WANT_ENTRY (PB_FIELD(ENTRY_KEY) | PB_FIELD(ENTRY_VALUE))
#define WANT_OWNER (PB_FIELD(OWNER_KIND) | PB_FIELD(OWNER_NAME))

/* Set *@out to a checked copy of the string field @f (the last one wins,
 * as in protobuf). */
static bool pb_string(struct pb_page *pg, const struct pb_field *f, const char **out)
{
	if (!pb_text(pg, f))
		return false;
	*out = k8s_view_copy(pg->store, (const char *)f->sub.p, (size_t)(f->sub.end - f->sub.p));
	return *out != NULL || pb_fail(pg, &f->sub, "a pod's strings do not fit its size");
}

/* A map<string, string> or map<string, Quantity> entry, or a message whose
 * field 1 is read the same way (Quantity's string, PodIP's ip): the last
 * of each of fields 1 and 2. */
struct pb_entry {
	struct pb_field key, value;
	bool has_key, has_value;
};

static bool pb_entry_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	struct pb_entry *e = user;

	(void)pg;
	if (f->num == ENTRY_KEY && f->wire == WIRE_LEN) {
		e->key = *f;
		e->has_key = true;
	} else if (f->num == ENTRY_VALUE && f->wire == WIRE_LEN) {
		e->value = *f;
		e->has_value = true;
	}
	return true;
}

static bool pb_entry(struct pb_page *pg, const struct pb_field *f, struct pb_entry *e)
{
	*e = (struct pb_entry){ 0 };
	return pb_is_msg(pg, f) && pb_walk_some(pg, f->sub, WANT_ENTRY, pb_entry_field, e);
}

/* A label or annotation: kept when it is one of the index keys; a label
 * also goes to the store's labels when it keeps them (a watch's events). */
static bool pb_index_entry(struct pb_page *pg, const struct pb_field *f, bool annotation)
{
	struct pb_entry e;
	const char *key, *value = "";
	int slot;

	if (!pb_entry(pg, f, &e))
		return false;
	slot = e.has_key ? k8s_index_slot(annotation, (const char *)e.key.sub.p,
					  (size_t)(e.key.sub.end - e.key.sub.p))
			 : -1;
	if (!annotation && e.has_key && pg->store->want_labels) {
		if (!pb_string(pg, &e.key, &key) ||
		    (e.has_value && !pb_string(pg, &e.value, &value)))
			return false;
		g_ptr_array_add(pg->store->labels, (gpointer)key);
		g_ptr_array_add(pg->store->labels, (gpointer)value);
		if (slot >= 0)
			pg->pod.index[slot] = value;
		return true;
	}
	if (slot < 0)
		return true;
	if (!e.has_value) {
		pg->pod.index[slot] = "";
		return true;
	}
	return pb_string(pg, &e.value, &pg->pod.index[slot]);
}

/* A container limit: counted when it is an accelerator; its Quantity is
 * { string 1 }. */
static bool pb_limit_entry(struct pb_page *pg, const struct pb_field *f)
{
	struct pb_entry e, q = { 0 };
	int slot;
	int64_t n = 0;

	if (!pb_entry(pg, f, &e))
		return false;
	slot = e.has_key ? k8s_acc_slot((const char *)e.key.sub.p,
					(size_t)(e.key.sub.end - e.key.sub.p))
			 : -1;
	if (slot < 0)
		return true;
	if (e.has_value && !pb_walk_some(pg, e.value.sub, WANT_ENTRY, pb_entry_field, &q))
		return false;
	if (q.has_key) { /* field 1, read as an entry's key */
		if (!pb_text(pg, &q.key))
			return false;
		n = k8s_count((const char *)q.key.sub.p, (size_t)(q.key.sub.end - q.key.sub.p));
	}
	pg->limits[slot] = n > 0 ? n : 0;
	return true;
}

/* An OwnerReference: kind 1 and name 3, the last of each. */
struct pb_owner {
	struct pb_field kind, name;
	bool has_kind, has_name;
};

static bool pb_owner_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	struct pb_owner *o = user;

	if (f->num != OWNER_KIND && f->num != OWNER_NAME)
		return true;
	if (f->wire != WIRE_LEN)
		return pb_fail(pg, &f->sub, "a string field is not length-delimited");
	if (f->num == OWNER_KIND)
		o->kind = *f, o->has_kind = true;
	else
		o->name = *f, o->has_name = true;
	return true;
}

/* The name of a StatefulSet owner goes to the view's list. */
static bool pb_owner(struct pb_page *pg, const struct pb_field *f)
{
	struct pb_owner o = { 0 };
	const char *name;

	if (!pb_is_msg(pg, f) || !pb_walk_some(pg, f->sub, WANT_OWNER, pb_owner_field, &o))
		return false;
	if (!o.has_kind || !o.has_name || !pb_bytes_are(&o.kind, "StatefulSet"))
		return true;
	if (!pb_string(pg, &o.name, &name))
		return false;
	g_ptr_array_add(pg->store->owners, (gpointer)name);
	return true;
}

static bool pb_meta_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	(void)user;
	switch (f->num) {
	case META_NAME:
		return pb_string(pg, f, &pg->pod.name);
	case META_NAMESPACE:
		return pb_string(pg, f, &pg->pod.ns);
	case META_UID:
		return pb_string(pg, f, &pg->pod.uid);
	case META_VERSION:
		return pb_string(pg, f, &pg->pod.version);
	case META_LABELS:
		return pb_index_entry(pg, f, false);
	case META_ANNOTATIONS:
		return pb_index_entry(pg, f, true);
	case META_OWNERS:
		return pb_owner(pg, f);
	default:
		return true;
	}
}

static bool pb_resources_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	(void)user;
	return f->num != RESOURCES_LIMITS || pb_limit_entry(pg, f);
}

static bool pb_container_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	(void)user;
	return f->num != CONTAINER_RESOURCES ||
	       (pb_is_msg(pg, f) &&
		pb_walk_some(pg, f->sub, PB_FIELD(RESOURCES_LIMITS), pb_resources_field, NULL));
}

static bool pb_spec_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	(void)user;
	switch (f->num) {
	case SPEC_CONTAINERS:
		memset(pg->limits, 0, sizeof(pg->limits));
		if (!pb_is_msg(pg, f) || !pb_walk_some(pg, f->sub, PB_FIELD(CONTAINER_RESOURCES),
						       pb_container_field, NULL))
			return false;
		k8s_view_add_limits(&pg->pod, pg->limits);
		return true;
	case SPEC_HOSTNAME:
		return pb_string(pg, f, &pg->pod.hostname);
	case SPEC_SUBDOMAIN:
		return pb_string(pg, f, &pg->pod.subdomain);
	default:
		return true;
	}
}

static bool pb_status_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	struct pb_entry ip;
	const char *copy;

	(void)user;
	switch (f->num) {
	case STATUS_PHASE:
		return pb_string(pg, f, &pg->pod.phase);
	case STATUS_HOST_IP:
		return pb_string(pg, f, &pg->pod.host_ip);
	case STATUS_POD_IP:
		return pb_string(pg, f, &pg->pod.pod_ip);
	case STATUS_POD_IPS: /* PodIP { ip 1 } */
		if (!pb_entry(pg, f, &ip))
			return false;
		if (!ip.has_key)
			return true;
		if (!pb_string(pg, &ip.key, &copy))
			return false;
		g_ptr_array_add(pg->store->ips, (gpointer)copy);
		return true;
	default:
		return true;
	}
}

static bool pb_pod_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	static const pb_field_fn walk[] = {
		[POD_METADATA] = pb_meta_field, [POD_SPEC] = pb_spec_field, [POD_STATUS] = pb_status_field
	};
	static const uint64_t want[] = {
		[POD_METADATA] = WANT_META, [POD_SPEC] = WANT_SPEC, [POD_STATUS] = WANT_STATUS
	};

	if (f->num < POD_METADATA || f->num > POD_STATUS)
		return true;
	return pb_is_msg(pg, f) && pb_walk_some(pg, f->sub, want[f->num], walk[f->num], user);
}

/* ListMeta: [0] continue, [1] resourceVersion. */
static bool pb_continue_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	struct pb_field *meta = user;

	if (f->num != LISTMETA_CONTINUE && f->num != LISTMETA_VERSION)
		return true;
	meta[f->num == LISTMETA_VERSION] = *f;
	return pb_text(pg, f);
}

bool pb_list_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	struct pb_field meta[2] = { { 0 }, { 0 } };
	cr_status rc;

	(void)user;
	if (f->num == LIST_METADATA) {
		char *text[2];

		if (!pb_is_msg(pg, f) ||
		    !pb_walk_some(pg, f->sub,
				  PB_FIELD(LISTMETA_CONTINUE) | PB_FIELD(LISTMETA_VERSION),
				  pb_continue_field, meta))
			return false;
		for (int i = 0; i < 2; i++)
			text[i] = meta[i].num ? g_strndup((const char *)meta[i].sub.p,
							  (size_t)(meta[i].sub.end - meta[i].sub.p))
					      : NULL;
		pg->on_next(pg->pager, text[0], text[1]);
		g_free(text[0]);
		g_free(text[1]);
		return true;
	}
	if (f->num != LIST_ITEMS)
		return true;
	if (!pb_is_msg(pg, f))
		return false;
	/* each kept string of n bytes took at least n + 2 of the pod's */
	k8s_view_begin(pg->store, &pg->pod, (size_t)(f->sub.end - f->sub.p) + 1);
	if (!pb_walk_some(pg, f->sub, WANT_POD, pb_pod_field, NULL))
		return false;
	k8s_view_end(pg->store, &pg->pod);
	rc = pg->fn(&pg->pod, pg->ud, pg->err);
	if (rc != CR_OK)
		pg->bad = ""; /* the callback's error stands */
	return rc == CR_OK;
}

/**
 * k8s_pb_page:
 * Read a protobuf PodList page (@buf, @len: the whole answer, envelope
 * included), calling @on_next(@pager, token) when its ListMeta is read and
 * @fn(pod, @ud) for each pod, in order; the pods' views live in @store.
 * Returns: CR_OK; CR_ERR_PARSE naming @endpoint and the offset when the
 * bytes are not a PodList; or @fn's failure (its error stands in @err).
 */
cr_status k8s_pb_page(const char *endpoint, const uint8_t *buf, size_t len, k8s_next_fn on_next,
		      void *pager, struct k8s_view_store *store, k8s_pod_fn fn, void *ud,
		      cr_error *err)
{
	struct pb_page pg = { .endpoint = endpoint,
			      .base = buf,
			      .fn = fn,
			      .on_next = on_next,
			      .ud = ud,
			      .pager = pager,
			      .err = err,
			      .store = store };
	struct pb_unknown u = { 0 };
	char kind[64];

	if (!pb_envelope(&pg, buf, len, &u))
		goto bad;
	if (!pb_kind_is(&u, "PodList")) {
		size_t n = u.has_kind ? (size_t)(u.kind.sub.end - u.kind.sub.p) : 0;

		g_strlcpy(kind, "(none)", sizeof(kind));
		if (n && n < sizeof(kind) && k8s_text_ok((const char *)u.kind.sub.p, n)) {
			memcpy(kind, u.kind.sub.p, n);
			kind[n] = '\0';
		}
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: answer is not a PodList (protobuf kind %s)",
					  endpoint, kind);
	}
	if (u.encoded)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: protobuf answer has a contentEncoding", endpoint);
	if (!u.has_raw)
		return cr_host->error_set(err, CR_ERR_PARSE, "%s: protobuf answer has no object",
					  endpoint);
	if (pb_walk_some(&pg, u.raw.sub, WANT_LIST, pb_list_field, NULL))
		return CR_OK;
bad:
	if (pg.bad && !*pg.bad)
		return err->code;
	return cr_host->error_set(err, CR_ERR_PARSE, "%s: invalid protobuf at offset %zu: %s",
				  endpoint, pg.bad_offset, pg.bad ? pg.bad : "not a message");
}

/* ---- watch events ------------------------------------------------------- */

enum {
	EVENT_TYPE = 1,
	EVENT_OBJECT = 2,
	RAWEXT_RAW = 1,
};

struct pb_event {
	struct pb_field type, raw;
	bool has_type, has_raw;
};

static bool pb_rawext_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	struct pb_event *ev = user;

	if (f->num != RAWEXT_RAW)
		return true;
	if (f->wire != WIRE_LEN)
		return pb_fail(pg, &f->sub, "RawExtension.raw is not length-delimited");
	ev->raw = *f;
	ev->has_raw = true;
	return true;
}

static bool pb_event_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	struct pb_event *ev = user;

	switch (f->num) {
	case EVENT_TYPE:
		ev->type = *f;
		ev->has_type = true;
		return pb_text(pg, f);
	case EVENT_OBJECT:
		return pb_is_msg(pg, f) && pb_walk(pg, f->sub, pb_rawext_field, ev);
	default:
		return true;
	}
}

cr_status k8s_pb_event(const char *endpoint, const uint8_t *buf, size_t len,
		       struct k8s_view_store *store, char **type, struct k8s_pod_view *pod,
		       json_object **status, cr_error *err)
{
	struct pb_page pg = { .endpoint = endpoint, .base = buf, .err = err, .store = store };
	struct pb all = { buf, buf + len, buf };
	struct pb_event ev = { 0 };
	struct pb_unknown u = { 0 };
	const uint8_t *obj;
	size_t n;

	*type = NULL;
	*status = NULL;
	memset(pod, 0, sizeof(*pod));
	if (!pb_walk(&pg, all, pb_event_field, &ev))
		goto bad;
	if (!ev.has_type || !ev.has_raw) {
		pg.bad = "a WatchEvent without type or object";
		goto bad;
	}
	obj = ev.raw.sub.p;
	n = (size_t)(ev.raw.sub.end - obj);
	if (!pb_envelope(&pg, obj, n, &u))
		goto bad;
	*type = g_strndup((const char *)ev.type.sub.p, (size_t)(ev.type.sub.end - ev.type.sub.p));
	if (pb_kind_is(&u, "Status")) {
		*status = k8s_pb_status((const char *)obj, n);
		return CR_OK;
	}
	if (u.encoded || !u.has_raw) {
		pg.bad = "an event's object has a contentEncoding or no bytes";
		goto bad;
	}
	if (!pb_kind_is(&u, "Pod"))
		return CR_OK; /* pod->name NULL: not a pod */
	k8s_view_begin(store, &pg.pod, (size_t)(u.raw.sub.end - u.raw.sub.p) + 1);
	if (!pb_walk(&pg, u.raw.sub, pb_pod_field, NULL))
		goto bad;
	k8s_view_end(store, &pg.pod);
	*pod = pg.pod;
	return CR_OK;
bad:
	g_clear_pointer(type, g_free);
	return cr_host->error_set(err, CR_ERR_PARSE, "%s: invalid protobuf event at offset %zu: %s",
				  endpoint, pg.bad_offset, pg.bad ? pg.bad : "not a message");
}
