/* SPDX-License-Identifier: MIT */
/*
 * aws_ec2.c - from DescribeInstances pages to the tasks of a job.
 *
 * One listing per job: `POST /` with the job's filters (plus
 * instance-state-name = running unless the job filters on the state) and
 * MaxResults = page_size, then NextToken until the answer has none. Never
 * InstanceId.N: EC2 refuses it with MaxResults. Each page is walked by
 * libxml2's SAX2 parser (aws_xml.c) and dropped; an instance is boiled down
 * to its address, its order key and whether it is this process's own, in
 * a compact record whose strings live in one GStringChunk. The records are
 * then ordered (docs/aws.md) and appended to the job.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>

#include "aws.h"
#include "natural.h"
#include "aws_xml.h"

/** One instance of a job, 24 bytes: an IPv4 address is kept as its number
 *  and written out with the port only when the task is added. */
struct aws_task {
	const char *addr; /* "HOST:PORT" in the chunk; NULL for IPv4 (ip4) */
	const char *key;  /* order key (instance id, tag value) or NULL */
	uint32_t ip4;     /* host byte order, when family is 4 */
	uint8_t family;   /* 4, 6, or 0 for a name */
	bool self;
};

G_STATIC_ASSERT(sizeof(struct aws_task) <= 24);

struct aws_collect {
	struct aws_run *run;
	const struct aws_job *job;
	GArray *tasks; /* struct aws_task */
	GStringChunk *chunk;
	GString *buf;
};

static void aws_form_add(GString *q, const char *key, const char *value)
{
	g_string_append_printf(q, "&%s=", key);
	aws_sigv4_encode(q, value, strlen(value), false);
}

/* The Query body: Action, Version, Filter.N.Name/Value.M, MaxResults,
 * NextToken, in the order botocore serialises them. */
char *aws_ec2_body(const struct aws_job *job, int64_t page_size, const char *next_token)
{
	GString *q = g_string_new("Action=DescribeInstances&Version=2016-11-15");
	bool has_state = false;
	guint n = 0;
	char key[64];

	for (guint i = 0; i < job->filters->len; i++) {
		const struct aws_filter *f = &g_array_index(job->filters, struct aws_filter, i);

		has_state |= strcmp(f->name, "instance-state-name") == 0;
		g_snprintf(key, sizeof(key), "Filter.%u.Name", ++n);
		aws_form_add(q, key, f->name);
		for (guint v = 0; v < f->values->len; v++) {
			g_snprintf(key, sizeof(key), "Filter.%u.Value.%u", n, v + 1);
			aws_form_add(q, key, g_ptr_array_index(f->values, v));
		}
	}
	if (!has_state) {
		g_snprintf(key, sizeof(key), "Filter.%u.Name", ++n);
		aws_form_add(q, key, "instance-state-name");
		g_snprintf(key, sizeof(key), "Filter.%u.Value.1", n);
		aws_form_add(q, key, "running");
	}
	g_string_append_printf(q, "&MaxResults=%lld", (long long)page_size);
	if (next_token)
		aws_form_add(q, "NextToken", next_token);
	return g_string_free(q, FALSE);
}

/* ---- ordering --------------------------------------------------------- */

/* The 16 bytes of "[v6]:port". */
static void aws_v6_bytes(const char *addr, uint8_t out[16])
{
	const char *end = strchr(addr, ']');
	char buf[INET6_ADDRSTRLEN + 1];
	size_t n = end ? (size_t)(end - addr - 1) : 0;

	memset(out, 0, 16);
	if (n && n < sizeof(buf)) {
		memcpy(buf, addr + 1, n);
		buf[n] = '\0';
		inet_pton(AF_INET6, buf, out);
	}
}

/* Addresses: IPv4 before IPv6 before names; numbers by their value. */
static int aws_addr_cmp(const struct aws_task *a, const struct aws_task *b)
{
	uint8_t x[16], y[16];

	if (a->family != b->family)
		return a->family == 4 ? -1 : b->family == 4 ? 1 : a->family == 6 ? -1 : 1;
	if (a->family == 4)
		return a->ip4 < b->ip4 ? -1 : a->ip4 > b->ip4;
	if (a->family == 6) {
		aws_v6_bytes(a->addr, x);
		aws_v6_bytes(b->addr, y);
		return memcmp(x, y, 16) ? memcmp(x, y, 16) : strcmp(a->addr, b->addr);
	}
	return natural_cmp(a->addr, b->addr) ? natural_cmp(a->addr, b->addr)
					     : strcmp(a->addr, b->addr);
}

