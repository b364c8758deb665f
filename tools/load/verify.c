// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify.c - the read-back phase: the file must have exactly the size
 * that was written and every byte of the data pattern.
 */
#include "config.h"

#include <inttypes.h>

#include "load.h"
#include "pattern.h"

/* The file must be exactly what was written: size, then every byte. */
enum load_err load_verify_phase(struct load_client *c)
{
	GETATTR3args ga = { .object = c->fh };
	GETATTR3res gr;
	uint64_t off, size;
	enum load_err rc;

	rc = load_client_op(c, NFSPROC3_GETATTR, (xdrproc_t)xdr_GETATTR3args,
			    &ga, (xdrproc_t)xdr_GETATTR3res, &gr, sizeof(gr),
			    NULL, "GETATTR %s", c->name);
	if (rc != LOAD_OK)
		return rc;
	size = gr.GETATTR3res_u.resok.obj_attributes.size;
	if (size != c->extent)
		return load_client_fail(c, LOAD_ERR_VERIFY,
					"verify %s: file has %" PRIu64 " bytes, %" PRIu64 " were written",
					c->name, size, c->extent);

	c->t_read_start = nfswb_now_us();
	for (off = 0; off < c->extent && !load_should_stop(c->run);) {
		uint64_t left = c->extent - off;
		uint32_t n = left < c->run->rsize ? (uint32_t)left : c->run->rsize;
		READ3args a = { .file = c->fh, .offset = off, .count = n };
		READ3res r;
		READ3resok *ok = &r.READ3res_u.resok;
		uint8_t want;
		uint64_t rtt;
		size_t i;

		/* xdr_bytes allocates the data: a server cannot overrun us. */
		rc = load_client_op(c, NFSPROC3_READ,
				    (xdrproc_t)xdr_READ3args, &a,
				    (xdrproc_t)xdr_READ3res, &r, sizeof(r),
				    &rtt, "READ %s offset %" PRIu64, c->name, off);
		if (rc != LOAD_OK)
			return rc;
		if (ok->data.data_len == 0 || ok->data.data_len > n) {
			rc = load_client_fail(c, LOAD_ERR_VERIFY,
					      "verify %s: READ at offset %" PRIu64 " returned %u bytes%s, expected %u",
					      c->name, off, ok->data.data_len,
					      ok->eof ? " and EOF" : "", n);
			xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
			return rc;
		}
		if (nfswb_lat_add(&c->read_lat, rtt) < 0) {
			xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
			return load_client_fail(c, LOAD_ERR_INTERNAL,
						"out of memory");
		}
		n = ok->data.data_len;
		i = nfswb_pattern_check(c->key, off, ok->data.data_val, n,
					&want);
		if (i < n) {
			rc = load_client_fail(c, LOAD_ERR_VERIFY,
					      "verify %s: data differs at offset %" PRIu64 ": expected 0x%02x, read 0x%02x",
					      c->name, off + i, want,
					      (uint8_t)ok->data.data_val[i]);
			xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
			return rc;
		}
		xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
		c->read_ops++;
		c->bytes_read += n;
		off += n;
	}
	c->t_read_end = nfswb_now_us();
	if (off >= c->extent)
		c->verified = true;
	return LOAD_OK;
}
