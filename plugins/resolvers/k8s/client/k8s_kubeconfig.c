/* SPDX-License-Identifier: MIT */
/*
 * k8s_kubeconfig.c - where the API server is and how to trust it.
 *
 * In a pod: KUBERNETES_SERVICE_HOST/PORT and the service-account CA and
 * namespace files. Elsewhere: a kubeconfig. $KUBECONFIG may name several
 * files (':'-separated); they merge as kubectl merges them: for clusters,
 * users and contexts the first file that defines a name wins, and the first
 * non-empty current-context wins. Relative paths inside a file are relative
 * to that file's directory. YAML is read with libyaml.
 */
#include <string.h>

#include <yaml.h>

#include "k8s_client.h"

/** A loaded kubeconfig file. */
struct k8s_kcfile {
	char *path;
	char *dir;
	yaml_document_t doc;
};

/* ---- tiny accessors over a libyaml document ---------------------------- */

static yaml_node_t *k8s_y_get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(d, p->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    strcmp((char *)k->data.scalar.value, key) == 0)
			return yaml_document_get_node(d, p->value);
	}
	return NULL;
}

/* Scalar text, or NULL for absent, empty, null and non-scalar values. */
static const char *k8s_y_str(yaml_node_t *n)
{
	const char *s;

	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	s = (const char *)n->data.scalar.value;
	if (*s == '\0' || (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
			   (strcmp(s, "null") == 0 || strcmp(s, "~") == 0)))
		return NULL;
	return s;
}

static const char *k8s_y_path(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	return k8s_y_str(k8s_y_get(d, map, key));
}

static bool k8s_y_true(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	const char *s = k8s_y_path(d, map, key);

	return s && (g_ascii_strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0);
}

/* The @inner mapping of the item named @name in the top-level list @list. */
static yaml_node_t *k8s_y_named(struct k8s_kcfile *f, const char *list, const char *name,
				const char *inner)
{
	yaml_node_t *root = yaml_document_get_root_node(&f->doc);
	yaml_node_t *seq = k8s_y_get(&f->doc, root, list);

	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return NULL;
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	     it < seq->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(&f->doc, *it);
		const char *n = k8s_y_path(&f->doc, item, "name");

		if (n && strcmp(n, name) == 0)
			return k8s_y_get(&f->doc, item, inner);
	}
	return NULL;
}

/* ---- loading and merging ------------------------------------------------ */

static void k8s_kcfile_free(gpointer p)
{
	struct k8s_kcfile *f = p;

	yaml_document_delete(&f->doc);
	g_free(f->path);
	g_free(f->dir);
	g_free(f);
}

/* The largest kubeconfig read (a real one is a few KiB; kubectl's merged
 * configs of hundreds of clusters stay well under this). */
#define K8S_KUBECONFIG_MAX (1u << 20)
/* Flow collections ([ ], { }) nested deeper than this are refused before
 * libyaml sees them: its scanner is quadratic in that depth (400 KB of '['
 * took 87 s). A kubeconfig nests three or four. */
#define K8S_YAML_DEPTH_MAX 64

/* The line of the first flow collection deeper than K8S_YAML_DEPTH_MAX, or
 * 0. Quoted scalars and comments are skipped; over-counting elsewhere only
 * refuses YAML no kubeconfig has. */
