/* SPDX-License-Identifier: MIT */
/*
 * k8s_auth.c - credentials for one resolve.
 *
 * Token files (the service-account token, a kubeconfig tokenFile) are read
 * again on every resolve, because bound service-account tokens rotate.
 * An `exec` credential plugin is run the way kubectl runs it: the command
 * with its args, the kubeconfig's env added to ours, KUBERNETES_EXEC_INFO
 * describing the request, and an ExecCredential JSON object on its stdout
 * (client.authentication.k8s.io/v1 or v1beta1) carrying a token or a client
 * certificate and key. What it writes to stderr is logged, line by line
 * (kubectl shows it too): as warnings when it failed, else at info level.
 * It runs through host->spawn, in a process group of its own; unlike
 * kubectl, it gets `exec_timeout` seconds: then the group is killed and
 * the resolve fails naming the command.
 * Secrets are wiped from memory when dropped and never printed.
 */
#include <string.h>

#include "k8s_client.h"

static const char *const k8s_exec_versions[] = {
	"client.authentication.k8s.io/v1",
	"client.authentication.k8s.io/v1beta1",
	NULL,
};

static cr_status k8s_read_token(cr_plugin_ctx *ctx, const char *path, char **token, cr_error *err)
{
	char *data = NULL;
	size_t len = 0;
	cr_status rc;

	rc = cr_host->read_file(ctx, path, 1u << 20, &data, &len, err);
	if (rc != CR_OK)
		return rc;
	k8s_wipe_free(*token);
	*token = g_strstrip(g_strdup(data));
	explicit_bzero(data, len);
	cr_host->free(data);
	if (**token == '\0')
		return cr_host->error_set(err, CR_ERR_AUTH, "token file %s is empty", path);
	return CR_OK;
}

/* KUBERNETES_EXEC_INFO: what kubectl tells the plugin about the request. */
static char *k8s_exec_info(const struct k8s_conn *c)
{
	GString *s = g_string_new(NULL);

	g_string_append_printf(s, "{\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\",\"spec\":{",
			       c->exec->api_version);
	if (c->exec->provide_cluster_info) {
		g_string_append_printf(s, "\"cluster\":{\"server\":\"%s\"", c->server);
		if (c->ca_data_b64)
			g_string_append_printf(s, ",\"certificate-authority-data\":\"%s\"",
					       c->ca_data_b64);
		if (c->insecure)
			g_string_append(s, ",\"insecure-skip-tls-verify\":true");
		g_string_append(s, "},");
	}
	g_string_append(s, "\"interactive\":false}}");
	return g_string_free(s, FALSE);
}

/* The kubeconfig's env entries, then KUBERNETES_EXEC_INFO, as NAME=value
 * entries on top of our environment (host->spawn's @env). */
static char **k8s_exec_envp(const struct k8s_conn *c)
{
	GPtrArray *env = g_ptr_array_new();
	char *info = k8s_exec_info(c);

	for (guint i = 0; i < c->exec->env->len; i++) {
		const char *e = g_ptr_array_index(c->exec->env, i);

		g_ptr_array_add(env, strchr(e, '=') ? g_strdup(e) : g_strconcat(e, "=", NULL));
	}
	g_ptr_array_add(env, g_strconcat("KUBERNETES_EXEC_INFO=", info, NULL));
	g_ptr_array_add(env, NULL);
	g_free(info);
	return (char **)g_ptr_array_free(env, FALSE);
}

/* argv[0]: a relative path with a '/' is relative to the kubeconfig's dir;
 * a bare name is looked up on PATH. */
static char **k8s_exec_argv(const struct k8s_exec *ex)
{
	GPtrArray *argv = g_ptr_array_new();

	if (strchr(ex->command, '/') && !g_path_is_absolute(ex->command))
		g_ptr_array_add(argv, g_build_filename(ex->dir, ex->command, NULL));
	else
		g_ptr_array_add(argv, g_strdup(ex->command));
	for (guint i = 0; i < ex->args->len; i++)
		g_ptr_array_add(argv, g_strdup(g_ptr_array_index(ex->args, i)));
	g_ptr_array_add(argv, NULL);
	return (char **)g_ptr_array_free(argv, FALSE);
}

static cr_status k8s_exec_parse(const struct k8s_exec *ex, const char *what, const char *out,
				size_t len, struct k8s_conn *c, cr_error *err)
{
	cr_json *root = NULL;
	const char *kind, *ver, *tok, *cert, *key;
	cr_status rc;

	rc = cr_host->json_parse(out, len, what, &root, err);
	if (rc != CR_OK)
		return rc;
	kind = cr_host->json_string(cr_host->json_get(root, "/kind"));
	ver = cr_host->json_string(cr_host->json_get(root, "/apiVersion"));
	tok = cr_host->json_string(cr_host->json_get(root, "/status/token"));
	cert = cr_host->json_string(cr_host->json_get(root, "/status/clientCertificateData"));
	key = cr_host->json_string(cr_host->json_get(root, "/status/clientKeyData"));
	if (!kind || strcmp(kind, "ExecCredential") != 0 || !ver ||
	    strcmp(ver, ex->api_version) != 0) {
		rc = cr_host->error_set(
			err, CR_ERR_AUTH,
			"%s: expected kind ExecCredential, apiVersion \"%s\"; got \"%s\", \"%s\"",
			what, ex->api_version, kind ? kind : "", ver ? ver : "");
	} else if (tok && *tok) {
		k8s_wipe_free(c->token);
		c->token = g_strdup(tok);
	} else if (cert && key && *cert && *key) {
		g_free(c->cert_pem);
		k8s_wipe_free(c->key_pem);
		c->cert_pem = g_strdup(cert);
		c->key_pem = g_strdup(key);
		g_clear_pointer(&c->cert_file, g_free);
		g_clear_pointer(&c->key_file, g_free);
	} else {
		rc = cr_host->error_set(err, CR_ERR_AUTH,
					"%s: status has neither a token nor clientCertificateData "
					"and clientKeyData",
					what);
	}
	cr_host->json_free(root);
	return rc;
}

