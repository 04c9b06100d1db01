/*
 * timeparse.c - the readers of the stamps log lines carry (pm_in_*: input.h) and the one
 * way times are written (pm_time_format); FORMATS.md, "Times".  Which stamp dates a whole
 * line, past its prefixes, is prefix.c's (pm_time_parse).
 *
 * Calendar arithmetic is done here (days from the civil date), not with mktime, strptime or
 * the C library's month names: the result never depends on TZ or the locale.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "input.h"
#include "internal.h"

static const char months[12][4] = {"jan", "feb", "mar", "apr", "may", "jun",
				   "jul", "aug", "sep", "oct", "nov", "dec"};

static const char wdays[7][4] = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static int mdays(int y, int m)
{
	static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : dm[m - 1];
}

/* Epoch seconds of a UTC date and time; -1 when a field is out of range. */
static int civil(int y, int mo, int d, int h, int mi, int s, double *t)
{
	if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > mdays(y, mo) || h > 23 ||
	    mi > 59 || s > 60)
		return -1;
	*t = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600 + mi * 60 + s;
	return 0;
}

/* N digits at S as a number, or -1. */
static int digits(const char *s, size_t n, size_t want)
{
	int v = 0;
	size_t i;

	if (n < want)
		return -1;
	for (i = 0; i < want; i++) {
		if (!pm_in_isdigit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* A three-letter name of TABLE at S: its index, or -1. */
static int name3(const char *s, size_t n, const char (*table)[4], int count)
{
	int i;

	if (n < 3)
		return -1;
	for (i = 0; i < count; i++)
		if (pm_in_lower(s[0]) == table[i][0] && pm_in_lower(s[1]) == table[i][1] &&
		    pm_in_lower(s[2]) == table[i][2])
			return i;
	return -1;
}

/* "hh:mm:ss" at S; 8 or 0. */
static size_t clock_at(const char *s, size_t n, int *h, int *mi, int *sec)
{
	if (n < 8 || s[2] != ':' || s[5] != ':')
		return 0;
	*h = digits(s, n, 2);
	*mi = digits(s + 3, n - 3, 2);
	*sec = digits(s + 6, n - 6, 2);
	return (*h < 0 || *mi < 0 || *sec < 0) ? 0 : 8;
}

/* A day of month, "30", " 3" or "3", followed by a space; bytes used before the space. */
static size_t mday_at(const char *s, size_t n, int *d)
{
	if (n >= 2 && s[0] == ' ' && pm_in_isdigit(s[1])) {
		*d = s[1] - '0';
		return 2;
	}
	if (n >= 2 && pm_in_isdigit(s[0]) && pm_in_isdigit(s[1])) {
		*d = digits(s, n, 2);
		return 2;
	}
	if (n >= 1 && pm_in_isdigit(s[0])) {
		*d = s[0] - '0';
		return 1;
	}
	return 0;
}

/* Fractional seconds at S after a '.' or ','; digits consumed (0: none). */
static size_t frac_at(const char *s, size_t n, double *f, int *ndig)
{
	double scale = 0.1;
	size_t i;

	*f = 0;
	for (i = 0; i < n && pm_in_isdigit(s[i]); i++) {
		if (i < 18) { /* beyond that, digits are below a double's precision */
			*f += (s[i] - '0') * scale;
			scale /= 10;
		}
	}
	*ndig = i > 64 ? 64 : (int)i;
	return i;
}

/* See input.h. */
size_t pm_in_iso(const char *s, size_t n, struct pm_in_stamp *st)
{
	int y, mo, d, h, mi, sec, oh, om;
	size_t p = 19, k;
	double t, f = 0;

	memset(st, 0, sizeof(*st));
	if (n < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' '))
		return 0;
	y = digits(s, n, 4);
	mo = digits(s + 5, n - 5, 2);
	d = digits(s + 8, n - 8, 2);
	if (y < 0 || mo < 0 || d < 0 || !clock_at(s + 11, n - 11, &h, &mi, &sec) ||
	    civil(y, mo, d, h, mi, sec, &t) < 0)
		return 0;
	st->t_sep = s[10] == 'T';
	if (p + 1 < n && (s[p] == '.' || s[p] == ',') && pm_in_isdigit(s[p + 1])) {
		st->frac_sep = s[p];
		k = frac_at(s + p + 1, n - p - 1, &f, &st->frac_digits);
		p += 1 + k;
	}
	if (p < n && s[p] == 'Z') {
		st->zone = true;
		p++;
	} else if (p + 1 < n && (s[p] == '+' || s[p] == '-') && pm_in_isdigit(s[p + 1])) {
		/* an offset: "+hh", "+hhmm" or "+hh:mm"; anything else there is not a stamp */
		int sign = s[p] == '-' ? -1 : 1;

		oh = digits(s + p + 1, n - p - 1, 2);
		k = p + 3;
		om = 0;
		if (k + 2 < n && s[k] == ':' && pm_in_isdigit(s[k + 1])) {
			om = digits(s + k + 1, n - k - 1, 2);
			st->colon_zone = true;
			k += 3;
		} else if (k < n && pm_in_isdigit(s[k])) {
			om = digits(s + k, n - k, 2);
			k += 2;
		}
		if (oh < 0 || oh > 23 || om < 0 || om > 59)
			return 0;
		st->zone = true;
		t -= sign * (oh * 3600 + om * 60);
		p = k;
	}
	if (p < n && pm_in_isalnum(s[p]))
		return 0;
	st->t = t + f;
	st->len = p;
	return p;
}

/* See input.h. */
size_t pm_in_syslog(const char *s, size_t n, int year, double *t)
{
	int mo, d = 0, h, mi, sec, nd;
	size_t p, k;
	double f = 0;

	mo = name3(s, n, months, 12);
	if (mo < 0 || n < 4 || s[3] != ' ')
		return 0;
	p = 4;
	k = mday_at(s + p, n - p, &d);
	if (!k)
		return 0;
	p += k;
	if (p >= n || s[p] != ' ')
		return 0;
	p++;
	if (!clock_at(s + p, n - p, &h, &mi, &sec))
		return 0;
	p += 8;
	/* journalctl -o short-precise's microseconds, rsyslog's high-precision ones */
	if (p + 1 < n && s[p] == '.' && pm_in_isdigit(s[p + 1])) {
		k = frac_at(s + p + 1, n - p - 1, &f, &nd);
		if (nd > 9)
			return 0;
		p += 1 + k;
	}
	if (p < n && s[p] != ' ')
		return 0;
	if (d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return 0;
	if (year > 0 && civil(year, mo + 1, d, h, mi, sec, t) < 0)
		return 0;
	if (year > 0)
		*t += f;
	return p;
}

/* See input.h. */
size_t pm_in_journal_full(const char *s, size_t n, struct pm_in_stamp *st)
{
	size_t p = 4, k, z = 0;

	if (n < 5 || name3(s, n, wdays, 7) < 0 || s[3] != ' ')
		return 0;
	k = pm_in_iso(s + p, n - p, st);
	/* journalctl writes the local zone's abbreviation, never a 'T' or an offset */
	if (!k || st->t_sep || st->zone || p + k + 1 >= n || s[p + k] != ' ')
		return 0;
	p += k + 1;
	while (p + z < n && z < 6 && s[p + z] >= 'A' && s[p + z] <= 'Z')
		z++;
	if (z < 2 || z > 5 || (p + z < n && s[p + z] != ' '))
		return 0;
	/* only UTC's name gives the instant; "CET" is read as the node's local time */
	st->zone = z == 3 && (!memcmp(s + p, "UTC", 3) || !memcmp(s + p, "GMT", 3));
	st->len = p + z;
	return p + z;
}

/* See input.h. */
size_t pm_in_unix(const char *s, size_t n, double *t)
{
	size_t p = 0, k;
	double v = 0, f;
	int nd;

	while (p < n && p < 11 && pm_in_isdigit(s[p]))
		v = v * 10 + (s[p++] - '0');
	if (p < 9 || p > 10 || p >= n || s[p] != '.')
		return 0;
	p++;
	k = frac_at(s + p, n - p, &f, &nd);
	if (nd != 6)
		return 0;
	p += k;
	if (p < n && s[p] != ' ')
		return 0;
	*t = v + f;
	return p;
}

/* See input.h. */
size_t pm_in_dmesg_mono(const char *s, size_t n, double *mono)
{
	size_t p = 1, k, start;
	double v = 0, f;
	int nd;

	if (n < 1 || s[0] != '[')
		return 0;
	while (p < n && p < 16 && s[p] == ' ')
		p++;
	start = p;
	while (p < n && pm_in_isdigit(s[p]) && p - start < 12)
		v = v * 10 + (s[p++] - '0');
	if (p == start || p >= n || s[p] != '.')
		return 0;
	p++;
	k = frac_at(s + p, n - p, &f, &nd);
	if (nd != 6)
		return 0;
	p += k;
	if (p >= n || s[p] != ']')
		return 0;
	*mono = v + f;
	return p + 1;
}

/* See input.h. */
size_t pm_in_dmesg_T(const char *s, size_t n, double *t)
{
	int mo, d = 0, h, mi, sec, y;
	size_t p, k;

	if (n < 2 || s[0] != '[' || name3(s + 1, n - 1, wdays, 7) < 0 || n < 5 || s[4] != ' ')
		return 0;
	p = 5;
	mo = name3(s + p, n - p, months, 12);
	if (mo < 0 || p + 3 >= n || s[p + 3] != ' ')
		return 0;
	p += 4;
	k = mday_at(s + p, n - p, &d);
	if (!k || p + k >= n || s[p + k] != ' ')
		return 0;
	p += k + 1;
	if (!clock_at(s + p, n - p, &h, &mi, &sec) || p + 8 >= n || s[p + 8] != ' ')
		return 0;
	p += 9;
	y = digits(s + p, n - p, 4);
	if (y < 0 || p + 4 >= n || s[p + 4] != ']' || civil(y, mo + 1, d, h, mi, sec, t) < 0)
		return 0;
	return p + 5;
}

/* See input.h. */
size_t pm_in_bracket_iso(const char *s, size_t n, double *t)
{
	struct pm_in_stamp st;
	size_t k;

	if (n < 2 || s[0] != '[')
		return 0;
	k = pm_in_iso(s + 1, n - 1, &st);
	if (!k || 1 + k >= n || s[1 + k] != ']')
		return 0;
	*t = st.t;
	return k + 2;
}

/* See input.h.  glog writes "E1130 03:44:00.123456 40074 file.cc:616] "; absl's logging before
 * it is initialised writes month and day as 0000 and the epoch seconds after "00:00:". */
size_t pm_in_glog(const char *s, size_t n, int year, double *t, bool *has_t)
{
	int mo, d, h, mi, sec, nd;
	double f = 0, v = 0;
	size_t p = 0, q;

	*has_t = false;
	if (n > 0 && s[0] == '[')
		p = 1;
	if (n < p + 16 || (s[p] != 'I' && s[p] != 'W' && s[p] != 'E' && s[p] != 'F'))
		return 0;
	/* newer PyTorch leaves the month unpadded: "W515" is May 15 */
	q = p + 1 + pm_in_ndigits(s + p + 1, n - p - 1);
	if ((q != p + 5 && q != p + 4) || s[q] != ' ')
		return 0;
	mo = digits(s + p + 1, n - p - 1, q - p - 3);
	d = digits(s + q - 2, n - q + 2, 2);
	if (mo < 0 || d < 0)
		return 0;
	q++;
	if (mo == 0 && d == 0 && pm_in_starts(s + q, n - q, "00:00:") &&
	    pm_in_ndigits(s + q + 6, n - q - 6) >= 9) {
		size_t k = q + 6;
		while (k < n && k < q + 18 && pm_in_isdigit(s[k]))
			v = v * 10 + (s[k++] - '0');
		if (k + 1 < n && s[k] == '.')
			k += 1 + frac_at(s + k + 1, n - k - 1, &f, &nd);
		*t = v + f;
		*has_t = true;
		q = k;
	} else {
		/* a month or day of 0 (absl before its clock is set): a wrapper without a date */
		if (!clock_at(s + q, n - q, &h, &mi, &sec))
			return 0;
		q += 8;
		if (q + 1 < n && s[q] == '.')
			q += 1 + frac_at(s + q + 1, n - q - 1, &f, &nd);
		if (year > 0 && civil(year, mo, d, h, mi, sec, t) == 0) {
			*t += f;
			*has_t = true;
		}
	}
	/* " [<thread id> ]<file>:<line>]" (newer PyTorch leaves the thread id out): bounded, no
	 * blank in the file name */
	if (q >= n || s[q] != ' ')
		return 0;
	while (q < n && q < p + 48 && s[q] == ' ')
		q++;
	if (pm_in_ndigits(s + q, n - q) && q + pm_in_ndigits(s + q, n - q) < n &&
	    s[q + pm_in_ndigits(s + q, n - q)] == ' ')
		q += pm_in_ndigits(s + q, n - q) + 1;
	for (p = q; q < n && q < p + 128 && s[q] != ']' && s[q] != ' '; q++)
		;
	if (q == p || q >= n || s[q] != ']')
		return 0;
	return q + 1;
}

/* See input.h: "09/04/2026 02:49:57" (month first, as accelerate's logging writes it). */
size_t pm_in_usdate(const char *s, size_t n, double *t)
{
	int y, mo, d, h, mi, sec, nd;
	double f = 0;
	size_t p = 19;

	if (n < 19 || s[2] != '/' || s[5] != '/' || s[10] != ' ')
		return 0;
	mo = digits(s, n, 2);
	d = digits(s + 3, n - 3, 2);
	y = digits(s + 6, n - 6, 4);
	if (mo < 0 || d < 0 || y < 0 || !clock_at(s + 11, n - 11, &h, &mi, &sec) ||
	    civil(y, mo, d, h, mi, sec, t) < 0)
		return 0;
	if (p + 1 < n && (s[p] == '.' || s[p] == ',') && pm_in_isdigit(s[p + 1]))
		p += 1 + frac_at(s + p + 1, n - p - 1, &f, &nd);
	if (p < n && pm_in_isalnum(s[p]))
		return 0;
	*t += f;
	return p;
}

/* See input.h: "26/11/30 03:11:58" (log4j's yy/MM/dd, Spark's default layout). */
size_t pm_in_yymmdd(const char *s, size_t n, double *t)
{
	int y, mo, d, h, mi, sec;

	if (n < 17 || s[2] != '/' || s[5] != '/' || s[8] != ' ')
		return 0;
	y = digits(s, n, 2);
	mo = digits(s + 3, n - 3, 2);
	d = digits(s + 6, n - 6, 2);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
	    !clock_at(s + 9, n - 9, &h, &mi, &sec) || civil(2000 + y, mo, d, h, mi, sec, t) < 0)
		return 0;
	if (17 < n && pm_in_isalnum(s[17]))
		return 0;
	return 17;
}

/* See input.h: "09-05 01:24:34" (no year, as vLLM's logging writes it). */
size_t pm_in_mmdd(const char *s, size_t n, int year, double *t, bool *has_t)
{
	int mo, d, h, mi, sec, nd;
	double f = 0;
	size_t p = 14;

	*has_t = false;
	if (n < 14 || s[2] != '-' || s[5] != ' ')
		return 0;
	mo = digits(s, n, 2);
	d = digits(s + 3, n - 3, 2);
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || !clock_at(s + 6, n - 6, &h, &mi, &sec))
		return 0;
	if (p + 1 < n && (s[p] == '.' || s[p] == ',') && pm_in_isdigit(s[p + 1]))
		p += 1 + frac_at(s + p + 1, n - p - 1, &f, &nd);
	if (p < n && pm_in_isalnum(s[p]))
		return 0;
	if (year > 0 && civil(year, mo, d, h, mi, sec, t) == 0) {
		*t += f;
		*has_t = true;
	}
	return p;
}

void pm_time_format(double t, char *buf, size_t len)
{
	int64_t ms, secs, days, y;
	int m, d, rem;

	if (!buf || len == 0)
		return;
	/* years 1..9999 only: anything else is not a time a log can carry */
	if (!isfinite(t) || t < -62135596800.0 || t >= 253402300800.0) {
		buf[0] = '\0';
		return;
	}
	ms = (int64_t)llround(t * 1000.0);
	secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
	days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
	rem = (int)(secs - days * 86400);
	civil_from_days(days, &y, &m, &d);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", (int)y, m, d, rem / 3600,
		 rem / 60 % 60, rem % 60, (int)(ms - secs * 1000));
}
