/* SPDX-License-Identifier: MIT */
/*
 * thc.h - table-driven plugin unit tests through cr-testhost: each case
 * gives the plugin's config group, its environment and an operation written
 * like the CLI's arguments, and the exact output, message, status and
 * captured warnings.
 */
#ifndef THC_H
#define THC_H

#include <glib.h>

#include <cluster-resolver/testhost.h>

/**
 * thc_case:
 * @name: test path suffix.
 * @config: the plugin's group as libconfig text (line 1 is line 1).
 * @env: "NAME=value" to set, "NAME" to hide; the rest of the environment is
 *     empty.
 * @root: (nullable) file root (a fixture tree), else the empty private one.
 * @args: the operation as CLI words: "resolve" [--format F] (tf_config
 *     by default, as in the CLI), "master", "accelerators" [--json]
 *     (without --json: the counts of enumerate's answer, as the CLI prints
 *     them), "probe" or "enumerate", with --task-type T, --task-id N,
 *     --rpc-layer R (also as --opt=value).
 * @out: exact output; "" when the call fails (and for probe).
 * @err: exact message of the call ("" on success).
 * @status: the call's status.
 * @logs: exact captured lines at warning level and above (NULL = none).
 * @process_env: "NAME=value" set in the test process itself for the case:
 *     a vendor library the plugin dlopens (the fake NVML) reads the real
 *     environment, which the plugin's host->getenv never shows.
 *
 * Strings may use @PLUGIN@ (the plugin's path), @SRC@ (the source tree),
 * @FIX@ (tests/fixtures/accel), @BUILD@ (the build tree) and @NVML@
 * ($FAKE_NVML_DIR).
 */
typedef struct thc_case {
	const char *name;
	const char *config;
	const char *env[10];
	const char *root;
	const char *args[8];
	const char *out;
	const char *err;
	cr_status status;
	const char *logs;
	const char *process_env[2];
} thc_case;

/* Register each case of @cases (ended by a NULL name) as /PREFIX/NAME,
 * run against the plugin $CR_PLUGIN_BUILD_DIR/@plugin. */
void thc_add_cases(const char *prefix, const char *plugin, const thc_case *cases);

#endif /* THC_H */
