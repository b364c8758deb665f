// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfswb-load - an NFSv3 load generator that measures WRITE and COMMIT as a
 * client sees them.
 *
 * Each simulated client is one thread with its own TCP connection and its
 * own file.  It writes the file sequentially with WRITEs of --wsize bytes,
 * paced to --rate, and sends COMMIT for what it wrote unstable, every
 * --commit-every bytes and at the end of each pass over the file (a
 * "close").  Like the Linux client, it keeps the write verifier of each
 * unstable WRITE and, when a COMMIT returns a different one (the server
 * restarted and may have lost the data), writes the range again and
 * recommits.  Nothing is cached on this side, so the numbers depend on the
 * server alone.
 *
 * libtirpc has no asynchronous calls, so the write phase runs on a
 * connection of its own (nfs3_pipe.c) that keeps up to --iodepth WRITEs in
 * flight, as a kernel client does; set-up, read-back and clean-up are one
 * call at a time on the libtirpc one.  See nfswb-load(1).
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "pattern.h"
#include "rpcbind.h"

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&load_interrupted, true);
}

static void *client_main(void *arg)
{
	struct load_client *c = arg;
	struct load_run *run = c->run;
	const struct load_opts *o = run->o;
	char err[NFS3_ERRLEN];
	enum load_err rc;

	rc = nfs3_connect(&c->conn, &o->srv, NFS_PROGRAM, NFS_V3,
			  o->srv.nfs_port, err);
	if (rc != LOAD_OK)
		load_client_fail(c, rc, "%s", err);
	else if (load_create_file(c) == LOAD_OK) {
		rc = nfs3_pipe_open(&c->pipe, &o->srv, NFS_PROGRAM, NFS_V3,
				    o->srv.nfs_port, o->iodepth, err);
		if (rc != LOAD_OK)
			load_client_fail(c, rc, "%s", err);
	}

	/* Time counts from when every client has its connection and file. */
	pthread_mutex_lock(&run->gate_lock);
	run->gate_ready++;
	pthread_cond_broadcast(&run->gate_cond);
	while (!run->gate_open)
		pthread_cond_wait(&run->gate_cond, &run->gate_lock);
	pthread_mutex_unlock(&run->gate_lock);
	if (load_should_stop(run))
		goto out;
	rc = load_write_phase(c);
	nfs3_pipe_close(&c->pipe);
	if (rc != LOAD_OK)
		goto out;
	if (o->verify && !load_should_stop(run))
		load_verify_phase(c);
out:
	nfs3_pipe_close(&c->pipe);
	if (c->created && !o->keep && c->conn.clnt)
		load_remove_file(c);
	nfs3_disconnect(&c->conn);
	return NULL;
}

static enum load_err run_clients(struct load_run *run)
{
	const struct load_opts *o = run->o;
	char host[64];
	unsigned int i, started = 0;
	size_t iosize;
	enum load_err rc;

	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	iosize = run->wsize > run->rsize ? run->wsize : run->rsize;

	run->clients = calloc(o->clients, sizeof(*run->clients));
	if (!run->clients)
		goto nomem;
	for (i = 0; i < o->clients; i++) {
		struct load_client *c = &run->clients[i];

		c->run = run;
		c->id = i;
		c->key = nfswb_pattern_key(run->seed, i);
		snprintf(c->name, sizeof(c->name), "nfswb-load.%s.%ld.%u",
			 host, (long)getpid(), i);
		c->pat = malloc(iosize + 2 * sizeof(uint64_t));
		c->ios = calloc(o->iodepth, sizeof(*c->ios));
		if (!c->pat || !c->ios)
			goto nomem;
	}

	pthread_mutex_init(&run->gate_lock, NULL);
	pthread_cond_init(&run->gate_cond, NULL);
	for (i = 0; i < o->clients; i++) {
		int err = pthread_create(&run->clients[i].thread, NULL,
					 client_main, &run->clients[i]);

		if (err) {
			fprintf(stderr, "nfswb-load: cannot start client %u: %s\n",
				i, strerror(err));
			atomic_store(&run->stop, true);
			break;
		}
		started++;
	}
	pthread_mutex_lock(&run->gate_lock);
	while (run->gate_ready < started)
		pthread_cond_wait(&run->gate_cond, &run->gate_lock);
	run->gate_open = true;
	pthread_cond_broadcast(&run->gate_cond);
	pthread_mutex_unlock(&run->gate_lock);
	for (i = 0; i < started; i++)
		pthread_join(run->clients[i].thread, NULL);
	pthread_cond_destroy(&run->gate_cond);
	pthread_mutex_destroy(&run->gate_lock);

	rc = load_report(run);
	if (started < o->clients && rc == LOAD_OK)
		rc = LOAD_ERR_INTERNAL;
	return rc;

nomem:
	fprintf(stderr, "nfswb-load: out of memory\n");
	return LOAD_ERR_INTERNAL;
}

static void free_run(struct load_run *run)
{
	unsigned int i;

	if (run->clients) {
		for (i = 0; i < run->o->clients; i++) {
			struct load_client *c = &run->clients[i];

			free(c->pat);
			free(c->ios);
			free(c->fh.data.data_val);
			nfswb_lat_free(&c->write_lat);
			nfswb_lat_free(&c->commit_lat);
			nfswb_lat_free(&c->read_lat);
		}
		free(run->clients);
	}
	free(run->root.data.data_val);
}

int main(int argc, char **argv)
{
	struct load_opts o = { 0 };
	struct load_run run = { .o = &o };
	struct sigaction sa = { .sa_handler = on_signal };
	char err[NFS3_ERRLEN];
	enum load_err rc;

	rc = load_parse_args(argc, argv, &o);
	if (rc != LOAD_OK)
		return rc;

	/* A server that resets the connection must not kill us by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (!o.srv.nfs_port) {
		rc = nfs3_getport(&o.srv, NFS_PROGRAM, NFS_V3, &o.srv.nfs_port,
				  err);
		if (rc != LOAD_OK)
			goto fail_msg;
	}
	if (!o.srv.mount_port) {
		rc = nfs3_getport(&o.srv, MOUNT_PROGRAM, MOUNT_V3,
				  &o.srv.mount_port, err);
		if (rc != LOAD_OK)
			goto fail_msg;
	}
	rc = load_mount_export(&o, &run.root, false);
	if (rc != LOAD_OK)
		return rc;
	rc = load_negotiate_sizes(&run);
	if (rc == LOAD_OK) {
		run.seed = nfswb_splitmix64(nfswb_now_us() ^
					    ((uint64_t)getpid() << 32));
		rc = run_clients(&run);
	}
	load_mount_export(&o, NULL, true);
	free_run(&run);
	return rc;

fail_msg:
	fprintf(stderr, "nfswb-load: %s\n", err);
	return rc;
}