static gint aws_task_cmp(gconstpointer pa, gconstpointer pb, gpointer order)
{
	const struct aws_task *a = pa, *b = pb;
	int c = 0;

	if (GPOINTER_TO_INT(order) != AWS_ORDER_ADDRESS) {
		if (!a->key || !b->key) /* untagged instances last */
			c = a->key ? -1 : b->key ? 1 : 0;
		else if (GPOINTER_TO_INT(order) == AWS_ORDER_TAG)
			c = natural_cmp(a->key, b->key);
		else /* instance ids: hex digits of one length */
			c = strcmp(a->key, b->key);
		if (!c && a->key && b->key)
			c = strcmp(a->key, b->key);
	}
	return c ? c : aws_addr_cmp(a, b);
}

/* ---- one instance ----------------------------------------------------- */

static const char *aws_tag(const struct aws_instance *in, const char *key)
{
	for (guint i = 0; i + 1 < in->tags->len; i += 2)
		if (strcmp(g_ptr_array_index(in->tags, i), key) == 0)
			return g_ptr_array_index(in->tags, i + 1);
	return NULL;
}

static bool aws_is_self(const struct aws_self *self, const struct aws_instance *in)
{
	if (self->instance_id)
		return strcmp(self->instance_id, in->id->str) == 0;
	for (guint i = 0; self->addresses && i < self->addresses->len; i++)
		if (in->private_ip->len &&
		    strcmp(g_ptr_array_index(self->addresses, i), in->private_ip->str) == 0)
			return true;
	return false;
}

static const char *const aws_addr_field[] = { "privateIpAddress", "ipAddress", "privateDnsName",
					      "ipv6Address" };
static const char *const aws_addr_name[] = { "private", "public", "private_dns", "ipv6" };

static bool aws_on_instance(const struct aws_instance *in, void *ud, char **why)
{
	struct aws_collect *c = ud;
	const struct aws *st = c->run->st;
	const GString *src[] = { in->private_ip, in->public_ip, in->private_dns, in->ipv6 };
	const GString *a = src[st->address];
	struct aws_task t = { 0 };
	const char *key = NULL;
	uint8_t v6[16];

	if (!a->len) {
		*why = g_strdup_printf("instance %s has no %s (address = \"%s\")", in->id->str,
				       aws_addr_field[st->address], aws_addr_name[st->address]);
		return false;
	}
	if (inet_pton(AF_INET, a->str, v6) == 1) {
		t.family = 4;
		t.ip4 = (uint32_t)v6[0] << 24 | (uint32_t)v6[1] << 16 | (uint32_t)v6[2] << 8 |
			v6[3];
	} else {
		t.family = inet_pton(AF_INET6, a->str, v6) == 1 ? 6 : 0;
		g_string_printf(c->buf, t.family == 6 ? "[%s]:%lld" : "%s:%lld", a->str,
				(long long)st->port);
		t.addr = g_string_chunk_insert_len(c->chunk, c->buf->str, (gssize)c->buf->len);
	}
	if (st->order == AWS_ORDER_ID)
		key = in->id->str;
	else if (st->order == AWS_ORDER_TAG)
		key = aws_tag(in, st->order_tag);
	t.key = key ? g_string_chunk_insert(c->chunk, key) : NULL;
	t.self = aws_is_self(c->run->self, in);
	g_array_append_val(c->tasks, t);
	c->run->listed++;
	return true;
}

/* ---- the listing ------------------------------------------------------ */

/* The page's walk, run on a worker thread while the next page is fetched:
 * it calls no host slot (aws_on_instance only fills the collection). */
struct aws_walk_job {
	struct aws_collect *c;
	const char *body;
	size_t len;
	char *next_token, *request_id, *why;
	bool ok;
};

static gpointer aws_walk_thread(gpointer data)
{
	struct aws_walk_job *w = data;

	w->ok = aws_xml_instances(w->body, w->len, aws_on_instance, w->c, &w->next_token,
				  &w->request_id, &w->why);
	return NULL;
}

/* EC2 writes nextToken last: find it in the page's tail without parsing,
 * so the next request can go out while this page is walked. The walk's
 * own reading is compared with it afterwards. NULL: none, or not plain. */
