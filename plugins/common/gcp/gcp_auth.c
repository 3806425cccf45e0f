/* SPDX-License-Identifier: MIT */
/*
 * gcp_auth.c - the credential chain, first found wins (as google-auth's
 * default()):
 *
 *   1. the `access_token_file` option: a bearer token, read again each time
 *      one is needed (whatever rotates it, we see the new one);
 *   2. $GOOGLE_APPLICATION_CREDENTIALS: a service_account key file (RS256
 *      JWT bearer grant, RFC 7523, to its token_uri) or an authorized_user
 *      file (refresh-token grant); other types are refused by name;
 *   3. gcloud's application-default credentials file,
 *      $CLOUDSDK_CONFIG or ~/.config/gcloud, application_default_credentials.json;
 *   4. the metadata server's instance/service-accounts/default/token, when
 *      on GCE or when a metadata server was named.
 *
 * Tokens ask for the cloud-platform scope. OpenSSL's libcrypto signs the JWT;
 * it is opened (host->dl_open) only then. Tokens, keys and refresh tokens
 * are wiped when dropped and never logged or shown in a message.
 */
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "gcp-private.h"

#define GCP_JWT_LIFETIME 3600

/* What the token comes from, for messages: "@kind @what" or "@kind". */
static void gcp_set_source(struct gcp *g, const char *kind, const char *what)
{
	g_free(g->source);
	g->source = g_strconcat(kind, what ? " " : "", what ? what : "", NULL);
}

/* Keep @token (taken) valid for @expires_in seconds (0: no expiry known),
 * less a margin so it does not lapse in flight. */
static void gcp_token_keep(struct gcp *g, char *token, int64_t expires_in)
{
	gcp_token_drop(g);
	g->token = token;
	if (expires_in > 0) {
		int64_t margin = expires_in > 120 ? 60 : expires_in / 2;

		g->token_expiry = g->host->now_ms(g->ctx) + (expires_in - margin) * 1000;
	}
}

static cr_status gcp_read_token_file(struct gcp *g, const char *path, cr_error *err)
{
	char *data = NULL;
	size_t len = 0;
	cr_status rc;

	rc = g->host->read_file(g->ctx, path, 1u << 20, &data, &len, err);
	if (rc != CR_OK)
		return rc == CR_ERR_NOT_FOUND
			       ? g->host->error_set(err, CR_ERR_AUTH,
						    "access_token_file %s: no such file", path)
			       : rc;
	gcp_token_keep(g, g_strstrip(g_strdup(data)), 0);
	explicit_bzero(data, len);
	g->host->free(data);
	gcp_set_source(g, "access_token_file", path);
	if (g->token[0] == '\0') {
		gcp_token_drop(g);
		return g->host->error_set(err, CR_ERR_AUTH, "access_token_file %s is empty", path);
	}
	return CR_OK;
}

static char *gcp_b64url(const unsigned char *data, size_t len)
{
	char *s = g_base64_encode(data, len);

	for (char *p = s; *p; p++)
		*p = *p == '+' ? '-' : *p == '/' ? '_' : *p;
	s[strcspn(s, "=")] = '\0';
	return s;
}

static void gcp_json_str(GString *s, const char *v)
{
	g_string_append_c(s, '"');
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			g_string_append_printf(s, "\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			g_string_append_printf(s, "\\u%04x", (unsigned)*v);
		else
			g_string_append_c(s, *v);
	}
	g_string_append_c(s, '"');
}

/* libcrypto, opened only when a JWT is signed: a process that never signs
 * one (off GCE, a token file, the metadata server) does not pay for
 * loading it. */
struct gcp_crypto {
	void *lib;
	BIO *(*bio_new_mem_buf)(const void *, int);
	EVP_PKEY *(*pem_read_bio_privatekey)(BIO *, EVP_PKEY **, pem_password_cb *, void *);
	EVP_MD_CTX *(*md_ctx_new)(void);
	int (*digest_sign_init)(EVP_MD_CTX *, EVP_PKEY_CTX **, const EVP_MD *, ENGINE *,
				EVP_PKEY *);
	int (*digest_sign)(EVP_MD_CTX *, unsigned char *, size_t *, const unsigned char *, size_t);
	const EVP_MD *(*sha256)(void);
	int (*pkey_base_id)(const EVP_PKEY *);
	void (*md_ctx_free)(EVP_MD_CTX *);
	void (*pkey_free)(EVP_PKEY *);
	int (*bio_free)(BIO *);
};

static const char *const gcp_crypto_sonames[] = { "libcrypto.so.3", "libcrypto.so.1.1", NULL };

