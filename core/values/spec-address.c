/* SPDX-License-Identifier: MIT */
/*
 * spec-address.c - what a task's address, a job name and a task type may
 * be. Checked once, when a task enters a ClusterSpec (spec.c) or a task type
 * is set, for every backend, so that no output format (a hostfile line, a
 * shell word, a URL, an environment line) can carry what a server or a file
 * slipped into them.
 */
#include <string.h>

#include <glib.h>

#include "values/values-private.h"

/* Why @address cannot be a task's address, or NULL when it can. Every output
 * format must carry it on one line and every framework parse it: HOST or
 * HOST:PORT, HOST a name or IPv4 address (letters, digits, '-', '.', '_') or a
 * bracketed IPv6 address (hex digits, ':', '.', and a %zone of name
 * characters), PORT 1..65535. A newline would add a hostfile line, a blank a
 * hostfile field, a quote or '$' a shell word. */
const char *spec_address_problem(const char *address)
{
	const char *colon, *p;
	long port = 0;

	if (address[0] == '[') {
		bool zone = false;

		for (p = address + 1; *p != ']' && *p != '\0'; p++) {
			zone = zone || *p == '%';
			if (!(g_ascii_isxdigit(*p) || *p == ':' || *p == '.' || *p == '%' ||
			      (zone && (g_ascii_isalnum(*p) || *p == '-' || *p == '_'))))
				return "a character that is not in an IPv6 address";
		}
		if (*p != ']' || p == address + 1)
			return "an empty or unclosed [IPv6] host";
		if (p[1] != '\0' && p[1] != ':')
			return "text after its [IPv6] host";
		colon = p[1] == ':' ? p + 1 : NULL;
	} else {
		for (p = address; *p != '\0' && *p != ':'; p++)
			if (!(g_ascii_isalnum(*p) || *p == '-' || *p == '.' || *p == '_'))
				return "a character that is not in a host name";
		colon = *p == ':' ? p : NULL;
		if (p == address)
			return "no host";
	}
	if (colon == NULL)
		return NULL;
	for (p = colon + 1; *p >= '0' && *p <= '9' && port <= 65535; p++)
		port = port * 10 + (*p - '0');
	if (p == colon + 1 || *p != '\0' || port < 1 || port > 65535)
		return "a port outside 1..65535";
	return NULL;
}

cr_status spec_address_error(cr_error *err, const char *job, const char *address, const char *why)
{
	char *esc = g_strescape(address, NULL);
	cr_status st = error_set(err, CR_ERR_INVALID_ARG, "job '%s': address \"%s\" has %s", job,
				 esc, why);

	g_free(esc);
	return st;
}

/* A task type, rpc layer, master or environment name: UTF-8 (or no JSON
 * reader, ours included, reads TF_CONFIG back) without control characters
 * (C0, DEL, C1): each names something (a job, a protocol, a URL) where a
 * newline or an ESC is a typo or an injection, never a name. Job names
 * themselves need only be UTF-8 (spec.c): any text is quoted and escaped
 * right by every format (tests/integration/formats proves it). */
cr_status spec_check_name(cr_error *err, const char *what, const char *name)
{
	const char *why = NULL;
	char *esc;
	cr_status st;

	if (!g_utf8_validate(name, -1, NULL)) {
		why = "is not valid UTF-8";
	} else {
		for (const char *p = name; *p != '\0' && why == NULL; p = g_utf8_next_char(p)) {
			gunichar c = g_utf8_get_char(p);

			if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
				why = "has a control character";
		}
	}
	if (why == NULL && strlen(name) > SPEC_NAME_MAX) {
		/* quoted in part: the start names it, the size says why */
		char *head = g_utf8_make_valid(name, 32);

		esc = cr_text_escape(head);
		st = error_set(err, CR_ERR_INVALID_ARG, "%s \"%s...\" is %zu bytes (more than %d)",
			       what, esc, strlen(name), SPEC_NAME_MAX);
		g_free(head);
		g_free(esc);
		return st;
	}
	if (why == NULL)
		return CR_OK;
	/* the one rule for a supplied text in a message (cr_text_escape) */
	esc = cr_text_escape(name);
	st = error_set(err, CR_ERR_INVALID_ARG, "%s \"%s\" %s", what, esc, why);
	g_free(esc);
	return st;
}
