/* SPDX-License-Identifier: MIT */
/*
 * rsv-proto.c - tags, hex nonces and the secret file of the reservation
 * protocol (rsv-proto.h). HMAC-SHA256 is GLib's GHmac.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "rsv-proto.h"

void rsv_proto_tag(const unsigned char *secret, size_t secret_len, const unsigned char *snonce,
		   const unsigned char *cnonce, char dir, uint64_t seq, const void *json,
		   size_t len, unsigned char out[RSV_TAG_LEN])
{
	GHmac *h = g_hmac_new(G_CHECKSUM_SHA256, secret, secret_len);
	gsize olen = RSV_TAG_LEN;

	if (snonce != NULL) {
		unsigned char be[8];

		for (int i = 0; i < 8; i++)
			be[i] = (unsigned char)(seq >> (8 * (7 - i)));
		g_hmac_update(h, (const guchar *)RSV_LABEL, sizeof(RSV_LABEL) - 1);
		g_hmac_update(h, (const guchar *)&dir, 1);
		g_hmac_update(h, snonce, RSV_NONCE_LEN);
		g_hmac_update(h, cnonce, RSV_NONCE_LEN);
		g_hmac_update(h, be, sizeof(be));
	}
	g_hmac_update(h, json, (gssize)len);
	g_hmac_get_digest(h, out, &olen);
	g_hmac_unref(h);
}

bool rsv_proto_tag_equal(const unsigned char *a, const unsigned char *b)
{
	unsigned char diff = 0;

	for (size_t i = 0; i < RSV_TAG_LEN; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

void rsv_proto_hex(const unsigned char *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

bool rsv_proto_unhex(const char *s, unsigned char *out, size_t n)
{
	if (s == NULL || strlen(s) != 2 * n)
		return false;
	for (size_t i = 0; i < n; i++) {
		int hi = g_ascii_xdigit_value(s[2 * i]), lo = g_ascii_xdigit_value(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return true;
}

/* The checks are on the file opened (fstat), so a symlink (a Kubernetes
 * secret volume's files are symlinks into a ..data directory) is judged
 * by its target. Owner: this user, or root (a mounted secret). */
static const char *secret_problem(const struct stat *sb, char *buf, size_t n)
{
	if (!S_ISREG(sb->st_mode))
		return "not a regular file";
	if ((sb->st_mode & 077) != 0)
		return "readable by group or others (chmod 600)";
	if (sb->st_uid != geteuid() && sb->st_uid != 0) {
		snprintf(buf, n, "owned by uid %u, neither this user (uid %u) nor root",
			 (unsigned)sb->st_uid, (unsigned)geteuid());
		return buf;
	}
	if (sb->st_size < RSV_SECRET_MIN)
		return "shorter than 16 bytes";
	if (sb->st_size > RSV_SECRET_MAX)
		return "longer than 64 KiB";
	return NULL;
}

/*
 * Opened without blocking (a FIFO would wait for a writer forever) and
 * without becoming a controlling terminal; symlinks are followed and the
 * file they lead to is what secret_problem() checks.
 */
unsigned char *rsv_proto_secret_load(const char *path, size_t *len, char *why, size_t why_size)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	unsigned char *secret = NULL;
	const char *problem;
	char owner[96];
	struct stat sb;
	ssize_t n = -1;

	if (fd < 0) {
		snprintf(why, why_size, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &sb) != 0) {
		snprintf(why, why_size, "%s", strerror(errno));
	} else if ((problem = secret_problem(&sb, owner, sizeof(owner))) != NULL) {
		snprintf(why, why_size, "%s", problem);
	} else {
		secret = g_malloc((gsize)sb.st_size);
		do
			n = read(fd, secret, (size_t)sb.st_size);
		while (n < 0 && errno == EINTR);
		if (n != sb.st_size) {
			snprintf(why, why_size, "short read");
			rsv_proto_secret_free(secret, (size_t)sb.st_size);
			secret = NULL;
		}
	}
	close(fd);
	if (secret != NULL)
		*len = (size_t)n;
	return secret;
}

void rsv_proto_secret_free(unsigned char *secret, size_t len)
{
	if (secret == NULL)
		return;
	/* volatile: the overwrite must not be optimised away. */
	for (volatile unsigned char *p = secret; len > 0; len--)
		*p++ = 0;
	g_free(secret);
}
