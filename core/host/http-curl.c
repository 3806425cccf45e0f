/* SPDX-License-Identifier: MIT */
/*
 * http-curl.c - libcr-http.so, the core's private HTTP module: HTTP(S)
 * over libcurl. TLS is verified unless the request says otherwise; trust
 * anchors and client credentials may be files or PEM text. Header values
 * and bodies are never logged: they carry tokens.
 *
 * Each plugin instance keeps one curl easy handle, so its successive
 * requests reuse kept-alive connections, TLS sessions and resolved names.
 * Every option is reset after each request. The handle remembers a digest
 * of the TLS material its connections were made with (trust anchors,
 * client certificate and key, their files' identity, verification); a
 * request with other material gets a fresh handle, so a connection made
 * with one set of credentials is never used with another.
 *
 * A streamed answer outside a watch (a page of a Kubernetes list, read as
 * it arrives) goes over the instance's handle like any request. During a
 * watch it gets an easy handle of its own in a multi handle, so that the
 * wait for its next bytes also watches the caller's cancel descriptor
 * (curl_multi_poll's extra descriptors); the handle, and with it the
 * connection, is closed when the stream ends.
 *
 * A module of its own (http-module.h) so that only a process that makes an
 * HTTP request loads libcurl and OpenSSL.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <curl/curl.h>
#include <glib.h>

#include "host/http-module.h"

#define DEFAULT_TIMEOUT_MS 30000L
#define DEFAULT_CONNECT_TIMEOUT_MS 5000L

#define TLS_DIGEST_LEN 32 /* SHA-256 */

/* One instance's libcurl state (cr_instance.http). */
struct http_conn {
	CURL *curl;
	guint8 tls[TLS_DIGEST_LEN]; /* what curl's connections were made with */
	char errbuf[CURL_ERROR_SIZE];
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *user)
{
	cr_http_response *r = user;
	size_t n = size * nmemb;

	/* An answer announced over the cap is refused with its first bytes
	 * (not at its header: an answer to HEAD announces a body it does not
	 * send); one that does not announce its size is counted. */
	if (r->announced > r->max_body || r->body->len + n > r->max_body) {
		r->too_big = true;
		return 0; /* aborts the transfer */
	}
	g_string_append_len(r->body, data, (gssize)n);
	return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *user)
{
	cr_http_response *r = user;
	size_t n = size * nmemb;
	const char *colon = memchr(data, ':', n);

	/* A new status line (redirect, 100-continue) starts a new header set. */
	if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
		g_ptr_array_set_size(r->headers, 0);
		r->announced = 0;
	}
	if (colon != NULL) {
		char *name = g_ascii_strdown(data, colon - data);
		char *value = g_strndup(colon + 1, n - (size_t)(colon + 1 - data));

		g_ptr_array_add(r->headers, name);
		g_ptr_array_add(r->headers, g_strstrip(value));
		if (strcmp(name, "content-length") == 0)
			r->announced = g_ascii_strtoull(value, NULL, 10);
	}
	return n;
}

/* A streamed answer (http_stream): each piece of a 2xx body goes to
 * on_data; any other answer's body is kept, for its message. */
struct stream {
	CURL *curl;
	cr_http_response *r;
	cr_http_data_fn on_data;
	void *user;
	size_t cap;   /* the request's max_body: 0, no cap on a streamed body */
	size_t seen;  /* bytes streamed */
	bool decided; /* whether the answer is 2xx is known */
	bool streamed;
	bool stopped; /* on_data said stop */
};

static size_t on_stream_body(char *data, size_t size, size_t nmemb, void *user)
{
	struct stream *s = user;
	size_t n = size * nmemb;

	if (!s->decided) {
		long code = 0;

		curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &code);
		s->decided = true;
		s->streamed = code >= 200 && code < 300;
	}
	if (!s->streamed)
		return on_body(data, size, nmemb, s->r); /* an error's message: kept */
	/* As on_body: one announced over the cap is refused with its first
	 * bytes, one that does not announce its size is counted. */
	if (s->cap > 0 && (s->r->announced > s->cap || s->seen + n > s->cap)) {
		s->r->max_body = s->cap;
		s->r->too_big = true;
		return 0;
	}
	s->seen += n;
	if (n > 0 && !s->on_data(data, n, s->user)) {
		s->stopped = true;
		return 0; /* aborts the transfer */
	}
	return n;
}

static void once_init(void)
{
	static gsize done = 0;

	if (g_once_init_enter(&done)) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		g_once_init_leave(&done, 1);
	}
}

