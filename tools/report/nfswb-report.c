// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nfswb-report - how long NFS clients wait on COMMIT, from server-side
 * traces: record, summary, compare, plot, live.  One file per subcommand,
 * as xfs_io keeps one per command.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* In the order Makefile.am's REPORT_CMDS lists them: usage's order. */
static const struct report_cmd *const commands[] = {
#define REPORT_CMD(name, NAME) &report_##name##_cmd,
#include "report_cmds.h"
#undef REPORT_CMD
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

void report_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nfswb-report %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage_lines(const struct report_cmd *cmd)
{
	fprintf(stderr, "usage: nfswb-report %s %s\n"
		"Try 'nfswb-report %s --help'.\n", cmd->name, cmd->args,
		cmd->name);
}

int report_usage(const struct report_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nfswb-report %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage_lines(cmd);
	return REPORT_EXIT_USAGE;
}

int report_bad_option(const struct report_cmd *cmd)
{
	/* getopt_long() has named the option already. */
	usage_lines(cmd);
	return REPORT_EXIT_USAGE;
}

int report_getopt(const struct report_cmd *cmd, int argc, char **argv)
{
	static struct option longs[REPORT_MAX_OPTS + 2];
	static char shorts[2 * REPORT_MAX_OPTS + 3];
	static const struct report_cmd *built;

	if (built != cmd) {
		const struct report_opt *o;
		size_t n = 0, k = 0;

		for (o = cmd->opts; o && o->key && n < REPORT_MAX_OPTS; o++) {
			longs[n++] = (struct option){
				o->name, o->arg ? required_argument :
						  no_argument, NULL, o->key,
			};
			shorts[k++] = (char)o->key;
			if (o->arg)
				shorts[k++] = ':';
		}
		longs[n++] = (struct option){ "help", no_argument, NULL, 'h' };
		longs[n] = (struct option){ NULL, 0, NULL, 0 };
		shorts[k++] = 'h';
		shorts[k] = '\0';
		built = cmd;
	}
	return getopt_long(argc, argv, shorts, longs, NULL);
}

/* "-b, --by KEY": the left column of one option's help. */
static int opt_label(const struct report_opt *o, char *buf, size_t len)
{
	return snprintf(buf, len, "-%c, --%s%s%s", o->key, o->name,
			o->arg ? " " : "", o->arg ? o->arg : "");
}

int report_help(const struct report_cmd *cmd, FILE *out)
{
	static const struct report_opt help = { 'h', "help", NULL, "this text" };
	const struct report_opt *o;
	char label[64];
	int width = opt_label(&help, label, sizeof(label));

	fprintf(out, "usage: nfswb-report %s %s\n\n%s\n\n", cmd->name,
		cmd->args, cmd->about);
	for (o = cmd->opts; o && o->key; o++)
		if (opt_label(o, label, sizeof(label)) > width)
			width = opt_label(o, label, sizeof(label));
	for (o = cmd->opts; ; o++) {
		const char *h;

		if (!o || !o->key)
			o = &help;
		opt_label(o, label, sizeof(label));
		fprintf(out, "  %-*s  ", width, label);
		for (h = o->help; *h; h++) {
			fputc(*h, out);
			if (*h == '\n')
				fprintf(out, "  %-*s  ", width, "");
		}
		fputc('\n', out);
		if (o == &help)
			break;
	}
	return 0;
}

static void usage(FILE *out)
{
	fputs("usage: nfswb-report COMMAND [OPTIONS] [ARGS]\n\n"
	      "COMMIT and WRITE latency of an NFS server, from ftrace.\n\n"
	      "Commands:\n", out);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i]->name,
			commands[i]->oneline);
	fputs("\n'nfswb-report COMMAND --help' describes a command; "
	      "see nfswb-report(1).\n", out);
}

/*
 * What could not be written is a failure, as coreutils' close_stdout()
 * makes it: `nfswb-report summary T >/dev/full` must not exit 0.
 */
static int finish_output(const char *cmd, int rc)
{
	int err = fflush(stdout) ? errno : 0;

	if (!err && !ferror(stdout))
		return rc;
	/* An error stdio met earlier has left no errno behind. */
	fprintf(stderr, "nfswb-report%s%s: standard output: %s\n",
		cmd ? " " : "", cmd ? cmd : "",
		err ? strerror(err) : "write error");
	return rc ? rc : 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return REPORT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		if (argc > 2) {
			for (size_t i = 0; i < NCOMMANDS; i++)
				if (!strcmp(argv[2], commands[i]->name)) {
					report_help(commands[i], stdout);
					return finish_output(NULL, 0);
				}
		}
		usage(stdout);
		return finish_output(NULL, 0);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("nfswb-report %s\n", PACKAGE_VERSION);
		return finish_output(NULL, 0);
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		char prog[64];

		if (strcmp(argv[1], commands[i]->name))
			continue;
		/* getopt's messages then read "nfswb-report summary: ...". */
		snprintf(prog, sizeof(prog), "nfswb-report %s",
			 commands[i]->name);
		argv[1] = prog;
		return finish_output(commands[i]->name,
				     commands[i]->run(argc - 1, argv + 1));
	}
	fprintf(stderr, "nfswb-report: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return REPORT_EXIT_USAGE;
}
