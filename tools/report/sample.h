/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sample.h - what record and live do beside lib's tracefs capture
 * (capture.h): stop on a signal, and sample the device's dirty backlog and
 * bandwidth as "# nfswb-sample" lines.
 */
#ifndef NFSWB_REPORT_SAMPLE_H
#define NFSWB_REPORT_SAMPLE_H

#include <signal.h>
#include <stdio.h>

/* Set by SIGINT, SIGTERM, SIGHUP once capture_signals() ran. */
extern volatile sig_atomic_t capture_stop;

/* capture_signals() - stop flag on SIGINT/SIGTERM/SIGHUP; ignore SIGPIPE */
void capture_signals(void);

/* The instance stamps with CLOCK_MONOTONIC: nfswb_now_s() of clock.h. */

/**
 * sample_bdi() - "# nfswb-sample" from /sys/kernel/debug/bdi/BDI/stats
 * @bdi: "MAJ:MIN"
 * @out: stream
 * @t: timestamp
 *
 * Return: 0, or -1 if the file cannot be read.
 */
int sample_bdi(const char *bdi, FILE *out, double t);

/**
 * sample_status() - one "# nfswb-sample" line per device of nfswbd's
 *	status.json (bdi, dirty_bytes, bandwidth.bytes_per_s)
 * @path: status.json
 * @out: stream
 * @t: timestamp
 *
 * Return: lines written, or -1 if the file cannot be read.
 */
int sample_status(const char *path, FILE *out, double t);

#endif