static cr_status gcp_crypto_open(struct gcp *g, const char *what, struct gcp_crypto *c,
				 cr_error *err)
{
	const cr_host_api *h = g->host;
	cr_status rc = CR_DECLINED;

	memset(c, 0, sizeof(*c));
	for (int i = 0; gcp_crypto_sonames[i] != NULL && rc != CR_OK; i++)
		rc = h->dl_open(g->ctx, gcp_crypto_sonames[i], &c->lib, NULL);
	if (rc != CR_OK)
		return h->error_set(err, CR_ERR_AUTH,
				    "%s: signing the JWT needs OpenSSL's libcrypto (%s), not found",
				    what, gcp_crypto_sonames[0]);
	*(void **)&c->bio_new_mem_buf = h->dl_sym(c->lib, "BIO_new_mem_buf");
	*(void **)&c->pem_read_bio_privatekey = h->dl_sym(c->lib, "PEM_read_bio_PrivateKey");
	*(void **)&c->md_ctx_new = h->dl_sym(c->lib, "EVP_MD_CTX_new");
	*(void **)&c->digest_sign_init = h->dl_sym(c->lib, "EVP_DigestSignInit");
	*(void **)&c->digest_sign = h->dl_sym(c->lib, "EVP_DigestSign");
	*(void **)&c->sha256 = h->dl_sym(c->lib, "EVP_sha256");
	*(void **)&c->pkey_base_id = h->dl_sym(c->lib, "EVP_PKEY_get_base_id");
	if (c->pkey_base_id == NULL) /* OpenSSL 1.1 */
		*(void **)&c->pkey_base_id = h->dl_sym(c->lib, "EVP_PKEY_base_id");
	*(void **)&c->md_ctx_free = h->dl_sym(c->lib, "EVP_MD_CTX_free");
	*(void **)&c->pkey_free = h->dl_sym(c->lib, "EVP_PKEY_free");
	*(void **)&c->bio_free = h->dl_sym(c->lib, "BIO_free");
	if (!c->bio_new_mem_buf || !c->pem_read_bio_privatekey || !c->md_ctx_new ||
	    !c->digest_sign_init || !c->digest_sign || !c->sha256 || !c->pkey_base_id ||
	    !c->md_ctx_free || !c->pkey_free || !c->bio_free) {
		h->dl_close(c->lib);
		return h->error_set(err, CR_ERR_AUTH, "%s: libcrypto lacks the EVP signing calls",
				    what);
	}
	return CR_OK;
}

/* RS256 signature of @input with the PEM private key @pem, base64url. */
static cr_status gcp_rs256(struct gcp *g, const char *what, const char *pem, const char *input,
			   char **sig_b64, cr_error *err)
{
	const unsigned char *in = (const unsigned char *)input;
	struct gcp_crypto c;
	BIO *bio;
	EVP_PKEY *key;
	EVP_MD_CTX *md;
	unsigned char *sig = NULL;
	size_t len = 0;
	cr_status rc = gcp_crypto_open(g, what, &c, err);

	if (rc != CR_OK)
		return rc;
	bio = c.bio_new_mem_buf(pem, -1);
	key = bio ? c.pem_read_bio_privatekey(bio, NULL, NULL, NULL) : NULL;
	md = c.md_ctx_new();
	if (key == NULL || c.pkey_base_id(key) != EVP_PKEY_RSA) {
		rc = g->host->error_set(err, CR_ERR_AUTH, "%s: private_key is not a PEM RSA key",
					what);
	} else if (md == NULL || c.digest_sign_init(md, NULL, c.sha256(), NULL, key) != 1 ||
		   c.digest_sign(md, NULL, &len, in, strlen(input)) != 1 ||
		   (sig = g_malloc(len)) == NULL ||
		   c.digest_sign(md, sig, &len, in, strlen(input)) != 1) {
		rc = g->host->error_set(err, CR_ERR_AUTH, "%s: signing the JWT failed", what);
	} else {
		*sig_b64 = gcp_b64url(sig, len);
	}
	g_free(sig);
	c.md_ctx_free(md);
	c.pkey_free(key);
	if (bio)
		c.bio_free(bio);
	g->host->dl_close(c.lib);
	return rc;
}

