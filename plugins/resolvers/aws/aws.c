/* SPDX-License-Identifier: MIT */
/*
 * aws.c - EC2 resolver: options, probe and resolve.
 *
 * Each job is the set of running EC2 instances that match its filter
 * groups (DescribeInstances, aws_ec2.c), signed with credentials from the
 * standard chain (aws_creds.c). The region and endpoint are found as the
 * AWS CLIs find them; this process's own task is the instance IMDS names,
 * else the one whose privateIpAddress is a local interface address. See
 * docs/aws.md.
 */
#include <ifaddrs.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aws.h"
#include "httpanswer.h"

static const cr_option aws_options[] = {
	CR_OPTION("jobs", CR_OPT_GROUP, NULL, 0,
		  "job name -> list of filter groups { name = \"tag:role\"; values = [ \"worker\" "
		  "]; }"),
	CR_OPTION_RANGE("port", CR_OPT_INT, NULL, 0, "port of every task (required with jobs)", 1,
			65535),
	CR_OPTION("address", CR_OPT_STRING, "private", 0, "private | public | private_dns | ipv6"),
	CR_OPTION("order", CR_OPT_STRING, "address", 0, "address | id | tag:KEY"),
	CR_OPTION("region", CR_OPT_STRING, NULL, 0,
		  "region (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's, IMDS)"),
	CR_OPTION("endpoint", CR_OPT_STRING, NULL, 0,
		  "EC2 endpoint URL (default: AWS_ENDPOINT_URL_EC2, AWS_ENDPOINT_URL, "
		  "https://ec2.REGION.amazonaws.com/)"),
	CR_OPTION("profile", CR_OPT_STRING, NULL, 0,
		  "profile of ~/.aws/config (default: AWS_PROFILE, default)"),
	CR_OPTION_RANGE("page_size", CR_OPT_INT, "1000", 0,
			"instances per DescribeInstances request (MaxResults)", 5, 1000),
	CR_OPTION("rpc_layer", CR_OPT_STRING, "grpc", 0, "rpc layer reported with the cluster"),
	CR_OPTION("imds_v1", CR_OPT_BOOL, "false", 0,
		  "fall back to IMDSv1 when no IMDSv2 token can be had"),
	CR_OPTION("root", CR_OPT_STRING, "/", 0, "root of the /sys files the probe reads"),
	CR_OPTION("ca_file", CR_OPT_STRING, NULL, 0,
		  "CA bundle for HTTPS (default: AWS_CA_BUNDLE, the system store)"),
	CR_OPTION_RANGE("connect_timeout", CR_OPT_FLOAT, "60", 0, "seconds to connect", 0.1, 600),
	CR_OPTION_RANGE("request_timeout", CR_OPT_FLOAT, "60", 0, "seconds for one request", 0.1,
			3600),
	CR_OPTION_RANGE("list_timeout", CR_OPT_FLOAT, "300", 0,
			"seconds one job's paged listing may take; it may also have at most 10 "
			"pages per second of it",
			1, 86400),
	CR_OPTION_RANGE("retries", CR_OPT_INT, NULL, 0,
			"retries of a request (default: AWS_MAX_ATTEMPTS - 1, else 2)", 0, 20),
	CR_OPTIONS_END
};

static cr_status aws_cfg_error(const cr_cfg *v, cr_error *err, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

static cr_status aws_cfg_error(const cr_cfg *v, cr_error *err, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	cr_status rc;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	rc = cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: %s",
				v ? cr_host->cfg_file(v) : "(config)", v ? cr_host->cfg_line(v) : 0,
				msg);
	g_free(msg);
	return rc;
}

static void aws_free(struct aws *st)
{
	if (!st)
		return;
	for (guint i = 0; st->jobs && i < st->jobs->len; i++) {
		GArray *fs = g_array_index(st->jobs, struct aws_job, i).filters;

		for (guint f = 0; f < fs->len; f++)
			g_ptr_array_free(g_array_index(fs, struct aws_filter, f).values, TRUE);
		g_array_free(fs, TRUE);
	}
	if (st->jobs)
		g_array_free(st->jobs, TRUE);
	g_free(st);
}

