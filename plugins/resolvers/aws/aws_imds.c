/* SPDX-License-Identifier: MIT */
/*
 * aws_imds.c - the two metadata endpoints: EC2's instance metadata service
 * (IMDSv2, below) and the container credentials endpoint of ECS task roles
 * and EKS Pod Identity (at the end of the file).
 *
 * One session per resolve: `PUT /latest/api/token` with
 * `X-aws-ec2-metadata-token-ttl-seconds: 21600`, then GETs carrying
 * `X-aws-ec2-metadata-token`. A 401 (the token expired) gets one new token
 * and one more try. The endpoint, timeout and attempts follow botocore's
 * IMDSFetcher:
 *   AWS_EC2_METADATA_SERVICE_ENDPOINT, else by
 *   AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE (ipv4: http://169.254.169.254/,
 *   ipv6: http://[fd00:ec2::254]/);
 *   AWS_METADATA_SERVICE_TIMEOUT seconds (1) per request, connect included;
 *   AWS_METADATA_SERVICE_NUM_ATTEMPTS (1) tries of each request while it
 *   fails to connect, times out or gets a 5xx;
 *   AWS_EC2_METADATA_DISABLED=true: nothing is ever sent.
 * Unlike botocore, IMDSv1 (GETs without a token) is used only when the
 * `imds_v1` option allows it and AWS_EC2_METADATA_V1_DISABLED is not true,
 * after a PUT that timed out or got 403/404/405. A PUT that times out is
 * the classic container-on-EC2 failure: the token answer's hop limit
 * (HttpPutResponseHopLimit, default 1) does not reach a container behind a
 * bridge, so the message says so.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include <glib.h>

#include "aws_creds.h"
#include "httpanswer.h"

#define IMDS_V4 "http://169.254.169.254/"
#define IMDS_V6 "http://[fd00:ec2::254]/"
#define IMDS_TTL_HEADER "X-aws-ec2-metadata-token-ttl-seconds: 21600"
#define IMDS_TOKEN_HEADER "X-aws-ec2-metadata-token: "

struct aws_imds {
	const struct aws_env *env;
	char *base; /* ends with '/' */
	char *token;
	bool v1; /* the PUT failed and IMDSv1 is allowed */
	long timeout_ms;
	int attempts;
};

static long aws_imds_env_long(const struct aws_env *env, const char *name, double scale,
			      long fallback)
{
	const char *v = env->host->getenv(env->ctx, name);
	char *end = NULL;
	double d;

	if (!v || !*v)
		return fallback;
	d = g_ascii_strtod(v, &end);
	if (*end != '\0' || d <= 0 || d * scale > 3600000.0) {
		env->host->log(env->ctx, CR_LOG_WARNING,
			       "%s=\"%s\" is not a positive number; using %ld", name, v, fallback);
		return fallback;
	}
	return (long)(d * scale);
}

struct aws_imds *aws_imds_new(const struct aws_env *env)
{
	struct aws_imds *imds = g_new0(struct aws_imds, 1);
	const char *endpoint = env->host->getenv(env->ctx, "AWS_EC2_METADATA_SERVICE_ENDPOINT");
	const char *mode = env->host->getenv(env->ctx, "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE");

	imds->env = env;
	if (endpoint && *endpoint)
		imds->base = g_str_has_suffix(endpoint, "/") ? g_strdup(endpoint)
							     : g_strconcat(endpoint, "/", NULL);
	else if (mode && g_ascii_strcasecmp(mode, "ipv6") == 0)
		imds->base = g_strdup(IMDS_V6);
	else
		imds->base = g_strdup(IMDS_V4);
	imds->timeout_ms = aws_imds_env_long(env, "AWS_METADATA_SERVICE_TIMEOUT", 1000.0, 1000);
	imds->attempts = (int)aws_imds_env_long(env, "AWS_METADATA_SERVICE_NUM_ATTEMPTS", 1.0, 1);
	return imds;
}

