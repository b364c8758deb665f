// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * plot.c - "nfswb-report plot": COMMIT latency over time as an SVG
 * scatter plot, with the device's dirty backlog and write bandwidth below
 * it when the trace carries samples, or as a CDF; several traces (before,
 * after) drawn over each other, each in its own colour.  PNG goes through
 * rsvg-convert.
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
#include "satmath.h"


extern char **environ;

#define W		960
#define LEFT		90
#define RIGHT		90
#define PLOT_W		(W - LEFT - RIGHT)
#define LAT_H		300
#define GAP		70
#define DEV_H		170
#define BOTTOM		70
#define ROW_H		18		/* one legend row */
/* Characters of 12px sans-serif in one legend row, W - LEFT wide. */
#define LEGEND_CHARS	120
#define TITLE_CHARS	84		/* one 17 px bold line from x=90 */
#define TITLE_LINE_H	20
#define MAX_SERIES	4
/* A CDF of more COMMITs is drawn through this many of their ranks. */
#define CDF_POINTS	2000

/* Before, after, and two more: blue and orange read apart in any eyes. */
static const char *const series_colors[MAX_SERIES] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
};
/* The same, darker, for lines: they must stand out from their own dots. */
static const char *const series_dark[MAX_SERIES] = {
	"#0b3d66", "#a34700", "#14561a", "#4b2a6b",
};
static const char *const bdi_colors[] = {
	"#2a9d8f", "#8e44ad", "#e76f51", "#264653",
};

