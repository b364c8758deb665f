// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metrics.c - nfswbd's figures for Prometheus: per device its mode,
 * bandwidth estimate, target, dirty and in-flight bytes, kicks, bytes
 * kicked, cap and errors, rendered once per status period into a
 * snapshot that two outputs publish:
 *
 *   metrics-file=PATH     the Prometheus text format (0.0.4), atomically
 *                         replaced, for node_exporter's textfile collector
 *   metrics-listen=A:P    HTTP GET, OpenMetrics 1.0 to a scraper that asks
 *                         for it (Prometheus does), else the text format
 *
 * The listener runs in a thread of its own that only copies the latest
 * snapshot out under a mutex: a slow or hostile client can never stall
 * the sampling loop, and each connection is bounded in time and size.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "commits.h"
#include "log.h"
#include "metrics.h"
#include "nfswbd.h"

/* A request is a GET line and a few headers: anything more is refused. */
#define REQUEST_MAX		8192
/* Time a client gets to send its request and take the answer. */
#define CLIENT_TIMEOUT_MS	2000

struct nfswbd_metrics {
	int listen_fd;
	int stop_pipe[2];		/* written once to end the thread */
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	char *text, *om;		/* latest snapshots, both formats */
	size_t text_len, om_len;
	char addr[128];			/* as bound, for messages */
};