void aws_imds_free(struct aws_imds *imds)
{
	if (!imds)
		return;
	aws_wipe_free(imds->token);
	g_free(imds->base);
	g_free(imds);
}

/* One request, tried imds->attempts times while it cannot connect, times
 * out or gets a 5xx. */
static cr_status aws_imds_send(struct aws_imds *imds, const char *method, const char *url,
			       const char *const *headers, cr_http_response **resp, cr_error *err)
{
	const cr_host_api *h = imds->env->host;
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	cr_status rc = CR_ERR_INTERNAL;

	req.method = method;
	req.url = url;
	req.headers = headers;
	req.timeout_ms = imds->timeout_ms;
	req.connect_timeout_ms = imds->timeout_ms;
	req.max_body = 1u << 20;
	for (int i = 0; i < imds->attempts; i++) {
		*resp = NULL;
		rc = h->http_request(imds->env->ctx, &req, resp, err);
		if (rc == CR_OK && h->http_status(*resp) < 500)
			return CR_OK;
		if (rc == CR_OK && i + 1 < imds->attempts) {
			h->http_response_free(*resp);
			*resp = NULL;
		}
		if (rc != CR_OK && rc != CR_ERR_NETWORK && rc != CR_ERR_TIMEOUT)
			return rc;
	}
	return rc;
}

static bool aws_imds_v1_allowed(const struct aws_imds *imds)
{
	return imds->env->imds_v1 && !aws_env_true(imds->env, "AWS_EC2_METADATA_V1_DISABLED");
}

static cr_status aws_imds_no_token(struct aws_imds *imds, const char *url, const char *why,
				   cr_status code, cr_error *err)
{
	if (aws_imds_v1_allowed(imds)) {
		imds->env->host->log(imds->env->ctx, CR_LOG_INFO,
				     "IMDS: PUT %s: %s; using IMDSv1 (imds_v1)", url, why);
		imds->v1 = true;
		return CR_OK;
	}
	return imds->env->host->error_set(err, code, "PUT %s: %s", url, why);
}

static cr_status aws_imds_token(struct aws_imds *imds, cr_error *err)
{
	const cr_host_api *h = imds->env->host;
	const char *const headers[] = { IMDS_TTL_HEADER, NULL };
	char *url = g_strconcat(imds->base, "latest/api/token", NULL);
	cr_http_response *resp = NULL;
	char *why = NULL;
	cr_status rc;
	long status;

	rc = aws_imds_send(imds, "PUT", url, headers, &resp, err);
	if (rc == CR_ERR_TIMEOUT) {
		why = g_strdup_printf(
			"no answer within %ld ms (AWS_METADATA_SERVICE_TIMEOUT); in a "
			"container on EC2 the instance's HttpPutResponseHopLimit "
			"(default 1) must be at least 2",
			imds->timeout_ms);
		rc = aws_imds_no_token(imds, url, why, CR_ERR_TIMEOUT, err);
		goto out;
	}
	if (rc != CR_OK)
		goto out;
	status = h->http_status(resp);
	if (status == 200) {
		imds->token = g_strstrip(g_strdup(h->http_body(resp, NULL)));
		if (*imds->token)
			goto out;
		rc = h->error_set(err, CR_ERR_BACKEND, "PUT %s: empty token", url);
		goto out;
	}
	why = g_strdup_printf("HTTP %ld%s", status,
			      status == 403 || status == 404 || status == 405
				      ? ": no IMDSv2 token (IMDSv1 is off: imds_v1)"
				      : "");
	if (status == 403 || status == 404 || status == 405)
		rc = aws_imds_no_token(imds, url, why, CR_ERR_AUTH, err);
	else
		rc = h->error_set(err, CR_ERR_BACKEND, "PUT %s: %s", url, why);
out:
	if (resp) {
		size_t len = 0;
		char *body = (char *)h->http_body(resp, &len);

		if (body)
			explicit_bzero(body, len);
		h->http_response_free(resp);
	}
	g_free(why);
	g_free(url);
	return rc;
}

