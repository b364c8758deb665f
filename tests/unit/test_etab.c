// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_etab.c - knfsd's export table as the kernel and exportfs write it.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etab.h"
#include "test.h"

/* fs/nfsd/export.c e_show()/svc_export_show(), 6.12. */
static const char proc_exports[] =
	"# Version 1.1\n"
	"# Path Client(Flags) # IPs\n"
	"/srv/nfs/home\t192.168.1.0/24(rw,root_squash,sync,wdelay,no_subtree_check,uuid=3a1b2c4d:5e6f7a8b:9c0d1e2f:3a4b5c6d,sec=1)\n"
	"/srv/nfs/scratch\t*(rw,root_squash,async,wdelay,no_subtree_check,uuid=11111111:22222222:33333333:44444444,sec=1)\n"
	"/srv/nfs/mixed\tfast.example.com(rw,no_root_squash,async,no_wdelay,no_subtree_check,sec=1)\n"
	"/srv/nfs/mixed\tslow.example.com(rw,root_squash,sync,wdelay,no_subtree_check,sec=1)\n"
	"/srv/with\\040space\t*(rw,root_squash,sync,wdelay,no_subtree_check,fsid=7,sec=1)\n"
	"/\t*(ro,root_squash,sync,no_wdelay,no_subtree_check,v4root,fsid=0,uuid=00000000:00000000:00000000:00000000,sec=390003:390004:390005:1)\n";

/* nfs-utils support/nfs/exports.c putexportent(). */
static const char etab[] =
	"/srv/nfs/home\t192.168.1.0/24(rw,sync,wdelay,hide,nocrossmnt,secure,root_squash,no_all_squash,no_subtree_check,secure_locks,acl,no_pnfs,anonuid=65534,anongid=65534,sec=sys,rw,secure,root_squash,no_all_squash)\n"
	"/srv/nfs/archive\t*(ro,sync,wdelay,hide,nocrossmnt,secure,root_squash,no_all_squash,no_subtree_check,secure_locks,acl,no_pnfs,anonuid=65534,anongid=65534,sec=sys,ro,secure,root_squash,no_all_squash)\n"
	"/srv/nfs/fast/\t@compute(rw,async,wdelay,hide,nocrossmnt,secure,no_root_squash,no_all_squash,no_subtree_check,secure_locks,acl,no_pnfs,fsid=12,anonuid=65534,anongid=65534,sec=sys,rw,secure,no_root_squash,no_all_squash)\n"
	"/srv/quote\\042hash\\043\tgss/krb5(rw,sync,wdelay,hide,nocrossmnt,secure,root_squash,no_all_squash,no_subtree_check,secure_locks,acl,no_pnfs,anonuid=65534,anongid=65534,sec=krb5,rw,secure,root_squash,no_all_squash)\n";

struct find_case {
	const char *path;
	bool exported;
	bool async;
	unsigned int clients;
};

static const struct find_case proc_cases[] = {
	{ "/srv/nfs/home", true, false, 1 },
	{ "/srv/nfs/home/", true, false, 1 },
	{ "/srv/nfs/scratch", true, true, 1 },
	{ "/srv/nfs/mixed", true, true, 2 },	/* one async client is enough */
	{ "/srv/with space", true, false, 1 },
	{ "/", false, false, 0 },		/* v4root pseudo export */
	{ "/srv/nfs", false, false, 0 },
	{ "/srv/nfs/hom", false, false, 0 },
};

static const struct find_case etab_cases[] = {
	{ "/srv/nfs/home", true, false, 1 },
	{ "/srv/nfs/archive", true, false, 1 },
	{ "/srv/nfs/fast", true, true, 1 },
	{ "/srv/quote\"hash#", true, false, 1 },
	{ "/srv/nfs/async", false, false, 0 },
};

static void check_cases(const char *what, const struct nfswb_etab *e,
			const struct find_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct nfswb_knfsd_export *x =
			nfswb_etab_find(e, c[i].path);

		T_CHECK((x != NULL) == c[i].exported, "%s: %s %sexported",
			what, c[i].path, x ? "" : "not ");
		if (!x || !c[i].exported)
			continue;
		T_CHECK(x->async == c[i].async, "%s: %s async=%d", what,
			c[i].path, x->async);
		T_CHECK(x->clients == c[i].clients, "%s: %s clients=%u",
			what, c[i].path, x->clients);
	}
}