static cr_status curl_status(CURLcode rc)
{
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return CR_ERR_TIMEOUT;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return CR_ERR_NETWORK;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
		return CR_ERR_AUTH;
	default:
		return CR_ERR_NETWORK;
	}
}

static void set_blob(CURL *c, CURLoption opt, const char *pem)
{
	struct curl_blob blob = { .data = (void *)pem,
				  .len = strlen(pem),
				  .flags = CURL_BLOB_COPY };

	curl_easy_setopt(c, opt, &blob);
}

static void apply_tls(CURL *c, const cr_http_request *req)
{
	if (req->ca_file != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, req->ca_file);
	if (req->ca_pem != NULL)
		set_blob(c, CURLOPT_CAINFO_BLOB, req->ca_pem);
	if (req->cert_file != NULL)
		curl_easy_setopt(c, CURLOPT_SSLCERT, req->cert_file);
	if (req->cert_pem != NULL)
		set_blob(c, CURLOPT_SSLCERT_BLOB, req->cert_pem);
	if (req->cert_file != NULL || req->cert_pem != NULL)
		curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
	if (req->key_file != NULL)
		curl_easy_setopt(c, CURLOPT_SSLKEY, req->key_file);
	if (req->key_pem != NULL)
		set_blob(c, CURLOPT_SSLKEY_BLOB, req->key_pem);
	if (req->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
}

/* Length-prefixed, so that ("ab", "c") and ("a", "bc") differ. */
static void digest_str(GChecksum *sum, const char *s)
{
	guint64 n = s != NULL ? strlen(s) + 1 : 0;

	g_checksum_update(sum, (const guchar *)&n, sizeof(n));
	if (s != NULL)
		g_checksum_update(sum, (const guchar *)s, (gssize)n);
}

/* A file by name and identity: a rewritten or replaced file is another file. */
static void digest_file(GChecksum *sum, const char *path)
{
	struct stat st;
	gint64 id[5] = { -1, -1, -1, -1, -1 };

	digest_str(sum, path);
	if (path != NULL && stat(path, &st) == 0) {
		id[0] = (gint64)st.st_dev;
		id[1] = (gint64)st.st_ino;
		id[2] = (gint64)st.st_size;
		id[3] = (gint64)st.st_mtim.tv_sec;
		id[4] = (gint64)st.st_mtim.tv_nsec;
	}
	g_checksum_update(sum, (const guchar *)id, sizeof(id));
}

/* SHA-256 of everything that decides which TLS peers and client identity
 * a connection has. PEM text (keys included) is only hashed, never kept. */
static void tls_digest(const cr_http_request *req, guint8 out[TLS_DIGEST_LEN])
{
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
	gsize len = TLS_DIGEST_LEN;
	guint8 insecure = req->insecure ? 1 : 0;

	digest_file(sum, req->ca_file);
	digest_str(sum, req->ca_pem);
	digest_file(sum, req->cert_file);
	digest_str(sum, req->cert_pem);
	digest_file(sum, req->key_file);
	digest_str(sum, req->key_pem);
	g_checksum_update(sum, &insecure, 1);
	g_checksum_get_digest(sum, out, &len);
	g_checksum_free(sum);
}

static void conn_free(http_conn *conn)
{
	if (conn == NULL)
		return;
	if (conn->curl != NULL)
		curl_easy_cleanup(conn->curl);
	g_free(conn);
}

/* The handle for @req: the instance's own, unless its connections were made
 * with other TLS material. Returns NULL when libcurl cannot make one. */
static CURL *conn_handle(const http_module_host *host, cr_plugin_ctx *pctx, http_conn *conn,
			 const cr_http_request *req)
{
	guint8 tls[TLS_DIGEST_LEN];

	tls_digest(req, tls);
	if (conn->curl != NULL && memcmp(conn->tls, tls, sizeof(tls)) != 0) {
		host->debug(pctx, "TLS settings changed: closing kept-alive connections");
		curl_easy_cleanup(conn->curl);
		conn->curl = NULL;
	}
	if (conn->curl == NULL) {
		conn->curl = curl_easy_init();
		memcpy(conn->tls, tls, sizeof(tls));
	}
	return conn->curl;
}

static void apply_request(CURL *c, const cr_http_request *req, struct curl_slist *hdrs,
			  cr_http_response *r, char *errbuf)
{
	curl_easy_setopt(c, CURLOPT_URL, req->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "cluster-resolver/" CR_VERSION_STRING);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
			 req->timeout_ms > 0 ? req->timeout_ms : DEFAULT_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
			 req->connect_timeout_ms > 0 ? req->connect_timeout_ms
						     : DEFAULT_CONNECT_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
	if (strcmp(req->method, "HEAD") == 0)
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	if (req->body != NULL) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
	}
	if (hdrs != NULL)
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	apply_tls(c, req);
}

