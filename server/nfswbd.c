// SPDX-License-Identifier: GPL-2.0-or-later
/* nfswbd - placeholder main until the daemon lands (issue 2). */
#include "config.h"

#include <stdio.h>

int main(void)
{
	fputs("nfswbd: not built yet\n", stderr);
	return 1;
}
