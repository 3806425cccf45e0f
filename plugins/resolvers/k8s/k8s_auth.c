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
 * certificate and key. Its stderr goes to ours, as with kubectl. Unlike
 * kubectl, it gets `exec_timeout` seconds: then its process group (it runs
 * in its own) is killed and the resolve fails naming the command.
 * Secrets are wiped from memory when dropped and never printed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "k8s.h"

static const char *const k8s_exec_versions[] = {
	"client.authentication.k8s.io/v1",
	"client.authentication.k8s.io/v1beta1",
	NULL,
};

static cr_status k8s_read_token(cr_plugin_ctx *ctx, const char *path, char **token,
				cr_error *err)
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

static char **k8s_exec_envp(const struct k8s_conn *c)
{
	char **envp = g_get_environ();
	char *info = k8s_exec_info(c);

	for (guint i = 0; i < c->exec->env->len; i++) {
		char **kv = g_strsplit(g_ptr_array_index(c->exec->env, i), "=", 2);

		envp = g_environ_setenv(envp, kv[0], kv[1] ? kv[1] : "", TRUE);
		g_strfreev(kv);
	}
	envp = g_environ_setenv(envp, "KUBERNETES_EXEC_INFO", info, TRUE);
	g_free(info);
	return envp;
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
		rc = cr_host->error_set(err, CR_ERR_AUTH,
					"%s: expected kind ExecCredential, apiVersion \"%s\"; got \"%s\", \"%s\"",
					what, ex->api_version, kind ? kind : "",
					ver ? ver : "");
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
					"%s: status has neither a token nor clientCertificateData and clientKeyData",
					what);
	}
	cr_host->json_free(root);
	return rc;
}

static cr_status k8s_exec_spawn_error(const struct k8s_exec *ex, const char *what,
				      GError *gerr, cr_error *err)
{
	cr_status rc;

	rc = cr_host->error_set(err, CR_ERR_AUTH, "%s: %s%s%s", what, gerr->message,
				ex->install_hint ? ": " : "",
				ex->install_hint ? ex->install_hint : "");
	g_error_free(gerr);
	return rc;
}

#define K8S_EXEC_MAX_OUTPUT (1u << 20)

/* The plugin runs in a process group of its own, so that a timeout also
 * ends what it started (a shell script's children). */
static void k8s_exec_child_setup(gpointer data)
{
	(void)data;
	setpgid(0, 0);
}

static void k8s_exec_kill(GPid pid, int *status)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

/* Read the plugin's stdout into @out until it ends, then reap it; false
 * when @deadline (monotonic ms) passes first (it is killed then). */
static bool k8s_exec_collect(GPid pid, int fd, int64_t deadline, GString *out, int *status)
{
	char buf[4096];
	ssize_t n;
	pid_t done;

	for (;;) {
		int64_t left = deadline - cr_host->monotonic_ms();
		struct pollfd p = { fd, POLLIN, 0 };

		if (left <= 0)
			goto timeout;
		if (poll(&p, 1, left > 1000 ? 1000 : (int)left) <= 0)
			continue; /* timeout slice or EINTR: check the deadline */
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out->len + (size_t)n <= K8S_EXEC_MAX_OUTPUT) /* more is an error below */
			g_string_append_len(out, buf, n);
		else
			out->len = K8S_EXEC_MAX_OUTPUT + 1;
		explicit_bzero(buf, sizeof(buf));
	}
	/* stdout closed: wait for the exit, still within the deadline */
	while ((done = waitpid(pid, status, WNOHANG)) == 0 || (done < 0 && errno == EINTR)) {
		if (cr_host->monotonic_ms() >= deadline)
			goto timeout;
		g_usleep(2000);
	}
	return true;
timeout:
	k8s_exec_kill(pid, status);
	return false;
}

/* Run the exec credential plugin and take its token or certificate. */
static cr_status k8s_exec_run(const struct k8s *st, struct k8s_conn *c, cr_error *err)
{
	const struct k8s_exec *ex = c->exec;
	char **argv = NULL, **envp = NULL;
	char *what;
	GString *out = g_string_new(NULL);
	GError *gerr = NULL;
	GPid pid = 0;
	int status = 0, fd = -1;
	cr_status rc;

	what = g_strdup_printf("exec credential plugin '%s' (user '%s')", ex->command, c->user);
	if (!ex->api_version || !g_strv_contains(k8s_exec_versions, ex->api_version)) {
		rc = cr_host->error_set(err, CR_ERR_UNSUPPORTED,
					"%s: apiVersion \"%s\" is not supported (use client.authentication.k8s.io/v1 or v1beta1)",
					what, ex->api_version ? ex->api_version : "");
		goto out;
	}
	argv = k8s_exec_argv(ex);
	envp = k8s_exec_envp(c);
	if (!g_spawn_async_with_pipes(NULL, argv, envp,
				      G_SPAWN_SEARCH_PATH_FROM_ENVP | G_SPAWN_DO_NOT_REAP_CHILD,
				      k8s_exec_child_setup, NULL, &pid, NULL, &fd, NULL, &gerr)) {
		rc = k8s_exec_spawn_error(ex, what, gerr, err);
		goto out;
	}
	if (!k8s_exec_collect(pid, fd, cr_host->monotonic_ms() + st->exec_timeout_ms, out,
			      &status)) {
		rc = cr_host->error_set(err, CR_ERR_TIMEOUT,
					"%s: no answer after %.1f s (exec_timeout); killed", what,
					(double)st->exec_timeout_ms / 1000.0);
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		rc = cr_host->error_set(err, CR_ERR_AUTH, "%s: exited with status %d", what,
					WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		goto out;
	}
	if (out->len > K8S_EXEC_MAX_OUTPUT) {
		rc = cr_host->error_set(err, CR_ERR_AUTH, "%s: more than %u bytes of output", what,
					K8S_EXEC_MAX_OUTPUT);
		goto out;
	}
	rc = k8s_exec_parse(ex, what, out->str, out->len, c, err);
out:
	if (fd >= 0)
		close(fd);
	if (pid > 0)
		g_spawn_close_pid(pid);
	explicit_bzero(out->str, out->allocated_len);
	g_string_free(out, TRUE);
	g_strfreev(argv);
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
		return k8s_exec_run(st, conn, err);
	if (conn->token_file)
		return k8s_read_token(ctx, conn->token_file, &conn->token, err);
	return CR_OK;
}
