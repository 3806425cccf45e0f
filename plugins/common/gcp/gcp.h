/* SPDX-License-Identifier: MIT */
/*
 * gcp.h - Google Cloud plumbing shared by the gce and tpu resolvers
 * (static library cr_common_gcp, linked into each plugin).
 *
 *   gcp.c        options, the handle, "are we on GCE" (DMI)
 *   gcp_meta.c   the metadata server (plain HTTP, Metadata-Flavor: Google)
 *   gcp_auth.c   the credential chain and OAuth 2.0 token grants (RS256 JWT)
 *   gcp_api.c    authorised requests to Google APIs: retries, Google errors
 *
 * Everything goes through the host table the plugin hands to gcp_new():
 * HTTP through host->http_request (libcurl), JSON through json-c, files
 * through host->read_file (so a test `root` and injected environments
 * apply). Tokens and keys are wiped when dropped and never logged.
 * GLib aborts on out-of-memory; nothing here reports CR_ERR_NOMEM.
 */
#ifndef CR_COMMON_GCP_H
#define CR_COMMON_GCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

/** The metadata server's address when nothing else is configured. */
#define GCP_METADATA_DEFAULT_HOST "169.254.169.254"
/** The OAuth 2.0 token endpoint of an authorized_user file without one. */
#define GCP_DEFAULT_TOKEN_URI "https://oauth2.googleapis.com/token"
/** The scope every token is asked for. */
#define GCP_SCOPE "https://www.googleapis.com/auth/cloud-platform"

/**
 * GCP_OPTIONS:
 *
 * The schema entries every GCP plugin shares, spliced into its own
 * cr_option table before CR_OPTIONS_END:
 *
 *   static const cr_option my_options[] = {
 *           CR_OPTION("project", ...),
 *           GCP_OPTIONS,
 *           CR_OPTIONS_END,
 *   };
 *
 * Read them with gcp_opts_read().
 */
#define GCP_OPTIONS                                                                                \
	CR_OPTION("metadata_host", CR_OPT_STRING, NULL, 0,                                         \
		  "metadata server HOST[:PORT] (default: $GCE_METADATA_HOST, "                     \
		  "$GCE_METADATA_ROOT, $GCE_METADATA_IP, else " GCP_METADATA_DEFAULT_HOST ")"),    \
		CR_OPTION_RANGE("metadata_timeout", CR_OPT_FLOAT, "2", 0,                          \
				"seconds the metadata server has to answer (all 3 tries)", 0.01,   \
				600),                                                              \
		CR_OPTION("access_token_file", CR_OPT_STRING, NULL, CR_OPT_SECRET,                 \
			  "file holding an OAuth 2.0 access token, read again for every "          \
			  "resolve (first in the credential chain)"),                              \
		CR_OPTION("ca_file", CR_OPT_STRING, NULL, 0,                                       \
			  "CA bundle for the Google APIs and token endpoints (default: system)"),  \
		CR_OPTION_RANGE("retries", CR_OPT_INT, "5", 0,                                     \
				"retries of a request answered 429, 5xx or 403 rateLimitExceeded", \
				0, 100),                                                           \
		CR_OPTION_RANGE("max_retry_wait", CR_OPT_FLOAT, "30", 0,                           \
				"longest wait between retries, Retry-After included (seconds)", 0, \
				3600),                                                             \
		CR_OPTION_RANGE("request_timeout", CR_OPT_FLOAT, "30", 0,                          \
				"seconds for one API request", 0.1, 3600),                         \
		CR_OPTION("root", CR_OPT_STRING, "/", 0,                                           \
			  "directory used in place of / for /sys (tests, chroots)")

/** The shared options as read by gcp_opts_read(). Strings are borrowed from
 *  the config (valid until the plugin's destroy). */
struct gcp_opts {
	const char *metadata_host;     /* NULL: environment, then the default */
	int64_t metadata_timeout_ms;   /* whole budget of one metadata read */
	const char *access_token_file; /* NULL: next in the chain */
	const char *ca_file;           /* NULL: system store */
	int64_t retries;
	int64_t max_retry_wait_ms;
	int64_t request_timeout_ms;
	const char *root; /* "/" or a directory standing in for it */
};

/** Handle for one resolve: options, the metadata host, a cached token. */
struct gcp;

/**
 * gcp_opts_read:
 * Fill @o from the GCP_OPTIONS entries of the plugin's config (defaults
 * from the schema).
 */
