/* SPDX-License-Identifier: MIT */
/*
 * config-text.c - the checks a config's text passes before libconfig reads
 * it, for config.c, which calls config_read_checked once for each file and
 * drop-in (config_check_tokens alone for a string or a group): a regular
 * file of bounded size without NUL bytes, @include targets held to the same
 * rules (libconfig exits on a directory and blocks on a FIFO), and integer
 * literals that libconfig 1.5 would silently cut to 32 bits. It uses no
 * other config file.
 */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "host/host-private.h"

/* The tokens of a config text, checked before libconfig reads it.
 *
 * libconfig 1.5 keeps an integer written without the L suffix in 32 bits and
 * drops the rest without a word (task_id = 4294967297 reads as 1): every
 * integer literal is checked here, so one out of the 32-bit range is an
 * error naming the line. Strings and comments are skipped; floats and
 * L-suffixed integers are left alone. An unclosed comment, which libconfig
 * takes as running to the end, is refused too.
 *
 * libconfig's parser keeps its nesting on a bounded stack: 20,000 nested
 * groups end in its bare "memory exhausted". No real file nests more than a
 * few levels; deeper than this is refused first, naming the line. */
#define CONFIG_DEPTH_MAX 64

cr_status config_check_tokens(const char *text, const char *name, cr_error *err)
{
	int line = 1, depth = 0;

	for (const char *p = text; *p != '\0';) {
		if (*p == '\n') {
			line++;
			p++;
		} else if (*p == '"') {
			for (p++; *p != '\0' && *p != '"'; p++) {
				if (*p == '\\' && p[1] != '\0')
					p++;
				else if (*p == '\n')
					line++;
			}
			if (*p == '"')
				p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (*p != '\0' && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			int opened = line;

			for (p += 2; *p != '\0' && !(p[0] == '*' && p[1] == '/'); p++)
				if (*p == '\n')
					line++;
			/* libconfig ends an unclosed comment at the end of the
			 * text: the rest of the file would be dropped unsaid. */
			if (*p == '\0')
				return error_set(err, CR_ERR_CONFIG,
						 "%s:%d: a /* comment is not closed", name, opened);
			p += 2;
		} else if (g_ascii_isalpha(*p) || *p == '*') {
			while (g_ascii_isalnum(*p) || *p == '-' || *p == '_' || *p == '*')
				p++;
		} else if (g_ascii_isdigit(*p) ||
			   ((*p == '-' || *p == '+') && g_ascii_isdigit(p[1]))) {
			const char *start = p;
			bool hex = false, big;

			if (*p == '-' || *p == '+')
				p++;
			if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
				hex = true;
				for (p += 2; g_ascii_isxdigit(*p); p++)
					;
			} else {
				while (g_ascii_isdigit(*p))
					p++;
			}
			if (!hex && (*p == '.' || *p == 'e' || *p == 'E')) {
				while (g_ascii_isdigit(*p) || *p == '.' || *p == 'e' || *p == 'E' ||
				       ((*p == '-' || *p == '+') && (p[-1] == 'e' || p[-1] == 'E')))
					p++;
				continue;
			}
			if (*p == 'L') {
				p++;
				continue;
			}
			if (hex) {
				errno = 0;
				big = g_ascii_strtoull(start + (*start == '-' || *start == '+') + 2,
						       NULL, 16) > G_MAXINT32 ||
				      errno == ERANGE;
			} else {
				gint64 v;

				errno = 0;
				v = g_ascii_strtoll(start, NULL, 10);
				big = errno == ERANGE || v > G_MAXINT32 || v < G_MININT32;
			}
			if (big)
				return error_set(err, CR_ERR_CONFIG,
						 "%s:%d: integer %.*s is out of the 32-bit range; "
						 "write %.*sL for a 64-bit integer",
						 name, line, (int)(p - start), start,
						 (int)(p - start), start);
		} else if (*p == '{' || *p == '(' || *p == '[') {
			if (++depth > CONFIG_DEPTH_MAX)
				return error_set(err, CR_ERR_CONFIG,
						 "%s:%d: settings nested more than %d deep", name,
						 line, CONFIG_DEPTH_MAX);
			p++;
		} else {
			if ((*p == '}' || *p == ')' || *p == ']') && depth > 0)
				depth--;
			p++;
		}
	}
	return CR_OK;
}