/* One filter group { name = "..."; values = [ ... ]; } of job @job. */
static cr_status aws_parse_filter(const cr_cfg *g, struct aws_job *job, guint n, cr_error *err)
{
	const cr_cfg *name = cr_host->cfg_get(g, "name");
	const cr_cfg *values = cr_host->cfg_get(g, "values");
	struct aws_filter f = { cr_host->cfg_string(name), g_ptr_array_new() };
	char idx[16];

	g_snprintf(idx, sizeof(idx), "%u", n);
	g_array_append_val(job->filters, f);
	if (cr_host->cfg_type(g) != CR_CFG_GROUP)
		return aws_cfg_error(g, err,
				     "job '%s': filter %s is not a group { name = ...; values = "
				     "[ ... ]; }",
				     job->name, idx);
	if (!f.name || !*f.name)
		return aws_cfg_error(g, err, "job '%s': filter %s has no `name`", job->name, idx);
	if (cr_host->cfg_type(values) == CR_CFG_STRING)
		g_ptr_array_add(f.values, (gpointer)cr_host->cfg_string(values));
	for (size_t i = 0; i < cr_host->cfg_length(values); i++) {
		const char *v = cr_host->cfg_string(cr_host->cfg_elem(values, i));

		if (!v)
			return aws_cfg_error(values, err,
					     "job '%s': filter %s: values must be strings",
					     job->name, idx);
		g_ptr_array_add(f.values, (gpointer)v);
	}
	if (f.values->len == 0)
		return aws_cfg_error(g, err, "job '%s': filter %s has no `values`", job->name, idx);
	return CR_OK;
}

static cr_status aws_parse_job(const cr_cfg *member, struct aws *st, cr_error *err)
{
	struct aws_job job = { cr_host->cfg_name(member),
			       g_array_new(FALSE, TRUE, sizeof(struct aws_filter)) };
	cr_cfg_type t = cr_host->cfg_type(member);
	size_t n = cr_host->cfg_length(member);
	cr_status rc = CR_OK;

	g_array_append_val(st->jobs, job);
	job = g_array_index(st->jobs, struct aws_job, st->jobs->len - 1);
	if (t == CR_CFG_GROUP)
		return aws_parse_filter(member, &job, 1, err);
	if ((t != CR_CFG_LIST && t != CR_CFG_ARRAY) || n == 0)
		return aws_cfg_error(member, err,
				     "job '%s' must be a list of filter groups { name = ...; "
				     "values = [ ... ]; }",
				     job.name);
	for (size_t i = 0; rc == CR_OK && i < n; i++)
		rc = aws_parse_filter(cr_host->cfg_elem(member, i), &job, (guint)i + 1, err);
	return rc;
}

static cr_status aws_parse_jobs(const cr_cfg *config, struct aws *st, cr_error *err)
{
	const cr_cfg *jobs = cr_host->cfg_get(config, "jobs");
	cr_status rc = CR_OK;

	st->jobs = g_array_new(FALSE, TRUE, sizeof(struct aws_job));
	for (size_t i = 0; rc == CR_OK && i < cr_host->cfg_length(jobs); i++)
		rc = aws_parse_job(cr_host->cfg_elem(jobs, i), st, err);
	return rc;
}

static cr_status aws_parse_enums(cr_plugin_ctx *ctx, const cr_cfg *config, struct aws *st,
				 cr_error *err)
{
	static const char *const addr[] = { "private", "public", "private_dns", "ipv6" };
	const char *a = cr_host->opt_string(ctx, "address");
	const char *o = cr_host->opt_string(ctx, "order");
	int i;

	for (i = 0; i < 4 && strcmp(a, addr[i]) != 0; i++)
		;
	if (i == 4)
		return aws_cfg_error(cr_host->cfg_get(config, "address"), err,
				     "address \"%s\" is not one of private, public, private_dns or "
				     "ipv6",
				     a);
	st->address = (enum aws_address)i;
	if (strcmp(o, "address") == 0) {
		st->order = AWS_ORDER_ADDRESS;
	} else if (strcmp(o, "id") == 0) {
		st->order = AWS_ORDER_ID;
	} else if (g_str_has_prefix(o, "tag:") && o[4]) {
		st->order = AWS_ORDER_TAG;
		st->order_tag = o + 4;
	} else {
		return aws_cfg_error(cr_host->cfg_get(config, "order"), err,
				     "order \"%s\" is not one of address, id or tag:KEY", o);
	}
	return CR_OK;
}

