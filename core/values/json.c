/* SPDX-License-Identifier: MIT */
/*
 * json.c - JSON in the core: parsing with a precise error position (json-c),
 * a small writer that produces Python json.dumps style text, and the
 * read-only JSON view plugins get through the host table.
 */
#include <string.h>

#include <glib.h>
#include <json-c/json.h>

#include "values/values-private.h"

/*
 * What json-c accepts but JSON is not, found in one pass over the text: a
 * single-quoted string (json-c takes 'key' even in strict mode), a raw
 * control byte inside a string, and "\u0000"
 * inside a string (json-c keeps it, but every C string it becomes ends
 * there: "a\u0000b:1" would silently be "a"). Returns the offset of the
 * first such byte and sets @why, or returns @len.
 */
static size_t json_not_json(const char *text, size_t len, const char **why)
{
	bool in_string = false;

	for (size_t i = 0; i < len; i++) {
		if (!in_string) {
			if (text[i] == '"')
				in_string = true;
			else if (text[i] == '\'') {
				*why = "single quotes are not JSON";
				return i;
			}
		} else if (text[i] == '"') {
			in_string = false;
		} else if ((unsigned char)text[i] < 0x20) {
			*why = "a control character in a string (JSON needs it escaped)";
			return i;
		} else if (text[i] == '\\' && i + 1 < len) {
			if (text[i + 1] == 'u' && i + 5 < len &&
			    strncmp(text + i + 2, "0000", 4) == 0) {
				*why = "a NUL character (\\u0000) in a string";
				return i;
			}
			i++; /* the escaped byte */
		}
	}
	return len;
}

/* Line and column (from 1) of byte @off of @text. */
static void json_position(const char *text, size_t len, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

cr_status json_parse_text(const char *text, size_t len, const char *what, json_object **out,
			  cr_error *err)
{
	json_tokener *tok = NULL;
	json_object *obj = NULL;
	enum json_tokener_error jerr;
	size_t off, line, col;
	cr_status st = CR_OK;

	*out = NULL;
	if (text == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "%s: no JSON text", what);
	if (len > (size_t)G_MAXINT)
		return error_set(err, CR_ERR_PARSE, "%s: JSON text too large", what);
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	off = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue && obj == NULL) {
		/* A number at the very end ("1") is complete only once the
		 * tokener sees what follows it: tell it the text has ended. */
		obj = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		off = len;
	}
	if (jerr == json_tokener_success && off < len) {
		/* Only whitespace may follow the value. */
		for (size_t i = off; i < len; i++) {
			if (!g_ascii_isspace(text[i])) {
				jerr = json_tokener_error_parse_unexpected;
				off = i;
				break;
			}
		}
	}
	if (jerr == json_tokener_continue) {
		jerr = json_tokener_error_parse_eof;
		off = len;
	}
	if (jerr != json_tokener_success) {
		json_position(text, len, off, &line, &col);
		st = error_set(err, CR_ERR_PARSE,
			       "%s: invalid JSON at line %zu, column %zu (offset %zu): %s", what,
			       line, col, off, json_tokener_error_desc(jerr));
		json_object_put(obj);
		obj = NULL;
	} else {
		const char *why = NULL;

		off = json_not_json(text, len, &why);
		if (off < len) {
			json_position(text, len, off, &line, &col);
			st = error_set(err, CR_ERR_PARSE,
				       "%s: invalid JSON at line %zu, column %zu (offset %zu): %s",
				       what, line, col, off, why);
			json_object_put(obj);
			obj = NULL;
		}
	}
	json_tokener_free(tok);
	*out = obj;
	return st;
}

