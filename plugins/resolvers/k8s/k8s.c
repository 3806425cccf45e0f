/* SPDX-License-Identifier: MIT */
/*
 * k8s.c - Kubernetes resolver: options, probe and resolve.
 *
 * Lists the pods of each job's label selectors through the API server and
 * gives every pod a task: jobs in the order written, selectors in list
 * order, pods ordered by their index (Indexed Job, StatefulSet) else by
 * name with numbers compared as numbers. See docs/k8s.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpanswer.h"
#include "k8s.h"

static const char *const k8s_default_selector = "job-name=tensorflow";

static const cr_option k8s_options[] = {
	CR_OPTION("jobs", CR_OPT_GROUP, NULL, 0,
		  "job name -> list of label selectors, in order (default { worker = [ "
		  "\"job-name=tensorflow\" ]; })"),
	CR_OPTION(
		"namespace", CR_OPT_STRING, NULL, 0,
		"namespace to list; \"*\" = all (default: own, else the context's, else default)"),
	CR_OPTION_RANGE("port", CR_OPT_INT, "8470", 0, "port of every task", 1, 65535),
	CR_OPTION("rpc_layer", CR_OPT_STRING, "grpc", 0, "rpc layer reported with the cluster"),
	CR_OPTION("address", CR_OPT_STRING, "pod_ip", 0, "pod_ip | host_ip | pod_name | dns"),
	CR_OPTION("cluster_domain", CR_OPT_STRING, "cluster.local", 0,
		  "DNS suffix for address = \"dns\""),
	CR_OPTION("field_selector", CR_OPT_STRING, NULL, 0, "extra fieldSelector for every list"),
	CR_OPTION_RANGE("page_size", CR_OPT_INT, "500", 0,
			"pods per list request (limit); 0 = no paging", 0, 100000),
	CR_OPTION("not_running", CR_OPT_STRING, "error", 0, "error | skip | wait"),
	CR_OPTION_RANGE("wait_timeout", CR_OPT_FLOAT, "300", 0,
			"seconds to wait with not_running = \"wait\"", 0.1, 86400),
	CR_OPTION_RANGE("wait_interval", CR_OPT_FLOAT, "2", 0,
			"seconds between lists while waiting", 0.01, 3600),
	CR_OPTION("auth", CR_OPT_STRING, "auto", 0, "auto | in_cluster | kubeconfig"),
	CR_OPTION("kubeconfig", CR_OPT_STRING, NULL, 0,
		  "kubeconfig file (default: $KUBECONFIG, ~/.kube/config)"),
	CR_OPTION("context", CR_OPT_STRING, NULL, 0,
		  "kubeconfig context (default: current-context)"),
	CR_OPTION("server", CR_OPT_STRING, NULL, 0,
		  "API server URL, overriding the environment/kubeconfig"),
	CR_OPTION("token_file", CR_OPT_STRING, K8S_SA_DIR "/token", 0,
		  "in-cluster service-account token"),
	CR_OPTION("ca_file", CR_OPT_STRING, K8S_SA_DIR "/ca.crt", 0, "in-cluster CA bundle"),
	CR_OPTION("namespace_file", CR_OPT_STRING, K8S_SA_DIR "/namespace", 0,
		  "in-cluster namespace file"),
	CR_OPTION_RANGE("connect_timeout", CR_OPT_FLOAT, "5", 0, "seconds to connect", 0.1, 600),
	CR_OPTION_RANGE("request_timeout", CR_OPT_FLOAT, "30", 0, "seconds for one request", 0.1,
			3600),
	CR_OPTION_RANGE("retries", CR_OPT_INT, "5", 0, "retries of a request answered 429 or 5xx",
			0, 100),
	CR_OPTION_RANGE("max_retry_wait", CR_OPT_FLOAT, "30", 0,
			"longest wait honoured from Retry-After (seconds)", 0, 3600),
	CR_OPTION_RANGE("exec_timeout", CR_OPT_FLOAT, "10", 0,
			"seconds a kubeconfig exec credential plugin may run", 0.1, 600),
	CR_OPTION_RANGE("list_timeout", CR_OPT_FLOAT, "300", 0,
			"seconds one list (every page and retry) may take", 1, 86400),
	CR_OPTION_RANGE("max_pages", CR_OPT_INT, "100000", 0,
			"pages one list may take before it is called endless", 1, 10000000),
	CR_OPTION("accelerators", CR_OPT_BOOL, "true", 0,
		  "per-task accelerators from the pods' container limits"),
	CR_OPTION("order", CR_OPT_STRING, "index", 0,
		  "index (completion index / pod index / ordinal first) | name"),
	CR_OPTION("list_format", CR_OPT_STRING, "auto", 0,
		  "auto (Table rows when the options need no more, else protobuf) | protobuf "
		  "(full pods) | json (full pods)"),
	CR_OPTION("list_from_cache", CR_OPT_BOOL, "false", 0,
		  "list from the API server's watch cache (resourceVersion=0)"),
	CR_OPTION_RANGE("start_jitter", CR_OPT_FLOAT, "0", 0,
			"wait a random 0..start_jitter seconds before the first list", 0, 3600),
	CR_OPTION_RANGE("watch_timeout", CR_OPT_INT, "300", 0,
			"timeoutSeconds of one watch request; a silent stream is reconnected "
			"after it",
			1, 3600),
	CR_OPTIONS_END
};

/* Report a bad option value with the file and line it came from. */
static cr_status k8s_opt_error(cr_plugin_ctx *ctx, const cr_cfg *config, const char *name,
			       const char *what, cr_error *err)
{
	const cr_cfg *v = cr_host->cfg_get(config, name);

	return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: %s",
				  v ? cr_host->cfg_file(v) : "(config)",
				  v ? cr_host->cfg_line(v) : 0, what);
}