static cr_status aws_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	struct aws *st = g_new0(struct aws, 1);
	cr_status rc;

	st->region = cr_host->opt_string(ctx, "region");
	st->endpoint = cr_host->opt_string(ctx, "endpoint");
	st->profile =
		cr_host->opt_is_set(ctx, "profile") ? cr_host->opt_string(ctx, "profile") : NULL;
	st->rpc_layer = cr_host->opt_string(ctx, "rpc_layer");
	st->root = cr_host->opt_string(ctx, "root");
	st->ca_file = cr_host->opt_string(ctx, "ca_file");
	st->port = cr_host->opt_is_set(ctx, "port") ? cr_host->opt_int(ctx, "port") : 0;
	st->page_size = cr_host->opt_int(ctx, "page_size");
	st->retries =
		cr_host->opt_is_set(ctx, "retries") ? (int)cr_host->opt_int(ctx, "retries") : -1;
	st->imds_v1 = cr_host->opt_bool(ctx, "imds_v1");
	st->connect_timeout_ms = (long)(cr_host->opt_float(ctx, "connect_timeout") * 1000.0);
	st->request_timeout_ms = (long)(cr_host->opt_float(ctx, "request_timeout") * 1000.0);
	st->list_timeout_ms = (int64_t)(cr_host->opt_float(ctx, "list_timeout") * 1000.0);
	rc = aws_parse_jobs(config, st, err);
	if (rc == CR_OK)
		rc = aws_parse_enums(ctx, config, st, err);
	/* Not a schema-required key: without `jobs` the entry only declines,
	 * as the built-in auto configuration's does. */
	if (rc == CR_OK && st->jobs->len > 0 && st->port == 0)
		rc = aws_cfg_error(cr_host->cfg_get(config, "jobs"), err,
				   "'jobs' needs 'port', the port of every task");
	if (rc == CR_OK && st->endpoint && !g_str_has_prefix(st->endpoint, "https://") &&
	    !g_str_has_prefix(st->endpoint, "http://")) {
		char *shown = url_shown(st->endpoint); /* no user info, no query */

		rc = aws_cfg_error(cr_host->cfg_get(config, "endpoint"), err,
				   "endpoint \"%s\" is not an http:// or https:// URL", shown);
		g_free(shown);
	}
	if (rc == CR_OK && url_has_query(st->endpoint))
		rc = aws_cfg_error(cr_host->cfg_get(config, "endpoint"), err,
				   "endpoint has a query string or fragment (?, #), which an API "
				   "root cannot; refused, and not printed");
	if (rc == CR_OK && url_has_userinfo(st->endpoint))
		rc = aws_cfg_error(cr_host->cfg_get(config, "endpoint"), err,
				   "endpoint holds a user name or password (user@ or "
				   "user:password@); refused, and not printed");
	if (rc != CR_OK) {
		aws_free(st);
		return rc;
	}
	*state = st;
	return CR_OK;
}

static void aws_destroy(void *state)
{
	aws_free(state);
}

/* ---- probe ------------------------------------------------------------ */

/* Whether @path under root starts with @prefix (files read, no packet). */
static bool aws_sys_starts(const struct aws *st, cr_plugin_ctx *ctx, const char *path,
			   const char *prefix)
{
	char *full = g_build_filename(st->root, path, NULL);
	char *data = NULL;
	size_t len = 0;
	bool yes = false;

	if (cr_host->read_file(ctx, full, 4096, &data, &len, NULL) == CR_OK)
		yes = g_str_has_prefix(data, prefix);
	cr_host->free(data);
	g_free(full);
	return yes;
}

static const char *aws_env_endpoint(cr_plugin_ctx *ctx)
{
	const char *e = cr_host->getenv(ctx, "AWS_ENDPOINT_URL_EC2");

	if (!e || !*e)
		e = cr_host->getenv(ctx, "AWS_ENDPOINT_URL");
	return e && *e ? e : NULL;
}

/* Declined without jobs, and off EC2 (DMI, Xen's hypervisor uuid) unless
 * an endpoint is named: then the user points us at EC2 from elsewhere. */
static cr_status aws_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	struct aws *st = state;

	if (st->jobs->len == 0)
		return cr_host->error_set(err, CR_DECLINED, "no `jobs` configured");
	if (aws_sys_starts(st, ctx, "sys/devices/virtual/dmi/id/sys_vendor", "Amazon EC2") ||
	    aws_sys_starts(st, ctx, "sys/devices/virtual/dmi/id/board_asset_tag", "i-") ||
	    aws_sys_starts(st, ctx, "sys/hypervisor/uuid", "ec2"))
		return CR_OK;
	if (st->endpoint || aws_env_endpoint(ctx))
		return CR_OK;
	return cr_host->error_set(err, CR_DECLINED,
				  "not on EC2 (DMI sys_vendor, board_asset_tag and "
				  "/sys/hypervisor/uuid say otherwise) and no endpoint named");
}

/* ---- resolve ---------------------------------------------------------- */