static size_t k8s_yaml_too_deep(const char *text, size_t len)
{
	size_t line = 1;
	int depth = 0;
	char quote = 0;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (c == '\n')
			line++;
		if (quote) {
			if (c == '\\' && quote == '"' && i + 1 < len)
				i++;
			else if (c == quote)
				quote = 0;
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '#') {
			while (i + 1 < len && text[i + 1] != '\n')
				i++;
		} else if (c == '[' || c == '{') {
			if (++depth > K8S_YAML_DEPTH_MAX)
				return line;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return 0;
}

static cr_status k8s_kcfile_load(cr_plugin_ctx *ctx, const char *path, GPtrArray *files,
				 cr_error *err)
{
	struct k8s_kcfile *f;
	yaml_parser_t parser;
	char *text = NULL;
	size_t len = 0, deep;
	cr_status rc;

	rc = cr_host->read_file(ctx, path, K8S_KUBECONFIG_MAX, &text, &len, err);
	if (rc != CR_OK)
		return rc;
	deep = k8s_yaml_too_deep(text, len);
	if (deep != 0) {
		rc = cr_host->error_set(err, CR_ERR_PARSE,
					"kubeconfig %s:%zu: collections nested deeper than %d",
					path, deep, K8S_YAML_DEPTH_MAX);
		goto out;
	}
	f = g_new0(struct k8s_kcfile, 1);
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &f->doc)) {
		rc = cr_host->error_set(err, CR_ERR_PARSE, "kubeconfig %s:%zu: %s", path,
					parser.problem_mark.line + 1,
					parser.problem ? parser.problem : "invalid YAML");
		yaml_parser_delete(&parser);
		g_free(f);
		goto out;
	}
	yaml_parser_delete(&parser);
	f->path = g_strdup(path);
	f->dir = g_path_get_dirname(path);
	g_ptr_array_add(files, f);
out:
	explicit_bzero(text, len);
	cr_host->free(text);
	return rc;
}

/* The kubeconfig files in merge order. An explicit `kubeconfig` option must
 * exist; entries of $KUBECONFIG that do not exist are skipped as kubectl
 * skips them. */
static char **k8s_kubeconfig_paths(const struct k8s *st, cr_plugin_ctx *ctx)
{
	const char *env = cr_host->getenv(ctx, "KUBECONFIG");
	const char *home = cr_host->getenv(ctx, "HOME");
	GPtrArray *out = g_ptr_array_new();

	if (st->kubeconfig) {
		g_ptr_array_add(out, g_strdup(st->kubeconfig));
	} else if (env && *env) {
		char **parts = g_strsplit(env, ":", -1);

		for (char **p = parts; *p; p++)
			if (**p && g_file_test(*p, G_FILE_TEST_IS_REGULAR))
				g_ptr_array_add(out, g_strdup(*p));
		g_strfreev(parts);
	} else if (home && *home) {
		char *p = g_build_filename(home, ".kube", "config", NULL);

		if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
			g_ptr_array_add(out, p);
		else
			g_free(p);
	}
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

static bool k8s_in_cluster_env(cr_plugin_ctx *ctx)
{
	const char *h = cr_host->getenv(ctx, "KUBERNETES_SERVICE_HOST");
	const char *p = cr_host->getenv(ctx, "KUBERNETES_SERVICE_PORT");

	return h && *h && p && *p;
}

bool k8s_conn_available(const struct k8s *st, cr_plugin_ctx *ctx)
{
	char **paths;
	bool any;

	if (st->server || st->kubeconfig || k8s_in_cluster_env(ctx))
		return true;
	paths = k8s_kubeconfig_paths(st, ctx);
	any = paths[0] != NULL;
	g_strfreev(paths);
	return any;
}

/* A path from a kubeconfig, made absolute against the file's directory. */
static char *k8s_kc_abs(struct k8s_kcfile *f, const char *p)
{
	if (!p)
		return NULL;
	return g_path_is_absolute(p) ? g_strdup(p) : g_build_filename(f->dir, p, NULL);
}

static char *k8s_b64_pem(const char *b64)
{
	gsize len = 0;
	guchar *raw;
	char *pem;

	if (!b64)
		return NULL;
	raw = g_base64_decode(b64, &len);
	pem = g_strndup((const char *)raw, len);
	explicit_bzero(raw, len);
	g_free(raw);
	return pem;
}

/* First file (merge order) whose list @list has an item named @name. */
static yaml_node_t *k8s_kc_find(GPtrArray *files, const char *list, const char *name,
				const char *inner, struct k8s_kcfile **where)
{
	for (guint i = 0; i < files->len; i++) {
		struct k8s_kcfile *f = g_ptr_array_index(files, i);
		yaml_node_t *n = k8s_y_named(f, list, name, inner);

		if (n) {
			*where = f;
			return n;
		}
	}
	return NULL;
}

static cr_status k8s_kc_exec(struct k8s_kcfile *f, yaml_node_t *ex, struct k8s_conn *c,
			     cr_error *err)
{
	yaml_document_t *d = &f->doc;
	yaml_node_t *args = k8s_y_get(d, ex, "args");
	yaml_node_t *env = k8s_y_get(d, ex, "env");
	struct k8s_exec *e = g_new0(struct k8s_exec, 1);

	c->exec = e;
	e->api_version = g_strdup(k8s_y_path(d, ex, "apiVersion"));
	e->command = g_strdup(k8s_y_path(d, ex, "command"));
	e->install_hint = g_strdup(k8s_y_path(d, ex, "installHint"));
	e->provide_cluster_info = k8s_y_true(d, ex, "provideClusterInfo");
	e->dir = g_strdup(f->dir);
	e->args = g_ptr_array_new_with_free_func(g_free);
	e->env = g_ptr_array_new_with_free_func(g_free);
	if (!e->command)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "kubeconfig %s: user '%s': exec has no command", f->path,
					  c->user);
	if (args && args->type == YAML_SEQUENCE_NODE)
		for (yaml_node_item_t *it = args->data.sequence.items.start;
		     it < args->data.sequence.items.top; it++) {
			yaml_node_t *a = yaml_document_get_node(d, *it);

			g_ptr_array_add(e->args, g_strdup(a && a->type == YAML_SCALAR_NODE
								  ? (char *)a->data.scalar.value
								  : ""));
		}
	if (env && env->type == YAML_SEQUENCE_NODE)
		for (yaml_node_item_t *it = env->data.sequence.items.start;
		     it < env->data.sequence.items.top; it++) {
			yaml_node_t *kv = yaml_document_get_node(d, *it);
			const char *name = k8s_y_path(d, kv, "name");
			const char *value = k8s_y_str(k8s_y_get(d, kv, "value"));

			if (name)
				g_ptr_array_add(e->env,
						g_strdup_printf("%s=%s", name, value ? value : ""));
		}
	return CR_OK;
}

