/* SPDX-License-Identifier: MIT */
/*
 * broken.c - deliberately broken plugins, one per loader refusal. Each
 * target compiles this file with one BROKEN_* macro defined; see
 * tests/abi/CMakeLists.txt.
 */
#include <stddef.h>

#include <cluster-resolver/plugin.h>

#ifndef BROKEN_NAME
#define BROKEN_NAME "broken"
#endif

static cr_status broken_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state,
			       cr_error *err)
{
#ifdef BROKEN_CREATE
	return cr_host->error_set(err, CR_ERR_BACKEND, "cannot reach the moon");
#else
	*state = ctx;
	return CR_OK;
#endif
}

static void broken_destroy(void *state)
{
	(void)state;
}

#if !defined(BROKEN_KIND) && !defined(BROKEN_NULL_OP)
static cr_status broken_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b,
				cr_error *err)
{
	return cr_host->result_append_task(b, "broken", "b:1", err);
}
#endif

#ifdef BROKEN_KIND
static cr_status broken_enumerate(void *state, cr_plugin_ctx *ctx, cr_accel_list *list,
				  cr_error *err)
{
	return CR_DECLINED;
}

static const cr_accel_ops broken_accel_ops = {
	.struct_size = sizeof(cr_accel_ops),
	.create = broken_create,
	.destroy = broken_destroy,
	.enumerate = broken_enumerate,
};
#else
static const cr_resolver_ops broken_ops = {
#ifdef BROKEN_SHORT_OPS
	.struct_size = offsetof(cr_resolver_ops, master),
#else
	.struct_size = sizeof(cr_resolver_ops),
#endif
	.create = broken_create,
	.destroy = broken_destroy,
#ifndef BROKEN_NULL_OP
	.resolve = broken_resolve,
#endif
};
#endif

#if defined(BROKEN_HUGE_OPTION) || defined(BROKEN_UNTERMINATED)
/* More entries than a host reads, none of them the terminator. */
#define BROKEN_OPT(n) CR_OPTION("opt" #n, CR_OPT_INT, NULL, 0, "an option")
#define BROKEN_OPT16(n)                                                                            \
	BROKEN_OPT(n##0), BROKEN_OPT(n##1), BROKEN_OPT(n##2), BROKEN_OPT(n##3), BROKEN_OPT(n##4),  \
		BROKEN_OPT(n##5), BROKEN_OPT(n##6), BROKEN_OPT(n##7), BROKEN_OPT(n##8),            \
		BROKEN_OPT(n##9), BROKEN_OPT(n##a), BROKEN_OPT(n##b), BROKEN_OPT(n##c),            \
		BROKEN_OPT(n##d), BROKEN_OPT(n##e), BROKEN_OPT(n##f)
static const cr_option broken_options[] = {
	BROKEN_OPT16(0), BROKEN_OPT16(1), BROKEN_OPT16(2), BROKEN_OPT16(3), BROKEN_OPT16(4),
	BROKEN_OPT16(5), BROKEN_OPT16(6), BROKEN_OPT16(7), BROKEN_OPT16(8), BROKEN_OPT16(9),
	BROKEN_OPT16(a), BROKEN_OPT16(b), BROKEN_OPT16(c), BROKEN_OPT16(d), BROKEN_OPT16(e),
	BROKEN_OPT16(f), BROKEN_OPT(g),
};
#endif

static const cr_plugin_desc broken_desc = {
#ifdef BROKEN_SHORT_DESC
	.struct_size = offsetof(cr_plugin_desc, flags),
#else
	.struct_size = sizeof(cr_plugin_desc),
#endif
#ifdef BROKEN_MAJOR
	.abi_major = CR_ABI_MAJOR + 1,
#else
	.abi_major = CR_ABI_MAJOR,
#endif
#ifdef BROKEN_MINOR
	.abi_minor = CR_ABI_MINOR + 1,
#else
	.abi_minor = CR_ABI_MINOR,
#endif
#ifdef BROKEN_KIND
	.kind = CR_PLUGIN_ACCELERATOR,
	.accelerator = &broken_accel_ops,
#else
	.kind = CR_PLUGIN_RESOLVER,
	.resolver = &broken_ops,
#endif
	.name = BROKEN_NAME,
	.version = "0.0-broken",
	.description = "a deliberately broken plugin",
#if defined(BROKEN_HUGE_OPTION) || defined(BROKEN_UNTERMINATED)
	.options = broken_options,
#endif
#ifdef BROKEN_HUGE_OPTION
	.option_size = (size_t)1 << 30,
#else
	.option_size = sizeof(cr_option),
#endif
};

#if defined(BROKEN_NO_ENTRY)
CR_HIDDEN const cr_host_api *cr_host = NULL;
/* Exported, but under the wrong name. */
__attribute__((visibility("default"))) const cr_plugin_desc *plugin_entry(void);
__attribute__((visibility("default"))) const cr_plugin_desc *plugin_entry(void)
{
	return &broken_desc;
}
#elif defined(BROKEN_ENTRY_ERROR)
CR_HIDDEN const cr_host_api *cr_host = NULL;
CR_EXPORT cr_status cr_plugin_entry(const cr_host_api *host, uint32_t major, uint32_t minor,
				    const cr_plugin_desc **desc, cr_error *err);
CR_EXPORT cr_status cr_plugin_entry(const cr_host_api *host, uint32_t major, uint32_t minor,
				    const cr_plugin_desc **desc, cr_error *err)
{
	(void)broken_desc;
	return host->error_set(err, CR_ERR_ABI, "needs a host built with FROBNICATE=1");
}
#else
CR_PLUGIN_DEFINE(broken_desc)
#endif
