/* SPDX-License-Identifier: MIT */
/*
 * spec.h - the ClusterSpec value type: jobs -> task index -> "host:port".
 *
 * Follows TensorFlow's tf.train.ClusterSpec (see docs/ and the reference
 * notes), with its known bugs fixed: jobs keep insertion order, an empty job
 * is an empty list, negative indices are refused when the spec is built, and
 * job_tasks of an empty job is empty rather than an error.
 *
 * Memory: the library uses GLib, which aborts the process when memory runs
 * out; no call here reports CR_ERR_NOMEM. Everything else is reported.
 *
 * Threads: a spec may be read (every call that takes a const cr_spec) from
 * several threads at once. A spec being changed must not be used by any
 * other thread meanwhile.
 */
#ifndef CLUSTER_RESOLVER_SPEC_H
#define CLUSTER_RESOLVER_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/common.h>
#include <cluster-resolver/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** cr_spec: an ordered set of jobs, each a map from index to address.
 *  Since: ABI 1.0 */
typedef struct cr_spec cr_spec;

/** Make an empty spec. (transfer full): free with cr_spec_free(). Since: ABI 1.0 */
CR_API cr_spec *cr_spec_new(void);

/** Free @spec. NULL is a no-op. Since: ABI 1.0 */
CR_API void cr_spec_free(cr_spec *spec);

/** Deep copy. (transfer full). Since: ABI 1.0 */
CR_API cr_spec *cr_spec_copy(const cr_spec *spec);

/**
 * cr_spec_add_job:
 * Declare @job (any string, "" included); no-op if it exists. Jobs keep the
 * order in which they were first added.
 * Returns: CR_OK, CR_ERR_INVALID_ARG (NULL). Since: ABI 1.0
 */
CR_API cr_status cr_spec_add_job(cr_spec *spec, const char *job, cr_error *err);

/**
 * cr_spec_add_task:
 * Add @address (borrowed, copied) at @index of @job, creating the job.
 * @address is HOST or HOST:PORT: HOST a name or IPv4 address (letters,
 * digits, '-', '.', '_') or a bracketed IPv6 address, PORT 1..65535; checked
 * since release 1.1.0, so that no output format can carry an injected line,
 * field or shell word.
 * Returns: CR_OK; CR_ERR_INVALID_ARG for a negative or over-int32 index, an
 * address that is not of that form, or NULL; CR_ERR_CONFLICT when the index
 * is already taken. Since: ABI 1.0
 */
CR_API cr_status cr_spec_add_task(cr_spec *spec, const char *job, int64_t index,
				  const char *address, cr_error *err);

/**
 * cr_spec_append_task:
 * Add @address at index max+1 of @job (0 for a new or empty job); @address
 * as for cr_spec_add_task().
 * Returns: CR_OK, CR_ERR_INVALID_ARG. Since: ABI 1.0
 */
CR_API cr_status cr_spec_append_task(cr_spec *spec, const char *job, const char *address,
				     cr_error *err);

/** Number of jobs. Since: ABI 1.0 */
CR_API size_t cr_spec_num_jobs(const cr_spec *spec);

/** Name of job @i in insertion order, or NULL. (transfer none) Since: ABI 1.0 */
CR_API const char *cr_spec_job_name(const cr_spec *spec, size_t i);

/** Whether @job exists. Since: ABI 1.0 */
CR_API bool cr_spec_has_job(const cr_spec *spec, const char *job);

/**
 * cr_spec_num_tasks:
 * Number of defined tasks of @job (holes not counted).
 * Returns: CR_OK, CR_ERR_NOT_FOUND "No such job in cluster: 'x'". Since: ABI 1.0
 */
CR_API cr_status cr_spec_num_tasks(const cr_spec *spec, const char *job, size_t *count,
				   cr_error *err);

/**
 * cr_spec_task_indices:
 * Ascending defined indices of @job. (out) (transfer none) *@indices stays
 * valid until @spec is changed or freed.
 * Returns: CR_OK, CR_ERR_NOT_FOUND. Since: ABI 1.0
 */
CR_API cr_status cr_spec_task_indices(const cr_spec *spec, const char *job, const int32_t **indices,
				      size_t *count, cr_error *err);

/**
 * cr_spec_task_address:
 * Address of task @index of @job. (out) (transfer none).
 * Returns: CR_OK; CR_ERR_NOT_FOUND "No such job in cluster: 'x'" or
 * "No task with index 5 in job 'worker'". Since: ABI 1.0
 */
