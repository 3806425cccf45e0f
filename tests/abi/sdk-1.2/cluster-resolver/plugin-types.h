/* SPDX-License-Identifier: MIT */
/*
 * plugin-types.h - the values that cross the plugin boundary: opaque
 * handles, the config schema, devices, HTTP requests, JSON node types.
 * Part of the plugin SDK: include <cluster-resolver/plugin.h>, not this file.
 */
#ifndef CLUSTER_RESOLVER_PLUGIN_TYPES_H
#define CLUSTER_RESOLVER_PLUGIN_TYPES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/common.h>
#include <cluster-resolver/error.h>
#include <cluster-resolver/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Opaque handles. Plugins never see their layout.                           */

/** cr_plugin_ctx: the host's handle for one plugin instance (log prefix,
 *  injected environment, files). Passed to every op. Since: ABI 1.0 */
typedef struct cr_plugin_ctx cr_plugin_ctx;
/** cr_cfg: a read-only view of one libconfig setting. Since: ABI 1.0 */
typedef struct cr_cfg cr_cfg;
/** cr_result_builder: collects what a resolver found. Since: ABI 1.0 */
typedef struct cr_result_builder cr_result_builder;
/** cr_accel_list: collects what an accelerator plugin found. Since: ABI 1.0 */
typedef struct cr_accel_list cr_accel_list;
/** cr_text: a host-owned string sink (used by the master op). Since: ABI 1.0 */
typedef struct cr_text cr_text;
/** cr_json: a node of a parsed JSON document (read-only). Since: ABI 1.0 */
typedef struct cr_json cr_json;
/** cr_http_response: an HTTP answer made by the host. Since: ABI 1.0 */
typedef struct cr_http_response cr_http_response;
/** cr_spawn_result: what host->spawn collected (defined below). Since: ABI 1.1 */
typedef struct cr_spawn_result cr_spawn_result;

/* ------------------------------------------------------------------------ */
/* Configuration schema                                                      */

/**
 * cr_option_type:
 *
 * The type of a top-level key of a plugin's config group. The host checks
 * it before the plugin runs. %CR_OPT_GROUP and %CR_OPT_ANY values are walked
 * by the plugin with the cfg_* slots, which report file:line for nested
 * errors.
 *
 * Since: ABI 1.0
 */
typedef enum cr_option_type {
	CR_OPT_STRING = 1,      /* "text" */
	CR_OPT_INT = 2,         /* 42 or 42L */
	CR_OPT_BOOL = 3,        /* true / false */
	CR_OPT_FLOAT = 4,       /* 1.5 (an integer is accepted too) */
	CR_OPT_STRING_LIST = 5, /* [ "a", "b" ] or ( "a", "b" ) */
	CR_OPT_GROUP = 6,       /* { key = value; ... } */
	CR_OPT_ANY = 7,         /* any value; the plugin checks it */
} cr_option_type;

/** Option flags. Since: ABI 1.0 */
#define CR_OPT_REQUIRED (1u << 0)   /* the key must be present */
#define CR_OPT_SECRET (1u << 1)     /* never printed: shown as "(secret)" */
#define CR_OPT_DEPRECATED (1u << 2) /* accepted with a warning */
/** Range flags: the host refuses a value below @min / above @max of a
 *  %CR_OPT_INT or %CR_OPT_FLOAT option, naming FILE:LINE. Since: ABI 1.1 */
#define CR_OPT_MIN (1u << 3)
#define CR_OPT_MAX (1u << 4)
#define CR_OPT_RANGE (CR_OPT_MIN | CR_OPT_MAX)

/**
 * cr_option:
 * @name: key in the plugin's config group.
 * @type: expected type.
 * @default_value: (nullable) default as text ("8470", "true", "grpc").
 * @flags: CR_OPT_* bits.
 * @help: one line for `cluster-resolver plugins` and the docs.
 * @min, @max: bounds of a number, checked when @flags has %CR_OPT_MIN /
 *     %CR_OPT_MAX (Since: ABI 1.1; a 1.0 plugin's shorter entries have
 *     none, which the host knows from @option_size).
 *
 * One entry of a plugin's config schema. The array ends with an entry whose
 * @name is NULL. The host steps through the array with the descriptor's
 * @option_size, so fields may be appended in a later minor.
 *
 * Since: ABI 1.0
 */
