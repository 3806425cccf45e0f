/* SPDX-License-Identifier: MIT */
/*
 * accel-cli.h - run `cluster-resolver accelerators` on a fake device root and
 * compare its output exactly. Shared by the nvidia and tpu plugin tests.
 */
#ifndef CR_TEST_ACCEL_CLI_H
#define CR_TEST_ACCEL_CLI_H

#include <glib.h>

/**
 * accel_case: one row of a table-driven accelerator test.
 * @name: test path suffix.
 * @config: libconfig text; @FIX@ is replaced by the fixture directory
 *     (tests/fixtures/accel), @NVML@ by the directory holding the fake
 *     NVML builds (good/ and nosym/), @BUILD@ by the build directory.
 * @env: NULL-terminated "NAME=value" strings added to a clean environment
 *     (the binding variables of the machine running the tests are removed).
 * @json: run `accelerators --json` instead of `accelerators`.
 * @exit_status: expected exit status.
 * @out: exact stdout (after placeholder expansion).
 * @err: exact stderr (after placeholder expansion); NULL means empty.
 */
typedef struct accel_case {
	const char *name;
	const char *config;
	const char *env[6];
	gboolean json;
	int exit_status;
	const char *out;
	const char *err;
} accel_case;

/** accel_expand: @text with the placeholders replaced. (transfer full) */
char *accel_expand(const char *text);

/** accel_case_run: the g_test body for one #accel_case (@data). */
void accel_case_run(gconstpointer data);

/** accel_cases_add: register @n cases under "/accel/@plugin/<name>". */
void accel_cases_add(const char *plugin, const accel_case *cases, gsize n);

#endif /* CR_TEST_ACCEL_CLI_H */