/* @req on the instance's handle (*@connp; @connp NULL: a one-off handle);
 * with @s, the body goes to s->on_data as it arrives. */
static bool fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & POLLIN) != 0;
}

/* libcurl's progress callback: a request ends when its context is
 * interrupted (the descriptor stays readable; a signal's EINTR wakes
 * libcurl's wait, which then calls this). */
static int on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	return fd_readable(*(const int *)user) ? 1 : 0;
}

static cr_status run_easy(const http_module_host *host, cr_plugin_ctx *pctx, http_conn **connp,
			  const cr_http_request *req, cr_http_response *r, struct stream *s,
			  cr_error *err)
{
	int interrupt_fd = host->interrupt_fd != NULL ? host->interrupt_fd(pctx) : -1;
	struct curl_slist *hdrs = NULL;
	http_conn *conn, *own = NULL;
	CURLcode rc;
	CURL *c;
	cr_status st = CR_OK;

	once_init();
	if (connp != NULL) {
		if (*connp == NULL)
			*connp = g_new0(http_conn, 1);
		conn = *connp;
	} else {
		conn = own = g_new0(http_conn, 1); /* no instance: one request */
	}
	c = conn_handle(host, pctx, conn, req);
	if (c == NULL) {
		conn_free(own);
		return host->error_set(err, CR_ERR_INTERNAL, "%s: cannot initialise libcurl",
				       req->url);
	}
	for (const char *const *h = req->headers; h != NULL && *h != NULL; h++)
		hdrs = curl_slist_append(hdrs, *h);
	conn->errbuf[0] = '\0';
	apply_request(c, req, hdrs, r, conn->errbuf);
	if (s != NULL) {
		s->curl = c;
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_stream_body);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, req->timeout_ms > 0 ? req->timeout_ms : 0L);
	}
	if (interrupt_fd >= 0) {
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, &interrupt_fd);
	}
	rc = curl_easy_perform(c);
	if (rc == CURLE_ABORTED_BY_CALLBACK && fd_readable(interrupt_fd)) {
		st = host->error_set(err, CR_ERR_TIMEOUT, "%s %.*s: interrupted", req->method,
				     (int)strcspn(req->url, "?#"), req->url);
	} else if (s != NULL && s->stopped) {
		host->debug(pctx, "stream: stopped by its reader");
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	} else if (r->too_big) {
		st = host->error_set(err, CR_ERR_IO, "%s %s: response larger than %zu bytes",
				     req->method, req->url, r->max_body);
	} else if (rc != CURLE_OK) {
		st = host->error_set(err, curl_status(rc), "%s %s: %s", req->method, req->url,
				     conn->errbuf[0] != '\0' ? conn->errbuf
							     : curl_easy_strerror(rc));
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	}
	/* Nothing of this request stays set: the next one starts from defaults;
	 * connections, TLS sessions and the DNS cache are kept. */
	curl_easy_reset(c);
	curl_slist_free_all(hdrs);
	conn_free(own);
	return st;
}

static cr_status perform(const http_module_host *host, cr_plugin_ctx *pctx, http_conn **connp,
			 const cr_http_request *req, cr_http_response *r, cr_error *err)
{
	return run_easy(host, pctx, connp, req, r, NULL, err);
}

/* ---- streamed answers ---------------------------------------------------- */

#define STREAM_POLL_MS 100 /* the longest wait between looks at the cancel fd */

/* A watch may carry nothing for minutes: TCP keepalive finds a peer that
 * went away without a word (a node lost, a NAT entry dropped) within
 * about a minute (30 s idle, then 3 probes 10 s apart), not at the
 * watch's own end. */
static int on_stream_socket(void *user, curl_socket_t fd, curlsocktype purpose)
{
	int on = 1, idle = 30, intvl = 10, cnt = 3;

	(void)user;
	if (purpose == CURLSOCKTYPE_IPCXN) {
		setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	}
	return CURL_SOCKOPT_OK;
}

/* The URL as messages name it: without its query, which may be long. */
static int url_shown(const char *url)
{
	return (int)strcspn(url, "?#");
}

