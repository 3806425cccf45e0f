/* SPDX-License-Identifier: MIT */
/*
 * values-private.h - the value layer of the core: errors, JSON, the
 * ClusterSpec codec. Depends on nothing above it.
 * Never installed; plugins never include it.
 */
#ifndef CR_VALUES_PRIVATE_H
#define CR_VALUES_PRIVATE_H

#include <stdarg.h>

#include <glib.h>
#include <json-c/json.h>

#include <cluster-resolver/cluster-resolver.h>
#include <cluster-resolver/hostlist.h>
#include <cluster-resolver/plugin.h>

/* ---- errors (error.c) ---------------------------------------------------- */
cr_status error_set(cr_error *err, cr_status code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
cr_status error_setv(cr_error *err, cr_status code, const char *fmt, va_list ap)
	G_GNUC_PRINTF(3, 0);
/* Sort callback for GPtrArray of strings (g_ptr_array_sort). */
gint str_ptr_cmp(gconstpointer a, gconstpointer b);
/* Prepend text to the message already in @err (nullable). The caller
 * returns its own status: with no @err there is none to read back. */
void error_prefix(cr_error *err, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* ---- task addresses (spec-address.c) ------------------------------------ */

/* The longest job name or task type a spec takes, in bytes: TensorFlow's
 * are short words ("worker", "chief"), a Kubernetes label value is at most
 * 63 and a DNS name 253; 1 KiB keeps every such name (and the hostile
 * suite's 600-byte task type) and keeps a 100,000-character one (a
 * hosts_file line) out of TF_CONFIG. */
#define SPEC_NAME_MAX 1024

/* Why @address cannot be a task's address (HOST[:PORT], see cr_spec_add_task),
 * or NULL when it can. */
const char *spec_address_problem(const char *address);
/* CR_ERR_INVALID_ARG: "job 'J': address "A" has WHY", the address escaped. */
cr_status spec_address_error(cr_error *err, const char *job, const char *address, const char *why);
/* CR_ERR_INVALID_ARG: "WHAT "NAME" is not valid UTF-8" or "... has a control
 * character", the name escaped; CR_OK when @name is clean. */
cr_status spec_check_name(cr_error *err, const char *what, const char *name);

/* ---- JSON (json.c, spec-codec.c) ----------------------------------------- */
cr_status json_parse_text(const char *text, size_t len, const char *what, json_object **out,
			  cr_error *err);
void jw_string(GString *out, const char *s);
/* @n strings as JSON strings, ", " between them. */
void jw_string_list(GString *out, const char *const *strs, size_t n);
/* Room in @out for @n more bytes (and the NUL) without another realloc. */
void jw_reserve(GString *out, size_t n);
void spec_write_json(GString *out, const cr_spec *spec);
/* TensorFlow's as_dict walk (the one copy): add @cluster's jobs and tasks to
 * @spec. CR_ERR_PARSE for a wrong shape, CR_ERR_INVALID_ARG for an index that
 * is not a canonical decimal in 0..2147483647, CR_ERR_CONFLICT for an index
 * @spec already holds. On an error part of @cluster may have been added. */
cr_status spec_add_json(cr_spec *spec, json_object *cluster, const char *what, cr_error *err);
/* spec_add_json into a new spec; *@out NULL on an error. */
cr_status spec_from_json_object(json_object *cluster, const char *what, cr_spec **out,
				cr_error *err);
/* The @job_i-th job's tasks as parallel arrays, indices ascending, valid
 * until @spec changes; returns their number. @text_len (nullable): the
 * addresses' lengths, summed. */
/* Declared job sizes (spec-size.c): job name -> GSIZE_TO_POINTER(size);
 * spec_sizes() is NULL when none was declared, spec_sizes_make() creates it. */
GHashTable *spec_sizes(const cr_spec *spec);
GHashTable *spec_sizes_make(cr_spec *spec);
size_t spec_job_arrays(const cr_spec *spec, size_t job_i, const int32_t **indices,
		       const char *const **addrs, size_t *text_len);
/* Move the tasks of @job from @src into @job of @dst (added at the end when
 * missing), each index raised by @offset; the addresses change owner, not
 * place, and @src's job is left empty. CR_ERR_INVALID_ARG past int32,
 * CR_ERR_CONFLICT when an index is taken (then nothing moves). */
cr_status spec_take_tasks(cr_spec *dst, cr_spec *src, const char *job, int64_t offset,
			  cr_error *err);

/* ---- names and counts (names.c) ------------------------------------------ */
/* "resolver" or "accelerator". */
const char *kind_name(cr_plugin_kind kind);
/* Whether @name is a shell variable name, [A-Za-z_][A-Za-z0-9_]* (the
 * formats' variables, and the names of passed descriptors). */
bool env_name_valid(const char *name);
/* Accelerator counts, kind -> int64_t: the config's num_accelerators, and
 * the tables the pipeline keeps per task. */
GHashTable *accel_counts_new(void);
void accel_counts_put(GHashTable *counts, const char *kind, int64_t n);
/* The kinds of @counts (nullable: none), in order; (transfer container),
 * the kinds borrowed from @counts. */
GPtrArray *accel_counts_kinds(GHashTable *counts);

/* ---- JSON for plugins (json.c) ------------------------------------------- */
cr_status host_json_parse(const char *text, size_t len, const char *what, cr_json **root,
			  cr_error *err);
void host_json_free(cr_json *root);
const cr_json *host_json_get(const cr_json *node, const char *pointer);
cr_json_type host_json_type(const cr_json *node);
const char *host_json_string(const cr_json *node);
bool host_json_int(const cr_json *node, int64_t *out);
bool host_json_double(const cr_json *node, double *out);
bool host_json_bool(const cr_json *node, bool *out);
size_t host_json_length(const cr_json *node);
const cr_json *host_json_index(const cr_json *node, size_t i);
void host_json_each(const cr_json *node, cr_json_each_fn fn, void *user_data);

#endif /* CR_VALUES_PRIVATE_H */
