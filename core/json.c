/* SPDX-License-Identifier: MIT */
/*
 * json.c - JSON in the core: parsing with a precise error position (json-c),
 * a small writer that produces Python json.dumps style text, and the
 * read-only JSON view plugins get through the host table.
 */
#include <string.h>

#include <glib.h>
#include <json-c/json.h>

#include "values-private.h"

cr_status json_parse_text(const char *text, size_t len, const char *what, json_object **out,
			  cr_error *err)
{
	json_tokener *tok = NULL;
	json_object *obj = NULL;
	enum json_tokener_error jerr;
	size_t off, line = 1, col = 1;
	cr_status st = CR_OK;

	*out = NULL;
	if (text == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "%s: no JSON text", what);
	if (len > (size_t)G_MAXINT)
		return error_set(err, CR_ERR_PARSE, "%s: JSON text too large", what);
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
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
		for (size_t i = 0; i < off && i < len; i++) {
			if (text[i] == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		st = error_set(err, CR_ERR_PARSE,
				  "%s: invalid JSON at line %zu, column %zu (offset %zu): %s", what, line,
				  col, off, json_tokener_error_desc(jerr));
		json_object_put(obj);
		obj = NULL;
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

void jw_string(GString *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	g_string_append_c(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		const unsigned char *run = p;

		/* Plain bytes in one append: 65,536 addresses are most of a big
		 * step's output. */
		while (!jw_special[*p])
			p++;
		if (p > run && out->len + (gsize)(p - run) < out->allocated_len) {
			/* room already: skip g_string_append_len's checks */
			memcpy(out->str + out->len, run, (size_t)(p - run));
			out->len += (gsize)(p - run);
			out->str[out->len] = '\0';
		} else if (p > run) {
			g_string_append_len(out, (const char *)run, p - run);
		}
		if (*p == '\0')
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
			if (*p < 0x20 || *p == 0x7f) {
				g_string_append(out, "\\u00");
				g_string_append_c(out, hex[*p >> 4]);
				g_string_append_c(out, hex[*p & 15]);
			} else {
				g_string_append_c(out, (char)*p);
			}
		}
	}
	g_string_append_c(out, '"');
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
	if (!json_object_is_type(J(node), json_type_array) || i >= json_object_array_length(J(node)))
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
