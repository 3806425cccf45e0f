/* SPDX-License-Identifier: MIT */
/*
 * testhost.h - cr-testhost: a fake host for unit-testing one plugin.
 *
 * libcr-testhost loads one plugin .so exactly as cluster-resolver does (the
 * same loader checks, the same schema validation with the same messages,
 * the same host table), but everything the plugin can see is under the
 * test's control:
 *
 *   - configuration: the plugin's group as libconfig text, e.g.
 *     "file = \"/etc/hosts.txt\"; job = \"worker\";"
 *   - environment: empty unless set with cr_testhost_setenv() (the real
 *     process environment is hidden unless cr_testhost_inherit_env());
 *   - files: read_file / list_dir look under a private directory that
 *     starts empty (cr_testhost_add_file()), or under a directory the test
 *     names (cr_testhost_set_root());
 *   - HTTP: nothing leaves the process. Requests are checked, in order,
 *     against a script of expected method, URL and headers, and answered
 *     with the scripted status, headers and body. A streamed request (host->http_stream, ABI 1.2) gets the same
 *     scripted answer, its body handed over in pieces
 *     (cr_testhost_set_stream_piece()); cr_testhost_watch() runs a
 *     resolver's watch op;
 *   - child processes (host->spawn): nothing runs. Spawns are checked, in
 *     order, against a script of expected argv and environment entries,
 *     and answered with the scripted exit status and output, a timeout or
 *     a failure to start;
 *   - time: host->now_ms reads the testhost's own clock, and host->sleep_ms
 *     advances it at once (a plugin's retries and waits take no time);
 *   - logs: captured (level and text) instead of written to stderr.
 *
 * A vendor library the plugin loads with host->dl_open (NVML) is ordinary
 * code: it reads the process's real environment and files.
 *
 *   cr_testhost *th = cr_testhost_new(&err);
 *   cr_testhost_load(th, "/path/example.so", "file = \"/hosts\";", &err);
 *   cr_testhost_add_file(th, "/hosts", "node0:2222\n", (size_t)-1, &err);
 *   cr_testhost_setenv(th, "EXAMPLE_TASK_INDEX", "0", &err);
 *   cr_testhost_resolve(th, "json", &out, &err);   // as `resolve --format json`
 *   cr_testhost_free(th);
 *
 * Link with `pkg-config --libs cr-testhost` or the CMake target
 * ClusterResolver::testhost. No GLib, json-c, libcurl or libconfig type
 * appears here. Strings a call hands back are owned by the testhost and
 * stay valid until the next call of the same kind or cr_testhost_free().
 * A testhost is not thread-safe. Memory exhaustion aborts (GLib's policy).
 */
#ifndef CLUSTER_RESOLVER_TESTHOST_H
#define CLUSTER_RESOLVER_TESTHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/error.h>
#include <cluster-resolver/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/** cr_testhost: a fake host holding at most one plugin instance. Since: 1.0 */
typedef struct cr_testhost cr_testhost;

/** CR_TESTHOST_CONFIG_NAME: the file name config messages quote. Since: 1.0 */
#define CR_TESTHOST_CONFIG_NAME "(string)"

/**
 * cr_testhost_new:
 * @err: (nullable) error record.
 *
 * Make a testhost with an empty environment, an empty private file root
 * (a temporary directory, removed by cr_testhost_free()), no HTTP script
 * and every log level captured.
 * Returns: (transfer full) the testhost, or NULL with CR_ERR_IO when the
 * temporary directory cannot be made. Since: 1.0
 */
CR_API cr_testhost *cr_testhost_new(cr_error *err);

/** Destroy the plugin state, unload it, remove the private root. NULL is a
 *  no-op. Since: 1.0 */
CR_API void cr_testhost_free(cr_testhost *th);

