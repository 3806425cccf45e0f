/* SPDX-License-Identifier: MIT */
/*
 * test-gce-retries.c - gce.so's waits between retries (cr-testhost's clock
 * advances through them at once): Retry-After honoured, a huge one saturating at max_retry_wait
 * (no overflow), exponential backoff without one, 403 rateLimitExceeded
 * retried and 403 insufficient scopes not; the metadata server's three
 * tries. Every request is scripted: the default metadata address
 * 169.254.169.254 and compute.googleapis.com are never contacted.
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define TOKEN "ya29.testhost-token"
#define GROUP "https://compute.googleapis.com/compute/v1/projects/p/zones/z/instanceGroups/g"
#define LIST GROUP "/listInstances?maxResults=500&fields=items%28instance%29%2CnextPageToken"
#define ADDRS                                                                                      \
	"https://compute.googleapis.com/compute/v1/projects/p/zones/z/"                            \
	"instances?filter=name%20eq%20"                                                            \
	"%22%28w-0%29%22&fields=items%28name%2Czone%2CnetworkInterfaces%28networkIP%2C"            \
	"ipv6Address%2CaccessConfigs%28natIP%29%29%29%2CnextPageToken&maxResults=500"
#define META "http://169.254.169.254/computeMetadata/v1/"
#define MEMBERS                                                                                    \
	"{\"items\": [{\"instance\": \"https://www.googleapis.com/compute/v1/projects/p/zones/z/"  \
	"instances/w-0\", \"status\": \"RUNNING\"}]}"
#define ADDRESS                                                                                    \
	"{\"items\": [{\"name\": \"w-0\", \"networkInterfaces\": [{\"networkIP\": "                \
	"\"10.0.0.9\"}]}]}"
#define ERRBODY(code, reason, msg)                                                                 \
	"{\"error\": {\"code\": " #code ", \"message\": \"" msg                                    \
	"\", \"errors\": [{\"message\": \"" msg                                                    \
	"\", \"domain\": \"global\", \"reason\": \"" reason "\"}]}}"
#define OUT                                                                                        \
	"{\"cluster\": {\"worker\": [\"10.0.0.9:2222\"]}, \"task\": {\"type\": \"worker\", "       \
	"\"index\": 0}, \"rpc_layer\": \"grpc\", \"master\": \"grpc://10.0.0.9:2222\", "           \
	"\"num_accelerators\": {}}\n"

typedef struct answer {
	long status; /* 0: a transport failure (CR_ERR_NETWORK) */
	const char *retry_after;
	const char *body;
} answer;

typedef struct retry_case {
	const char *name;
	const char *config;
	answer list[4];    /* answers to listInstances before the 200 (status 0 ends) */
	bool gives_up;     /* the last answer is final: no 200 follows */
	const char *waits; /* waits of the "retrying in" lines logged, joined by ',' */
	cr_status status;
	const char *message;
} retry_case;

/* clang-format off */
static const retry_case cases[] = {
	{ "retry-after", "", { { 429, "7", ERRBODY(429, "rateLimitExceeded", "Rate Limit Exceeded") } },
	  false, "7000", CR_OK, NULL },
	{ "retry-after-huge-saturates", "max_retry_wait = 12;",
	  { { 429, "99999999999999999999999999", "{}" }, { 429, "18446744073709551615", "{}" },
	    { 503, "9223372036854775807", "{}" } },
	  false, "12000,12000,12000", CR_OK, NULL },
	{ "backoff-without-retry-after", "", { { 503, NULL, "" }, { 500, NULL, "" }, { 502, NULL, "" } },
	  false, "500,1000,2000", CR_OK, NULL },
	{ "403-rate-limit-retried", "",
	  { { 403, NULL, ERRBODY(403, "userRateLimitExceeded", "User Rate Limit Exceeded") } },
	  false, "500", CR_OK, NULL },
	{ "403-scopes-final", "",
	  { { 403, NULL, ERRBODY(403, "insufficientPermissions",
				 "Request had insufficient authentication scopes.") } },
	  true, "", CR_ERR_AUTH,
	  "resolver 'gce': POST " GROUP "/listInstances: HTTP 403: Request had insufficient "
	  "authentication scopes." },
	{ "retries-run-out", "retries = 2; max_retry_wait = 0.25;",
	  { { 429, NULL, "{}" }, { 429, NULL, "{}" }, { 429, NULL, ERRBODY(429, "rateLimitExceeded", "Quota exceeded") } },
	  true, "250,250", CR_ERR_BACKEND,
	  "resolver 'gce': POST " GROUP "/listInstances: HTTP 429: Quota exceeded (after 3 attempts)" },
	{ NULL },
};
/* clang-format on */

