/* SPDX-License-Identifier: MIT */
/*
 * cluster-resolver.h - the application API of libcluster-resolver.
 *
 *   cr_context *ctx = cr_context_new(&err);
 *   cr_context_load_config(ctx, NULL, &err);       // default file or `auto`
 *   cr_context_resolve(ctx, &res, &err);
 *   cr_result_format(res, "tf_config", NULL, &text, &len, &err);
 *
 * Conventions: every fallible call takes a nullable caller-owned #cr_error.
 * Strings returned as (transfer full) are freed with cr_free(); objects with
 * their cr_*_free(), where NULL is a no-op. The library never exits, aborts
 * on bad input or writes to stdout; diagnostics go to the log handler
 * (stderr by default). Memory exhaustion aborts (GLib's policy).
 * A context is not thread-safe; use one per thread.
 */
#ifndef CLUSTER_RESOLVER_H
#define CLUSTER_RESOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/common.h>
#include <cluster-resolver/error.h>
#include <cluster-resolver/spec.h>
#include <cluster-resolver/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** cr_context: configuration, loaded plugins and identity overrides. */
typedef struct cr_context cr_context;
/** cr_result: one resolution (cluster, identity, accelerators). */
typedef struct cr_result cr_result;

/** Static text for a status. Since: ABI 1.0 */
CR_API const char *cr_strerror(cr_status code);

/** Library version, e.g. "1.0.0". Since: ABI 1.0 */
CR_API const char *cr_version(void);

/**
 * cr_text_escape:
 * @text: a message that may quote a server, a plugin, a file or an argument.
 *
 * The text made safe for a terminal or a log line: every control character
 * (C0, DEL, C1) and every byte that is not part of valid UTF-8 is written as
 * \xNN, so no escape sequence reaches the terminal. Used for every
 * diagnostic the library and the CLI print.
 * Returns: (transfer full) the escaped text, free with cr_free(); NULL for
 * NULL. Since: ABI 1.1
 */
CR_API char *cr_text_escape(const char *text);

/**
 * cr_log_fn:
 * @level: severity.
 * @source: (nullable) "resolver 'k8s'", "config", ...
 * @message: one line, no newline, no secrets.
 *
 * Log handler. The default writes "cluster-resolver: SOURCE: MESSAGE" to
 * stderr for levels up to the context's level (CR_LOG_WARNING by default).
 * Since: ABI 1.0
 */
typedef void (*cr_log_fn)(cr_log_level level, const char *source, const char *message,
			  void *user_data);

/** Make a context with no config loaded. (transfer full). Since: ABI 1.0 */
CR_API cr_context *cr_context_new(cr_error *err);

/** Free @ctx, destroying plugin states and unloading plugins. Since: ABI 1.0 */
CR_API void cr_context_free(cr_context *ctx);

/** Replace the log handler (NULL restores the default). A result keeps the
 *  handler and level its context had when it resolved: cr_result_format()
 *  and cr_result_env_vars() warn through it (torchrun given two tasks on a
 *  host, a DeepSpeed hostfile without GPU counts), so @user_data must
 *  outlive the results as well. Since: ABI 1.0 */
CR_API void cr_context_set_log_handler(cr_context *ctx, cr_log_fn fn, void *user_data);

/** Most verbose level passed to the handler. Since: ABI 1.0 */
CR_API void cr_context_set_log_level(cr_context *ctx, cr_log_level level);

/**
 * cr_context_add_plugin_dir:
 * Search @dir for plugins before the config's plugin_path, the
 * CLUSTER_RESOLVER_PLUGIN_PATH directories and the built-in directory.
 * Returns: CR_OK, CR_ERR_INVALID_ARG. Since: ABI 1.0
 */
CR_API cr_status cr_context_add_plugin_dir(cr_context *ctx, const char *dir, cr_error *err);

