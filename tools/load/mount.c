// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mount.c - MOUNT v3 of the export (and UMNT at the end), and FSINFO
 * for the transfer sizes the server takes.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "load.h"
#include "units.h"

/* MNT the export and return its root handle. */
enum load_err load_mount_export(const struct load_opts *o, nfs_fh3 *root,
				bool unmount)
{
	char err[NFS3_ERRLEN];
	struct nfs3_conn mc;
	char *path = (char *)o->export;
	mountres3 r;
	enum load_err rc;
	unsigned int i;

	rc = nfs3_connect(&mc, &o->srv, MOUNT_PROGRAM, MOUNT_V3,
			  o->srv.mount_port, err);
	if (rc != LOAD_OK) {
		fprintf(stderr, "nfswb-load: %s\n", err);
		return rc;
	}
	if (unmount) {
		/* UMNT is a courtesy; the server forgets nothing it needs. */
		rc = nfs3_call(&mc, MOUNTPROC3_UMNT, (xdrproc_t)xdr_dirpath,
			       &path, (xdrproc_t)(void (*)(void))xdr_void, NULL, NULL, err);
		if (rc != LOAD_OK)
			fprintf(stderr, "nfswb-load: warning: UMNT %s: %s\n",
				o->export, err);
		nfs3_disconnect(&mc);
		return LOAD_OK;
	}

	memset(&r, 0, sizeof(r));
	rc = nfs3_call(&mc, MOUNTPROC3_MNT, (xdrproc_t)xdr_dirpath, &path,
		       (xdrproc_t)xdr_mountres3, &r, NULL, err);
	nfs3_disconnect(&mc);
	if (rc != LOAD_OK) {
		fprintf(stderr, "nfswb-load: MNT %s: %s\n", o->export, err);
		return rc;
	}
	if (r.fhs_status != MNT3_OK) {
		fprintf(stderr, "nfswb-load: %s refused to mount %s: %s\n",
			o->srv.host, o->export, mnt3_stat_name(r.fhs_status));
		xdr_free((xdrproc_t)xdr_mountres3, (char *)&r);
		return LOAD_ERR_MOUNT;
	}
	rc = LOAD_ERR_MOUNT;
	if (r.mountres3_u.mountinfo.auth_flavors.auth_flavors_len == 0)
		rc = LOAD_OK;
	for (i = 0; i < r.mountres3_u.mountinfo.auth_flavors.auth_flavors_len;
	     i++)
		if (r.mountres3_u.mountinfo.auth_flavors.auth_flavors_val[i] ==
		    AUTH_SYS)
			rc = LOAD_OK;
	if (rc != LOAD_OK) {
		fprintf(stderr, "nfswb-load: %s exports %s without AUTH_SYS (sec=sys); nfswb-load speaks only AUTH_SYS\n",
			o->srv.host, o->export);
		xdr_free((xdrproc_t)xdr_mountres3, (char *)&r);
		return rc;
	}
	root->data.data_len = r.mountres3_u.mountinfo.fhandle.fhandle3_len;
	root->data.data_val = r.mountres3_u.mountinfo.fhandle.fhandle3_val;
	r.mountres3_u.mountinfo.fhandle.fhandle3_val = NULL;
	r.mountres3_u.mountinfo.fhandle.fhandle3_len = 0;
	xdr_free((xdrproc_t)xdr_mountres3, (char *)&r);
	return LOAD_OK;
}

/* Transfer sizes: --wsize, capped by what the server takes. */
enum load_err load_negotiate_sizes(struct load_run *run)
{
	const struct load_opts *o = run->o;
	char err[NFS3_ERRLEN], a[32], b[32];
	FSINFO3args fa = { .fsroot = run->root };
	FSINFO3res fr;
	FSINFO3resok *ok = &fr.FSINFO3res_u.resok;
	struct nfs3_conn nc;
	enum load_err rc;
	uint32_t wtmax, rtmax;

	rc = nfs3_connect(&nc, &o->srv, NFS_PROGRAM, NFS_V3, o->srv.nfs_port,
			  err);
	if (rc != LOAD_OK) {
		fprintf(stderr, "nfswb-load: %s\n", err);
		return rc;
	}
	memset(&fr, 0, sizeof(fr));
	rc = nfs3_call(&nc, NFSPROC3_FSINFO, (xdrproc_t)xdr_FSINFO3args, &fa,
		       (xdrproc_t)xdr_FSINFO3res, &fr, NULL, err);
	nfs3_disconnect(&nc);
	if (rc != LOAD_OK) {
		fprintf(stderr, "nfswb-load: FSINFO %s: %s\n", o->export, err);
		return rc;
	}
	if (fr.status != NFS3_OK) {
		fprintf(stderr, "nfswb-load: FSINFO %s: %s\n", o->export,
			nfs3_stat_name(fr.status));
		xdr_free((xdrproc_t)xdr_FSINFO3res, (char *)&fr);
		return LOAD_ERR_NFS;
	}
	wtmax = ok->wtmax ? ok->wtmax : LOAD_DEFAULT_IOSIZE;
	rtmax = ok->rtmax ? ok->rtmax : LOAD_DEFAULT_IOSIZE;
	xdr_free((xdrproc_t)xdr_FSINFO3res, (char *)&fr);

	run->wsize = wtmax < LOAD_DEFAULT_IOSIZE ? wtmax : LOAD_DEFAULT_IOSIZE;
	if (o->wsize && o->wsize <= wtmax) {
		run->wsize = (uint32_t)o->wsize;
	} else if (o->wsize) {
		fprintf(stderr, "nfswb-load: warning: --wsize %s is more than the server's wtmax %s; using %s\n",
			nfswb_format_size(o->wsize, a, sizeof(a)),
			nfswb_format_size(wtmax, b, sizeof(b)), b);
		run->wsize = wtmax;
	}
	run->rsize = rtmax < LOAD_DEFAULT_IOSIZE ? rtmax : LOAD_DEFAULT_IOSIZE;
	return LOAD_OK;
}