static cr_status stream(const http_module_host *host, cr_plugin_ctx *pctx, http_conn **connp,
			const cr_http_request *req, int cancel_fd, cr_http_data_fn on_data,
			void *user_data, cr_http_response *r, cr_error *err)
{
	struct stream s = { .r = r, .on_data = on_data, .user = user_data, .cap = req->max_body };
	struct curl_slist *hdrs = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	bool cancelled = false, interrupted = false;
	int interrupt_fd = host->interrupt_fd != NULL ? host->interrupt_fd(pctx) : -1;
	struct curl_waitfd extra[2];
	unsigned n_extra = 0;
	CURLcode rc = CURLE_OK;
	CURLMcode mc = CURLM_OK;
	int running = 1;
	CURLM *multi;
	CURLMsg *msg;
	int left;
	cr_status st = CR_OK;

	if (connp != NULL) /* nothing to poll beside it: the kept connections */
		return run_easy(host, pctx, connp, req, r, &s, err);
	once_init();
	s.curl = curl_easy_init();
	multi = curl_multi_init();
	if (s.curl == NULL || multi == NULL) {
		curl_easy_cleanup(s.curl);
		curl_multi_cleanup(multi);
		return host->error_set(err, CR_ERR_INTERNAL, "%.*s: cannot initialise libcurl",
				       url_shown(req->url), req->url);
	}
	for (const char *const *h = req->headers; h != NULL && *h != NULL; h++)
		hdrs = curl_slist_append(hdrs, *h);
	apply_request(s.curl, req, hdrs, r, errbuf);
	curl_easy_setopt(s.curl, CURLOPT_TIMEOUT_MS, req->timeout_ms > 0 ? req->timeout_ms : 0L);
	curl_easy_setopt(s.curl, CURLOPT_WRITEFUNCTION, on_stream_body);
	curl_easy_setopt(s.curl, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(s.curl, CURLOPT_FORBID_REUSE, 1L);
	curl_easy_setopt(s.curl, CURLOPT_SOCKOPTFUNCTION, on_stream_socket);
	curl_multi_add_handle(multi, s.curl);
	if (cancel_fd >= 0)
		extra[n_extra++] =
			(struct curl_waitfd){ .fd = cancel_fd, .events = CURL_WAIT_POLLIN };
	if (interrupt_fd >= 0)
		extra[n_extra++] =
			(struct curl_waitfd){ .fd = interrupt_fd, .events = CURL_WAIT_POLLIN };
	while (running > 0 && mc == CURLM_OK) {
		if (fd_readable(interrupt_fd)) {
			interrupted = true;
			break;
		}
		if (fd_readable(cancel_fd)) {
			cancelled = true;
			break;
		}
		mc = curl_multi_perform(multi, &running);
		if (mc != CURLM_OK || running == 0)
			break;
		mc = curl_multi_poll(multi, n_extra > 0 ? extra : NULL, n_extra, STREAM_POLL_MS,
				     NULL);
	}
	while ((msg = curl_multi_info_read(multi, &left)) != NULL)
		if (msg->msg == CURLMSG_DONE)
			rc = msg->data.result;
	curl_easy_getinfo(s.curl, CURLINFO_RESPONSE_CODE, &r->status);
	if (interrupted) {
		st = host->error_set(err, CR_ERR_TIMEOUT, "%s %.*s: interrupted", req->method,
				     url_shown(req->url), req->url);
	} else if (cancelled || s.stopped) {
		host->debug(pctx,
			    cancelled ? "stream: cancelled" : "stream: stopped by its reader");
	} else if (mc != CURLM_OK) {
		st = host->error_set(err, CR_ERR_INTERNAL, "%s %.*s: %s", req->method,
				     url_shown(req->url), req->url, curl_multi_strerror(mc));
	} else if (r->too_big) {
		st = host->error_set(err, CR_ERR_IO, "%s %.*s: response larger than %zu bytes",
				     req->method, url_shown(req->url), req->url, r->max_body);
	} else if (rc != CURLE_OK) {
		st = host->error_set(err, curl_status(rc), "%s %.*s: %s", req->method,
				     url_shown(req->url), req->url,
				     errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc));
	}
	/* Removing an unfinished transfer closes its connection. */
	curl_multi_remove_handle(multi, s.curl);
	curl_easy_cleanup(s.curl);
	curl_multi_cleanup(multi);
	curl_slist_free_all(hdrs);
	return st;
}

static const http_module the_module = {
	.struct_size = sizeof(http_module),
	.perform = perform,
	.stream = stream,
	.conn_free = conn_free,
};

__attribute__((visibility("default"))) const http_module *cr_http_module_entry_v1(void);

const http_module *cr_http_module_entry_v1(void)
{
	return &the_module;
}