static cr_status k8s_kc_user(struct k8s_kcfile *f, yaml_node_t *u, struct k8s_conn *c,
			     cr_error *err)
{
	yaml_document_t *d = &f->doc;
	yaml_node_t *ex = k8s_y_get(d, u, "exec");
	yaml_node_t *ap = k8s_y_get(d, u, "auth-provider");

	c->cert_pem = k8s_b64_pem(k8s_y_path(d, u, "client-certificate-data"));
	c->key_pem = k8s_b64_pem(k8s_y_path(d, u, "client-key-data"));
	if (!c->cert_pem)
		c->cert_file = k8s_kc_abs(f, k8s_y_path(d, u, "client-certificate"));
	if (!c->key_pem)
		c->key_file = k8s_kc_abs(f, k8s_y_path(d, u, "client-key"));
	c->token = g_strdup(k8s_y_path(d, u, "token"));
	c->token_file = k8s_kc_abs(f, k8s_y_path(d, u, "tokenFile"));
	if (ap)
		return cr_host->error_set(err, CR_ERR_UNSUPPORTED,
					  "kubeconfig %s: user '%s': auth-provider '%s' is not "
					  "supported; use an exec credential plugin",
					  f->path, c->user,
					  k8s_y_path(d, ap, "name") ? k8s_y_path(d, ap, "name")
								    : "?");
	if (k8s_y_path(d, u, "username") && !c->token && !c->token_file && !ex)
		return cr_host->error_set(
			err, CR_ERR_UNSUPPORTED,
			"kubeconfig %s: user '%s': basic authentication is not supported", f->path,
			c->user);
	if (ex)
		return k8s_kc_exec(f, ex, c, err);
	return CR_OK;
}

