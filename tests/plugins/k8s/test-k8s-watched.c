/* SPDX-License-Identifier: MIT */
/*
 * test-k8s-watched.c - k8s.so in a watched resolution (ABI 1.3,
 * host->watched, cr_testhost_set_watched) through cr-testhost, on the
 * default not_running = "error":
 *   - a Pending pod is no member and no failure (a plain resolution still
 *     fails with TensorFlow's message);
 *   - after a watch that saw it turn Running, the resolve answers from the
 *     watch's pods: the testhost is scripted with no list for it, so any
 *     request would fail the resolve; the next watch resumes from the
 *     event's version;
 *   - after 410 Gone the resolve lists again.
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define SERVER "https://api.test:6443"
#define PODS SERVER "/api/v1/namespaces/train/pods"
#define LIST PODS "?labelSelector=job-name%3Dworker"
#define WATCH(rv) LIST "&watch=1&resourceVersion=" rv "&allowWatchBookmarks=true&timeoutSeconds=300"

static const char kubeconfig[] =
	"apiVersion: v1\nkind: Config\ncurrent-context: c\n"
	"clusters:\n- name: k\n  cluster:\n    server: " SERVER "\n"
	"contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n    namespace: train\n"
	"users:\n- name: u\n  user:\n    token: t0ken\n";

#define POD(name, ip, phase, rv)                                                                   \
	"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" name                   \
	"\",\"namespace\":\"train\",\"uid\":\"u-" name "\",\"resourceVersion\":\"" rv              \
	"\",\"labels\":{\"job-name\":\"worker\"}},\"spec\":{},\"status\":{\"phase\":\"" phase      \
	"\",\"podIP\":\"" ip "\"}}"
#define EV(type, obj) "{\"type\":\"" type "\",\"object\":" obj "}\n"

static const char list_body[] =
	"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{"
	"\"resourceVersion\":\"100\"},\"items\":[" POD("w-0", "10.0.0.1", "Running", "90") "," POD(
		"w-1", "", "Pending", "91") "]}";

static const char *const json_type[] = { "Content-Type: application/json", NULL };

#define ONE "{\"cluster\": {\"worker\": [\"10.0.0.1:8470\"]}"
#define TWO "{\"cluster\": {\"worker\": [\"10.0.0.1:8470\", \"10.0.0.2:8470\"]}"

static cr_testhost *start(bool watched)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);

	g_assert_nonnull(th);
	g_assert_cmpint(cr_testhost_load(th, g_getenv("CR_K8S_PLUGIN"),
					 "kubeconfig = \"/kube/config\"; page_size = 0; "
					 "list_format = \"json\"; jobs = { worker = [ "
					 "\"job-name=worker\" ]; };",
					 &err),
			==, CR_OK);
	g_assert_cmpint(cr_testhost_add_file(th, "/kube/config", kubeconfig, (size_t)-1, &err), ==,
			CR_OK);
	cr_testhost_set_watched(th, watched);
	cr_testhost_set_stream_piece(th, 5);
	g_assert_cmpint(cr_testhost_expect(th, "GET", LIST, NULL, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_respond(th, 200, json_type, list_body, &err), ==, CR_OK);
	return th;
}

static void expect_watch(cr_testhost *th, const char *url, const char *body)
{
	cr_error err = CR_ERROR_INIT;

	g_assert_cmpint(cr_testhost_expect(th, "GET", url, NULL, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_respond(th, 200, json_type, body, &err), ==, CR_OK);
}

static void resolve_is(cr_testhost *th, const char *want)
{
	cr_error err = CR_ERROR_INIT;
	const char *out = NULL;
	cr_status st = cr_testhost_resolve(th, "json", &out, &err);

	if (st != CR_OK)
		g_test_message("resolve: %s\nlogs:\n%s", err.message, cr_testhost_logs(th));
	g_assert_cmpint(st, ==, CR_OK);
	g_assert_true(g_str_has_prefix(out, want));
}

static void test_plain_fails(void)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = start(false);
	const char *out = NULL;

	g_assert_cmpint(cr_testhost_resolve(th, "json", &out, &err), ==, CR_ERR_BACKEND);
	g_assert_cmpstr(err.message, ==,
			"resolver 'k8s': Pod \"w-1\" is not running; phase: \"Pending\"");
	cr_testhost_free(th);
}

static void test_pending_then_running(void)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = start(true);
	bool changed = false;

	/* the Pending pod with its address, then Running: one change */
	expect_watch(th, WATCH("100"),
		     EV("MODIFIED", POD("w-1", "10.0.0.2", "Pending", "101"))
			     EV("MODIFIED", POD("w-1", "10.0.0.2", "Running", "102")));
	/* the next watch resumes from the event's version */
	expect_watch(th, WATCH("102"), EV("DELETED", POD("w-0", "10.0.0.1", "Running", "103")));
	resolve_is(th, ONE);
	g_assert_cmpint(cr_testhost_watch(th, 600000, &changed, &err), ==, CR_OK);
	g_assert_true(changed);
	resolve_is(th, TWO); /* no list scripted: from the watch's pods */
	g_assert_cmpint(cr_testhost_watch(th, 600000, &changed, &err), ==, CR_OK);
	g_assert_true(changed);
	resolve_is(th, "{\"cluster\": {\"worker\": [\"10.0.0.2:8470\"]}");
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	g_assert_nonnull(strstr(cr_testhost_logs(th), "answered from the watch's pods"));
	cr_testhost_free(th);
}

static void test_gone_lists_again(void)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = start(true);
	bool changed = false;

	expect_watch(th, WATCH("100"),
		     EV("ERROR", "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":"
				 "\"Failure\",\"reason\":\"Expired\",\"code\":410}"));
	g_assert_cmpint(cr_testhost_expect(th, "GET", LIST, NULL, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_respond(th, 200, json_type, list_body, &err), ==, CR_OK);
	resolve_is(th, ONE);
	g_assert_cmpint(cr_testhost_watch(th, 600000, &changed, &err), ==, CR_OK);
	g_assert_true(changed);
	resolve_is(th, ONE); /* listed again */
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/k8s/watched/plain-resolution-fails-on-pending", test_plain_fails);
	g_test_add_func("/k8s/watched/pending-then-running-no-list", test_pending_then_running);
	g_test_add_func("/k8s/watched/gone-lists-again", test_gone_lists_again);
	return g_test_run();
}
