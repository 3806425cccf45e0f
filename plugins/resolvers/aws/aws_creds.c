/* SPDX-License-Identifier: MIT */
/*
 * aws_creds.c - the credential chain, in the order of botocore 1.43's
 * credentials.create_credential_resolver:
 *
 *   env                            AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 *                                  AWS_SESSION_TOKEN (skipped when the
 *                                  `profile` option is set, as botocore
 *                                  skips them for an explicit profile)
 *   assume-role                    the profile's role_arn with
 *                                  source_profile or credential_source
 *   the profile's providers:
 *     assume-role-with-web-identity  AWS_WEB_IDENTITY_TOKEN_FILE +
 *                                  AWS_ROLE_ARN [+ AWS_ROLE_SESSION_NAME]
 *                                  (env first, unless `profile` is set),
 *                                  else the profile's keys (EKS IRSA)
 *     sso                          an error naming credential_process
 *     shared-credentials-file      aws_access_key_id in the credentials file
 *     custom-process               credential_process (JSON Version 1)
 *     config-file                  aws_access_key_id in the config file
 *   container-role                 ECS/EKS Pod Identity endpoint
 *   iam-role                       IMDS instance profile
 *
 * The first provider that has credentials wins. One that is configured but
 * fails (a process that exits 1, STS refusing) ends the walk with its error,
 * as botocore does. The provider used is logged at info level (-v) and
 * recorded as the `credentials` fact; keys and tokens never are.
 */
#include <string.h>

#include <glib.h>

#include "aws_creds.h"

/* How long a credential_process may run (botocore waits forever). */
#define AWS_PROCESS_TIMEOUT_MS 60000

/** One walk of the chain. */
struct aws_chain {
	const struct aws_env *env;
	struct aws_profiles *p;
	struct aws_imds *imds; /* env->imds, or one made on first use */
	bool own_imds;
	GPtrArray *visited; /* profiles on the assume-role path */
	bool imds_failed;   /* the last resort could not be reached */
};

static cr_status aws_set(struct aws_creds *out, const char *id, const char *secret,
			 const char *token, const char *provider)
{
	out->access_key_id = g_strdup(id);
	out->secret_access_key = g_strdup(secret);
	out->session_token = token && *token ? g_strdup(token) : NULL;
	out->provider = provider;
	return CR_OK;
}

/* -- env ------------------------------------------------------------------ */

static cr_status aws_from_env(struct aws_chain *c, struct aws_creds *out, cr_error *err)
{
	const struct aws_env *env = c->env;
	const char *id = env->host->getenv(env->ctx, "AWS_ACCESS_KEY_ID");
	const char *secret = env->host->getenv(env->ctx, "AWS_SECRET_ACCESS_KEY");
	const char *token = env->host->getenv(env->ctx, "AWS_SESSION_TOKEN");

	if (!token || !*token)
		token = env->host->getenv(env->ctx, "AWS_SECURITY_TOKEN");
	if (!id || !*id)
		return CR_DECLINED;
	if (!secret || !*secret)
		return env->host->error_set(err, CR_ERR_AUTH,
					    "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY "
					    "is not");
	env->host->log(env->ctx, CR_LOG_INFO, "credentials: env (AWS_ACCESS_KEY_ID)");
	return aws_set(out, id, secret, token, "env");
}

/* -- static keys in a file -------------------------------------------------- */

static cr_status aws_from_file(struct aws_chain *c, const char *profile, enum aws_src src,
			       struct aws_creds *out, cr_error *err)
{
	const struct aws_env *env = c->env;
	const char *id = aws_profile_get(c->p, profile, src, "aws_access_key_id");
	const char *secret = aws_profile_get(c->p, profile, src, "aws_secret_access_key");
	const char *token = aws_profile_get(c->p, profile, src, "aws_session_token");
	const char *path = aws_profiles_path(c->p, src);
	const char *provider = src == AWS_SRC_CONFIG ? "config-file" : "shared-credentials-file";