static cr_status k8s_kc_cluster(struct k8s_kcfile *f, yaml_node_t *cl, const char *name,
				struct k8s_conn *c, cr_error *err)
{
	yaml_document_t *d = &f->doc;
	const char *server = k8s_y_path(d, cl, "server");

	if (!server && !c->server)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "kubeconfig %s: cluster '%s' has no server", f->path,
					  name);
	if (!c->server && k8s_url_has_userinfo(server))
		return cr_host->error_set(
			err, CR_ERR_CONFIG,
			"kubeconfig %s: cluster '%s': the server URL holds a user "
			"name or password; basic authentication is not supported",
			f->path, name);
	if (!c->server)
		c->server = g_strdup(server);
	c->ca_data_b64 = g_strdup(k8s_y_path(d, cl, "certificate-authority-data"));
	c->ca_pem = k8s_b64_pem(c->ca_data_b64);
	if (!c->ca_pem)
		c->ca_file = k8s_kc_abs(f, k8s_y_path(d, cl, "certificate-authority"));
	c->insecure = k8s_y_true(d, cl, "insecure-skip-tls-verify");
	return CR_OK;
}

static const char *k8s_kc_current(const struct k8s *st, GPtrArray *files)
{
	if (st->context)
		return st->context;
	for (guint i = 0; i < files->len; i++) {
		struct k8s_kcfile *f = g_ptr_array_index(files, i);
		const char *cur = k8s_y_path(&f->doc, yaml_document_get_root_node(&f->doc),
					     "current-context");

		if (cur)
			return cur;
	}
	return NULL;
}

/* Context -> cluster + user, each from the first file that defines it. */
static cr_status k8s_kc_resolve(const struct k8s *st, GPtrArray *files, struct k8s_conn *c,
				cr_error *err)
{
	struct k8s_kcfile *cf = NULL, *clf = NULL, *uf = NULL;
	const char *name = k8s_kc_current(st, files);
	const char *first = ((struct k8s_kcfile *)g_ptr_array_index(files, 0))->path;
	yaml_node_t *ctxn, *cl = NULL, *u = NULL;
	const char *cluster, *user;
	cr_status rc;

	if (!name)
		return cr_host->error_set(
			err, CR_ERR_CONFIG,
			"kubeconfig %s: no current-context and no `context` option", first);
	ctxn = k8s_kc_find(files, "contexts", name, "context", &cf);
	if (!ctxn)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "kubeconfig %s: context '%s' not found", first, name);
	cluster = k8s_y_path(&cf->doc, ctxn, "cluster");
	user = k8s_y_path(&cf->doc, ctxn, "user");
	c->namespace = g_strdup(k8s_y_path(&cf->doc, ctxn, "namespace"));
	c->source = g_strdup_printf("kubeconfig %s context '%s'", cf->path, name);
	c->user = g_strdup(user ? user : "");
	if (cluster)
		cl = k8s_kc_find(files, "clusters", cluster, "cluster", &clf);
	if (!cl)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "kubeconfig %s: context '%s': cluster '%s' not found",
					  cf->path, name, cluster ? cluster : "");
	rc = k8s_kc_cluster(clf, cl, cluster, c, err);
	if (rc != CR_OK || !user)
		return rc;
	u = k8s_kc_find(files, "users", user, "user", &uf);
	if (!u)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "kubeconfig %s: context '%s': user '%s' not found",
					  cf->path, name, user);
	return k8s_kc_user(uf, u, c, err);
}

