/* SPDX-License-Identifier: MIT */
/*
 * plugin-host.h - the host function table (#cr_host_api) a plugin gets at load
 * time, and CR_HOST_HAS() to test for slots newer than its ABI minor.
 * Part of the plugin SDK: include <cluster-resolver/plugin.h>, not this file.
 */
#ifndef CLUSTER_RESOLVER_PLUGIN_HOST_H
#define CLUSTER_RESOLVER_PLUGIN_HOST_H

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

#include <cluster-resolver/plugin-types.h>

#if defined(__GNUC__)
#define CR_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CR_PRINTF(fmt, args)
#endif

/* ------------------------------------------------------------------------ */
/* The host function table                                                   */

/**
 * cr_host_api:
 *
 * Everything the host offers a plugin. Append-only: slots are never removed
 * or reordered (a retired slot stays, set to NULL). Before calling a slot
 * newer than the ABI minor the plugin requires, check CR_HOST_HAS().
 *
 * Every slot is "Since: ABI 1.0" unless it says otherwise.
 */
typedef struct cr_host_api {
	size_t struct_size;
	uint32_t abi_major;
	uint32_t abi_minor;

	/* -- errors and logging ------------------------------------------- */

	/** Record @code and a printf-style message in @err (nullable).
	 *  Returns: @code, so a plugin can write `return host->error_set(...)`. */
	cr_status (*error_set)(cr_error *err, cr_status code, const char *fmt, ...) CR_PRINTF(3, 4);
	/** Static text for a status ("declined", "network error"). */
	const char *(*strerror)(cr_status code);
	/** Log a line; the host prefixes "resolver 'NAME': " and filters by level.
	 *  Error messages set with error_set are prefixed the same way, so a
	 *  plugin does not name itself in them. */
	void (*log)(cr_plugin_ctx *ctx, cr_log_level level, const char *fmt, ...) CR_PRINTF(3, 4);
	/** Whether a log line at @level would be shown. */
	bool (*log_enabled)(cr_plugin_ctx *ctx, cr_log_level level);

	/* -- configuration (views borrowed until destroy) ------------------ */

	/** Child @name of a group, or NULL when absent. */
	const cr_cfg *(*cfg_get)(const cr_cfg *group, const char *name);
	/** Type of a value; CR_CFG_NONE for NULL. */
	cr_cfg_type (*cfg_type)(const cr_cfg *value);
	/** Number of children of a group, array or list; 0 for scalars. */
	size_t (*cfg_length)(const cr_cfg *value);
	/** Child @i of a group, array or list (document order), or NULL. */
	const cr_cfg *(*cfg_elem)(const cr_cfg *value, size_t i);
	/** Key of a group member, or NULL for list elements. */
	const char *(*cfg_name)(const cr_cfg *value);
	/** String value, or NULL when not a string. */
	const char *(*cfg_string)(const cr_cfg *value);
	/** Integer value (int or int64). Returns: false when not an integer. */
	bool (*cfg_int)(const cr_cfg *value, int64_t *out);
	/** Float value (an integer converts). Returns: false otherwise. */
	bool (*cfg_float)(const cr_cfg *value, double *out);
	/** Boolean value. Returns: false when not a boolean. */
	bool (*cfg_bool)(const cr_cfg *value, bool *out);
	/** File the value was read from, or "(built-in)" / "(string)". */
	const char *(*cfg_file)(const cr_cfg *value);
	/** Line the value was read from, or 0. */
	int (*cfg_line)(const cr_cfg *value);
	/** Schema-aware getters on the plugin's own group: the value, else the
	 *  option's default_value from the schema (NULL/0/false when none). */
	const char *(*opt_string)(cr_plugin_ctx *ctx, const char *name);
	int64_t (*opt_int)(cr_plugin_ctx *ctx, const char *name);
	bool (*opt_bool)(cr_plugin_ctx *ctx, const char *name);
	double (*opt_float)(cr_plugin_ctx *ctx, const char *name);
	/** Whether the user set @name explicitly (as opposed to a default). */
	bool (*opt_is_set)(cr_plugin_ctx *ctx, const char *name);

	/* -- environment, files, processes --------------------------------- */

	/** Environment variable (injectable in tests), or NULL. Borrowed until
	 *  the op returns. */
	const char *(*getenv)(cr_plugin_ctx *ctx, const char *name);
	/** Read a whole file (at most @max bytes, 0 = 64 MiB) into a
	 *  NUL-terminated buffer. (transfer full) *@data: free with host->free.
	 *  Only a regular file is read (a symlink is followed): a FIFO, device,
	 *  socket or directory is CR_ERR_IO at once, never waited on.
	 *  Returns: CR_OK, CR_ERR_NOT_FOUND, CR_ERR_IO (message names the path). */
	cr_status (*read_file)(cr_plugin_ctx *ctx, const char *path, size_t max, char **data,
			       size_t *len, cr_error *err);
	/** Sorted entry names of a directory ("." and ".." omitted).
	 *  (transfer full) *@names: NULL-terminated, free with host->strv_free.
	 *  Returns: CR_OK, CR_ERR_NOT_FOUND, CR_ERR_IO. */
	cr_status (*list_dir)(cr_plugin_ctx *ctx, const char *path, char ***names, cr_error *err);
	/** Free memory the host gave the plugin. NULL is a no-op. */
	void (*free)(void *ptr);
	/** Free a NULL-terminated string vector from the host. NULL is a no-op. */
	void (*strv_free)(char **strv);

	/* -- HTTP (libcurl in the host) ------------------------------------ */

	/** Perform @req. HTTP error statuses are not failures: inspect
	 *  http_status(). (transfer full) *@resp: free with http_response_free.
	 *  Returns: CR_OK, CR_ERR_NETWORK, CR_ERR_TIMEOUT, CR_ERR_IO,
	 *  CR_ERR_INVALID_ARG; the message names the endpoint and the reason. */
	cr_status (*http_request)(cr_plugin_ctx *ctx, const cr_http_request *req,
				  cr_http_response **resp, cr_error *err);
	long (*http_status)(const cr_http_response *resp);
	/** Body bytes, NUL-terminated for convenience. Borrowed from @resp. */
	const char *(*http_body)(const cr_http_response *resp, size_t *len);
	/** Last value of response header @name (case-insensitive), or NULL. */
	const char *(*http_header)(const cr_http_response *resp, const char *name);
	void (*http_response_free)(cr_http_response *resp);

	/* -- JSON (json-c in the host) ------------------------------------- */

	/** Parse @len bytes. (transfer full) *@root: free with json_free.
	 *  Returns: CR_OK or CR_ERR_PARSE with "what: offset N: reason", where
	 *  @what names the source (a variable, a URL). */
	cr_status (*json_parse)(const char *text, size_t len, const char *what, cr_json **root,
				cr_error *err);
	void (*json_free)(cr_json *root);
	/** Node at RFC 6901 @pointer below @node ("" = @node), or NULL. The node
	 *  is borrowed from the document. */
	const cr_json *(*json_get)(const cr_json *node, const char *pointer);
	cr_json_type (*json_type)(const cr_json *node);
	/** String value, or NULL when not a string. */
	const char *(*json_string)(const cr_json *node);
	/** Integral number. Returns: false when not an integer. */
	bool (*json_int)(const cr_json *node, int64_t *out);
	bool (*json_double)(const cr_json *node, double *out);
	bool (*json_bool)(const cr_json *node, bool *out);
	/** Number of elements of an array or members of an object. */
	size_t (*json_length)(const cr_json *node);
	/** Element @i of an array, or NULL. */
	const cr_json *(*json_index)(const cr_json *node, size_t i);
	/** Call @fn for each member of an object, in document order. */
	void (*json_each)(const cr_json *node, cr_json_each_fn fn, void *user_data);

	/* -- Slurm-style hostlists ----------------------------------------- */

	/** Expand "n[01-03],gpu[1-2]-ib" in order, duplicates kept.
	 *  (transfer full) *@hosts: NULL-terminated, free with strv_free.
	 *  Returns: CR_OK or CR_ERR_PARSE quoting @expr and the position. */
	cr_status (*hostlist_expand)(const char *expr, char ***hosts, size_t *count, cr_error *err);
	/** Compress names (order kept) into one expression.
	 *  (transfer full) *@expr: free with host->free. */
	cr_status (*hostlist_compress)(const char *const *hosts, size_t count, char **expr,
				       cr_error *err);

	/* -- resolver results (everything is copied) ----------------------- */

	/** Declare a job (it may stay empty). */
	cr_status (*result_add_job)(cr_result_builder *b, const char *job, cr_error *err);
	/** Append a task at the next index of a dense job. */
	cr_status (*result_append_task)(cr_result_builder *b, const char *job, const char *address,
					cr_error *err);
	/** Add a task at an explicit index (sparse jobs). Negative index or a
	 *  duplicate index → CR_ERR_INVALID_ARG / CR_ERR_CONFLICT. */
	cr_status (*result_add_task)(cr_result_builder *b, const char *job, int64_t index,
				     const char *address, cr_error *err);
	/** This process's identity, when the backend knows it. */
	cr_status (*result_set_task)(cr_result_builder *b, const char *task_type, int64_t task_id,
				     cr_error *err);
	cr_status (*result_set_rpc_layer)(cr_result_builder *b, const char *rpc_layer,
					  cr_error *err);
	cr_status (*result_set_environment)(cr_result_builder *b, const char *environment,
					    cr_error *err);
	/** The backend's own master/session-master string (used verbatim). */
	cr_status (*result_set_master)(cr_result_builder *b, const char *master, cr_error *err);
	/** Accelerators of one task (a pod's nvidia.com/gpu limit, Slurm's
	 *  binding). @kind is "GPU" or "TPU". @job NULL (and @index -1) means
	 *  this process's own task, whichever it turns out to be. */
	cr_status (*result_set_task_accelerators)(cr_result_builder *b, const char *job,
						  int64_t index, const char *kind, int64_t count,
						  cr_error *err);
	/** An environment variable this process should get from `exec`
	 *  (e.g. CUDA_VISIBLE_DEVICES for its GPU binding). */
	cr_status (*result_set_env)(cr_result_builder *b, const char *name, const char *value,
				    cr_error *err);

	/* -- accelerator results and the master sink ----------------------- */

	/** Add one local device (copied). */
	cr_status (*accel_add)(cr_accel_list *list, const cr_accel_device *dev, cr_error *err);
	/** Set the text of a master sink (copied). */
	cr_status (*text_set)(cr_text *out, const char *text, cr_error *err);

	/* -- vendor libraries and time ------------------------------------- */

	/** dlopen(@soname, RTLD_NOW|RTLD_LOCAL). Returns: CR_OK, or CR_DECLINED
	 *  when the library is absent (so the plugin can decline). */
	cr_status (*dl_open)(cr_plugin_ctx *ctx, const char *soname, void **handle, cr_error *err);
	void *(*dl_sym)(void *handle, const char *symbol);
	void (*dl_close)(void *handle);
	/** Monotonic clock in milliseconds. */
	int64_t (*monotonic_ms)(void);
	/** Sleep through the context's clock (a test host advances its own
	 *  clock instead of waiting). */
	void (*sleep_ms)(cr_plugin_ctx *ctx, int64_t ms);

	/* -- Since: ABI 1.1 ------------------------------------------------ */
	/* Check CR_HOST_HAS() before calling these from a plugin that also
	 * runs on 1.0 hosts; a plugin built with CR_ABI_MINOR >= 1 is refused
	 * by older hosts, so it may call them directly. */

	/** Add the jobs and tasks of a ClusterSpec in TensorFlow's as_dict
	 *  shape: an object whose members are jobs, each a list of addresses
	 *  (dense, indices 0..n-1), an object of decimal index -> address
	 *  (sparse), or an empty list/object (an empty job). @what names the
	 *  source in messages ("TF_CONFIG", "cluster_json"). @b may be NULL:
	 *  then @cluster is only checked, as a create() checks its options.
	 *  Returns: CR_OK; CR_ERR_PARSE for a wrong shape (message quotes @what
	 *  and the job); CR_ERR_INVALID_ARG for an index that is not a
	 *  canonical decimal in 0..2147483647; CR_ERR_CONFLICT for a duplicate
	 *  index. On an error nothing of @cluster was added.
	 *  Since: ABI 1.1 */
	cr_status (*result_add_cluster_json)(cr_result_builder *b, const cr_json *cluster,
					     const char *what, cr_error *err);
	/** Expand a Slurm tasks-per-node list "3(x2),2,1" into {3, 3, 2, 1}.
	 *  (transfer full) *@counts: free with host->free.
	 *  Returns: CR_OK, CR_ERR_PARSE quoting @list and the position.
	 *  Since: ABI 1.1 */
	cr_status (*tasks_per_node_expand)(const char *list, uint32_t **counts, size_t *n,
					   cr_error *err);
	/** Call @fn for each name of a hostlist expression in order, without
	 *  keeping them (the memory used does not grow with the names). The
	 *  whole expression is checked first: on an error @fn was never
	 *  called. Names and errors are those of hostlist_expand.
	 *  Returns: CR_OK (also when @fn stopped the walk), CR_ERR_PARSE.
	 *  Since: ABI 1.1 */
	cr_status (*hostlist_foreach)(const char *expr, cr_hostlist_fn fn, void *user_data,
				      cr_error *err);
	/** Run a program and collect its output. @argv: NULL-terminated, argv[0]
	 *  found on PATH. @env: (nullable) NULL-terminated "NAME=value" entries
	 *  set on top of the process environment. The child runs in its own
	 *  process group with stdin from /dev/null; when @timeout_ms (0 = 10 s)
	 *  passes, or it writes more than @output_cap bytes (0 = 1 MiB) to
	 *  stdout or stderr, the whole group is killed; the child is killed
	 *  too if the process waiting for it dies. (transfer full) *@out:
	 *  free with spawn_result_free; set whenever the child ran.
	 *  Returns: CR_OK when the child exited (whatever its status: read
	 *  (*out)->exit_status), CR_ERR_TIMEOUT, CR_ERR_IO (could not start,
	 *  output over the cap); the message names argv[0], never @env values.
	 *  Since: ABI 1.1 */
	cr_status (*spawn)(cr_plugin_ctx *ctx, const char *const *argv, const char *const *env,
			   int64_t timeout_ms, size_t output_cap, cr_spawn_result **out,
			   cr_error *err);
	/** Free a spawn result. NULL is a no-op. Since: ABI 1.1 */
	void (*spawn_result_free)(cr_spawn_result *result);
	/** Record a fact for `cluster-resolver explain`: @key ("endpoint",
	 *  "pods_listed") and a JSON value (copied). Facts are kept even when
	 *  the resolver fails afterwards; setting a key again replaces it.
	 *  Returns: CR_OK, CR_ERR_INVALID_ARG. Since: ABI 1.1 */
	cr_status (*result_set_fact)(cr_result_builder *b, const char *key, const cr_json *value,
				     cr_error *err);
	/** Hand a file descriptor to the program `exec` starts: the host
	 *  duplicates @fd (the plugin may close its own), keeps the copy open
	 *  across exec and sets @env_name to its number there; on every other
	 *  path the copy is closed. Returns: CR_OK, CR_ERR_INVALID_ARG (bad fd
	 *  or name), CR_ERR_IO. Since: ABI 1.1 */
	cr_status (*result_pass_fd)(cr_result_builder *b, int fd, const char *env_name,
				    cr_error *err);
	/** Monotonic clock of this context in milliseconds: the real clock, or
	 *  a test host's own clock, which its sleep_ms advances. Since: ABI 1.1 */
	int64_t (*now_ms)(cr_plugin_ctx *ctx);
	/** result_set_fact for the common case of a text: @value (copied)
	 *  becomes a JSON string ("api_server", "namespace"), with no JSON node
	 *  to build. Returns: CR_OK, CR_ERR_INVALID_ARG. Since: ABI 1.1 */
	cr_status (*result_set_fact_string)(cr_result_builder *b, const char *key,
					    const char *value, cr_error *err);
	/** During a resolver's watch op: a descriptor that becomes readable
	 *  (POLLIN) when the host cancels the watch; poll it beside the
	 *  plugin's own descriptors, never read or close it. -1 outside a
	 *  watch. Since: ABI 1.2 */
	int (*watch_cancel_fd)(cr_plugin_ctx *ctx);
	/** Whether the watch this instance is in has been cancelled (false
	 *  outside a watch). Since: ABI 1.2 */
	bool (*watch_cancelled)(cr_plugin_ctx *ctx);
	/** A streaming HTTP request (a Kubernetes watch): as http_request, but
	 *  the body is not kept: each piece goes to @on_data as it arrives,
	 *  until the server ends the answer, @on_data returns false, the
	 *  watch is cancelled, or @req's timeout_ms passes (0: no whole-request
	 *  deadline; the connect timeout still holds). (out) (transfer full)
	 *  *@resp: the status and headers (its body is empty), also when an
	 *  error status came; free with http_response_free. The body of an
	 *  answer that is not 2xx is kept instead (up to max_body) and not
	 *  streamed, so its message can be read. A 2xx body is cut at
	 *  @req's max_body when it sets one (CR_ERR_IO, as http_request; 0:
	 *  no cap, what a watch needs). Outside a watch the request
	 *  goes over the instance's kept-alive connections, as http_request
	 *  (a list read page by page as it arrives); during a watch op it has
	 *  a connection of its own (TCP keepalive on), closed when it ends.
	 *  Returns: CR_OK when the
	 *  answer ended, @on_data stopped it or the watch was cancelled;
	 *  CR_ERR_TIMEOUT at the deadline; CR_ERR_NETWORK when the connection
	 *  failed or dropped mid-answer (naming the URL without its query).
	 *  Since: ABI 1.2 */
	cr_status (*http_stream)(cr_plugin_ctx *ctx, const cr_http_request *req,
				 cr_http_data_fn on_data, void *user_data, cr_http_response **resp,
				 cr_error *err);

	/* -- Since: ABI 1.3 ------------------------------------------------ */

	/** Whether this instance is resolved and watched by cr_context_watch
	 *  (`cluster-resolver watch`, `exec --elastic`): true during every
	 *  resolve and watch op that a cr_context_watch call makes, from its
	 *  first resolution on, false for a plain resolution. A watched
	 *  resolution is one generation of a stream: a member that is not
	 *  ready yet (a Pending pod) is not a member rather than a failure,
	 *  and a resolve that follows the instance's own watch op may answer
	 *  from what that watch received, without asking its backend again,
	 *  as long as the plugin's watch state is complete (its own
	 *  judgement: after a fault, a lost position or an expired version it
	 *  asks again). Since: ABI 1.3 */
	bool (*watched)(cr_plugin_ctx *ctx);
	/** During a watch op: end this instance's watch early (its answer is
	 *  ready while other requests of it are still open, as when it
	 *  follows several streams from threads of its own). From then until
	 *  the op returns, its host->http_stream requests return,
	 *  watch_cancel_fd is readable and watch_cancelled answers true; the
	 *  watches of other instances go on. A no-op outside a watch op.
	 *  May be called from any thread of the plugin. Since: ABI 1.3 */
	void (*watch_stop)(cr_plugin_ctx *ctx);
	/** Declare that @job has @size tasks, indices 0..@size-1, of which
	 *  this resolver knows the addresses it adds (cr_spec_set_job_size):
	 *  what a launcher that tells a task only its coordinator gives
	 *  ("4 tasks, task 0 at ADDR"). @launcher names that launcher
	 *  ("torchrun", "Kubeflow PyTorchJob"): a format that needs every
	 *  address (tf_config, hostfile, ...) refuses with a line naming the
	 *  resolver, @launcher and the tasks it did not give. The union fills
	 *  the unknown addresses from another resolver's job of the same
	 *  size (docs/semantics.md). Returns: CR_OK, CR_ERR_INVALID_ARG
	 *  (@size outside 1..2147483648), CR_ERR_CONFLICT (a task already
	 *  added at an index >= @size). Since: ABI 1.3 */
	cr_status (*result_set_job_size)(cr_result_builder *b, const char *job, int64_t size,
					 const char *launcher, cr_error *err);
	/** This process's place among the nodes, for a result whose hosts are
	 *  unknown (the formats cannot count a node's tasks from addresses):
	 *  its node's rank among @num_nodes nodes and its rank among the
	 *  @local_size tasks of its node (torchrun's GROUP_RANK,
	 *  GROUP_WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE). All four are
	 *  given; rank < size and size >= 1 are checked.
	 *  Returns: CR_OK, CR_ERR_INVALID_ARG. Since: ABI 1.3 */
	cr_status (*result_set_task_place)(cr_result_builder *b, int64_t node_rank,
					   int64_t num_nodes, int64_t local_rank,
					   int64_t local_size, cr_error *err);
} cr_host_api;

/**
 * CR_HOST_HAS:
 * @host: the host table.
 * @slot: a member name of #cr_host_api.
 *
 * Whether the running host provides @slot: the table is long enough and the
 * slot is not NULL. Use it before calling slots newer than the ABI minor the
 * plugin was built for.
 *
 * Since: ABI 1.0
 */
#define CR_HOST_HAS(host, slot)                                                                    \
	((host) != NULL &&                                                                         \
	 (host)->struct_size >= offsetof(cr_host_api, slot) + sizeof((host)->slot) &&              \
	 (host)->slot != NULL)

#ifdef __cplusplus
}
#endif

#endif /* CLUSTER_RESOLVER_PLUGIN_HOST_H */