/* Label values: backslash, double quote and newline escaped. */
static void label(FILE *f, const char *name, const char *value, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (const char *p = value ? value : ""; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', f);
		if (*p == '\n')
			fputs("\\n", f);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

struct family {
	const char *name;	/* without _total */
	const char *type;	/* "gauge", "counter" */
	const char *help;
	const char *unit;	/* OpenMetrics UNIT, or NULL */
};

/*
 * HELP/TYPE for one family.  A counter's samples end in _total; the text
 * format names the family with the suffix, OpenMetrics without it.
 */
static void family_begin(FILE *f, const struct family *m, bool om)
{
	bool counter = !strcmp(m->type, "counter");
	const char *sfx = counter && !om ? "_total" : "";

	fprintf(f, "# HELP %s%s %s\n# TYPE %s%s %s\n", m->name, sfx, m->help,
		m->name, sfx, m->type);
	if (om && m->unit)
		fprintf(f, "# UNIT %s %s\n", m->name, m->unit);
}

enum dev_value {
	V_INFO, V_EFFECTIVE, V_BANDWIDTH, V_LEARNED, V_TARGET, V_DIRTY,
	V_INFLIGHT, V_CAP, V_LOCAL, V_KICKS, V_KICKED, V_ERRORS, V_COUNT
};

static const struct family dev_families[V_COUNT] = {
	[V_INFO] = { "nfswb_device_info", "gauge",
		"A device nfswbd serves: its block device, file system, "
		"configured and effective mode (value 1)", NULL },
	[V_EFFECTIVE] = { "nfswb_device_acting", "gauge",
		"1 if the device's effective mode acts (not off)", NULL },
	[V_BANDWIDTH] = { "nfswb_bandwidth_bytes_per_second", "gauge",
		"The device's estimated write bandwidth", NULL },
	[V_LEARNED] = { "nfswb_bandwidth_learned", "gauge",
		"1 once the bandwidth is learned or fixed, 0 while cold",
		NULL },
	[V_TARGET] = { "nfswb_target_bytes", "gauge",
		"Dirty bytes the device may hold: bandwidth times "
		"background-time", "bytes" },
	[V_DIRTY] = { "nfswb_dirty_bytes", "gauge",
		"Dirty bytes the device holds now", "bytes" },
	[V_INFLIGHT] = { "nfswb_inflight_bytes", "gauge",
		"Bytes kicked and not yet written back", "bytes" },
	[V_CAP] = { "nfswb_cap_bytes", "gauge",
		"Dirty limit set on the device (0: none)", "bytes" },
	[V_LOCAL] = { "nfswb_local_writer_bytes", "gauge",
		"Bytes dirtied on the device beyond what nfsd's writes "
		"explain, last 5 s window (mode=auto keeps kernel mode off "
		"while there are any; 0 where it does not look)", "bytes" },
	[V_KICKS] = { "nfswb_kicks", "counter",
		"Writeback kicks issued", NULL },
	[V_KICKED] = { "nfswb_kicked_bytes", "counter",
		"Bytes whose writeback the kicks started", "bytes" },
	[V_ERRORS] = { "nfswb_errors", "counter",
		"Errors of the device's writeback mechanisms", NULL },
};

static uint64_t dev_value(const struct nfswbd_dev *d, enum dev_value v)
{
	switch (v) {
	case V_INFO:
		return 1;
	case V_EFFECTIVE:
		return d->effective != NFSWB_MODE_OFF;
	case V_BANDWIDTH:
		return nfswb_estimator_bandwidth(&d->est);
	case V_LEARNED:
		return d->est.p.fixed_bw || d->est.learned;
	case V_TARGET:
		return d->decided ? d->decision.target_bytes : 0;
	case V_DIRTY:
		return d->dirty_bytes;
	case V_INFLIGHT:
		return nfswbd_dev_counter(d, "inflight_bytes");
	case V_CAP:
		return nfswbd_dev_counter(d, "cap_bytes");
	case V_LOCAL:
		return d->auto_whole ? d->local.local_bytes : 0;
	case V_KICKS:
		return nfswbd_dev_counter(d, "kicks");
	case V_KICKED:
		return nfswbd_dev_counter(d, "bytes_kicked");
	case V_ERRORS:
		return nfswbd_dev_counter(d, "errors");
	case V_COUNT:
		break;
	}
	return 0;
}

static void render(FILE *f, const struct nfswbd_settings *s,
		   const struct nfswbd_table *t, const struct nfswbd_run_info *ri,
		   const struct nfswbd_commits *cm, bool om)
{
	static const struct family start = { "nfswb_start_time_seconds",
		"gauge", "When nfswbd started, seconds since the epoch", NULL };
	static const struct family reloads = { "nfswb_reloads", "counter",
		"Configuration reloads (SIGHUP) that took effect", NULL };

	for (unsigned int v = 0; v < V_COUNT; v++) {
		const struct family *m = &dev_families[v];
		bool counter = !strcmp(m->type, "counter");

		family_begin(f, m, om);
		for (size_t i = 0; i < t->ndevs; i++) {
			const struct nfswbd_dev *d = &t->devs[i];

			fprintf(f, "%s%s{", m->name, counter ? "_total" : "");
			label(f, "bdi", d->id.bdi, true);
			if (v == V_INFO) {
				label(f, "blockdev", d->id.blockdev, false);
				label(f, "fstype", d->id.fstype, false);
				label(f, "mode", nfswb_mode_name(d->opts.mode),
				      false);
				label(f, "effective_mode",
				      nfswb_mode_name(d->effective), false);
				label(f, "dry_run", s->dry_run ? "1" : "0",
				      false);
			}
			fprintf(f, "} %" PRIu64 "\n", dev_value(d, v));
		}
	}
	family_begin(f, &start, om);
	fprintf(f, "%s %" PRIu64 "\n", start.name, ri->start_time_s);
	family_begin(f, &reloads, om);
	fprintf(f, "%s_total %" PRIu64 "\n", reloads.name, ri->reloads);
	if (s->commit_latency)
		nfswbd_commits_render(cm, f, om, label);
	if (om)
		fputs("# EOF\n", f);
}

/* Both formats into fresh buffers; -1 on no memory. */
static int render_both(const struct nfswbd_settings *s,
		       const struct nfswbd_table *t,
		       const struct nfswbd_run_info *ri,
		       const struct nfswbd_commits *cm, char **text,
		       size_t *text_len, char **om, size_t *om_len)
{
	FILE *f;

	*text = *om = NULL;
	f = open_memstream(text, text_len);
	if (!f)
		return -1;
	render(f, s, t, ri, cm, false);
	if (fclose(f))
		goto fail;
	f = open_memstream(om, om_len);
	if (!f)
		goto fail;
	render(f, s, t, ri, cm, true);
	if (fclose(f))
		goto fail;
	return 0;
fail:
	free(*text);
	free(*om);
	*text = *om = NULL;
	return -1;
}

/*
 * Replace @path: written beside it and renamed over it, so node_exporter
 * never reads a partial file.  The temporary name is unlinked and created
 * afresh (O_EXCL), never opened through what someone else left there.
 */
static int write_file(const char *path, const char *buf, size_t len)
{
	char tmp[4096];
	bool failed;
	FILE *f;
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.nfswbd-tmp", path) >=
	    sizeof(tmp)) {
		xlog(L_ERROR, "metrics-file %s: name too long", path);
		return -1;
	}
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		xlog(L_ERROR, "cannot write %s: %m", tmp);
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		xlog(L_ERROR, "cannot write %s: %m", tmp);
		close(fd);
		unlink(tmp);
		return -1;
	}
	failed = fwrite(buf, 1, len, f) != len;
	if (fclose(f))
		failed = true;
	if (failed) {
		xlog(L_ERROR, "cannot write %s: %m", tmp);
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path) < 0) {
		xlog(L_ERROR, "cannot rename %s to %s: %m", tmp, path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

void nfswbd_metrics_publish(struct nfswbd_metrics *m,
			    const struct nfswbd_settings *s,
			    const struct nfswbd_table *t,
			    const struct nfswbd_run_info *ri,
			    const struct nfswbd_commits *cm)
{
	char *text, *om;
	size_t text_len, om_len;

	if (!s->metrics_file && !m)
		return;
	if (render_both(s, t, ri, cm, &text, &text_len, &om, &om_len) < 0) {
		xlog(L_ERROR, "metrics: out of memory");
		return;
	}
	if (s->metrics_file)
		write_file(s->metrics_file, text, text_len);
	if (!m) {
		free(text);
		free(om);
		return;
	}
	pthread_mutex_lock(&m->lock);
	free(m->text);
	free(m->om);
	m->text = text;
	m->text_len = text_len;
	m->om = om;
	m->om_len = om_len;
	pthread_mutex_unlock(&m->lock);
}

/* ---- the HTTP listener ---- */

/* Wait for @fd to be ready for @events until @deadline_ms; 0 when ready. */
static int wait_fd(int fd, short events, uint64_t deadline_ms)
{
	uint64_t now = nfswb_now_ms();
	struct pollfd p = { .fd = fd, .events = events };

	if (now >= deadline_ms)
		return -1;
	return poll(&p, 1, (int)(deadline_ms - now)) == 1 ? 0 : -1;
}

static void send_all(int fd, const char *buf, size_t len, uint64_t deadline)
{
	while (len) {
		ssize_t n;

		if (wait_fd(fd, POLLOUT, deadline))
			return;
		n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

static void respond(int fd, const char *status, const char *type,
		    const char *body, size_t len, uint64_t deadline)
{
	char head[256];
	int n;

	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
		     "Content-Length: %zu\r\nConnection: close\r\n\r\n",
		     status, type, len);
	send_all(fd, head, (size_t)n, deadline);
	send_all(fd, body, len, deadline);
}

/* One connection: read the request head, answer GET /metrics, close. */
static void serve(struct nfswbd_metrics *m, int fd)
{
	static const char not_found[] = "GET /metrics\n";
	uint64_t deadline = nfswb_now_ms() + CLIENT_TIMEOUT_MS;
	char req[REQUEST_MAX + 1];
	size_t len = 0;
	char *body, *eol;
	bool om;
	size_t blen;

	while (!memmem(req, len, "\r\n\r\n", 4)) {
		ssize_t n;

		if (len == REQUEST_MAX) {
			respond(fd, "431 Request Header Fields Too Large",
				"text/plain", "", 0, deadline);
			return;
		}
		if (wait_fd(fd, POLLIN, deadline))
			return;
		n = recv(fd, req + len, REQUEST_MAX - len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return;
		len += (size_t)n;
	}
	req[len] = '\0';
	eol = strstr(req, "\r\n");
	*eol = '\0';
	if (strncmp(req, "GET ", 4)) {
		respond(fd, "405 Method Not Allowed", "text/plain", "", 0,
			deadline);
		return;
	}
	if (strncmp(req + 4, "/metrics ", 9) && strncmp(req + 4, "/ ", 2)) {
		respond(fd, "404 Not Found", "text/plain", not_found,
			sizeof(not_found) - 1, deadline);
		return;
	}
	/* Prometheus lists OpenMetrics in Accept; curl and others do not. */
	om = strcasestr(eol + 2, "application/openmetrics-text") != NULL;

	pthread_mutex_lock(&m->lock);
	blen = om ? m->om_len : m->text_len;
	body = malloc(blen ? blen : 1);
	if (body && blen)
		memcpy(body, om ? m->om : m->text, blen);
	pthread_mutex_unlock(&m->lock);
	if (!body) {
		respond(fd, "503 Service Unavailable", "text/plain", "", 0,
			deadline);
		return;
	}
	respond(fd, "200 OK", om ?
		"application/openmetrics-text; version=1.0.0; charset=utf-8" :
		"text/plain; version=0.0.4; charset=utf-8", body, blen,
		deadline);
	free(body);
}

static void *listener(void *arg)
{
	struct nfswbd_metrics *m = arg;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = m->listen_fd, .events = POLLIN },
			{ .fd = m->stop_pipe[0], .events = POLLIN },
		};
		int fd;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			xlog(L_ERROR, "metrics listener: poll: %m");
			return NULL;
		}
		if (p[1].revents)
			return NULL;
		fd = accept4(m->listen_fd, NULL, NULL,
			     SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			continue;
		serve(m, fd);
		close(fd);
	}
}

/*
 * "ADDR:PORT", "[V6]:PORT" or ":PORT"/"PORT" (127.0.0.1: the listener is
 * off the network unless an address says otherwise).
 */
int nfswbd_metrics_parse_listen(const char *s, char *host, size_t hlen,
				char *port, size_t plen, const char **why)
{
	const char *colon, *h = "127.0.0.1";
	size_t n = 0;
	char *end;
	long p;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':') {
			*why = "expected [ADDRESS]:PORT";
			return -1;
		}
		h = s + 1;
		n = (size_t)(close - s - 1);
		colon = close + 1;
	} else if ((colon = strrchr(s, ':'))) {
		if (colon != s) {
			h = s;
			n = (size_t)(colon - s);
		}
	} else {
		colon = s - 1;
	}
	if (!n)
		n = strlen(h);
	if (n >= hlen || strchr(colon + 1, ':')) {
		*why = "expected ADDRESS:PORT";
		return -1;
	}
	memcpy(host, h, n);
	host[n] = '\0';
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || p < 1 || p > 65535) {
		*why = "the port must be a number from 1 to 65535";
		return -1;
	}
	snprintf(port, plen, "%ld", p);
	return 0;
}

