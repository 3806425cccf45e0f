/* SPDX-License-Identifier: MIT */
/*
 * host.c - the function table handed to every plugin (#cr_host_api):
 * logging, typed config access, vendor libraries, and the slots that reach
 * the world (environment, files, clock, sleep, child processes; HTTP in
 * http.c), each through the context's I/O seam (io.h). JSON and result
 * builders live in their own files.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <glib.h>

#include "host/host-private.h"

/* ---- logging ------------------------------------------------------------- */

static void host_log(cr_plugin_ctx *pctx, cr_log_level level, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);
static void host_log(cr_plugin_ctx *pctx, cr_log_level level, const char *fmt, ...)
{
	char *msg;
	va_list ap;

	if (pctx == NULL || pctx->ctx == NULL || level > pctx->ctx->log_level)
		return;
	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	ctx_log(pctx->ctx, level, pctx->inst != NULL ? pctx->inst->label : NULL, "%s", msg);
	g_free(msg);
}

static bool host_log_enabled(cr_plugin_ctx *pctx, cr_log_level level)
{
	return pctx != NULL && pctx->ctx != NULL && level <= pctx->ctx->log_level;
}

static cr_status host_error_set(cr_error *err, cr_status code, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);
static cr_status host_error_set(cr_error *err, cr_status code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(err, code, fmt, ap);
	va_end(ap);
	return code;
}

/* ---- config views: a cr_cfg is a libconfig setting ----------------------- */

static const config_setting_t *S(const cr_cfg *c)
{
	return (const config_setting_t *)(const void *)c;
}

static const cr_cfg *C(const config_setting_t *s)
{
	return (const cr_cfg *)(const void *)s;
}

static const cr_cfg *cfg_get(const cr_cfg *group, const char *name)
{
	if (group == NULL || name == NULL || config_setting_type(S(group)) != CONFIG_TYPE_GROUP)
		return NULL;
	return C(config_setting_get_member(S(group), name));
}

static cr_cfg_type cfg_type(const cr_cfg *v)
{
	if (v == NULL)
		return CR_CFG_NONE;
	switch (config_setting_type(S(v))) {
	case CONFIG_TYPE_GROUP:
		return CR_CFG_GROUP;
	case CONFIG_TYPE_INT:
		return CR_CFG_INT;
	case CONFIG_TYPE_INT64:
		return CR_CFG_INT64;
	case CONFIG_TYPE_FLOAT:
		return CR_CFG_FLOAT;
	case CONFIG_TYPE_STRING:
		return CR_CFG_STRING;
	case CONFIG_TYPE_BOOL:
		return CR_CFG_BOOL;
	case CONFIG_TYPE_ARRAY:
		return CR_CFG_ARRAY;
	case CONFIG_TYPE_LIST:
		return CR_CFG_LIST;
	}
	return CR_CFG_NONE;
}

static size_t cfg_length(const cr_cfg *v)
{
	return v != NULL ? (size_t)config_setting_length(S(v)) : 0;
}

static const cr_cfg *cfg_elem(const cr_cfg *v, size_t i)
{
	if (v == NULL || i >= cfg_length(v))
		return NULL;
	return C(config_setting_get_elem(S(v), (unsigned)i));
}

static const char *cfg_name(const cr_cfg *v)
{
	return v != NULL ? config_setting_name(S(v)) : NULL;
}

static const char *cfg_string(const cr_cfg *v)
{
	if (v == NULL || config_setting_type(S(v)) != CONFIG_TYPE_STRING)
		return NULL;
	return config_setting_get_string(S(v));
}

static bool cfg_int(const cr_cfg *v, int64_t *out)
{
	int ty = v != NULL ? config_setting_type(S(v)) : CONFIG_TYPE_NONE;

	if (ty != CONFIG_TYPE_INT && ty != CONFIG_TYPE_INT64)
		return false;
	if (out != NULL)
		*out = config_setting_get_int64(S(v));
	return true;
}

static bool cfg_float(const cr_cfg *v, double *out)
{
	int64_t i;

	if (cfg_int(v, &i)) {
		if (out != NULL)
			*out = (double)i;
		return true;
	}
	if (v == NULL || config_setting_type(S(v)) != CONFIG_TYPE_FLOAT)
		return false;
	if (out != NULL)
		*out = config_setting_get_float(S(v));
	return true;
}

static bool cfg_bool(const cr_cfg *v, bool *out)
{
	if (v == NULL || config_setting_type(S(v)) != CONFIG_TYPE_BOOL)
		return false;
	if (out != NULL)
		*out = config_setting_get_bool(S(v)) != 0;
	return true;
}

