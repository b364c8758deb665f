/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mech_files_kick.h - start writeback of a file range without waiting for it.
 *
 * SYNC_FILE_RANGE_WRITE only: the kernel queues the range's dirty pages
 * for write-out (WB_SYNC_NONE) and returns; nothing waits for the I/O and
 * nothing is fsync()ed, so an NFS COMMIT still does its own flush.
 * Submission itself can block (folio locks, allocation, queue depth), so
 * it never runs on the daemon's main loop: io_uring punts
 * IORING_OP_SYNC_FILE_RANGE to its io-wq workers, and where io_uring is
 * unavailable (io_uring_disabled, seccomp, old kernel) or turned off, one
 * worker thread of ours calls sync_file_range(2).
 *
 * The caller must keep each fd open until its kick is reaped.
 */
#ifndef NFSWB_MECH_FILES_KICK_H
#define NFSWB_MECH_FILES_KICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nfswb_kicker;

/* io_uring's sqe->len is 32 bits: longer ranges are split into these. */
#define NFSWB_KICK_MAX_LEN	(1ull << 30)
/* Kicks queued at once; more are refused with EAGAIN until reaped. */
#define NFSWB_KICK_QUEUE	256

/**
 * nfswb_kicker_open - set up the kicking method.
 * @kp: the new kicker.
 * @use_io_uring: false forces the worker thread.
 * @note: when io_uring was wanted but could not be used, why (else "").
 * @len: size of @note.
 *
 * Return: 0, or a negative errno (no thread could be created either).
 */
int nfswb_kicker_open(struct nfswb_kicker **kp, bool use_io_uring,
		      char *note, size_t len);

/** nfswb_kicker_method - "io_uring" or "sync_file_range thread". */
const char *nfswb_kicker_method(const struct nfswb_kicker *k);

/**
 * nfswb_kicker_kick - queue writeback of [@off, @off + @len) of @fd.
 * @k: kicker.
 * @fd: open file; keep it open until the kick is reaped.
 * @off: start.
 * @len: bytes, at most NFSWB_KICK_MAX_LEN; 0 means to the end of file.
 * @token: handed back by nfswb_kicker_reap().
 *
 * Return: 0, or -EAGAIN when NFSWB_KICK_QUEUE kicks are outstanding
 * (-EINVAL: @len too long).
 */
int nfswb_kicker_kick(struct nfswb_kicker *k, int fd, uint64_t off,
		      uint64_t len, void *token);

/**
 * nfswb_kicker_flush - hand queued kicks to the kernel or the worker.
 * Return: 0, or the negative errno of io_uring_submit().
 */
int nfswb_kicker_flush(struct nfswb_kicker *k);

/**
 * nfswb_kicker_reap - collect completed kicks without waiting.
 * @k: kicker.
 * @done: called for each with its token and result (0 or -errno).
 * @arg: passed to @done.
 *
 * Return: the number reaped.
 */
unsigned int nfswb_kicker_reap(struct nfswb_kicker *k,
			       void (*done)(void *arg, void *token, int res),
			       void *arg);

/** nfswb_kicker_outstanding - kicks queued and not yet reaped. */
unsigned int nfswb_kicker_outstanding(const struct nfswb_kicker *k);

/**
 * nfswb_kicker_close - wait for outstanding kicks, reap them through
 * @done (may be NULL), and free @k.  Only submission is waited for, never
 * the writeback itself.
 */
void nfswb_kicker_close(struct nfswb_kicker *k,
			void (*done)(void *arg, void *token, int res),
			void *arg);

#endif
