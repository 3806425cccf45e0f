/* SPDX-License-Identifier: MIT */
/*
 * aws_xml.c - AWS Query-API answers through libxml2's xmlTextReader.
 *
 * A page of DescribeInstances is a few megabytes: the reader walks it node
 * by node and keeps one instance's fields at a time, so memory does not
 * grow with the page beyond the text itself. The element path is a stack
 * of local names (interned by the reader's dictionary); a text node is
 * matched against the path of its parent.
 */
#include <string.h>

#include <libxml/xmlreader.h>

#include "aws_xml.h"

#define AWS_XML_DEPTH 64
#define AWS_XML_OPTS                                                                               \
	(XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)

struct aws_reader {
	xmlTextReaderPtr rd;
	const char *names[AWS_XML_DEPTH];
	char *error; /* first error the parser reported */
};

static void aws_xml_on_error(void *arg, const char *msg, xmlParserSeverities severity,
			     xmlTextReaderLocatorPtr loc)
{
	struct aws_reader *r = arg;

	if (r->error || (severity != XML_PARSER_SEVERITY_ERROR &&
			 severity != XML_PARSER_SEVERITY_VALIDITY_ERROR))
		return;
	r->error = g_strdup_printf("line %d: %s", xmlTextReaderLocatorLineNumber(loc), msg);
	g_strchomp(r->error);
}

static bool aws_reader_open(struct aws_reader *r, const char *body, size_t len)
{
	memset(r, 0, sizeof(*r));
	if (len > (size_t)G_MAXINT)
		return false;
	r->rd = xmlReaderForMemory(body, (int)len, NULL, NULL, AWS_XML_OPTS);
	if (!r->rd)
		return false;
	xmlTextReaderSetErrorHandler(r->rd, aws_xml_on_error, r);
	return true;
}

static char *aws_reader_close(struct aws_reader *r, int last)
{
	char *why = NULL;

	if (last < 0)
		why = r->error ? r->error : g_strdup("malformed XML");
	else
		g_free(r->error);
	xmlFreeTextReader(r->rd);
	return why;
}

/* Step to the next node (with @skip, past the current node's subtree);
 * keeps names[] = the path of the current node.
 * Returns: 1, 0 at the end, -1 on an error; *depth and *type of the node. */
static int aws_reader_step(struct aws_reader *r, int *depth, int *type, bool skip)
{
	int ret = skip ? xmlTextReaderNext(r->rd) : xmlTextReaderRead(r->rd);

	if (ret != 1)
		return ret;
	*depth = xmlTextReaderDepth(r->rd);
	*type = xmlTextReaderNodeType(r->rd);
	if (*depth < 0 || *depth >= AWS_XML_DEPTH)
		return *depth < 0 ? -1 : 1; /* deeper than anything we read */
	if (*type == XML_READER_TYPE_ELEMENT)
		r->names[*depth] = (const char *)xmlTextReaderConstLocalName(r->rd);
	return 1;
}

static bool aws_is_text(int type)
{
	return type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA ||
	       type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE;
}

/* Whether names[0..depth-1] spell @path ("A/B/C"). */
static bool aws_path_is(const struct aws_reader *r, int depth, const char *path)
{
	for (int i = 0; i < depth; i++) {
		const char *n = r->names[i];
		size_t l = n ? strlen(n) : 0;

		if (!n || strncmp(path, n, l) != 0)
			return false;
		path += l;
		if (i + 1 < depth) {
			if (*path != '/')
				return false;
			path++;
		}
	}
	return *path == '\0';
}

bool aws_xml_text(const char *body, size_t len, const char *const *paths, char **values, char **why)
{
	struct aws_reader r;
	int ret, depth = 0, type = 0;

	for (size_t i = 0; paths[i]; i++)
		values[i] = NULL;
	if (!aws_reader_open(&r, body, len)) {
		*why = g_strdup("empty or oversized XML document");
		return false;
	}
	while ((ret = aws_reader_step(&r, &depth, &type, false)) == 1) {
		if (!aws_is_text(type) || depth > AWS_XML_DEPTH - 1)
			continue;
		for (size_t i = 0; paths[i]; i++) {
			if (values[i] || !aws_path_is(&r, depth, paths[i]))
				continue;
			values[i] = g_strdup((const char *)xmlTextReaderConstValue(r.rd));
		}
	}
	*why = aws_reader_close(&r, ret);
	if (!*why)
		return true;
	for (size_t i = 0; paths[i]; i++)
		g_clear_pointer(&values[i], g_free);
	return false;
}

