// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * signals.c - record and live stop on SIGINT, SIGTERM and SIGHUP, after
 * removing their tracefs instance.
 */
#include "config.h"

#include <signal.h>

#include "sample.h"

volatile sig_atomic_t capture_stop;

static void on_signal(int sig)
{
	(void)sig;
	capture_stop = 1;
}

void capture_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll() and read() must return to see the flag. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}
