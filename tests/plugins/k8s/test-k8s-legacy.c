/* SPDX-License-Identifier: MIT */
/*
 * test-k8s-legacy.c - k8s.so on clusters before Kubernetes 1.27, whose Job
 * controller labels pods job-name and controller-uid without the
 * batch.kubernetes.io/ prefix, through cr-testhost's scripted requests.
 *
 *   - rewrites: which selectors have a legacy form, and what it is (a list
 *     that finds no pod is followed by exactly that list, or by nothing);
 *   - flows: the exact requests of resolves, waits and watches on an old
 *     cluster (the legacy form, once found, is all that is sent), a new one
 *     (no request more than before) and one where nothing matches (one
 *     request more a resolve; the watch lists again after 30 s without a
 *     request, as it cannot follow both forms), with the log lines they
 *     give.
 * Nothing is contacted.
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define SERVER "https://api.test:6443"
#define PODS SERVER "/api/v1/namespaces/train/pods"
#define PREFIXED PODS "?labelSelector=batch.kubernetes.io%2Fjob-name%3Dworker"
#define LEGACY PODS "?labelSelector=job-name%3Dworker"
#define WATCH(list, rv)                                                                            \
	list "&watch=1&resourceVersion=" rv "&allowWatchBookmarks=true&timeoutSeconds=300"
#define SEL "batch.kubernetes.io/job-name=worker"

static const char kubeconfig[] =
	"apiVersion: v1\nkind: Config\ncurrent-context: c\n"
	"clusters:\n- name: k\n  cluster:\n    server: " SERVER "\n"
	"contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n    namespace: train\n"
	"users:\n- name: u\n  user:\n    token: t0ken\n";

/* A pod as a cluster before 1.27 lists it: job-name, the index only as
 * the annotation. */
#define POD(name, ip, index, rv)                                                                   \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"train\",\"uid\":\"u-" name           \
	"\",\"resourceVersion\":\"" rv "\",\"labels\":{\"job-name\":\"worker\"},"                  \
	"\"annotations\":{\"batch.kubernetes.io/job-completion-index\":\"" index "\"}},"           \
	"\"spec\":{},\"status\":{\"phase\":\"Running\",\"podIP\":\"" ip "\"}}"
#define LIST_BODY(rv, items)                                                                       \
	"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"" rv      \
	"\"},\"items\":[" items "]}"
#define EMPTY(rv) LIST_BODY(rv, "")
#define TWO(rv)                                                                                    \
	LIST_BODY(rv, POD("worker-1-b", "10.0.0.2", "1", "90") "," POD("worker-0-a", "10.0.0.1",   \
								       "0", "91"))
#define GONE "{\"type\":\"DELETED\",\"object\":" POD("worker-1-b", "10.0.0.2", "1", "201") "}\n"

#define OUT(tasks)                                                                                 \
	"{\"cluster\": {\"worker\": [" tasks "]}, \"rpc_layer\": \"grpc\", \"master\": \"\", "     \
	"\"num_accelerators\": {}}\n"
#define OUT_TWO OUT("\"10.0.0.1:8470\", \"10.0.0.2:8470\"")
#define OUT_NONE OUT("")

#define FOUND_LEGACY                                                                               \
	"info: resolver 'k8s': no pod matches \"" SEL "\"; \"job-name=worker\" matches 2: a "      \
	"cluster before Kubernetes 1.27 (Job labels without batch.kubernetes.io/); listing "       \
	"\"job-name=worker\" from now on\n"
#define FOUND_NONE                                                                                 \
	"debug: resolver 'k8s': no pod matches \"" SEL "\" nor, as before Kubernetes 1.27, "       \
	"\"job-name=worker\"\n"

static const char *const level_names[] = { "error", "warning", "info", "debug" };

/* The plugin's lines about the Job labels ("LEVEL: TEXT\n"), in order. */
static char *legacy_logs(cr_testhost *th)
{
	GString *s = g_string_new(NULL);
	cr_log_level level;
	const char *line;

	for (size_t i = 0; (line = cr_testhost_log_line(th, i, &level)) != NULL; i++)
		if (strstr(line, "Kubernetes 1.27") != NULL)
			g_string_append_printf(s, "%s: %s\n", level_names[level], line);
	return g_string_free(s, FALSE);
}

static cr_testhost *load(const char *options)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	char *config = g_strdup_printf("kubeconfig = \"/kube/config\"; page_size = 0; "
				       "list_format = \"json\"; %s",
				       options);

	g_assert_nonnull(th);
	g_assert_cmpint(cr_testhost_load(th, g_getenv("CR_K8S_PLUGIN"), config, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_add_file(th, "/kube/config", kubeconfig, (size_t)-1, &err), ==,
			CR_OK);
	cr_testhost_set_log_level(th, CR_LOG_DEBUG);
	g_free(config);
	return th;
}