/**
 * cr_context_load_config:
 * @path: (nullable) config file. NULL: $CLUSTER_RESOLVER_CONFIG, else
 *        /etc/cluster-resolver/cluster-resolver.conf if it exists, else the
 *        built-in `auto` configuration.
 *
 * Read the file and the drop-ins of the conf.d/ directory beside it (sorted),
 * load the named plugins and validate every resolver group against its
 * plugin's schema. Nothing is resolved yet.
 * Returns: CR_OK; CR_ERR_CONFIG ("FILE:LINE: ..."); CR_ERR_PLUGIN or
 * CR_ERR_ABI (message names the plugin and its file). Since: ABI 1.0
 */
CR_API cr_status cr_context_load_config(cr_context *ctx, const char *path, cr_error *err);

/**
 * cr_context_load_config_string:
 * As cr_context_load_config() for config text; @name is used in messages
 * (no drop-ins). Since: ABI 1.0
 */
CR_API cr_status cr_context_load_config_string(cr_context *ctx, const char *text, const char *name,
					       cr_error *err);

/**
 * cr_context_set_task:
 * Override this process's identity (beats the config's `task` and every
 * resolver). @task_type NULL and @task_id -1 leave that part unset; "" and 0
 * are real values. Returns: CR_OK, CR_ERR_INVALID_ARG. Since: ABI 1.0
 */
CR_API cr_status cr_context_set_task(cr_context *ctx, const char *task_type, int64_t task_id,
				     cr_error *err);

/** Override the rpc layer ("" = none). Since: ABI 1.0 */
CR_API cr_status cr_context_set_rpc_layer(cr_context *ctx, const char *rpc_layer, cr_error *err);

/**
 * cr_context_resolve:
 * Run the resolvers (union with the configured policies) and the
 * accelerator layer. (out) (transfer full) *@result: free with
 * cr_result_free(). Returns: CR_OK; CR_ERR_NOT_FOUND when every resolver
 * declined; otherwise the failing resolver's status with its message.
 * Since: ABI 1.0
 */
CR_API cr_status cr_context_resolve(cr_context *ctx, cr_result **result, cr_error *err);

/**
 * cr_context_watch:
 * @ctx: a context; the first call resolves (as cr_context_resolve()).
 * @timeout_ms: how long to wait for a new generation; < 0 waits until one
 *     comes or the watch is cancelled.
 * @result: (out) (transfer full) the new generation's result, or NULL when
 *     none came before @timeout_ms passed or the watch was cancelled.
 * @generation: (out) (nullable) its generation: 1 for the first result,
 *     one more for each result that differs from the one before.
 * @err: (nullable) error record.
 *
 * The membership as a stream. The first call returns the current result
 * (generation 1) at once; each later call blocks until the cluster, this
 * process's identity, the rpc layer or a task's accelerators differ from
 * the last result returned (compared through a canonical digest: reordered
 * answers, heartbeats and a re-listed identical cluster are no change).
 * Resolvers with a watch op are watched; the others are resolved again
 * every `watch_interval` seconds (with a 10% jitter); static sources are
 * not polled. A task set with cr_context_set_task() pins the first
 * generation only: later ones follow that member, the task whose address
 * it had (or the identity a resolver reports), and its index is derived
 * again; a result whose own task left has no task (cr_result_task_id()
 * -1). Returns: CR_OK (also with *@result NULL), or the error of a
 * resolution that failed (after the resolver's own retries).
 *
 * Thread safety: one thread watches a context at a time; no other call on
 * @ctx may run during a watch except cr_context_watch_cancel() and
 * cr_context_interrupt().
 *
 * Since: ABI 1.2
 */
CR_API cr_status cr_context_watch(cr_context *ctx, int64_t timeout_ms, cr_result **result,
				  uint64_t *generation, cr_error *err);

/**
 * cr_context_watch_cancel:
 * Make the cr_context_watch() running on @ctx (or the next one, if none
 * runs) return promptly with no result. Safe from any thread and from a
 * signal handler (it only sets a flag and writes to a descriptor).
 * Since: ABI 1.2
 */
CR_API void cr_context_watch_cancel(cr_context *ctx);