/*
 * The text of one config file. Opened without blocking and checked before a
 * byte is read: a FIFO or device would hang the reader, a directory reads as
 * nothing, and libconfig's scanner is slow on huge tokens, so only a regular
 * file of at most CONFIG_FILE_MAX bytes is taken. libconfig stops at a NUL
 * byte, which would drop the rest of the file without a word: refused too.
 */
static cr_status read_text(const char *path, char **text, cr_error *err)
{
	char *buf = NULL, *nul;
	size_t n = 0;
	int errnum;

	switch (file_read_checked(path, CONFIG_FILE_MAX, &buf, &n, &errnum)) {
	case FILE_READ_OK:
		break;
	case FILE_READ_ERRNO:
		if (errnum != EISDIR)
			return error_set(err, CR_ERR_CONFIG, "%s: cannot read the config file: %s",
					 path, g_strerror(errnum));
		/* a directory is not a regular file */
		__attribute__((fallthrough));
	case FILE_READ_NOT_REGULAR:
		return error_set(err, CR_ERR_CONFIG, "%s: not a regular file", path);
	case FILE_READ_TOO_BIG:
		return error_set(err, CR_ERR_CONFIG,
				 "%s: larger than %u bytes (the most a config file may have)", path,
				 CONFIG_FILE_MAX);
	default:
		return error_set(err, CR_ERR_INTERNAL, "%s: cannot read the config file", path);
	}
	nul = memchr(buf, '\0', n);
	if (nul != NULL) {
		cr_status st =
			error_set(err, CR_ERR_CONFIG, "%s: contains a NUL byte at offset %zu", path,
				  (size_t)(nul - buf));

		g_free(buf);
		return st;
	}
	*text = buf;
	return CR_OK;
}

/*
 * libconfig opens an `@include "NAME"` (NAME under the main file's directory
 * unless absolute) with fopen and reads it with its flex scanner, which on a
 * directory ends the process ("input in flex scanner failed") and on a FIFO
 * blocks forever; libconfig 1.5 has no hook to open the file ourselves. So
 * every include, and theirs in turn, is read first with read_text's checks.
 * A name with a backslash escape is refused rather than guessed at. Each
 * include read is added to @files (after the file that includes it), named
 * as libconfig names it in its messages: DIR/NAME, or NAME when absolute.
 */
#define INCLUDE_DEPTH_MAX 10

static cr_status check_includes(const char *dir, const char *file, const char *text, int depth,
				GPtrArray *files, cr_error *err)
{
	const char *line = text;
	cr_status st = CR_OK;

	for (int lineno = 1; line != NULL && st == CR_OK; lineno++) {
		const char *p = line + strspn(line, " \t");
		const char *end, *eol = strchr(line, '\n');
		char *name, *full, *inc = NULL;

		line = eol != NULL ? eol + 1 : NULL;
		if (strncmp(p, "@include", 8) != 0 || (p[8] != ' ' && p[8] != '\t'))
			continue;
		p += 8 + strspn(p + 8, " \t");
		if (*p != '"')
			continue; /* libconfig's own syntax error */
		end = strpbrk(p + 1, "\"\\\n");
		if (end == NULL || *end != '"')
			return error_set(err, CR_ERR_CONFIG,
					 "%s:%d: @include: only a plain \"FILE\" name is supported",
					 file, lineno);
		if (depth >= INCLUDE_DEPTH_MAX)
			return error_set(err, CR_ERR_CONFIG, "%s:%d: @include nested too deeply",
					 file, lineno);
		name = g_strndup(p + 1, (gsize)(end - p - 1));
		full = g_path_is_absolute(name) ? g_strdup(name)
						: g_strconcat(dir, "/", name, NULL);
		st = read_text(full, &inc, err);
		if (st == CR_OK)
			st = config_check_tokens(inc, full, err);
		if (st != CR_OK) {
			error_prefix(err, "%s:%d: @include: ", file, lineno);
		} else {
			g_ptr_array_add(files, g_strdup(full));
			st = check_includes(dir, full, inc, depth + 1, files, err);
		}
		g_free(inc);
		g_free(full);
		g_free(name);
	}
	return st;
}

cr_status config_read_checked(const char *path, const char *dir, GPtrArray *files, char **text,
			      cr_error *err)
{
	char *buf = NULL;
	cr_status st = read_text(path, &buf, err);

	if (st != CR_OK)
		return st;
	st = config_check_tokens(buf, path, err);
	if (st == CR_OK)
		st = check_includes(dir, path, buf, 0, files, err);
	if (st != CR_OK) {
		g_free(buf);
		return st;
	}
	*text = buf;
	return CR_OK;
}