/* ---- DescribeInstances --------------------------------------------------- */

enum {
	D_ROOT = 0,     /* DescribeInstancesResponse */
	D_INSTANCE = 4, /* .../reservationSet/item/instancesSet/item */
	D_FIELD = 5,    /* the instance's own elements */
};

static void aws_instance_reset(struct aws_instance *in)
{
	g_string_truncate(in->id, 0);
	g_string_truncate(in->private_ip, 0);
	g_string_truncate(in->public_ip, 0);
	g_string_truncate(in->private_dns, 0);
	g_string_truncate(in->ipv6, 0);
	g_string_truncate(in->state, 0);
	g_ptr_array_set_size(in->tags, 0);
}

static bool aws_at_instance(const struct aws_reader *r)
{
	return aws_path_is(r, D_INSTANCE + 1,
			   "DescribeInstancesResponse/reservationSet/item/instancesSet/item");
}

/* A text node at @depth inside the current instance. */
static void aws_instance_text(struct aws_reader *r, int depth, struct aws_instance *in,
			      GString *tag_key, GString *tag_value, const char *text)
{
	const char *f = r->names[D_FIELD];
	GString *dst = NULL;

	if (depth == D_FIELD + 1) {
		if (strcmp(f, "instanceId") == 0)
			dst = in->id;
		else if (strcmp(f, "privateIpAddress") == 0)
			dst = in->private_ip;
		else if (strcmp(f, "ipAddress") == 0)
			dst = in->public_ip;
		else if (strcmp(f, "privateDnsName") == 0)
			dst = in->private_dns;
		else if (strcmp(f, "ipv6Address") == 0)
			dst = in->ipv6;
	} else if (depth == D_FIELD + 2 && strcmp(f, "instanceState") == 0 &&
		   strcmp(r->names[D_FIELD + 1], "name") == 0) {
		dst = in->state;
	} else if (depth == D_FIELD + 3 && strcmp(f, "tagSet") == 0 &&
		   strcmp(r->names[D_FIELD + 1], "item") == 0) {
		if (strcmp(r->names[D_FIELD + 2], "key") == 0)
			dst = tag_key;
		else if (strcmp(r->names[D_FIELD + 2], "value") == 0)
			dst = tag_value;
	}
	if (dst)
		g_string_append(dst, text);
}

struct aws_walk {
	struct aws_reader r;
	struct aws_instance in;
	GString *tag_key, *tag_value;
	bool in_instance, in_tag;
	bool skip; /* the next step passes over the current element's subtree */
};

/* The instance's own elements that are read; the others (network
 * interfaces, block devices, placement...: most of the text) are skipped. */
static bool aws_field_wanted(const char *name)
{
	static const char *const wanted[] = { "instanceId",  "privateIpAddress",
					      "ipAddress",   "privateDnsName",
					      "ipv6Address", "instanceState",
					      "tagSet",      NULL };

	for (int i = 0; wanted[i]; i++)
		if (strcmp(name, wanted[i]) == 0)
			return true;
	return false;
}

static void aws_walk_init(struct aws_walk *w)
{
	w->in.id = g_string_new(NULL);
	w->in.private_ip = g_string_new(NULL);
	w->in.public_ip = g_string_new(NULL);
	w->in.private_dns = g_string_new(NULL);
	w->in.ipv6 = g_string_new(NULL);
	w->in.state = g_string_new(NULL);
	w->in.tags = g_ptr_array_new_with_free_func(g_free);
	w->tag_key = g_string_new(NULL);
	w->tag_value = g_string_new(NULL);
	w->in_instance = w->in_tag = false;
}

static void aws_walk_clear(struct aws_walk *w)
{
	g_string_free(w->in.id, TRUE);
	g_string_free(w->in.private_ip, TRUE);
	g_string_free(w->in.public_ip, TRUE);
	g_string_free(w->in.private_dns, TRUE);
	g_string_free(w->in.ipv6, TRUE);
	g_string_free(w->in.state, TRUE);
	g_ptr_array_free(w->in.tags, TRUE);
	g_string_free(w->tag_key, TRUE);
	g_string_free(w->tag_value, TRUE);
}

