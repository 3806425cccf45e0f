/* SPDX-License-Identifier: MIT */
/*
 * aws_sts.c - STS AssumeRole (signed with the source credentials) and
 * AssumeRoleWithWebIdentity (unsigned: the web identity token is the
 * proof), through aws_query_post() with its retries.
 *
 * Endpoint, as botocore 1.43 with sts_regional_endpoints = regional (its
 * default): AWS_ENDPOINT_URL_STS, else AWS_ENDPOINT_URL, else
 * https://sts.REGION.amazonaws.com/, else (no region, or
 * AWS_STS_REGIONAL_ENDPOINTS=legacy) the global https://sts.amazonaws.com/
 * signed for us-east-1.
 */
#include <string.h>

#include <glib.h>

#include "aws_creds.h"
#include "aws_sigv4.h"
#include "aws_xml.h"

#define STS_VERSION "2011-06-15"

static char *aws_sts_endpoint(const struct aws_env *env, const char **region)
{
	const cr_host_api *h = env->host;
	const char *url = h->getenv(env->ctx, "AWS_ENDPOINT_URL_STS");
	const char *mode = h->getenv(env->ctx, "AWS_STS_REGIONAL_ENDPOINTS");
	bool legacy = mode && g_ascii_strcasecmp(mode, "legacy") == 0;

	*region = env->region && *env->region ? env->region : "us-east-1";
	if (!url || !*url)
		url = h->getenv(env->ctx, "AWS_ENDPOINT_URL");
	if (url && *url)
		return g_str_has_suffix(url, "/") ? g_strdup(url) : g_strconcat(url, "/", NULL);
	if (!env->region || !*env->region || legacy) {
		*region = "us-east-1";
		return g_strdup("https://sts.amazonaws.com/");
	}
	return g_strdup_printf("https://sts.%s.amazonaws.com/", env->region);
}

static void aws_sts_param(GString *body, const char *name, const char *value)
{
	g_string_append_printf(body, "&%s=", name);
	aws_sigv4_encode(body, value, strlen(value), false);
}

/* The Credentials of an AssumeRole[WithWebIdentity]Response. */
static cr_status aws_sts_parse(const struct aws_env *env, const char *endpoint, const char *action,
			       const char *resp, size_t len, struct aws_creds *out, cr_error *err)
{
	static const char *const fields[] = { "Credentials/AccessKeyId",
					      "Credentials/SecretAccessKey",
					      "Credentials/SessionToken", "Credentials/Expiration",
					      "AssumedRoleUser/Arn" };
	char *paths[G_N_ELEMENTS(fields) + 1] = { NULL };
	char *values[G_N_ELEMENTS(fields)] = { NULL };
	char *why = NULL;
	cr_status rc = CR_OK;

	for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
		paths[i] = g_strdup_printf("%sResponse/%sResult/%s", action, action, fields[i]);
	if (!aws_xml_text(resp, len, (const char *const *)paths, values, &why))
		rc = env->host->error_set(err, CR_ERR_PARSE, "POST %s: %s: %s", endpoint, action,
					  why);
	else if (!values[0] || !values[1] || !values[2])
		rc = env->host->error_set(err, CR_ERR_PARSE, "POST %s: %s: no Credentials",
					  endpoint, action);
	if (rc == CR_OK) {
		out->access_key_id = g_steal_pointer(&values[0]);
		out->secret_access_key = g_steal_pointer(&values[1]);
		out->session_token = g_steal_pointer(&values[2]);
		out->expires_ms = aws_parse_time_ms(values[3]);
		env->host->log(env->ctx, CR_LOG_DEBUG, "STS %s: %s until %s", action,
			       values[4] ? values[4] : "?", values[3] ? values[3] : "?");
	}
	for (size_t i = 0; i < G_N_ELEMENTS(fields); i++) {
		aws_wipe_free(values[i]);
		g_free(paths[i]);
	}
	g_free(why);
	return rc;
}

cr_status aws_sts_assume(const struct aws_env *env, const struct aws_creds *source,
			 const char *role_arn, const char *web_token, const char *const *args,
			 struct aws_creds *out, cr_error *err)
{
	const char *action = source ? "AssumeRole" : "AssumeRoleWithWebIdentity";
	GString *body = g_string_new(NULL);
	const char *region = NULL;
	char *endpoint = aws_sts_endpoint(env, &region);
	char *resp = NULL;
	size_t len = 0;
	cr_status rc;

	g_string_append_printf(body, "Action=%s&Version=" STS_VERSION, action);
	aws_sts_param(body, "RoleArn", role_arn);
	for (size_t i = 0; args && args[i] && args[i + 1]; i += 2)
		aws_sts_param(body, args[i], args[i + 1]);
	if (!source)
		aws_sts_param(body, "WebIdentityToken", web_token);
	rc = aws_query_post(env, source, endpoint, region, "sts", body->str, &resp, &len, err);
	if (rc == CR_OK)
		rc = aws_sts_parse(env, endpoint, action, resp, len, out, err);
	if (resp) {
		explicit_bzero(resp, len);
		g_free(resp);
	}
	explicit_bzero(body->str, body->len);
	g_string_free(body, TRUE);
	g_free(endpoint);
	return rc;
}