/**
 * cr_context_interrupt:
 * End what @ctx is doing, for good: a resolution or watch in progress on
 * another thread (or below the signal handler that calls this) returns
 * promptly, within about 100 ms. Every wait of the host for the plugins
 * ends at once: a sleep between retries or polls, an HTTP request (also
 * one waiting for an answer or a Retry-After), a watch stream. The call
 * in progress then returns: cr_context_watch() with no result (CR_OK, as
 * cancelled) or the failure its resolver reports; a request or
 * resolution cut short fails with CR_ERR_TIMEOUT ("... interrupted").
 * Every later resolution or watch on @ctx fails the same way at once:
 * the context is left only to be freed (cr_context_free(), once the call
 * in progress has returned). Plugins that wait on anything but the host
 * (a child process, their own sockets) end at their own timeouts.
 *
 * Safe from any thread and from a signal handler (async-signal-safe: an
 * atomic store and write(2)): `cluster-resolver watch` calls it on SIGINT
 * and SIGTERM.
 *
 * Since: ABI 1.3
 */
CR_API void cr_context_interrupt(cr_context *ctx);

/**
 * cr_result_keep_tasks:
 * @result: a result (changed in place).
 * @max_tasks: how many tasks to keep.
 * @err: (nullable) error record.
 *
 * Keep the first @max_tasks tasks in cluster order (the jobs in their
 * order, each job's tasks by ascending index) and drop the others; every
 * job stays declared, and the kept tasks keep their indices. This
 * process's task is not changed (it may now be outside the cluster).
 * `exec --elastic --max-tasks M` uses it. Returns: CR_OK,
 * CR_ERR_INVALID_ARG (no result). Since: ABI 1.2
 */
CR_API cr_status cr_result_keep_tasks(cr_result *result, size_t max_tasks, cr_error *err);

/**
 * cr_result_generation_id:
 * @result: a result.
 *
 * The world's id: 16 lowercase hex digits, the first 8 bytes of the
 * SHA-256 of the cluster (each job by name in byte order, then each of its
 * tasks by ascending index: the job name, each index in decimal and each
 * address, every one followed by a NUL byte). Every member of one world
 * computes the same id, whichever process resolved it and whenever; this
 * process's own task plays no part (`exec --elastic` gives it to the
 * program as CR_GENERATION_ID; key checkpoints on it). Returns: (transfer
 * none) the id, valid as long as @result; "" for a NULL @result.
 * Since: ABI 1.3
 */
CR_API const char *cr_result_generation_id(const cr_result *result);

/**
 * cr_context_plugins_json:
 * Describe the plugins found on the search path (name, kind, file, ABI,
 * version, schema) as a JSON array; broken files are listed with their
 * error. (transfer full) Since: ABI 1.0
 */
CR_API cr_status cr_context_plugins_json(cr_context *ctx, char **json, cr_error *err);

/** As cr_context_plugins_json(), as a human-readable table. Since: ABI 1.0 */
CR_API cr_status cr_context_plugins_text(cr_context *ctx, char **text, cr_error *err);

/**
 * cr_context_check:
 * Create every configured plugin instance (which validates nested options
 * without contacting anything) and describe the configuration; secret
 * options are shown as "(secret)". (transfer full) *@text.
 * Returns: CR_OK, CR_ERR_CONFIG, CR_ERR_PLUGIN. Since: ABI 1.0
 */
CR_API cr_status cr_context_check(cr_context *ctx, char **text, cr_error *err);

