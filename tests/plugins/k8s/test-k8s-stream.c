/* SPDX-License-Identifier: MIT */
/*
 * test-k8s-stream.c - k8s.so's protobuf pages read as they arrive
 * (k8s_pbstream.c over host->http_stream) through cr-testhost: each case
 * scripts the list requests the plugin must make (exact URLs) and their
 * answers, real protobuf bytes encoded by k8s_proto.py (the committed files
 * of stream-pages/, written by make-stream-pages.py), and runs resolve with
 * the bodies handed over in pieces of 1, 7 and 4096 bytes and whole: every
 * piece size must give exactly the same output, or the same error message.
 * The pages hold realistic pods of 6-7 KB, so that 4096-byte pieces cut
 * them. Nothing is contacted.
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define SERVER "https://api.test:6443"
#define PODS SERVER "/api/v1/namespaces/train/pods"
#define LIST PODS "?labelSelector=job-name%3Dworker&limit=2"
#define LIST_ALL PODS "?labelSelector=job-name%3Dworker"
/* page1.pb's continue token */
#define TOKEN "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NTAwMCwic3RhcnQiOiJ3b3JrZXItMS0ifQ"
#define NEXT LIST "&continue=" TOKEN
#define ENDPOINT "GET " PODS "?labelSelector=job-name=worker"
#define PROTOBUF "application/vnd.kubernetes.protobuf"

static const char kubeconfig[] =
	"apiVersion: v1\nkind: Config\ncurrent-context: c\n"
	"clusters:\n- name: k\n  cluster:\n    server: " SERVER "\n"
	"contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n    namespace: train\n"
	"users:\n- name: u\n  user:\n    token: t0ken\n";

/* worker-0, worker-1 (page1.pb) and worker-2 (page2.pb), in index order */
#define OUT_THREE                                                                                  \
	"{\"cluster\": {\"worker\": [\"10.64.0.0:8470\", \"10.64.0.1:8470\", "                     \
	"\"10.64.0.2:8470\"]}, \"rpc_layer\": \"grpc\", \"master\": \"\", "                        \
	"\"num_accelerators\": {}}\n"

/* One scripted request: its URL and its answer (a file of stream-pages/,
 * "" for an empty body). */
typedef struct exchange {
	const char *url;
	long status;
	const char *file;
	const char *type; /* Content-Type; NULL: protobuf */
} exchange;

typedef struct stream_case {
	const char *name;
	const char *config; /* extra options */
	exchange x[5];
	cr_status status;
	const char *out;     /* CR_OK: the exact output */
	const char *message; /* else: the exact error */
	const char *log;     /* a line the logs must hold, or NULL */
} stream_case;

/* clang-format off */
static const stream_case cases[] = {
	/* the continue token of page 1 followed; page 2 the last */
	{ "two-pages", "page_size = 2;", {
	    { LIST, 200, "page1.pb" },
	    { NEXT, 200, "page2.pb" } },
	  CR_OK, OUT_THREE, NULL, NULL },
	/* found by fuzz-k8s-pages: a second ListMeta after the pods (continue
	 * "other") was followed; the page reader keeps the first */
	{ "two-listmeta", "page_size = 2;", {
	    { LIST, 200, "two-listmeta.pb" },
	    { NEXT, 200, "page2.pb" } },
	  CR_OK, OUT_THREE, NULL, NULL },
	/* JSON where protobuf was asked for: kept whole, read by the page reader */
	{ "json-answer", "page_size = 0;", {
	    { LIST_ALL, 200, "all.json", "application/json" } },
	  CR_OK, OUT_THREE, NULL, NULL },
	/* page 2's raw before its typeMeta: kept whole, read by the page reader */
	{ "raw-before-typemeta", "page_size = 2;", {
	    { LIST, 200, "page1.pb" },
	    { NEXT, 200, "raw-first.pb" } },
	  CR_OK, OUT_THREE, NULL, NULL },
	{ "kind-status-200", "page_size = 2;", {
	    { LIST, 200, "status-200.pb" } },
	  CR_ERR_PARSE, NULL,
	  "resolver 'k8s': " ENDPOINT ": answer is not a PodList (protobuf kind Status)", NULL },
	/* page1.pb cut 1000 bytes into worker-1, which begins at 6648 */
	{ "truncated", "page_size = 2;", {
	    { LIST, 200, "truncated.pb" } },
	  CR_ERR_PARSE, NULL,
	  "resolver 'k8s': " ENDPOINT ": invalid protobuf at offset 6648: truncated field", NULL },
	{ "content-encoding", "page_size = 2;", {
	    { LIST, 200, "encoded.pb" } },
	  CR_ERR_PARSE, NULL,
	  "resolver 'k8s': " ENDPOINT ": protobuf answer has a contentEncoding", NULL },
	/* found by fuzz-k8s-pages: the page reader was handed NULL for "" */
	{ "empty-body", "page_size = 2;", {
	    { LIST, 200, "" } },
	  CR_ERR_PARSE, NULL,
	  "resolver 'k8s': " ENDPOINT ": invalid protobuf at offset 0: no \"k8s\\0\" envelope",
	  NULL },
	{ "forbidden", "page_size = 2;", {
	    { LIST, 403, "forbidden.pb" } },
	  CR_ERR_AUTH, NULL,
	  "resolver 'k8s': " ENDPOINT ": HTTP 403 Forbidden: pods is forbidden: User \"u\" "
	  "cannot list resource \"pods\" in API group \"\" in the namespace \"train\"", NULL },
	/* page 2 answered 503, then 200: worker-0 and worker-1 handed over once */
	{ "retry-503", "page_size = 2;", {
	    { LIST, 200, "page1.pb" },
	    { NEXT, 503, "unavailable.pb" },
	    { NEXT, 200, "page2.pb" } },
	  CR_OK, OUT_THREE, NULL,
	  "info: resolver 'k8s': " ENDPOINT ": HTTP 503, retrying in 200 ms\n" },
	/* the continue token expired: the list starts again, once */
	{ "gone-410", "page_size = 2;", {
	    { LIST, 200, "page1.pb" },
	    { NEXT, 410, "expired.pb" },
	    { LIST, 200, "page1.pb" },
	    { NEXT, 200, "page2.pb" } },
	  CR_OK, OUT_THREE, NULL,
	  "info: resolver 'k8s': " ENDPOINT ": continue token expired, listing again\n" },
};
/* clang-format on */

