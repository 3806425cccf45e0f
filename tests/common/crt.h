/* SPDX-License-Identifier: MIT */
/*
 * crt.h - shared helpers of the g_test programs: running the built CLI with
 * a config file and an environment, substituting paths into expected
 * output, and comparing stdout, stderr and the exit code exactly.
 */
#ifndef CRT_H
#define CRT_H

#include <glib.h>

/* One CLI golden case. Expected strings may use @CONF@ (the config file
 * written from @config), @DIR@ (the per-program temp dir), @PLUGINS@ (the
 * build plugin dir), @SRC@ (the source tree), @BUILD@ (the build tree) and
 * @TESTPLUG@ ($CR_TEST_PLUGIN_DIR, a test's own plugins). */
typedef struct crt_cli_case {
	const char *name;
	const char *config;   /* written to @DIR@/NAME.conf; NULL: no --config */
	const char *env[6];   /* "NAME=value" to set, "NAME" to unset */
	const char *args[12]; /* after the program (and --config FILE) */
	const char *out;      /* exact stdout */
	const char *err;      /* exact stderr */
	int rc;
} crt_cli_case;

/* The per-program temporary directory (created on first use, mode 0700). */
const char *crt_tmpdir(void);
/* Replace the @...@ placeholders; (transfer full). */
char *crt_subst(const char *text, const char *conf);
/* Write @text to @path (placeholders substituted). */
void crt_write_file(const char *path, const char *text);
/* Run argv (argv[0] "$CR_CLI" means the built CLI) with @env changes.
 * Returns the exit code; *out / *err are (transfer full). */
int crt_run(const char *const *argv, const char *const *env, char **out, char **err);
/* Register every case of @cases (terminated by a NULL name) as
 * /PREFIX/NAME, each checked with crt_check_cli(). */
void crt_add_cli_cases(const char *prefix, const crt_cli_case *cases);
void crt_check_cli(gconstpointer data);

#endif /* CRT_H */
