/* SPDX-License-Identifier: MIT */
/*
 * fuzz-testhost-script.c - libFuzzer target for cr-testhost's HTTP and
 * spawn scripts (core/testhost/cr-testhost.c: script_text, script_exchange,
 * script_spawn), read into one testhost as `cr-testhost --http FILE` and
 * `--spawn FILE` read them. The input's first byte picks the kind (low
 * bit: 0 HTTP, 1 spawn); the rest is the script. Properties: a refused
 * script fails with CR_ERR_INVALID_ARG and one line "fz.script:LINE: ..."
 * whose LINE is a line of the script; an accepted one holds one
 * expectation per block that has a request or argv line, and
 * cr_testhost_verify reports every one of them as not made.
 */
#define main cr_testhost_cli_main
int cr_testhost_cli_main(int argc, char **argv);
#include "../../../core/testhost/cr-testhost.c"
#undef main

#include "testhost-private.h"

#define FZ_FILE "fz.script"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cr_testhost *host(void)
{
	static cr_testhost *th;
	cr_error err = CR_ERROR_INIT;

	if (th == NULL && (th = cr_testhost_new(&err)) == NULL)
		abort();
	g_ptr_array_set_size(th->script, 0);
	g_ptr_array_set_size(th->spawns, 0);
	return th;
}

/* The blocks with content, counted apart from the reader: the parts
 * between "%%" lines that have a line neither empty nor a comment. */
static unsigned blocks(char **lines)
{
	unsigned count = 0;
	bool seen = false;

	for (size_t i = 0; lines[i] != NULL; i++) {
		if (strcmp(lines[i], "%%") == 0) {
			count += seen;
			seen = false;
		} else if (lines[i][0] != '\0' && lines[i][0] != '#') {
			seen = true;
		}
	}
	return count + seen;
}

/* "fz.script:LINE: ..." with LINE in 1..@nlines, on one line. */
static void check_refusal(cr_status st, const cr_error *err, size_t nlines)
{
	const char *prefix = FZ_FILE ":";
	char *end = NULL;
	unsigned long line;

	if (st != CR_ERR_INVALID_ARG || strncmp(err->message, prefix, strlen(prefix)) != 0 ||
	    strchr(err->message, '\n') != NULL)
		abort();
	line = strtoul(err->message + strlen(prefix), &end, 10);
	if (line < 1 || line > nlines || strncmp(end, ": ", 2) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = host();
	bool spawn = size > 0 && (data[0] & 1);
	size_t len = size > 0 ? size - 1 : 0;
	char *text = g_malloc(len + 1); /* NUL-terminated, as g_file_get_contents */
	size_t nlines = 1;
	cr_status st;

	if (len > 0)
		memcpy(text, data + 1, len);
	text[len] = '\0';
	for (size_t i = 0; i < len; i++)
		nlines += text[i] == '\n';
	st = script_text(th, FZ_FILE, text, len, spawn ? script_spawn : script_exchange, &err);
	if (st != CR_OK) {
		check_refusal(st, &err, nlines);
	} else {
		char **lines = g_strsplit(text, "\n", -1);
		unsigned want = blocks(lines);
		char count[64];

		g_strfreev(lines);
		if (memchr(text, '\0', len) != NULL)
			abort();
		if ((spawn ? th->spawns->len : th->script->len) != want)
			abort();
		st = cr_testhost_verify(th, &err);
		snprintf(count, sizeof(count), ": %u of %u expected %s", want, want,
			 spawn ? "spawns" : "requests");
		if (want == 0 ? st != CR_OK
			      : st != CR_ERR_NOT_FOUND || strstr(err.message, count) == NULL)
			abort();
	}
	g_free(text);
	return 0;
}
