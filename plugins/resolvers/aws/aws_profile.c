/* SPDX-License-Identifier: MIT */
/*
 * aws_profile.c - ~/.aws/config and ~/.aws/credentials.
 *
 * The files are read the way botocore reads them (configloader.py over
 * Python's RawConfigParser), not with GKeyFile, whose dialect differs:
 *   - `[profile NAME]` and `[default]` are profiles in the config file,
 *     `[NAME]` in the credentials file; other sections (`[sso-session X]`,
 *     `[services X]`, `[preview]`) are kept out of the profile map;
 *   - whole-line comments start with `#` or `;` (after any indentation);
 *     there are no inline comments: `region = us-east-1 # x` keeps the `#`;
 *   - `key = value` or `key: value`, keys lower-cased, values stripped;
 *   - a line indented deeper than its key continues the value, blank
 *     lines between kept (`s3 =` followed by indented
 *     `max_concurrent_requests = 10` lines is a nested section: its lines
 *     must have a `=`; its text is kept as the value, which nothing here
 *     reads);
 *   - `[profile NAME]` is split as a shell would (botocore's shlex.split):
 *     `[profile "my name"]` names "my name"; a later section naming the
 *     same profile (`[default]`, `[profile default]`) replaces the earlier;
 *   - a key outside any section, a line without `=`/`:` or without a key,
 *     a repeated key in a section or a repeated section are errors, as in
 *     botocore, naming FILE:LINE.
 * The profile map merges both files: the credentials file's keys override
 * the config file's for a profile of the same name (botocore's
 * session.full_config). A missing file is an empty file. Values are wiped
 * when freed: the credentials file holds secret keys.
 */
#include <string.h>

#include <glib.h>

#include "aws_creds.h"

struct aws_profiles {
	char *name; /* the selected profile */
	bool name_explicit;
	char *path[2];           /* AWS_SRC_CONFIG, AWS_SRC_CREDENTIALS; NULL = no HOME */
	GHashTable *profiles[2]; /* name → GHashTable key → value */
};

static void aws_wipe_value(gpointer v)
{
	char *s = v;

	if (s) {
		explicit_bzero(s, strlen(s));
		g_free(s);
	}
}

static GHashTable *aws_section_new(void)
{
	return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, aws_wipe_value);
}

/* The profile a section header names, or NULL when it is not a profile:
 * the config file's "profile NAME" (split on whitespace, as botocore) and
 * "default"; any name in the credentials file. */
static char *aws_section_profile(const char *header, bool config_file)
{
	char **parts = NULL;
	char *name = NULL;
	int n = 0;

	if (!config_file || strcmp(header, "default") == 0)
		return g_strdup(header);
	/* botocore: key.startswith("profile"), then shlex.split into exactly
	 * two words, the second the name ("profile \"my name\"" works too). */
	if (!g_str_has_prefix(header, "profile") || !g_shell_parse_argv(header, &n, &parts, NULL))
		return NULL;
	if (n == 2)
		name = g_strdup(parts[1]);
	g_strfreev(parts);
	return name;
}

struct aws_ini_state {
	const char *path;
	bool config_file;
	GHashTable *out;     /* profile → section */
	GHashTable *seen;    /* every section header seen (duplicates) */
	GHashTable *section; /* current section's keys, or NULL (not a profile) */
	bool in_section;     /* a header was seen */
	char *key;           /* last key, for continuation lines */
	size_t key_indent;
	bool nested; /* the key's own line had no value: `s3 =` */
	int blanks;  /* blank lines since, kept if the value goes on */
};

static cr_status aws_ini_header(struct aws_ini_state *st, const cr_host_api *h, const char *line,
				int lineno, cr_error *err)
{
	const char *end = strrchr(line, ']');
	char *header = g_strndup(line + 1, (gsize)(end - line - 1));
	char *profile;

	if (!g_hash_table_add(st->seen, g_strdup(header))) {
		cr_status rc = h->error_set(err, CR_ERR_CONFIG, "%s:%d: section [%s] appears twice",
					    st->path, lineno, header);

		g_free(header);
		return rc;
	}
	st->in_section = true;
	g_clear_pointer(&st->key, g_free);
	profile = aws_section_profile(header, st->config_file);
	g_free(header);
	st->section = NULL;
	if (!profile)
		return CR_OK;
	/* [default] then [profile default]: the later one replaces the earlier,
	 * as botocore's build_profile_map does. */
	st->section = aws_section_new();
	g_hash_table_replace(st->out, profile, st->section);
	return CR_OK;
}

