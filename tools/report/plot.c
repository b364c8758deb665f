// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * plot.c - "nfswb-report plot": COMMIT latency over time as an SVG
 * scatter plot, with the device's dirty backlog and write bandwidth below
 * it when the trace carries samples.  PNG goes through rsvg-convert.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

extern char **environ;

#define W		960
#define LEFT		90
#define RIGHT		90
#define TOP		60
#define PLOT_W		(W - LEFT - RIGHT)
#define LAT_H		300
#define GAP		70
#define DEV_H		170
#define BOTTOM		70

static const char *const bdi_colors[] = {
	"#2a9d8f", "#8e44ad", "#e76f51", "#264653",
};

/* A step of 1, 2 or 5 times a power of ten giving about @n intervals. */
static double nice_step(double range, int n)
{
	double raw = range / n, mag, f;

	if (!(raw > 0))
		return 1.0;
	mag = pow(10.0, floor(log10(raw)));
	f = raw / mag;
	return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * mag;
}

struct axis {
	double max, step;	/* from 0 to max */
};

static struct axis make_axis(double max)
{
	struct axis a;

	if (!(max > 0))
		max = 1.0;
	a.step = nice_step(max, 5);
	a.max = ceil(max / a.step - 1e-9) * a.step;
	return a;
}

static void xml_text(FILE *o, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", o);
			break;
		case '>':
			fputs("&gt;", o);
			break;
		case '&':
			fputs("&amp;", o);
			break;
		case '"':
			fputs("&quot;", o);
			break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, o);
		}
	}
}

/* A latency unit that keeps tick labels short. */
static void lat_unit(uint64_t max_us, double *div, const char **name)
{
	if (max_us >= 2000000) {
		*div = 1e6;
		*name = "s";
	} else if (max_us >= 2000) {
		*div = 1e3;
		*name = "ms";
	} else {
		*div = 1.0;
		*name = "µs";
	}
}

static void grid_y(FILE *o, int top, int h, const struct axis *a,
		   const char *fmt_side, bool right)
{
	for (double v = 0; v <= a->max + a->step / 2; v += a->step) {
		double y = top + h - v / a->max * h;

		if (!right)
			fprintf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
				"y2=\"%.1f\" class=\"grid\"/>\n", LEFT, y,
				LEFT + PLOT_W, y);
		fprintf(o, "<text x=\"%d\" y=\"%.1f\" class=\"%s\">%g</text>\n",
			right ? LEFT + PLOT_W + 8 : LEFT - 8, y + 4, fmt_side,
			v);
	}
}

static void grid_x(FILE *o, int top, int h, const struct axis *a)
{
	for (double v = 0; v <= a->max + a->step / 2; v += a->step) {
		double x = LEFT + v / a->max * PLOT_W;

		fprintf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"class=\"grid\"/>\n", x, top, x, top + h);
		fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"xl\">%g</text>\n",
			x, top + h + 18, v);
	}
}

/* 948, 56.8, 1.93: three significant digits, never an exponent. */
static char *short_num(double v, char *buf, size_t len)
{
	snprintf(buf, len, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
	return buf;
}

static double nth_pct(const struct report_figures *f, double p)
{
	for (int i = 0; i < NFSWB_LAT_NPCT; i++)
		if (nfswb_lat_pct_list[i] == p)
			return (double)f->all.commit_s.pct_us[i];
	return 0;
}

/* Distinct bdis of the samples, in order of appearance. */
static size_t sample_bdis(const struct nfswb_trace *t, const char **bdis,
			  size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nsamples; i++) {
		size_t k;

		for (k = 0; k < n; k++)
			if (!strcmp(bdis[k], t->samples[i].bdi))
				break;
		if (k == n && n < max)
			bdis[n++] = t->samples[i].bdi;
	}
	return n;
}

