// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options.c - nfswb-load's command line.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "units.h"

#define STR_(x)	#x
#define STR(x)	STR_(x)

enum {
	OPT_MOUNT_PORT = 256,
	OPT_IODEPTH,
	OPT_SIZE,
	OPT_RATE,
	OPT_WSIZE,
	OPT_COMMIT_EVERY,
	OPT_STABLE,
	OPT_DURATION,
	OPT_VERIFY,
	OPT_KEEP,
	OPT_TIMEOUT,
	OPT_JSON,
};

/*
 * Every option once: getopt's table and --help are both made from it.
 * A key below 256 is also the short option.
 */
static const struct load_option {
	const char *name;
	int key;
	const char *arg;	/* NULL for a flag */
	const char *help;	/* '\n' starts another line */
} options[] = {
	{ "server", 's', "HOST[:PORT]", "NFS server; without PORT ask its rpcbind" },
	{ "export", 'e', "PATH", "exported path to mount (MOUNT v3)" },
	{ "mount-port", OPT_MOUNT_PORT, "N", "mountd port; without it ask rpcbind" },
	{ "clients", 'c', "N", "simulated clients, one connection and file each\n"
	  "(1 to " STR(LOAD_MAX_CLIENTS) "; default 1)" },
	{ "iodepth", OPT_IODEPTH, "N", "WRITEs in flight per client (1 to "
	  STR(NFS3_PIPE_MAX_DEPTH) ";\ndefault 1)" },
	{ "size", OPT_SIZE, "BYTES", "file size per client (default 64M)" },
	{ "rate", OPT_RATE, "BYTES/s", "pace each client's WRITEs (default: "
	  "unpaced)" },
	{ "wsize", OPT_WSIZE, "BYTES", "WRITE size (default: the server's "
	  "wtmax, at\nmost 1M)" },
	{ "commit-every", OPT_COMMIT_EVERY, "BYTES|close", "COMMIT after every "
	  "BYTES written, or only at\nthe end of each pass over the file "
	  "(default)" },
	{ "stable", OPT_STABLE, "unstable|data_sync|file_sync", "stable_how of "
	  "each WRITE (default unstable)" },
	{ "duration", OPT_DURATION, "T", "rewrite the files for T instead of "
	  "one pass" },
	{ "verify", OPT_VERIFY, NULL, "read every file back and check its "
	  "contents" },
	{ "keep", OPT_KEEP, NULL, "leave the files on the server" },
	{ "timeout", OPT_TIMEOUT, "T", "give up on a connect or call after "
	  "T\n(default 30s)" },
	{ "json", OPT_JSON, NULL, "print the results as JSON" },
	{ "help", 'h', NULL, "this text" },
	{ "version", 'V', NULL, "the version" },
};

#define NOPTIONS	(sizeof(options) / sizeof(options[0]))
/* Where the help text of each option starts. */
#define HELP_COL	29

static void usage(FILE *out)
{
	fputs("Usage: nfswb-load --server HOST[:PORT] --export PATH [OPTION]...\n"
	      "Write files over NFSv3 from N simulated clients and report WRITE and\n"
	      "COMMIT latency as the clients see it.\n\n", out);
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct load_option *o = &options[i];
		const char *h;
		int n;

		if (o->key < 256)
			n = fprintf(out, "  -%c, --%s", o->key, o->name);
		else
			n = fprintf(out, "      --%s", o->name);
		if (o->arg)
			n += fprintf(out, " %s", o->arg);
		/* A long label puts the help on a line of its own. */
		if (n > HELP_COL - 2) {
			fputc('\n', out);
			n = 0;
		}
		fprintf(out, "%*s", HELP_COL - n, "");
		for (h = o->help; *h; h++) {
			fputc(*h, out);
			if (*h == '\n')
				fprintf(out, "%*s", HELP_COL, "");
		}
		fputc('\n', out);
	}
	fputs("\nSizes and rates take binary suffixes: k=2^10, M=2^20, G=2^30 (\"64M\",\n"
	      "\"10MiB/s\").  Durations take ms, s or m; a bare number is milliseconds.\n"
	      "Exit status: 0 ok, 1 internal error or interrupted, 2 usage, 3 server\n"
	      "unreachable or not answering, 4 mount refused, 5 NFS or RPC error,\n"
	      "6 verify failed.  See nfswb-load(1).\n", out);
}

/* getopt_long()'s tables, from options[]. */
static void getopt_tables(struct option *longs, char *shorts)
{
	for (size_t i = 0; i < NOPTIONS; i++) {
		longs[i] = (struct option){
			options[i].name,
			options[i].arg ? required_argument : no_argument,
			NULL, options[i].key,
		};
		if (options[i].key < 256) {
			*shorts++ = (char)options[i].key;
			if (options[i].arg)
				*shorts++ = ':';
		}
	}
	longs[NOPTIONS] = (struct option){ NULL, 0, NULL, 0 };
	*shorts = '\0';
}

static enum load_err bad_arg(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "nfswb-load: --%s %s: %s\n", opt, val, why);
	return LOAD_ERR_USAGE;
}

