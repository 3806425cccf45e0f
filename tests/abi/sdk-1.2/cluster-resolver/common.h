/* SPDX-License-Identifier: MIT */
/*
 * common.h - what the application API and the plugin SDK share: the export
 * marker, log levels, the hostlist callback type, the supervise event, and
 * the frees of the library. Includes only system headers and error.h.
 */
#ifndef CLUSTER_RESOLVER_COMMON_H
#define CLUSTER_RESOLVER_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * CR_API:
 *
 * Marks a function exported by libcluster-resolver (or libcr-testhost).
 * The libraries are built with hidden default visibility, so a function
 * without it stays private. Plugins never link the libraries and never need
 * it. Since: ABI 1.1
 */
#if defined(__GNUC__)
#define CR_API __attribute__((visibility("default")))
#else
#define CR_API
#endif

/** Log levels of a context's handler and of host->log. Since: ABI 1.0 */
typedef enum cr_log_level {
	CR_LOG_ERROR = 0,
	CR_LOG_WARNING = 1,
	CR_LOG_INFO = 2,
	CR_LOG_DEBUG = 3,
} cr_log_level;

/**
 * cr_hostlist_fn:
 * @name: one name, NUL-terminated; (transfer none) valid during the call only.
 * @len: strlen(@name).
 * @user_data: what was given to cr_hostlist_foreach() or host->hostlist_foreach.
 * Returns: 0 for the next name; anything else stops the walk.
 * Since: ABI 1.0
 */
typedef int (*cr_hostlist_fn)(const char *name, size_t len, void *user_data);

/**
 * cr_supervise_phase: when cr_resolver_ops.supervise is called.
 * Since: ABI 1.1
 */
typedef enum cr_supervise_phase {
	CR_SUPERVISE_STARTED = 1, /* the program has just been started */
	CR_SUPERVISE_RUNNING = 2, /* a periodic check while it runs */
	CR_SUPERVISE_EXITED = 3,  /* it has ended; @exit_status is set */
} cr_supervise_phase;

/**
 * cr_supervise_event:
 * @struct_size: sizeof(cr_supervise_event) as the host made it.
 * @phase: see #cr_supervise_phase.
 * @pid: the program's process id (also its process group).
 * @exit_status: with %CR_SUPERVISE_EXITED, the exit code, or 128+N when
 *     signal N ended it; else -1.
 * @elapsed_ms: time since the program started.
 *
 * What `exec --supervise` tells a resolver. Since: ABI 1.1
 */
typedef struct cr_supervise_event {
	size_t struct_size;
	cr_supervise_phase phase;
	int64_t pid;
	int exit_status;
	int64_t elapsed_ms;
} cr_supervise_event;

/** Free memory returned by the library. NULL is a no-op. Since: ABI 1.0 */
CR_API void cr_free(void *ptr);

/** Free a NULL-terminated string vector from the library. NULL is a no-op.
 *  Since: ABI 1.0 */
CR_API void cr_strv_free(char **strv);

#ifdef __cplusplus
}
#endif

#endif /* CLUSTER_RESOLVER_COMMON_H */