	if (!token)
		token = aws_profile_get(c->p, profile, src, "aws_security_token");
	if (!id)
		return CR_DECLINED;
	if (!*id || !secret || !*secret)
		return env->host->error_set(err, CR_ERR_AUTH, "%s: profile '%s': %s", path, profile,
					    !*id     ? "aws_access_key_id is empty"
					    : secret ? "aws_secret_access_key is empty"
						     : "aws_secret_access_key is missing");
	env->host->log(env->ctx, CR_LOG_INFO, "credentials: %s (profile '%s' in %s)", provider,
		       profile, path);
	return aws_set(out, id, secret, token, provider);
}

/* -- credential_process ------------------------------------------------------ */

static cr_status aws_process_run(struct aws_chain *c, const char *profile, char **argv,
				 cr_spawn_result **res, cr_error *err)
{
	const struct aws_env *env = c->env;
	long timeout = AWS_PROCESS_TIMEOUT_MS;
	cr_status rc;

	rc = env->host->spawn(env->ctx, (const char *const *)argv, NULL, timeout, 0, res, err);
	if (rc == CR_ERR_TIMEOUT)
		return env->host->error_set(err, CR_ERR_TIMEOUT,
					    "credential_process '%s' (profile '%s'): no answer "
					    "after %ld ms; killed",
					    argv[0], profile, timeout);
	if (rc != CR_OK) {
		char *why = g_strdup(err ? err->message : "cannot run"); /* err is rewritten */

		rc = env->host->error_set(err, CR_ERR_AUTH,
					  "credential_process '%s' (profile '%s'): %s", argv[0],
					  profile, why);
		g_free(why);
		return rc;
	}
	if ((*res)->exit_status != 0) {
		char *line = g_strndup((*res)->err, strcspn((*res)->err, "\r\n"));

		rc = env->host->error_set(err, CR_ERR_AUTH,
					  "credential_process '%s' (profile '%s') exited with "
					  "status %d%s%s",
					  argv[0], profile, (*res)->exit_status, *line ? ": " : "",
					  line);
		g_free(line);
	}
	return rc;
}

static cr_status aws_process_parse(struct aws_chain *c, const char *what,
				   const cr_spawn_result *res, struct aws_creds *out, cr_error *err)
{
	static const char *const keys[4] = { "/AccessKeyId", "/SecretAccessKey", "/SessionToken",
					     "/Expiration" };
	const cr_host_api *h = c->env->host;
	cr_json *root = NULL;
	int64_t version = 0;
	cr_status rc;

	rc = h->json_parse(res->out, res->out_len, what, &root, err);
	if (rc != CR_OK)
		return rc;
	if (!h->json_int(h->json_get(root, "/Version"), &version) || version != 1)
		rc = h->error_set(err, CR_ERR_AUTH, "%s: Version must be 1", what);
	h->json_free(root);
	if (rc == CR_OK)
		rc = aws_creds_from_json(c->env, what, res->out, res->out_len, keys, out, err);
	return rc;
}

static cr_status aws_from_process(struct aws_chain *c, const char *profile, struct aws_creds *out,
				  cr_error *err)
{
	const cr_host_api *h = c->env->host;
	const char *cmd = aws_profile_get(c->p, profile, AWS_SRC_ANY, "credential_process");
	cr_spawn_result *res = NULL;
	char **argv = NULL;
	GError *gerr = NULL;
	char *what;
	cr_status rc;

	if (!cmd)
		return CR_DECLINED;
	if (!g_shell_parse_argv(cmd, NULL, &argv, &gerr)) {
		rc = h->error_set(err, CR_ERR_CONFIG, "profile '%s': credential_process: %s",
				  profile, gerr->message);
		g_error_free(gerr);
		return rc;
	}
	what = g_strdup_printf("credential_process '%s' (profile '%s')", argv[0], profile);
	rc = aws_process_run(c, profile, argv, &res, err);
	if (rc == CR_OK)
		rc = aws_process_parse(c, what, res, out, err);
	if (res) {
		explicit_bzero(res->out, res->out_len);
		h->spawn_result_free(res);
	}
	if (rc == CR_OK) {
		out->provider = "custom-process";
		h->log(c->env->ctx, CR_LOG_INFO, "credentials: custom-process (%s)", what);
	}
	g_free(what);
	g_strfreev(argv);
	return rc;
}

/* -- web identity ------------------------------------------------------------ */

