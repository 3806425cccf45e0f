/* SPDX-License-Identifier: MIT */
/*
 * aws_sigv4.c - AWS Signature Version 4 (HMAC-SHA256 through GLib).
 *
 * From the SigV4 specification ("Create a canonical request", "Create a
 * string to sign", "Calculate the signature"):
 *
 *   METHOD \n CANONICAL-URI \n CANONICAL-QUERY \n
 *   name:value\n for each signed header, sorted \n
 *   SIGNED-HEADERS \n hex(SHA256(payload))
 *
 *   AWS4-HMAC-SHA256 \n AMZ-DATE \n DATE/REGION/SERVICE/aws4_request \n
 *   hex(SHA256(canonical request))
 *
 *   kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" secret, date), region), service),
 *                   "aws4_request"); signature = hex(HMAC(kSigning, sts))
 *
 * The key material lives in stack buffers that are wiped before return.
 * Nothing here calls the host: the vector test and the fuzz target link
 * this file alone.
 */
#include <string.h>
#include <time.h>

#include "aws_sigv4.h"

#define SHA256_LEN 32

static bool aws_unreserved(unsigned char c)
{
	return g_ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~';
}

void aws_sigv4_encode(GString *out, const char *s, size_t len, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (aws_unreserved(c) || (keep_slash && c == '/')) {
			g_string_append_c(out, (char)c);
		} else {
			g_string_append_c(out, '%');
			g_string_append_c(out, hex[c >> 4]);
			g_string_append_c(out, hex[c & 15]);
		}
	}
}

/* Percent-decode @len bytes; a '%' without two hex digits stays itself. */
static GString *aws_decode(const char *s, size_t len)
{
	GString *out = g_string_sized_new(len);

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len && g_ascii_isxdigit(s[i + 1]) &&
		    g_ascii_isxdigit(s[i + 2])) {
			g_string_append_c(out, (char)(g_ascii_xdigit_value(s[i + 1]) * 16 +
						      g_ascii_xdigit_value(s[i + 2])));
			i += 2;
		} else {
			g_string_append_c(out, s[i]);
		}
	}
	return out;
}

/* botocore's remove_dot_segments: empty and "." segments go, ".." drops
 * the one before; a leading and (with segments left) trailing '/' stay. */
char *aws_sigv4_canonical_uri(const char *path, size_t len)
{
	GPtrArray *segs = g_ptr_array_new_with_free_func(g_free);
	GString *out = g_string_new(NULL);
	size_t start = 0;

	if (len == 0) {
		g_ptr_array_free(segs, TRUE);
		g_string_append_c(out, '/');
		return g_string_free(out, FALSE);
	}
	for (size_t i = 0; i <= len; i++) {
		if (i < len && path[i] != '/')
			continue;
		size_t n = i - start;

		if (n == 2 && memcmp(path + start, "..", 2) == 0) {
			if (segs->len)
				g_ptr_array_remove_index(segs, segs->len - 1);
		} else if (n && !(n == 1 && path[start] == '.')) {
			g_ptr_array_add(segs, g_strndup(path + start, n));
		}
		start = i + 1;
	}
	if (path[0] == '/')
		g_string_append_c(out, '/');
	for (guint i = 0; i < segs->len; i++) {
		const char *seg = g_ptr_array_index(segs, i);

		if (i)
			g_string_append_c(out, '/');
		aws_sigv4_encode(out, seg, strlen(seg), false);
	}
	if (path[len - 1] == '/' && segs->len)
		g_string_append_c(out, '/');
	g_ptr_array_free(segs, TRUE);
	return g_string_free(out, FALSE);
}

struct aws_param {
	char *key, *value; /* encoded */
};

static int aws_param_cmp(gconstpointer a, gconstpointer b)
{
	const struct aws_param *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : strcmp(x->value, y->value);
}

static char *aws_reencode(const char *s, size_t len)
{
	GString *raw = aws_decode(s, len);
	GString *out = g_string_sized_new(raw->len + 8);

	aws_sigv4_encode(out, raw->str, raw->len, false);
	g_string_free(raw, TRUE);
	return g_string_free(out, FALSE);
}

