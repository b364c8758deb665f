// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report.c - what the clients did, added up: fio's lines and
 * percentiles as text, or one JSON object (the schema of latency.h).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>

#include "json.h"
#include "load.h"
#include "units.h"

struct op_total {
	uint64_t ops, bytes;
	uint64_t t_start, t_end;	/* earliest start, latest end */
	struct nfswb_lat lat;
	struct nfswb_lat_summary sum;
};

static void total_add(struct op_total *t, const struct nfswb_lat *l,
		      uint64_t bytes, uint64_t start, uint64_t end)
{
	size_t i;

	t->ops += l->count;
	t->bytes += bytes;
	if (start && (!t->t_start || start < t->t_start))
		t->t_start = start;
	if (end > t->t_end)
		t->t_end = end;
	for (i = 0; i < l->count; i++)
		nfswb_lat_add(&t->lat, l->us[i]);
}

static double total_secs(const struct op_total *t)
{
	if (!t->t_start || t->t_end <= t->t_start)
		return 0;
	return (double)(t->t_end - t->t_start) / 1e6;
}

static double total_bw(const struct op_total *t)
{
	double s = total_secs(t);

	return s > 0 ? (double)t->bytes / s : 0;
}

/* fio's line: "write: IOPS=256, BW=123MiB/s (129MB/s)(256MiB/2083msec)" */
static void print_bw_line(FILE *out, const char *label,
			  const struct op_total *t)
{
	double s = total_secs(t), bw = total_bw(t);
	char sz[32];

	fprintf(out, "  %s: IOPS=%.0f, BW=%.1fMiB/s (%.1fMB/s)(%s/%.0fmsec)\n",
		label, s > 0 ? (double)t->ops / s : 0, bw / 1048576, bw / 1e6,
		nfswb_format_size(t->bytes, sz, sizeof(sz)), s * 1000);
}

static const char *verify_state(const struct load_opts *o,
				const struct load_client *c)
{
	if (!o->verify)
		return "off";
	if (c->verified)
		return "ok";
	return c->rc == LOAD_ERR_VERIFY ? "failed" : "not done";
}

/* What the clients did, added up. */
struct load_totals {
	struct op_total write, commit, read;
	uint64_t verifier_changes, rewritten_bytes;
	uint64_t reconnects, jukebox_retries;
	unsigned int max_in_flight;	/* of any client */
	bool all_verified;
	const char *error;		/* the first client's failure */
	struct rusage ru;
};