#define K8S_EXEC_MAX_OUTPUT (1u << 20)

/* host->spawn failed: it could not start, ran out of time or wrote too
 * much (then @res is set). */
static cr_status k8s_exec_spawn_error(const struct k8s *st, const struct k8s_exec *ex,
				      const char *what, cr_status rc, const cr_spawn_result *res,
				      const char *why, cr_error *err)
{
	if (rc == CR_ERR_TIMEOUT)
		return cr_host->error_set(err, CR_ERR_TIMEOUT,
					  "%s: no answer after %.1f s (exec_timeout); killed", what,
					  (double)st->exec_timeout_ms / 1000.0);
	if (res != NULL)
		return cr_host->error_set(err, CR_ERR_AUTH, "%s: more than %u bytes of output",
					  what, K8S_EXEC_MAX_OUTPUT);
	return cr_host->error_set(
		err, CR_ERR_AUTH, "%s: %s%s%s", what, why[0] != '\0' ? why : cr_host->strerror(rc),
		ex->install_hint ? ": " : "", ex->install_hint ? ex->install_hint : "");
}

/* The plugin's stderr, one log line each. */
static void k8s_exec_log_stderr(cr_plugin_ctx *ctx, const char *what, const cr_spawn_result *res)
{
	cr_log_level level = res->exit_status != 0 ? CR_LOG_WARNING : CR_LOG_INFO;
	char **lines;

	if (res->err_len == 0 || !cr_host->log_enabled(ctx, level))
		return;
	lines = g_strsplit(res->err, "\n", -1);
	for (char **l = lines; *l != NULL; l++)
		if (**l != '\0')
			cr_host->log(ctx, level, "%s: %s", what, *l);
	g_strfreev(lines);
}

/* Run @argv with @envp through the host; the result on CR_OK. */
static cr_status k8s_exec_spawn(const struct k8s *st, cr_plugin_ctx *ctx, const struct k8s_exec *ex,
				const char *what, char **argv, char **envp, cr_spawn_result **res,
				cr_error *err)
{
	cr_error serr = CR_ERROR_INIT;
	cr_status rc;

	rc = cr_host->spawn(ctx, (const char *const *)argv, (const char *const *)envp,
			    st->exec_timeout_ms, K8S_EXEC_MAX_OUTPUT, res, &serr);
	if (rc != CR_OK) {
		/* the spawn's own message names the program and no env value */
		rc = k8s_exec_spawn_error(st, ex, what, rc, *res, serr.message, err);
		cr_host->spawn_result_free(*res);
		*res = NULL;
	}
	return rc;
}

/* Run the exec credential plugin and take its token or certificate. */
static cr_status k8s_exec_run(const struct k8s *st, cr_plugin_ctx *ctx, struct k8s_conn *c,
			      cr_error *err)
{
	const struct k8s_exec *ex = c->exec;
	char **argv = NULL, **envp = NULL;
	cr_spawn_result *res = NULL;
	char *what;
	cr_status rc;

	what = g_strdup_printf("exec credential plugin '%s' (user '%s')", ex->command, c->user);
	if (!ex->api_version || !g_strv_contains(k8s_exec_versions, ex->api_version)) {
		rc = cr_host->error_set(err, CR_ERR_UNSUPPORTED,
					"%s: apiVersion \"%s\" is not supported (use "
					"client.authentication.k8s.io/v1 or v1beta1)",
					what, ex->api_version ? ex->api_version : "");
		goto out;
	}
	argv = k8s_exec_argv(ex);
	envp = k8s_exec_envp(c);
	rc = k8s_exec_spawn(st, ctx, ex, what, argv, envp, &res, err);
	if (rc != CR_OK)
		goto out;
	k8s_exec_log_stderr(ctx, what, res);
	if (res->exit_status != 0)
		rc = cr_host->error_set(err, CR_ERR_AUTH, "%s: exited with status %d", what,
					res->exit_status);
	else
		rc = k8s_exec_parse(ex, what, res->out, res->out_len, c, err);
out:
	cr_host->spawn_result_free(res);
	g_strfreev(argv);
	if (envp != NULL)
		for (char **e = envp; *e != NULL; e++)
			explicit_bzero(*e, strlen(*e));
	g_strfreev(envp);
	g_free(what);
	return rc;
}

/**
 * k8s_auth_prepare:
 * Turn @conn's credential sources into material for this resolve: run the
 * exec plugin, else read the token file. A token inline in the kubeconfig
 * or a client certificate needs nothing.
 * Returns: CR_OK, CR_ERR_AUTH, CR_ERR_IO, CR_ERR_NOT_FOUND, CR_ERR_UNSUPPORTED.
 */
cr_status k8s_auth_prepare(const struct k8s *st, cr_plugin_ctx *ctx, struct k8s_conn *conn,
			   cr_error *err)
{
	if (conn->exec)
		return k8s_exec_run(st, ctx, conn, err);
	if (conn->token_file)
		return k8s_read_token(ctx, conn->token_file, &conn->token, err);
	return CR_OK;
}
