/* SPDX-License-Identifier: MIT */
/*
 * aws_creds.h - AWS credentials, shared config files and the instance
 * metadata service (IMDS) for aws.so.
 *
 *   aws_creds.c    the credential chain, in botocore 1.43's order
 *                  (credentials.create_credential_resolver)
 *   aws_profile.c  ~/.aws/config and ~/.aws/credentials (AWS's INI dialect)
 *   aws_imds.c     IMDSv2 client (token, GETs, 401 → one new token) and the
 *                  container credentials endpoint (ECS, EKS Pod Identity)
 *   aws_sts.c      STS AssumeRole (signed) / AssumeRoleWithWebIdentity
 *
 * Secrets (keys, session tokens, IMDS tokens, container authorization
 * tokens, web identity tokens) are wiped from memory when dropped and never
 * logged or put in a message, at any verbosity.
 */
#ifndef AWS_CREDS_H
#define AWS_CREDS_H

#include <stdbool.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

struct aws_imds;

/**
 * struct aws_creds - one set of credentials. Strings are owned (g_malloc).
 * @access_key_id, @secret_access_key: (secret) both set on success.
 * @session_token: (secret, nullable) temporary credentials' token.
 * @expires_ms: Unix time of expiry in milliseconds, 0 = does not expire.
 * @provider: static name of the provider that gave them, botocore's method
 *     names: "env", "assume-role", "assume-role-with-web-identity",
 *     "shared-credentials-file", "custom-process", "config-file",
 *     "container-role", "iam-role".
 *
 * Since: aws.so 1.0
 */
struct aws_creds {
	char *access_key_id;
	char *secret_access_key;
	char *session_token;
	int64_t expires_ms;
	const char *provider;
};

/**
 * struct aws_env - what the credential chain and IMDS need from aws.so.
 * Everything is borrowed; aws.c fills it from its options.
 * @host, @ctx: the host table and this plugin instance.
 * @profile: (nullable) the `profile` option as configured. NULL: the
 *     profile is AWS_PROFILE, else "default". Set: environment credentials
 *     (AWS_ACCESS_KEY_ID...) are skipped, as botocore skips them for an
 *     explicit profile.
 * @region: (nullable) the resolved region (for STS's regional endpoint).
 * @root: (nullable) the `root` option (aws.c's /sys probes). Unused here.
 * @ca_file: (nullable) trust anchors for HTTPS (STS, container https);
 *     NULL = AWS_CA_BUNDLE, else the system store.
 * @timeout_ms, @connect_timeout_ms: per request (0 = host defaults) for
 *     STS and container credentials; IMDS has its own
 *     (AWS_METADATA_SERVICE_TIMEOUT).
 * @imds_v1: the `imds_v1` option: fall back to IMDSv1 when the token PUT
 *     gets no token (never with AWS_EC2_METADATA_V1_DISABLED=true).
 * @max_attempts: attempts of a signed request (STS), as aws.c's retries.
 * @builder: (nullable) where `explain` facts go (credentials_provider).
 * @imds: (nullable) an IMDS session to share (its token is reused).
 *
 * Since: aws.so 1.0
 */
struct aws_env {
	const cr_host_api *host;
	cr_plugin_ctx *ctx;
	const char *profile;
	const char *region;
	const char *root;
	const char *ca_file;
	long timeout_ms;
	long connect_timeout_ms;
	bool imds_v1;
	int max_attempts;
	cr_result_builder *builder;
	struct aws_imds *imds;
};

/**
 * aws_creds_clear:
 * @c: (nullable) credentials to clear.
 *
 * Wipes the secrets, frees the strings and zeroes @c.
 * Since: aws.so 1.0
 */
void aws_creds_clear(struct aws_creds *c);

/**
 * aws_creds_resolve:
 * @env: the environment.
 * @out: (out) credentials on CR_OK; clear with aws_creds_clear().
 * @err: (nullable) error.
 *
 * Walks the chain: env, assume-role (role_arn + source_profile or
 * credential_source), web identity, shared credentials file,
 * credential_process, config file, container, IMDS role. The first that
 * has credentials wins; one that is configured but fails ends the walk
 * with its error. Logs "credentials: PROVIDER (...)" at info level (-v).
 *
 * Returns: CR_OK; CR_ERR_AUTH (none found, or refused), CR_ERR_CONFIG
 *     (a bad profile, naming the file), CR_ERR_NETWORK / CR_ERR_TIMEOUT
 *     (an endpoint), CR_ERR_IO, CR_ERR_PARSE.
 * Since: aws.so 1.0
 */
