/* SPDX-License-Identifier: MIT */
/*
 * test-aws-creds.c - aws.so's credential chain and IMDS client through
 * cr-testhost's scripted HTTP and spawn: the exact requests (IMDSv2 token
 * PUT with its TTL header, GETs carrying the token, a new token after a
 * 401, retries by AWS_METADATA_SERVICE_NUM_ATTEMPTS, IMDSv1 only with
 * imds_v1, the container endpoint's Authorization and its three tries) and
 * credential_process through host->spawn (its argv as the shell would split
 * it, a timeout, a program that cannot start, a session token that then
 * signs the EC2 call). Transport failures that a live fixture cannot make
 * on demand (a PUT timing out, refused connections) are scripted here;
 * nothing is contacted. No secret appears in any log line.
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define IMDS "http://imds.test/"
#define EC2 "https://ec2.test/"
#define TTL "X-aws-ec2-metadata-token-ttl-seconds: 21600"
#define TOK1 "X-aws-ec2-metadata-token: AQAEAtoken-one=="
#define TOK2 "X-aws-ec2-metadata-token: AQAEAtoken-two=="
#define ROLE_DOC                                                                                   \
	"{\"Code\": \"Success\", \"LastUpdated\": \"2026-11-23T10:00:00Z\", \"Type\": "            \
	"\"AWS-HMAC\", \"AccessKeyId\": \"ASIAROLEEXAMPLE00001\", \"SecretAccessKey\": "           \
	"\"r0le-secret-EXAMPLE\", \"Token\": \"r0le-session-token-EXAMPLE\", \"Expiration\": "     \
	"\"2026-11-23T16:00:00Z\"}"
#define ECS_DOC                                                                                    \
	"{\"AccessKeyId\": \"ASIAECSEXAMPLE000001\", \"SecretAccessKey\": "                        \
	"\"ecs-secret-EXAMPLE\", "                                                                 \
	"\"Token\": \"ecs-session-token-EXAMPLE\", \"Expiration\": \"2026-11-23T16:00:00Z\", "     \
	"\"RoleArn\": \"arn:aws:iam::123456789012:role/task\"}"
#define PROC_DOC                                                                                   \
	"{\"Version\": 1, \"AccessKeyId\": \"ASIAPROCEXAMPLE00001\", \"SecretAccessKey\": "        \
	"\"pr0c-secret-EXAMPLE\", \"SessionToken\": \"pr0c-session-token-EXAMPLE\"}"
#define PAGE                                                                                       \
	"<DescribeInstancesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"           \
	"<requestId>8f7e6d5c-0000-4000-8000-000000000001</requestId><reservationSet><item>"        \
	"<reservationId>r-0a1b2c3d</reservationId><ownerId>123456789012</ownerId><instancesSet>"   \
	"<item><instanceId>i-0a1b2c3d4e5f60001</instanceId><privateIpAddress>10.0.0.1"             \
	"</privateIpAddress><instanceState><code>16</code><name>running</name></instanceState>"    \
	"</item></instancesSet></item></reservationSet></DescribeInstancesResponse>"
#define NONE                                                                                       \
	"no AWS credentials in the environment, profile 'default' (/home/u/.aws/credentials, "     \
	"/home/u/.aws/config), a container endpoint or the instance metadata service"
#define AWS "resolver 'aws': "

enum kind {
	END,
	HTTP,
	HTTP_ERROR,
	SPAWN_EXIT,
	SPAWN_TIMEOUT,
	SPAWN_FAIL
};

/* One scripted exchange: HTTP (method, url, a required header, status,
 * body), HTTP_ERROR (code, message), or a spawn of argv "a b c" split on
 * spaces (exit status and stdout / stderr). */
struct step {
	enum kind kind;
	const char *method, *url, *header;
	long status;
	const char *body, *text2;
	cr_status code;
};

struct creds_case {
	const char *name;
	const char *env;    /* "NAME=value;..." */
	const char *config; /* extra aws options */
	const char *file;   /* /home/u/.aws/config contents, or NULL */
	struct step steps[12];
	cr_status status;
	const char *message; /* resolve's error, or NULL when it resolves */
};

#define PUT_TOKEN(tok)                                                                             \
	{                                                                                          \
		HTTP, "PUT", IMDS "latest/api/token", TTL, 200, tok, NULL, 0                       \
	}
#define IMDS_GET(path, hdr, st, body)                                                              \
	{                                                                                          \
		HTTP, "GET", IMDS "latest/" path, hdr, st, body, NULL, 0                           \
	}
#define ROLE_STEPS(hdr)                                                                            \
	IMDS_GET("meta-data/iam/security-credentials/", hdr, 200, "worker-role"),                  \
		IMDS_GET("meta-data/iam/security-credentials/worker-role", hdr, 200, ROLE_DOC)