int nfswbd_metrics_start(const char *listen_addr, struct nfswbd_metrics **out)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
					      AI_PASSIVE };
	struct nfswbd_metrics *m;
	struct addrinfo *ai;
	char host[64], port[8];
	const char *why;
	int one = 1, r;

	*out = NULL;
	if (nfswbd_metrics_parse_listen(listen_addr, host, sizeof(host), port,
					sizeof(port), &why) < 0) {
		xlog(L_ERROR, "metrics-listen %s: %s", listen_addr, why);
		return -1;
	}
	r = getaddrinfo(host, port, &hints, &ai);
	if (r) {
		xlog(L_ERROR, "metrics-listen %s: %s (a numeric address is "
		     "expected)", listen_addr, gai_strerror(r));
		return -1;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		freeaddrinfo(ai);
		xlog(L_ERROR, "metrics: out of memory");
		return -1;
	}
	m->listen_fd = m->stop_pipe[0] = m->stop_pipe[1] = -1;
	pthread_mutex_init(&m->lock, NULL);
	snprintf(m->addr, sizeof(m->addr), "%s", listen_addr);
	m->listen_fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (m->listen_fd < 0 ||
	    setsockopt(m->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one,
		       sizeof(one)) < 0 ||
	    bind(m->listen_fd, ai->ai_addr, ai->ai_addrlen) < 0 ||
	    listen(m->listen_fd, 16) < 0) {
		xlog(L_ERROR, "metrics-listen %s: %m", listen_addr);
		freeaddrinfo(ai);
		goto fail;
	}
	freeaddrinfo(ai);
	if (pipe2(m->stop_pipe, O_CLOEXEC) < 0 ||
	    pthread_create(&m->thread, NULL, listener, m)) {
		xlog(L_ERROR, "metrics-listen %s: cannot start the listener",
		     listen_addr);
		goto fail;
	}
	m->thread_started = true;
	xlog(L_NOTICE, "metrics on http://%s/metrics", listen_addr);
	*out = m;
	return 0;
fail:
	nfswbd_metrics_stop(m);
	return -1;
}

void nfswbd_metrics_stop(struct nfswbd_metrics *m)
{
	if (!m)
		return;
	if (m->thread_started) {
		if (write(m->stop_pipe[1], "x", 1) != 1)
			pthread_cancel(m->thread);
		pthread_join(m->thread, NULL);
	}
	if (m->listen_fd >= 0)
		close(m->listen_fd);
	if (m->stop_pipe[0] >= 0)
		close(m->stop_pipe[0]);
	if (m->stop_pipe[1] >= 0)
		close(m->stop_pipe[1]);
	pthread_mutex_destroy(&m->lock);
	free(m->text);
	free(m->om);
	free(m);
}