/**
 * cr_context_explain:
 * @ctx: a context; its configuration is loaded first when it is not yet.
 * @json: the JSON form instead of the human one.
 * @text: (out) (transfer full) the explanation; free with cr_free(). Set
 *     whenever the resolvers ran, also when the resolution failed.
 * @err: (nullable) the resolution's error, as cr_context_resolve() gives it.
 *
 * Resolve as cr_context_resolve() does and say why the cluster came out as
 * it did: for each configured resolver in order, its verdict ("ok",
 * "declined", "error", "skipped"), a one-line reason and the facts it set
 * with result_set_fact (kept when it failed afterwards), then the merged
 * result as `resolve --format json` prints it, or the error. A resolver is
 * "skipped" when it never ran: an earlier `sufficient` one answered, or an
 * earlier `required` one failed. An `optional` one that fails is "error"
 * and the run goes on.
 *
 * Returns: the status of the resolution (CR_OK, CR_ERR_NOT_FOUND when no
 * resolver applies, the failing resolver's status, ...), or
 * CR_ERR_INVALID_ARG for a NULL argument.
 * Since: ABI 1.1
 */
CR_API cr_status cr_context_explain(cr_context *ctx, bool json, char **text, cr_error *err);

/** Free @result. NULL is a no-op. Since: ABI 1.0 */
CR_API void cr_result_free(cr_result *result);

/** The merged cluster. (transfer none) Since: ABI 1.0 */
CR_API const cr_spec *cr_result_spec(const cr_result *result);

/** Task type, or NULL when unknown. (transfer none) Since: ABI 1.0 */
CR_API const char *cr_result_task_type(const cr_result *result);

/** Task id, or -1 when unknown. Since: ABI 1.0 */
CR_API int64_t cr_result_task_id(const cr_result *result);

/** Effective rpc layer, or NULL. (transfer none) Since: ABI 1.0 */
CR_API const char *cr_result_rpc_layer(const cr_result *result);

/** Environment ("cloud", "google", ...), or NULL. Since: ABI 1.0 */
CR_API const char *cr_result_environment(const cr_result *result);

/**
 * cr_result_master:
 * Master URL. With @task_type and @task_id (both, or neither: NULL/-1):
 * that task's address formatted with @rpc_layer (NULL = the effective
 * layer, "" = none) as "layer://address"; an empty address stays "".
 * With neither: the first resolver's own master as it answered for the
 * effective rpc layer (TensorFlow's union asks resolvers[0].master()),
 * else this process's task's address.
 * (transfer full) *@url.
 * Returns: CR_OK; CR_ERR_INVALID_ARG (only one of @task_type, @task_id);
 * CR_ERR_NOT_FOUND (the task is not in the cluster). With neither given,
 * no resolver master and this process's task unknown, *@url is "" (what
 * TensorFlow's Slurm and Kubernetes resolvers answer) and the status is
 * CR_ERR_NOT_FOUND with the reason, for the caller to warn.
 * Since: ABI 1.0 (the "" with CR_ERR_NOT_FOUND: ABI 1.1)
 */
CR_API cr_status cr_result_master(const cr_result *result, const char *task_type, int64_t task_id,
				  const char *rpc_layer, char **url, cr_error *err);

/** Number of accelerator kinds counted for this task. Since: ABI 1.0 */
CR_API size_t cr_result_num_accelerator_kinds(const cr_result *result);

/** Kind @i ("GPU") and its count, sorted by kind. Since: ABI 1.0 */
CR_API bool cr_result_accelerator(const cr_result *result, size_t i, const char **kind,
				  int64_t *count);

/**
 * cr_result_accelerators_json:
 * Accelerator counts of this process's task (@task_type NULL, @task_id -1)
 * or of another task (what the resolvers reported for it), as
 * `{"GPU": 8}`; with @devices, `{"num_accelerators": {...}, "devices":
 * [...]}` listing each local device. (transfer full) *@json.
 * Returns: CR_OK, CR_ERR_INVALID_ARG, CR_ERR_NOT_FOUND (no such task).
 * Since: ABI 1.0
 */
CR_API cr_status cr_result_accelerators_json(const cr_result *result, const char *task_type,
					     int64_t task_id, bool devices, char **json,
					     cr_error *err);

/** Number of environment variables the resolvers asked `exec` to set. */
CR_API size_t cr_result_num_env(const cr_result *result);

/** Variable @i (name, value). Since: ABI 1.0 */
CR_API bool cr_result_env(const cr_result *result, size_t i, const char **name, const char **value);