static const char *aws_web_config(struct aws_chain *c, const char *profile, bool env_ok,
				  const char *key, const char *var)
{
	const char *v = env_ok ? c->env->host->getenv(c->env->ctx, var) : NULL;

	return v ? v : aws_profile_get(c->p, profile, AWS_SRC_ANY, key);
}

static char *aws_session_name(const struct aws_env *env)
{
	GDateTime *now = g_date_time_new_now_utc();
	char *name =
		g_strdup_printf("cluster-resolver-%" G_GINT64_FORMAT, g_date_time_to_unix(now));

	g_date_time_unref(now);
	return name;
}

static cr_status aws_from_web_identity(struct aws_chain *c, const char *profile, bool env_ok,
				       struct aws_creds *out, cr_error *err)
{
	const struct aws_env *env = c->env;
	const char *file = aws_web_config(c, profile, env_ok, "web_identity_token_file",
					  "AWS_WEB_IDENTITY_TOKEN_FILE");
	const char *arn = aws_web_config(c, profile, env_ok, "role_arn", "AWS_ROLE_ARN");
	const char *name =
		aws_web_config(c, profile, env_ok, "role_session_name", "AWS_ROLE_SESSION_NAME");
	char *session = name ? g_strdup(name) : aws_session_name(env);
	const char *args[] = { "RoleSessionName", session, NULL };
	char *token = NULL;
	size_t len = 0;
	cr_status rc;

	if (!file || !*file) {
		g_free(session);
		return CR_DECLINED;
	}
	if (!arn || !*arn)
		rc = env->host->error_set(err, CR_ERR_CONFIG,
					  "web identity token file %s but no role ARN "
					  "(AWS_ROLE_ARN or the profile's role_arn)",
					  file);
	else
		rc = env->host->read_file(env->ctx, file, 1u << 20, &token, &len, err);
	if (rc == CR_OK) {
		g_strstrip(token);
		rc = aws_sts_assume(env, NULL, arn, token, args, out, err);
		explicit_bzero(token, len);
		env->host->free(token);
	}
	if (rc == CR_OK) {
		out->provider = "assume-role-with-web-identity";
		env->host->log(env->ctx, CR_LOG_INFO,
			       "credentials: assume-role-with-web-identity (%s, token file %s)",
			       arn, file);
	}
	g_free(session);
	return rc;
}

/* -- the profile's providers (ProfileProviderBuilder.providers) -------------- */

static bool aws_is_sso(struct aws_chain *c, const char *profile)
{
	return aws_profile_get(c->p, profile, AWS_SRC_ANY, "sso_start_url") ||
	       aws_profile_get(c->p, profile, AWS_SRC_ANY, "sso_session") ||
	       aws_profile_get(c->p, profile, AWS_SRC_ANY, "sso_account_id");
}

static cr_status aws_from_profile(struct aws_chain *c, const char *profile, bool env_ok,
				  struct aws_creds *out, cr_error *err)
{
	cr_status rc;

	rc = aws_from_web_identity(c, profile, env_ok, out, err);
	if (rc != CR_DECLINED)
		return rc;
	if (aws_is_sso(c, profile))
		return c->env->host->error_set(
			err, CR_ERR_AUTH,
			"profile '%s' uses IAM Identity Center (SSO), which cluster-resolver "
			"does not log in to; give the profile a credential_process (e.g. "
			"`aws configure export-credentials --profile %s --format process`)",
			profile, profile);
	rc = aws_from_file(c, profile, AWS_SRC_CREDENTIALS, out, err);
	if (rc != CR_DECLINED)
		return rc;
	rc = aws_from_process(c, profile, out, err);
	if (rc != CR_DECLINED)
		return rc;
	return aws_from_file(c, profile, AWS_SRC_CONFIG, out, err);
}

/* -- container and IMDS -------------------------------------------------------- */

static struct aws_imds *aws_chain_imds(struct aws_chain *c)
{
	if (!c->imds) {
		c->imds = aws_imds_new(c->env);
		c->own_imds = true;
	}
	return c->imds;
}

static cr_status aws_from_imds(struct aws_chain *c, struct aws_creds *out, cr_error *err)
{
	return aws_imds_role_creds(aws_chain_imds(c), out, err);
}

/* -- assume-role ---------------------------------------------------------------- */

static cr_status aws_assume_role(struct aws_chain *c, const char *profile, struct aws_creds *out,
				 cr_error *err);