static void write_svg(FILE *o, const struct report_figures *f,
		      const char *title)
{
	const struct nfswb_trace *t = &f->trace;
	enum nfswb_commit_source src;
	const struct nfswb_trace_ops *ops = nfswb_trace_commits(t, &src);
	bool dev = false;
	double t0 = t->any_ts ? t->first_ts : 0, t1 = t->any_ts ? t->last_ts : 1;
	double div, max_dirty = 0, max_bw = 0;
	const char *unit, *bdis[4];
	char n1[32], n2[32], n3[32];
	struct axis ax, ay, ad, ab;
	size_t nbdi;
	int h;

	/* The time axis spans the events and the samples. */
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct nfswb_trace_sample *s = &t->samples[i];

		if (!s->has_dirty && !s->has_bandwidth)
			continue;
		if (!dev && !t->any_ts) {
			t0 = s->t;
			t1 = s->t;
		}
		t0 = fmin(t0, s->t);
		t1 = fmax(t1, s->t);
		dev = true;
		if (s->has_dirty)
			max_dirty = fmax(max_dirty, (double)s->dirty);
		if (s->has_bandwidth)
			max_bw = fmax(max_bw, (double)s->bandwidth);
	}
	nbdi = sample_bdis(t, bdis, 4);
	h = TOP + LAT_H + (dev ? GAP + DEV_H : 0) + BOTTOM;
	lat_unit(f->all.commit_s.max_us, &div, &unit);
	ax = make_axis(t1 - t0);
	ay = make_axis((double)f->all.commit_s.max_us / div);

	fprintf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n", W, h, W, h);
	fputs("<style>\n"
	      "text { font-family: sans-serif; font-size: 12px; fill: #222; }\n"
	      ".title { font-size: 17px; font-weight: bold; }\n"
	      ".sub { font-size: 12px; fill: #555; }\n"
	      ".yl { text-anchor: end; } .yr { text-anchor: start; }\n"
	      ".xl { text-anchor: middle; }\n"
	      ".grid { stroke: #e4e4e4; stroke-width: 1; }\n"
	      ".frame { fill: none; stroke: #999; stroke-width: 1; }\n"
	      ".dot { fill: #1f77b4; fill-opacity: 0.55; }\n"
	      ".kick { stroke: #ff7f0e; stroke-width: 1.5; }\n"
	      ".p50 { stroke: #2ca02c; stroke-width: 1.5; "
	      "stroke-dasharray: 6 4; }\n"
	      ".p99 { stroke: #d62728; stroke-width: 1.5; "
	      "stroke-dasharray: 6 4; }\n"
	      "</style>\n"
	      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", o);

	fprintf(o, "<text x=\"%d\" y=\"26\" class=\"title\">", LEFT);
	xml_text(o, title);
	fprintf(o, "</text>\n<text x=\"%d\" y=\"44\" class=\"sub\">COMMIT "
		"latency from %s: %llu COMMITs, p50 %s %s, p99 %s %s, "
		"max %s %s</text>\n", LEFT, nfswb_commit_source_name(src),
		(unsigned long long)f->all.commit_s.count,
		short_num(nth_pct(f, 50.0) / div, n1, sizeof(n1)), unit,
		short_num(nth_pct(f, 99.0) / div, n2, sizeof(n2)), unit,
		short_num((double)f->all.commit_s.max_us / div, n3,
			  sizeof(n3)), unit);

	/* Latency panel. */
	grid_y(o, TOP, LAT_H, &ay, "yl", false);
	grid_x(o, TOP, LAT_H, &ax);
	fprintf(o, "<text transform=\"translate(24,%d) rotate(-90)\" "
		"class=\"xl\">COMMIT latency (%s)</text>\n", TOP + LAT_H / 2,
		unit);
	if (!ops->count)
		fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"xl\">no COMMIT "
			"events in this trace</text>\n", LEFT + PLOT_W / 2,
			TOP + LAT_H / 2);
	fputs("<g>\n", o);
	for (size_t i = 0; i < ops->count; i++) {
		double x = LEFT + (ops->v[i].ts - t0) / ax.max * PLOT_W;
		double y = TOP + LAT_H -
			   (double)ops->v[i].us / div / ay.max * LAT_H;

		fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
			"class=\"dot\"/>\n", x, y);
	}
	fputs("</g>\n", o);
	if (ops->count) {
		double y50 = TOP + LAT_H - nth_pct(f, 50.0) / div / ay.max *
					   LAT_H;
		double y99 = TOP + LAT_H - nth_pct(f, 99.0) / div / ay.max *
					   LAT_H;

		fprintf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"class=\"p50\"/>\n", LEFT, y50, LEFT + PLOT_W, y50);
		fprintf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"class=\"p99\"/>\n", LEFT, y99, LEFT + PLOT_W, y99);
	}
	for (size_t i = 0; i < t->nkicks; i++) {
		double x = LEFT + (t->kicks[i] - t0) / ax.max * PLOT_W;

		fprintf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"class=\"kick\"/>\n", x, TOP + LAT_H, x,
			TOP + LAT_H - 10);
	}
	fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"class=\"frame\"/>\n", LEFT, TOP, PLOT_W, LAT_H);
	/* Legend, top right inside the panel. */
	fprintf(o, "<g transform=\"translate(%d,%d)\">\n"
		"<rect x=\"-8\" y=\"-14\" width=\"150\" height=\"%d\" "
		"fill=\"white\" fill-opacity=\"0.85\" stroke=\"#ccc\"/>\n"
		"<circle cx=\"6\" cy=\"-2\" r=\"3\" class=\"dot\"/>"
		"<text x=\"18\" y=\"2\">COMMIT</text>\n"
		"<line x1=\"0\" y1=\"14\" x2=\"12\" y2=\"14\" class=\"p50\"/>"
		"<text x=\"18\" y=\"18\">median</text>\n"
		"<line x1=\"0\" y1=\"30\" x2=\"12\" y2=\"30\" class=\"p99\"/>"
		"<text x=\"18\" y=\"34\">p99</text>\n", LEFT + PLOT_W - 150,
		TOP + 22, t->nkicks ? 70 : 54);
	if (t->nkicks)
		fputs("<line x1=\"6\" y1=\"42\" x2=\"6\" y2=\"52\" "
		      "class=\"kick\"/><text x=\"18\" y=\"50\">"
		      "wb_bg_time_kick</text>\n", o);
	fputs("</g>\n", o);

	if (dev) {
		int top = TOP + LAT_H + GAP;

		ad = make_axis(max_dirty / 1048576.0);
		ab = make_axis(max_bw / 1048576.0);
		grid_y(o, top, DEV_H, &ad, "yl", false);
		if (max_bw > 0)
			grid_y(o, top, DEV_H, &ab, "yr", true);
		grid_x(o, top, DEV_H, &ax);
		fprintf(o, "<text transform=\"translate(24,%d) rotate(-90)\" "
			"class=\"xl\">dirty (MiB)</text>\n", top + DEV_H / 2);
		if (max_bw > 0)
			fprintf(o, "<text transform=\"translate(%d,%d) "
				"rotate(90)\" class=\"xl\">write bandwidth "
				"(MiB/s)</text>\n", W - 22, top + DEV_H / 2);
		for (size_t b = 0; b < nbdi; b++) {
			const char *color = bdi_colors[b % 4];

			for (int bw = 0; bw < 2; bw++) {
				const struct axis *a = bw ? &ab : &ad;
				bool first = true;

				fprintf(o, "<polyline fill=\"none\" stroke=\"%s\""
					" stroke-width=\"%s\"%s points=\"",
					color, bw ? "1.5" : "2",
					bw ? " stroke-dasharray=\"5 3\"" : "");
				for (size_t i = 0; i < t->nsamples; i++) {
					const struct nfswb_trace_sample *s =
						&t->samples[i];
					double v;

					if (strcmp(s->bdi, bdis[b]) ||
					    !(bw ? s->has_bandwidth :
						   s->has_dirty))
						continue;
					v = (double)(bw ? s->bandwidth :
							  s->dirty) / 1048576.0;
					fprintf(o, "%s%.1f,%.1f",
						first ? "" : " ",
						LEFT + (s->t - t0) / ax.max *
						       PLOT_W,
						top + DEV_H - v / a->max *
							      DEV_H);
					first = false;
				}
				fputs("\"/>\n", o);
			}
			fprintf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
				"y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>"
				"<text x=\"%d\" y=\"%d\">bdi %s: dirty "
				"(solid), bandwidth (dashed)</text>\n",
				LEFT + 10, top + 16 + 16 * (int)b, LEFT + 30,
				top + 16 + 16 * (int)b, color, LEFT + 36,
				top + 20 + 16 * (int)b, bdis[b]);
		}
		fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			"class=\"frame\"/>\n", LEFT, top, PLOT_W, DEV_H);
	}
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"xl\">time (s) since "
		"the first event</text>\n</svg>\n", LEFT + PLOT_W / 2, h - 22);
}

