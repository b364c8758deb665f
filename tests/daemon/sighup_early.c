// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sighup_early.so - LD_PRELOAD for test_state_sighup_exec.sh: its
 * constructor sends the process a SIGHUP after the dynamic loader is done
 * and before main() runs, the moment of "a SIGHUP right after exec" that
 * can be hit on purpose every time rather than by luck.
 */
#include <signal.h>
#include <unistd.h>

__attribute__((constructor)) static void sighup_before_main(void)
{
	kill(getpid(), SIGHUP);
}