static const char *cfg_file(const cr_cfg *v)
{
	return cfg_file_of(S(v));
}

static int cfg_line(const cr_cfg *v)
{
	return v != NULL ? (int)config_setting_source_line(S(v)) : 0;
}

/* Schema-aware getters: the user's value, else the declared default. */
static const cr_option *opt_schema(cr_plugin_ctx *pctx, const char *name)
{
	if (pctx == NULL || pctx->inst == NULL)
		return NULL;
	return schema_find(pctx->inst->plugin->desc, name);
}

static const cr_cfg *opt_value(cr_plugin_ctx *pctx, const char *name)
{
	if (pctx == NULL || pctx->inst == NULL)
		return NULL;
	return cfg_get(C(pctx->inst->setting), name);
}

static const char *opt_string(cr_plugin_ctx *pctx, const char *name)
{
	const cr_cfg *v = opt_value(pctx, name);
	const cr_option *o;

	if (v != NULL)
		return cfg_string(v);
	o = opt_schema(pctx, name);
	return o != NULL ? o->default_value : NULL;
}

static int64_t opt_int(cr_plugin_ctx *pctx, const char *name)
{
	const cr_cfg *v = opt_value(pctx, name);
	const cr_option *o;
	int64_t i = 0;

	if (v != NULL && cfg_int(v, &i))
		return i;
	o = opt_schema(pctx, name);
	if (o != NULL && o->default_value != NULL)
		return g_ascii_strtoll(o->default_value, NULL, 0);
	return 0;
}

static bool opt_bool(cr_plugin_ctx *pctx, const char *name)
{
	const cr_cfg *v = opt_value(pctx, name);
	const cr_option *o;
	bool b = false;

	if (v != NULL && cfg_bool(v, &b))
		return b;
	o = opt_schema(pctx, name);
	return o != NULL && g_strcmp0(o->default_value, "true") == 0;
}

static double opt_float(cr_plugin_ctx *pctx, const char *name)
{
	const cr_cfg *v = opt_value(pctx, name);
	const cr_option *o;
	double d = 0;

	if (v != NULL && cfg_float(v, &d))
		return d;
	o = opt_schema(pctx, name);
	if (o != NULL && o->default_value != NULL)
		return g_ascii_strtod(o->default_value, NULL);
	return 0;
}

static bool opt_is_set(cr_plugin_ctx *pctx, const char *name)
{
	return opt_value(pctx, name) != NULL;
}

/* ---- environment and files: through the context's I/O seam -------------- */

/* The seam of @pctx's context; the real world without one. */
static const io_ops *pctx_io(cr_plugin_ctx *pctx, void **data)
{
	return ctx_io(pctx != NULL ? pctx->ctx : NULL, data);
}

static const char *host_getenv(cr_plugin_ctx *pctx, const char *name)
{
	if (name == NULL)
		return NULL;
	return ctx_getenv(pctx != NULL ? pctx->ctx : NULL, name);
}

static cr_status host_read_file(cr_plugin_ctx *pctx, const char *path, size_t max, char **data,
				size_t *len, cr_error *err)
{
	void *io_data;
	const io_ops *io = pctx_io(pctx, &io_data);

	if (path == NULL || data == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "read_file: NULL argument");
	return io->read_file(io_data, path, max, data, len, err);
}

static cr_status host_list_dir(cr_plugin_ctx *pctx, const char *path, char ***names, cr_error *err)
{
	void *io_data;
	const io_ops *io = pctx_io(pctx, &io_data);

	if (path == NULL || names == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "list_dir: NULL argument");
	return io->list_dir(io_data, path, names, err);
}

static void host_free(void *ptr)
{
	g_free(ptr);
}

static void host_strv_free(char **strv)
{
	g_strfreev(strv);
}

/* ---- vendor libraries and time ------------------------------------------- */