static int k8s_pick(const char *value, const char *const *choices)
{
	for (int i = 0; choices[i]; i++)
		if (strcmp(value, choices[i]) == 0)
			return i;
	return -1;
}

static void k8s_free(struct k8s *st)
{
	if (!st)
		return;
	if (st->jobs) {
		for (guint i = 0; i < st->jobs->len; i++)
			g_ptr_array_free(g_array_index(st->jobs, struct k8s_job, i).selectors,
					 TRUE);
		g_array_free(st->jobs, TRUE);
	}
	k8s_watched_free(st->watched);
	g_free(st);
}

static void k8s_selector_free(gpointer p)
{
	struct k8s_selector *sel = p;

	g_free(sel->legacy);
	g_free(sel);
}

/* A job's selector, and its legacy form where it has one (k8s_legacy.c). */
static void k8s_add_selector(struct k8s_job *job, const char *text)
{
	struct k8s_selector *sel = g_new0(struct k8s_selector, 1);

	sel->text = text;
	sel->legacy = k8s_legacy_selector(text);
	g_ptr_array_add(job->selectors, sel);
}

/* One member of `jobs`: a list (or array) of selector strings. */
static cr_status k8s_parse_job(const cr_cfg *member, struct k8s *st, cr_error *err)
{
	struct k8s_job job = { cr_host->cfg_name(member),
			       g_ptr_array_new_with_free_func(k8s_selector_free) };
	cr_cfg_type t = cr_host->cfg_type(member);
	size_t n = cr_host->cfg_length(member);

	g_array_append_val(st->jobs, job);
	if (t == CR_CFG_STRING) {
		k8s_add_selector(&job, cr_host->cfg_string(member));
		return CR_OK;
	}
	if (t != CR_CFG_ARRAY && t != CR_CFG_LIST)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		const char *sel = cr_host->cfg_string(cr_host->cfg_elem(member, i));

		if (!sel)
			goto bad;
		k8s_add_selector(&job, sel);
	}
	return CR_OK;
bad:
	return cr_host->error_set(err, CR_ERR_CONFIG,
				  "%s:%d: job '%s' must be a list of label selectors",
				  cr_host->cfg_file(member), cr_host->cfg_line(member), job.name);
}

static cr_status k8s_parse_jobs(const cr_cfg *config, struct k8s *st, cr_error *err)
{
	const cr_cfg *jobs = cr_host->cfg_get(config, "jobs");
	size_t n = cr_host->cfg_length(jobs);
	cr_status rc;

	st->jobs = g_array_new(FALSE, TRUE, sizeof(struct k8s_job));
	for (size_t i = 0; i < n; i++) {
		rc = k8s_parse_job(cr_host->cfg_elem(jobs, i), st, err);
		if (rc != CR_OK)
			return rc;
	}
	if (n == 0) { /* TensorFlow: an empty mapping means the default */
		struct k8s_job job = { "worker",
				       g_ptr_array_new_with_free_func(k8s_selector_free) };

		k8s_add_selector(&job, k8s_default_selector);
		g_array_append_val(st->jobs, job);
	}
	return CR_OK;
}

