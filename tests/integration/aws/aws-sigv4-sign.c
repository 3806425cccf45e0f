/* SPDX-License-Identifier: MIT */
/*
 * aws-sigv4-sign.c - drive aws.so's signer (plugins/resolvers/aws/aws_sigv4.c)
 * from test_sigv4.py, which compares what it prints with botocore's signer
 * and the independent verifier, case by case.
 *
 *   aws-sigv4-sign METHOD URL REGION SERVICE CONTENT-TYPE|- BODY-FILE|-
 *                  AMZ-DATE AKID SECRET TOKEN|-
 *
 * Prints the canonical request, a line "--", the string to sign, a line
 * "--" and the header lines; exit 1 with the reason on a refused input.
 * The key is a published test key (AKIDEXAMPLE), not a secret.
 */
#include <stdio.h>
#include <string.h>

#include "aws_sigv4.h"

static const char *opt(const char *s)
{
	return strcmp(s, "-") == 0 ? NULL : s;
}

int main(int argc, char **argv)
{
	struct aws_sigv4_input in = { 0 };
	struct aws_sigv4_signed out;
	const char *why = NULL;
	char *body = NULL;
	gsize len = 0;

	if (argc != 11) {
		fprintf(stderr,
			"usage: %s METHOD URL REGION SERVICE CT BODY DATE AKID SECRET "
			"TOKEN\n",
			argv[0]);
		return 2;
	}
	if (opt(argv[6]) && !g_file_get_contents(argv[6], &body, &len, NULL)) {
		fprintf(stderr, "cannot read %s\n", argv[6]);
		return 2;
	}
	in.method = argv[1];
	in.url = argv[2];
	in.region = argv[3];
	in.service = argv[4];
	in.content_type = opt(argv[5]);
	in.body = body;
	in.body_len = len;
	in.amz_date = argv[7];
	in.access_key_id = argv[8];
	in.secret_access_key = argv[9];
	in.session_token = opt(argv[10]);
	if (!aws_sigv4_sign(&in, &out, &why)) {
		fprintf(stderr, "refused: %s\n", why);
		g_free(body);
		return 1;
	}
	printf("%s\n--\n%s\n--\n", out.canonical_request, out.string_to_sign);
	for (char **h = out.headers; *h; h++)
		printf("%s\n", *h);
	aws_sigv4_signed_clear(&out);
	g_free(body);
	return 0;
}
