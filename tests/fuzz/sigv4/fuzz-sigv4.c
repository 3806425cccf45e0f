/* SPDX-License-Identifier: MIT */
/*
 * fuzz-sigv4.c - libFuzzer target for aws.so's SigV4 canonicaliser
 * (plugins/resolvers/aws/aws_sigv4.c). The input is split at its first
 * '\n': a URL tail ("/path?query", after "https://ec2.example:8443") and a
 * body. Properties: the canonical query and URI hold only unreserved
 * characters, '%XX', '=' / '&' (query) and '/' (URI); canonicalising the
 * canonical query again changes nothing; a URL the splitter accepts signs,
 * giving 64 hex digits and the three header lines; the canonical request
 * names the host with its port.
 */
#include <stdlib.h>
#include <string.h>

#include "aws_sigv4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_chars(const char *s, const char *extra)
{
	for (const char *p = s; *p; p++) {
		if (g_ascii_isalnum(*p) || strchr("-_.~", *p) || strchr(extra, *p))
			continue;
		if (*p == '%' && g_ascii_isxdigit(p[1]) && g_ascii_isxdigit(p[2]) &&
		    !g_ascii_islower(p[1]) && !g_ascii_islower(p[2])) {
			p += 2;
			continue;
		}
		abort();
	}
}

static void check_query(const char *q, size_t len)
{
	char *c = aws_sigv4_canonical_query(q, len);
	char *again = aws_sigv4_canonical_query(c, strlen(c));

	check_chars(c, "=&");
	if (strcmp(c, again) != 0)
		abort();
	g_free(again);
	g_free(c);
}

static void check_uri(const char *p, size_t len)
{
	char *c = aws_sigv4_canonical_uri(p, len);

	check_chars(c, "/");
	if ((len == 0 || p[0] == '/') && c[0] != '/')
		abort();
	g_free(c);
}

static void check_sign(const char *tail, const char *body, size_t body_len)
{
	char *url = g_strconcat("https://ec2.example:8443", tail, NULL);
	struct aws_sigv4_input in = { "POST",
				      url,
				      "us-east-1",
				      "ec2",
				      "text/plain",
				      body,
				      body_len,
				      "20261123T190000Z",
				      "AKIDEXAMPLE",
				      "secret",
				      tail[0] ? NULL : "tok" };
	struct aws_sigv4_signed out;
	const char *why = NULL;

	if (aws_sigv4_sign(&in, &out, &why)) {
		if (strlen(out.signature) != 64 || !out.headers[0] || !out.headers[1] ||
		    !strstr(out.canonical_request, "\nhost:ec2.example:8443\n"))
			abort();
		aws_sigv4_signed_clear(&out);
	} else if (!why) {
		abort();
	}
	g_free(url);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t head = nl ? (size_t)(nl - (const char *)data) : size;
	char *tail = g_strndup((const char *)data, head);

	check_query((const char *)data, size);
	check_uri((const char *)data, size);
	if (strlen(tail) == head && !strpbrk(tail, "#")) { /* no NUL, no fragment */
		if (tail[0] == '/' || tail[0] == '?' || tail[0] == '\0')
			check_sign(tail, nl ? nl + 1 : NULL, nl ? size - head - 1 : 0);
	}
	g_free(tail);
	return 0;
}