static char *aws_token_hint(const char *body, size_t len)
{
	size_t tail = len > 4096 ? 4096 : len;
	const char *start = body + len - tail, *open = NULL, *close;

	for (const char *p = start; (p = g_strstr_len(p, body + len - p, "<nextToken>")); p++)
		open = p + 11;
	if (!open)
		return NULL;
	close = g_strstr_len(open, body + len - open, "</nextToken>");
	if (!close || close == open || memchr(open, '&', (size_t)(close - open)) ||
	    memchr(open, '<', (size_t)(close - open)))
		return NULL;
	return g_strndup(open, (size_t)(close - open));
}

static cr_status aws_walk_result(struct aws_collect *c, struct aws_walk_job *w, guint before,
				 cr_error *err)
{
	struct aws_run *run = c->run;
	cr_status rc = CR_OK;

	if (!w->ok) {
		bool inst = g_str_has_prefix(w->why, "instance ");

		rc = run->env->host->error_set(
			err, inst ? CR_ERR_BACKEND : CR_ERR_PARSE, "POST %s: %s%s", run->endpoint,
			inst ? "" : "malformed DescribeInstances answer: ", w->why);
	} else {
		run->env->host->log(run->env->ctx, CR_LOG_DEBUG,
				    "POST %s: job '%s': page %lld: %u instances (requestId %s)%s",
				    run->endpoint, c->job->name, (long long)run->pages + 1,
				    c->tasks->len - before, w->request_id ? w->request_id : "?",
				    w->next_token ? ", more" : "");
		run->pages++;
	}
	g_free(w->why);
	g_free(w->request_id);
	return rc;
}

static cr_status aws_ec2_fetch(struct aws_collect *c, const char *token, cr_http_response **resp,
			       cr_error *err)
{
	struct aws_run *run = c->run;
	char *body = aws_ec2_body(c->job, run->st->page_size, token);
	cr_status rc = aws_query_send(run->env, &run->retry, run->creds, run->endpoint, run->region,
				      "ec2", body, resp, err);

	g_free(body);
	return rc;
}

/* A token the server gives again for the page it was sent for would loop
 * for ever (a server bug): the listing stops with an error instead. */
static cr_status aws_token_repeated(struct aws_collect *c, cr_error *err)
{
	return c->run->env->host->error_set(err, CR_ERR_BACKEND,
					    "POST %s: job '%s': page %lld repeats the NextToken "
					    "it was asked with; stopping",
					    c->run->endpoint, c->job->name,
					    (long long)c->run->pages);
}

/* EC2 may answer a filtered listing with an empty page and a NextToken, but
 * not this many in a row: a server that does (a new token each time) would
 * be followed for ever. */
#define AWS_MAX_EMPTY_PAGES 1000

/* Nor may a listing whose every page brings instances and a fresh token go
 * on for ever: list_timeout bounds it, and so do AWS_PAGES_PER_S pages per
 * second of it (a real page takes longer), whichever comes first. */
#define AWS_PAGES_PER_S 10

static bool aws_list_over(const struct aws_collect *c, int64_t deadline_ms, int64_t pages)
{
	const struct aws_env *env = c->run->env;

	return pages >= c->run->st->list_timeout_ms * AWS_PAGES_PER_S / 1000 ||
	       env->host->now_ms(env->ctx) >= deadline_ms;
}

static cr_status aws_list_endless(const struct aws_collect *c, cr_error *err)
{
	const struct aws *st = c->run->st;

	return c->run->env->host->error_set(
		err, CR_ERR_BACKEND,
		"POST %s: job '%s': the listing did not end within list_timeout (%.1f s) or "
		"%lld pages (%d per second of list_timeout); stopping",
		c->run->endpoint, c->job->name, (double)st->list_timeout_ms / 1000.0,
		(long long)(st->list_timeout_ms * AWS_PAGES_PER_S / 1000), AWS_PAGES_PER_S);
}

/* Page by page: while a page is walked on a worker thread, the next one
 * (its token read from the page's tail) is fetched. A token the walk reads
 * differently from the tail's discards the early fetch. */
