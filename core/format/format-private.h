/* SPDX-License-Identifier: MIT */
/*
 * format-frameworks.h - the framework formats of format-frameworks.c, for the
 * formats[] table of format.c. Private to the library.
 */
#ifndef CR_FORMAT_FRAMEWORKS_H
#define CR_FORMAT_FRAMEWORKS_H

#include <glib.h>

#include <cluster-resolver/cluster-resolver.h>

cr_status fmt_env(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_torch(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_torchrun(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_jax(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_hostfile(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_horovod(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_hosts(const cr_result *r, const char *const *options, GString *out, cr_error *err);

#endif /* CR_FORMAT_FRAMEWORKS_H */
