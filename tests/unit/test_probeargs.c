// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_probeargs.c - probe-offsets files (what the lab writes per kernel,
 * and what it must refuse) and the kprobe fetch arguments made of them.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probeargs.h"
#include "test.h"

#define GOOD "svc_rqst.rq_xid=11384\nnfsd_file.nf_file=24\n" \
	"file.f_inode=40\ninode.i_sb=40\ninode.i_ino=56\ninode.i_uid=4\n" \
	"super_block.s_dev=16\n"

static const struct {
	const char *text;
	const char *why;	/* NULL: accepted; else a part of the reason */
} cases[] = {
	{ GOOD, NULL },
	/* Comments, blank lines, CRLF, any order, no final newline. */
	{ "# 6.12.117\r\n\nsuper_block.s_dev=16\ninode.i_uid=4\n"
	  "inode.i_ino=56\r\ninode.i_sb=40\nfile.f_inode=40\n"
	  "nfsd_file.nf_file=24\nsvc_rqst.rq_xid=11384", NULL },
	{ "", "no svc_rqst.rq_xid= line" },
	/* The lab's format before these members: one line of another key. */
	{ "rq_xid_offset=11384\n", "t:1: expected STRUCT.MEMBER=OFFSET" },
	{ GOOD "inode.i_ino=56\n", "t:8: inode.i_ino given twice" },
	{ "svc_rqst.rq_xid=11384\n", "no nfsd_file.nf_file= line" },
	{ "svc_rqst.rq_xid=-1\n", "t:1: svc_rqst.rq_xid: not a byte offset" },
	{ "svc_rqst.rq_xid=0x10\n", "not a byte offset" },
	{ "svc_rqst.rq_xid=\n", "not a byte offset" },
	{ "svc_rqst.rq_xid=1 2\n", "not a byte offset" },
	{ "svc_rqst.rq_xid=1048576\n", "offset 1048576 out of range" },
	{ "svc_rqst.rq_xid=99999999999999999999\n", "not a byte offset" },
	{ "svc_rqst.rq_xi=1\n", "expected STRUCT.MEMBER=OFFSET" },
	{ "svc_rqst.rq_xid 1\n", "expected STRUCT.MEMBER=OFFSET" },
};

static void test_parse(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nfswb_probe_offsets o;
		char why[512] = "";
		int r = nfswb_probe_offsets_parse(cases[i].text, "t", &o, why,
						  sizeof(why));

		if (!cases[i].why) {
			T_CHECK(r == 0 && o.set, "case %zu: refused: %s", i,
				why);
			T_CHECK(o.rq_xid == 11384 && o.nf_file == 24 &&
				o.f_inode == 40 && o.i_sb == 40 &&
				o.i_ino == 56 && o.i_uid == 4 && o.s_dev == 16,
				"case %zu: wrong offsets", i);
		} else {
			T_CHECK(r == -EINVAL && !o.set && strstr(why, cases[i].why),
				"case %zu: r %d, why \"%s\", want \"%s\"", i, r,
				why, cases[i].why);
		}
	}
}

/* Load a file holding @len bytes of @text; returns the load's result. */
static int load_text(const char *text, size_t len, char *why, size_t whylen)
{
	char path[] = "/tmp/test_probeargs.XXXXXX";
	struct nfswb_probe_offsets o;
	int fd = mkstemp(path), r;

	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		perror("test_probeargs: set-up");
		exit(T_EXIT_FAIL);
	}
	close(fd);
	r = nfswb_probe_offsets_load(path, &o, why, whylen);
	unlink(path);
	return r;
}

static void test_load(void)
{
	static char big[NFSWB_PROBE_OFFSETS_MAX + 2];
	struct nfswb_probe_offsets o;
	char why[512] = "";
	int r;

	T_CHECK(nfswb_probe_offsets_load("/nonexistent/offsets", &o, why,
					 sizeof(why)) == -ENOENT &&
		strstr(why, "/nonexistent/offsets: No such file"),
		"missing file: %s", why);
	T_CHECK(nfswb_probe_offsets_load("/", &o, why, sizeof(why)) == -EISDIR &&
		strstr(why, "/: Is a directory"), "directory: %s", why);
	T_CHECK(nfswb_probe_offsets_load("/dev/zero", &o, why,
					 sizeof(why)) == -EINVAL, "/dev/zero");
	r = load_text(GOOD, sizeof(GOOD), why, sizeof(why));
	T_CHECK(r == -EINVAL && strstr(why, "NUL byte"), "NUL: %d %s", r, why);
	memset(big, '#', sizeof(big) - 1);
	r = load_text(big, sizeof(big) - 1, why, sizeof(why));
	T_CHECK(r == -EFBIG && strstr(why, "larger than a probe-offsets file"),
		"too large: %d %s", r, why);
	r = load_text(GOOD, strlen(GOOD), why, sizeof(why));
	T_CHECK(r == 0, "good file: %d %s", r, why);
}

/*
 * The offsets form reads each member where the kernel has it, innermost
 * first: nf (arg 3) -> nf_file -> f_inode -> i_sb -> s_dev.  Every
 * argument fits the kernel's limit for one fetch argument (63 bytes).
 */
static void test_args(void)
{
	static const char *const want =
		"xid_be=+11384($arg1):x32 dev=+16(+40(+40(+24($arg3)))):u32 "
		"ino=+56(+40(+24($arg3))):u64 uid=+4(+40(+24($arg3))):u32";
	struct nfswb_probe_offsets o;
	struct nfswb_probe_args a;
	char why[512];

	nfswb_probe_args(NULL, &a);
	T_CHECK(a.count == 2 && !a.from_offsets[0] && !a.from_offsets[1],
		"without offsets: the BTF forms only (%zu)", a.count);
	T_CHECK(strstr(a.v[0], "dev=nf->nf_file->f_inode->i_sb->s_dev:u32"),
		"BTF form: %s", a.v[0]);
	T_CHECK(nfswb_probe_offsets_parse(GOOD, "t", &o, why,
					  sizeof(why)) == 0, "%s", why);
	nfswb_probe_args(&o, &a);
	T_CHECK(a.count == 3 && a.from_offsets[2] && !strcmp(a.v[2], want),
		"offsets form: \"%s\"", a.v[2]);
	for (size_t i = 0; i < a.count; i++) {
		const char *p = a.v[i];

		while (*p) {
			size_t n = strcspn(p, " ");

			T_CHECK(n <= 63, "form %zu: argument of %zu bytes", i, n);
			p += n + (p[n] == ' ');
		}
	}
}

int main(void)
{
	test_parse();
	test_load();
	test_args();
	return t_result();
}
