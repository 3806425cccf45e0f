/* SPDX-License-Identifier: MIT */
/*
 * k8s_conn.c - a connection to one API server (struct k8s_conn) as the
 * other files hold it: its secrets wiped when it is cleared, a server URL
 * with user info refused wherever one is read, and its trust anchors and
 * client certificate put on a request.
 */
#include <string.h>

#include "k8s_client.h"

void k8s_wipe_free(char *secret)
{
	if (secret)
		explicit_bzero(secret, strlen(secret));
	g_free(secret);
}

void k8s_exec_free(struct k8s_exec *ex)
{
	if (!ex)
		return;
	g_free(ex->api_version);
	g_free(ex->command);
	g_ptr_array_free(ex->args, TRUE);
	g_ptr_array_free(ex->env, TRUE);
	g_free(ex->install_hint);
	g_free(ex->dir);
	g_free(ex);
}

void k8s_conn_clear(struct k8s_conn *c)
{
	g_free(c->server);
	g_free(c->source);
	g_free(c->user);
	g_free(c->ca_file);
	g_free(c->ca_pem);
	g_free(c->cert_file);
	g_free(c->cert_pem);
	g_free(c->key_file);
	k8s_wipe_free(c->key_pem);
	g_free(c->ca_data_b64);
	k8s_wipe_free(c->token);
	g_free(c->token_file);
	g_free(c->namespace);
	k8s_exec_free(c->exec);
	memset(c, 0, sizeof(*c));
}

bool k8s_url_has_userinfo(const char *url)
{
	const char *scheme = strstr(url, "://");
	const char *auth = scheme != NULL ? scheme + 3 : url;

	return memchr(auth, '@', strcspn(auth, "/?#")) != NULL;
}

void k8s_conn_tls(const struct k8s_conn *c, cr_http_request *req)
{
	req->ca_file = c->ca_file;
	req->ca_pem = c->ca_pem;
	req->cert_file = c->cert_file;
	req->cert_pem = c->cert_pem;
	req->key_file = c->key_file;
	req->key_pem = c->key_pem;
	req->insecure = c->insecure;
}