/* One trace of the picture: "plot A B" draws A and B, each on its own. */
struct series {
	const char *name;
	struct report_figures f;
	const struct nfswb_trace_ops *ops;	/* its COMMITs */
	enum nfswb_commit_source src;
	double t0, t1;				/* its events and samples */
	bool dev;				/* has device samples */
	double max_dirty, max_bw;
	const char *color;
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

static double nth_pct(const struct series *s, double p)
{
	for (int i = 0; i < NFSWB_LAT_NPCT; i++)
		if (nfswb_lat_pct_list[i] == p)
			return (double)s->f.all.commit_s.pct_us[i];
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

/* Where a series' time runs, and whether it has device samples. */
static void series_span(struct series *s)
{
	const struct nfswb_trace *t = &s->f.trace;

	s->ops = nfswb_trace_commits(t, &s->src);
	s->t0 = t->any_ts ? t->first_ts : 0;
	s->t1 = t->any_ts ? t->last_ts : 1;
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct nfswb_trace_sample *x = &t->samples[i];

		if (!x->has_dirty && !x->has_bandwidth)
			continue;
		if (!s->dev && !t->any_ts)
			s->t0 = s->t1 = x->t;
		s->t0 = fmin(s->t0, x->t);
		s->t1 = fmax(s->t1, x->t);
		s->dev = true;
		if (x->has_dirty)
			s->max_dirty = fmax(s->max_dirty, (double)x->dirty);
		if (x->has_bandwidth)
			s->max_bw = fmax(s->max_bw, (double)x->bandwidth);
	}
}

static void svg_begin(FILE *o, int h, const struct series *s, size_t n)
{
	fprintf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n", W, h, W, h);
	fputs("<style>\n"
	      "text { font-family: sans-serif; font-size: 12px; fill: #222; }\n"
	      ".title { font-size: 17px; font-weight: bold; }\n"
	      ".yl { text-anchor: end; } .yr { text-anchor: start; }\n"
	      ".xl { text-anchor: middle; }\n"
	      ".grid { stroke: #e4e4e4; stroke-width: 1; }\n"
	      ".frame { fill: none; stroke: #999; stroke-width: 1; }\n"
	      ".dot { fill-opacity: 0.55; }\n"
	      ".kick { stroke-width: 1.5; }\n"
	      ".p50 { stroke-width: 1.5; stroke-dasharray: 6 4; }\n"
	      ".p99 { stroke-width: 2; stroke-dasharray: 2 3; }\n"

	      ".cdf { fill: none; stroke-width: 2; }\n", o);
	/* Each series' colour for its dots, lines and ticks. */
	for (size_t i = 0; i < n; i++)
		fprintf(o, ".s%zu { fill: %s; stroke: %s; }\n", i, s[i].color,
			series_dark[i]);
	fputs("</style>\n"
	      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", o);
}

/*
 * The legend: one row per series with its figures, then the key to the
 * lines.  It stands above the panel, so no point is ever under it (it
 * used to sit in the top right corner, over the slowest COMMITs).
 */
static int legend(FILE *o, int y, const struct series *s, size_t n,
		  bool cdf)
{
	bool kicks = false;

	for (size_t i = 0; i < n; i++, y += ROW_H) {
		const struct nfswb_lat_summary *c = &s[i].f.all.commit_s;
		char n1[32], n2[32], n3[32];
		const char *unit;
		double div;

		char figures[160];
		size_t room, len = strlen(s[i].name);

		lat_unit(c->max_us, &div, &unit);
		snprintf(figures, sizeof(figures), ": %llu COMMITs from %s, "
			 "p50 %s %s, p99 %s %s, max %s %s",
			 (unsigned long long)c->count,
			 nfswb_commit_source_name(s[i].src),
			 short_num(nth_pct(&s[i], 50.0) / div, n1, sizeof(n1)),
			 unit,
			 short_num(nth_pct(&s[i], 99.0) / div, n2, sizeof(n2)),
			 unit,
			 short_num((double)c->max_us / div, n3, sizeof(n3)),
			 unit);
		/*
		 * The row must end inside the picture, figures and all: a
		 * long name keeps its end (where paths of two runs differ
		 * least is their common start).
		 */
		room = strlen(figures) + 16 < LEGEND_CHARS ?
		       LEGEND_CHARS - strlen(figures) : 16;
		fprintf(o, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" class=\"dot "
			"s%zu\"/><text x=\"%d\" y=\"%d\">", LEFT + 4, y - 4, i,
			LEFT + 14, y);
		if (len > room) {
			const char *tail = s[i].name + len - (room - 1);

			/* Not inside a UTF-8 sequence. */
			while ((*tail & 0xc0) == 0x80)
				tail++;
			fputs("\u2026", o);
			xml_text(o, tail);
		} else {
			xml_text(o, s[i].name);
		}
		fprintf(o, "%s</text>\n", figures);
		kicks |= s[i].f.trace.nkicks > 0;
	}
	fprintf(o, "<g transform=\"translate(%d,%d)\">\n"
		"<line x1=\"0\" y1=\"-4\" x2=\"24\" y2=\"-4\" class=\"p50\" "
		"stroke=\"#444\"/><text x=\"30\" y=\"0\">median</text>\n"
		"<line x1=\"90\" y1=\"-4\" x2=\"114\" y2=\"-4\" class=\"p99\" "
		"stroke=\"#444\"/><text x=\"120\" y=\"0\">p99</text>\n",
		LEFT, y);
	if (!cdf)
		fputs("<text x=\"170\" y=\"0\">(each in its trace's "
		      "colour)</text>\n", o);
	if (kicks && !cdf)
		fputs("<line x1=\"340\" y1=\"-6\" x2=\"340\" y2=\"-1\" "
		      "class=\"kick\" stroke=\"#444\"/><text x=\"350\" "
		      "y=\"0\">wb_bg_time_kick (ticks under the time "
		      "axis)</text>\n", o);
	fputs("</g>\n", o);
	return y + ROW_H;
}

/* A latency axis: linear from 0 (in a unit), or by decades of µs. */
struct lat_scale {
	bool log;
	int lo, hi;		/* log: 10^lo .. 10^hi µs */
	struct axis a;		/* linear, in units of div */
	double div;
	const char *unit;
};

/*
 * The axis for every COMMIT of @s.  @log: 1 always, 0 never, -1 when the
 * slowest COMMIT took more than LOG_RATIO times a trace's median, where a
 * linear axis would squash the bulk of the dots (and the medians) into
 * its bottom row.
 */
#define LOG_RATIO	20

static struct lat_scale lat_scale_of(const struct series *s, size_t n,
				     int log)
{
	uint64_t lo_us = UINT64_MAX, hi_us = 0;
	double min_p50 = 0;
	struct lat_scale l = { 0 };

	for (size_t k = 0; k < n; k++) {
		const struct nfswb_lat_summary *c = &s[k].f.all.commit_s;

		if (!c->count)
			continue;
		lo_us = c->min_us < lo_us ? c->min_us : lo_us;
		hi_us = c->max_us > hi_us ? c->max_us : hi_us;
		if (!min_p50 || nth_pct(&s[k], 50.0) < min_p50)
			min_p50 = nth_pct(&s[k], 50.0);
	}
	if (!hi_us)
		lo_us = hi_us = 1;
	l.log = log > 0 || (log < 0 && (double)hi_us > LOG_RATIO *
						   fmax(min_p50, 1.0));
	lat_unit(hi_us, &l.div, &l.unit);
	l.a = make_axis((double)hi_us / l.div);
	l.lo = (int)floor(log10(lo_us ? (double)lo_us : 1.0));
	l.hi = (int)ceil(log10((double)hi_us * 1.0001));
	if (l.hi <= l.lo)
		l.hi = l.lo + 1;
	return l;
}

/* Where @us lies along the axis, from 0 to 1. */
static double lat_frac(const struct lat_scale *l, double us)
{
	if (!l->log)
		return us / l->div / l->a.max;
	return (log10(us < 1 ? 1 : us) - l->lo) / (l->hi - l->lo);
}

static const char *decade_label(int d, char *buf, size_t len)
{
	static const char *const units[] = { "µs", "ms", "s" };
	int u = d / 3 > 2 ? 2 : d / 3;

	snprintf(buf, len, "%g %s", pow(10.0, d - 3 * u), units[u]);
	return buf;
}

/* The decades of a log axis, as grid lines with labels. */
static void grid_decades(FILE *o, int top, const struct lat_scale *l,
			 bool vertical)
{
	char label[32];

	for (int d = l->lo; d <= l->hi; d++) {
		double f = lat_frac(l, pow(10.0, d));

		decade_label(d, label, sizeof(label));
		if (vertical)
			fprintf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				"y2=\"%d\" class=\"grid\"/>\n<text x=\"%.1f\" "
				"y=\"%d\" class=\"xl\">%s</text>\n",
				LEFT + f * PLOT_W, top, LEFT + f * PLOT_W,
				top + LAT_H, LEFT + f * PLOT_W,
				top + LAT_H + 18, label);
		else
			fprintf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
				"y2=\"%.1f\" class=\"grid\"/>\n<text x=\"%d\" "
				"y=\"%.1f\" class=\"yl\">%s</text>\n", LEFT,
				top + LAT_H - f * LAT_H, LEFT + PLOT_W,
				top + LAT_H - f * LAT_H, LEFT - 8,
				top + LAT_H - f * LAT_H + 4, label);
	}
}

