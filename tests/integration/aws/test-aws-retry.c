/* SPDX-License-Identifier: MIT */
/*
 * test-aws-retry.c - aws.so's retries through cr-testhost's scripted HTTP
 * and clock: botocore's standard mode (what is retried and what never is,
 * AWS_MAX_ATTEMPTS, the wait random(0,1) x min(2^(n-1), 20) s read from
 * the log lines, the retry quota of 500 that timeouts spend 10 at a time),
 * adaptive mode's send-rate wait after throttling, and the form body and
 * headers of the request. Nothing is contacted; waits take no time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define URL "https://ec2.test/"
#define W "resolver 'aws': "
#define BODY                                                                                       \
	"Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3Arole&Filter.1.Value.1="   \
	"worker&Filter.2.Name=instance-state-name&Filter.2.Value.1=running&MaxResults=1000"
#define PAGE                                                                                       \
	"<DescribeInstancesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"           \
	"<requestId>r-1</requestId><reservationSet><item><reservationId>r-0a</reservationId>"      \
	"<ownerId>123456789012</ownerId><groupSet/><instancesSet><item><instanceId>i-0a"           \
	"</instanceId><instanceState><code>16</code><name>running</name></instanceState>"          \
	"<privateIpAddress>10.0.0.5</privateIpAddress></item></instancesSet></item>"               \
	"</reservationSet></DescribeInstancesResponse>"
#define ERR(code, msg)                                                                             \
	"<Response><Errors><Error><Code>" code "</Code><Message>" msg "</Message></Error>"         \
	"</Errors><RequestID>rid</RequestID></Response>"
#define CONFIG                                                                                     \
	"port = 2222; region = \"us-east-1\"; endpoint = \"" URL "\"; "                            \
	"jobs = { worker = ( { name = \"tag:role\"; values = [ \"worker\" ]; } ); };"
#define OK_OUT                                                                                     \
	"{\"cluster\": {\"worker\": [\"10.0.0.5:2222\"]}, \"rpc_layer\": \"grpc\", \"master\": "   \
	"\"\", "                                                                                   \
	"\"num_accelerators\": {}}\n"

/* One scripted answer: an HTTP status and body, or a transport error. */
typedef struct answer {
	long status; /* 0: transport error @error */
	const char *body;
	cr_status error;
} answer;

#define A503                                                                                       \
	{                                                                                          \
		503, ERR("RequestLimitExceeded", "Request limit exceeded."), CR_OK                 \
	}
#define A500                                                                                       \
	{                                                                                          \
		500, ERR("InternalError", "An internal error has occurred"), CR_OK                 \
	}
#define AOK                                                                                        \
	{                                                                                          \
		200, PAGE, CR_OK                                                                   \
	}
#define ATIMEOUT                                                                                   \
	{                                                                                          \
		0, NULL, CR_ERR_TIMEOUT                                                            \
	}

typedef struct retry_case {
	const char *name;
	const char *mode, *max_attempts; /* AWS_RETRY_MODE, AWS_MAX_ATTEMPTS */
	const char *extra_config;
	int n_answers;
	answer answers[64]; /* the last one repeats up to n_answers */
	cr_status status;
	const char *message; /* resolve's error, or NULL for OK_OUT */
	int retries_logged;
	const char *log_has; /* (nullable) a log line must contain it */
} retry_case;

/* clang-format off */
static const retry_case cases[] = {
	{ "503-then-ok", NULL, NULL, "", 2, { A503, AOK }, CR_OK, NULL, 1, NULL },
	{ "connection-error-then-ok", NULL, NULL, "", 2,
	  { { 0, "Could not connect to server", CR_ERR_NETWORK }, AOK }, CR_OK, NULL, 1, NULL },
	{ "throttling-codes", NULL, "5", "", 5,
	  { { 400, ERR("Throttling", "Rate exceeded"), CR_OK },
	    { 400, ERR("RequestThrottled", "slow"), CR_OK },
	    { 503, ERR("EC2ThrottledException", "slow"), CR_OK },
	    { 400, ERR("RequestTimeout", "slow"), CR_OK }, AOK }, CR_OK, NULL, 4, NULL },
	{ "backoff-capped-at-20s", NULL, "8", "", 8, { A500 }, CR_ERR_BACKEND,
	  W "POST " URL ": HTTP 500: InternalError: An internal error has occurred (after 8 attempts)",
	  7, NULL },
	{ "retries-option-wins", NULL, "8", "retries = 1;", 2, { A500 }, CR_ERR_BACKEND,
	  W "POST " URL ": HTTP 500: InternalError: An internal error has occurred (after 2 attempts)",
	  1, NULL },
	{ "quota-spent-by-timeouts", NULL, "100", "request_timeout = 1.0;", 51, { ATIMEOUT },
	  CR_ERR_TIMEOUT, W "POST " URL ": timed out (connect_timeout 60.0 s, request_timeout 1.0 s)",
	  50, NULL },
	{ "auth-failure-never", NULL, "5", "", 1,
	  { { 401, ERR("AuthFailure", "AWS was not able to validate the provided access credentials"),
	      CR_OK } }, CR_ERR_AUTH,
	  W "POST " URL ": HTTP 401: AuthFailure: AWS was not able to validate the provided access "
	  "credentials", 0, NULL },
	{ "unauthorized-never", NULL, "5", "", 1,
	  { { 403, ERR("UnauthorizedOperation", "You are not authorized to perform this operation."),
	      CR_OK } }, CR_ERR_AUTH,
	  W "POST " URL ": HTTP 403: UnauthorizedOperation: You are not authorized to perform this "
	  "operation.", 0, NULL },
	{ "request-expired-never", NULL, "5", "", 1,
	  { { 400, ERR("RequestExpired", "Request has expired."), CR_OK } }, CR_ERR_AUTH,
	  W "POST " URL ": HTTP 400: RequestExpired: Request has expired.", 0, NULL },
	{ "501-never", NULL, "5", "", 1, { { 501, ERR("Unsupported", "no"), CR_OK } },
	  CR_ERR_BACKEND, W "POST " URL ": HTTP 501: Unsupported: no", 0, NULL },
	{ "adaptive-waits-to-send", "adaptive", "6", "", 5, { A503, A503, A503, A503, AOK }, CR_OK,
	  NULL, 4, "adaptive rate limit, waiting" },
	{ "legacy-mode-warned", "legacy", NULL, "", 2, { A503, AOK }, CR_OK, NULL, 1,
	  "AWS_RETRY_MODE \"legacy\": using standard retries" },
	{ NULL },
};
/* clang-format on */

