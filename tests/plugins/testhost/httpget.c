/* SPDX-License-Identifier: MIT */
/*
 * httpget.c - a test resolver that makes one HTTP request: METHOD url with
 * "Accept: application/json" and, when a token is configured,
 * "Authorization: Bearer TOKEN". The answer {"hosts": ["a:1", ...]} becomes
 * the tasks of the job named by the X-Cluster-Job response header (else
 * "worker"). Only the cr-testhost tests use it; nothing is contacted.
 */
#include <stdio.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

static cr_status httpget_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state,
				cr_error *err)
{
	(void)ctx;
	(void)config;
	(void)err;
	*state = NULL;
	return CR_OK;
}

static void httpget_destroy(void *state)
{
	(void)state;
}

static cr_status httpget_hosts(cr_plugin_ctx *ctx, const cr_json *root, const char *what,
			       const char *job, cr_result_builder *b, cr_error *err)
{
	const cr_json *hosts = cr_host->json_get(root, "/hosts");
	cr_status st = cr_host->result_add_job(b, job, err);

	if (cr_host->json_type(hosts) != CR_JSON_ARRAY)
		return cr_host->error_set(err, CR_ERR_PARSE, "%s: \"hosts\" must be an array",
					  what);
	for (size_t i = 0; st == CR_OK && i < cr_host->json_length(hosts); i++) {
		const char *addr = cr_host->json_string(cr_host->json_index(hosts, i));

		if (addr == NULL)
			return cr_host->error_set(err, CR_ERR_PARSE, "%s: host %zu is not a string",
						  what, i);
		st = cr_host->result_append_task(b, job, addr, err);
	}
	cr_host->log(ctx, CR_LOG_INFO, "%zu hosts", cr_host->json_length(hosts));
	return st;
}

static cr_status httpget_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b,
				 cr_error *err)
{
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	const char *url = cr_host->opt_string(ctx, "url");
	const char *token = cr_host->opt_string(ctx, "token");
	char auth[512];
	const char *headers[3] = { "Accept: application/json", NULL, NULL };
	cr_http_response *resp = NULL;
	cr_json *root = NULL;
	const char *body, *job;
	size_t len = 0;
	long status;
	cr_status st;

	(void)state;
	if (token != NULL) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
		headers[1] = auth;
	}
	req.method = cr_host->opt_string(ctx, "method");
	req.url = url;
	req.headers = headers;
	req.body = cr_host->opt_string(ctx, "body");
	req.body_len = req.body != NULL ? strlen(req.body) : 0;
	st = cr_host->http_request(ctx, &req, &resp, err);
	if (st != CR_OK)
		return st;
	status = cr_host->http_status(resp);
	if (status != 200) {
		cr_host->http_response_free(resp);
		return cr_host->error_set(err, CR_ERR_BACKEND, "%s %s: HTTP %ld", req.method, url,
					  status);
	}
	body = cr_host->http_body(resp, &len);
	job = cr_host->http_header(resp, "x-cluster-job");
	st = cr_host->json_parse(body, len, url, &root, err);
	if (st == CR_OK)
		st = httpget_hosts(ctx, root, url, job != NULL ? job : "worker", b, err);
	cr_host->json_free(root);
	cr_host->http_response_free(resp);
	return st;
}

/* clang-format off */
static const cr_option httpget_options[] = {
	CR_OPTION("url", CR_OPT_STRING, NULL, CR_OPT_REQUIRED, "endpoint listing the hosts"),
	CR_OPTION("method", CR_OPT_STRING, "GET", 0, "HTTP method"),
	CR_OPTION("body", CR_OPT_STRING, NULL, 0, "request body"),
	CR_OPTION("token", CR_OPT_STRING, NULL, CR_OPT_SECRET, "bearer token"),
	CR_OPTIONS_END,
};
/* clang-format on */

static const cr_resolver_ops httpget_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = httpget_create,
	.destroy = httpget_destroy,
	.probe = NULL,
	.resolve = httpget_resolve,
	.master = NULL,
};

static const cr_plugin_desc httpget_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "httpget",
	.version = "1.0",
	.description = "one HTTP request (cr-testhost tests)",
	.options = httpget_options,
	.option_size = sizeof(cr_option),
	.resolver = &httpget_ops,
	.accelerator = NULL,
	.flags = 0,
};

CR_PLUGIN_DEFINE(httpget_desc)