/* COMMIT latency over time: one dot per COMMIT, at its completion. */
static void time_view(FILE *o, int top, const struct series *s, size_t n,
		      const struct axis *ax, int log)
{
	struct lat_scale l = lat_scale_of(s, n, log);

	if (l.log)
		grid_decades(o, top, &l, false);
	else
		grid_y(o, top, LAT_H, &l.a, "yl", false);
	grid_x(o, top, LAT_H, ax);
	fprintf(o, "<text transform=\"translate(24,%d) rotate(-90)\" "
		"class=\"xl\">COMMIT latency%s%s%s</text>\n", top + LAT_H / 2,
		l.log ? " (log scale)" : " (", l.log ? "" : l.unit,
		l.log ? "" : ")");
	for (size_t k = 0; k < n; k++) {
		const struct nfswb_trace_ops *ops = s[k].ops;

		if (!ops->count)
			fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"xl\">no "
				"COMMIT events in %s</text>\n",
				LEFT + PLOT_W / 2,
				top + LAT_H / 2 + (int)k * ROW_H, s[k].name);
		fputs("<g>\n", o);
		for (size_t i = 0; i < ops->count; i++) {
			double x = LEFT + (ops->v[i].ts - s[k].t0) / ax->max *
					  PLOT_W;
			double y = top + LAT_H -
				   lat_frac(&l, (double)ops->v[i].us) * LAT_H;

			fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
				"class=\"dot\" style=\"fill:%s\"/>\n", x, y,
				s[k].color);
		}
		fputs("</g>\n", o);
	}
	/*
	 * Every trace's median and p99 over all the dots, darker than they
	 * are: a median sits in the thick of its own dots.
	 */
	for (size_t k = 0; k < n; k++) {
		for (int q = 0; q < 2 && s[k].ops->count; q++) {
			double y = top + LAT_H -
				   lat_frac(&l, nth_pct(&s[k], q ? 99.0 : 50.0)) *
				   LAT_H;

			fprintf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
				"y2=\"%.1f\" class=\"%s s%zu\"/>\n", LEFT, y,
				LEFT + PLOT_W, y, q ? "p99" : "p50", k);
		}
	}
	/* Kicks as ticks below the panel, clear of the dots. */
	for (size_t k = 0; k < n; k++) {
		const struct nfswb_trace *t = &s[k].f.trace;

		for (size_t i = 0; i < t->nkicks; i++) {
			double x = LEFT + (t->kicks[i] - s[k].t0) / ax->max *
					  PLOT_W;

			fprintf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				"y2=\"%d\" class=\"kick s%zu\"/>\n", x,
				top + LAT_H + 1 + 4 * (int)k, x,
				top + LAT_H + 5 + 4 * (int)k, k);
		}
	}
	fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"class=\"frame\"/>\n", LEFT, top, PLOT_W, LAT_H);
}