static cr_status aws_ini_option(struct aws_ini_state *st, const cr_host_api *h, const char *line,
				size_t indent, int lineno, cr_error *err)
{
	size_t cut = strcspn(line, "=:");
	char *raw, *key, *value;

	if (!st->in_section)
		return h->error_set(err, CR_ERR_CONFIG, "%s:%d: a key before any [section]",
				    st->path, lineno);
	if (line[cut] == '\0' || cut == 0)
		return h->error_set(err, CR_ERR_CONFIG, "%s:%d: expected 'key = value'", st->path,
				    lineno);
	raw = g_strndup(line, cut);
	key = g_ascii_strdown(g_strstrip(raw), -1);
	g_free(raw);
	value = g_strstrip(g_strdup(line + cut + 1));
	if (st->section && g_hash_table_contains(st->section, key)) {
		cr_status rc = h->error_set(err, CR_ERR_CONFIG, "%s:%d: key '%s' appears twice",
					    st->path, lineno, key);

		g_free(key);
		aws_wipe_value(value);
		return rc;
	}
	g_free(st->key);
	st->key = g_strdup(key);
	st->key_indent = indent;
	st->nested = *value == '\0';
	if (st->section)
		g_hash_table_insert(st->section, key, value);
	else {
		g_free(key);
		aws_wipe_value(value);
	}
	return CR_OK;
}

/* A line indented deeper than its key continues the value, after the blank
 * lines seen since (RawConfigParser keeps them). A nested section's lines
 * must be `key = value` (botocore's _parse_nested). */
static cr_status aws_ini_continue(struct aws_ini_state *st, const cr_host_api *h, const char *text,
				  int lineno, cr_error *err)
{
	char *old, *joined;

	if (st->nested && !strchr(text, '='))
		return h->error_set(err, CR_ERR_CONFIG,
				    "%s:%d: expected 'key = value' in the nested section '%s'",
				    st->path, lineno, st->key);
	if (st->section) {
		old = g_hash_table_lookup(st->section, st->key);
		joined = g_strdup_printf("%s%.*s\n%s", old ? old : "", st->blanks,
					 "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n", text);
		g_hash_table_insert(st->section, g_strdup(st->key), joined);
	}
	st->blanks = 0;
	return CR_OK;
}

static cr_status aws_ini_line(struct aws_ini_state *st, const cr_host_api *h, char *line,
			      int lineno, cr_error *err)
{
	size_t indent = strspn(line, " \t");
	char *text = g_strstrip(line);

	if (*text == '#' || *text == ';')
		return CR_OK;
	if (*text == '\0') {
		st->blanks += st->key && st->blanks < 16;
		return CR_OK;
	}
	if (st->key && indent > st->key_indent)
		return aws_ini_continue(st, h, text, lineno, err);
	st->blanks = 0;
	if (*text == '[' && strrchr(text, ']') > text + 1)
		return aws_ini_header(st, h, text, lineno, err);
	return aws_ini_option(st, h, text, indent, lineno, err);
}

/**
 * aws_ini_parse:
 * @h: the host table (messages).
 * @path: file name for messages.
 * @text: the file's contents (modified: lines are cut in place).
 * @config_file: the config file (`[profile NAME]`) or a credentials file.
 * @out: (out) (transfer full) profile name → (key → value).
 *
 * Returns: CR_OK or CR_ERR_CONFIG naming @path:LINE.
 */
cr_status aws_ini_parse(const cr_host_api *h, const char *path, char *text, bool config_file,
			GHashTable **out, cr_error *err)
{
	struct aws_ini_state st = { path, config_file, NULL, NULL, NULL, false, NULL, 0, false, 0 };
	cr_status rc = CR_OK;
	char *line = text;
	int lineno = 0;

	st.out = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
				       (GDestroyNotify)g_hash_table_unref);
	st.seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	while (line && rc == CR_OK) {
		char *next = strchr(line, '\n');

		if (next)
			*next++ = '\0';
		lineno++;
		rc = aws_ini_line(&st, h, line, lineno, err);
		line = next;
	}
	g_free(st.key);
	g_hash_table_unref(st.seen);
	if (rc != CR_OK) {
		g_hash_table_unref(st.out);
		st.out = NULL;
	}
	*out = st.out;
	return rc;
}

/* AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE, a leading "~/" expanded
 * with HOME; else ~/.aws/NAME; NULL when HOME is unset too. */
static char *aws_file_path(const struct aws_env *env, const char *var, const char *name)
{
	const char *set = env->host->getenv(env->ctx, var);
	const char *home = env->host->getenv(env->ctx, "HOME");

	if (set && *set) {
		if (g_str_has_prefix(set, "~/") && home)
			return g_build_filename(home, set + 2, NULL);
		return g_strdup(set);
	}
	return home && *home ? g_build_filename(home, ".aws", name, NULL) : NULL;
}