static void test_parse(void)
{
	struct nfswb_etab e = { 0 };

	T_CHECK(nfswb_etab_parse(proc_exports, &e) == 0, "parse proc");
	T_CHECK(e.count == 4, "proc: %zu entries", e.count);
	T_CHECK(e.skipped == 0, "proc: %zu skipped", e.skipped);
	check_cases("proc", &e, proc_cases,
		    sizeof(proc_cases) / sizeof(proc_cases[0]));
	nfswb_etab_free(&e);

	T_CHECK(nfswb_etab_parse(etab, &e) == 0, "parse etab");
	T_CHECK(e.count == 4, "etab: %zu entries", e.count);
	check_cases("etab", &e, etab_cases,
		    sizeof(etab_cases) / sizeof(etab_cases[0]));
	nfswb_etab_free(&e);
}

static void test_garbage(void)
{
	struct nfswb_etab e = { 0 };

	T_CHECK(nfswb_etab_parse("", &e) == 0 && e.count == 0, "empty");
	T_CHECK(nfswb_etab_parse(
			"relative/path\t*(rw,async)\n"
			"/no/client\n"
			"/no/options\t*\n"
			"/no/close\t*(rw,async\n"
			"/no/name\t(rw,async)\n"
			"   \n"
			"# comment (rw,async)\n"
			"/ok\t*(rw,async)", &e) == 0, "garbage");
	T_CHECK(e.count == 1 && e.skipped == 5,
		"garbage: %zu entries, %zu skipped", e.count, e.skipped);
	T_CHECK(nfswb_etab_find(&e, "/ok") && nfswb_etab_find(&e, "/ok")->async,
		"/ok without a final newline");
	/* "asyncx" or "noasync" are not "async". */
	T_CHECK(nfswb_etab_parse("/w\t*(rw,asyncx,noasync,sync)\n", &e) == 0 &&
		nfswb_etab_find(&e, "/w") && !nfswb_etab_find(&e, "/w")->async,
		"word match");
	nfswb_etab_free(&e);
}

static void test_covering(void)
{
	struct nfswb_etab e = { 0 };
	const struct nfswb_knfsd_export *x;

	T_CHECK(nfswb_etab_parse(etab, &e) == 0, "parse");
	x = nfswb_etab_covering(&e, "/srv/nfs/fast/project/a");
	T_CHECK(x && strcmp(x->path, "/srv/nfs/fast") == 0 && x->async,
		"covering: %s", x ? x->path : "(none)");
	x = nfswb_etab_covering(&e, "/srv/nfs/homework");
	T_CHECK(!x, "/srv/nfs/homework is not under /srv/nfs/home: %s",
		x ? x->path : "");
	x = nfswb_etab_covering(&e, "/srv/nfs/home");
	T_CHECK(x && strcmp(x->path, "/srv/nfs/home") == 0, "exact");
	T_CHECK(!nfswb_etab_covering(&e, "/"), "/");
	T_CHECK(nfswb_etab_parse("/\t*(rw,sync)\n", &e) == 0, "parse /");
	x = nfswb_etab_covering(&e, "/var/tmp");
	T_CHECK(x && strcmp(x->path, "/") == 0, "/ covers everything");
	nfswb_etab_free(&e);
}

/* Both files under a sysroot: merged; neither: ENOENT. */
static void test_load(void)
{
	char root[] = "/tmp/nfswb-etab-XXXXXX", p[PATH_MAX];
	struct nfswb_etab e = { 0 };
	FILE *f;

	if (!mkdtemp(root)) {
		T_CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	errno = 0;
	T_CHECK(nfswb_etab_load(root, &e) == -ENOENT, "nothing there");

	snprintf(p, sizeof(p), "%s/var", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/var/lib", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/var/lib/nfs", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/var/lib/nfs/etab", root);
	f = fopen(p, "w");
	T_CHECK(f && fputs(etab, f) >= 0 && fclose(f) == 0, "write etab");
	T_CHECK(nfswb_etab_load(root, &e) == 0 && e.count == 4,
		"etab only: %zu", e.count);
	nfswb_etab_free(&e);

	snprintf(p, sizeof(p), "%s/proc", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/fs", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/fs/nfs", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/proc/fs/nfs/exports", root);
	f = fopen(p, "w");
	T_CHECK(f && fputs(proc_exports, f) >= 0 && fclose(f) == 0,
		"write exports");
	/* home is in both; scratch, mixed, with space only in the kernel's. */
	T_CHECK(nfswb_etab_load(root, &e) == 0 && e.count == 7,
		"merged: %zu", e.count);
	T_CHECK(nfswb_etab_find(&e, "/srv/nfs/home") &&
		nfswb_etab_find(&e, "/srv/nfs/home")->clients == 2,
		"home seen in both files");
	nfswb_etab_free(&e);

	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	T_CHECK(system(p) == 0, "cleanup");
}

int main(void)
{
	test_parse();
	test_garbage();
	test_covering();
	test_load();
	return t_result();
}