/* Parameters decoded and encoded again, sorted by key then value. */
char *aws_sigv4_canonical_query(const char *query, size_t len)
{
	GArray *params = g_array_new(FALSE, FALSE, sizeof(struct aws_param));
	GString *out = g_string_new(NULL);
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && query[i] != '&')
			continue;
		if (i > start) {
			const char *eq = memchr(query + start, '=', i - start);
			size_t klen = eq ? (size_t)(eq - (query + start)) : i - start;
			struct aws_param p;

			p.key = aws_reencode(query + start, klen);
			p.value = eq ? aws_reencode(eq + 1, (size_t)(query + i - eq - 1))
				     : g_strdup("");
			g_array_append_val(params, p);
		}
		start = i + 1;
	}
	g_array_sort(params, aws_param_cmp);
	for (guint i = 0; i < params->len; i++) {
		struct aws_param *p = &g_array_index(params, struct aws_param, i);

		g_string_append_printf(out, "%s%s=%s", i ? "&" : "", p->key, p->value);
		g_free(p->key);
		g_free(p->value);
	}
	g_array_free(params, TRUE);
	return g_string_free(out, FALSE);
}

bool aws_sigv4_split_url(const char *url, char **host, char **path, char **query)
{
	const char *auth, *end, *colon, *q;
	bool https;
	char *h;

	if (g_ascii_strncasecmp(url, "https://", 8) == 0) {
		https = true;
		auth = url + 8;
	} else if (g_ascii_strncasecmp(url, "http://", 7) == 0) {
		https = false;
		auth = url + 7;
	} else {
		return false;
	}
	end = auth + strcspn(auth, "/?#");
	if (end == auth || memchr(auth, '@', (size_t)(end - auth)))
		return false;
	colon = NULL;
	for (const char *p = end; p > auth; p--)
		if (p[-1] == ':' || p[-1] == ']') {
			colon = p[-1] == ':' ? p - 1 : NULL;
			break;
		}
	if (colon && strncmp(colon, https ? ":443" : ":80", (size_t)(end - colon)) == 0 &&
	    (size_t)(end - colon) == (https ? 4u : 3u))
		h = g_ascii_strdown(auth, colon - auth);
	else
		h = g_ascii_strdown(auth, end - auth);
	q = end + strcspn(end, "?#");
	*host = h;
	*path = g_strndup(end, (size_t)(q - end));
	if (*q == '?')
		*query = g_strndup(q + 1, strcspn(q + 1, "#"));
	else
		*query = g_strdup("");
	return true;
}

static void aws_hex(const guint8 *d, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[2 * n] = '\0';
}

static void aws_sha256_hex(const char *data, size_t len, char out[65])
{
	GChecksum *c = g_checksum_new(G_CHECKSUM_SHA256);
	guint8 d[SHA256_LEN];
	gsize n = sizeof(d);

	g_checksum_update(c, (const guchar *)(data ? data : ""), (gssize)len);
	g_checksum_get_digest(c, d, &n);
	g_checksum_free(c);
	aws_hex(d, SHA256_LEN, out);
}

static void aws_hmac(const guint8 *key, size_t klen, const char *msg, size_t mlen,
		     guint8 out[SHA256_LEN])
{
	GHmac *h = g_hmac_new(G_CHECKSUM_SHA256, key, klen);
	gsize n = SHA256_LEN;

	g_hmac_update(h, (const guchar *)msg, (gssize)mlen);
	g_hmac_get_digest(h, out, &n);
	g_hmac_unref(h);
}

/* "name:value" with the value trimmed and inner blank runs collapsed. */
static void aws_canon_header(GString *out, const char *name, const char *value)
{
	bool space = false;

	g_string_append_printf(out, "%s:", name);
	while (*value == ' ' || *value == '\t')
		value++;
	for (; *value; value++) {
		if (*value == ' ' || *value == '\t') {
			space = true;
			continue;
		}
		if (space)
			g_string_append_c(out, ' ');
		space = false;
		g_string_append_c(out, *value);
	}
	g_string_append_c(out, '\n');
}

static bool aws_date_ok(const char *d)
{
	if (!d || strlen(d) != 16 || d[8] != 'T' || d[15] != 'Z')
		return false;
	for (int i = 0; i < 15; i++)
		if (i != 8 && !g_ascii_isdigit(d[i]))
			return false;
	return true;
}

