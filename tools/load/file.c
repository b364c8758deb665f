// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * file.c - each client's file on the server: CREATE (UNCHECKED, size 0,
 * so a file an earlier run left is truncated), LOOKUP when the server
 * sends no handle, and REMOVE at the end.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "load.h"

enum load_err load_create_file(struct load_client *c)
{
	CREATE3args a;
	CREATE3res r;
	CREATE3resok *ok = &r.CREATE3res_u.resok;
	sattr3 *attr = &a.how.createhow3_u.obj_attributes;
	enum load_err rc;

	/* UNCHECKED with size 0 truncates a file left by an earlier run. */
	memset(&a, 0, sizeof(a));
	a.where.dir = c->run->root;
	a.where.name = c->name;
	a.how.mode = UNCHECKED;
	attr->mode.set_it = TRUE;
	attr->mode.set_mode3_u.mode = 0644;
	attr->size.set_it = TRUE;
	attr->size.set_size3_u.size = 0;

	rc = load_client_op(c, NFSPROC3_CREATE, (xdrproc_t)xdr_CREATE3args,
			    &a, (xdrproc_t)xdr_CREATE3res, &r, sizeof(r),
			    NULL, "CREATE %s in %s", c->name, c->run->o->export);
	if (rc != LOAD_OK)
		return rc;
	c->created = true;
	if (ok->obj.handle_follows) {
		/* Take the handle over; the rest of the reply is freed. */
		c->fh = ok->obj.post_op_fh3_u.handle;
		memset(&ok->obj.post_op_fh3_u.handle, 0,
		       sizeof(ok->obj.post_op_fh3_u.handle));
		xdr_free((xdrproc_t)xdr_CREATE3res, (char *)&r);
		return LOAD_OK;
	}
	xdr_free((xdrproc_t)xdr_CREATE3res, (char *)&r);

	/* The server may omit the handle; LOOKUP is then required. */
	{
		LOOKUP3args la = { .what = a.where };
		LOOKUP3res lr;

		rc = load_client_op(c, NFSPROC3_LOOKUP,
				    (xdrproc_t)xdr_LOOKUP3args, &la,
				    (xdrproc_t)xdr_LOOKUP3res, &lr, sizeof(lr),
				    NULL, "LOOKUP %s", c->name);
		if (rc != LOAD_OK)
			return rc;
		c->fh = lr.LOOKUP3res_u.resok.object;
		memset(&lr.LOOKUP3res_u.resok.object, 0,
		       sizeof(lr.LOOKUP3res_u.resok.object));
		xdr_free((xdrproc_t)xdr_LOOKUP3res, (char *)&lr);
	}
	return LOAD_OK;
}

void load_remove_file(struct load_client *c)
{
	char err[NFS3_ERRLEN];
	REMOVE3args a = {
		.object.dir = c->run->root,
		.object.name = c->name,
	};
	REMOVE3res r;

	if (load_client_call(c, NFSPROC3_REMOVE, (xdrproc_t)xdr_REMOVE3args, &a,
			     (xdrproc_t)xdr_REMOVE3res, &r, sizeof(r), NULL,
			     err) != LOAD_OK) {
		fprintf(stderr, "nfswb-load: warning: REMOVE %s: %s\n",
			c->name, err);
		return;
	}
	if (r.status != NFS3_OK)
		fprintf(stderr, "nfswb-load: warning: REMOVE %s: %s\n",
			c->name, nfs3_stat_name(r.status));
	xdr_free((xdrproc_t)xdr_REMOVE3res, (char *)&r);
}