static cr_status host_dl_open(cr_plugin_ctx *pctx, const char *soname, void **handle, cr_error *err)
{
	void *h;

	char *real;
	cr_status st;

	if (soname == NULL || handle == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "dl_open: NULL argument");
	*handle = NULL;
	/* A bare soname is searched where the system keeps libraries; a path
	 * must be absolute and pass a plugin's checks (./lib.so would load
	 * whatever the current directory holds, as root under a prolog). */
	if (strchr(soname, '/') != NULL && soname[0] != '/')
		return error_set(err, CR_ERR_CONFIG,
				 "cannot load %s: a library is a bare soname or an absolute path",
				 soname);
	if (soname[0] == '/') {
		real = realpath(soname, NULL);
		if (real == NULL)
			return error_set(err, CR_DECLINED, "cannot load %s: %s", soname,
					 g_strerror(errno));
		st = loader_check_trusted("library", real, err);
		free(real);
		if (st != CR_OK)
			return st;
	}
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	*handle = h;
	if (h == NULL)
		return error_set(err, CR_DECLINED, "cannot load %s: %s", soname, dlerror());
	return CR_OK;
}

static void *host_dl_sym(void *handle, const char *symbol)
{
	return handle != NULL && symbol != NULL ? dlsym(handle, symbol) : NULL;
}

static void host_dl_close(void *handle)
{
	if (handle != NULL)
		dlclose(handle);
}

/* The 1.0 clock has no context: always the real one (now_ms is the
 * context's). */
static int64_t host_monotonic_ms(void)
{
	return io_real()->now_ms(NULL);
}

/* A sleep ends early when the context is interrupted (the real clock;
 * a test host's clock only advances). */
static void host_sleep_ms(cr_plugin_ctx *pctx, int64_t ms)
{
	void *io_data;
	const io_ops *io = pctx_io(pctx, &io_data);
	cr_context *ctx = pctx != NULL ? pctx->ctx : NULL;

	if (ms <= 0 || ctx_interrupted(ctx))
		return;
	if (io == io_real() && ctx != NULL && ctx->interrupt_fd >= 0) {
		struct pollfd p = { .fd = ctx->interrupt_fd, .events = POLLIN };
		int64_t end = io->now_ms(io_data) + ms, left = ms;

		while (left > 0 && !ctx_interrupted(ctx)) {
			if (poll(&p, 1, (int)MIN(left, (int64_t)G_MAXINT)) > 0)
				return;
			left = end - io->now_ms(io_data);
		}
		return;
	}
	io->sleep_ms(io_data, ms);
}

static int64_t host_now_ms(cr_plugin_ctx *pctx)
{
	void *io_data;
	const io_ops *io = pctx_io(pctx, &io_data);

	return io->now_ms(io_data);
}

/* ---- child processes ----------------------------------------------------- */

static cr_status spawn_check(const char *const *argv, const char *const *env, cr_spawn_result **out,
			     cr_error *err)
{
	if (out != NULL)
		*out = NULL;
	if (argv == NULL || argv[0] == NULL || *argv[0] == '\0' || out == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "spawn: no program to run");
	size_t bad = spawn_env_bad_entry(env);

	if (bad != 0)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "spawn %s: environment entry %zu is not NAME=value", argv[0], bad);
	return CR_OK;
}

static cr_status host_spawn(cr_plugin_ctx *pctx, const char *const *argv, const char *const *env,
			    int64_t timeout_ms, size_t output_cap, cr_spawn_result **out,
			    cr_error *err)
{
	void *io_data;
	const io_ops *io = pctx_io(pctx, &io_data);
	cr_status st = spawn_check(argv, env, out, err);

	if (st != CR_OK)
		return st;
	if (timeout_ms <= 0)
		timeout_ms = IO_SPAWN_DEFAULT_TIMEOUT_MS;
	if (output_cap == 0)
		output_cap = IO_SPAWN_DEFAULT_CAP;
	return io->spawn(io_data, argv, env, timeout_ms, output_cap, out, err);
}

/* ---- watch (ABI 1.2): what pipeline/watch.c set on the context -------- */

static int host_watch_cancel_fd(cr_plugin_ctx *pctx)
{
	if (pctx == NULL || pctx->ctx == NULL || pctx->inst == NULL || !pctx->inst->watching)
		return -1;
	return pctx->inst->stop_fd;
}

static bool host_watch_cancelled(cr_plugin_ctx *pctx)
{
	if (pctx == NULL || pctx->ctx == NULL || pctx->inst == NULL || !pctx->inst->watching)
		return false;
	if (ctx_interrupted(pctx->ctx))
		return true;
	return g_atomic_int_get(&pctx->inst->stopped) != 0;
}

/* A watch op of @inst begins: its end descriptor is made once (kept until
 * the instance goes; with @fd false, none: cr-testhost's clock) and
 * emptied. Returns: false when no descriptor could be made. */