#define EC2_POST(hdr)                                                                              \
	{                                                                                          \
		HTTP, "POST", EC2, hdr, 200, PAGE, NULL, 0                                         \
	}

/* clang-format off */
static const struct creds_case cases[] = {
	{ "imds-role-and-identity", "", "", NULL,
	  { PUT_TOKEN("AQAEAtoken-one=="), ROLE_STEPS(TOK1),
	    IMDS_GET("meta-data/instance-id", TOK1, 200, "i-0a1b2c3d4e5f60001"),
	    EC2_POST("X-Amz-Security-Token: r0le-session-token-EXAMPLE") },
	  CR_OK, NULL },
	{ "imds-401-one-new-token", "", "", NULL,
	  { PUT_TOKEN("AQAEAtoken-one=="),
	    IMDS_GET("meta-data/iam/security-credentials/", TOK1, 401, ""),
	    PUT_TOKEN("AQAEAtoken-two=="), ROLE_STEPS(TOK2),
	    IMDS_GET("meta-data/instance-id", TOK2, 200, "i-0a1b2c3d4e5f60001"),
	    EC2_POST("X-Amz-Security-Token: r0le-session-token-EXAMPLE") },
	  CR_OK, NULL },
	{ "imds-401-twice", "", "", NULL,
	  { PUT_TOKEN("AQAEAtoken-one=="),
	    IMDS_GET("meta-data/iam/security-credentials/", TOK1, 401, ""),
	    PUT_TOKEN("AQAEAtoken-two=="),
	    IMDS_GET("meta-data/iam/security-credentials/", TOK2, 401, "") },
	  CR_ERR_AUTH, AWS "GET " IMDS "latest/meta-data/iam/security-credentials/: HTTP 401" },
	{ "imds-put-timeout-hop-limit", "", "", NULL,
	  { { HTTP_ERROR, "PUT", IMDS "latest/api/token", NULL, 0, "Timeout was reached", NULL,
	      CR_ERR_TIMEOUT } },
	  CR_ERR_TIMEOUT,
	  AWS NONE ": PUT " IMDS "latest/api/token: no answer within 1000 ms "
	  "(AWS_METADATA_SERVICE_TIMEOUT); in a container on EC2 the instance's "
	  "HttpPutResponseHopLimit (default 1) must be at least 2" },
	{ "imds-attempts", "AWS_METADATA_SERVICE_NUM_ATTEMPTS=2;AWS_METADATA_SERVICE_TIMEOUT=2.5",
	  "", NULL,
	  { { HTTP_ERROR, "PUT", IMDS "latest/api/token", NULL, 0, "Couldn't connect to server",
	      NULL, CR_ERR_NETWORK },
	    PUT_TOKEN("AQAEAtoken-one=="),
	    IMDS_GET("meta-data/iam/security-credentials/", TOK1, 500, ""), ROLE_STEPS(TOK1),
	    IMDS_GET("meta-data/instance-id", TOK1, 200, "i-0a1b2c3d4e5f60001"),
	    EC2_POST(NULL) },
	  CR_OK, NULL },
	{ "imds-attempts-spent", "AWS_METADATA_SERVICE_NUM_ATTEMPTS=2", "", NULL,
	  { { HTTP_ERROR, "PUT", IMDS "latest/api/token", NULL, 0, "Couldn't connect to server",
	      NULL, CR_ERR_NETWORK },
	    { HTTP_ERROR, "PUT", IMDS "latest/api/token", NULL, 0, "Couldn't connect to server",
	      NULL, CR_ERR_NETWORK } },
	  CR_ERR_NETWORK, AWS NONE ": PUT " IMDS "latest/api/token: Couldn't connect to server" },
	{ "imds-no-role", "", "", NULL,
	  { PUT_TOKEN("AQAEAtoken-one=="),
	    IMDS_GET("meta-data/iam/security-credentials/", TOK1, 404, "") },
	  CR_ERR_AUTH, AWS NONE },
	{ "imds-v1-after-403", "", "imds_v1 = true;", NULL,
	  { { HTTP, "PUT", IMDS "latest/api/token", TTL, 403, "", NULL, 0 },
	    ROLE_STEPS(NULL), IMDS_GET("meta-data/instance-id", NULL, 200, "i-0a1b2c3d4e5f60001"),
	    EC2_POST(NULL) },
	  CR_OK, NULL },
	{ "imds-v1-off", "", "", NULL,
	  { { HTTP, "PUT", IMDS "latest/api/token", TTL, 403, "", NULL, 0 } },
	  CR_ERR_AUTH,
	  AWS "PUT " IMDS "latest/api/token: HTTP 403: no IMDSv2 token (IMDSv1 is off: imds_v1)" },
	{ "imds-v1-disabled-by-env", "AWS_EC2_METADATA_V1_DISABLED=true", "imds_v1 = true;", NULL,
	  { { HTTP, "PUT", IMDS "latest/api/token", TTL, 405, "", NULL, 0 } },
	  CR_ERR_AUTH,
	  AWS "PUT " IMDS "latest/api/token: HTTP 405: no IMDSv2 token (IMDSv1 is off: imds_v1)" },
	{ "process-session-token", "AWS_EC2_METADATA_DISABLED=true", "",
	  "[default]\ncredential_process = get-creds --profile 'team a'\n",
	  { { SPAWN_EXIT, NULL, "get-creds|--profile|team a", NULL, 0, PROC_DOC, "", 0 },
	    EC2_POST("X-Amz-Security-Token: pr0c-session-token-EXAMPLE") },
	  CR_OK, NULL },
	{ "process-timeout", "AWS_EC2_METADATA_DISABLED=true", "",
	  "[default]\ncredential_process = get-creds\n",
	  { { SPAWN_TIMEOUT, NULL, "get-creds", NULL, 0, NULL, NULL, 0 } },
	  CR_ERR_TIMEOUT,
	  AWS "credential_process 'get-creds' (profile 'default'): no answer after 60000 ms; "
	  "killed" },
	{ "process-cannot-start", "AWS_EC2_METADATA_DISABLED=true", "",
	  "[default]\ncredential_process = get-creds\n",
	  { { SPAWN_FAIL, NULL, "get-creds", NULL, 0,
	      "Failed to execute child process \"get-creds\" (No such file or directory)", NULL,
	      0 } },
	  CR_ERR_AUTH,
	  AWS "credential_process 'get-creds' (profile 'default'): Failed to execute child "
	  "process \"get-creds\" (No such file or directory)" },
	{ "process-no-secret", "AWS_EC2_METADATA_DISABLED=true", "",
	  "[default]\ncredential_process = get-creds\n",
	  { { SPAWN_EXIT, NULL, "get-creds", NULL, 0,
	      "{\"Version\": 1, \"AccessKeyId\": \"ASIAPROCEXAMPLE00001\"}", "", 0 } },
	  CR_ERR_AUTH, AWS "credential_process 'get-creds' (profile 'default'): no SecretAccessKey" },
	{ "container-relative-uri",
	  "AWS_EC2_METADATA_DISABLED=true;AWS_CONTAINER_CREDENTIALS_RELATIVE_URI=/v2/credentials/"
	  "5f1e;AWS_CONTAINER_AUTHORIZATION_TOKEN=ecs-auth-EXAMPLE", "", NULL,
	  { { HTTP, "GET", "http://169.254.170.2/v2/credentials/5f1e",
	      "Authorization: ecs-auth-EXAMPLE", 200, ECS_DOC, NULL, 0 },
	    EC2_POST("X-Amz-Security-Token: ecs-session-token-EXAMPLE") },
	  CR_OK, NULL },
	{ "container-500-three-tries",
	  "AWS_EC2_METADATA_DISABLED=true;AWS_CONTAINER_CREDENTIALS_FULL_URI=http://[::1]:8080/"
	  "creds", "", NULL,
	  { { HTTP, "GET", "http://[::1]:8080/creds", NULL, 500, "{\"message\": \"busy\"}", NULL,
	      0 },
	    { HTTP, "GET", "http://[::1]:8080/creds", NULL, 502, "", NULL, 0 },
	    { HTTP, "GET", "http://[::1]:8080/creds", NULL, 503, "unavailable\nmore", NULL, 0 } },
	  CR_ERR_BACKEND, AWS "GET http://[::1]:8080/creds: HTTP 503: unavailable" },
	{ "container-fd00-ec2-23",
	  "AWS_EC2_METADATA_DISABLED=true;AWS_CONTAINER_CREDENTIALS_FULL_URI=http://[fd00:ec2::23]"
	  "/v1/credentials;AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE=/var/run/secrets/pods.eks."
	  "amazonaws.com/serviceaccount/eks-pod-identity-token", "", NULL,
	  { { HTTP, "GET", "http://[fd00:ec2::23]/v1/credentials", "Authorization: eks-pod-token",
	      200, ECS_DOC, NULL, 0 },
	    EC2_POST(NULL) },
	  CR_OK, NULL },
	{ "container-https-any-host",
	  "AWS_EC2_METADATA_DISABLED=true;AWS_CONTAINER_CREDENTIALS_FULL_URI=https://creds.corp."
	  "example/v1", "", NULL,
	  { { HTTP, "GET", "https://creds.corp.example/v1", NULL, 200, ECS_DOC, NULL, 0 },
	    EC2_POST(NULL) },
	  CR_OK, NULL },
	{ NULL },
};
/* clang-format on */