/**
 * cr_testhost_load:
 * @plugin_path: the plugin .so (a relative path is taken from the current
 *     directory).
 * @config: (nullable) the keys of the plugin's config group as libconfig
 *     text (what goes between `{ plugin = "NAME";` and `}` in a config
 *     file); line 1 of @config is line 1 in messages, which name the file
 *     CR_TESTHOST_CONFIG_NAME. The host's keys `plugin` and `policy` are
 *     ignored; `name` names the instance as it does in a config file.
 *
 * Load the plugin with the host's loader checks and validate @config
 * against its schema. The plugin's create() runs at the first run call.
 * Returns: CR_OK; CR_ERR_CONFIG (libconfig syntax, unknown key, wrong type,
 * missing required key: the host's messages); CR_ERR_PLUGIN or CR_ERR_ABI
 * (the loader's messages); CR_ERR_INVALID_ARG when a plugin is loaded
 * already. Since: 1.0
 */
CR_API cr_status cr_testhost_load(cr_testhost *th, const char *plugin_path, const char *config,
				  cr_error *err);

/* ------------------------------------------------------------------------ */
/* What the plugin sees                                                      */

/**
 * cr_testhost_setenv:
 * Set variable @name to @value for host->getenv, or hide it when @value is
 * NULL (also when cr_testhost_inherit_env() is on).
 * Returns: CR_OK, CR_ERR_INVALID_ARG (empty name or one with '='). Since: 1.0
 */
CR_API cr_status cr_testhost_setenv(cr_testhost *th, const char *name, const char *value,
				    cr_error *err);

/** Let host->getenv fall back to the real process environment for
 *  variables not set with cr_testhost_setenv() (off by default). Since: 1.0 */
CR_API void cr_testhost_inherit_env(cr_testhost *th, bool inherit);

/**
 * cr_testhost_add_file:
 * @path: absolute path as the plugin will read it, without ".." parts.
 * @contents: bytes of the file.
 * @len: length of @contents, or (size_t)-1 for strlen(@contents).
 *
 * Create a file in the private root; missing directories are made.
 * Returns: CR_OK, CR_ERR_INVALID_ARG (bad path, or cr_testhost_set_root()
 * named another directory), CR_ERR_IO. Since: 1.0
 */
CR_API cr_status cr_testhost_add_file(cr_testhost *th, const char *path, const char *contents,
				      size_t len, cr_error *err);

/** As cr_testhost_add_file() for an empty directory. Since: 1.0 */
CR_API cr_status cr_testhost_add_dir(cr_testhost *th, const char *path, cr_error *err);

/**
 * cr_testhost_set_root:
 * @dir: (nullable) an existing directory laid out like / (a fixture tree),
 *     "/" for the real file system, or NULL for the private root again.
 *
 * Where host->read_file and host->list_dir look. Error messages keep the
 * plugin's own path ("/sys/..."), as on a real host.
 * Returns: CR_OK, CR_ERR_INVALID_ARG (not an absolute directory). Since: 1.0
 */
CR_API cr_status cr_testhost_set_root(cr_testhost *th, const char *dir, cr_error *err);

/* ------------------------------------------------------------------------ */
/* Scripted HTTP                                                             */

/**
 * cr_testhost_expect:
 * @method: "GET", "POST", ...
 * @url: the exact URL the plugin must ask for.
 * @headers: (nullable) NULL-terminated "Name: value" lines the request must
 *     carry (names case-insensitive, values exact); other headers are free.
 *
 * Append an exchange to the script. Requests must come in script order; a
 * request that is not the next expected one, lacks a header or carries
 * another body fails with CR_ERR_NETWORK and a message naming what was
 * expected and what came ("cr-testhost: request 2: expected GET URL, got
 * POST URL"). The run call in progress then fails with that message too,
 * whatever the plugin made of it. Values of credential headers
 * (Authorization, Cookie, *token*, *secret*, *key*, ...) are matched but
 * never printed: messages show "Bearer (secret, 24 bytes)".
 * Returns: CR_OK, CR_ERR_INVALID_ARG (a header line without ':' or
 *     with a blank name). Since: 1.0
 */
