/* SPDX-License-Identifier: MIT */
/*
 * http-transport.c - the real HTTP transport (io-real.c's http slot): the
 * libcurl module, libcr-http.so (http-curl.c), loaded on the first real
 * request, so that a resolution that makes none never loads libcurl and
 * OpenSSL. The module is looked for next to the library that holds this
 * code (DIR/cluster-resolver/), then in the installed private directory;
 * it stays loaded. Checking requests and holding answers is http.c's.
 */
#include <dlfcn.h>

#include <glib.h>

#include "host/http-module.h"
#include "host/host-private.h"

/* ---- the module -------------------------------------------------------- */

static GMutex module_lock;
static const http_module *module; /* once loaded */
static char *module_error;        /* why it could not be, once tried */
static char *module_path_set;     /* http_module_set_path() */

void http_module_set_path(const char *path)
{
	g_mutex_lock(&module_lock);
	g_free(module_path_set);
	module_path_set = g_strdup(path);
	g_mutex_unlock(&module_lock);
}

/* DIR/cluster-resolver/libcr-http.so next to the library (or program)
 * holding this code, else the installed one. */
static char *module_path(void)
{
	Dl_info info;

	if (module_path_set != NULL)
		return g_strdup(module_path_set);
	if (dladdr(&module_lock, &info) != 0 && info.dli_fname != NULL) {
		char *dir = g_path_get_dirname(info.dli_fname);
		char *path = g_build_filename(dir, "cluster-resolver", HTTP_MODULE_FILE, NULL);

		g_free(dir);
		if (g_file_test(path, G_FILE_TEST_EXISTS))
			return path;
		g_free(path);
	}
	return g_strdup(CR_HTTP_MODULE_PATH);
}

static void module_load(void)
{
	char *path = module_path();
	void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	http_module_entry_fn entry;
	const http_module *m;

	if (handle == NULL) {
		module_error =
			g_strdup_printf("cannot load the HTTP module %s: %s", path, dlerror());
		goto out;
	}
	entry = (http_module_entry_fn)dlsym(handle, HTTP_MODULE_ENTRY);
	m = entry != NULL ? entry() : NULL;
	if (m == NULL || m->struct_size < sizeof(http_module)) {
		module_error =
			g_strdup_printf("HTTP module %s: no usable %s", path, HTTP_MODULE_ENTRY);
		dlclose(handle);
		goto out;
	}
	g_atomic_pointer_set(&module, m); /* never unloaded: libcurl and OpenSSL stay initialised */
out:
	g_free(path);
}

static const http_module *module_get(cr_error *err)
{
	const http_module *m;

	g_mutex_lock(&module_lock);
	if (module == NULL && module_error == NULL)
		module_load();
	m = module;
	if (m == NULL)
		error_set(err, CR_ERR_PLUGIN, "%s", module_error);
	g_mutex_unlock(&module_lock);
	return m;
}

static void module_debug(cr_plugin_ctx *pctx, const char *message)
{
	if (pctx != NULL && pctx->inst != NULL)
		ctx_log(pctx->ctx, CR_LOG_DEBUG, pctx->inst->label, "%s", message);
}

static int module_interrupt_fd(cr_plugin_ctx *pctx)
{
	return pctx != NULL && pctx->ctx != NULL ? pctx->ctx->interrupt_fd : -1;
}

static const http_module_host module_host = {
	.error_set = error_set,
	.debug = module_debug,
	.interrupt_fd = module_interrupt_fd,
};

cr_status http_transport(cr_plugin_ctx *pctx, const cr_http_request *req, cr_http_response *reply,
			 cr_error *err)
{
	const http_module *m = module_get(err);
	http_conn **conn = pctx != NULL && pctx->inst != NULL ? &pctx->inst->http : NULL;

	if (m == NULL)
		return CR_ERR_PLUGIN;
	return m->perform(&module_host, pctx, conn, req, reply, err);
}

cr_status http_transport_stream(cr_plugin_ctx *pctx, const cr_http_request *req, int cancel_fd,
				cr_http_data_fn on_data, void *user_data, cr_http_response *reply,
				cr_error *err)
{
	const http_module *m = module_get(err);
	/* Outside a watch nothing must be polled beside it: the instance's
	 * kept-alive connections serve it, as any request. */
	http_conn **conn =
		cancel_fd < 0 && pctx != NULL && pctx->inst != NULL ? &pctx->inst->http : NULL;

	if (m == NULL)
		return CR_ERR_PLUGIN;
	return m->stream(&module_host, pctx, conn, req, cancel_fd, on_data, user_data, reply, err);
}

void http_conn_free(http_conn *conn)
{
	/* A handle exists only if the module made it; read without the lock
	 * (set once, atomically), as a context may be freed in any thread. */
	const http_module *m = g_atomic_pointer_get(&module);

	if (conn != NULL && m != NULL)
		m->conn_free(conn);
}
