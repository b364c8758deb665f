// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfsconf_get - what libnfswb reads from an nfs.conf, printed the way
 * `nfsconf --file FILE --get [--arg ARG] SECTION TAG` prints it, so that
 * test_nfsconf.sh can compare the two on the same file.
 *
 *   nfsconf_get FILE [--arg ARG] SECTION TAG   value, exit 0; unset: exit 1
 *   nfsconf_get FILE --check                   problems, one per line
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "nfsconf.h"

int main(int argc, char **argv)
{
	struct nfswb_diag diag = { 0 };
	struct nfswb_nfsconf *c;
	const char *arg = NULL, *v;
	int i = 2;

	if (argc < 3) {
		fprintf(stderr,
			"usage: %s FILE [--arg ARG] SECTION TAG | FILE --check\n",
			argv[0]);
		return 2;
	}
	nfswb_nfsconf_read(argv[1], &c, &diag);
	if (!c)
		return 2;
	if (!strcmp(argv[2], "--check")) {
		nfswb_diag_print(&diag, stdout);
		i = 0;
		goto out;
	}
	if (!strcmp(argv[2], "--arg") && argc == 6) {
		arg = argv[3];
		i = 4;
	}
	if (argc != i + 2) {
		fprintf(stderr, "%s: bad arguments\n", argv[0]);
		i = 2;
		goto out;
	}
	v = nfswb_nfsconf_get_arg(c, argv[i], arg, argv[i + 1]);
	if (v)
		printf("%s\n", v);
	i = v ? 0 : 1;
out:
	nfswb_nfsconf_free(c);
	nfswb_diag_clear(&diag);
	return i;
}