static void script(cr_testhost *th, const retry_case *c)
{
	const char *want[] = { "Content-Type: application/x-www-form-urlencoded; charset=utf-8",
			       NULL };
	cr_error err = CR_ERROR_INIT;
	int last = 0;

	while (last + 1 < (int)G_N_ELEMENTS(c->answers) && c->answers[last + 1].status + 1 > 0 &&
	       (c->answers[last + 1].body || c->answers[last + 1].error))
		last++;
	for (int i = 0; i < c->n_answers; i++) {
		const answer *a = &c->answers[i <= last ? i : last];

		g_assert_cmpint(cr_testhost_expect(th, "POST", URL, want, &err), ==, CR_OK);
		g_assert_cmpint(cr_testhost_expect_body(th, BODY, &err), ==, CR_OK);
		if (a->status)
			g_assert_cmpint(cr_testhost_respond(th, a->status, NULL, a->body, &err), ==,
					CR_OK);
		else
			g_assert_cmpint(cr_testhost_respond_error(th, a->error,
								  a->body ? a->body : "timed out",
								  &err),
					==, CR_OK);
	}
}

/* Each "retrying in N ms (attempt K of M)" line: N within the cap. */
static int check_waits(cr_testhost *th)
{
	const char *line;
	cr_log_level level;
	int seen = 0;

	for (size_t i = 0; (line = cr_testhost_log_line(th, i, &level)) != NULL; i++) {
		const char *w = strstr(line, "retrying in ");
		const char *k = w ? strstr(w, "(attempt ") : NULL;
		long long ms;
		int attempt;

		if (!w || !k)
			continue;
		ms = g_ascii_strtoll(w + 12, NULL, 10);
		attempt = atoi(k + 9); /* the attempt about to be made: retry attempt-1 */
		g_assert_cmpint(attempt, ==, seen + 2);
		g_assert_cmpint(ms, >=, 0);
		g_assert_cmpint(ms, <=, MIN(1000LL << MIN(seen, 5), 20000));
		seen++;
	}
	return seen;
}

static bool log_has(cr_testhost *th, const char *text)
{
	const char *line;
	cr_log_level level;

	for (size_t i = 0; (line = cr_testhost_log_line(th, i, &level)) != NULL; i++)
		if (strstr(line, text))
			return true;
	return false;
}

static void check_retry(gconstpointer data)
{
	const retry_case *c = data;
	const char *plugin = g_getenv("CR_AWS_PLUGIN");
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	char *config = g_strconcat(CONFIG, " ", c->extra_config, NULL);
	const char *out = NULL;
	cr_status rc;

	g_assert_nonnull(th);
	cr_testhost_set_log_level(th, CR_LOG_DEBUG);
	g_assert_cmpint(cr_testhost_load(th, plugin, config, &err), ==, CR_OK);
	cr_testhost_setenv(th, "AWS_ACCESS_KEY_ID", "AKIDEXAMPLE", &err);
	cr_testhost_setenv(th, "AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
			   &err);
	cr_testhost_setenv(th, "AWS_EC2_METADATA_DISABLED", "true", &err);
	cr_testhost_setenv(th, "AWS_CONFIG_FILE", "/none/config", &err);
	cr_testhost_setenv(th, "AWS_SHARED_CREDENTIALS_FILE", "/none/credentials", &err);
	if (c->mode)
		cr_testhost_setenv(th, "AWS_RETRY_MODE", c->mode, &err);
	if (c->max_attempts)
		cr_testhost_setenv(th, "AWS_MAX_ATTEMPTS", c->max_attempts, &err);
	script(th, c);
	rc = cr_testhost_resolve(th, NULL, &out, &err);
	g_assert_cmpint(rc, ==, c->status);
	if (c->message)
		g_assert_cmpstr(err.message, ==, c->message);
	else
		g_assert_cmpstr(out, ==, OK_OUT);
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	g_assert_cmpint(check_waits(th), ==, c->retries_logged);
	if (c->log_has)
		g_assert_true(log_has(th, c->log_has));
	g_free(config);
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	if (!g_getenv("CR_AWS_PLUGIN")) {
		printf("1..0 # SKIP CR_AWS_PLUGIN is not set (run through ctest)\n");
		return 77;
	}
	for (const retry_case *c = cases; c->name; c++) {
		char *path = g_strconcat("/aws/retry/", c->name, NULL);

		g_test_add_data_func(path, c, check_retry);
		g_free(path);
	}
	return g_test_run();
}
