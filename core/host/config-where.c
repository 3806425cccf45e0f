/* SPDX-License-Identifier: MIT */
/*
 * config-where.c - where a config setting was written, the bottom of the
 * config reader (config.c drives it; config-text.c and config-keys.c are
 * the helpers above this file): a config's display name (its file, or
 * "(built-in auto)"), the path an @include'd file was read from, and the
 * FILE:LINE of a setting (cfg_file_of, cfg_line_of, AT), which every
 * config message, the loader's messages and the host table's cfg_file /
 * cfg_line slots give. It calls no other config file.
 */
#include <glib.h>

#include "host/host-private.h"

/* A config's display name (file or "(built-in auto)") rides on the root
 * setting's hook; libconfig 1.5 has no per-config hook. */
void config_name_set(config_t *cfg, const char *name)
{
	config_setting_set_hook(config_root_setting(cfg), g_strdup(name));
}

const char *config_name_get(const config_t *cfg)
{
	return config_setting_get_hook(config_root_setting(cfg));
}

/* libconfig names a setting of an @include'd file by the name the
 * directive wrote; name it by the path it was read from (DIR/NAME, as
 * config-text.c lists it), interned: names live as long as the process,
 * like libconfig's own. */
const char *config_include_path(const config_t *cfg, const char *f)
{
	const char *dir = cfg != NULL ? config_get_include_dir(cfg) : NULL;
	char *full;
	const char *interned;

	if (f == NULL || dir == NULL || g_path_is_absolute(f))
		return f;
	full = g_strconcat(dir, "/", f, NULL);
	interned = g_intern_string(full);
	g_free(full);
	return interned;
}

const char *cfg_file_of(const config_setting_t *s)
{
	const char *f = s != NULL ? config_setting_source_file(s) : NULL;

	if (f != NULL)
		return config_include_path(s->config, f);
	if (s != NULL && s->config != NULL && config_name_get(s->config) != NULL)
		return config_name_get(s->config);
	return "(built-in)";
}

int cfg_line_of(const config_setting_t *s)
{
	return s != NULL ? (int)config_setting_source_line(s) : 0;
}