static long k8s_seconds_ms(cr_plugin_ctx *ctx, const char *name)
{
	return (long)(cr_host->opt_float(ctx, name) * 1000.0);
}

static cr_status k8s_parse_enums(cr_plugin_ctx *ctx, const cr_cfg *config, struct k8s *st,
				 cr_error *err)
{
	static const char *const addr[] = { "pod_ip", "host_ip", "pod_name", "dns", NULL };
	static const char *const nr[] = { "error", "skip", "wait", NULL };
	static const char *const auth[] = { "auto", "in_cluster", "kubeconfig", NULL };
	static const char *const order[] = { "index", "name", NULL };
	static const char *const format[] = { "auto", "json", "protobuf", NULL };
	int a = k8s_pick(cr_host->opt_string(ctx, "address"), addr);
	int n = k8s_pick(cr_host->opt_string(ctx, "not_running"), nr);
	int m = k8s_pick(cr_host->opt_string(ctx, "auth"), auth);
	int o = k8s_pick(cr_host->opt_string(ctx, "order"), order);
	int f = k8s_pick(cr_host->opt_string(ctx, "list_format"), format);
	char msg[256];

	if (a < 0 || n < 0 || m < 0 || o < 0 || f < 0) {
		const char *key = a < 0   ? "address"
				  : n < 0 ? "not_running"
				  : m < 0 ? "auth"
				  : o < 0 ? "order"
					  : "list_format";
		const char *want = a < 0   ? "pod_ip, host_ip, pod_name or dns"
				   : n < 0 ? "error, skip or wait"
				   : m < 0 ? "auto, in_cluster or kubeconfig"
				   : o < 0 ? "index or name"
					   : "auto, json or protobuf";

		snprintf(msg, sizeof(msg), "%s \"%s\" is not one of %s", key,
			 cr_host->opt_string(ctx, key), want);
		return k8s_opt_error(ctx, config, key, msg, err);
	}
	st->address = (enum k8s_address)a;
	st->not_running = (enum k8s_not_running)n;
	st->auth = (enum k8s_auth_mode)m;
	st->order_by_index = o == 0;
	st->table = f == 0;
	st->protobuf = f != 1;
	return CR_OK;
}

/* port, page_size, retries and the times have ranges in the schema (the
 * host refuses a value outside them before create); the namespace is left. */
static cr_status k8s_check_namespace(cr_plugin_ctx *ctx, const cr_cfg *config, struct k8s *st,
				     cr_error *err)
{
	if (st->namespace && st->namespace[0] == '\0')
		return k8s_opt_error(ctx, config, "namespace", "namespace \"\" is empty", err);
	return CR_OK;
}

static void k8s_read_scalars(cr_plugin_ctx *ctx, struct k8s *st)
{
	st->namespace = cr_host->opt_string(ctx, "namespace");
	st->field_selector = cr_host->opt_string(ctx, "field_selector");
	st->rpc_layer = cr_host->opt_string(ctx, "rpc_layer");
	st->kubeconfig = cr_host->opt_string(ctx, "kubeconfig");
	st->context = cr_host->opt_string(ctx, "context");
	st->server = cr_host->opt_string(ctx, "server");
	st->token_file = cr_host->opt_string(ctx, "token_file");
	st->ca_file = cr_host->opt_string(ctx, "ca_file");
	st->namespace_file = cr_host->opt_string(ctx, "namespace_file");
	st->cluster_domain = cr_host->opt_string(ctx, "cluster_domain");
	st->port = cr_host->opt_int(ctx, "port");
	st->page_size = cr_host->opt_int(ctx, "page_size");
	st->retries = cr_host->opt_int(ctx, "retries");
	st->wait_timeout_ms = k8s_seconds_ms(ctx, "wait_timeout");
	st->wait_interval_ms = k8s_seconds_ms(ctx, "wait_interval");
	st->connect_timeout_ms = k8s_seconds_ms(ctx, "connect_timeout");
	st->request_timeout_ms = k8s_seconds_ms(ctx, "request_timeout");
	st->max_retry_wait_ms = k8s_seconds_ms(ctx, "max_retry_wait");
	st->exec_timeout_ms = k8s_seconds_ms(ctx, "exec_timeout");
	st->list_timeout_ms = k8s_seconds_ms(ctx, "list_timeout");
	st->max_pages = cr_host->opt_int(ctx, "max_pages");
	st->accelerators = cr_host->opt_bool(ctx, "accelerators");
	st->from_cache = cr_host->opt_bool(ctx, "list_from_cache");
	st->start_jitter_ms = k8s_seconds_ms(ctx, "start_jitter");
	st->watch_timeout_s = cr_host->opt_int(ctx, "watch_timeout");
}