static void script_step(cr_testhost *th, const struct step *s)
{
	cr_error err = CR_ERROR_INIT;

	if (s->kind == HTTP || s->kind == HTTP_ERROR) {
		const char *hdrs[] = { s->header, NULL };

		g_assert_cmpint(
			cr_testhost_expect(th, s->method, s->url, s->header ? hdrs : NULL, &err),
			==, CR_OK);
		if (s->kind == HTTP)
			g_assert_cmpint(cr_testhost_respond(th, s->status, NULL, s->body, &err), ==,
					CR_OK);
		else
			g_assert_cmpint(cr_testhost_respond_error(th, s->code, s->body, &err), ==,
					CR_OK);
	} else {
		char **argv = g_strsplit(s->url, "|", -1);

		g_assert_cmpint(cr_testhost_expect_spawn(th, (const char *const *)argv, NULL, &err),
				==, CR_OK);
		if (s->kind == SPAWN_EXIT)
			g_assert_cmpint(
				cr_testhost_spawn_exit(th, (int)s->status, s->body, s->text2, &err),
				==, CR_OK);
		else if (s->kind == SPAWN_TIMEOUT)
			g_assert_cmpint(cr_testhost_spawn_timeout(th, &err), ==, CR_OK);
		else
			g_assert_cmpint(cr_testhost_spawn_fail(th, s->body, &err), ==, CR_OK);
		g_strfreev(argv);
	}
	g_assert_cmpstr(err.message, ==, "");
}

