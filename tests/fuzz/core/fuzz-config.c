/* SPDX-License-Identifier: MIT */
/*
 * fuzz-config.c - libFuzzer target for the config reader (core/host/config.c):
 * a libconfig file and its conf.d drop-ins read into a plan, as
 * config_parse_file does for cluster-resolver.conf. The input is the main
 * file, then the drop-ins, separated by lines "%%"; they are written to
 * DIR/cluster-resolver.conf and DIR/conf.d/NN.conf in a scratch directory
 * made once (removed at exit). Properties: an error is CR_ERR_CONFIG with
 * one line of message that starts with the file it names; an accepted plan
 * read every file in order (main file, then the drop-ins sorted, each one
 * followed by the files it @include's), each
 * entry has a plugin and a "FILE:LINE" naming one of those files, and its
 * task id is in range.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host-private.h"

#define SEPARATOR "\n%%\n"
#define MAX_DROPINS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dir, *main_file, *dropdir;

static void cleanup(void)
{
	for (int i = 0; i < MAX_DROPINS; i++) {
		char *f = g_strdup_printf("%s/%02d.conf", dropdir, i);

		unlink(f);
		g_free(f);
	}
	rmdir(dropdir);
	unlink(main_file);
	rmdir(dir);
}

static void setup(void)
{
	if (dir != NULL)
		return;
	/* in memory where there is a /dev/shm: files are written every run */
	dir = g_strdup(g_file_test("/dev/shm", G_FILE_TEST_IS_DIR) ? "/dev/shm/fuzz-config-XXXXXX"
								   : "/tmp/fuzz-config-XXXXXX");
	if (g_mkdtemp(dir) == NULL)
		abort();
	if (dir == NULL)
		abort();
	main_file = g_build_filename(dir, "cluster-resolver.conf", NULL);
	dropdir = g_build_filename(dir, "conf.d", NULL);
	atexit(cleanup);
}

/* Plain stdio: g_file_set_contents would fsync every run. */
static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fwrite(text, 1, len, f) != len || fclose(f) != 0)
		abort();
}

static void check_entries(const cr_plan *plan, const GPtrArray *entries)
{
	for (guint i = 0; i < entries->len; i++) {
		const plan_entry *e = g_ptr_array_index(entries, i);
		bool known = false;

		if (e->plugin == NULL || e->where == NULL || e->group == NULL)
			abort();
		for (guint f = 0; f < plan->files->len && !known; f++) {
			const char *file = g_ptr_array_index(plan->files, f);
			size_t n = strlen(file);

			known = strncmp(e->where, file, n) == 0 && e->where[n] == ':';
		}
		if (!known) {
			fprintf(stderr, "entry at %s\n", e->where);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = g_strndup((const char *)data, size);
	const char *p = text, *sep;
	int ndrop = 0;
	cr_plan *plan;
	cr_error err = CR_ERROR_INIT;
	cr_status st;

	setup();
	cleanup();
	if (g_mkdir_with_parents(dir, 0700) != 0)
		abort();
	sep = strstr(p, SEPARATOR);
	write_file(main_file, p, sep != NULL ? (size_t)(sep - p) : strlen(p));
	if (sep != NULL && mkdir(dropdir, 0700) != 0)
		abort();
	while (sep != NULL && ndrop < MAX_DROPINS) {
		char *f = g_strdup_printf("%s/%02d.conf", dropdir, ndrop++);
		const char *next;

		p = sep + strlen(SEPARATOR);
		next = strstr(p, SEPARATOR);
		write_file(f, p, next != NULL ? (size_t)(next - p) : strlen(p));
		g_free(f);
		sep = next;
	}

	plan = plan_new();
	st = config_parse_file(plan, main_file, &err);
	if (st != CR_OK) {
		/* Who wrote an @include may see its file named instead. */
		if (st != CR_ERR_CONFIG || strchr(err.message, '\n') != NULL ||
		    (strncmp(err.message, dir, strlen(dir)) != 0 &&
		     strstr(text, "@include") == NULL))
			abort();
	} else {
		/* the main file, then each drop-in in order, each followed by
		 * the files it @include's */
		guint at = 1;

		if (plan->files->len < (guint)ndrop + 1 ||
		    strcmp(g_ptr_array_index(plan->files, 0), main_file) != 0)
			abort();
		for (int i = 0; i < ndrop; i++, at++) {
			char *f = g_strdup_printf("%s/%02d.conf", dropdir, i);

			while (at < plan->files->len &&
			       strcmp(g_ptr_array_index(plan->files, at), f))
				at++;
			if (at == plan->files->len)
				abort();
			g_free(f);
		}
		check_entries(plan, plan->resolvers);
		check_entries(plan, plan->accelerators);
		/* an id alone is fine: the type may come from the command line */
		if (plan->task_id < -1 || plan->task_id > G_MAXINT32)
			abort();
	}
	plan_free(plan);
	g_free(text);
	return 0;
}