static cr_status k8s_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	struct k8s *st = g_new0(struct k8s, 1);
	cr_status rc;

	k8s_read_scalars(ctx, st);
	rc = k8s_parse_jobs(config, st, err);
	if (rc == CR_OK)
		rc = k8s_parse_enums(ctx, config, st, err);
	if (rc == CR_OK && st->server != NULL && k8s_url_has_userinfo(st->server))
		rc = k8s_opt_error(
			ctx, config, "server",
			"'server' holds a user name or password (user@ or user:password@); "
			"basic authentication is not supported: use a token or a client "
			"certificate",
			err);
	if (rc == CR_OK && st->server != NULL && url_has_query(st->server))
		rc = k8s_opt_error(
			ctx, config, "server",
			"'server' has a query string or fragment (?, #), which an API root "
			"cannot; refused, and not printed",
			err);
	if (rc == CR_OK)
		rc = k8s_check_namespace(ctx, config, st, err);
	if (rc != CR_OK) {
		k8s_free(st);
		return rc;
	}
	*state = st;
	return CR_OK;
}

static void k8s_destroy(void *state)
{
	k8s_free(state);
}

/* Declined when no API server can be found: not in a pod, no kubeconfig. */
static cr_status k8s_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	struct k8s *st = state;

	if (st->auth != K8S_AUTH_AUTO || k8s_conn_available(st, ctx))
		return CR_OK;
	return cr_host->error_set(
		err, CR_DECLINED,
		"no Kubernetes API server: KUBERNETES_SERVICE_HOST unset and no kubeconfig");
}

/* Own identity: POD_NAME (downward API), else HOSTNAME, else POD_IP. */
static void k8s_self_init(const struct k8s *st, cr_plugin_ctx *ctx, const char *conn_ns,
			  struct k8s_self *self)
{
	const char *ns = cr_host->getenv(ctx, "POD_NAMESPACE");

	memset(self, 0, sizeof(*self));
	self->pod_name = cr_host->getenv(ctx, "POD_NAME");
	if (self->pod_name && !*self->pod_name)
		self->pod_name = NULL;
	if (!self->pod_name)
		self->hostname = cr_host->getenv(ctx, "HOSTNAME");
	if (self->hostname && !*self->hostname)
		self->hostname = NULL;
	if (!self->pod_name && !self->hostname)
		self->pod_ip = cr_host->getenv(ctx, "POD_IP");
	if (ns && *ns)
		self->namespace = g_strdup(ns);
	else if (conn_ns)
		self->namespace = g_strdup(conn_ns);
}

/* What explain shows: where the pods were listed (a server URL never
 * holds a user:password@ part: refused when read); never a token. */
static void k8s_facts(cr_result_builder *b, const struct k8s_conn *conn, const char *ns)
{
	cr_host->result_set_fact_string(b, "api_server", conn->server != NULL ? conn->server : "",
					NULL);
	if (conn->source != NULL)
		cr_host->result_set_fact_string(b, "config_source", conn->source, NULL);
	cr_host->result_set_fact_string(b, "namespace", ns != NULL ? ns : "*", NULL);
}

/* A watched resolution after a watch that kept every pod it saw (one
 * stream a selector, no fault, no 410 since the list): the pods as the
 * events left them, with no request. */