bool instance_watch_begin(cr_instance *inst, bool fd)
{
	uint64_t v;

	if (fd && inst->stop_fd < 0)
		inst->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (inst->stop_fd >= 0)
		while (read(inst->stop_fd, &v, sizeof(v)) > 0)
			;
	g_atomic_int_set(&inst->stopped, 0);
	inst->watching = true;
	return !fd || inst->stop_fd >= 0;
}

/* End @inst's watch op (the round is over, or the plugin said so). */
void instance_watch_stop(cr_instance *inst)
{
	uint64_t one = 1;
	ssize_t n;

	g_atomic_int_set(&inst->stopped, 1);
	if (inst->stop_fd < 0)
		return;
	do
		n = write(inst->stop_fd, &one, sizeof(one));
	while (n < 0 && errno == EINTR);
}

/* ---- watched resolutions (ABI 1.3) -------------------------------------- */

static bool host_watched(cr_plugin_ctx *pctx)
{
	return pctx != NULL && pctx->ctx != NULL && pctx->ctx->watched;
}

static void host_watch_stop(cr_plugin_ctx *pctx)
{
	if (pctx == NULL || pctx->inst == NULL || !pctx->inst->watching)
		return;
	instance_watch_stop(pctx->inst);
}

static const cr_host_api the_host = {
	.struct_size = sizeof(cr_host_api),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.error_set = host_error_set,
	.strerror = cr_strerror,
	.log = host_log,
	.log_enabled = host_log_enabled,
	.cfg_get = cfg_get,
	.cfg_type = cfg_type,
	.cfg_length = cfg_length,
	.cfg_elem = cfg_elem,
	.cfg_name = cfg_name,
	.cfg_string = cfg_string,
	.cfg_int = cfg_int,
	.cfg_float = cfg_float,
	.cfg_bool = cfg_bool,
	.cfg_file = cfg_file,
	.cfg_line = cfg_line,
	.opt_string = opt_string,
	.opt_int = opt_int,
	.opt_bool = opt_bool,
	.opt_float = opt_float,
	.opt_is_set = opt_is_set,
	.getenv = host_getenv,
	.read_file = host_read_file,
	.list_dir = host_list_dir,
	.free = host_free,
	.strv_free = host_strv_free,
	.http_request = http_perform,
	.http_status = http_status,
	.http_body = http_body,
	.http_header = http_header,
	.http_response_free = http_response_free,
	.json_parse = host_json_parse,
	.json_free = host_json_free,
	.json_get = host_json_get,
	.json_type = host_json_type,
	.json_string = host_json_string,
	.json_int = host_json_int,
	.json_double = host_json_double,
	.json_bool = host_json_bool,
	.json_length = host_json_length,
	.json_index = host_json_index,
	.json_each = host_json_each,
	.hostlist_expand = cr_hostlist_expand,
	.hostlist_compress = cr_hostlist_compress,
	.result_add_job = host_result_add_job,
	.result_append_task = host_result_append_task,
	.result_add_task = host_result_add_task,
	.result_set_task = host_result_set_task,
	.result_set_rpc_layer = host_result_set_rpc_layer,
	.result_set_environment = host_result_set_environment,
	.result_set_master = host_result_set_master,
	.result_set_task_accelerators = host_result_set_task_accelerators,
	.result_set_env = host_result_set_env,
	.accel_add = host_accel_add,
	.text_set = host_text_set,
	.dl_open = host_dl_open,
	.dl_sym = host_dl_sym,
	.dl_close = host_dl_close,
	.monotonic_ms = host_monotonic_ms,
	.sleep_ms = host_sleep_ms,
	/* Since: ABI 1.1, in the order of the table */
	.result_add_cluster_json = host_result_add_cluster_json,
	.tasks_per_node_expand = cr_tasks_per_node_expand,
	.hostlist_foreach = cr_hostlist_foreach,
	.spawn = host_spawn,
	.spawn_result_free = spawn_result_free,
	.result_set_fact = host_result_set_fact,
	.result_pass_fd = host_result_pass_fd,
	.now_ms = host_now_ms,
	.result_set_fact_string = host_result_set_fact_string,
	/* Since: ABI 1.2 */
	.watch_cancel_fd = host_watch_cancel_fd,
	.watch_cancelled = host_watch_cancelled,
	.http_stream = http_stream_perform,
	/* Since: ABI 1.3 */
	.watched = host_watched,
	.watch_stop = host_watch_stop,
	.result_set_job_size = host_result_set_job_size,
	.result_set_task_place = host_result_set_task_place,
};

const cr_host_api *host_api(void)
{
	return &the_host;
}