/* The signed JWT of a service account asking for GCP_SCOPE at @aud. */
static cr_status gcp_jwt(struct gcp *g, const char *what, const char *email, const char *key_id,
			 const char *pem, const char *aud, char **jwt, cr_error *err)
{
	GString *h = g_string_new("{\"alg\":\"RS256\",\"typ\":\"JWT\"");
	GString *c = g_string_new("{\"iss\":");
	int64_t now = g_get_real_time() / G_USEC_PER_SEC;
	char *h64, *c64, *input, *sig = NULL;
	cr_status rc;

	if (key_id != NULL) {
		g_string_append(h, ",\"kid\":");
		gcp_json_str(h, key_id);
	}
	g_string_append_c(h, '}');
	gcp_json_str(c, email);
	g_string_append(c, ",\"scope\":\"" GCP_SCOPE "\",\"aud\":");
	gcp_json_str(c, aud);
	g_string_append_printf(c, ",\"iat\":%lld,\"exp\":%lld}", (long long)now,
			       (long long)(now + GCP_JWT_LIFETIME));
	h64 = gcp_b64url((const unsigned char *)h->str, h->len);
	c64 = gcp_b64url((const unsigned char *)c->str, c->len);
	input = g_strconcat(h64, ".", c64, NULL);
	rc = gcp_rs256(g, what, pem, input, &sig, err);
	if (rc == CR_OK)
		*jwt = g_strconcat(input, ".", sig, NULL);
	g_free(sig);
	g_free(input);
	g_free(h64);
	g_free(c64);
	g_string_free(h, TRUE);
	g_string_free(c, TRUE);
	return rc;
}

static void gcp_form_add(GString *s, const char *key, const char *value)
{
	char *esc = g_uri_escape_string(value, NULL, FALSE);

	g_string_append_printf(s, "%s%s=%s", s->len ? "&" : "", key, esc);
	explicit_bzero(esc, strlen(esc));
	g_free(esc);
}

/* The token in a token endpoint's or the metadata server's JSON answer. */
static cr_status gcp_token_parse(struct gcp *g, const char *what, const char *text, size_t len,
				 cr_error *err)
{
	cr_json *root = NULL;
	const char *tok;
	int64_t expires = 0;
	cr_status rc;

	rc = gcp_json_object(g->host, text, len, what, &root, err);
	if (rc != CR_OK)
		return rc;
	tok = g->host->json_string(g->host->json_get(root, "/access_token"));
	if (tok == NULL || *tok == '\0') {
		g->host->json_free(root);
		return g->host->error_set(err, CR_ERR_AUTH, "%s: no access_token in the answer",
					  what);
	}
	if (!g->host->json_int(g->host->json_get(root, "/expires_in"), &expires))
		expires = 0;
	gcp_token_keep(g, g_strdup(tok), expires);
	g->host->json_free(root);
	return CR_OK;
}

/* POST the form @form (wiped here) to @uri and keep the token it grants. */
static cr_status gcp_token_grant(struct gcp *g, const char *uri, GString *form, cr_error *err)
{
	const char *headers[] = { "Content-Type: application/x-www-form-urlencoded",
				  "Accept: application/json", NULL };
	cr_http_response *resp = NULL;
	int attempts = 0;
	cr_status rc;

	rc = gcp_http_send(g, "POST", uri, headers, form->str, &resp, &attempts, err);
	explicit_bzero(form->str, form->len);
	g_string_free(form, TRUE);
	if (rc == CR_OK && g->host->http_status(resp) != 200) {
		char *why = g_strdup_printf("(%s)", g->source);

		rc = gcp_http_error(g, "POST", uri, resp, attempts, why, err);
		if (rc != CR_ERR_NOT_FOUND)
			rc = CR_ERR_AUTH;
		g_free(why);
	} else if (rc == CR_OK) {
		size_t len = 0;
		const char *body = g->host->http_body(resp, &len);
		char *what = g_strdup_printf("POST %s", uri);

		rc = gcp_token_parse(g, what, body, len, err);
		g_free(what);
	}
	g->host->http_response_free(resp);
	return rc;
}

static const char *gcp_jstr(const struct gcp *g, const cr_json *root, const char *ptr)
{
	const char *s = g->host->json_string(g->host->json_get(root, ptr));

	return s != NULL && *s != '\0' ? s : NULL;
}

static cr_status gcp_service_account(struct gcp *g, const char *what, const cr_json *root,
				     cr_error *err)
{
	const char *email = gcp_jstr(g, root, "/client_email");
	const char *key = gcp_jstr(g, root, "/private_key");
	const char *uri = gcp_jstr(g, root, "/token_uri");
	char *jwt = NULL;
	GString *form;
	cr_status rc;

	if (email == NULL || key == NULL)
		return g->host->error_set(err, CR_ERR_AUTH,
					  "%s: service_account without client_email or private_key",
					  what);
	uri = uri != NULL ? uri : GCP_DEFAULT_TOKEN_URI;
	rc = gcp_jwt(g, what, email, gcp_jstr(g, root, "/private_key_id"), key, uri, &jwt, err);
	if (rc != CR_OK)
		return rc;
	form = g_string_new(NULL);
	gcp_form_add(form, "grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer");
	gcp_form_add(form, "assertion", jwt);
	gcp_wipe_free(jwt);
	gcp_set_source(g, "service_account", what);
	return gcp_token_grant(g, uri, form, err);
}

