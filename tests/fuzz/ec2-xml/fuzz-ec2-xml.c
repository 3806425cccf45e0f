/* SPDX-License-Identifier: MIT */
/*
 * fuzz-ec2-xml.c - libFuzzer target for aws.so's xmlReader walks
 * (plugins/resolvers/aws/aws_xml.c): a DescribeInstances page and the
 * EC2/STS error answer. Properties: a refusal comes with a reason and no
 * next token; an accepted page calls back once per instance with
 * NUL-terminated fields and an even tag list; a callback that refuses stops
 * the walk (its reason, or the parser's error before it); a failure's
 * reason is one of the known forms; the error reader returns a code
 * exactly when it returns true.
 */
#include <stdlib.h>
#include <string.h>

#include "aws_sigv4.h"
#include "aws_xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct count {
	size_t seen, stop_at;
};

static bool on_instance(const struct aws_instance *in, void *ud, char **why)
{
	struct count *c = ud;
	const GString *f[] = { in->id,          in->private_ip, in->public_ip,
			       in->private_dns, in->ipv6,       in->state };

	for (size_t i = 0; i < G_N_ELEMENTS(f); i++)
		if (strlen(f[i]->str) > f[i]->len)
			abort();
	if (in->tags->len % 2)
		abort();
	if (++c->seen == c->stop_at) {
		*why = g_strdup("stopped");
		return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct count c = { 0, size % 7 == 3 ? 2 : 0 };
	char *next = NULL, *rid = NULL, *why = NULL;
	char *code = NULL, *msg = NULL, *req = NULL;
	bool ok = aws_xml_instances((const char *)data, size, on_instance, &c, &next, &rid, &why);

	if (ok && (why || (c.stop_at && c.seen >= c.stop_at)))
		abort();
	if (!ok && (!why || next || rid))
		abort();
	/* no instance after a refusal; the refusal, or an error before it */
	if (c.stop_at && c.seen > c.stop_at)
		abort();
	if (!ok && strcmp(why, "stopped") != 0 && strncmp(why, "line ", 5) != 0 &&
	    strcmp(why, "malformed XML") != 0 &&
	    strcmp(why, "empty or oversized XML document") != 0)
		abort();
	g_free(next);
	g_free(rid);
	g_free(why);
	ok = aws_query_error_message((const char *)data, size, &code, &msg, &req);
	if (ok != (code != NULL))
		abort();
	g_free(code);
	g_free(msg);
	g_free(req);
	return 0;
}