/* Bytes a JSON string cannot hold as they are: controls, DEL, '"', '\\'. */
static const unsigned char jw_special[256] = {
	[0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
	[0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1,
	[0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
	[0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1,
	[0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, ['"'] = 1,  ['\\'] = 1, [0x7f] = 1,
};

#define JW_ONES UINT64_C(0x0101010101010101)
#define JW_HIGH UINT64_C(0x8080808080808080)

/* Whether one of the 8 bytes in @w is one jw_special marks. Bit Twiddling
 * Hacks' "has a byte less than n" (n <= 128) and "has a zero byte" are exact
 * about whether such a byte exists, which is all that is asked here. */
static inline bool jw_word_special(uint64_t w)
{
	uint64_t ctl = (w - JW_ONES * 0x20) & ~w;
	uint64_t quote = w ^ (JW_ONES * '"');
	uint64_t bslash = w ^ (JW_ONES * '\\');
	uint64_t del = w ^ (JW_ONES * 0x7f);

	quote = (quote - JW_ONES) & ~quote;
	bslash = (bslash - JW_ONES) & ~bslash;
	del = (del - JW_ONES) & ~del;
	return ((ctl | quote | bslash | del) & JW_HIGH) != 0;
}

/* "@s" at @d when @s[0..@len) can go into a JSON string as it is (then
 * true), eight bytes at a time, the last word overlapping the one before
 * it. On false @d holds some of @s, which the caller writes over. */
static inline bool jw_put_plain(char *d, const char *s, size_t len)
{
	uint64_t w;
	size_t i;

	if (len < 8) {
		for (i = 0; i < len; i++) {
			if (jw_special[(unsigned char)s[i]])
				return false;
			d[i + 1] = s[i];
		}
	} else {
		for (i = 0; i + 8 < len; i += 8) {
			memcpy(&w, s + i, 8);
			if (jw_word_special(w))
				return false;
			memcpy(d + 1 + i, &w, 8);
		}
		memcpy(&w, s + len - 8, 8);
		if (jw_word_special(w))
			return false;
		memcpy(d + 1 + len - 8, &w, 8);
	}
	d[0] = '"';
	d[len + 1] = '"';
	return true;
}

static G_GNUC_NO_INLINE void jw_grow(GString *out, size_t n)
{
	gsize len = out->len;

	/* GString keeps no public "reserve": growing and shrinking back
	 * reallocates once, to the next power of two. */
	g_string_set_size(out, len + n);
	g_string_truncate(out, len);
}

void jw_reserve(GString *out, size_t n)
{
	if (n >= out->allocated_len - out->len)
		jw_grow(out, n);
}

/* @s[0..@len) escaped, byte by byte from the first special one. */
static void jw_escaped(GString *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		const unsigned char *run = p;

		while (p < end && !jw_special[*p])
			p++;
		g_string_append_len(out, (const char *)run, p - run);
		if (p == end)
			break;
		switch (*p) {
		case '"':
			g_string_append(out, "\\\"");
			break;
		case '\\':
			g_string_append(out, "\\\\");
			break;
		case '\n':
			g_string_append(out, "\\n");
			break;
		case '\r':
			g_string_append(out, "\\r");
			break;
		case '\t':
			g_string_append(out, "\\t");
			break;
		case '\b':
			g_string_append(out, "\\b");
			break;
		case '\f':
			g_string_append(out, "\\f");
			break;
		default:
			g_string_append(out, "\\u00");
			g_string_append_c(out, hex[*p >> 4]);
			g_string_append_c(out, hex[*p & 15]);
		}
		p++;
	}
}

/* "@s" escaped, at the end of @out; @len its length. */
static void jw_string_escaped(GString *out, const char *s, size_t len)
{
	g_string_append_c(out, '"');
	jw_escaped(out, s, len);
	g_string_append_c(out, '"');
}

void jw_string(GString *out, const char *s)
{
	size_t len = strlen(s);

	jw_reserve(out, len + 2);
	if (!jw_put_plain(out->str + out->len, s, len)) {
		jw_string_escaped(out, s, len);
		return;
	}
	out->len += len + 2;
	out->str[out->len] = '\0';
}

/* The loop of jw_string written out, as a big step's addresses all pass
 * through it. */
void jw_string_list(GString *out, const char *const *strs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(strs[i]);

		jw_reserve(out, len + 4);
		if (i > 0) {
			out->str[out->len++] = ',';
			out->str[out->len++] = ' ';
		}
		if (jw_put_plain(out->str + out->len, strs[i], len))
			out->len += len + 2;
		else
			jw_string_escaped(out, strs[i], len);
	}
	out->str[out->len] = '\0';
}

/* ---- the plugin-facing view: a cr_json is a json_object ---------------- */

static json_object *J(const cr_json *n)
{
	return (json_object *)(void *)n;
}

cr_status host_json_parse(const char *text, size_t len, const char *what, cr_json **root,
			  cr_error *err)
{
	json_object *obj = NULL;
	cr_status st = json_parse_text(text, len, what != NULL ? what : "JSON", &obj, err);

	if (root != NULL)
		*root = (cr_json *)(void *)obj;
	else
		json_object_put(obj);
	return st;
}

void host_json_free(cr_json *root)
{
	json_object_put(J(root));
}

const cr_json *host_json_get(const cr_json *node, const char *pointer)
{
	json_object *res = NULL;

	if (node == NULL || pointer == NULL)
		return NULL;
	if (*pointer == '\0')
		return node;
	if (json_pointer_get(J(node), pointer, &res) != 0)
		return NULL;
	return (const cr_json *)(void *)res;
}

cr_json_type host_json_type(const cr_json *node)
{
	switch (json_object_get_type(J(node))) {
	case json_type_boolean:
		return CR_JSON_BOOL;
	case json_type_int:
	case json_type_double:
		return CR_JSON_NUMBER;
	case json_type_string:
		return CR_JSON_STRING;
	case json_type_array:
		return CR_JSON_ARRAY;
	case json_type_object:
		return CR_JSON_OBJECT;
	case json_type_null:
	default:
		return CR_JSON_NULL;
	}
}

const char *host_json_string(const cr_json *node)
{
	if (!json_object_is_type(J(node), json_type_string))
		return NULL;
	return json_object_get_string(J(node));
}

bool host_json_int(const cr_json *node, int64_t *out)
{
	if (!json_object_is_type(J(node), json_type_int))
		return false;
	if (out != NULL)
		*out = json_object_get_int64(J(node));
	return true;
}

bool host_json_double(const cr_json *node, double *out)
{
	if (!json_object_is_type(J(node), json_type_double) &&
	    !json_object_is_type(J(node), json_type_int))
		return false;
	if (out != NULL)
		*out = json_object_get_double(J(node));
	return true;
}

bool host_json_bool(const cr_json *node, bool *out)
{
	if (!json_object_is_type(J(node), json_type_boolean))
		return false;
	if (out != NULL)
		*out = json_object_get_boolean(J(node));
	return true;
}

size_t host_json_length(const cr_json *node)
{
	if (json_object_is_type(J(node), json_type_array))
		return json_object_array_length(J(node));
	if (json_object_is_type(J(node), json_type_object))
		return (size_t)json_object_object_length(J(node));
	return 0;
}

const cr_json *host_json_index(const cr_json *node, size_t i)
{
	if (!json_object_is_type(J(node), json_type_array) ||
	    i >= json_object_array_length(J(node)))
		return NULL;
	return (const cr_json *)(void *)json_object_array_get_idx(J(node), i);
}

void host_json_each(const cr_json *node, cr_json_each_fn fn, void *user_data)
{
	if (fn == NULL || !json_object_is_type(J(node), json_type_object))
		return;
	json_object_object_foreach(J(node), key, val)
	{
		if (!fn(key, (const cr_json *)(void *)val, user_data))
			break;
	}
}