static cr_status aws_ec2_list(struct aws_collect *c, cr_error *err)
{
	const cr_host_api *host = c->run->env->host;
	cr_http_response *resp = NULL, *next = NULL;
	cr_error early = CR_ERROR_INIT;
	cr_status rc, next_rc = CR_OK;
	char *sent = NULL; /* the token the page being walked was asked with */
	int empty_run = 0; /* pages in a row that gave no task */
	int64_t deadline_ms = host->now_ms(c->run->env->ctx) + c->run->st->list_timeout_ms;
	int64_t pages = 0;

	rc = aws_ec2_fetch(c, NULL, &resp, err);
	while (rc == CR_OK && resp) {
		struct aws_walk_job w = { .c = c };
		guint before = c->tasks->len;
		char *hint;
		GThread *t;

		w.body = host->http_body(resp, &w.len);
		hint = aws_token_hint(w.body, w.len);
		if (hint && sent && strcmp(hint, sent) == 0)
			g_clear_pointer(&hint, g_free);
		t = g_thread_new("aws-page", aws_walk_thread, &w);
		if (hint)
			next_rc = aws_ec2_fetch(c, hint, &next, &early);
		g_thread_join(t);
		rc = aws_walk_result(c, &w, before, err);
		host->http_response_free(resp);
		resp = NULL;
		empty_run = c->tasks->len == before ? empty_run + 1 : 0;
		if (rc == CR_OK && w.next_token && sent && strcmp(w.next_token, sent) == 0) {
			rc = aws_token_repeated(c, err);
		} else if (rc == CR_OK && w.next_token && empty_run >= AWS_MAX_EMPTY_PAGES) {
			rc = host->error_set(err, CR_ERR_BACKEND,
					     "POST %s: job '%s': %d pages in a row without "
					     "instances, each with a NextToken; stopping",
					     c->run->endpoint, c->job->name, AWS_MAX_EMPTY_PAGES);
		} else if (rc == CR_OK && w.next_token && aws_list_over(c, deadline_ms, ++pages)) {
			rc = aws_list_endless(c, err);
		} else if (rc == CR_OK && hint && w.next_token && strcmp(hint, w.next_token) == 0) {
			if (next_rc != CR_OK && err)
				*err = early;
			rc = next_rc;
			resp = g_steal_pointer(&next);
		} else if (rc == CR_OK && w.next_token) {
			rc = aws_ec2_fetch(c, w.next_token, &resp, err);
		}
		host->http_response_free(next);
		next = NULL;
		g_free(hint);
		g_free(sent);
		sent = w.next_token;
	}
	g_free(sent);
	return rc;
}

/**
 * aws_ec2_job:
 * List the instances of @job and append them, ordered, as its tasks; mark
 * this process's own task in run->self.
 * Returns: CR_OK, or the listing's error (aws_query_post's statuses,
 * CR_ERR_PARSE for a malformed page, CR_ERR_BACKEND for an instance
 * without the address asked for).
 */
cr_status aws_ec2_job(struct aws_run *run, const struct aws_job *job, cr_error *err)
{
	struct aws_collect c = { run, job, g_array_new(FALSE, FALSE, sizeof(struct aws_task)),
				 g_string_chunk_new(64 * 1024), g_string_new(NULL) };
	cr_status rc;

	aws_xml_init();
	rc = aws_ec2_list(&c, err);

	if (rc == CR_OK)
		rc = run->env->host->result_add_job(run->b, job->name, err);
	if (rc == CR_OK)
		g_array_sort_with_data(c.tasks, aws_task_cmp, GINT_TO_POINTER(run->st->order));
	for (guint i = 0; rc == CR_OK && i < c.tasks->len; i++) {
		const struct aws_task *t = &g_array_index(c.tasks, struct aws_task, i);

		const char *addr = t->addr;
		char v4[32];

		if (!addr) {
			g_snprintf(v4, sizeof(v4), "%u.%u.%u.%u:%lld", t->ip4 >> 24,
				   (t->ip4 >> 16) & 255, (t->ip4 >> 8) & 255, t->ip4 & 255,
				   (long long)run->st->port);
			addr = v4;
		}
		rc = run->env->host->result_append_task(run->b, job->name, addr, err);
		if (t->self && !run->self->job) {
			run->self->job = job->name;
			run->self->index = i;
		}
	}
	g_array_free(c.tasks, TRUE);
	g_string_chunk_free(c.chunk);
	g_string_free(c.buf, TRUE);
	return rc;
}