static cr_status aws_find_region(const struct aws *st, struct aws_env *env, char **region,
				 cr_error *err)
{
	const char *names[] = { "AWS_REGION", "AWS_DEFAULT_REGION" };
	cr_error imds_err = CR_ERROR_INIT;
	cr_status rc;

	if (st->region && *st->region) {
		*region = g_strdup(st->region);
		return CR_OK;
	}
	for (int i = 0; i < 2; i++) {
		const char *v = cr_host->getenv(env->ctx, names[i]);

		if (v && *v) {
			*region = g_strdup(v);
			return CR_OK;
		}
	}
	rc = aws_profile_region(env, region, err);
	if (rc != CR_ERR_NOT_FOUND)
		return rc;
	rc = aws_imds_get(env->imds, "meta-data/placement/region", region, &imds_err);
	if (rc == CR_OK) {
		g_strstrip(*region);
		return CR_OK;
	}
	if (rc == CR_DECLINED || rc == CR_ERR_NOT_FOUND)
		return cr_host->error_set(err, CR_ERR_NOT_FOUND,
					  "no AWS region: set `region`, AWS_REGION or the "
					  "profile's region");
	return cr_host->error_set(err, CR_ERR_NOT_FOUND,
				  "no AWS region: set `region`, AWS_REGION or the profile's "
				  "region (IMDS: %s)",
				  imds_err.message);
}

static char *aws_find_endpoint(const struct aws *st, cr_plugin_ctx *ctx, const char *region)
{
	const char *e = st->endpoint && *st->endpoint ? st->endpoint : aws_env_endpoint(ctx);
	const char *scheme;

	if (!e)
		return g_strdup_printf("https://ec2.%s.amazonaws.com/", region);
	scheme = strstr(e, "://");
	if (scheme && !strchr(scheme + 3, '/'))
		return g_strconcat(e, "/", NULL);
	return g_strdup(e);
}

static int aws_max_attempts(const struct aws *st, cr_plugin_ctx *ctx, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, "AWS_MAX_ATTEMPTS");
	char *end = NULL;
	long n;

	if (st->retries >= 0)
		return st->retries + 1;
	if (!v || !*v)
		return 3;
	n = strtol(v, &end, 10);
	if (*end || n < 1 || n > 100) {
		cr_host->error_set(err, CR_ERR_CONFIG,
				   "AWS_MAX_ATTEMPTS \"%s\" is not a number "
				   "from 1 to 100",
				   v);
		return -1;
	}
	return (int)n;
}

/* Local IPv4 addresses, for when IMDS cannot name the instance. */
static GPtrArray *aws_local_addresses(void)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	struct ifaddrs *ifa = NULL;
	char buf[INET_ADDRSTRLEN];

	if (getifaddrs(&ifa) != 0)
		return out;
	for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		if (inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, buf,
			      sizeof(buf)))
			g_ptr_array_add(out, g_strdup(buf));
	}
	freeifaddrs(ifa);
	return out;
}

static void aws_find_self(struct aws_env *env, struct aws_self *self)
{
	cr_error e = CR_ERROR_INIT;
	cr_status rc = aws_imds_get(env->imds, "meta-data/instance-id", &self->instance_id, &e);

	self->index = -1;
	if (rc == CR_OK) {
		g_strstrip(self->instance_id);
		cr_host->log(env->ctx, CR_LOG_INFO, "this instance: %s (IMDS)", self->instance_id);
		return;
	}
	g_clear_pointer(&self->instance_id, g_free);
	if (rc != CR_DECLINED)
		cr_host->log(env->ctx, CR_LOG_INFO,
			     "IMDS has no instance id (%s); matching local "
			     "addresses",
			     e.message);
	self->addresses = aws_local_addresses();
}

static void aws_identity(const struct aws_run *run, const struct aws_self *self)
{
	GString *what;

	what = g_string_new(self->instance_id);
	for (guint i = 0; !self->instance_id && self->addresses && i < self->addresses->len; i++)
		g_string_append_printf(what, "%s%s", i ? ", " : "addresses ",
				       (char *)g_ptr_array_index(self->addresses, i));
	cr_host->result_set_fact_string(run->b, "this_instance", what->str, NULL);
	if (self->job)
		cr_host->result_set_task(run->b, self->job, self->index, NULL);
	else
		cr_host->log(run->env->ctx, CR_LOG_WARNING,
			     "this instance (%s) is in no job: task type and id unknown",
			     what->str);
	g_string_free(what, TRUE);
}

static void aws_fact_number(cr_result_builder *b, const char *key, int64_t n)
{
	char text[32];
	cr_json *j = NULL;

	g_snprintf(text, sizeof(text), "%lld", (long long)n);
	if (cr_host->json_parse(text, strlen(text), key, &j, NULL) == CR_OK)
		cr_host->result_set_fact(b, key, j, NULL);
	cr_host->json_free(j);
}