static cr_status aws_imds_get_once(struct aws_imds *imds, const char *url, long *status,
				   char **value, cr_error *err)
{
	const cr_host_api *h = imds->env->host;
	char *auth = imds->token ? g_strconcat(IMDS_TOKEN_HEADER, imds->token, NULL) : NULL;
	const char *const headers[] = { auth, NULL };
	cr_http_response *resp = NULL;
	cr_status rc;

	rc = aws_imds_send(imds, "GET", url, headers, &resp, err);
	aws_wipe_free(auth);
	if (rc != CR_OK)
		return rc;
	*status = h->http_status(resp);
	if (*status == 200)
		*value = g_strdup(h->http_body(resp, NULL));
	{
		size_t len = 0;
		char *body = (char *)h->http_body(resp, &len);

		if (body)
			explicit_bzero(body, len);
	}
	h->http_response_free(resp);
	return CR_OK;
}

cr_status aws_imds_get(struct aws_imds *imds, const char *path, char **value, cr_error *err)
{
	const cr_host_api *h = imds->env->host;
	char *url;
	long status = 0;
	cr_status rc;

	*value = NULL;
	if (aws_env_true(imds->env, "AWS_EC2_METADATA_DISABLED"))
		return CR_DECLINED;
	if (!imds->token && !imds->v1) {
		rc = aws_imds_token(imds, err);
		if (rc != CR_OK)
			return rc;
	}
	url = g_strconcat(imds->base, "latest/", path, NULL);
	rc = aws_imds_get_once(imds, url, &status, value, err);
	if (rc == CR_OK && status == 401 && imds->token) {
		h->log(imds->env->ctx, CR_LOG_DEBUG, "IMDS: GET %s: HTTP 401; new token", url);
		g_clear_pointer(&imds->token, aws_wipe_free);
		rc = aws_imds_token(imds, err);
		if (rc == CR_OK)
			rc = aws_imds_get_once(imds, url, &status, value, err);
	}
	if (rc == CR_OK && status != 200)
		rc = h->error_set(err,
				  status == 404                    ? CR_ERR_NOT_FOUND
				  : status == 401 || status == 403 ? CR_ERR_AUTH
								   : CR_ERR_BACKEND,
				  "GET %s: HTTP %ld", url, status);
	g_free(url);
	return rc;
}

/* meta-data/iam/security-credentials/ names the instance profile's role;
 * its document is {Code, AccessKeyId, SecretAccessKey, Token, Expiration}.
 * No role (404) declines. */
cr_status aws_imds_role_creds(struct aws_imds *imds, struct aws_creds *out, cr_error *err)
{
	static const char *const keys[4] = { "/AccessKeyId", "/SecretAccessKey", "/Token",
					     "/Expiration" };
	const cr_host_api *h = imds->env->host;
	char *roles = NULL, *doc = NULL, *path, *what;
	const char *role;
	cr_status rc;

	rc = aws_imds_get(imds, "meta-data/iam/security-credentials/", &roles, err);
	if (rc == CR_ERR_NOT_FOUND)
		return CR_DECLINED;
	if (rc != CR_OK)
		return rc;
	roles[strcspn(roles, "\r\n")] = '\0';
	role = g_strstrip(roles);
	if (!*role) {
		g_free(roles);
		return CR_DECLINED;
	}
	path = g_strconcat("meta-data/iam/security-credentials/", role, NULL);
	rc = aws_imds_get(imds, path, &doc, err);
	what = g_strconcat(imds->base, "latest/", path, NULL);
	if (rc == CR_OK) {
		cr_json *root = NULL;
		const char *code;

		rc = h->json_parse(doc, strlen(doc), what, &root, err);
		code = rc == CR_OK ? h->json_string(h->json_get(root, "/Code")) : NULL;
		if (rc == CR_OK && code && strcmp(code, "Success") != 0)
			rc = h->error_set(err, CR_ERR_AUTH, "%s: Code \"%s\"", what, code);
		if (root)
			h->json_free(root);
		if (rc == CR_OK)
			rc = aws_creds_from_json(imds->env, what, doc, strlen(doc), keys, out, err);
		aws_wipe_free(doc);
	}
	if (rc == CR_OK) {
		out->provider = "iam-role";
		h->log(imds->env->ctx, CR_LOG_INFO, "credentials: iam-role (role '%s' from %s)",
		       role, imds->base);
	}
	g_free(what);
	g_free(path);
	g_free(roles);
	return rc;
}

