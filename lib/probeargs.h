/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probeargs.h - what the kprobe on nfsd_commit() prints: the request's
 * xid and the file's device, inode and owner, as kprobe fetch arguments.
 *
 * With BTF the kernel resolves member names itself.  A kernel built
 * without BTF (CONFIG_DEBUG_INFO_BTF=n: small and embedded builds, the
 * lab's guests) needs the byte offsets of each member read, from the
 * kernel's own build; a probe-offsets file holds them, one
 * "STRUCT.MEMBER=OFFSET" a line, '#' comments:
 *
 *   svc_rqst.rq_xid=11384     nfsd_file.nf_file=24   file.f_inode=40
 *   inode.i_sb=40  inode.i_ino=56  inode.i_uid=4  super_block.s_dev=16
 *
 * Every one of those seven is required; tests/nfs/lab writes the file
 * for each kernel it builds (bzImage-*.probe).
 */
#ifndef NFSWB_PROBEARGS_H
#define NFSWB_PROBEARGS_H

#include <stdbool.h>
#include <stddef.h>

struct nfswb_probe_offsets {
	bool set;			/* loaded from a file */
	unsigned int rq_xid;		/* struct svc_rqst */
	unsigned int nf_file;		/* struct nfsd_file */
	unsigned int f_inode;		/* struct file */
	unsigned int i_sb, i_ino, i_uid;	/* struct inode */
	unsigned int s_dev;		/* struct super_block */
};

/* Larger than the file of any kernel; more is not a probe-offsets file. */
#define NFSWB_PROBE_OFFSETS_MAX	4096

/**
 * nfswb_probe_offsets_parse() - read a probe-offsets file's text
 * @text: NUL-terminated contents
 * @name: the file's name, for @why
 * @o: out (@o->set on success)
 * @why: out: "NAME:LINE: reason" on failure
 * @whylen: size of @why
 *
 * Return: 0, or -EINVAL for an unknown or repeated member, a value that
 * is not an offset below 1 MiB, a line not of the form, or a member
 * missing.
 */
int nfswb_probe_offsets_parse(const char *text, const char *name,
			      struct nfswb_probe_offsets *o, char *why,
			      size_t whylen);

/**
 * nfswb_probe_offsets_load() - read and parse a probe-offsets file
 * @path: the file
 * @o: out
 * @why: out: the reason on failure, naming @path
 * @whylen: size of @why
 *
 * Return: 0, or a negative errno: nfswb_read_file_bounded()'s (-ENOENT,
 * -EISDIR, -EFBIG past NFSWB_PROBE_OFFSETS_MAX, ...), or -EINVAL for a NUL
 * byte or what nfswb_probe_offsets_parse() refuses.
 */
int nfswb_probe_offsets_load(const char *path, struct nfswb_probe_offsets *o,
			     char *why, size_t whylen);

/*
 * The fetch arguments of the entry probe, in the fields lib/trace.c
 * parses (xid_be, dev, ino, uid), best first: BTF names with the owner,
 * without it, then from @o's offsets when set; NULL ends the list.
 * nfsd_commit(rqstp, fhp, nf, offset, count, ...) in every kernel since
 * 5.15: $arg1 is the request, $arg3 the open file.
 */
#define NFSWB_PROBE_ARGS_MAX	4
#define NFSWB_PROBE_ARG_LEN	256

struct nfswb_probe_args {
	char v[NFSWB_PROBE_ARGS_MAX][NFSWB_PROBE_ARG_LEN];
	bool from_offsets[NFSWB_PROBE_ARGS_MAX];
	size_t count;
};

/**
 * nfswb_probe_args() - every form of the entry probe's fetch arguments
 * @o: offsets, or NULL / not set for the BTF forms only
 * @args: out
 */
void nfswb_probe_args(const struct nfswb_probe_offsets *o,
		      struct nfswb_probe_args *args);

#endif