/* An element starts or ends: instance and tag boundaries. Returns false
 * when the callback refused the instance that ended. */
static bool aws_walk_mark(struct aws_walk *w, int depth, int type, bool empty, aws_instance_fn fn,
			  void *ud, char **why)
{
	bool start = type == XML_READER_TYPE_ELEMENT;
	bool end = type == XML_READER_TYPE_END_ELEMENT || (start && empty);

	if (depth == D_INSTANCE && start && aws_at_instance(&w->r)) {
		aws_instance_reset(&w->in);
		w->in_instance = true;
	}
	if (w->in_instance && depth == D_FIELD && start && !empty &&
	    !aws_field_wanted(w->r.names[D_FIELD]))
		w->skip = true;
	if (w->in_instance && depth == D_FIELD + 1 && start &&
	    strcmp(w->r.names[D_FIELD], "tagSet") == 0 &&
	    strcmp(w->r.names[D_FIELD + 1], "item") == 0) {
		g_string_truncate(w->tag_key, 0);
		g_string_truncate(w->tag_value, 0);
		w->in_tag = true;
	}
	if (w->in_tag && depth == D_FIELD + 1 && end) {
		g_ptr_array_add(w->in.tags, g_strdup(w->tag_key->str));
		g_ptr_array_add(w->in.tags, g_strdup(w->tag_value->str));
		w->in_tag = false;
	}
	if (w->in_instance && depth == D_INSTANCE && end) {
		w->in_instance = false;
		if (!fn(&w->in, ud, why))
			return false;
	}
	return true;
}

bool aws_xml_instances(const char *body, size_t len, aws_instance_fn fn, void *user_data,
		       char **next_token, char **request_id, char **why)
{
	struct aws_walk w;
	GString *token = NULL, *rid = NULL;
	int ret, depth = 0, type = 0;
	bool ok = true;

	*next_token = NULL;
	if (request_id)
		*request_id = NULL;
	*why = NULL;
	if (!aws_reader_open(&w.r, body, len)) {
		*why = g_strdup("empty or oversized XML document");
		return false;
	}
	aws_walk_init(&w);
	w.skip = false;
	while (ok && (ret = aws_reader_step(&w.r, &depth, &type, w.skip)) == 1) {
		w.skip = false;
		if (depth >= AWS_XML_DEPTH)
			continue;
		if (depth == D_ROOT && type == XML_READER_TYPE_ELEMENT &&
		    strcmp(w.r.names[0], "DescribeInstancesResponse") != 0) {
			*why = g_strdup_printf("line %d: <%s> is not a DescribeInstancesResponse",
					       xmlTextReaderGetParserLineNumber(w.r.rd),
					       w.r.names[0]);
			ok = false;
		} else if (type == XML_READER_TYPE_ELEMENT || type == XML_READER_TYPE_END_ELEMENT) {
			ok = aws_walk_mark(&w, depth, type,
					   xmlTextReaderIsEmptyElement(w.r.rd) == 1, fn, user_data,
					   why);
		} else if (aws_is_text(type) && depth == 2 &&
			   (aws_path_is(&w.r, 2, "DescribeInstancesResponse/nextToken") ||
			    aws_path_is(&w.r, 2, "DescribeInstancesResponse/requestId"))) {
			GString **dst = strcmp(w.r.names[1], "nextToken") == 0 ? &token : &rid;

			if (!*dst)
				*dst = g_string_new(NULL);
			g_string_append(*dst, (const char *)xmlTextReaderConstValue(w.r.rd));
		} else if (aws_is_text(type) && w.in_instance && depth > D_FIELD) {
			aws_instance_text(&w.r, depth, &w.in, w.tag_key, w.tag_value,
					  (const char *)xmlTextReaderConstValue(w.r.rd));
		}
	}
	if (ok) {
		*why = aws_reader_close(&w.r, ret);
		ok = *why == NULL;
	} else {
		g_free(aws_reader_close(&w.r, 0));
	}
	aws_walk_clear(&w);
	if (ok && token && token->len)
		*next_token = g_string_free(token, FALSE);
	else if (token)
		g_string_free(token, TRUE);
	if (ok && rid && request_id)
		*request_id = g_string_free(rid, FALSE);
	else if (rid)
		g_string_free(rid, TRUE);
	return ok;
}