static void expect(cr_testhost *th, const char *method, const char *url, long status,
		   const char *retry_after, const char *body, bool metadata)
{
	const char *auth[] = { "Authorization: Bearer " TOKEN, NULL };
	const char *flavor[] = { "Metadata-Flavor: Google", NULL };
	char *ra = retry_after ? g_strconcat("Retry-After: ", retry_after, NULL) : NULL;
	const char *rh[] = { metadata ? "Metadata-Flavor: Google" : ra, NULL };
	cr_error err = CR_ERROR_INIT;

	g_assert_cmpint(cr_testhost_expect(th, method, url, metadata ? flavor : auth, &err), ==,
			CR_OK);
	if (status == 0)
		g_assert_cmpint(
			cr_testhost_respond_error(th, CR_ERR_NETWORK, "connection reset", &err), ==,
			CR_OK);
	else
		g_assert_cmpint(cr_testhost_respond(th, status, rh, body, &err), ==, CR_OK);
	g_assert_cmpstr(err.message, ==, "");
	g_free(ra);
}

static char *waits(cr_testhost *th)
{
	GString *s = g_string_new(NULL);
	const char *line;

	for (size_t i = 0; (line = cr_testhost_log_line(th, i, NULL)) != NULL; i++) {
		const char *w = strstr(line, "retrying in ");

		if (w != NULL)
			g_string_append_printf(s, "%s%.*s", s->len ? "," : "",
					       (int)strcspn(w + 12, " "), w + 12);
	}
	return g_string_free(s, FALSE);
}

static cr_testhost *setup(const char *extra)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	char *config = g_strdup_printf("instance_group = \"g\"; project = \"p\"; zone = \"z\"; "
				       "port = 2222; access_token_file = \"/run/token\"; %s",
				       extra);

	g_assert_cmpint(cr_testhost_load(th, g_getenv("CR_GCE_PLUGIN"), config, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_add_file(th, "/run/token", TOKEN "\n", (size_t)-1, &err), ==,
			CR_OK);
	g_assert_cmpint(cr_testhost_add_file(th, "/sys/class/dmi/id/product_name",
					     "Google Compute Engine\n", (size_t)-1, &err),
			==, CR_OK);
	g_free(config);
	return th;
}

static void check_retry(gconstpointer data)
{
	const retry_case *c = data;
	cr_testhost *th = setup(c->config);
	cr_error err = CR_ERROR_INIT;
	const char *out = NULL;
	char *w;
	cr_status st;

	for (int i = 0; i < 4 && c->list[i].status != 0; i++)
		expect(th, "POST", LIST, c->list[i].status, c->list[i].retry_after, c->list[i].body,
		       false);
	if (!c->gives_up) {
		expect(th, "POST", LIST, 200, NULL, MEMBERS, false);
		expect(th, "GET", ADDRS, 200, NULL, ADDRESS, false);
		expect(th, "GET", META "instance/name", 200, NULL, "w-0", true);
		expect(th, "GET", META "instance/zone", 200, NULL, "projects/1/zones/z", true);
	}
	st = cr_testhost_resolve(th, "json", &out, &err);
	if (c->gives_up) {
		g_assert_cmpint(st, ==, c->status);
		g_assert_cmpstr(err.message, ==, c->message);
	} else {
		g_assert_cmpint(st, ==, CR_OK);
		g_assert_cmpstr(out, ==, OUT);
	}
	w = waits(th);
	g_assert_cmpstr(w, ==, c->waits);
	err.message[0] = '\0';
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	g_assert_null(strstr(cr_testhost_logs(th), TOKEN));
	g_free(w);
	cr_testhost_free(th);
}