static const size_t pieces[] = { 1, 7, 4096, 0 };

static GBytes *page(const char *file)
{
	char *path, *text = NULL;
	gsize len = 0;
	GError *error = NULL;

	if (!*file)
		return g_bytes_new("", 0);
	path = g_build_filename(g_getenv("CR_K8S_STREAM_PAGES"), file, NULL);
	if (!g_file_get_contents(path, &text, &len, &error))
		g_error("%s", error->message);
	g_free(path);
	return g_bytes_new_take(text, len);
}

static void script(cr_testhost *th, const stream_case *c)
{
	const char *want[] = { "Accept: " PROTOBUF ", application/json",
			       "Authorization: Bearer t0ken", NULL };
	cr_error err = CR_ERROR_INIT;

	for (int i = 0; i < 5 && c->x[i].url; i++) {
		const exchange *x = &c->x[i];
		char *type = g_strconcat("Content-Type: ", x->type ? x->type : PROTOBUF, NULL);
		const char *headers[] = { type, NULL };
		GBytes *body = page(x->file);
		gsize len;
		const void *data = g_bytes_get_data(body, &len);

		g_assert_cmpint(cr_testhost_expect(th, "GET", x->url, want, &err), ==, CR_OK);
		g_assert_cmpint(cr_testhost_respond_bytes(th, x->status, headers, data, len, &err),
				==, CR_OK);
		g_bytes_unref(body);
		g_free(type);
	}
}

typedef struct run {
	const stream_case *c;
	size_t piece;
} run;

static void check_stream(gconstpointer data)
{
	const run *r = data;
	const stream_case *c = r->c;
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	char *config = g_strdup_printf("kubeconfig = \"/kube/config\"; list_format = \"protobuf\"; "
				       "jobs = { worker = [ \"job-name=worker\" ]; }; %s",
				       c->config);
	const char *out = NULL;
	cr_status st;

	g_assert_nonnull(th);
	g_assert_cmpint(cr_testhost_load(th, g_getenv("CR_K8S_PLUGIN"), config, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_add_file(th, "/kube/config", kubeconfig, (size_t)-1, &err), ==,
			CR_OK);
	cr_testhost_set_stream_piece(th, r->piece);
	script(th, c);
	st = cr_testhost_resolve(th, "json", &out, &err);
	if (st != c->status || (c->message && strcmp(err.message, c->message) != 0))
		g_test_message("%s: got %d: %s\nlogs:\n%s", c->name, (int)st, err.message,
			       cr_testhost_logs(th));
	g_assert_cmpint(st, ==, c->status);
	if (st == CR_OK)
		g_assert_cmpstr(out, ==, c->out);
	else
		g_assert_cmpstr(err.message, ==, c->message);
	/* every scripted request made, none more */
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	if (c->log)
		g_assert_nonnull(strstr(cr_testhost_logs(th), c->log));
	g_assert_null(strstr(cr_testhost_logs(th), "listed twice"));
	g_assert_null(strstr(cr_testhost_logs(th), "t0ken"));
	g_free(config);
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	run runs[G_N_ELEMENTS(cases) * G_N_ELEMENTS(pieces)];
	size_t n = 0;

	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		for (size_t j = 0; j < G_N_ELEMENTS(pieces); j++) {
			char *path =
				pieces[j] ? g_strdup_printf("/k8s/stream/%s/pieces-%zu",
							    cases[i].name, pieces[j])
					  : g_strdup_printf("/k8s/stream/%s/whole", cases[i].name);

			runs[n] = (run){ &cases[i], pieces[j] };
			g_test_add_data_func(path, &runs[n++], check_stream);
			g_free(path);
		}
	}
	return g_test_run();
}