static double tv_secs(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static void print_text(const struct load_run *run,
		       const struct load_totals *t)
{
	const struct load_opts *o = run->o;
	char a[32], b[32], r[32], ce[32];
	unsigned int i;

	if (o->commit_every)
		nfswb_format_size(o->commit_every, ce, sizeof(ce));
	else
		snprintf(ce, sizeof(ce), "close");
	printf("nfswb-load: %u client%s, iodepth=%u, %s:%u %s, size=%s, wsize=%s, stable=%s, commit-every=%s, rate=%s\n",
	       o->clients, o->clients == 1 ? "" : "s", o->iodepth, o->srv.host,
	       o->srv.nfs_port, o->export,
	       nfswb_format_size(o->size, a, sizeof(a)),
	       nfswb_format_size(run->wsize, b, sizeof(b)),
	       load_stable_name(o->stable), ce,
	       o->rate ? nfswb_format_rate(o->rate, r, sizeof(r)) :
			 "unlimited");
	print_bw_line(stdout, "write", &t->write);
	nfswb_lat_print_text(stdout, "  write", &t->write.sum);
	printf("  commit: count=%" PRIu64 "\n", t->commit.ops);
	if (t->commit.ops)
		nfswb_lat_print_text(stdout, "  commit", &t->commit.sum);
	if (o->verify) {
		print_bw_line(stdout, "read", &t->read);
		nfswb_lat_print_text(stdout, "  read", &t->read.sum);
	}
	printf("  verifier changes=%" PRIu64 ", rewritten=%s, reconnects=%" PRIu64 ", jukebox retries=%" PRIu64 ", most WRITEs in flight=%u\n",
	       t->verifier_changes,
	       nfswb_format_size(t->rewritten_bytes, a, sizeof(a)),
	       t->reconnects, t->jukebox_retries, t->max_in_flight);
	for (i = 0; i < o->clients && o->clients <= LOAD_TEXT_MAX_CLIENTS; i++) {
		const struct load_client *c = &run->clients[i];

		printf("  client %u: %s: written=%s in %" PRIu64 " WRITEs, %" PRIu64 " COMMITs, %" PRIu64 " passes, verify %s\n",
		       c->id, c->name,
		       nfswb_format_size(c->bytes_written, a, sizeof(a)),
		       c->write_ops, c->commit_ops, c->passes,
		       verify_state(o, c));
	}
	if (o->verify)
		printf("  verify: %s\n", t->all_verified ? "OK" : "FAILED");
	printf("  cpu: usr=%.3fs, sys=%.3fs\n", tv_secs(&t->ru.ru_utime),
	       tv_secs(&t->ru.ru_stime));
}

static void json_op(struct nfswb_json *j, const char *key,
		    const struct op_total *t)
{
	nfswb_json_obj_begin(j, key);
	nfswb_json_u64(j, "ops", t->ops);
	nfswb_json_u64(j, "bytes", t->bytes);
	nfswb_json_u64(j, "runtime_ms", (uint64_t)(total_secs(t) * 1000));
	nfswb_json_u64(j, "bw_bytes", (uint64_t)total_bw(t));
	nfswb_json_fixed(j, "mb_s", total_bw(t) / 1e6, 3);
	nfswb_json_obj_end(j);
}

static void print_json(const struct load_run *run,
		       const struct load_totals *t)
{
	const struct load_opts *o = run->o;
	struct nfswb_json j;
	unsigned int i;

	nfswb_json_init(&j, stdout, true);
	nfswb_json_obj_begin(&j, NULL);
	nfswb_json_str(&j, "tool", "nfswb-load");
	nfswb_json_str(&j, "version", PACKAGE_VERSION);
	nfswb_json_str(&j, "server", o->srv.host);
	nfswb_json_u64(&j, "nfs_port", o->srv.nfs_port);
	nfswb_json_u64(&j, "mount_port", o->srv.mount_port);
	nfswb_json_str(&j, "export", o->export);
	nfswb_json_u64(&j, "clients", o->clients);
	nfswb_json_u64(&j, "iodepth", o->iodepth);
	nfswb_json_u64(&j, "max_in_flight", t->max_in_flight);
	nfswb_json_u64(&j, "size", o->size);
	nfswb_json_u64(&j, "wsize", run->wsize);
	nfswb_json_u64(&j, "rsize", run->rsize);
	nfswb_json_u64(&j, "rate", o->rate);
	nfswb_json_str(&j, "stable", load_stable_name(o->stable));
	if (o->commit_every)
		nfswb_json_u64(&j, "commit_every", o->commit_every);
	else
		nfswb_json_str(&j, "commit_every", "close");
	nfswb_json_u64(&j, "duration_ms", o->duration_ms);

	json_op(&j, "write", &t->write);
	json_op(&j, "commit", &t->commit);
	if (o->verify)
		json_op(&j, "read", &t->read);
	nfswb_json_fixed(&j, "write_mb_s", total_bw(&t->write) / 1e6, 3);
	nfswb_lat_json(&j, "write_latency_us", &t->write.sum);
	nfswb_lat_json(&j, "commit_latency_us", &t->commit.sum);
	if (o->verify)
		nfswb_lat_json(&j, "read_latency_us", &t->read.sum);
	nfswb_json_u64(&j, "verifier_changes", t->verifier_changes);
	nfswb_json_u64(&j, "rewritten_bytes", t->rewritten_bytes);
	nfswb_json_u64(&j, "reconnects", t->reconnects);
	nfswb_json_u64(&j, "jukebox_retries", t->jukebox_retries);
	nfswb_json_str(&j, "verify", !o->verify ? "off" :
			t->all_verified ? "ok" : "failed");
	nfswb_json_obj_begin(&j, "cpu");
	nfswb_json_fixed(&j, "user_s", tv_secs(&t->ru.ru_utime), 3);
	nfswb_json_fixed(&j, "sys_s", tv_secs(&t->ru.ru_stime), 3);
	nfswb_json_obj_end(&j);

	nfswb_json_arr_begin(&j, "per_client");
	for (i = 0; i < o->clients; i++) {
		struct load_client *c = &run->clients[i];
		struct nfswb_lat_summary cs;

		nfswb_json_obj_begin(&j, NULL);
		nfswb_json_u64(&j, "id", c->id);
		nfswb_json_str(&j, "file", c->name);
		nfswb_json_u64(&j, "bytes_written", c->bytes_written);
		nfswb_json_u64(&j, "write_ops", c->write_ops);
		nfswb_json_u64(&j, "commit_ops", c->commit_ops);
		nfswb_json_u64(&j, "passes", c->passes);
		nfswb_json_u64(&j, "max_in_flight", c->max_in_flight);
		nfswb_json_u64(&j, "verifier_changes", c->verifier_changes);
		nfswb_json_str(&j, "verify", verify_state(o, c));
		nfswb_lat_summarize(&c->commit_lat, &cs);
		nfswb_lat_json(&j, "commit_latency_us", &cs);
		if (c->rc != LOAD_OK)
			nfswb_json_str(&j, "error", c->err);
		nfswb_json_obj_end(&j);
	}
	nfswb_json_arr_end(&j);
	if (t->error)
		nfswb_json_str(&j, "error", t->error);
	else
		nfswb_json_null(&j, "error");
	nfswb_json_obj_end(&j);
	nfswb_json_end(&j);
}

enum load_err load_report(struct load_run *run)
{
	const struct load_opts *o = run->o;
	struct load_totals t = { .all_verified = o->verify };
	enum load_err rc = LOAD_OK;
	unsigned int i;

	for (i = 0; i < o->clients; i++) {
		struct load_client *c = &run->clients[i];

		total_add(&t.write, &c->write_lat, c->bytes_written,
			  c->t_write_start, c->t_write_end);
		total_add(&t.commit, &c->commit_lat, 0, c->t_write_start,
			  c->t_write_end);
		total_add(&t.read, &c->read_lat, c->bytes_read,
			  c->t_read_start, c->t_read_end);
		t.verifier_changes += c->verifier_changes;
		t.rewritten_bytes += c->rewritten_bytes;
		t.reconnects += c->conn.reconnects + c->pipe.reconnects;
		if (c->max_in_flight > t.max_in_flight)
			t.max_in_flight = c->max_in_flight;
		t.jukebox_retries += c->jukebox_retries;
		if (!c->verified)
			t.all_verified = false;
		if (c->rc != LOAD_OK) {
			fprintf(stderr, "nfswb-load: client %u: %s\n", c->id,
				c->err);
			if (rc == LOAD_OK) {
				rc = c->rc;
				t.error = c->err;
			}
		}
	}
	if (atomic_load(&load_interrupted) && rc == LOAD_OK) {
		t.error = "interrupted";
		rc = LOAD_ERR_INTERNAL;
		t.all_verified = false;
	}
	nfswb_lat_summarize(&t.write.lat, &t.write.sum);
	nfswb_lat_summarize(&t.commit.lat, &t.commit.sum);
	nfswb_lat_summarize(&t.read.lat, &t.read.sum);
	getrusage(RUSAGE_SELF, &t.ru);

	if (o->json)
		print_json(run, &t);
	else
		print_text(run, &t);
	nfswb_lat_free(&t.write.lat);
	nfswb_lat_free(&t.commit.lat);
	nfswb_lat_free(&t.read.lat);
	return rc;
}
