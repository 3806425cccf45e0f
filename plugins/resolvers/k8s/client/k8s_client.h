/* SPDX-License-Identifier: MIT */
/*
 * k8s_client.h - the Kubernetes client of k8s.so: where the API server is,
 * how to trust it and who to be there. It stands on the plugin's options
 * (k8s_options.h) and nothing else of the plugin.
 *
 *   k8s_conn.c        a connection: cleared (secrets wiped), its TLS on a request
 *   k8s_kubeconfig.c  where the API server is: in-cluster or kubeconfig
 *   k8s_auth.c        credentials: token files, exec credential plugins
 */
#ifndef K8S_CLIENT_H
#define K8S_CLIENT_H

#include <glib.h>

#include <cluster-resolver/plugin.h>

#include "../k8s_options.h"

/** An exec credential plugin from a kubeconfig user. */
struct k8s_exec {
	char *api_version;
	char *command;
	GPtrArray *args; /* char * */
	GPtrArray *env;  /* char * "NAME=value" */
	char *install_hint;
	char *dir; /* directory of the kubeconfig that defined it */
	bool provide_cluster_info;
};

/**
 * struct k8s_conn - how to talk to one API server. Strings are owned.
 * @token and @key_pem are secrets: wiped when freed, never printed.
 */
struct k8s_conn {
	char *server; /* https://host:port[/prefix], no trailing '/' */
	char *source; /* "in-cluster config", "kubeconfig F context 'C'" */
	char *user;   /* kubeconfig user name, for messages */
	char *ca_file, *ca_pem;
	char *cert_file, *cert_pem;
	char *key_file, *key_pem;
	char *ca_data_b64; /* for provideClusterInfo */
	char *token;
	char *token_file;
	char *namespace; /* context's or the service account's */
	struct k8s_exec *exec;
	bool insecure;
	bool in_cluster;
};

/* k8s_conn.c */
void k8s_conn_clear(struct k8s_conn *conn);
void k8s_exec_free(struct k8s_exec *ex);
void k8s_wipe_free(char *secret);
/* True when @url has a user:password@ part, which is refused wherever a
 * server URL is read (the host would send it as Basic authentication). */
bool k8s_url_has_userinfo(const char *url);
/* @c's trust anchors, client certificate and insecure flag on @req (the
 * list's requests and the watch's). */
void k8s_conn_tls(const struct k8s_conn *c, cr_http_request *req);

/* k8s_kubeconfig.c */
bool k8s_conn_available(const struct k8s *st, cr_plugin_ctx *ctx);
cr_status k8s_conn_load(const struct k8s *st, cr_plugin_ctx *ctx, struct k8s_conn *conn,
			cr_error *err);

/* k8s_auth.c */
cr_status k8s_auth_prepare(const struct k8s *st, cr_plugin_ctx *ctx, struct k8s_conn *conn,
			   cr_error *err);

#endif /* K8S_CLIENT_H */