static int to_png(const char *svg, const char *png)
{
	char *argv[] = { "rsvg-convert", "-f", "png", "-o", (char *)png,
			 (char *)svg, NULL };
	pid_t pid;
	int status, r;

	r = posix_spawnp(&pid, "rsvg-convert", NULL, NULL, argv, environ);
	if (r) {
		report_err("plot", "cannot run rsvg-convert (Debian package "
			   "librsvg2-bin): %s", strerror(r));
		return -1;
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		report_err("plot", "rsvg-convert failed on %s", svg);
		return -1;
	}
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcasecmp(s + a - b, suffix);
}

static int plot_run(int argc, char **argv)
{
	const char *output = NULL, *title = NULL, *samples = NULL;
	struct report_figures f;
	char tmp[PATH_MAX];
	bool png;
	FILE *o;
	int c, ret = 1;

	while ((c = report_getopt(&report_plot_cmd, argc, argv)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 't':
			title = optarg;
			break;
		case 'S':
			samples = optarg;
			break;
		case 'h':
			return report_help(&report_plot_cmd, stdout);
		default:
			return report_bad_option(&report_plot_cmd);
		}
	}
	if (!output)
		return report_usage(&report_plot_cmd, "no -o OUT.svg|OUT.png");
	png = ends_with(output, ".png");
	if (!png && !ends_with(output, ".svg"))
		return report_usage(&report_plot_cmd,
				    "-o %s: the name must end in .svg or .png",
				    output);
	if (optind >= argc)
		return report_usage(&report_plot_cmd, "no trace FILE");
	if (report_load(&f, "plot", argv + optind, argc - optind,
			REPORT_BY_NONE, samples))
		goto out;

	if (png) {
		int fd;

		snprintf(tmp, sizeof(tmp), "%s.XXXXXX.svg", output);
		fd = mkstemps(tmp, 4);
		if (fd < 0) {
			report_err("plot", "%s: %s", tmp, strerror(errno));
			goto out;
		}
		o = fdopen(fd, "w");
	} else {
		snprintf(tmp, sizeof(tmp), "%s", output);
		o = fopen(output, "w");
	}
	if (!o) {
		report_err("plot", "%s: %s", tmp, strerror(errno));
		goto out;
	}
	write_svg(o, &f, title ? title : argv[optind]);
	/* A write that failed early may leave nothing for fclose to see. */
	if (ferror(o) | fclose(o)) {
		report_err("plot", "%s: %s", tmp, strerror(errno));
		goto out_tmp;
	}
	ret = png ? -to_png(tmp, output) : 0;
out_tmp:
	if (png)
		unlink(tmp);
out:
	report_figures_free(&f);
	return ret ? 1 : 0;
}

const struct report_cmd report_plot_cmd = {
	.name = "plot",
	.args = "[-t TITLE] [-S SAMPLES.jsonl] -o OUT.svg|OUT.png FILE...",
	.oneline = "COMMIT latency over time, with dirty backlog, as SVG/PNG",
	.about = "COMMIT latency over time (one dot per COMMIT, at its completion), "
		 "the median\n"
		 "and p99 as lines, wb_bg_time_kick events as ticks, and the "
		 "device's dirty\n"
		 "backlog and write bandwidth when the trace has "
		 "'# nfswb-sample' lines.\n"
		 "PNG is converted from the SVG by rsvg-convert (librsvg2-bin).",
	.opts = (const struct report_opt[]){
		{ 'o', "output", "OUT", ".svg or .png" },
		{ 't', "title", "TEXT", "title (default: the trace's file "
		  "name)" },
		{ 'S', "samples", "F", "also the samples of a JSON-lines file, "
		  "{\"t\": SECONDS,\n\"LABEL.BdiReclaimable\": KB, ...} "
		  "(the lab's samples.jsonl)" },
		{ 0 },
	},
	.run = plot_run,
};