static bool aws_has_role(struct aws_chain *c, const char *profile)
{
	return aws_profile_get(c->p, profile, AWS_SRC_ANY, "role_arn") &&
	       !aws_profile_get(c->p, profile, AWS_SRC_ANY, "web_identity_token_file");
}

static bool aws_has_static(struct aws_chain *c, const char *profile)
{
	return aws_profile_get(c->p, profile, AWS_SRC_ANY, "aws_access_key_id") ||
	       aws_profile_get(c->p, profile, AWS_SRC_ANY, "aws_secret_access_key");
}

/* credential_source: botocore's canonical names (case-insensitive). */
static cr_status aws_from_source(struct aws_chain *c, const char *profile, const char *source,
				 struct aws_creds *out, cr_error *err)
{
	cr_status rc;

	if (g_ascii_strcasecmp(source, "Environment") == 0)
		rc = aws_from_env(c, out, err);
	else if (g_ascii_strcasecmp(source, "EcsContainer") == 0)
		rc = aws_container_creds(c->env, out, err);
	else if (g_ascii_strcasecmp(source, "Ec2InstanceMetadata") == 0)
		rc = aws_from_imds(c, out, err);
	else
		return c->env->host->error_set(
			err, CR_ERR_CONFIG,
			"profile '%s': credential_source \"%s\" is not one of Environment, "
			"EcsContainer, Ec2InstanceMetadata",
			profile, source);
	if (rc == CR_DECLINED)
		rc = c->env->host->error_set(err, CR_ERR_AUTH,
					     "profile '%s': no credentials in credential_source %s",
					     profile, source);
	return rc;
}

static cr_status aws_from_source_profile(struct aws_chain *c, const char *profile,
					 const char *source, struct aws_creds *out, cr_error *err)
{
	const cr_host_api *h = c->env->host;
	cr_status rc;

	if (!aws_profile_exists(c->p, source))
		return h->error_set(err, CR_ERR_CONFIG,
				    "profile '%s': source_profile '%s' does not exist", profile,
				    source);
	for (guint i = 0; i < c->visited->len; i++)
		if (strcmp(g_ptr_array_index(c->visited, i), source) == 0 &&
		    !(strcmp(source, profile) == 0 && aws_has_static(c, source)))
			return h->error_set(err, CR_ERR_CONFIG,
					    "profile '%s': source_profile '%s' makes a loop",
					    profile, source);
	g_ptr_array_add(c->visited, (gpointer)source);
	if (aws_has_static(c, source) || !aws_has_role(c, source) || strcmp(source, profile) == 0) {
		rc = aws_from_profile(c, source, false, out, err);
		if (rc == CR_DECLINED)
			rc = h->error_set(err, CR_ERR_AUTH,
					  "the source profile '%s' must have credentials", source);
		return rc;
	}
	return aws_assume_role(c, source, out, err);
}

static cr_status aws_role_args(struct aws_chain *c, const char *profile, GPtrArray *args,
			       cr_error *err)
{
	static const char *const map[][2] = {
		{ "role_session_name", "RoleSessionName" },
		{ "external_id", "ExternalId" },
		{ "duration_seconds", "DurationSeconds" },
	};

	if (aws_profile_get(c->p, profile, AWS_SRC_ANY, "mfa_serial"))
		return c->env->host->error_set(err, CR_ERR_AUTH,
					       "profile '%s': mfa_serial needs an MFA code, which "
					       "cluster-resolver cannot ask for",
					       profile);
	for (size_t i = 0; i < G_N_ELEMENTS(map); i++) {
		const char *v = aws_profile_get(c->p, profile, AWS_SRC_ANY, map[i][0]);

		if (v || i == 0) {
			g_ptr_array_add(args, g_strdup(map[i][1]));
			g_ptr_array_add(args, v ? g_strdup(v) : aws_session_name(c->env));
		}
	}
	g_ptr_array_add(args, NULL);
	return CR_OK;
}