static cr_status aws_file_load(const struct aws_env *env, const char *path, bool config_file,
			       GHashTable **out, cr_error *err)
{
	char *data = NULL;
	size_t len = 0;
	cr_status rc;

	*out = NULL;
	if (path) {
		rc = env->host->read_file(env->ctx, path, 0, &data, &len, err);
		if (rc == CR_ERR_NOT_FOUND)
			data = NULL;
		else if (rc != CR_OK)
			return rc;
	}
	if (!data) {
		*out = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					     (GDestroyNotify)g_hash_table_unref);
		return CR_OK;
	}
	rc = aws_ini_parse(env->host, path, data, config_file, out, err);
	explicit_bzero(data, len);
	env->host->free(data);
	return rc;
}

void aws_profiles_free(struct aws_profiles *p)
{
	if (!p)
		return;
	for (int i = 0; i < 2; i++) {
		g_free(p->path[i]);
		if (p->profiles[i])
			g_hash_table_unref(p->profiles[i]);
	}
	g_free(p->name);
	g_free(p);
}

cr_status aws_profiles_load(const struct aws_env *env, struct aws_profiles **out, cr_error *err)
{
	struct aws_profiles *p = g_new0(struct aws_profiles, 1);
	const char *name = env->profile;
	cr_status rc;

	if (!name || !*name)
		name = env->host->getenv(env->ctx, "AWS_PROFILE");
	p->name_explicit = name && *name;
	p->name = g_strdup(p->name_explicit ? name : "default");
	p->path[AWS_SRC_CONFIG] = aws_file_path(env, "AWS_CONFIG_FILE", "config");
	p->path[AWS_SRC_CREDENTIALS] =
		aws_file_path(env, "AWS_SHARED_CREDENTIALS_FILE", "credentials");
	rc = aws_file_load(env, p->path[AWS_SRC_CONFIG], true, &p->profiles[AWS_SRC_CONFIG], err);
	if (rc == CR_OK)
		rc = aws_file_load(env, p->path[AWS_SRC_CREDENTIALS], false,
				   &p->profiles[AWS_SRC_CREDENTIALS], err);
	if (rc == CR_OK && p->name_explicit && strcmp(p->name, "default") != 0 &&
	    !aws_profile_exists(p, p->name))
		rc = env->host->error_set(
			err, CR_ERR_CONFIG, "AWS profile '%s' is in neither %s nor %s", p->name,
			p->path[AWS_SRC_CONFIG] ? p->path[AWS_SRC_CONFIG] : "(no HOME)",
			p->path[AWS_SRC_CREDENTIALS] ? p->path[AWS_SRC_CREDENTIALS] : "(no HOME)");
	if (rc != CR_OK) {
		aws_profiles_free(p);
		p = NULL;
	}
	*out = p;
	return rc;
}

const char *aws_profiles_name(const struct aws_profiles *p)
{
	return p->name;
}

const char *aws_profiles_path(const struct aws_profiles *p, enum aws_src src)
{
	return src == AWS_SRC_CREDENTIALS ? p->path[AWS_SRC_CREDENTIALS] : p->path[AWS_SRC_CONFIG];
}

bool aws_profile_exists(const struct aws_profiles *p, const char *profile)
{
	return g_hash_table_contains(p->profiles[AWS_SRC_CONFIG], profile) ||
	       g_hash_table_contains(p->profiles[AWS_SRC_CREDENTIALS], profile);
}

const char *aws_profile_get(const struct aws_profiles *p, const char *profile, enum aws_src src,
			    const char *key)
{
	GHashTable *s;
	const char *v = NULL;

	if (src != AWS_SRC_CONFIG) {
		s = g_hash_table_lookup(p->profiles[AWS_SRC_CREDENTIALS], profile);
		v = s ? g_hash_table_lookup(s, key) : NULL;
		if (v || src == AWS_SRC_CREDENTIALS)
			return v;
	}
	s = g_hash_table_lookup(p->profiles[AWS_SRC_CONFIG], profile);
	return s ? g_hash_table_lookup(s, key) : NULL;
}

cr_status aws_profile_region(const struct aws_env *env, char **region, cr_error *err)
{
	struct aws_profiles *p = NULL;
	const char *v;
	cr_status rc;

	*region = NULL;
	rc = aws_profiles_load(env, &p, err);
	if (rc != CR_OK)
		return rc;
	v = aws_profile_get(p, p->name, AWS_SRC_ANY, "region");
	if (v && *v)
		*region = g_strdup(v);
	else
		rc = env->host->error_set(err, CR_ERR_NOT_FOUND, "AWS profile '%s' has no region",
					  p->name);
	aws_profiles_free(p);
	return rc;
}