static void setup(cr_testhost *th, const struct creds_case *c)
{
	char **vars = g_strsplit(c->env, ";", -1);
	cr_error err = CR_ERROR_INIT;

	g_assert_cmpint(cr_testhost_setenv(th, "HOME", "/home/u", &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_setenv(th, "AWS_REGION", "us-west-2", &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_setenv(th, "AWS_EC2_METADATA_SERVICE_ENDPOINT", IMDS, &err), ==,
			CR_OK);
	for (char **v = vars; *v && **v; v++) {
		char **kv = g_strsplit(*v, "=", 2);

		g_assert_cmpint(cr_testhost_setenv(th, kv[0], kv[1], &err), ==, CR_OK);
		g_strfreev(kv);
	}
	g_strfreev(vars);
	if (c->file)
		g_assert_cmpint(
			cr_testhost_add_file(th, "/home/u/.aws/config", c->file, (size_t)-1, &err),
			==, CR_OK);
	g_assert_cmpint(cr_testhost_add_file(th,
					     "/var/run/secrets/pods.eks.amazonaws.com/"
					     "serviceaccount/eks-pod-identity-token",
					     "eks-pod-token", (size_t)-1, &err),
			==, CR_OK);
	for (const struct step *s = c->steps; s->kind != END; s++)
		script_step(th, s);
}

static void check_case(gconstpointer data)
{
	static const char *const secrets[] = { "r0le-secret",      "r0le-session-token",
					       "ecs-secret",       "ecs-session-token",
					       "pr0c-secret",      "pr0c-session-token",
					       "token-one",        "token-two",
					       "ecs-auth-EXAMPLE", "eks-pod-token" };
	const struct creds_case *c = data;
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	char *config = g_strdup_printf("port = 2222; endpoint = \"" EC2 "\"; jobs = { worker = ( "
				       "{ name = \"tag:role\"; values = [ \"worker\" ]; } ); }; %s",
				       c->config);
	const char *out = NULL;
	cr_status st;

	g_assert_cmpint(cr_testhost_load(th, g_getenv("CR_AWS_PLUGIN"), config, &err), ==, CR_OK);
	setup(th, c);
	st = cr_testhost_resolve(th, "json", &out, &err);
	g_assert_cmpstr(err.message, ==, c->message ? c->message : "");
	g_assert_cmpint(st, ==, c->status);
	if (st == CR_OK)
		g_assert_nonnull(strstr(out, "\"worker\": [\"10.0.0.1:2222\"]"));
	err.message[0] = '\0';
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	g_assert_cmpstr(err.message, ==, "");
	for (size_t i = 0; i < G_N_ELEMENTS(secrets); i++)
		g_assert_null(strstr(cr_testhost_logs(th), secrets[i]));
	g_free(config);
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (const struct creds_case *c = cases; c->name != NULL; c++) {
		char *path = g_strdup_printf("/aws/creds/%s", c->name);

		g_test_add_data_func(path, c, check_case);
		g_free(path);
	}
	return g_test_run();
}