CR_API cr_status cr_testhost_expect(cr_testhost *th, const char *method, const char *url,
				    const char *const *headers, cr_error *err);

/** The body the last expected request must carry, exactly. A mismatch shows
 *  both bodies' first 200 bytes; in a form (NAME=VALUE&...), the values of
 *  credential fields (assertion, client_secret, refresh_token,
 *  WebIdentityToken, *password*, ...) only as "(secret, N bytes)".
 *  Returns: CR_OK, CR_ERR_INVALID_ARG (nothing expected yet). Since: 1.0 */
CR_API cr_status cr_testhost_expect_body(cr_testhost *th, const char *body, cr_error *err);

/**
 * cr_testhost_respond:
 * @status: HTTP status (any; 4xx and 5xx are answers, not failures).
 * @headers: (nullable) NULL-terminated "Name: value" response headers.
 * @body: (nullable) response body text.
 *
 * The answer to the last expected request. Every expectation needs one.
 * Returns: CR_OK, CR_ERR_INVALID_ARG (nothing expected yet, already
 * answered, a header without ':' or with a blank name). Since: 1.0
 */
CR_API cr_status cr_testhost_respond(cr_testhost *th, long status, const char *const *headers,
				     const char *body, cr_error *err);

/** As cr_testhost_respond() with @len bytes of @body, which may hold NUL
 *  bytes (a protobuf answer). Since: 1.2 */
CR_API cr_status cr_testhost_respond_bytes(cr_testhost *th, long status, const char *const *headers,
					   const void *body, size_t len, cr_error *err);

/**
 * cr_testhost_respond_error:
 * Answer the last expected request with a transport failure instead:
 * http_request returns @code (CR_ERR_NETWORK, CR_ERR_TIMEOUT, ...) with
 * "METHOD URL: @message", as the real transport words it.
 * Returns: as cr_testhost_respond(). Since: 1.0
 */
CR_API cr_status cr_testhost_respond_error(cr_testhost *th, cr_status code, const char *message,
					   cr_error *err);

/**
 * cr_testhost_verify:
 * Whether the scripts were followed: CR_OK when every expected request and
 * spawn was made and none failed to match; CR_ERR_NETWORK with the first
 * mismatch; CR_ERR_NOT_FOUND naming the first expected request never made,
 * else the first expected spawn never made ("cr-testhost: 1 of 2 expected
 * spawns were not made; the first: ARGV0", since 1.1).
 * Since: 1.0
 */
CR_API cr_status cr_testhost_verify(cr_testhost *th, cr_error *err);

/* ------------------------------------------------------------------------ */
/* Scripted child processes                                                  */

/**
 * cr_testhost_expect_spawn:
 * @argv: NULL-terminated; the exact argv the plugin must pass to
 *     host->spawn (argv[0] as the plugin gives it: nothing is looked up).
 * @env: (nullable) NULL-terminated "NAME=value" entries the spawn's env
 *     must contain with exactly these values; other entries are free.
 *
 * Append a spawn to the spawn script, which is followed in order
 * independently of the HTTP script. A spawn that is not the next expected
 * one, or lacks an entry, fails with CR_ERR_NETWORK and a message naming
 * what was expected and what came ("cr-testhost: spawn 1: expected
 * 'get-token --v1', got 'get-token'"); the run call in progress then fails
 * with that message too, as for HTTP. Environment values are matched but
 * never printed, only their lengths.
 * Answer it with cr_testhost_spawn_exit(), cr_testhost_spawn_timeout() or
 * cr_testhost_spawn_fail().
 * Returns: CR_OK, CR_ERR_INVALID_ARG (no argv, an entry without '=').
 * Since: 1.1
 */
CR_API cr_status cr_testhost_expect_spawn(cr_testhost *th, const char *const *argv,
					  const char *const *env, cr_error *err);

