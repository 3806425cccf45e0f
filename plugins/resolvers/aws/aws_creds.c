/* SPDX-License-Identifier: MIT */
/*
 * aws_creds.c - the credential chain (contract stub: environment only).
 */
#include <string.h>

#include <glib.h>

#include "aws_creds.h"

static void aws_wipe_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		g_free(s);
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

static cr_status aws_creds_env(const struct aws_env *env, struct aws_creds *out)
{
	const char *id = env->host->getenv(env->ctx, "AWS_ACCESS_KEY_ID");
	const char *secret = env->host->getenv(env->ctx, "AWS_SECRET_ACCESS_KEY");
	const char *token = env->host->getenv(env->ctx, "AWS_SESSION_TOKEN");

	if (!id || !*id || !secret || !*secret)
		return CR_DECLINED;
	out->access_key_id = g_strdup(id);
	out->secret_access_key = g_strdup(secret);
	out->session_token = token && *token ? g_strdup(token) : NULL;
	out->provider = "env";
	return CR_OK;
}

cr_status aws_creds_resolve(const struct aws_env *env, struct aws_creds *out, cr_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!env->profile && aws_creds_env(env, out) == CR_OK) {
		env->host->log(env->ctx, CR_LOG_INFO, "credentials: env");
		return CR_OK;
	}
	return env->host->error_set(err, CR_ERR_AUTH, "no AWS credentials found");
}