/* The device panel: dirty backlog (solid) and write bandwidth (dashed). */
/* Rows of the device legend: one per trace and device. */
static int device_rows(const struct series *s, size_t n)
{
	const char *bdis[4];
	int rows = 0;

	for (size_t k = 0; k < n; k++)
		rows += (int)sample_bdis(&s[k].f.trace, bdis, 4);
	return rows;
}

static void device_view(FILE *o, int top, const struct series *s, size_t n,
			const struct axis *ax)
{
	int rows = device_rows(s, n);
	double max_dirty = 0, max_bw = 0;
	struct axis ad, ab;
	int row = 0;

	for (size_t k = 0; k < n; k++) {
		max_dirty = fmax(max_dirty, s[k].max_dirty);
		max_bw = fmax(max_bw, s[k].max_bw);
	}
	ad = make_axis(max_dirty / 1048576.0);
	ab = make_axis(max_bw / 1048576.0);
	grid_y(o, top, DEV_H, &ad, "yl", false);
	if (max_bw > 0)
		grid_y(o, top, DEV_H, &ab, "yr", true);
	grid_x(o, top, DEV_H, ax);
	fprintf(o, "<text transform=\"translate(24,%d) rotate(-90)\" "
		"class=\"xl\">dirty (MiB)</text>\n", top + DEV_H / 2);
	if (max_bw > 0)
		fprintf(o, "<text transform=\"translate(%d,%d) rotate(90)\" "
			"class=\"xl\">write bandwidth (MiB/s)</text>\n", W - 22,
			top + DEV_H / 2);
	for (size_t k = 0; k < n; k++) {
		const struct nfswb_trace *t = &s[k].f.trace;
		const char *bdis[4];
		size_t nbdi = sample_bdis(t, bdis, 4);

		for (size_t b = 0; b < nbdi; b++, row++) {
			/* One trace: a colour per device; several: per trace. */
			const char *color = n == 1 ? bdi_colors[b % 4] :
					    s[k].color;

			for (int bw = 0; bw < 2; bw++) {
				const struct axis *a = bw ? &ab : &ad;
				bool first = true;

				fprintf(o, "<polyline fill=\"none\" stroke=\"%s\""
					" stroke-width=\"%s\"%s points=\"",
					color, bw ? "1.5" : "2",
					bw ? " stroke-dasharray=\"5 3\"" : "");
				for (size_t i = 0; i < t->nsamples; i++) {
					const struct nfswb_trace_sample *x =
						&t->samples[i];
					double v;

					if (strcmp(x->bdi, bdis[b]) ||
					    !(bw ? x->has_bandwidth :
						   x->has_dirty))
						continue;
					v = (double)(bw ? x->bandwidth :
							  x->dirty) / 1048576.0;
					fprintf(o, "%s%.1f,%.1f",
						first ? "" : " ",
						LEFT + (x->t - s[k].t0) /
						       ax->max * PLOT_W,
						top + DEV_H - v / a->max *
							      DEV_H);
					first = false;
				}
				fputs("\"/>\n", o);
			}
			/* Above the panel, where no line runs. */
			fprintf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
				"y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>"
				"<text x=\"%d\" y=\"%d\">", LEFT,
				top - 12 - 16 * (rows - 1 - row), LEFT + 20,
				top - 12 - 16 * (rows - 1 - row), color,
				LEFT + 26, top - 8 - 16 * (rows - 1 - row));
			if (n > 1) {
				xml_text(o, s[k].name);
				fputs(", ", o);
			}
			fprintf(o, "bdi %s: dirty (solid), bandwidth "
				"(dashed)</text>\n", bdis[b]);
		}
	}
	fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"class=\"frame\"/>\n", LEFT, top, PLOT_W, DEV_H);
}