/**
 * cr_testhost_spawn_exit:
 * @exit_status: 0..255, as (*out)->exit_status.
 * @out: (nullable) what the child writes to stdout ("" when NULL).
 * @err_text: (nullable) what it writes to stderr ("" when NULL).
 *
 * The last expected spawn runs and exits. Output longer than the spawn's
 * output cap makes it fail as the real one does (CR_ERR_IO, "ARGV0: more
 * than N bytes of output: killed").
 * Returns: CR_OK, CR_ERR_INVALID_ARG (nothing expected yet, already
 * answered, a status out of range). Since: 1.1
 */
CR_API cr_status cr_testhost_spawn_exit(cr_testhost *th, int exit_status, const char *out,
					const char *err_text, cr_error *err);

/**
 * cr_testhost_spawn_timeout:
 * The last expected spawn never finishes: the testhost's clock advances by
 * the spawn's timeout and host->spawn returns CR_ERR_TIMEOUT, "ARGV0: still
 * running after S s: killed", as the real one words it (with a result
 * whose exit_status is 137, killed by signal 9).
 * Returns: as cr_testhost_spawn_exit(). Since: 1.1
 */
CR_API cr_status cr_testhost_spawn_timeout(cr_testhost *th, cr_error *err);

/**
 * cr_testhost_spawn_fail:
 * @message: (nullable) the reason, as host->spawn's message (the real one
 *     says "Failed to execute child process “NAME” (No such file or
 *     directory)").
 * The last expected spawn cannot be started: host->spawn returns CR_ERR_IO
 * with @message and no result.
 * Returns: as cr_testhost_spawn_exit(). Since: 1.1
 */
CR_API cr_status cr_testhost_spawn_fail(cr_testhost *th, const char *message, cr_error *err);

/* ------------------------------------------------------------------------ */
/* Running the plugin                                                        */

/** Override this process's identity, as `--task-type` / `--task-id` do
 *  (NULL / -1 leave that part unset). Returns: CR_OK, CR_ERR_INVALID_ARG.
 *  Since: 1.0 */
CR_API cr_status cr_testhost_set_task(cr_testhost *th, const char *task_type, int64_t task_id,
				      cr_error *err);

/** Override the rpc layer as `--rpc-layer` does ("" = none, NULL = no
 *  override). Returns: CR_OK. Since: 1.0 */
CR_API cr_status cr_testhost_set_rpc_layer(cr_testhost *th, const char *rpc_layer, cr_error *err);

/**
 * cr_testhost_probe:
 * Create the plugin state if needed and call probe (a plugin without probe
 * applies). Returns: CR_OK, CR_DECLINED (the plugin's reason, if any, in
 * @err), or the plugin's error prefixed "resolver 'NAME': " as the host
 * words it; a create failure reads "resolver 'NAME' (PATH): create failed:
 * ...". Since: 1.0
 */
CR_API cr_status cr_testhost_probe(cr_testhost *th, cr_error *err);

/**
 * cr_testhost_resolve:
 * @format: (nullable) an output format of `cluster-resolver resolve`
 *     ("json" when NULL, "tf_config", "env", "torch", ...).
 * @out: (out) (transfer none) exactly what `cluster-resolver resolve
 *     --format FORMAT` prints on stdout, or NULL on failure.
 *
 * Run the resolver as the host does (create, probe, resolve, union with
 * the overrides, no accelerator plugins) and format the result.
 * Returns: CR_OK; CR_DECLINED ("no resolver applies here (declined:
 * NAME)"); the host's error otherwise. Since: 1.0
 */
CR_API cr_status cr_testhost_resolve(cr_testhost *th, const char *format, const char **out,
				     cr_error *err);

