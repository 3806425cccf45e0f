/* SPDX-License-Identifier: MIT */
/*
 * test-reservation.c - reservation.so through cr-testhost where no server
 * is needed: what probe reads from the options and the environment, and
 * the host's schema checks of its options. The network paths run against
 * the real server in tests/integration/reservation-client.
 */
#include "thc.h"

#define SECRET "secret_file = \"/nonexistent/secret\";"
#define R "resolver 'reservation': "

/* clang-format off */
static const thc_case cases[] = {
	{ "no-server-declines", SECRET, { NULL }, NULL, { "probe" },
	  "", "no reservation server: neither the server option nor CR_RESERVATION_SERVER is set",
	  CR_DECLINED },
	{ "empty-server-declines", SECRET, { "CR_RESERVATION_SERVER=" }, NULL, { "probe" },
	  "", "no reservation server: neither the server option nor CR_RESERVATION_SERVER is set",
	  CR_DECLINED },
	{ "env-server-and-id", SECRET, { "CR_RESERVATION_SERVER=127.0.0.1:9", "CR_EXECUTOR_ID=3" },
	  NULL, { "probe" }, "", "", CR_OK },
	{ "option-server-and-id", SECRET " server = \"127.0.0.1:9\"; executor_id = 0;", { NULL },
	  NULL, { "probe" }, "", "", CR_OK },
	{ "no-executor-id", SECRET, { "CR_RESERVATION_SERVER=127.0.0.1:9" }, NULL, { "probe" },
	  "", R "no executor id: neither the executor_id option nor CR_EXECUTOR_ID is set",
	  CR_ERR_CONFIG },
	{ "executor-id-not-a-number", SECRET,
	  { "CR_RESERVATION_SERVER=127.0.0.1:9", "CR_EXECUTOR_ID=2x" }, NULL, { "probe" },
	  "", R "CR_EXECUTOR_ID=\"2x\" is not an executor id (0..2147483647)", CR_ERR_CONFIG },
	{ "executor-id-negative", SECRET,
	  { "CR_RESERVATION_SERVER=127.0.0.1:9", "CR_EXECUTOR_ID=-1" }, NULL, { "probe" },
	  "", R "CR_EXECUTOR_ID=\"-1\" is not an executor id (0..2147483647)", CR_ERR_CONFIG },
	{ "tensorflow-port-bad", SECRET,
	  { "CR_RESERVATION_SERVER=127.0.0.1:9", "CR_EXECUTOR_ID=0", "TENSORFLOW_PORT=70000" },
	  NULL, { "probe" },
	  "", R "TENSORFLOW_PORT=\"70000\" is not a port (1..65535)", CR_ERR_CONFIG },
	{ "tensorflow-port-ignored-with-port-option", SECRET " port = 2222;",
	  { "CR_RESERVATION_SERVER=127.0.0.1:9", "CR_EXECUTOR_ID=0", "TENSORFLOW_PORT=x" },
	  NULL, { "probe" }, "", "", CR_OK },
	/* The host's schema checks, before the plugin runs. */
	{ "port-out-of-range", SECRET " port = 70000;", { NULL }, NULL, { "probe" },
	  "", "(string):1: resolver 'reservation': key 'port' is 70000, out of its range 0..65535", CR_ERR_CONFIG },
	{ "secret-file-required", "server = \"127.0.0.1:9\";", { NULL }, NULL, { "probe" },
	  "", "(string):1: resolver 'reservation': missing required key 'secret_file'", CR_ERR_CONFIG },
	{ "timeout-zero", SECRET " timeout = 0.0;", { NULL }, NULL, { "probe" },
	  "", "(string):1: resolver 'reservation': key 'timeout' is 0, out of its range 0.1..2592000", CR_ERR_CONFIG },
	{ NULL }
};
/* clang-format on */

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("/reservation", "resolvers/reservation.so", cases);
	return g_test_run();
}