/*
 * The CDF: for each trace, the share of its COMMITs that took at most x,
 * on a log latency axis, with its median and p99 marked.
 */
static int cdf_view(FILE *o, int top, const struct series *s, size_t n)
{
	struct lat_scale ls = lat_scale_of(s, n, 1);

	grid_decades(o, top, &ls, true);
	for (int p = 0; p <= 100; p += 20) {
		double y = top + LAT_H - p / 100.0 * LAT_H;

		fprintf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"class=\"grid\"/>\n<text x=\"%d\" y=\"%.1f\" "
			"class=\"yl\">%d%%</text>\n", LEFT, y, LEFT + PLOT_W, y,
			LEFT - 8, y + 4, p);
	}
	fprintf(o, "<text transform=\"translate(24,%d) rotate(-90)\" "
		"class=\"xl\">COMMITs that took at most x</text>\n",
		top + LAT_H / 2);

	for (size_t k = 0; k < n; k++) {
		const struct nfswb_lat *l = &s[k].f.all.commit;
		size_t cnt = l->count, step;
		uint64_t *v;

		if (!cnt)
			continue;
		v = malloc(cnt * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memcpy(v, l->us, cnt * sizeof(*v));
		qsort(v, cnt, sizeof(*v), nfswb_cmp_u64);
		step = cnt > CDF_POINTS ? cnt / CDF_POINTS : 1;
		/* A step function: up at each sample, flat until the next. */
		fprintf(o, "<polyline class=\"cdf\" stroke=\"%s\" "
			"points=\"%.1f,%d", s[k].color,
			LEFT + lat_frac(&ls, (double)v[0]) * PLOT_W, top + LAT_H);
		for (size_t i = 0; i < cnt; i += step) {
			size_t last = i + step < cnt ? i + step - 1 : cnt - 1;
			double x = LEFT + lat_frac(&ls, (double)v[last]) * PLOT_W;
			double y0 = top + LAT_H - (double)i / cnt * LAT_H;
			double y1 = top + LAT_H - (double)(last + 1) / cnt * LAT_H;

			fprintf(o, " %.1f,%.1f %.1f,%.1f", x, y0, x, y1);
		}
		fputs("\"/>\n", o);
		free(v);
		for (int q = 0; q < 2; q++) {
			double x = LEFT + lat_frac(&ls, nth_pct(&s[k], q ? 99.0 :
							       50.0)) * PLOT_W;

			fprintf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				"y2=\"%d\" class=\"%s s%zu\"/>\n", x, top, x,
				top + LAT_H, q ? "p99" : "p50", k);
		}
	}
	fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"class=\"frame\"/>\n", LEFT, top, PLOT_W, LAT_H);
	return 0;
}