static cr_status gcp_authorized_user(struct gcp *g, const char *what, const cr_json *root,
				     cr_error *err)
{
	const char *id = gcp_jstr(g, root, "/client_id");
	const char *secret = gcp_jstr(g, root, "/client_secret");
	const char *refresh = gcp_jstr(g, root, "/refresh_token");
	const char *uri = gcp_jstr(g, root, "/token_uri");
	GString *form;

	if (id == NULL || secret == NULL || refresh == NULL)
		return g->host->error_set(
			err, CR_ERR_AUTH,
			"%s: authorized_user without client_id, client_secret or refresh_token",
			what);
	form = g_string_new(NULL);
	gcp_form_add(form, "grant_type", "refresh_token");
	gcp_form_add(form, "client_id", id);
	gcp_form_add(form, "client_secret", secret);
	gcp_form_add(form, "refresh_token", refresh);
	gcp_set_source(g, "authorized_user", what);
	return gcp_token_grant(g, uri != NULL ? uri : GCP_DEFAULT_TOKEN_URI, form, err);
}

/* A credentials JSON file (@how: which link of the chain named it). */
static cr_status gcp_credentials_file(struct gcp *g, const char *how, const char *path,
				      cr_error *err)
{
	char *data = NULL, *what = g_strdup_printf("%s%s%s", how ? how : "", how ? " " : "", path);
	cr_json *root = NULL;
	const char *type;
	size_t len = 0;
	cr_status rc;

	rc = g->host->read_file(g->ctx, path, 1u << 20, &data, &len, err);
	if (rc == CR_OK) {
		rc = g->host->json_parse(data, len, what, &root, err);
		explicit_bzero(data, len);
		g->host->free(data);
	} else if (rc == CR_ERR_NOT_FOUND) {
		rc = g->host->error_set(err, CR_ERR_AUTH, "%s: no such file", what);
	}
	if (rc == CR_OK) {
		type = gcp_jstr(g, root, "/type");
		if (type != NULL && strcmp(type, "service_account") == 0)
			rc = gcp_service_account(g, what, root, err);
		else if (type != NULL && strcmp(type, "authorized_user") == 0)
			rc = gcp_authorized_user(g, what, root, err);
		else
			rc = g->host->error_set(err, CR_ERR_AUTH,
						"%s: credential type \"%s\" is not supported "
						"(service_account or authorized_user)",
						what, type ? type : "");
	}
	g->host->json_free(root);
	g_free(what);
	return rc;
}

/* gcloud's application-default credentials file, when it exists. */
static char *gcp_adc_path(struct gcp *g)
{
	const char *dir = g->host->getenv(g->ctx, "CLOUDSDK_CONFIG");
	const char *home = g->host->getenv(g->ctx, "HOME");
	char *path;

	if (dir != NULL && *dir != '\0')
		path = g_build_filename(dir, "application_default_credentials.json", NULL);
	else if (home != NULL && *home != '\0')
		path = g_build_filename(home, ".config", "gcloud",
					"application_default_credentials.json", NULL);
	else
		return NULL;
	if (g_file_test(path, G_FILE_TEST_EXISTS))
		return path;
	g_free(path);
	return NULL;
}

static cr_status gcp_metadata_token(struct gcp *g, cr_error *err)
{
	char *text = NULL, *what;
	cr_status rc;

	rc = gcp_metadata_get(g, "instance/service-accounts/default/token", &text, err);
	if (rc != CR_OK)
		return rc;
	what = g_strdup_printf("metadata %s instance/service-accounts/default/token", g->meta_host);
	gcp_set_source(g, "metadata", NULL);
	rc = gcp_token_parse(g, what, text, strlen(text), err);
	gcp_wipe_free(text);
	g_free(what);
	return rc;
}

cr_status gcp_token_get(struct gcp *g, cr_error *err)
{
	const char *gac = g->host->getenv(g->ctx, "GOOGLE_APPLICATION_CREDENTIALS");
	char *adc;
	cr_status rc;

	if (g->token != NULL && (g->token_expiry == 0 || g->host->now_ms(g->ctx) < g->token_expiry))
		return CR_OK;
	gcp_token_drop(g);
	if (g->o.access_token_file != NULL && *g->o.access_token_file != '\0')
		return gcp_read_token_file(g, g->o.access_token_file, err);
	if (gac != NULL && *gac != '\0')
		return gcp_credentials_file(g, "GOOGLE_APPLICATION_CREDENTIALS", gac, err);
	adc = gcp_adc_path(g);
	if (adc != NULL) {
		rc = gcp_credentials_file(g, NULL, adc, err);
		g_free(adc);
		return rc;
	}
	if (g->meta_explicit || gcp_on_gce(g))
		return gcp_metadata_token(g, err);
	return g->host->error_set(err, CR_ERR_AUTH,
				  "no Google credentials: no access_token_file, "
				  "GOOGLE_APPLICATION_CREDENTIALS or application default "
				  "credentials, and not on GCE");
}
