/* SPDX-License-Identifier: MIT */
/*
 * fuzz-simple-hosts.c - libFuzzer target for the simple resolver's
 * hosts_file reader (plugins/resolvers/simple/simple-hosts.c), run through
 * cr-testhost on the plugin built with coverage (run-fuzz.sh): the input is
 * the file /hosts, read through the host's checked file reader as
 * `hosts_file = "/hosts"` asks. Properties:
 *   - the answer is a cluster or a refusal, never a decline;
 *   - an accepted file gives one task a line with content (text before a
 *     "#" that is not blank), each job dense in line order: every address
 *     has a non-empty host and, when it has a port, one in 1..65535;
 *   - that cluster written back as "JOB ADDRESS" lines is accepted and
 *     gives the same answer, byte for byte (the membership round trip);
 *   - a refusal is CR_ERR_PARSE (not two words, a NUL byte) or
 *     CR_ERR_INVALID_ARG (an address or job name the ClusterSpec refuses),
 *     one line naming the file: "/hosts:N: ..." with N a line the file has,
 *     or, for a NUL byte (which has no line), "hosts_file /hosts: has a NUL
 *     byte".
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <cluster-resolver/testhost.h>

#define FZ_FILE "/hosts"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cr_testhost *host(void)
{
	static cr_testhost *th;
	cr_error err = CR_ERROR_INIT;
	const char *plugin = getenv("CR_FUZZ_PLUGIN");

	if (th != NULL)
		return th;
	th = cr_testhost_new(&err);
	if (plugin == NULL || th == NULL ||
	    cr_testhost_load(th, plugin, "hosts_file = \"" FZ_FILE "\";", &err) != CR_OK)
		abort();
	cr_testhost_set_log_level(th, CR_LOG_WARNING);
	return th;
}

/* The lines of @data: its newlines, and one more for text after the last. */
static size_t fz_lines(const char *data, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n + (size > 0 && data[size - 1] != '\n');
}

/* The lines with content: something other than blanks before any "#". */
static size_t fz_tasks(const char *data, size_t size)
{
	size_t n = 0;
	bool content = false, comment = false;

	for (size_t i = 0; i < size; i++) {
		char c = data[i];

		if (c == '\n') {
			n += content;
			content = comment = false;
		} else if (c == '#') {
			comment = true;
		} else if (!comment && c != ' ' && c != '\t' && c != '\r') {
			content = true;
		}
	}
	return n + content;
}

/* HOST or HOST:PORT with a bracketed IPv6 HOST allowed: host not empty,
 * a port 1..65535 when there is one. */
static void fz_check_address(const char *a)
{
	const char *end = a[0] == '[' ? strchr(a, ']') : a + strcspn(a, ":");
	char *stop;
	long port;

	if (end == NULL || end == a || (a[0] == '[' && end == a + 1))
		abort();
	if (a[0] == '[')
		end++;
	if (*end == '\0')
		return;
	if (*end != ':' || end[1] < '0' || end[1] > '9')
		abort();
	port = strtol(end + 1, &stop, 10);
	if (*stop != '\0' || port < 1 || port > 65535)
		abort();
}

/* The cluster of an accepted answer, checked and written back as a hosts
 * file (returned, malloc'd). */
static char *fz_check_cluster(const char *out, size_t want_tasks)
{
	json_object *root = json_tokener_parse(out), *cluster = NULL;
	char *text = NULL;
	size_t len = 0, tasks = 0;
	FILE *f = open_memstream(&text, &len);

	if (root == NULL || f == NULL || !json_object_object_get_ex(root, "cluster", &cluster) ||
	    !json_object_is_type(cluster, json_type_object))
		abort();
	json_object_object_foreach(cluster, job, addrs)
	{
		if (!json_object_is_type(addrs, json_type_array) ||
		    json_object_array_length(addrs) == 0)
			abort();
		for (size_t i = 0; i < json_object_array_length(addrs); i++) {
			json_object *a = json_object_array_get_idx(addrs, i);

			if (!json_object_is_type(a, json_type_string))
				abort();
			fz_check_address(json_object_get_string(a));
			fprintf(f, "%s %s\n", job, json_object_get_string(a));
			tasks++;
		}
	}
	if (tasks != want_tasks)
		abort();
	fclose(f);
	json_object_put(root);
	return text;
}

/* A refusal: one line naming the file and a line it has (or its NUL). */
static void fz_check_error(cr_status st, const cr_error *err, const char *data, size_t size)
{
	const char *at = strstr(err->message, FZ_FILE ":");
	char *stop;
	long line;

	if (getenv("FZ_DEBUG") != NULL)
		fprintf(stderr, "status %d: %s\n", st, err->message);
	if ((st != CR_ERR_PARSE && st != CR_ERR_INVALID_ARG) || err->code != st ||
	    strchr(err->message, '\n') != NULL)
		abort();
	if (strstr(err->message, "hosts_file " FZ_FILE ": has a NUL byte") != NULL) {
		if (st != CR_ERR_PARSE || memchr(data, '\0', size) == NULL)
			abort();
		return;
	}
	if (at == NULL)
		abort();
	line = strtol(at + strlen(FZ_FILE ":"), &stop, 10);
	if (stop == at + strlen(FZ_FILE ":") || *stop != ':' || line < 1 ||
	    (size_t)line > fz_lines(data, size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = host();
	const char *out = NULL;
	char *first, *back;
	cr_status st;

	cr_testhost_clear_logs(th);
	if (cr_testhost_add_file(th, FZ_FILE, (const char *)data, size, &err) != CR_OK)
		abort();
	st = cr_testhost_resolve(th, "tf_config", &out, &err);
	if (st != CR_OK) {
		fz_check_error(st, &err, (const char *)data, size);
		return 0;
	}
	first = strdup(out);
	back = fz_check_cluster(first, fz_tasks((const char *)data, size));
	if (cr_testhost_add_file(th, FZ_FILE, back, (size_t)-1, &err) != CR_OK ||
	    cr_testhost_resolve(th, "tf_config", &out, &err) != CR_OK || strcmp(out, first) != 0)
		abort();
	free(back);
	free(first);
	return 0;
}
