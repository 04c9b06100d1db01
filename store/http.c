/*
 * http.c - one bounded libcurl request (http.h), the bearer token file, safe URLs.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "http.h"
#include "pmutil.h"

static bool curl_ready;

static int global_init(void)
{
	if (!curl_ready && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -1;
	curl_ready = true;
	return 0;
}

void *pm_http_handle(void)
{
	if (global_init() < 0)
		return NULL;
	return curl_easy_init();
}

void pm_http_handle_free(void *handle)
{
	if (handle)
		curl_easy_cleanup(handle);
}

void pm_http_display(const char *url, char *buf, size_t len)
{
	const char *p = url ? strstr(url, "://") : NULL, *host, *at, *end;

	if (!p) {
		snprintf(buf, len, "(no url)");
		return;
	}
	host = p + 3;
	end = host + strcspn(host, "/?#");
	at = memchr(host, '@', (size_t)(end - host));
	if (at)
		host = at + 1;
	snprintf(buf, len, "%.*s://%.*s", (int)(p - url), url, (int)(end - host), host);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct sink {
	char *buf;
	size_t len, alloc, cap;
	bool over, oom;
};

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct sink *s = arg;
	size_t add = size * n;

	if (add > s->cap - s->len) {
		s->over = true;
		return 0; /* stops the transfer: CURLE_WRITE_ERROR */
	}
	if (pmu_reserve(&s->buf, &s->alloc, s->len + add + 1, 16384) < 0) {
		s->oom = true;
		return 0;
	}
	memcpy(s->buf + s->len, p, add);
	s->len += add;
	s->buf[s->len] = 0;
	return add;
}

static void classify(CURLcode rc, const struct sink *s, const char *ebuf, const char *shown,
		     double timeout, struct pm_http_resp *rs)
{
	const char *msg = ebuf[0] ? ebuf : curl_easy_strerror(rc);

	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		rs->result = PM_HTTP_TIMEOUT;
		snprintf(rs->why, sizeof(rs->why), "%s did not answer in %.3g s", shown, timeout);
		return;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
		rs->result = PM_HTTP_UNREACHABLE;
		break;
	case CURLE_FILESIZE_EXCEEDED:
		rs->result = PM_HTTP_TOOBIG;
		snprintf(rs->why, sizeof(rs->why), "%s: the answer is larger than %zu bytes", shown,
			 s->cap);
		return;
	case CURLE_WRITE_ERROR:
		rs->result = s->over ? PM_HTTP_TOOBIG : PM_HTTP_ERROR;
		if (s->over) {
			snprintf(rs->why, sizeof(rs->why),
				 "%s: the answer is larger than %zu bytes", shown, s->cap);
			return;
		}
		msg = s->oom ? "out of memory" : msg;
		break;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
		rs->result = PM_HTTP_TLS;
		break;
	default:
		rs->result = PM_HTTP_ERROR;
		break;
	}
	snprintf(rs->why, sizeof(rs->why), "%s: %s", shown, msg);
	rs->why[strcspn(rs->why, "\r\n")] = 0;
}