typedef struct cr_option {
	const char *name;
	cr_option_type type;
	const char *default_value;
	uint32_t flags;
	const char *help;
	double min; /* Since: ABI 1.1 */
	double max; /* Since: ABI 1.1 */
} cr_option;

/** CR_OPTIONS_END: terminator of a #cr_option array. Since: ABI 1.0 */
#define CR_OPTIONS_END                                                                             \
	{                                                                                          \
		NULL, (cr_option_type)0, NULL, 0, NULL, 0, 0                                       \
	}

/**
 * CR_OPTION / CR_OPTION_RANGE:
 *
 * One #cr_option entry, without or with bounds:
 *
 *   CR_OPTION("namespace", CR_OPT_STRING, NULL, 0, "namespace to list"),
 *   CR_OPTION_RANGE("page_size", CR_OPT_INT, "500", 0, "pods per request", 1, 10000),
 *
 * Entries written as plain `{ name, type, default, flags, help }` still
 * compile (the bounds are zero and unused), but -Wextra warns about the
 * missing fields. Since: ABI 1.1
 */
#define CR_OPTION(name, type, default_value, flags, help)                                          \
	{                                                                                          \
		(name), (type), (default_value), (flags), (help), 0, 0                             \
	}
#define CR_OPTION_RANGE(name, type, default_value, flags, help, lo, hi)                            \
	{                                                                                          \
		(name), (type), (default_value), (flags) | CR_OPT_RANGE, (help), (lo), (hi)        \
	}

/**
 * cr_cfg_type: the type of a config value as libconfig parsed it.
 * Since: ABI 1.0
 */
typedef enum cr_cfg_type {
	CR_CFG_NONE = 0,
	CR_CFG_GROUP = 1,
	CR_CFG_INT = 2,
	CR_CFG_INT64 = 3,
	CR_CFG_FLOAT = 4,
	CR_CFG_STRING = 5,
	CR_CFG_BOOL = 6,
	CR_CFG_ARRAY = 7, /* [ ... ] scalars of one type */
	CR_CFG_LIST = 8,  /* ( ... ) any values */
} cr_cfg_type;

/* ------------------------------------------------------------------------ */
/* Values a plugin hands to the host (copied by the host)                    */

/**
 * cr_accel_device:
 * @struct_size: sizeof(cr_accel_device); use CR_ACCEL_DEVICE_INIT.
 * @kind: device type as frameworks count it: "GPU" or "TPU".
 * @vendor: (nullable) "nvidia", "google", ...
 * @model: (nullable) "NVIDIA A100-SXM4-40GB", "v4", ...
 * @index: index as the process will see it after masking (0-based), or -1.
 * @physical_index: index on the host before masking, or -1.
 * @uuid: (nullable) "GPU-…", "MIG-…".
 * @memory_bytes: device memory, 0 when unknown.
 * @pci_bus_id: (nullable) "0000:3b:00.0".
 * @visible_by: (nullable) the binding variable that made it visible,
 *              e.g. "CUDA_VISIBLE_DEVICES"; NULL when nothing masked.
 * @parent_index: physical index of the parent GPU of a MIG instance, or -1.
 * @task_job, @task_index: (nullable) the task the device belongs to, when
 *     an accelerator plugin sees devices of several tasks (a TPU slice, a
 *     node shared by tasks); NULL and -1 (the default) = this process's
 *     task. The accelerator layer counts, for a task, only its own devices
 *     and the unassigned ones. Since: ABI 1.1
 *
 * One local accelerator. Copied by host->accel_add(); the host reads only
 * the fields @struct_size covers, so a 1.0 plugin's devices are unassigned.
 *
 * Since: ABI 1.0
 */
typedef struct cr_accel_device {
	size_t struct_size;
	const char *kind;
	const char *vendor;
	const char *model;
	int32_t index;
	int32_t physical_index;
	const char *uuid;
	uint64_t memory_bytes;
	const char *pci_bus_id;
	const char *visible_by;
	int32_t parent_index;
	const char *task_job; /* Since: ABI 1.1 */
	int64_t task_index;   /* Since: ABI 1.1 */
} cr_accel_device;

