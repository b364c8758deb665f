// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * idmap.c - owners shown as the NFSv4 names clients see ("user@domain"),
 * mapped by libnfsidmap with the system's /etc/idmapd.conf, as rpc.idmapd
 * and nfsidmap(8) do.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <nfsidmap.h>

#include "report.h"

char *report_owner_name(uint32_t uid, char *buf, size_t len)
{
	static bool tried, ready;
	static char domain[256];

	if (!tried) {
		tried = true;
		/* NULL: the default configuration file, /etc/idmapd.conf. */
		ready = nfs4_init_name_mapping(NULL) == 0 &&
			nfs4_get_default_domain(NULL, domain,
						sizeof(domain)) == 0;
	}
	if (ready && nfs4_uid_to_name((uid_t)uid, domain, buf, len) == 0)
		return buf;
	/* No mapping: the number, as the server would send it. */
	snprintf(buf, len, "%u", uid);
	return buf;
}