static enum load_err parse_uint(const char *opt, const char *val, unsigned long min,
		      unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || end == val || *end || val[0] == '-' || v < min ||
	    v > max) {
		char why[64];

		snprintf(why, sizeof(why), "expected a whole number from %lu to %lu",
			 min, max);
		return bad_arg(opt, val, why);
	}
	*out = v;
	return LOAD_OK;
}

enum load_err load_parse_args(int argc, char **argv, struct load_opts *o)
{
	struct option longs[NOPTIONS + 1];
	char shorts[2 * NOPTIONS + 1];
	const char *server = NULL, *why;
	char err[NFS3_ERRLEN];
	unsigned long v;
	uint64_t ms;
	enum load_err rc;
	int opt;

	o->clients = 1;
	o->iodepth = 1;
	o->size = LOAD_DEFAULT_SIZE;
	o->stable = UNSTABLE;
	o->srv.timeout_ms = LOAD_DEFAULT_TIMEOUT_MS;

	getopt_tables(longs, shorts);
	while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		switch (opt) {
		case 's':
			server = optarg;
			break;
		case 'e':
			o->export = optarg;
			break;
		case OPT_MOUNT_PORT:
			if (parse_uint("mount-port", optarg, 1, 65535, &v))
				return LOAD_ERR_USAGE;
			o->srv.mount_port = (uint16_t)v;
			break;
		case 'c':
			if (parse_uint("clients", optarg, 1, LOAD_MAX_CLIENTS, &v))
				return LOAD_ERR_USAGE;
			o->clients = (unsigned int)v;
			break;
		case OPT_IODEPTH:
			if (parse_uint("iodepth", optarg, 1, NFS3_PIPE_MAX_DEPTH, &v))
				return LOAD_ERR_USAGE;
			o->iodepth = (unsigned int)v;
			break;
		case OPT_SIZE:
			if (nfswb_parse_size(optarg, &o->size, &why))
				return bad_arg("size", optarg, why);
			if (!o->size)
				return bad_arg("size", optarg, "must be more than 0");
			break;
		case OPT_RATE:
			if (nfswb_parse_rate(optarg, &o->rate, &why))
				return bad_arg("rate", optarg, why);
			if (!o->rate)
				return bad_arg("rate", optarg, "must be more than 0 (leave it out for no pacing)");
			break;
		case OPT_WSIZE:
			if (nfswb_parse_size(optarg, &o->wsize, &why))
				return bad_arg("wsize", optarg, why);
			if (!o->wsize || o->wsize > LOAD_MAX_WSIZE)
				return bad_arg("wsize", optarg, "must be from 1 to 16M");
			break;
		case OPT_COMMIT_EVERY:
			if (!strcmp(optarg, "close")) {
				o->commit_every = 0;
				break;
			}
			if (nfswb_parse_size(optarg, &o->commit_every, &why))
				return bad_arg("commit-every", optarg, why);
			if (!o->commit_every)
				return bad_arg("commit-every", optarg, "must be more than 0, or \"close\"");
			break;
		case OPT_STABLE:
			if (!strcmp(optarg, "unstable"))
				o->stable = UNSTABLE;
			else if (!strcmp(optarg, "data_sync"))
				o->stable = DATA_SYNC;
			else if (!strcmp(optarg, "file_sync"))
				o->stable = FILE_SYNC;
			else
				return bad_arg("stable", optarg, "expected unstable, data_sync or file_sync");
			break;
		case OPT_DURATION:
			if (nfswb_parse_duration_ms(optarg, &o->duration_ms, &why))
				return bad_arg("duration", optarg, why);
			if (!o->duration_ms)
				return bad_arg("duration", optarg, "must be more than 0");
			break;
		case OPT_VERIFY:
			o->verify = true;
			break;
		case OPT_KEEP:
			o->keep = true;
			break;
		case OPT_TIMEOUT:
			if (nfswb_parse_duration_ms(optarg, &ms, &why))
				return bad_arg("timeout", optarg, why);
			if (ms < 1 || ms > 3600 * 1000)
				return bad_arg("timeout", optarg, "must be from 1ms to 1 hour");
			o->srv.timeout_ms = (unsigned int)ms;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'h':
			usage(stdout);
			exit(LOAD_OK);
		case 'V':
			printf("nfswb-load %s\n", PACKAGE_VERSION);
			exit(LOAD_OK);
		default:
			fprintf(stderr, "Try 'nfswb-load --help'.\n");
			return LOAD_ERR_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nfswb-load: unexpected argument '%s'\n",
			argv[optind]);
		return LOAD_ERR_USAGE;
	}
	if (!server || !o->export) {
		fprintf(stderr, "nfswb-load: --server and --export are required\n"
			"Try 'nfswb-load --help'.\n");
		return LOAD_ERR_USAGE;
	}
	if (o->export[0] != '/')
		return bad_arg("export", o->export, "must be an absolute path");
	rc = nfs3_server_parse(&o->srv, server, err);
	if (rc != LOAD_OK)
		fprintf(stderr, "nfswb-load: %s\n", err);
	return rc;
}