/* -- container credentials (ECS task role, EKS Pod Identity) ------------------ */

#define AWS_ECS_HOST "http://169.254.170.2"
#define AWS_CONTAINER_ATTEMPTS 3

/* AWS_CONTAINER_CREDENTIALS_FULL_URI: https anywhere; http only to a
 * loopback address or the ECS / EKS Pod Identity agents (botocore's
 * ContainerMetadataFetcher._validate_allowed_url). */
static bool aws_container_host_ok(const char *url)
{
	static const char *const hosts[] = { "169.254.170.2", "169.254.170.23", "fd00:ec2::23",
					     "localhost" };
	GUri *uri = g_uri_parse(url, G_URI_FLAGS_NONE, NULL);
	const char *host = uri ? g_uri_get_host(uri) : NULL;
	struct in6_addr a6;
	struct in_addr a4;
	bool ok = false;

	if (uri && g_strcmp0(g_uri_get_scheme(uri), "https") == 0)
		ok = true;
	else if (uri && g_strcmp0(g_uri_get_scheme(uri), "http") == 0 && host) {
		for (size_t i = 0; i < G_N_ELEMENTS(hosts); i++)
			ok = ok || g_ascii_strcasecmp(host, hosts[i]) == 0;
		if (inet_pton(AF_INET, host, &a4) == 1)
			ok = ok || (ntohl(a4.s_addr) >> 24) == 127;
		if (inet_pton(AF_INET6, host, &a6) == 1)
			ok = ok || IN6_IS_ADDR_LOOPBACK(&a6);
	}
	if (uri)
		g_uri_unref(uri);
	return ok;
}

/* The Authorization header: AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE, read
 * on every request (EKS Pod Identity rotates it), else
 * AWS_CONTAINER_AUTHORIZATION_TOKEN. *@header NULL: none configured. */
