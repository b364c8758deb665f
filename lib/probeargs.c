// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probeargs.c - the nfsd_commit kprobe's fetch arguments, from BTF names
 * or from a probe-offsets file (see probeargs.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probeargs.h"
#include "readfile.h"

/* Offsets past this are not members of these structures. */
#define OFFSET_MAX	(1u << 20)

static const struct {
	const char *name;
	size_t off;
} members[] = {
	{ "svc_rqst.rq_xid", offsetof(struct nfswb_probe_offsets, rq_xid) },
	{ "nfsd_file.nf_file", offsetof(struct nfswb_probe_offsets, nf_file) },
	{ "file.f_inode", offsetof(struct nfswb_probe_offsets, f_inode) },
	{ "inode.i_sb", offsetof(struct nfswb_probe_offsets, i_sb) },
	{ "inode.i_ino", offsetof(struct nfswb_probe_offsets, i_ino) },
	{ "inode.i_uid", offsetof(struct nfswb_probe_offsets, i_uid) },
	{ "super_block.s_dev", offsetof(struct nfswb_probe_offsets, s_dev) },
};
#define NMEMBERS (sizeof(members) / sizeof(members[0]))

int nfswb_probe_offsets_parse(const char *text, const char *name,
			      struct nfswb_probe_offsets *o, char *why,
			      size_t whylen)
{
	bool seen[NMEMBERS] = { false };
	unsigned int lineno = 0;
	const char *p = text;

	memset(o, 0, sizeof(*o));
	while (*p) {
		const char *end = strchrnul(p, '\n'), *eq;
		size_t len = (size_t)(end - p), k;
		unsigned long v;
		char num[16], *e;

		lineno++;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\r'))
			len--;
		if (!len || p[0] == '#')
			goto next;
		eq = memchr(p, '=', len);
		for (k = 0; eq && k < NMEMBERS; k++)
			if (strlen(members[k].name) == (size_t)(eq - p) &&
			    !strncmp(p, members[k].name, (size_t)(eq - p)))
				break;
		if (!eq || k == NMEMBERS) {
			snprintf(why, whylen, "%s:%u: expected STRUCT.MEMBER="
				 "OFFSET with one of svc_rqst.rq_xid, "
				 "nfsd_file.nf_file, file.f_inode, inode.i_sb, "
				 "inode.i_ino, inode.i_uid, super_block.s_dev",
				 name, lineno);
			return -EINVAL;
		}
		if (seen[k]) {
			snprintf(why, whylen, "%s:%u: %s given twice", name,
				 lineno, members[k].name);
			return -EINVAL;
		}
		len -= (size_t)(eq + 1 - p);
		if (!len || len >= sizeof(num) ||
		    strspn(eq + 1, "0123456789") < len) {
			snprintf(why, whylen, "%s:%u: %s: not a byte offset",
				 name, lineno, members[k].name);
			return -EINVAL;
		}
		memcpy(num, eq + 1, len);
		num[len] = '\0';
		errno = 0;
		v = strtoul(num, &e, 10);
		if (errno || *e || v >= OFFSET_MAX) {
			snprintf(why, whylen, "%s:%u: %s: offset %s out of "
				 "range", name, lineno, members[k].name, num);
			return -EINVAL;
		}
		*(unsigned int *)((char *)o + members[k].off) = (unsigned int)v;
		seen[k] = true;
next:
		p = *end ? end + 1 : end;
	}
	for (size_t k = 0; k < NMEMBERS; k++) {
		if (!seen[k]) {
			snprintf(why, whylen, "%s: no %s= line", name,
				 members[k].name);
			return -EINVAL;
		}
	}
	o->set = true;
	return 0;
}

int nfswb_probe_offsets_load(const char *path, struct nfswb_probe_offsets *o,
			     char *why, size_t whylen)
{
	char *text;
	size_t len;
	int r;

	r = nfswb_read_file_bounded(path, NFSWB_PROBE_OFFSETS_MAX, &text, &len);
	if (r) {
		snprintf(why, whylen, "%s: %s", path, r == -EFBIG ?
			 "larger than a probe-offsets file" : strerror(-r));
		return r;
	}
	if (strlen(text) != len) {
		snprintf(why, whylen, "%s: NUL byte: not a text file", path);
		free(text);
		return -EINVAL;
	}
	r = nfswb_probe_offsets_parse(text, path, o, why, whylen);
	free(text);
	return r;
}

void nfswb_probe_args(const struct nfswb_probe_offsets *o,
		      struct nfswb_probe_args *args)
{
	memset(args, 0, sizeof(*args));
	/* A kernel may lack BTF, or the owner's "." member access. */
	snprintf(args->v[args->count++], NFSWB_PROBE_ARG_LEN,
		 "xid_be=rqstp->rq_xid:x32 "
		 "dev=nf->nf_file->f_inode->i_sb->s_dev:u32 "
		 "ino=nf->nf_file->f_inode->i_ino:u64 "
		 "uid=nf->nf_file->f_inode->i_uid.val:u32");
	snprintf(args->v[args->count++], NFSWB_PROBE_ARG_LEN,
		 "xid_be=rqstp->rq_xid:x32 "
		 "dev=nf->nf_file->f_inode->i_sb->s_dev:u32 "
		 "ino=nf->nf_file->f_inode->i_ino:u64");
	if (o && o->set) {
		/* +OFF(ADDR) reads at ADDR + OFF; the innermost is nf. */
		args->from_offsets[args->count] = true;
		snprintf(args->v[args->count++], NFSWB_PROBE_ARG_LEN,
			 "xid_be=+%u($arg1):x32 "
			 "dev=+%u(+%u(+%u(+%u($arg3)))):u32 "
			 "ino=+%u(+%u(+%u($arg3))):u64 "
			 "uid=+%u(+%u(+%u($arg3))):u32",
			 o->rq_xid, o->s_dev, o->i_sb, o->f_inode, o->nf_file,
			 o->i_ino, o->f_inode, o->nf_file, o->i_uid,
			 o->f_inode, o->nf_file);
	}
}