static cr_status aws_run_jobs(struct aws_run *run, cr_error *err)
{
	const char *mode = cr_host->getenv(run->env->ctx, "AWS_RETRY_MODE");
	cr_status rc = CR_OK;

	if (!aws_retry_init(&run->retry, run->env->max_attempts, mode)) {
		cr_host->log(run->env->ctx, CR_LOG_WARNING,
			     "AWS_RETRY_MODE \"%s\": using standard retries", mode);
		aws_retry_init(&run->retry, run->env->max_attempts, NULL);
	}
	cr_host->result_set_fact_string(run->b, "endpoint", run->endpoint, NULL);
	cr_host->result_set_fact_string(run->b, "region", run->region, NULL);
	cr_host->result_set_fact_string(run->b, "retry_mode",
					run->retry.adaptive ? "adaptive" : "standard", NULL);
	for (guint i = 0; rc == CR_OK && i < run->st->jobs->len; i++)
		rc = aws_ec2_job(run, &g_array_index(run->st->jobs, struct aws_job, i), err);
	aws_fact_number(run->b, "instances_listed", run->listed);
	aws_fact_number(run->b, "requests", run->pages);
	return rc;
}

static cr_status aws_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	struct aws *st = state;
	const char *bundle = cr_host->getenv(ctx, "AWS_CA_BUNDLE");
	struct aws_env env = {
		.host = cr_host,
		.ctx = ctx,
		.profile = st->profile,
		.root = st->root,
		.ca_file = st->ca_file ? st->ca_file : (bundle && *bundle ? bundle : NULL),
		.timeout_ms = st->request_timeout_ms,
		.connect_timeout_ms = st->connect_timeout_ms,
		.imds_v1 = st->imds_v1,
		.builder = b,
	};
	struct aws_creds creds = { 0 };
	struct aws_self self = { 0 };
	struct aws_run run = { 0 };
	char *region = NULL, *endpoint = NULL;
	cr_status rc;

	env.max_attempts = aws_max_attempts(st, ctx, err);
	if (env.max_attempts < 0)
		return CR_ERR_CONFIG;
	env.imds = aws_imds_new(&env);
	rc = aws_find_region(st, &env, &region, err);
	if (rc != CR_OK)
		goto out;
	env.region = region;
	endpoint = aws_find_endpoint(st, ctx, region);
	if (url_has_userinfo(endpoint) || url_has_query(endpoint)) {
		/* Only the environment's can be here: the option's is refused in create. */
		const char *ec2 = cr_host->getenv(ctx, "AWS_ENDPOINT_URL_EC2");

		rc = cr_host->error_set(
			err, CR_ERR_AUTH, "%s %s; refused, and not printed",
			ec2 != NULL && *ec2 ? "AWS_ENDPOINT_URL_EC2" : "AWS_ENDPOINT_URL",
			url_has_userinfo(endpoint)
				? "holds a user name or password (user@ or user:password@)"
				: "has a query string or fragment (?, #), which an API root "
				  "cannot");
		goto out;
	}
	rc = aws_creds_resolve(&env, &creds, err);
	if (rc != CR_OK)
		goto out;
	aws_find_self(&env, &self);
	run = (struct aws_run){ .st = st,
				.env = &env,
				.creds = &creds,
				.endpoint = endpoint,
				.region = region,
				.self = &self,
				.b = b };
	rc = aws_run_jobs(&run, err);
	if (rc == CR_OK)
		aws_identity(&run, &self);
	if (rc == CR_OK && st->rpc_layer && *st->rpc_layer)
		rc = cr_host->result_set_rpc_layer(b, st->rpc_layer, err);
out:
	aws_creds_clear(&creds);
	aws_imds_free(env.imds);
	g_free(self.instance_id);
	if (self.addresses)
		g_ptr_array_free(self.addresses, TRUE);
	g_free(region);
	g_free(endpoint);
	return rc;
}

static const cr_resolver_ops aws_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = aws_create,
	.destroy = aws_destroy,
	.probe = aws_probe,
	.resolve = aws_resolve,
	.master = NULL,
};

static const cr_plugin_desc aws_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "aws",
	.version = "1.0.0",
	.description = "EC2 instances by filter (DescribeInstances, SigV4, IMDSv2)",
	.options = aws_options,
	.option_size = sizeof(cr_option),
	.resolver = &aws_ops,
	.accelerator = NULL,
	.flags = 0,
	/* Polled (no watch in the API): every 30 s by default, 10 s at least,
	 * so that a job of many tasks stays inside the API's rate limits. */
	.watch_interval_s = 30,
	.watch_interval_min_s = 10,
};

CR_PLUGIN_DEFINE(aws_desc)