/**
 * cr_result_num_fds:
 * Number of file descriptors the resolvers handed to the program `exec`
 * starts (host->result_pass_fd). Since: ABI 1.1
 */
CR_API size_t cr_result_num_fds(const cr_result *result);

/**
 * cr_result_fd:
 * @i: 0 .. cr_result_num_fds() - 1.
 * @fd: (out) (nullable) the descriptor, owned by @result: close-on-exec,
 *     closed by cr_result_free(). To hand it to a program, clear its
 *     FD_CLOEXEC flag just before execve() and set @env_name to its number.
 * @env_name: (out) (nullable) (transfer none) the variable naming it.
 * Returns: false when @i is out of range. Since: ABI 1.1
 */
CR_API bool cr_result_fd(const cr_result *result, size_t i, int *fd, const char **env_name);

/**
 * cr_context_supervise:
 * @result: a result of cr_context_resolve() on @ctx: the resolvers that
 *     answered it are told, in config order.
 * @ev: what happened to the program (#cr_supervise_event, common.h).
 * @stop: (out) set to true when a resolver asks for the program to be
 *     stopped; left alone otherwise.
 *
 * Run the resolvers' supervise ops (`exec --supervise`). The caller owns
 * the program and its signals: it sends %CR_SUPERVISE_STARTED once, then
 * %CR_SUPERVISE_RUNNING about every second, then %CR_SUPERVISE_EXITED;
 * the library starts, signals and waits for nothing. A resolver's failure
 * is logged and does not stop the others.
 * Returns: CR_OK, CR_ERR_INVALID_ARG (NULL argument, @ev too short).
 * Since: ABI 1.1
 */
CR_API cr_status cr_context_supervise(cr_context *ctx, const cr_result *result,
				      const cr_supervise_event *ev, bool *stop, cr_error *err);

/**
 * cr_result_format:
 * @format: "tf_config", "json", "clusterdef", ... (see cluster-resolver(1)).
 * @options: (nullable) NULL-terminated "key=value" strings for the format.
 * (out) (transfer full) *@out (NUL-terminated except for binary formats,
 * @len bytes). Returns: CR_OK, CR_ERR_INVALID_ARG (unknown format or
 * option), CR_ERR_NOT_FOUND (format needs an identity; for hosts, hostfile
 * and horovod, no task in the chosen jobs, which `resolve` prints as
 * nothing with a warning: an empty membership), CR_ERR_BACKEND (the
 * cluster cannot be written in that format, e.g. rank 0's address has no
 * port; since release 1.1.0, CR_ERR_INVALID_ARG before). Since: ABI 1.0
 */
CR_API cr_status cr_result_format(const cr_result *result, const char *format,
				  const char *const *options, char **out, size_t *len,
				  cr_error *err);

/**
 * cr_result_env_vars:
 * @format: a format that sets variables: "tf_config" (TF_CONFIG), "torch"
 *     (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK,
 *     LOCAL_WORLD_SIZE, NODE_RANK, GROUP_RANK), "jax"
 *     (JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID) or "env"
 *     (TF_CONFIG, the torch and jax variables when this process is in the
 *     world, then the resolvers' variables of cr_result_env()).
 * @options: (nullable) NULL-terminated "key=value" strings; "jobs=a,b"
 *     chooses the world's jobs for torch, jax and env.
 * @pairs: (out) (transfer full) NULL-terminated vector name, value, name,
 *     value, ...; free with cr_strv_free() (common.h).
 *
 * The variables `resolve --format F` prints as export lines and `exec`
 * sets, unquoted. Returns: CR_OK, CR_ERR_INVALID_ARG (format without
 * variables, unknown option), CR_ERR_NOT_FOUND (no identity, task not in
 * the world, empty world). Since: ABI 1.0
 */
CR_API cr_status cr_result_env_vars(const cr_result *result, const char *format,
				    const char *const *options, char ***pairs, cr_error *err);

#ifdef __cplusplus
}
#endif

#endif /* CLUSTER_RESOLVER_H */