static cr_status k8s_load_kubeconfig(const struct k8s *st, cr_plugin_ctx *ctx, struct k8s_conn *c,
				     cr_error *err)
{
	char **paths = k8s_kubeconfig_paths(st, ctx);
	GPtrArray *files = g_ptr_array_new_with_free_func(k8s_kcfile_free);
	cr_status rc = CR_OK;

	if (st->server)
		c->server = g_strdup(st->server);
	for (char **p = paths; *p && rc == CR_OK; p++)
		rc = k8s_kcfile_load(ctx, *p, files, err);
	if (rc == CR_OK && files->len == 0)
		rc = cr_host->error_set(
			err, CR_ERR_CONFIG,
			"no kubeconfig: $KUBECONFIG and ~/.kube/config name no file");
	if (rc == CR_OK)
		rc = k8s_kc_resolve(st, files, c, err);
	g_ptr_array_free(files, TRUE);
	g_strfreev(paths);
	return rc;
}

/* In a pod: the service host and port, the CA and the namespace file. */
static cr_status k8s_load_in_cluster(const struct k8s *st, cr_plugin_ctx *ctx, struct k8s_conn *c,
				     cr_error *err)
{
	const char *host = cr_host->getenv(ctx, "KUBERNETES_SERVICE_HOST");
	const char *port = cr_host->getenv(ctx, "KUBERNETES_SERVICE_PORT");
	char *ns = NULL;
	size_t len = 0;

	c->in_cluster = true;
	c->source = g_strdup("in-cluster config");
	if (st->server)
		c->server = g_strdup(st->server);
	else if (host && *host && port && *port)
		c->server = strchr(host, ':') ? g_strdup_printf("https://[%s]:%s", host, port)
					      : g_strdup_printf("https://%s:%s", host, port);
	else
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "in-cluster config: KUBERNETES_SERVICE_HOST and "
					  "KUBERNETES_SERVICE_PORT must be set");
	c->ca_file = g_strdup(st->ca_file);
	c->token_file = g_strdup(st->token_file);
	if (cr_host->read_file(ctx, st->namespace_file, 4096, &ns, &len, NULL) == CR_OK) {
		c->namespace = g_strstrip(g_strdup(ns));
		if (!*c->namespace)
			g_clear_pointer(&c->namespace, g_free);
	}
	cr_host->free(ns);
	return CR_OK;
}

static void k8s_trim_server(struct k8s_conn *c)
{
	size_t n = strlen(c->server);

	while (n > 0 && c->server[n - 1] == '/')
		c->server[--n] = '\0';
}

/**
 * k8s_conn_load:
 * Fill @conn for this resolve: an explicit `kubeconfig` option wins, then
 * in-cluster config when KUBERNETES_SERVICE_HOST is set, then $KUBECONFIG /
 * ~/.kube/config. The `auth` option forces one source.
 * Returns: CR_OK, CR_ERR_CONFIG, CR_ERR_PARSE, CR_ERR_IO, CR_ERR_UNSUPPORTED.
 */
cr_status k8s_conn_load(const struct k8s *st, cr_plugin_ctx *ctx, struct k8s_conn *conn,
			cr_error *err)
{
	bool in_cluster;
	cr_status rc;

	if (st->auth == K8S_AUTH_AUTO) {
		char **paths = k8s_kubeconfig_paths(st, ctx);

		in_cluster =
			!st->kubeconfig && (k8s_in_cluster_env(ctx) || (st->server && !paths[0]));
		g_strfreev(paths);
	} else {
		in_cluster = st->auth == K8S_AUTH_IN_CLUSTER;
	}
	rc = in_cluster ? k8s_load_in_cluster(st, ctx, conn, err)
			: k8s_load_kubeconfig(st, ctx, conn, err);
	if (rc != CR_OK)
		return rc;
	k8s_trim_server(conn);
	if (!g_str_has_prefix(conn->server, "https://") &&
	    !g_str_has_prefix(conn->server, "http://"))
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s: server \"%s\" is not an http(s) URL", conn->source,
					  conn->server);
	if (conn->insecure)
		cr_host->log(
			ctx, CR_LOG_WARNING,
			"TLS certificate of %s is NOT verified (insecure-skip-tls-verify in %s)",
			conn->server, conn->source);
	return CR_OK;
}
