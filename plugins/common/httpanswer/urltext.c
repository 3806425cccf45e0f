/* SPDX-License-Identifier: MIT */
/*
 * urltext.c - what a URL option may hold and what a message may say of a
 * URL or of a server's text (issue 27 items 5 and 6): one rule for every
 * HTTP backend. User info in a URL is refused where the option is read
 * (never sent, never printed); a message quotes a URL without its query
 * and fragment (signed URLs carry credentials there); and any credential
 * the plugin sent is cut out of a server's text before it is printed.
 */
#include <string.h>

#include <glib.h>

#include "httpanswer.h"

/* The authority of @url: after "scheme://" (or the whole text), up to the
 * first '/', '?' or '#'. */
static const char *url_authority(const char *url, size_t *len)
{
	const char *scheme = strstr(url, "://");
	const char *auth = scheme != NULL ? scheme + 3 : url;

	*len = strcspn(auth, "/?#");
	return auth;
}

bool url_has_userinfo(const char *url)
{
	size_t len;
	const char *auth;

	if (url == NULL)
		return false;
	auth = url_authority(url, &len);
	return memchr(auth, '@', len) != NULL;
}

bool url_has_query(const char *url)
{
	return url != NULL && strpbrk(url, "?#") != NULL;
}

char *url_shown(const char *url)
{
	size_t len;
	const char *auth, *at, *rest;
	GString *s;

	if (url == NULL)
		return g_strdup("");
	auth = url_authority(url, &len);
	at = NULL;
	for (const char *p = auth; p < auth + len; p++)
		if (*p == '@')
			at = p;
	s = g_string_new_len(url, auth - url);
	rest = at != NULL ? at + 1 : auth;
	g_string_append_len(s, rest, (gssize)strcspn(rest, "?#"));
	return g_string_free(s, FALSE);
}

char *redact_secrets(const char *text, const char *const *secrets)
{
	GString *s = g_string_new(text != NULL ? text : "");

	for (size_t i = 0; secrets != NULL && secrets[i] != NULL; i++) {
		const char *secret = secrets[i];
		size_t n = strlen(secret);
		char *hit;
		gsize from = 0;

		/* Shorter than 4 bytes: too short to be a credential, too common
		 * to cut out of a message. */
		if (n < 4)
			continue;
		while ((hit = strstr(s->str + from, secret)) != NULL) {
			gsize at = (gsize)(hit - s->str);

			g_string_erase(s, (gssize)at, (gssize)n);
			g_string_insert(s, (gssize)at, "[redacted]");
			from = at + strlen("[redacted]");
		}
	}
	return g_string_free(s, FALSE);
}
