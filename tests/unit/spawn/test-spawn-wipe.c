/* SPDX-License-Identifier: MIT */
/*
 * test-spawn-wipe.c - nothing host->spawn frees still holds a secret: the
 * child's environment (which may carry a kubeconfig's env values) and
 * output that outgrew its buffer (an exec credential's token) are wiped
 * before their memory is released. Runs with freescan.so preloaded
 * (tests/common/freescan.c), which counts freed blocks holding a marker.
 */
#include <dlfcn.h>
#include <string.h>

#include <glib.h>

#include "host/host-private.h"

#define MARKER "crWipeMarker-5b1e07"

static void (*set_marker)(const char *);
static unsigned long (*hits)(void);

/* The scanner works: a freed copy of the marker is seen. */
static void test_scanner_sees_a_copy(void)
{
	set_marker(MARKER);
	g_free(g_strdup("before " MARKER " after"));
	g_assert_cmpuint(hits(), ==, 1);
}

static void test_spawn_leaves_no_copy(void)
{
	/* 200 KB after the secret: the output buffer grows many times. */
	const char *argv[] = { "sh", "-c",
			       "printf '%s' \"$CR_WIPE_SECRET\"; head -c 200000 /dev/zero | tr "
			       "'\\0' x;"
			       " printf '%s' \"$CR_WIPE_SECRET\" >&2",
			       NULL };
	const char *env[] = { "CR_WIPE_SECRET=" MARKER, NULL };
	cr_spawn_result *r = NULL;
	cr_error err = CR_ERROR_INIT;

	set_marker(MARKER);
	g_assert_cmpint(host_api()->spawn(NULL, argv, env, 0, 0, &r, &err), ==, CR_OK);
	g_assert_cmpint(r->exit_status, ==, 0);
	g_assert_cmpuint(r->out_len, ==, strlen(MARKER) + 200000);
	g_assert_true(strncmp(r->out, MARKER, strlen(MARKER)) == 0);
	g_assert_cmpstr(r->err, ==, MARKER);
	host_api()->spawn_result_free(r);
	g_assert_cmpuint(hits(), ==, 0);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	set_marker = (void (*)(const char *))dlsym(RTLD_DEFAULT, "freescan_set_marker");
	hits = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "freescan_hits");
	if (set_marker == NULL || hits == NULL)
		g_error("freescan.so is not preloaded (LD_PRELOAD)");
	g_test_add_func("/spawn-wipe/scanner-sees-a-copy", test_scanner_sees_a_copy);
	g_test_add_func("/spawn-wipe/spawn-leaves-no-copy", test_spawn_leaves_no_copy);
	return g_test_run();
}
