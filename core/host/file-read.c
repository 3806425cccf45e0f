/* SPDX-License-Identifier: MIT */
/*
 * file-read.c - the one checked way the host reads a file (issue 27 item 1):
 * opened without blocking and without becoming the controlling terminal,
 * checked with fstat before a byte is read, and read up to a cap. A FIFO
 * (whose open or read would wait for a writer forever), a device (/dev/zero
 * never ends), a socket or a directory is refused at once. A symlink is
 * followed: what is checked is the file opened. The config file
 * (config-text.c) and every file a plugin reads (io-real.c, and the test
 * host's rooted paths) come through here; each caller words the message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "host/io.h"

file_read_outcome file_read_checked(const char *path, size_t max, char **data, size_t *len,
				    int *errnum)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	file_read_outcome out = FILE_READ_OK;
	size_t cap = 4096, n = 0;
	char *buf = NULL;
	struct stat sb;

	*data = NULL;
	*errnum = 0;
	if (fd < 0) {
		*errnum = errno;
		return FILE_READ_ERRNO;
	}
	if (fstat(fd, &sb) != 0) {
		*errnum = errno;
		out = FILE_READ_ERRNO;
		goto done;
	}
	if (S_ISDIR(sb.st_mode)) { /* what read() would say */
		*errnum = EISDIR;
		out = FILE_READ_ERRNO;
		goto done;
	}
	if (!S_ISREG(sb.st_mode)) {
		out = FILE_READ_NOT_REGULAR;
		goto done;
	}
	/* A regular file already over the cap is refused before a byte is
	 * read (a 100 MB hosts file costs nothing); a size up to 64 KiB may be
	 * sysfs' 4096 for a short attribute. Otherwise st_size is no
	 * guide (/proc says 0, /sys 4096): the cap is also on what is read. */
	if ((uintmax_t)sb.st_size > (uintmax_t)max && sb.st_size > 65536) {
		out = FILE_READ_TOO_BIG;
		goto done;
	}
	buf = g_malloc(cap + 1);
	for (;;) {
		ssize_t got;

		if (n == cap) {
			cap *= 2;
			buf = g_realloc(buf, cap + 1);
		}
		/* At most one byte past @max: a file that grew since fstat is caught. */
		got = read(fd, buf + n, MIN(cap - n, max + 1 - n));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			*errnum = errno;
			out = FILE_READ_ERRNO;
			goto done;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > max) {
			out = FILE_READ_TOO_BIG;
			goto done;
		}
	}
	buf[n] = '\0';
	*data = buf;
	buf = NULL;
	if (len != NULL)
		*len = n;
done:
	g_free(buf);
	close(fd);
	return out;
}