int pm_http_do(void *handle, const struct pm_http_req *rq, struct pm_http_resp *rs)
{
	CURL *h = handle;
	struct curl_slist *hdr = NULL, *t;
	struct sink s = {.cap = rq->cap};
	char ebuf[CURL_ERROR_SIZE] = "", shown[200], *auth = NULL;
	long ms = (long)(rq->timeout * 1000);
	double t0 = mono();
	CURLcode rc;
	int ret = -1;

	memset(rs, 0, sizeof(*rs));
	pm_http_display(rq->url, shown, sizeof(shown));
	if (ms <= 0) {
		rs->result = PM_HTTP_TIMEOUT;
		snprintf(rs->why, sizeof(rs->why), "%s: no time left to ask", shown);
		return -1;
	}
	if (!h && !(h = pm_http_handle())) {
		rs->result = PM_HTTP_ERROR;
		snprintf(rs->why, sizeof(rs->why), "%s: cannot start libcurl", shown);
		return -1;
	}
	curl_easy_reset(h);
	if (rq->token) {
		size_t l = strlen(rq->token) + 32;

		if (!(auth = malloc(l)))
			goto oom;
		snprintf(auth, l, "Authorization: Bearer %s", rq->token);
		if (!(t = curl_slist_append(hdr, auth)))
			goto oom;
		hdr = t;
	}
	if (rq->body) {
		if (!(t = curl_slist_append(hdr, "Content-Type: application/json")))
			goto oom;
		hdr = t;
	}
	if (!(t = curl_slist_append(hdr, "Expect:"))) /* no 100-continue round trip */
		goto oom;
	hdr = t;
	for (size_t i = 0; rq->headers && rq->headers[i]; i++) {
		if (!(t = curl_slist_append(hdr, rq->headers[i])))
			goto oom;
		hdr = t;
	}
	curl_easy_setopt(h, CURLOPT_URL, rq->url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (rq->ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, rq->ca_file);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
	curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)rq->cap);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "postmortem/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, ""); /* gzip where offered: less to carry */
	if (rq->body) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq->body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_len);
	}
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &rs->status);
	if (rc != CURLE_OK) {
		classify(rc, &s, ebuf, shown, rq->timeout, rs);
		goto out;
	}
	rs->body = s.buf;
	rs->len = s.len;
	s.buf = NULL;
	if (!rs->body && !(rs->body = calloc(1, 1)))
		goto oom;
	ret = 0;
	if (rs->status >= 200 && rs->status < 300) {
		rs->result = PM_HTTP_OK;
	} else {
		rs->result = PM_HTTP_STATUS;
		snprintf(rs->why, sizeof(rs->why), "%s answered HTTP %ld", shown, rs->status);
	}
	goto out;
oom:
	rs->result = PM_HTTP_ERROR;
	snprintf(rs->why, sizeof(rs->why), "%s: out of memory", shown);
out:
	/* nothing of the request may outlive it: the header held the token */
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, NULL);
	for (t = hdr; t; t = t->next)
		if (!strncmp(t->data, "Authorization:", 14))
			explicit_bzero(t->data, strlen(t->data));
	curl_slist_free_all(hdr);
	if (auth) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	if (h != handle)
		curl_easy_cleanup(h);
	free(s.buf);
	rs->took = mono() - t0;
	return ret;
}

char *pm_http_token(const char *path, char *why, size_t whylen)
{
	char buf[PM_HTTP_TOKEN_MAX + 1], *tok = NULL;
	struct stat st;
	ssize_t n;
	size_t l;
	int fd, e = 0;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		e = errno;
		snprintf(why, whylen, "bearer token file %s: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "bearer token file %s: not a regular file", path);
		e = EPERM;
		goto out;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(why, whylen,
			 "bearer token file %s: refused (owner uid %u, mode %04o): it must be owned by uid %u with no group or other access (chmod 600)",
			 path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
			 (unsigned)geteuid());
		e = EPERM;
		goto out;
	}
	n = read(fd, buf, sizeof(buf));
	if (n < 0 || (size_t)n > PM_HTTP_TOKEN_MAX) {
		e = n < 0 ? errno : EFBIG;
		snprintf(why, whylen, "bearer token file %s: %s", path,
			 n < 0 ? strerror(e) : "larger than 4 KiB");
		goto out;
	}
	buf[n] = 0;
	l = strcspn(buf, "\r\n");
	buf[l] = 0;
	if (!l) {
		snprintf(why, whylen, "bearer token file %s is empty", path);
		e = EINVAL;
		goto out;
	}
	for (size_t i = 0; i < l; i++)
		if ((unsigned char)buf[i] < 0x21 || buf[i] == 0x7f) {
			snprintf(why, whylen,
				 "bearer token file %s: the token holds a blank or a control byte",
				 path);
			e = EINVAL;
			goto out;
		}
	if (!(tok = strdup(buf))) {
		e = ENOMEM;
		snprintf(why, whylen, "out of memory");
	}
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	if (!tok)
		errno = e;
	return tok;
}

void pm_http_token_free(char *token)
{
	if (!token)
		return;
	explicit_bzero(token, strlen(token));
	free(token);
}
