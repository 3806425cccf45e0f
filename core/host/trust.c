/* SPDX-License-Identifier: MIT */
/*
 * trust.c - whether a file may be mapped and run: a plugin, or a vendor
 * library a plugin names by path (host->dl_open). Both the loader and the
 * host table ask; neither asks the other.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "host/host-private.h"

/* Owned by root or by whoever runs us: a plugin file or directory of
 * anyone else's could be swapped under a process that may run as root
 * (Slurm prologs, init containers). */
static bool trusted_owner(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

static cr_status untrusted_owner(cr_error *err, const char *kind, const char *path,
				 const char *what, const struct stat *st)
{
	return error_set(err, CR_ERR_PLUGIN,
			 "refusing %s %s: %s is owned by uid %u, neither root nor this user", kind,
			 path, what, (unsigned)st->st_uid);
}

/*
 * Every directory above the plugin's, up to /: trusted owner, and not
 * writable by others unless sticky (/tmp): whoever may rename an ancestor
 * may swap the whole tree below it.
 */
static cr_status check_ancestors(const char *kind, const char *path, const char *dir, cr_error *err)
{
	char *abs = g_path_is_absolute(dir) ? g_strdup(dir) : g_canonicalize_filename(dir, NULL);
	char *up = g_path_get_dirname(abs);
	cr_status rc = CR_OK;
	struct stat st;

	while (rc == CR_OK) {
		if (stat(up, &st) != 0)
			rc = error_set(err, CR_ERR_PLUGIN, "%s %s: directory %s: %s", kind, path,
				       up, g_strerror(errno));
		else if (!trusted_owner(&st))
			rc = untrusted_owner(err, kind, path, up, &st);
		else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
			rc = error_set(err, CR_ERR_PLUGIN,
				       "refusing %s %s: directory %s above it is group- or "
				       "world-writable without the sticky bit (mode %04o)",
				       kind, path, up, (unsigned)(st.st_mode & 07777));
		if (strcmp(up, "/") == 0)
			break;
		char *next = g_path_get_dirname(up);

		g_free(up);
		up = next;
	}
	g_free(up);
	g_free(abs);
	return rc;
}

/* The checks on a file the process will map and run: a plugin (@kind
 * "plugin") or a library a plugin names by path ("library"). */
cr_status loader_check_trusted(const char *kind, const char *path, cr_error *err)
{
	struct stat st;
	char *dir;
	cr_status rc = CR_OK;

	if (lstat(path, &st) != 0)
		return error_set(err, errno == ENOENT ? CR_ERR_NOT_FOUND : CR_ERR_PLUGIN,
				 "%s %s: %s", kind, path, g_strerror(errno));
	if (S_ISLNK(st.st_mode))
		return error_set(err, CR_ERR_PLUGIN, "refusing %s %s: it is a symbolic link", kind,
				 path);
	if (!S_ISREG(st.st_mode))
		return error_set(err, CR_ERR_PLUGIN, "refusing %s %s: not a regular file", kind,
				 path);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return error_set(err, CR_ERR_PLUGIN,
				 "refusing %s %s: it is group- or world-writable (mode %04o)", kind,
				 path, (unsigned)(st.st_mode & 07777));
	if (!trusted_owner(&st))
		return untrusted_owner(err, kind, path, "the file", &st);
	dir = g_path_get_dirname(path);
	if (stat(dir, &st) != 0)
		rc = error_set(err, CR_ERR_PLUGIN, "%s %s: directory %s: %s", kind, path, dir,
			       g_strerror(errno));
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		rc = error_set(err, CR_ERR_PLUGIN,
			       "refusing %s %s: its directory %s is group- or world-writable "
			       "(mode %04o)",
			       kind, path, dir, (unsigned)(st.st_mode & 07777));
	else if (!trusted_owner(&st))
		rc = untrusted_owner(err, kind, path, dir, &st);
	if (rc == CR_OK)
		rc = check_ancestors(kind, path, dir, err);
	g_free(dir);
	return rc;
}
