/* SPDX-License-Identifier: MIT */
/*
 * error.h - status codes and the caller-owned error record.
 *
 * Shared by the application API and the plugin SDK. This header includes only
 * system headers. Status values have explicit numbers and are never renumbered
 * or reused; new values are only ever appended.
 */
#ifndef CLUSTER_RESOLVER_ERROR_H
#define CLUSTER_RESOLVER_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cr_status:
 *
 * The one status enum of the project. %CR_OK is 0; everything else is a
 * reason. %CR_DECLINED is not an error: a backend that does not apply to this
 * environment says so with it (Linux-PAM's PAM_IGNORE, libvirt's DECLINED).
 *
 * Since: ABI 1.0
 */
typedef enum cr_status {
	CR_OK = 0,              /* success */
	CR_DECLINED = 1,        /* "this backend does not apply here" */
	CR_ERR_INVALID_ARG = 2, /* a caller passed a bad value */
	CR_ERR_CONFIG = 3,      /* configuration file or option error */
	CR_ERR_UNSUPPORTED = 4, /* operation not provided by this plugin/host */
	CR_ERR_ABI = 5,         /* plugin and host ABI versions do not match */
	CR_ERR_NOT_FOUND = 6,   /* job, task, file, plugin or key not found */
	CR_ERR_IO = 7,          /* reading a file or running a program failed */
	CR_ERR_NETWORK = 8,     /* could not talk to an endpoint */
	CR_ERR_TIMEOUT = 9,     /* a deadline passed */
	CR_ERR_AUTH = 10,       /* credentials missing or refused */
	CR_ERR_PARSE = 11,      /* malformed input (JSON, hostlist, ...) */
	CR_ERR_CONFLICT = 12,   /* duplicate task index, contradictory input */
	CR_ERR_BACKEND = 13,    /* the backend is in a state we cannot use */
	CR_ERR_NOMEM = 14,      /* out of memory where it can be reported */
	CR_ERR_INTERNAL = 15,   /* a bug in cluster-resolver */
	CR_ERR_PLUGIN = 16,     /* a plugin could not be loaded or misbehaved */
} cr_status;

/** CR_ERROR_MSG_MAX: size of the message buffer of #cr_error, NUL included. */
#define CR_ERROR_MSG_MAX 512

/**
 * cr_error:
 * @struct_size: sizeof(cr_error) as the caller compiled it; set by
 *               CR_ERROR_INIT or cr_error_init().
 * @code: the status of the last failure recorded here.
 * @message: one line naming the source (file:line, plugin, endpoint) and
 *           quoting the offending value. Never contains secrets.
 *
 * A caller-owned error record with a fixed buffer: nothing is allocated, so
 * there is nothing to free. Every fallible call accepts a nullable pointer
 * to one. There is no global "last error".
 *
 * Since: ABI 1.0
 */
typedef struct cr_error {
	size_t struct_size;
	cr_status code;
	char message[CR_ERROR_MSG_MAX];
} cr_error;

/** CR_ERROR_INIT: static initialiser for a #cr_error. Since: ABI 1.0 */
#define CR_ERROR_INIT                                                                              \
	{                                                                                          \
		sizeof(cr_error), CR_OK,                                                           \
		{                                                                                  \
			0                                                                          \
		}                                                                                  \
	}

#ifdef __cplusplus
}
#endif

#endif /* CLUSTER_RESOLVER_ERROR_H */