/* Characters (not bytes) of the UTF-8 string @s, up to @end. */
static size_t utf8_chars(const char *s, const char *end)
{
	size_t n = 0;

	for (; s < end && *s; s++)
		n += (*s & 0xc0) != 0x80;
	return n;
}

/* Where @s has had @chars characters, or its end. */
static const char *utf8_skip(const char *s, size_t chars)
{
	for (; *s; s++)
		if ((*s & 0xc0) != 0x80 && !chars--)
			break;
	return s;
}

/* Does @title take a second line? */
static bool title_wraps(const char *title)
{
	return utf8_chars(title, title + strlen(title)) > TITLE_CHARS;
}

/*
 * The title in at most two lines that end inside the picture: the first
 * breaks at its last blank within TITLE_CHARS, the second keeps its start
 * and ends in an ellipsis where it is longer still.
 */
static void title_lines(FILE *o, const char *title)
{
	const char *cut = title + strlen(title), *p;
	char *first;

	if (title_wraps(title)) {
		cut = utf8_skip(title, TITLE_CHARS);
		for (p = cut; p > title && *p != ' '; p--)
			;
		if (p > title)
			cut = p;
	}
	first = strndup(title, (size_t)(cut - title));
	fprintf(o, "<text x=\"%d\" y=\"26\" class=\"title\">", LEFT);
	xml_text(o, first ? first : "");
	fputs("</text>\n", o);
	free(first);
	if (!*cut)
		return;
	while (*cut == ' ')
		cut++;
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"title\">", LEFT,
		26 + TITLE_LINE_H);
	if (utf8_chars(cut, cut + strlen(cut)) > TITLE_CHARS) {
		char *second = strndup(cut, (size_t)(utf8_skip(cut,
						TITLE_CHARS - 1) - cut));

		xml_text(o, second ? second : "");
		fputs("\u2026", o);
		free(second);
	} else {
		xml_text(o, cut);
	}
	fputs("</text>\n", o);
}