/* The metadata server reset three times: three tries, then its message. */
static void check_metadata_tries(void)
{
	cr_testhost *th = setup("");
	cr_error err = CR_ERROR_INIT;
	const char *out = NULL;

	expect(th, "POST", LIST, 200, NULL, MEMBERS, false);
	expect(th, "GET", ADDRS, 200, NULL, ADDRESS, false);
	for (int i = 0; i < 3; i++)
		expect(th, "GET", META "instance/name", 0, NULL, NULL, true);
	g_assert_cmpint(cr_testhost_resolve(th, "json", &out, &err), ==, CR_OK);
	/* no name from the metadata server: identity unknown, warned */
	g_assert_cmpstr(out, ==,
			"{\"cluster\": {\"worker\": [\"10.0.0.9:2222\"]}, \"rpc_layer\": \"grpc\", "
			"\"master\": \"\", \"num_accelerators\": {}}\n");
	err.message[0] = '\0';
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	cr_testhost_free(th);
}

/* The captured lines down to info ("LEVEL: TEXT\n"), debug left out. */
static char *logs_to_info(cr_testhost *th)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	GString *s = g_string_new(NULL);
	cr_log_level level;
	const char *line;

	for (size_t i = 0; (line = cr_testhost_log_line(th, i, &level)) != NULL; i++)
		if (level <= CR_LOG_INFO)
			g_string_append_printf(s, "%s: %s\n", names[level], line);
	return g_string_free(s, FALSE);
}

/* min_instances not met: a round every wait_interval (5 s) logged at info,
 * and every 10 s of waiting a warning naming what is missing; then the
 * timeout. */
static void check_min_instances_wait(void)
{
	cr_testhost *th = setup("min_instances = 2; wait_interval = 5; wait_timeout = 20;");
	cr_error err = CR_ERROR_INIT;
	const char *out = NULL;
	char *logs;

	for (int i = 0; i < 5; i++)
		expect(th, "POST", LIST, 200, NULL, MEMBERS, false);
	g_assert_cmpint(cr_testhost_resolve(th, "json", &out, &err), ==, CR_ERR_TIMEOUT);
	g_assert_cmpstr(err.message, ==,
			"resolver 'gce': instance group g (zones/z): 1 RUNNING instances, fewer "
			"than min_instances 2 after wait_timeout 20.0 s");
	logs = logs_to_info(th);
	g_assert_cmpstr(logs, ==,
			"info: resolver 'gce': instance group g: 1 of min_instances 2 RUNNING\n"
			"info: resolver 'gce': instance group g: 1 of min_instances 2 RUNNING\n"
			"warning: resolver 'gce': waiting 10 s for instance group g: 1 of "
			"min_instances 2 RUNNING (wait_timeout 20 s)\n"
			"info: resolver 'gce': instance group g: 1 of min_instances 2 RUNNING\n");
	g_free(logs);
	err.message[0] = '\0';
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (const retry_case *c = cases; c->name != NULL; c++) {
		char *path = g_strdup_printf("/gce/retry/%s", c->name);

		g_test_add_data_func(path, c, check_retry);
		g_free(path);
	}
	g_test_add_func("/gce/metadata/three-tries", check_metadata_tries);
	g_test_add_func("/gce/min-instances/wait-says-what-is-missing", check_min_instances_wait);
	return g_test_run();
}
