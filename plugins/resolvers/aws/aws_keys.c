/* SPDX-License-Identifier: MIT */
/*
 * aws_keys.c - credentials as values, the lowest layer of the credential
 * files (layers.txt): wiping a secret, clearing a set of credentials, a
 * JSON credentials document (IMDS role, container endpoint,
 * credential_process) with its ISO 8601 expiration, and a "true" variable.
 * The sources that fetch credentials (aws_imds.c, aws_sts.c) and the chain
 * that picks one (aws_creds.c) stand on it.
 */
#include <string.h>

#include <glib.h>

#include "aws_creds.h"

void aws_wipe_free(char *secret)
{
	if (secret) {
		explicit_bzero(secret, strlen(secret));
		g_free(secret);
	}
}

void aws_creds_clear(struct aws_creds *c)
{
	if (!c)
		return;
	aws_wipe_free(c->access_key_id);
	aws_wipe_free(c->secret_access_key);
	aws_wipe_free(c->session_token);
	memset(c, 0, sizeof(*c));
}

bool aws_env_true(const struct aws_env *env, const char *name)
{
	const char *v = env->host->getenv(env->ctx, name);

	return v && g_ascii_strcasecmp(v, "true") == 0;
}

int64_t aws_parse_time_ms(const char *iso8601)
{
	GDateTime *t = iso8601 ? g_date_time_new_from_iso8601(iso8601, NULL) : NULL;
	int64_t ms;

	if (!t)
		return 0;
	ms = g_date_time_to_unix(t) * 1000 + g_date_time_get_microsecond(t) / 1000;
	g_date_time_unref(t);
	return ms;
}

/* A JSON credentials document: @keys are the pointers of the key id, the
 * secret, the session token and the expiration. */
cr_status aws_creds_from_json(const struct aws_env *env, const char *what, const char *text,
			      size_t len, const char *const keys[4], struct aws_creds *out,
			      cr_error *err)
{
	const cr_host_api *h = env->host;
	cr_json *root = NULL;
	const char *id, *secret, *token, *exp;
	cr_status rc;

	rc = h->json_parse(text, len, what, &root, err);
	if (rc != CR_OK)
		return rc;
	id = h->json_string(h->json_get(root, keys[0]));
	secret = h->json_string(h->json_get(root, keys[1]));
	token = h->json_string(h->json_get(root, keys[2]));
	exp = h->json_string(h->json_get(root, keys[3]));
	if (!id || !*id || !secret || !*secret) {
		rc = h->error_set(err, CR_ERR_AUTH, "%s: no %s", what,
				  !id || !*id ? keys[0] + 1 : keys[1] + 1);
	} else if (exp && aws_parse_time_ms(exp) == 0) {
		rc = h->error_set(err, CR_ERR_PARSE, "%s: %s \"%s\" is not an ISO 8601 time", what,
				  keys[3] + 1, exp);
	} else {
		out->access_key_id = g_strdup(id);
		out->secret_access_key = g_strdup(secret);
		out->session_token = token && *token ? g_strdup(token) : NULL;
		out->expires_ms = aws_parse_time_ms(exp);
	}
	h->json_free(root);
	return rc;
}