static cr_status aws_container_auth(const struct aws_env *env, char **header, cr_error *err)
{
	const cr_host_api *h = env->host;
	const char *file = h->getenv(env->ctx, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
	const char *token = h->getenv(env->ctx, "AWS_CONTAINER_AUTHORIZATION_TOKEN");
	char *data = NULL;
	size_t len = 0;
	cr_status rc = CR_OK;

	*header = NULL;
	if (file && *file) {
		rc = h->read_file(env->ctx, file, 1u << 16, &data, &len, err);
		if (rc != CR_OK)
			return rc;
		token = data; /* as botocore: not stripped, a line break is refused */
	}
	if (token && strpbrk(token, "\r\n"))
		rc = h->error_set(err, CR_ERR_AUTH,
				  "the container authorization token%s%s has a "
				  "line break",
				  data ? " in " : "", data ? file : "");
	else if (token && *token)
		*header = g_strconcat("Authorization: ", token, NULL);
	if (data) {
		explicit_bzero(data, len);
		h->free(data);
	}
	return rc;
}

static cr_status aws_container_get(const struct aws_env *env, const char *url,
				   cr_http_response **resp, cr_error *err)
{
	const cr_host_api *h = env->host;
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	char *auth = NULL;
	cr_status rc = CR_ERR_INTERNAL;

	req.url = url;
	req.timeout_ms = 2000; /* botocore's ContainerMetadataFetcher.TIMEOUT_SECS */
	req.connect_timeout_ms = 2000;
	req.ca_file = env->ca_file;
	req.max_body = 1u << 20;
	for (int i = 0; i < AWS_CONTAINER_ATTEMPTS; i++) {
		const char *headers[] = { NULL, NULL };

		if (i > 0)
			h->sleep_ms(env->ctx, 1000);
		rc = aws_container_auth(env, &auth, err);
		if (rc != CR_OK)
			return rc;
		headers[0] = auth;
		req.headers = headers;
		*resp = NULL;
		rc = h->http_request(env->ctx, &req, resp, err);
		aws_wipe_free(auth);
		if (rc == CR_OK && h->http_status(*resp) < 500)
			return CR_OK;
		if (rc == CR_OK && i + 1 < AWS_CONTAINER_ATTEMPTS) {
			h->http_response_free(*resp);
			*resp = NULL;
		} else if (rc != CR_OK && rc != CR_ERR_NETWORK && rc != CR_ERR_TIMEOUT) {
			return rc;
		}
	}
	return rc;
}

/* The first line of an error answer (200 bytes at most), with the
 * authorization token we sent cut out: a server may echo it. */
static char *aws_container_said(const struct aws_env *env, const char *body)
{
	char *line = g_strndup(body, MIN(strcspn(body, "\r\n"), 200));
	char *header = NULL, *said;
	const char *secrets[] = { NULL, NULL };

	if (aws_container_auth(env, &header, NULL) == CR_OK && header != NULL)
		secrets[0] = header + strlen("Authorization: ");
	said = redact_secrets(line, secrets);
	aws_wipe_free(header);
	aws_wipe_free(line);
	return said;
}

cr_status aws_container_creds(const struct aws_env *env, struct aws_creds *out, cr_error *err)
{
	static const char *const keys[4] = { "/AccessKeyId", "/SecretAccessKey", "/Token",
					     "/Expiration" };
	const cr_host_api *h = env->host;
	const char *rel = h->getenv(env->ctx, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
	const char *full = h->getenv(env->ctx, "AWS_CONTAINER_CREDENTIALS_FULL_URI");
	cr_http_response *resp = NULL;
	char *url, *msg, *shown;
	size_t len = 0;
	const char *body;
	cr_status rc;

	if (rel && *rel)
		url = g_strconcat(AWS_ECS_HOST, rel, NULL);
	else if (full && *full)
		url = g_strdup(full);
	else
		return CR_DECLINED;
	/* An environment variable is environment, not configuration: exit 1. */
	if (!(rel && *rel) && url_has_userinfo(url)) {
		rc = h->error_set(
			err, CR_ERR_AUTH,
			"AWS_CONTAINER_CREDENTIALS_FULL_URI holds a user name or password "
			"(user@ or user:password@); refused, and not printed");
		g_free(url);
		return rc;
	}
	if (!(rel && *rel) && !aws_container_host_ok(url)) {
		shown = url_shown(url);
		rc = h->error_set(err, CR_ERR_AUTH,
				  "AWS_CONTAINER_CREDENTIALS_FULL_URI %s: http only to a loopback "
				  "address, 169.254.170.2, 169.254.170.23 or fd00:ec2::23",
				  shown);
		g_free(shown);
		g_free(url);
		return rc;
	}
	rc = aws_container_get(env, url, &resp, err);
	if (rc != CR_OK)
		goto out;
	body = h->http_body(resp, &len);
	if (h->http_status(resp) != 200) {
		msg = aws_container_said(env, body);
		shown = url_shown(url);
		rc = h->error_set(err, h->http_status(resp) < 500 ? CR_ERR_AUTH : CR_ERR_BACKEND,
				  "GET %s: HTTP %ld%s%s", shown, h->http_status(resp),
				  *msg ? ": " : "", msg);
		g_free(shown);
		g_free(msg);
		goto out;
	}
	rc = aws_creds_from_json(env, url, body, len, keys, out, err);
	if (rc == CR_OK) {
		out->provider = "container-role";
		h->log(env->ctx, CR_LOG_INFO, "credentials: container-role (%s)", url);
	}
out:
	if (resp) {
		char *b = (char *)h->http_body(resp, &len);

		if (b)
			explicit_bzero(b, len);
		h->http_response_free(resp);
	}
	g_free(url);
	return rc;
}