static char *aws_canonical_request(const struct aws_sigv4_input *in, const char *host,
				   const char *path, const char *query, const char **signed_hdrs)
{
	GString *cr = g_string_new(NULL);
	char *uri = aws_sigv4_canonical_uri(path, strlen(path));
	char *q = aws_sigv4_canonical_query(query, strlen(query));
	char payload[65];

	g_string_append_printf(cr, "%s\n%s\n%s\n", in->method, uri, q);
	if (in->content_type)
		aws_canon_header(cr, "content-type", in->content_type);
	aws_canon_header(cr, "host", host);
	aws_canon_header(cr, "x-amz-date", in->amz_date);
	if (in->session_token)
		aws_canon_header(cr, "x-amz-security-token", in->session_token);
	*signed_hdrs = in->content_type    ? (in->session_token ? "content-type;host;x-amz-date;"
								  "x-amz-security-token"
								: "content-type;host;x-amz-date")
		       : in->session_token ? "host;x-amz-date;x-amz-security-token"
					   : "host;x-amz-date";
	aws_sha256_hex(in->body, in->body ? in->body_len : 0, payload);
	g_string_append_printf(cr, "\n%s\n%s", *signed_hdrs, payload);
	g_free(uri);
	g_free(q);
	return g_string_free(cr, FALSE);
}

/* The signing key from the secret, wiped from every buffer on the way. */
static void aws_signing_key(const struct aws_sigv4_input *in, guint8 key[SHA256_LEN])
{
	size_t slen = strlen(in->secret_access_key);
	guint8 *k0 = g_malloc(slen + 4);
	guint8 a[SHA256_LEN], b[SHA256_LEN];

	memcpy(k0, "AWS4", 4);
	memcpy(k0 + 4, in->secret_access_key, slen);
	aws_hmac(k0, slen + 4, in->amz_date, 8, a);
	explicit_bzero(k0, slen + 4);
	g_free(k0);
	aws_hmac(a, SHA256_LEN, in->region, strlen(in->region), b);
	aws_hmac(b, SHA256_LEN, in->service, strlen(in->service), a);
	aws_hmac(a, SHA256_LEN, "aws4_request", 12, key);
	explicit_bzero(a, sizeof(a));
	explicit_bzero(b, sizeof(b));
}

bool aws_sigv4_sign(const struct aws_sigv4_input *in, struct aws_sigv4_signed *out,
		    const char **why)
{
	char *host = NULL, *path = NULL, *query = NULL, *scope;
	const char *signed_hdrs;
	char crhash[65], sig[65];
	guint8 key[SHA256_LEN], mac[SHA256_LEN];
	GPtrArray *hdrs;

	memset(out, 0, sizeof(*out));
	if (!aws_date_ok(in->amz_date)) {
		*why = "X-Amz-Date is not YYYYMMDDTHHMMSSZ";
		return false;
	}
	if (!aws_sigv4_split_url(in->url, &host, &path, &query)) {
		*why = "the URL is not an absolute http:// or https:// URL";
		return false;
	}
	out->canonical_request = aws_canonical_request(in, host, path, query, &signed_hdrs);
	aws_sha256_hex(out->canonical_request, strlen(out->canonical_request), crhash);
	scope = g_strdup_printf("%.8s/%s/%s/aws4_request", in->amz_date, in->region, in->service);
	out->string_to_sign =
		g_strdup_printf("AWS4-HMAC-SHA256\n%s\n%s\n%s", in->amz_date, scope, crhash);
	aws_signing_key(in, key);
	aws_hmac(key, SHA256_LEN, out->string_to_sign, strlen(out->string_to_sign), mac);
	explicit_bzero(key, sizeof(key));
	aws_hex(mac, SHA256_LEN, sig);
	out->signature = g_strdup(sig);
	hdrs = g_ptr_array_new();
	g_ptr_array_add(hdrs, g_strdup_printf("X-Amz-Date: %s", in->amz_date));
	if (in->session_token)
		g_ptr_array_add(hdrs,
				g_strdup_printf("X-Amz-Security-Token: %s", in->session_token));
	g_ptr_array_add(hdrs, g_strdup_printf("Authorization: AWS4-HMAC-SHA256 Credential=%s/%s, "
					      "SignedHeaders=%s, Signature=%s",
					      in->access_key_id, scope, signed_hdrs, sig));
	g_ptr_array_add(hdrs, NULL);
	out->headers = (char **)g_ptr_array_free(hdrs, FALSE);
	g_free(scope);
	g_free(host);
	g_free(path);
	g_free(query);
	return true;
}

void aws_sigv4_signed_clear(struct aws_sigv4_signed *s)
{
	if (!s)
		return;
	if (s->headers)
		for (char **h = s->headers; *h; h++)
			explicit_bzero(*h, strlen(*h)); /* the session token */
	g_strfreev(s->headers);
	g_free(s->canonical_request);
	g_free(s->string_to_sign);
	g_free(s->signature);
	memset(s, 0, sizeof(*s));
}

void aws_sigv4_amz_date(int64_t unix_ms, char buf[17])
{
	time_t t = (time_t)(unix_ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, 17, "%Y%m%dT%H%M%SZ", &tm);
}