/** CR_ACCEL_DEVICE_INIT: initialiser with sizes and "unknown" values. */
#define CR_ACCEL_DEVICE_INIT                                                                       \
	{                                                                                          \
		sizeof(cr_accel_device), NULL, NULL, NULL, -1, -1, NULL, 0, NULL, NULL, -1, NULL,  \
			-1                                                                         \
	}

/**
 * cr_http_request:
 * @struct_size: sizeof(cr_http_request); use CR_HTTP_REQUEST_INIT.
 * @method: "GET", "POST", "PUT", ...
 * @url: absolute http:// or https:// URL.
 * @headers: (nullable) NULL-terminated "Name: value" lines. Never logged.
 * @body: (nullable) request body; @body_len bytes.
 * @timeout_ms: whole-request deadline, 0 = host default (30 s).
 * @connect_timeout_ms: connect deadline, 0 = host default (5 s).
 * @ca_file, @ca_pem: (nullable) trust anchors as a path or PEM text;
 *                    neither = the system store.
 * @cert_file, @cert_pem, @key_file, @key_pem: (nullable) client certificate
 *                    and key, as paths or PEM text.
 * @insecure: skip TLS verification (only when a user's config says so).
 * @max_body: refuse larger answers (0 = host default, 256 MiB): one that
 *     announces a larger Content-Length with its first bytes, one that
 *     does not as soon as it has sent more (an answer to HEAD, which has
 *     no body, is never refused).
 * @flags: reserved, must be 0.
 *
 * An HTTP request made by the host over libcurl. All strings are borrowed.
 * The host never logs header values or bodies (they may carry tokens).
 *
 * Since: ABI 1.0
 */
typedef struct cr_http_request {
	size_t struct_size;
	const char *method;
	const char *url;
	const char *const *headers;
	const char *body;
	size_t body_len;
	long timeout_ms;
	long connect_timeout_ms;
	const char *ca_file;
	const char *ca_pem;
	const char *cert_file;
	const char *cert_pem;
	const char *key_file;
	const char *key_pem;
	bool insecure;
	size_t max_body;
	uint32_t flags;
} cr_http_request;

/** CR_HTTP_REQUEST_INIT: zeroed request with @struct_size set. */
#define CR_HTTP_REQUEST_INIT                                                                       \
	{                                                                                          \
		sizeof(cr_http_request), "GET", NULL, NULL, NULL, 0, 0, 0, NULL, NULL, NULL, NULL, \
			NULL, NULL, false, 0, 0                                                    \
	}

/** cr_json_type: type of a JSON node. Since: ABI 1.0 */
typedef enum cr_json_type {
	CR_JSON_NULL = 0,
	CR_JSON_BOOL = 1,
	CR_JSON_NUMBER = 2,
	CR_JSON_STRING = 3,
	CR_JSON_ARRAY = 4,
	CR_JSON_OBJECT = 5,
} cr_json_type;

/**
 * cr_json_each_fn: callback for host->json_each over an object's members
 * in document order. Return false to stop. Since: ABI 1.0
 */
typedef bool (*cr_json_each_fn)(const char *key, const cr_json *value, void *user_data);

/**
 * cr_http_data_fn: callback for host->http_stream: the next @len bytes of
 * the answer's body as they arrive (@data is not NUL-terminated and is
 * valid during the call only). Return false to end the request. Since: ABI 1.2
 */
typedef bool (*cr_http_data_fn)(const char *data, size_t len, void *user_data);

/**
 * cr_spawn_result:
 * @struct_size: sizeof(cr_spawn_result) as the host made it; fields are only
 *     appended.
 * @exit_status: the exit code when the child exited, 128+N when signal N
 *     ended it.
 * @term_signal: the signal that ended it, or 0.
 * @out, @out_len: what it wrote to stdout, NUL-terminated.
 * @err, @err_len: what it wrote to stderr, NUL-terminated.
 *
 * What host->spawn collected; over the output cap, at most the cap of each. Host-owned and read-only; free it with
 * host->spawn_result_free.
 *
 * Since: ABI 1.1
 */
struct cr_spawn_result {
	size_t struct_size;
	int exit_status;
	int term_signal;
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
};

/* cr_supervise_phase and cr_supervise_event live in common.h: the
 * application API passes them too (cr_context_supervise). */

#ifdef __cplusplus
}
#endif

#endif /* CLUSTER_RESOLVER_PLUGIN_TYPES_H */
