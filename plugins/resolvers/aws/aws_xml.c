/* SPDX-License-Identifier: MIT */
/*
 * aws_xml.c - AWS Query-API answers through libxml2.
 *
 * Small answers (EC2 and STS errors, STS credentials) are read with the
 * xmlTextReader: a text node is matched against the path of its parent, a
 * stack of local names (interned by the reader's dictionary).
 *
 * A page of DescribeInstances is a few megabytes: it goes through the SAX2
 * push parser in slices, and only one instance's fields are kept at a
 * time, so memory does not grow with the page (see below).
 */
#include <string.h>

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/xmlreader.h>

#include "aws_xml.h"

#define AWS_XML_DEPTH 64
#define AWS_XML_SLICE (64 * 1024)
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

/* Step to the next node; keeps names[] = the path of the current node.
 * Returns: 1, 0 at the end, -1 on an error; *depth and *type of the node. */
static int aws_reader_step(struct aws_reader *r, int *depth, int *type)
{
	int ret = xmlTextReaderRead(r->rd);

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

void aws_xml_init(void)
{
	xmlInitParser();
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
	while ((ret = aws_reader_step(&r, &depth, &type)) == 1) {
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

/* A page is walked with libxml2's SAX2 interface: the same streaming
 * parser the xmlReader sits on, without the reader's node per element
 * (half the instructions on a 3.7 MB page of 1,000 instances, which made
 * the walk, not the network, the cost of a listing). */

enum {
	D_ROOT = 0,     /* DescribeInstancesResponse */
	D_INSTANCE = 4, /* .../reservationSet/item/instancesSet/item */
	D_FIELD = 5,    /* the instance's own elements */
};

struct aws_sax {
	xmlParserCtxtPtr ctxt;
	const char *names[AWS_XML_DEPTH];
	int depth; /* of the next element to start */
	struct aws_instance in;
	GString *tag_key, *tag_value, *token, *rid;
	GString *target; /* where the current element's text goes, or NULL */
	bool in_instance, in_tag;
	aws_instance_fn fn;
	void *ud;
	char *why; /* first error or refusal */
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

static bool aws_names_are(const struct aws_sax *s, int depth, const char *const *want)
{
	for (int i = 0; i < depth; i++)
		if (strcmp(s->names[i], want[i]) != 0)
			return false;
	return true;
}

static void aws_sax_fail(struct aws_sax *s, char *why)
{
	if (!s->why)
		s->why = why;
	else
		g_free(why);
	xmlStopParser(s->ctxt);
}

/* Where the text of an element that starts at @d goes. */
static GString *aws_sax_target(struct aws_sax *s, int d, const char *name)
{
	const char *f = d > D_FIELD ? s->names[D_FIELD] : NULL;

	if (d == 1)
		return strcmp(name, "nextToken") == 0   ? s->token
		       : strcmp(name, "requestId") == 0 ? s->rid
							: NULL;
	if (!s->in_instance || d <= D_INSTANCE)
		return NULL;
	if (d == D_FIELD) {
		if (strcmp(name, "instanceId") == 0)
			return s->in.id;
		if (strcmp(name, "privateIpAddress") == 0)
			return s->in.private_ip;
		if (strcmp(name, "ipAddress") == 0)
			return s->in.public_ip;
		if (strcmp(name, "privateDnsName") == 0)
			return s->in.private_dns;
		if (strcmp(name, "ipv6Address") == 0)
			return s->in.ipv6;
		return NULL;
	}
	if (d == D_FIELD + 1 && strcmp(f, "instanceState") == 0 && strcmp(name, "name") == 0)
		return s->in.state;
	if (d == D_FIELD + 2 && s->in_tag)
		return strcmp(name, "key") == 0     ? s->tag_key
		       : strcmp(name, "value") == 0 ? s->tag_value
						    : NULL;
	return NULL;
}

static void aws_sax_start(void *ud, const xmlChar *localname, const xmlChar *prefix,
			  const xmlChar *uri, int nb_ns, const xmlChar **ns, int nb_attr,
			  int nb_defaulted, const xmlChar **attrs)
{
	static const char *const inst[] = { "DescribeInstancesResponse", "reservationSet", "item",
					    "instancesSet", "item" };
	struct aws_sax *s = ud;
	const char *name = (const char *)localname;
	int d = s->depth++;

	(void)prefix, (void)uri, (void)nb_ns, (void)ns, (void)nb_attr, (void)nb_defaulted,
		(void)attrs;
	s->target = NULL;
	if (d >= AWS_XML_DEPTH)
		return;
	s->names[d] = name;
	if (d == D_ROOT && strcmp(name, "DescribeInstancesResponse") != 0) {
		aws_sax_fail(s, g_strdup_printf("line %d: <%s> is not a DescribeInstancesResponse",
						xmlSAX2GetLineNumber(s->ctxt), name));
		return;
	}
	if (d == D_INSTANCE && aws_names_are(s, D_INSTANCE + 1, inst)) {
		aws_instance_reset(&s->in);
		s->in_instance = true;
	}
	if (s->in_instance && d == D_FIELD + 1 && strcmp(s->names[D_FIELD], "tagSet") == 0 &&
	    strcmp(name, "item") == 0) {
		g_string_truncate(s->tag_key, 0);
		g_string_truncate(s->tag_value, 0);
		s->in_tag = true;
	}
	s->target = aws_sax_target(s, d, name);
}

static void aws_sax_end(void *ud, const xmlChar *localname, const xmlChar *prefix,
			const xmlChar *uri)
{
	struct aws_sax *s = ud;
	int d = --s->depth;

	(void)localname, (void)prefix, (void)uri;
	s->target = NULL;
	if (s->in_tag && d == D_FIELD + 1) {
		g_ptr_array_add(s->in.tags, g_strdup(s->tag_key->str));
		g_ptr_array_add(s->in.tags, g_strdup(s->tag_value->str));
		s->in_tag = false;
	}
	if (s->in_instance && d == D_INSTANCE) {
		char *why = NULL;

		s->in_instance = false;
		if (!s->fn(&s->in, s->ud, &why))
			aws_sax_fail(s, why ? why : g_strdup("refused"));
	}
}

static void aws_sax_text(void *ud, const xmlChar *text, int len)
{
	struct aws_sax *s = ud;

	if (s->target)
		g_string_append_len(s->target, (const char *)text, len);
}

static void aws_sax_error(void *ud, xmlErrorPtr e)
{
	struct aws_sax *s = ud;

	if (s->why || !e || e->level < XML_ERR_ERROR)
		return;
	s->why = g_strdup_printf("line %d: %s", e->line, e->message ? e->message : "malformed");
	g_strchomp(s->why);
}

static void aws_sax_init(struct aws_sax *s, aws_instance_fn fn, void *ud)
{
	memset(s, 0, sizeof(*s));
	s->in.id = g_string_new(NULL);
	s->in.private_ip = g_string_new(NULL);
	s->in.public_ip = g_string_new(NULL);
	s->in.private_dns = g_string_new(NULL);
	s->in.ipv6 = g_string_new(NULL);
	s->in.state = g_string_new(NULL);
	s->in.tags = g_ptr_array_new_with_free_func(g_free);
	s->tag_key = g_string_new(NULL);
	s->tag_value = g_string_new(NULL);
	s->token = g_string_new(NULL);
	s->rid = g_string_new(NULL);
	s->fn = fn;
	s->ud = ud;
}

static void aws_sax_clear(struct aws_sax *s)
{
	g_string_free(s->in.id, TRUE);
	g_string_free(s->in.private_ip, TRUE);
	g_string_free(s->in.public_ip, TRUE);
	g_string_free(s->in.private_dns, TRUE);
	g_string_free(s->in.ipv6, TRUE);
	g_string_free(s->in.state, TRUE);
	g_ptr_array_free(s->in.tags, TRUE);
	g_string_free(s->tag_key, TRUE);
	g_string_free(s->tag_value, TRUE);
	g_string_free(s->token, TRUE);
	g_string_free(s->rid, TRUE);
}

bool aws_xml_instances(const char *body, size_t len, aws_instance_fn fn, void *user_data,
		       char **next_token, char **request_id, char **why)
{
	xmlSAXHandler h;
	struct aws_sax s;
	bool ok;

	*next_token = NULL;
	if (request_id)
		*request_id = NULL;
	*why = NULL;
	if (len == 0 || len > (size_t)G_MAXINT) {
		*why = g_strdup("empty or oversized XML document");
		return false;
	}
	memset(&h, 0, sizeof(h));
	h.initialized = XML_SAX2_MAGIC;
	h.startElementNs = aws_sax_start;
	h.endElementNs = aws_sax_end;
	h.characters = aws_sax_text;
	h.cdataBlock = aws_sax_text;
	h.serror = aws_sax_error;
	aws_sax_init(&s, fn, user_data);
	s.ctxt = xmlCreatePushParserCtxt(&h, &s, NULL, 0, NULL);
	if (!s.ctxt) {
		aws_sax_clear(&s);
		*why = g_strdup("cannot start the XML parser");
		return false;
	}
	xmlCtxtUseOptions(s.ctxt, XML_PARSE_NONET | XML_PARSE_NOBLANKS);
	/* in slices: the push parser copies what it is given and drops what it
	 * has read, so the page is not held twice */
	for (size_t off = 0; off < len && !s.why;) {
		size_t n = len - off > AWS_XML_SLICE ? AWS_XML_SLICE : len - off;

		xmlParseChunk(s.ctxt, body + off, (int)n, off + n == len);
		off += n;
	}
	ok = !s.why && s.ctxt->wellFormed;
	if (!ok && !s.why)
		s.why = g_strdup("malformed XML");
	xmlFreeParserCtxt(s.ctxt);
	if (ok && s.token->len)
		*next_token = g_strdup(s.token->str);
	if (ok && request_id && s.rid->len)
		*request_id = g_strdup(s.rid->str);
	*why = ok ? NULL : s.why;
	aws_sax_clear(&s);
	return ok;
}