static cr_status k8s_resolve_watched(struct k8s *st, cr_plugin_ctx *ctx, cr_result_builder *b,
				     cr_error *err)
{
	const struct k8s_watched *w = st->watched;
	struct k8s_self self;
	cr_status rc;

	cr_host->result_set_fact_string(b, "namespace", w->namespace ? w->namespace : "*", NULL);
	cr_host->result_set_fact_string(b, "answered_from", "watch", NULL);
	st->watched->unanswered = false; /* what it applied is in this answer */
	k8s_self_init(st, ctx, w->self_ns, &self);
	rc = k8s_build(st, ctx, NULL, w->namespace, &self, b, NULL, w, err);
	g_free(self.namespace);
	if (rc == CR_OK && st->rpc_layer && *st->rpc_layer)
		rc = cr_host->result_set_rpc_layer(b, st->rpc_layer, err);
	cr_host->log(ctx, CR_LOG_DEBUG, "answered from the watch's pods: no request");
	return rc;
}

static cr_status k8s_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	struct k8s *st = state;
	struct k8s_conn conn = { 0 };
	struct k8s_self self;
	struct k8s_watched *watched;
	const char *ns;
	cr_status rc;

	st->in_watch = cr_host->watched(ctx);
	if (st->in_watch && st->watched && st->watched->fresh)
		return k8s_resolve_watched(st, ctx, b, err);
	rc = k8s_conn_load(st, ctx, &conn, err);
	if (rc != CR_OK)
		goto out;
	rc = k8s_auth_prepare(st, ctx, &conn, err);
	if (rc != CR_OK)
		goto out;
	ns = st->namespace ? st->namespace : conn.namespace ? conn.namespace : "default";
	if (strcmp(ns, "*") == 0)
		ns = NULL;
	k8s_facts(b, &conn, ns);
	k8s_legacy_begin(st);
	if (st->start_jitter_ms > 0) {
		/* the processes of a job that start together do not all list at once */
		int64_t ms = g_random_int_range(0, (gint32)st->start_jitter_ms);

		cr_host->log(ctx, CR_LOG_INFO, "start_jitter: waiting %lld ms before listing",
			     (long long)ms);
		cr_host->sleep_ms(ctx, ms);
	}
	if (st->not_running == K8S_NR_WAIT) {
		rc = k8s_wait_running(st, ctx, &conn, ns, err);
		if (rc != CR_OK)
			goto out;
	}
	k8s_self_init(st, ctx, conn.in_cluster ? conn.namespace : NULL, &self);
	watched = k8s_watched_new(ns);
	watched->full = st->in_watch; /* kept only where a watch follows */
	rc = k8s_build(st, ctx, &conn, ns, &self, b, watched, NULL, err);
	if (rc == CR_OK) { /* where the next watch starts */
		k8s_self_keep(watched, &self);
		watched->fresh = st->in_watch;
		k8s_watched_free(st->watched);
		st->watched = g_steal_pointer(&watched);
	} else if (st->watched) {
		st->watched->fresh = false;
	}
	k8s_watched_free(watched);
	g_free(self.namespace);
	if (rc == CR_OK && st->rpc_layer && *st->rpc_layer)
		rc = cr_host->result_set_rpc_layer(b, st->rpc_layer, err);
out:
	k8s_conn_clear(&conn);
	return rc;
}

static const cr_resolver_ops k8s_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = k8s_create,
	.destroy = k8s_destroy,
	.probe = k8s_probe,
	.resolve = k8s_resolve,
	.master = NULL,
	.supervise = NULL,
	.watch = k8s_watch,
};

static const cr_plugin_desc k8s_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "k8s",
	.version = "1.0.0",
	.description = "Kubernetes pods by label selector (in-cluster or kubeconfig)",
	.options = k8s_options,
	.option_size = sizeof(cr_option),
	.resolver = &k8s_ops,
	.accelerator = NULL,
	.flags = 0,
	/* With its watch op the host never polls it: the interval bounds one
	 * watch call, after which the host calls it again and the plugin asks
	 * again from its last resourceVersion. 5 minutes, as client-go's
	 * reflector asks for watches of 5 to 10: a watcher costs 12 watch
	 * requests an hour, not 120 (docs/k8s.md, "Watching"). */
	.watch_interval_s = 300,
	.watch_interval_min_s = 5,
};

CR_PLUGIN_DEFINE(k8s_desc)