static void expect(cr_testhost *th, const char *url, const char *body)
{
	const char *type[] = { "Content-Type: application/json", NULL };
	const char *auth[] = { "Authorization: Bearer t0ken", NULL };
	cr_error err = CR_ERROR_INIT;

	g_assert_cmpint(cr_testhost_expect(th, "GET", url, auth, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_respond(th, 200, type, body, &err), ==, CR_OK);
}

/* ---- which selectors have a legacy form ----------------------------------- */

typedef struct rewrite_case {
	const char *selector;
	const char *legacy; /* NULL: none, the empty list is the answer */
} rewrite_case;

/* clang-format off */
static const rewrite_case rewrites[] = {
	{ "batch.kubernetes.io/job-name=trainer", "job-name=trainer" },
	{ "batch.kubernetes.io/job-name==trainer", "job-name==trainer" },
	{ "batch.kubernetes.io/controller-uid=5c19160b-d450-31c9-8454-86cf5b30548f",
	  "controller-uid=5c19160b-d450-31c9-8454-86cf5b30548f" },
	{ "batch.kubernetes.io/job-name = trainer, app in (tf, torch)",
	  "job-name = trainer, app in (tf, torch)" },
	{ "tier in (gpu,tpu),batch.kubernetes.io/job-name=t,batch.kubernetes.io/controller-uid=u",
	  "tier in (gpu,tpu),job-name=t,controller-uid=u" },
	{ "app=tf, batch.kubernetes.io/job-name=trainer,!role", "app=tf, job-name=trainer,!role" },
	{ "batch.kubernetes.io/job-name!=trainer", NULL },
	{ "batch.kubernetes.io/job-name in (trainer)", NULL },
	{ "batch.kubernetes.io/job-name", NULL },
	{ "!batch.kubernetes.io/job-name", NULL },
	{ "batch.kubernetes.io/job-names=trainer", NULL },
	{ "x.batch.kubernetes.io/job-name=trainer", NULL },
	{ "batch.kubernetes.io/job-completion-index=0", NULL },
	{ "job-name=trainer", NULL },
	{ "app in (batch.kubernetes.io/job-name=x)", NULL },
};
/* clang-format on */

static char *list_url(const char *selector)
{
	char *esc = g_uri_escape_string(selector, NULL, FALSE);
	char *url = g_strconcat(PODS "?labelSelector=", esc, NULL);

	g_free(esc);
	return url;
}

static void check_rewrite(gconstpointer data)
{
	const rewrite_case *c = data;
	char *options = g_strdup_printf("jobs = { worker = [ \"%s\" ]; };", c->selector);
	cr_testhost *th = load(options);
	char *url = list_url(c->selector);
	cr_error err = CR_ERROR_INIT;
	const char *out = NULL;

	expect(th, url, EMPTY("7"));
	g_free(url);
	if (c->legacy != NULL) {
		url = list_url(c->legacy);
		expect(th, url, EMPTY("7"));
		g_free(url);
	}
	g_assert_cmpint(cr_testhost_resolve(th, "json", &out, &err), ==, CR_OK);
	g_assert_cmpstr(out, ==, OUT_NONE);
	err.message[0] = '\0';
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	g_assert_cmpstr(err.message, ==, "");
	g_free(options);
	cr_testhost_free(th);
}

/* ---- the requests of resolves, waits and watches --------------------------- */

typedef struct exchange {
	const char *url, *body;
} exchange;

typedef struct step {
	const char *what;   /* "resolve" or "watch" */
	exchange x[4];      /* the requests it must make, in order */
	const char *out;    /* resolve: its answer */
	bool changed;       /* watch: its answer */
	int64_t timeout_ms; /* watch: its deadline from now (0: 600 s) */
} step;

typedef struct flow_case {
	const char *name;
	const char *options;
	step steps[5];
	const char *logs; /* legacy_logs() at the end */
} flow_case;

/* clang-format off */
static const flow_case flows[] = {
	/* The legacy form found the pods: from then on it is all that is
	 * sent, by the next resolve and the watch (from its list's version). */
	{ "old-cluster", "", {
	    { "resolve", { { PREFIXED, EMPTY("200") }, { LEGACY, TWO("200") } }, OUT_TWO },
	    { "resolve", { { LEGACY, TWO("200") } }, OUT_TWO },
	    { "watch", { { WATCH(LEGACY, "200"), GONE } }, NULL, true } },
	  FOUND_LEGACY },
	/* A cluster with the prefixed labels: one list, as before. */
	{ "new-cluster", "", {
	    { "resolve", { { PREFIXED, TWO("100") } }, OUT_TWO },
	    { "watch", { { WATCH(PREFIXED, "100"), GONE } }, NULL, true } },
	  "" },
	/* Nothing matches: the empty job, after one request more a resolve.
	 * The pods to come may carry either label: the watch makes no
	 * request and answers "changed" after 30 s (the host lists again)
	 * instead of watching one of them. */
	{ "neither", "", {
	    { "resolve", { { PREFIXED, EMPTY("300") }, { LEGACY, EMPTY("300") } }, OUT_NONE },
	    { "watch", { { NULL } }, NULL, false, 29999 },
	    { "watch", { { NULL } }, NULL, true },
	    { "resolve", { { PREFIXED, EMPTY("300") }, { LEGACY, EMPTY("300") } }, OUT_NONE } },
	  FOUND_NONE FOUND_NONE },
	/* not_running = "wait": the wait's list finds the legacy form, the
	 * resolve's list uses it. */
	{ "wait-old-cluster", "not_running = \"wait\";", {
	    { "resolve", { { PREFIXED, EMPTY("200") }, { LEGACY, TWO("200") },
			   { LEGACY, TWO("200") } }, OUT_TWO } },
	  FOUND_LEGACY },
	{ "wait-new-cluster", "not_running = \"wait\";", {
	    { "resolve", { { PREFIXED, TWO("100") }, { PREFIXED, TWO("100") } }, OUT_TWO } },
	  "" },
	/* Nothing matches: the wait tried both forms; the resolve's list does
	 * not try the legacy one again (one request more than before). */
	{ "wait-neither", "not_running = \"wait\";", {
	    { "resolve", { { PREFIXED, EMPTY("300") }, { LEGACY, EMPTY("300") },
			   { PREFIXED, EMPTY("300") } }, OUT_NONE } },
	  FOUND_NONE },
	/* A selector written with the legacy key is listed as written. */
	{ "legacy-written", "jobs = { worker = [ \"job-name=worker\" ]; };", {
	    { "resolve", { { LEGACY, TWO("300") } }, OUT_TWO },
	    { "watch", { { WATCH(LEGACY, "300"), GONE } }, NULL, true } },
	  "" },
};
/* clang-format on */

static void run_step(cr_testhost *th, const flow_case *c, const step *s)
{
	cr_error err = CR_ERROR_INIT;
	const char *out = NULL;
	bool changed = !s->changed;

	for (int i = 0; i < 4 && s->x[i].url != NULL; i++)
		expect(th, s->x[i].url, s->x[i].body);
	if (strcmp(s->what, "resolve") == 0) {
		g_assert_cmpint(cr_testhost_resolve(th, "json", &out, &err), ==, CR_OK);
		g_assert_cmpstr(out, ==, s->out);
	} else {
		g_assert_cmpint(cr_testhost_watch(th, s->timeout_ms ? s->timeout_ms : 600000,
						  &changed, &err),
				==, CR_OK);
		g_assert_cmpint(changed, ==, s->changed);
	}
	err.message[0] = '\0';
	if (cr_testhost_verify(th, &err) != CR_OK)
		g_test_message("%s: %s: %s\nlogs:\n%s", c->name, s->what, err.message,
			       cr_testhost_logs(th));
	g_assert_cmpstr(err.message, ==, "");
}

static void check_flow(gconstpointer data)
{
	const flow_case *c = data;
	char *options = g_strdup_printf(
		"%s %s", c->options,
		strstr(c->options, "jobs") ? "" : "jobs = { worker = [ \"" SEL "\" ]; };");
	cr_testhost *th = load(options);
	char *logs;

	for (int i = 0; i < 5 && c->steps[i].what != NULL; i++)
		run_step(th, c, &c->steps[i]);
	logs = legacy_logs(th);
	g_assert_cmpstr(logs, ==, c->logs);
	g_free(logs);
	g_free(options);
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (size_t i = 0; i < G_N_ELEMENTS(rewrites); i++) {
		char *name = g_strdup_printf("/k8s/legacy/rewrite/%zu", i);

		g_test_add_data_func(name, &rewrites[i], check_rewrite);
		g_free(name);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(flows); i++) {
		char *name = g_strdup_printf("/k8s/legacy/flow/%s", flows[i].name);

		g_test_add_data_func(name, &flows[i], check_flow);
		g_free(name);
	}
	return g_test_run();
}
