/* SPDX-License-Identifier: MIT */
/*
 * testhost-mismatch.c - what the HTTP script (testhost-http.c) and the
 * spawn script (testhost-spawn.c) share: a request or spawn the script did
 * not expect is a violation, kept for verify (the first one) and reported
 * by the run call it happened in (testhost.c: end_call).
 */
#include "testhost-private.h"

cr_status th_mismatch(cr_testhost *th, const char *what, guint n, char *why, cr_error *err)
{
	char *msg = g_strdup_printf("cr-testhost: %s %u: %s", what, n, why);
	cr_status st = error_set(err, CR_ERR_NETWORK, "%s", msg);

	g_free(why);
	if (th->mismatch == NULL)
		th->mismatch = msg;
	else
		g_free(msg);
	th->call_mismatch = true;
	return st;
}