cr_status aws_creds_resolve(const struct aws_env *env, struct aws_creds *out, cr_error *err);

/**
 * aws_profile_region:
 * @env: the environment (profile, files).
 * @region: (out) (transfer full) the profile's `region`; g_free().
 * @err: (nullable) error.
 *
 * Returns: CR_OK; CR_ERR_NOT_FOUND when the profile (or the file) has no
 *     region; CR_ERR_IO / CR_ERR_CONFIG for an unreadable or bad file.
 * Since: aws.so 1.0
 */
cr_status aws_profile_region(const struct aws_env *env, char **region, cr_error *err);

/**
 * aws_imds_new:
 * @env: the environment (borrowed for the session's life).
 *
 * An IMDS session; nothing is sent until aws_imds_get().
 * Returns: (transfer full) the session; aws_imds_free().
 * Since: aws.so 1.0
 */
struct aws_imds *aws_imds_new(const struct aws_env *env);

/** aws_imds_free: wipe the token and free @imds (nullable). Since: aws.so 1.0 */
void aws_imds_free(struct aws_imds *imds);

/**
 * aws_imds_get:
 * @imds: the session.
 * @path: relative to /latest/, e.g. "meta-data/instance-id".
 * @value: (out) (transfer full) the body; g_free() (wipe it when secret).
 * @err: (nullable) error.
 *
 * Fetches (and caches) a token, then GETs @path with it.
 * Returns: CR_OK; CR_DECLINED when AWS_EC2_METADATA_DISABLED=true;
 *     CR_ERR_NOT_FOUND on 404; CR_ERR_NETWORK / CR_ERR_TIMEOUT (message
 *     names the endpoint, and the hop limit for a PUT that timed out);
 *     CR_ERR_AUTH (401 twice, 403); CR_ERR_BACKEND (other statuses).
 * Since: aws.so 1.0
 */
cr_status aws_imds_get(struct aws_imds *imds, const char *path, char **value, cr_error *err);

/* -- internal to the credential files ------------------------------------ */

#include <glib.h>

/** Which file a profile key comes from. */
enum aws_src {
	AWS_SRC_CONFIG = 0,      /* AWS_CONFIG_FILE, ~/.aws/config */
	AWS_SRC_CREDENTIALS = 1, /* AWS_SHARED_CREDENTIALS_FILE, ~/.aws/credentials */
	AWS_SRC_ANY = 2,         /* credentials file first, then config file */
};

/* aws_profile.c: both files, parsed once per resolve. */
struct aws_profiles;
cr_status aws_ini_parse(const cr_host_api *h, const char *path, char *text, bool config_file,
			GHashTable **out, cr_error *err);
cr_status aws_profiles_load(const struct aws_env *env, struct aws_profiles **out, cr_error *err);
void aws_profiles_free(struct aws_profiles *p);
const char *aws_profiles_name(const struct aws_profiles *p);
const char *aws_profiles_path(const struct aws_profiles *p, enum aws_src src);
bool aws_profile_exists(const struct aws_profiles *p, const char *profile);
const char *aws_profile_get(const struct aws_profiles *p, const char *profile, enum aws_src src,
			    const char *key);

/* aws_imds.c: the two metadata endpoints, EC2's and the container's */
cr_status aws_imds_role_creds(struct aws_imds *imds, struct aws_creds *out, cr_error *err);
cr_status aws_container_creds(const struct aws_env *env, struct aws_creds *out, cr_error *err);

/* aws_keys.c, below the other credential files (layers.txt) */
void aws_wipe_free(char *secret);
bool aws_env_true(const struct aws_env *env, const char *name);
cr_status aws_creds_from_json(const struct aws_env *env, const char *what, const char *text,
			      size_t len, const char *const keys[4], struct aws_creds *out,
			      cr_error *err);
int64_t aws_parse_time_ms(const char *iso8601);

/* aws_sts.c */
/** STS AssumeRole (@source signs it) or, @source NULL, the unsigned
 *  AssumeRoleWithWebIdentity with @web_token. @args: NULL-terminated
 *  name, value pairs added to the query (RoleSessionName, ExternalId...). */
cr_status aws_sts_assume(const struct aws_env *env, const struct aws_creds *source,
			 const char *role_arn, const char *web_token, const char *const *args,
			 struct aws_creds *out, cr_error *err);

#endif /* AWS_CREDS_H */
