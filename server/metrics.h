/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics.h - nfswbd's figures for Prometheus (metrics.c): a text file
 * for node_exporter's textfile collector and an optional HTTP listener.
 */
#ifndef NFSWBD_METRICS_H
#define NFSWBD_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct nfswbd_settings;
struct nfswbd_table;
struct nfswbd_metrics;
struct nfswbd_commits;

struct nfswbd_run_info;		/* nfswbd.h */

/**
 * nfswbd_metrics_parse_listen() - split "ADDR:PORT", "[V6ADDR]:PORT" or
 *	"PORT" (address 127.0.0.1)
 * @s: the value
 * @host: out, numeric address
 * @hlen: size of @host
 * @port: out, decimal port
 * @plen: size of @port
 * @why: out on failure
 *
 * Return: 0, or -1.
 */
int nfswbd_metrics_parse_listen(const char *s, char *host, size_t hlen,
				char *port, size_t plen, const char **why);

/**
 * nfswbd_metrics_start() - bind @listen_addr and serve GET /metrics from a
 *	thread of its own
 * @listen_addr: as nfswbd_metrics_parse_listen() takes it
 * @out: the listener, to publish to and stop
 *
 * Return: 0, or -1 (logged).
 */
int nfswbd_metrics_start(const char *listen_addr, struct nfswbd_metrics **out);

/**
 * nfswbd_metrics_publish() - render the table; replace the metrics file
 *	(if the settings name one) and the listener's snapshot (if @m)
 * @m: listener, or NULL
 * @s: settings
 * @t: table
 * @ri: run information
 * @cm: the COMMIT histogram, or NULL when commit-latency is off
 */
void nfswbd_metrics_publish(struct nfswbd_metrics *m,
			    const struct nfswbd_settings *s,
			    const struct nfswbd_table *t,
			    const struct nfswbd_run_info *ri,
			    const struct nfswbd_commits *cm);

/* nfswbd_metrics_stop() - end the listener's thread, close, free; NULL ok */
void nfswbd_metrics_stop(struct nfswbd_metrics *m);

#endif
