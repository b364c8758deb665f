// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mech_files_kick.c - non-blocking writeback starts: io_uring, or a
 * worker thread calling sync_file_range(2) (mech_files_kick.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mech_files_kick.h"

struct kick_job {
	int fd;
	uint64_t off, len;
	void *token;
	int res;
};

struct nfswb_kicker {
	bool uring;
	unsigned int outstanding;
	struct io_uring ring;
	/* Worker thread fallback: two rings of jobs under one mutex. */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct kick_job todo[NFSWB_KICK_QUEUE], done[NFSWB_KICK_QUEUE];
	unsigned int todo_head, todo_n, done_head, done_n;
};

static void *kick_worker(void *arg)
{
	struct nfswb_kicker *k = arg;
	struct kick_job job;

	pthread_mutex_lock(&k->lock);
	for (;;) {
		while (!k->todo_n && !k->stop)
			pthread_cond_wait(&k->cond, &k->lock);
		if (!k->todo_n)
			break;
		job = k->todo[k->todo_head];
		k->todo_head = (k->todo_head + 1) % NFSWB_KICK_QUEUE;
		k->todo_n--;
		pthread_mutex_unlock(&k->lock);

		job.res = sync_file_range(job.fd, (off64_t)job.off,
					  (off64_t)job.len,
					  SYNC_FILE_RANGE_WRITE) < 0 ? -errno : 0;

		pthread_mutex_lock(&k->lock);
		k->done[(k->done_head + k->done_n) % NFSWB_KICK_QUEUE] = job;
		k->done_n++;
		pthread_cond_broadcast(&k->cond);
	}
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

static int uring_open(struct nfswb_kicker *k, char *note, size_t len)
{
	struct io_uring_probe *probe;
	int ret;

	ret = io_uring_queue_init(NFSWB_KICK_QUEUE, &k->ring, 0);
	if (ret < 0) {
		snprintf(note, len,
			 "io_uring unavailable (%s; see /proc/sys/kernel/io_uring_disabled)",
			 strerror(-ret));
		return ret;
	}
	probe = io_uring_get_probe_ring(&k->ring);
	if (!probe || !io_uring_opcode_supported(probe,
						 IORING_OP_SYNC_FILE_RANGE)) {
		snprintf(note, len,
			 "io_uring lacks IORING_OP_SYNC_FILE_RANGE");
		io_uring_free_probe(probe);
		io_uring_queue_exit(&k->ring);
		return -EOPNOTSUPP;
	}
	io_uring_free_probe(probe);
	return 0;
}

int nfswb_kicker_open(struct nfswb_kicker **kp, bool use_io_uring,
		      char *note, size_t len)
{
	struct nfswb_kicker *k = calloc(1, sizeof(*k));

	int ret;

	*kp = NULL;
	if (note && len)
		note[0] = '\0';
	if (!k)
		return -ENOMEM;
	if (use_io_uring && uring_open(k, note, len) == 0) {
		k->uring = true;
		*kp = k;
		return 0;
	}
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->cond, NULL);
	ret = pthread_create(&k->thread, NULL, kick_worker, k);
	if (ret) {
		pthread_mutex_destroy(&k->lock);
		pthread_cond_destroy(&k->cond);
		free(k);
		return -ret;
	}
	*kp = k;
	return 0;
}

const char *nfswb_kicker_method(const struct nfswb_kicker *k)
{
	return k->uring ? "io_uring" : "sync_file_range thread";
}

int nfswb_kicker_kick(struct nfswb_kicker *k, int fd, uint64_t off,
		      uint64_t len, void *token)
{
	struct io_uring_sqe *sqe;
	struct kick_job *j;

	if (len > NFSWB_KICK_MAX_LEN)
		return -EINVAL;
	if (k->outstanding >= NFSWB_KICK_QUEUE)
		return -EAGAIN;
	if (k->uring) {
		sqe = io_uring_get_sqe(&k->ring);
		if (!sqe)
			return -EAGAIN;
		io_uring_prep_sync_file_range(sqe, fd, (unsigned int)len, off,
					      SYNC_FILE_RANGE_WRITE);
		io_uring_sqe_set_data(sqe, token);
	} else {
		pthread_mutex_lock(&k->lock);
		j = &k->todo[(k->todo_head + k->todo_n) % NFSWB_KICK_QUEUE];
		j->fd = fd;
		j->off = off;
		j->len = len;
		j->token = token;
		j->res = 0;
		k->todo_n++;
		pthread_cond_broadcast(&k->cond);
		pthread_mutex_unlock(&k->lock);
	}
	k->outstanding++;
	return 0;
}

int nfswb_kicker_flush(struct nfswb_kicker *k)
{
	int ret;

	if (!k->uring)
		return 0;
	ret = io_uring_submit(&k->ring);
	return ret < 0 ? ret : 0;
}

unsigned int nfswb_kicker_reap(struct nfswb_kicker *k,
			       void (*done)(void *arg, void *token, int res),
			       void *arg)
{
	struct io_uring_cqe *cqe;
	struct kick_job job;
	unsigned int n = 0;

	if (k->uring) {
		while (io_uring_peek_cqe(&k->ring, &cqe) == 0) {
			void *token = io_uring_cqe_get_data(cqe);
			int res = cqe->res;

			io_uring_cqe_seen(&k->ring, cqe);
			k->outstanding--;
			n++;
			if (done)
				done(arg, token, res);
		}
		return n;
	}
	pthread_mutex_lock(&k->lock);
	while (k->done_n) {
		job = k->done[k->done_head];
		k->done_head = (k->done_head + 1) % NFSWB_KICK_QUEUE;
		k->done_n--;
		k->outstanding--;
		n++;
		pthread_mutex_unlock(&k->lock);
		if (done)
			done(arg, job.token, job.res);
		pthread_mutex_lock(&k->lock);
	}
	pthread_mutex_unlock(&k->lock);
	return n;
}

unsigned int nfswb_kicker_outstanding(const struct nfswb_kicker *k)
{
	return k->outstanding;
}

void nfswb_kicker_close(struct nfswb_kicker *k,
			void (*done)(void *arg, void *token, int res),
			void *arg)
{
	struct io_uring_cqe *cqe;

	if (!k)
		return;
	if (k->uring) {
		io_uring_submit(&k->ring);
		while (k->outstanding) {
			if (io_uring_wait_cqe(&k->ring, &cqe) < 0)
				break;
			nfswb_kicker_reap(k, done, arg);
		}
		io_uring_queue_exit(&k->ring);
	} else {
		pthread_mutex_lock(&k->lock);
		k->stop = true;
		pthread_cond_broadcast(&k->cond);
		pthread_mutex_unlock(&k->lock);
		/* The worker drains the queue before it stops. */
		pthread_join(k->thread, NULL);
		nfswb_kicker_reap(k, done, arg);
		pthread_mutex_destroy(&k->lock);
		pthread_cond_destroy(&k->cond);
	}
	free(k);
}
