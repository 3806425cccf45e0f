/* SPDX-License-Identifier: MIT */
/*
 * test-gpus-slot.c - the GPU slot of a task (gpus_slot), TFoS's
 * get_gpus with tf-semantics §14.18's fix: slot = local index mod
 * (available div n), always n whole GPUs. TFoS's own answers for the
 * same inputs are in the comments where they differ.
 */
#include <glib.h>

#include "pipeline/pipeline-private.h"

typedef struct slot_case {
	size_t available;
	int64_t n, local;
	bool ok;
	size_t first;
} slot_case;

/* clang-format off */
static const slot_case cases[] = {
	{ 4, 1, 0, true, 0 }, { 4, 1, 3, true, 3 }, { 4, 1, 5, true, 1 },
	{ 4, 2, 0, true, 0 }, { 4, 2, 1, true, 2 },
	{ 4, 2, 3, true, 2 },  /* TFoS: idx = 3*2 % 4 = 2, slice [4:6] = [] */
	{ 4, 3, 1, true, 0 },  /* TFoS: idx = 3 % 4 = 3, slice [9:12] = [] */
	{ 8, 2, 5, true, 2 }, { 3, 2, 1, true, 0 }, { 2, 2, 7, true, 0 },
	{ 1, 2, 0, false, 0 }, { 0, 1, 0, false, 0 },
	{ 4, 0, 0, false, 0 },  /* n = 0 is handled before: CUDA_VISIBLE_DEVICES="" */
	{ 4, 1, -1, true, 0 },
};
/* clang-format on */

static void test_slots(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		const slot_case *c = &cases[i];
		size_t first = 99;
		bool ok = gpus_slot(c->available, c->n, c->local, &first);

		g_test_message("available %zu, n %lld, local %lld", c->available, (long long)c->n,
			       (long long)c->local);
		g_assert_cmpint(ok, ==, c->ok);
		if (c->ok)
			g_assert_cmpuint(first, ==, c->first);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/gpus/slots", test_slots);
	return g_test_run();
}