static cr_status aws_assume_role(struct aws_chain *c, const char *profile, struct aws_creds *out,
				 cr_error *err)
{
	const cr_host_api *h = c->env->host;
	const char *arn = aws_profile_get(c->p, profile, AWS_SRC_ANY, "role_arn");
	const char *src = aws_profile_get(c->p, profile, AWS_SRC_ANY, "source_profile");
	const char *cs = aws_profile_get(c->p, profile, AWS_SRC_ANY, "credential_source");
	GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
	struct aws_creds source = { 0 };
	cr_status rc;

	if (src && cs)
		rc = h->error_set(err, CR_ERR_CONFIG,
				  "profile '%s' has both source_profile and credential_source",
				  profile);
	else if (!src && !cs)
		rc = h->error_set(err, CR_ERR_CONFIG,
				  "profile '%s' has role_arn but neither source_profile nor "
				  "credential_source",
				  profile);
	else
		rc = aws_role_args(c, profile, args, err);
	if (rc == CR_OK)
		rc = cs ? aws_from_source(c, profile, cs, &source, err)
			: aws_from_source_profile(c, profile, src, &source, err);
	if (rc == CR_OK)
		rc = aws_sts_assume(c->env, &source, arn, NULL, (const char *const *)args->pdata,
				    out, err);
	if (rc == CR_OK) {
		out->provider = "assume-role";
		h->log(c->env->ctx, CR_LOG_INFO,
		       "credentials: assume-role (%s for profile '%s', source %s)", arn, profile,
		       source.provider);
	}
	aws_creds_clear(&source);
	g_ptr_array_free(args, TRUE);
	return rc;
}

/* -- the chain ------------------------------------------------------------------- */

static cr_status aws_chain_walk(struct aws_chain *c, struct aws_creds *out, cr_error *err)
{
	const char *profile = aws_profiles_name(c->p);
	bool env_ok = !c->env->profile;
	cr_status rc = CR_DECLINED;

	if (env_ok)
		rc = aws_from_env(c, out, err);
	if (rc == CR_DECLINED && aws_has_role(c, profile)) {
		g_ptr_array_add(c->visited, (gpointer)profile);
		rc = aws_assume_role(c, profile, out, err);
	}
	if (rc == CR_DECLINED)
		rc = aws_from_profile(c, profile, env_ok, out, err);
	if (rc == CR_DECLINED)
		rc = aws_container_creds(c->env, out, err);
	if (rc == CR_DECLINED) {
		rc = aws_from_imds(c, out, err);
		c->imds_failed = rc == CR_ERR_NETWORK || rc == CR_ERR_TIMEOUT;
	}
	return rc;
}

/* Nothing found: say where we looked; IMDS's failure (off EC2, or the hop
 * limit in a container) ends the message. */
static cr_status aws_none(struct aws_chain *c, cr_status rc, cr_error *err)
{
	const char *creds = aws_profiles_path(c->p, AWS_SRC_CREDENTIALS);
	const char *config = aws_profiles_path(c->p, AWS_SRC_CONFIG);
	char *imds = g_strdup(rc == CR_DECLINED ? "" : err ? err->message : "unreachable");

	rc = c->env->host->error_set(
		err, rc == CR_DECLINED ? CR_ERR_AUTH : rc,
		"no AWS credentials in the environment, profile '%s' (%s, %s), "
		"a container endpoint or the instance metadata service%s%s",
		aws_profiles_name(c->p), creds ? creds : "no HOME", config ? config : "no HOME",
		*imds ? ": " : "", imds);
	g_free(imds);
	return rc;
}

cr_status aws_creds_resolve(const struct aws_env *env, struct aws_creds *out, cr_error *err)
{
	struct aws_chain c = { env, NULL, env->imds, false, NULL, false };
	cr_status rc;

	memset(out, 0, sizeof(*out));
	rc = aws_profiles_load(env, &c.p, err);
	if (rc != CR_OK)
		return rc;
	c.visited = g_ptr_array_new();
	rc = aws_chain_walk(&c, out, err);
	if (rc == CR_DECLINED || c.imds_failed)
		rc = aws_none(&c, rc, err);
	if (rc == CR_OK && env->builder)
		env->host->result_set_fact_string(env->builder, "credentials", out->provider, NULL);
	if (rc != CR_OK)
		aws_creds_clear(out);
	g_ptr_array_free(c.visited, TRUE);
	if (c.own_imds)
		aws_imds_free(c.imds);
	aws_profiles_free(c.p);
	return rc;
}