static int write_svg(FILE *o, struct series *s, size_t n, const char *title,
		     bool cdf, int log)
{
	bool dev = false;
	double span = 0;
	struct axis ax;
	int head, top, h, gap, ret = 0;

	for (size_t k = 0; k < n; k++) {
		series_span(&s[k]);
		dev |= s[k].dev;
		/* Several traces start together: time is each one's own. */
		span = fmax(span, s[k].t1 - s[k].t0);
	}
	if (cdf)
		dev = false;
	/* A second title line pushes everything down by one. */
	head = 50 + (title_wraps(title) ? TITLE_LINE_H : 0);
	top = head + (int)(n + 1) * ROW_H;
	gap = GAP + (dev ? 16 * (device_rows(s, n) - 1) : 0);
	h = top + LAT_H + (dev ? gap + DEV_H : 0) + BOTTOM;
	ax = make_axis(span);

	svg_begin(o, h, s, n);
	title_lines(o, title);
	legend(o, head, s, n, cdf);
	if (cdf) {
		ret = cdf_view(o, top, s, n);
		fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"xl\">COMMIT "
			"latency (log scale)</text>\n</svg>\n",
			LEFT + PLOT_W / 2, h - 22);
		return ret;
	}
	time_view(o, top, s, n, &ax, log);
	if (dev)
		device_view(o, top + LAT_H + gap, s, n, &ax);
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"xl\">time (s) since "
		"%s</text>\n</svg>\n", LEFT + PLOT_W / 2, h - 22,
		n > 1 ? "each trace's first event" : "the first event");
	return 0;
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
	struct series s[MAX_SERIES];
	char tmp[PATH_MAX], both[256];
	size_t n = 0;
	bool png, cdf = false;
	int log = -1;
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
		case 'c':
			cdf = true;
			break;
		case 'l':
			log = 1;
			break;
		case 'L':
			log = 0;
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
	if (argc - optind > MAX_SERIES)
		return report_usage(&report_plot_cmd, "at most %d traces",
				    MAX_SERIES);
	if (samples && argc - optind > 1)
		return report_usage(&report_plot_cmd,
				    "-S goes with one trace, not %d",
				    argc - optind);
	for (n = 0; n < (size_t)(argc - optind); n++) {
		memset(&s[n], 0, sizeof(s[n]));
		s[n].name = argv[optind + (int)n];
		s[n].color = series_colors[n];
		if (report_load(&s[n].f, "plot", argv + optind + n, 1,
				REPORT_BY_NONE, samples)) {
			n++;
			goto out;
		}
	}
	if (!title && n > 1) {
		snprintf(both, sizeof(both), "%s vs %s%s", s[0].name, s[1].name,
			 n > 2 ? " ..." : "");
		title = both;
	}

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
	if (write_svg(o, s, n, title ? title : s[0].name, cdf, log) < 0) {
		report_err("plot", "%s", strerror(ENOMEM));
		fclose(o);
		goto out_tmp;
	}
	/* A write that failed early may leave nothing for fclose to see. */
	if (ferror(o) | fclose(o)) {
		report_err("plot", "%s: %s", tmp, strerror(errno));
		goto out_tmp;
	}
	ret = png ? -to_png(tmp, output) : 0;
out_tmp:
	if (png || ret)
		unlink(tmp);
out:
	for (size_t i = 0; i < n; i++)
		report_figures_free(&s[i].f);
	return ret ? 1 : 0;
}

const struct report_cmd report_plot_cmd = {
	.name = "plot",
	.args = "[-t TITLE] [-S SAMPLES.jsonl] [--cdf] [--log|--linear] "
		"-o OUT.svg|OUT.png FILE [FILE]...",
	.oneline = "COMMIT latency over time or as a CDF, with dirty backlog, "
		   "as SVG/PNG",
	.about = "COMMIT latency over time (one dot per COMMIT, at its "
		 "completion), the median\n"
		 "and p99 as lines, wb_bg_time_kick events as ticks, and the "
		 "device's dirty\n"
		 "backlog and write bandwidth when the trace has "
		 "'# nfswb-sample' lines.\n"
		 "'plot A B' draws up to four traces over each other (before, "
		 "after), each in\n"
		 "its own colour with its own median and p99, its time from "
		 "its own first event.\n"
		 "PNG is converted from the SVG by rsvg-convert (librsvg2-bin).",
	.opts = (const struct report_opt[]){
		{ 'o', "output", "OUT", ".svg or .png" },
		{ 't', "title", "TEXT", "title (default: the trace's file "
		  "name)" },
		{ 'S', "samples", "F", "also the samples of a JSON-lines file, "
		  "{\"t\": SECONDS,\n\"LABEL.BdiReclaimable\": KB, ...} "
		  "(the lab's samples.jsonl)" },
		{ 'c', "cdf", NULL, "the share of COMMITs that took at most x, "
		  "on a log axis,\ninstead of latency over time" },
		{ 'l', "log", NULL, "latency on a log axis (the default when "
		  "the slowest COMMIT\ntook more than 20 times a median)" },
		{ 'L', "linear", NULL, "latency on a linear axis from 0" },
		{ 0 },
	},
	.run = plot_run,
};