CR_API cr_status cr_spec_task_address(const cr_spec *spec, const char *job, int64_t index,
				      const char **address, cr_error *err);

/**
 * cr_spec_job_tasks:
 * Slots 0..max(index) of @job; holes are NULL; an empty job gives 0 slots.
 * (out) (transfer none) *@slots valid until @spec changes.
 * Returns: CR_OK, CR_ERR_NOT_FOUND. Since: ABI 1.0
 */
CR_API cr_status cr_spec_job_tasks(const cr_spec *spec, const char *job, const char *const **slots,
				   size_t *count, cr_error *err);

/** Whether @job's indices are exactly 0..n-1 (an empty job is dense).
 *  Since: ABI 1.0 */
CR_API bool cr_spec_job_is_dense(const cr_spec *spec, const char *job);

/** TensorFlow equality: same jobs and index->address maps; job order and
 *  dense/sparse form do not matter. Since: ABI 1.0 */
CR_API bool cr_spec_equal(const cr_spec *a, const cr_spec *b);

/**
 * cr_spec_set_job_size:
 * Declare that @job has @size tasks, indices 0..@size-1, whether or not
 * their addresses are known: what a launcher that tells a task only its
 * coordinator's address gives (torchrun, Kubeflow, JAX: "4 tasks, task 0
 * at ADDR"). A task of the job below its size with no address is a task
 * whose address is unknown; a task added later at a higher index grows
 * the size. Creates the job.
 * Returns: CR_OK; CR_ERR_INVALID_ARG (@size outside 1..2147483648, NULL);
 * CR_ERR_CONFLICT (the job already has a task at an index >= @size).
 * Since: ABI 1.3
 */
CR_API cr_status cr_spec_set_job_size(cr_spec *spec, const char *job, int64_t size, cr_error *err);

/**
 * cr_spec_job_size:
 * Number of tasks of @job: its declared size (cr_spec_set_job_size) or
 * one more than its highest index, whichever is larger; without a declared
 * size, its defined tasks (as cr_spec_num_tasks: a sparse job's holes are
 * no tasks).
 * Returns: CR_OK, CR_ERR_NOT_FOUND "No such job in cluster: 'x'".
 * Since: ABI 1.3
 */
CR_API cr_status cr_spec_job_size(const cr_spec *spec, const char *job, size_t *size,
				  cr_error *err);

/**
 * cr_spec_task_known:
 * Whether task @index of @job has an address (*@known true) or is a task
 * of a declared size whose address is unknown (false).
 * Returns: CR_OK; CR_ERR_NOT_FOUND (no such job, or @index is no task of
 * it). Since: ABI 1.3
 */
CR_API cr_status cr_spec_task_known(const cr_spec *spec, const char *job, int64_t index,
				    bool *known, cr_error *err);

/** Number of tasks of @job whose address is unknown (0 for no such job);
 *  with @job NULL, of every job. Since: ABI 1.3 */
CR_API size_t cr_spec_num_unknown(const cr_spec *spec, const char *job);

/**
 * cr_spec_to_json:
 * TensorFlow's as_dict() as JSON: jobs in insertion order, a dense job a
 * list, a sparse job an object with ascending decimal keys, an empty job [].
 * A job of a declared size (cr_spec_set_job_size) is a list of that size
 * with null where the address is unknown (since ABI 1.3; TensorFlow and
 * cr_spec_from_json() read no null).
 * (transfer full): free with cr_free(). Since: ABI 1.0
 */
CR_API char *cr_spec_to_json(const cr_spec *spec);

/**
 * cr_spec_from_json:
 * Parse an as_dict JSON object ({"job": ["a", ...] | {"3": "a"}}).
 * @what names the source in messages (a variable, an option, a file).
 * (transfer full) Returns: NULL with CR_ERR_PARSE (where the JSON breaks) or
 * CR_ERR_INVALID_ARG (wrong shape, quoting the job). Since: ABI 1.0
 */
CR_API cr_spec *cr_spec_from_json(const char *json, size_t len, const char *what, cr_error *err);

/**
 * cr_spec_to_clusterdef:
 * Encode as a tensorflow.ClusterDef protobuf: jobs sorted by name (bytes),
 * tasks by index. (out) (transfer full) *@buf: free with cr_free().
 * Returns: CR_OK. Since: ABI 1.0
 */
CR_API cr_status cr_spec_to_clusterdef(const cr_spec *spec, uint8_t **buf, size_t *len,
				       cr_error *err);

#ifdef __cplusplus
}
#endif

#endif /* CLUSTER_RESOLVER_SPEC_H */