/**
 * cr_testhost_watch:
 * @timeout_ms: the watch's deadline, from the testhost's clock now.
 * @changed: (out) what the plugin answered: true when the membership may
 *     have changed, false at the deadline.
 *
 * Run the resolver's watch op (ABI 1.2) after a successful
 * cr_testhost_resolve(), as cr_context_watch() does, in a round no one
 * cancels. Its host->http_stream requests are answered from the HTTP
 * script: a 2xx answer's body is handed to the plugin in pieces (see
 * cr_testhost_set_stream_piece()), then the answer ends, as when a server
 * closes the stream; a scripted transport failure is a dropped connection.
 * Returns: CR_OK; CR_ERR_UNSUPPORTED (no watch op); CR_ERR_INVALID_ARG
 * (not resolved yet); the plugin's error; CR_ERR_NETWORK on a script
 * violation. Since: 1.2
 */
CR_API cr_status cr_testhost_watch(cr_testhost *th, int64_t timeout_ms, bool *changed,
				   cr_error *err);

/**
 * cr_testhost_set_watched:
 * @watched: whether the plugin's resolutions are a watch's.
 *
 * What host->watched (ABI 1.3) answers from now on: true as during
 * cr_context_watch() (a stream of generations: `cluster-resolver watch`,
 * `exec --elastic`), false (the default) as for a plain resolution. Set it
 * before the first cr_testhost_resolve() to resolve as a watch's first
 * generation does. Since: 1.3
 */
CR_API void cr_testhost_set_watched(cr_testhost *th, bool watched);

/** The size of the pieces a streamed answer's body is handed over in
 *  (0, the default: the whole body at once). Since: 1.2 */
CR_API void cr_testhost_set_stream_piece(cr_testhost *th, size_t bytes);

/**
 * cr_testhost_master:
 * @out: (out) (transfer none) what `cluster-resolver master` prints: the
 *     master URL of the task set with cr_testhost_set_task() (else this
 *     process's), with the overridden rpc layer, and a newline.
 * Returns: as cr_testhost_resolve(), and CR_ERR_NOT_FOUND for a task not
 * in the cluster. Since: 1.0
 */
CR_API cr_status cr_testhost_master(cr_testhost *th, const char **out, cr_error *err);

/**
 * cr_testhost_enumerate:
 * @out: (out) (transfer none) what `cluster-resolver accelerators --json`
 *     prints for this plugin alone:
 *     `{"num_accelerators": {...}, "devices": [...]}` and a newline.
 * Run an accelerator plugin (create, probe, enumerate).
 * Returns: CR_OK; CR_DECLINED ("accelerator 'NAME' declined"; the
 * plugin's reason is the captured info line "accelerator 'NAME':
 * declined: ..."); the host's error otherwise. Since: 1.0
 */
CR_API cr_status cr_testhost_enumerate(cr_testhost *th, const char **out, cr_error *err);

/* ------------------------------------------------------------------------ */
/* Captured log lines                                                        */

/** Most verbose level captured, and what host->log_enabled answers
 *  (CR_LOG_DEBUG by default). Since: 1.0 */
CR_API void cr_testhost_set_log_level(cr_testhost *th, cr_log_level level);

/** Number of captured lines. Since: 1.0 */
CR_API size_t cr_testhost_log_count(const cr_testhost *th);

/** Line @i ("resolver 'NAME': text", as the CLI prints it after
 *  "cluster-resolver: LEVEL: "), and its level; NULL past the end.
 *  (transfer none) Since: 1.0 */
CR_API const char *cr_testhost_log_line(const cr_testhost *th, size_t i, cr_log_level *level);

/** Every captured line as "LEVEL: TEXT\n" (LEVEL: error, warning, info,
 *  debug), "" when none. (transfer none) Since: 1.0 */
CR_API const char *cr_testhost_logs(cr_testhost *th);

/** Forget the captured lines. Since: 1.0 */
CR_API void cr_testhost_clear_logs(cr_testhost *th);

#ifdef __cplusplus
}
#endif

#endif /* CLUSTER_RESOLVER_TESTHOST_H */
