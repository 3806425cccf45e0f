/* SPDX-License-Identifier: MIT */
/*
 * retryafter.c - Retry-After in both forms; see httpanswer.h.
 */
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "httpanswer.h"

static int ra_month(const char *name)
{
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

	for (int i = 0; i < 12; i++)
		if (strcmp(name, months[i]) == 0)
			return i + 1;
	return 0;
}

/* Seconds since the epoch of an HTTP-date, or -1. */
static int64_t ra_date(const char *v)
{
	char wday[16], mon[4], zone[4];
	int d = 0, y = 0, h = 0, mi = 0, s = 0, n = 0;
	GDateTime *dt;
	int64_t t;

	mon[0] = '\0';
	/* IMF-fixdate, then RFC 850, then asctime. */
	if (sscanf(v, "%15[A-Za-z], %2d %3s %4d %2d:%2d:%2d %3s%n", wday, &d, mon, &y, &h, &mi, &s,
		   zone, &n) == 8 &&
	    v[n] == '\0' && strcmp(zone, "GMT") == 0) {
	} else if (sscanf(v, "%15[A-Za-z], %2d-%3s-%2d %2d:%2d:%2d %3s%n", wday, &d, mon, &y, &h,
			  &mi, &s, zone, &n) == 8 &&
		   v[n] == '\0' && strcmp(zone, "GMT") == 0 && strchr(v, '-') != NULL) {
		y += y < 70 ? 2000 : 1900;
	} else if (sscanf(v, "%3s %3s %2d %2d:%2d:%2d %4d%n", wday, mon, &d, &h, &mi, &s, &y, &n) ==
			   7 &&
		   v[n] == '\0') {
	} else {
		return -1;
	}
	if (ra_month(mon) == 0 || y < 1970 || y > 9999)
		return -1;
	dt = g_date_time_new_utc(y, ra_month(mon), d, h, mi, s);
	if (dt == NULL)
		return -1;
	t = g_date_time_to_unix(dt);
	g_date_time_unref(dt);
	return t;
}

bool retry_after_ms(const char *value, int64_t now_unix_ms, int64_t *ms)
{
	const char *p = value;
	int64_t t;

	if (value == NULL || *value == '\0')
		return false;
	while (g_ascii_isdigit(*p))
		p++;
	if (*p == '\0') {
		guint64 sec = g_ascii_strtoull(value, NULL, 10); /* G_MAXUINT64 on overflow */

		*ms = sec > (guint64)(INT64_MAX / 1000) ? INT64_MAX : (int64_t)sec * 1000;
		return true;
	}
	t = ra_date(value);
	if (t < 0)
		return false;
	*ms = t * 1000 > now_unix_ms ? t * 1000 - now_unix_ms : 0;
	return true;
}
