/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load.h - what the parts of nfswb-load share: the options, one simulated
 * client and the run they make up, and the phases each client goes
 * through.  Like xfs_io's io/ directory, one file holds each part:
 *
 *   nfswb-load.c  main: set-up, the client threads, their start gate
 *   options.c     the command line, its usage made from one option table
 *   client.c      one client's calls: failures, pauses, JUKEBOX, stop
 *   mount.c       MOUNT and FSINFO: the export's root and transfer sizes
 *   file.c        CREATE (or LOOKUP) and REMOVE of a client's file
 *   write.c       the write phase: WRITEs in flight, COMMIT, rewrites
 *   verify.c      the read-back of every byte
 *   report.c      the figures, as fio-style text or JSON
 *
 * and nfs3_client.c / nfs3_pipe.c carry the RPCs, rpcbind.c finds the ports.
 */
#ifndef NFSWB_LOAD_H
#define NFSWB_LOAD_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "latency.h"
#include "nfs3_client.h"
#include "nfs3_pipe.h"

#define LOAD_MAX_CLIENTS	1024
#define LOAD_MAX_WSIZE		(16u << 20)	/* far above any server's wtmax */
#define LOAD_DEFAULT_IOSIZE	(1u << 20)	/* the Linux client's cap */
#define LOAD_DEFAULT_SIZE	(64ull << 20)
#define LOAD_DEFAULT_TIMEOUT_MS	30000
/* More clients than this get no line each in the text output (--json has). */
#define LOAD_TEXT_MAX_CLIENTS	16
/* Pause before resending a call the server answered NFS3ERR_JUKEBOX. */
#define LOAD_JUKEBOX_PAUSE_US	100000
/* A verifier that changes this often means a server that keeps restarting. */
#define LOAD_MAX_RECOMMITS	8

struct load_opts {
	struct nfs3_server srv;
	const char *export;
	unsigned int clients;
	unsigned int iodepth;		/* WRITEs in flight per client */
	uint64_t size;
	uint64_t rate;			/* bytes/s per client, 0 = unpaced */
	uint64_t wsize;			/* 0 = the server's choice */
	uint64_t commit_every;		/* 0 = on close only */
	stable_how stable;
	uint64_t duration_ms;		/* 0 = one pass */
	bool verify;
	bool json;
	bool keep;
};

struct load_run;

/* A WRITE in flight, by its nfs3_pipe tag. */
struct load_io {
	uint64_t off;
	uint32_t len;
	bool busy;
};

struct load_client {
	struct load_run *run;
	unsigned int id;
	pthread_t thread;
	struct nfs3_conn conn;
	struct nfs3_pipe pipe;		/* the write phase's connection */
	struct load_io *ios;		/* iodepth of them */
	uint64_t issued_since_commit;	/* bytes sent in WRITEs */
	uint64_t jukebox_since;		/* first JUKEBOX of a WRITE in a row */
	char name[NAME_MAX + 1];
	nfs_fh3 fh;
	bool created;
	uint64_t key;			/* of the data pattern (pattern.h) */
	uint64_t *pat;			/* pattern scratch, iosize + 2 words */

	/* Unstable data not yet committed: [win_start, win_end). */
	uint64_t win_start, win_end;
	bool win_unstable;
	bool win_have_verf;
	bool win_mixed;			/* writes returned different verifiers */
	char win_verf[NFS3_WRITEVERFSIZE];

	uint64_t extent;		/* bytes from 0 that hold the pattern */
	uint64_t bytes_written, write_ops;
	uint64_t commit_ops;
	uint64_t bytes_read, read_ops;
	uint64_t verifier_changes, rewritten_bytes;
	uint64_t jukebox_retries;
	uint64_t passes;
	unsigned int max_in_flight;	/* the most WRITEs that were */
	struct nfswb_lat write_lat, commit_lat, read_lat;
	uint64_t t_write_start, t_write_end;
	uint64_t t_read_start, t_read_end;
	bool verified;

	enum load_err rc;
	char err[NFS3_ERRLEN];
};

struct load_run {
	const struct load_opts *o;
	nfs_fh3 root;
	uint32_t wsize, rsize;
	uint64_t seed;
	/* The start gate: clients connect and create, then wait for "go". */
	pthread_mutex_t gate_lock;
	pthread_cond_t gate_cond;
	unsigned int gate_ready;
	bool gate_open;
	atomic_bool stop;		/* an error or a signal: wind down */
	struct load_client *clients;
};

/* SIGINT or SIGTERM arrived: every client winds down. */
extern atomic_bool load_interrupted;

/* client.c */
bool load_should_stop(struct load_run *run);
const char *load_stable_name(stable_how s);
enum load_err load_client_fail(struct load_client *c, enum load_err rc,
			       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void load_sleep_until_us(struct load_run *run, uint64_t t_us);
enum load_err load_client_call(struct load_client *c, rpcproc_t proc,
			       xdrproc_t xargs, void *args, xdrproc_t xres,
			       void *res, size_t res_size, uint64_t *rtt,
			       char *err);
enum load_err load_client_op(struct load_client *c, rpcproc_t proc,
			     xdrproc_t xargs, void *args, xdrproc_t xres,
			     void *res, size_t res_size, uint64_t *rtt,
			     const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));

/* mount.c */
enum load_err load_mount_export(const struct load_opts *o, nfs_fh3 *root,
				bool unmount);
enum load_err load_negotiate_sizes(struct load_run *run);

/* file.c */
enum load_err load_create_file(struct load_client *c);
void load_remove_file(struct load_client *c);

/* write.c */
enum load_err load_write_phase(struct load_client *c);

/* verify.c */
enum load_err load_verify_phase(struct load_client *c);

/* report.c: print the figures; returns the run's exit code. */
enum load_err load_report(struct load_run *run);

/* options.c: fill @o from the command line (exits for --help). */
enum load_err load_parse_args(int argc, char **argv, struct load_opts *o);

#endif /* NFSWB_LOAD_H */