void gcp_opts_read(const cr_host_api *host, cr_plugin_ctx *ctx, struct gcp_opts *o);

/**
 * gcp_new:
 * @host, @ctx: (transfer none) the plugin's host table and context, used for
 *     every call on the handle; both must outlive it.
 * @o: (transfer none) options; copied.
 * Returns: (transfer full) a handle (free with gcp_free), or NULL with
 *     CR_ERR_CONFIG in @err when `root` is not an absolute path.
 */
struct gcp *gcp_new(const cr_host_api *host, cr_plugin_ctx *ctx, const struct gcp_opts *o,
		    cr_error *err);

/** gcp_free: drop @g, wiping its token. NULL is a no-op. */
void gcp_free(struct gcp *g);

/**
 * gcp_on_gce:
 * Whether this machine is a Google Compute Engine VM: ROOT/sys/class/dmi/id/
 * product_name starts with "Google" (as google-auth decides on Linux).
 * No packet is sent.
 */
bool gcp_on_gce(struct gcp *g);

/** gcp_metadata_host: the metadata HOST[:PORT] in use (borrowed). */
const char *gcp_metadata_host(const struct gcp *g);

/**
 * gcp_metadata_explicit:
 * Whether a metadata server was named (option or environment) rather
 * than the built-in default address.
 */
bool gcp_metadata_explicit(const struct gcp *g);

/**
 * gcp_metadata_get:
 * @key: path below /computeMetadata/v1/, with any query ("instance/zone",
 *     "instance/attributes/?recursive=true").
 * @value: (out) (transfer full) the body, NUL-terminated; free with g_free.
 *
 * GET http://HOST/computeMetadata/v1/KEY with Metadata-Flavor: Google, at
 * most 3 tries within metadata_timeout. An answer without the
 * Metadata-Flavor: Google header is refused (not a metadata server).
 * Returns: CR_OK; CR_ERR_NOT_FOUND for 404 (the key is absent);
 *     CR_ERR_TIMEOUT when the deadline passed; CR_ERR_NETWORK,
 *     CR_ERR_BACKEND otherwise. Messages name the URL.
 */
cr_status gcp_metadata_get(struct gcp *g, const char *key, char **value, cr_error *err);

/**
 * gcp_api_request:
 * @method: "GET", "POST".
 * @url: absolute https:// URL of a Google API.
 * @body: (nullable) JSON request body.
 * @resp_body: (out) (transfer full) the 2xx answer's body, NUL-terminated;
 *     free with g_free. (nullable)
 * @resp_len: (out) (nullable) its length.
 *
 * An authorised request: a bearer token from the credential chain (asked
 * once per handle, again after a 401 (once) or when it expires). 429, 5xx
 * and 403 with reason rateLimitExceeded/userRateLimitExceeded are retried
 * `retries` times, waiting Retry-After (at most max_retry_wait) or an
 * exponential backoff; a transport failure is retried the same way.
 * Returns: CR_OK for 2xx; CR_ERR_NOT_FOUND for 404; CR_ERR_AUTH for
 *     401/403; CR_ERR_BACKEND, CR_ERR_NETWORK, CR_ERR_TIMEOUT, ... The
 *     message names METHOD, the URL (without its query), the HTTP status
 *     and Google's error.message.
 */
cr_status gcp_api_request(struct gcp *g, const char *method, const char *url, const char *body,
			  char **resp_body, size_t *resp_len, cr_error *err);

/**
 * gcp_json_object:
 * Parse @text (@len bytes), an API answer, into *@root: a JSON object, or
 * an error naming @what (the request; issue 27 item 4: `[1,2]`, `null` or
 * `"hello"` is not an empty answer). *@root is NULL unless CR_OK.
 * Returns: CR_OK, or CR_ERR_PARSE.
 */
cr_status gcp_json_object(const cr_host_api *host, const char *text, size_t len, const char *what,
			  cr_json **root, cr_error *err);

/**
 * gcp_credential_source:
 * What the last token came from ("access_token_file", "service_account
 * FILE", "authorized_user FILE", "metadata"), or NULL before the first.
 */
const char *gcp_credential_source(const struct gcp *g);

/**
 * gcp_last_segment:
 * The part of @path after its last '/' (borrowed from @path), e.g. the
 * zone of "projects/123/zones/us-central1-a".
 */
const char *gcp_last_segment(const char *path);

#endif /* CR_COMMON_GCP_H */
