// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * policy.c - how much writeback to start and what dirty cap to keep.
 *
 * The formulas are in policy.h; doc/design.md says why.
 */
#include "config.h"

#include <string.h>

#include "policy.h"
#include "satmath.h"

/*
 * bytes/s x ms / 1000 without losing precision or overflowing for sane
 * inputs, saturating for absurd ones.
 */
static uint64_t bytes_in(uint64_t bytes_per_s, uint64_t ms)
{
	uint64_t prod, q = bytes_per_s / 1000, r = bytes_per_s % 1000;

	if (!__builtin_mul_overflow(bytes_per_s, ms, &prod))
		return prod / 1000;
	/*
	 * With bytes_per_s = q x 1000 + r and ms = a x 1000 + b:
	 * bytes_per_s x ms / 1000 = q x ms + r x a + r x b / 1000.
	 */
	return nfswb_add_sat(nfswb_add_sat(nfswb_mul_sat(q, ms),
					   nfswb_mul_sat(r, ms / 1000)),
			     r * (ms % 1000) / 1000);
}

/* Is @want far enough from @cur (0: nothing in force) to act on? */
static bool moved_enough(uint64_t cur, uint64_t want)
{
	uint64_t diff = cur > want ? cur - want : want - cur;

	return !cur || diff > (cur >> NFSWB_CAP_HYSTERESIS_SHIFT);
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a > b ? a : b;

	return m > c ? m : c;
}

/* The target's floor: background_min, or the default for 0. */
static uint64_t target_floor(uint64_t bg_min)
{
	return bg_min ? bg_min : NFSWB_MIN_TARGET_BYTES;
}

/* Continuous kicking's target and minimum kick. */
static uint64_t continuous_floor(uint64_t bg_min)
{
	return target_floor(bg_min) >> NFSWB_CONTINUOUS_FLOOR_SHIFT;
}

static uint64_t decide_kick(const struct nfswb_policy_in *in,
			    uint64_t target, bool continuous, bool *limited)
{
	uint64_t excess, budget, room, kick;
	uint64_t least = continuous ? continuous_floor(in->background_min)
				    : nfswb_policy_min_kick(in->background_min);

	if (in->nfs_dirty_bytes <= target)
		return 0;
	excess = in->nfs_dirty_bytes - target;

	/*
	 * Keep no more in flight than the device writes in about two
	 * intervals: more would only queue behind itself and delay COMMITs
	 * for no gain.  A slow device still gets one minimum kick in flight,
	 * or the deferral below would starve it.
	 */
	budget = bytes_in(in->bandwidth, nfswb_mul_sat(NFSWB_INFLIGHT_INTERVALS,
							in->interval_ms));
	if (budget < least)
		budget = least;
	room = in->inflight_bytes < budget ? budget - in->inflight_bytes : 0;
	*limited = excess > room;
	if (!room)
		return 0;
	kick = excess < room ? excess : room;

	/*
	 * A small kick cut short by the in-flight bound waits: room opens as
	 * the kicked I/O completes, and one larger kick next interval writes
	 * larger contiguous extents than several small ones (small,
	 * interleaved writeback is what fragments files on XFS; Chinner,
	 * 2012).  When the small kick is the whole excess, waiting would not
	 * make it larger, only older - except when kicking continuously:
	 * there the excess grows by what arrives, and waiting for the
	 * minimum keeps a trickle from costing a kick (a syscall and its
	 * measuring) every interval.
	 */
	if (kick < least && (continuous || kick < excess))
		return 0;
	return kick;
}

static void decide_cap(const struct nfswb_policy_in *in, uint64_t target,
		       struct nfswb_policy_out *out)
{
	uint64_t cap, old = in->cap_in_force;

	if (!in->commit_target_ms) {
		out->cap_bytes = 0;
		out->cap_change = old != 0;
		return;
	}
	cap = max3(bytes_in(in->bandwidth, in->commit_target_ms),
		   nfswb_mul_sat(2, target), NFSWB_MIN_CAP_BYTES);
	if (in->dirty_threshold && cap > in->dirty_threshold) {
		cap = in->dirty_threshold;
		out->cap_clamped = true;
	}
	out->cap_bytes = cap;
	out->cap_change = moved_enough(old, cap);
}

uint64_t nfswb_policy_target(uint64_t rate, uint64_t background_time_ms,
			     uint64_t bg_min)
{
	uint64_t target = bytes_in(rate, background_time_ms);
	uint64_t least = target_floor(bg_min);

	return target < least ? least : target;
}

uint64_t nfswb_policy_min_kick(uint64_t bg_min)
{
	/*
	 * Half the floor: the default 8 MiB floor keeps 4 MiB kicks, and a
	 * small floor's excess, about what arrives in an interval, is not
	 * held back waiting for 4 MiB of in-flight room.
	 */
	uint64_t half = target_floor(bg_min) / 2;

	return half < NFSWB_MIN_KICK_BYTES ? half : NFSWB_MIN_KICK_BYTES;
}

/*
 * The rate the target is sized by: the bandwidth, or what the device
 * wrote lately when that is less.  Below the device's speed the write
 * rate is the rate data arrives at, and a target of write_rate x
 * background_time lets data wait about background_time before it is
 * kicked (oldest first), instead of keeping a whole background_time of
 * device time dirty that COMMITs then wait for.  At the device's speed
 * the write rate is what it sustains, which the target may not exceed
 * either.
 */
static uint64_t policy_pace(const struct nfswb_policy_in *in)
{
	if (in->have_write_rate && in->write_rate < in->bandwidth)
		return in->write_rate;
	return in->bandwidth;
}

/*
 * The target nfswb_policy_decide() works to: nfswb_policy_target() of the
 * pace, or 0 when @continuous (write-behind).
 */
static uint64_t target_now(const struct nfswb_policy_in *in, bool continuous)
{
	if (continuous)
		return 0;
	return nfswb_policy_target(policy_pace(in),
				   in->background_time_ms, in->background_min);
}

/* A decayed sum: about the last 1 << NFSWB_CONTINUOUS_DECAY_SHIFT decisions. */
static uint64_t decay(uint64_t sum)
{
	return sum - (sum >> NFSWB_CONTINUOUS_DECAY_SHIFT);
}

/* What fell below what the last decision left dirty: others wrote it. */
static uint64_t cleaned_by_others(const struct nfswb_policy_in *in)
{
	uint64_t left = in->memory.left_bytes;

	return left > in->nfs_dirty_bytes ? left - in->nfs_dirty_bytes : 0;
}

bool nfswb_policy_continuous(const struct nfswb_policy_in *in)
{
	const struct nfswb_policy_memory *m = &in->memory;
	uint64_t rate_bound;

	/* Only data clearly slower than the device leaves it idle time. */
	if (!in->have_write_rate || in->commits_often)
		return false;
	rate_bound = m->continuous ? in->bandwidth - in->bandwidth / 4
				   : in->bandwidth / 2;
	if (in->write_rate > rate_bound)
		return false;
	if (!m->continuous)
		return in->nfs_dirty_bytes >
		       continuous_floor(in->background_min);
	/* Idle: hardly anything kicked lately, so nothing to go on with. */
	if (decay(m->kicked_bytes) < continuous_floor(in->background_min))
		return false;
	/* Others clean more than it kicks: the clients' COMMITs do the work. */
	return nfswb_add_sat(decay(m->cleaned_bytes), cleaned_by_others(in)) <=
	       decay(m->kicked_bytes);
}

/* Data clearly slower than the device: where write-behind may begin. */
static bool may_write_behind(const struct nfswb_policy_in *in)
{
	return in->have_write_rate && in->write_rate <= in->bandwidth / 2;
}

uint64_t nfswb_policy_standby_target(const struct nfswb_policy_in *in,
				     bool continuous)
{
	if (continuous)
		return 0;
	/* Where write-behind may begin: its beginning is measured. */
	if (may_write_behind(in) && !in->commits_often)
		return continuous_floor(in->background_min) <<
		       NFSWB_STANDBY_LEAVE_SHIFT;
	return target_now(in, false);
}

/*
 * The kernel's own threshold.  The flusher needs no kick and costs the
 * daemon nothing, so once the data's rate is known the kernel writes
 * behind at any rate, from the least kick of write-behind, without the
 * memory of kicks or the half-the-bandwidth bound that spare the daemon
 * its own kicks.  Between half and all of the bandwidth a target of
 * background_time's worth left that much for the COMMITs to write
 * (manyclients in tests/nfs/RESULTS.md); faster than the disk, the
 * backlog passes either threshold and the flusher runs throughout.
 * Until the rate is known: the target (never 0: the kernel's 0 means no
 * threshold).
 */
static uint64_t knob_bytes(const struct nfswb_policy_in *in, uint64_t target)
{
	if (!target || in->have_write_rate)
		return continuous_floor(in->background_min);
	return target;
}

bool nfswb_policy_standby(uint64_t bound, uint64_t target, bool in_force)
{
	unsigned int shift = in_force ? NFSWB_STANDBY_LEAVE_SHIFT
				      : NFSWB_STANDBY_ENTER_SHIFT;

	return bound < (target >> shift);
}

uint64_t nfswb_policy_standby_interval_ms(uint64_t bound, uint64_t target,
					  uint64_t bandwidth,
					  uint64_t interval_ms)
{
	uint64_t ms;

	if (!bandwidth || bound >= target)
		return interval_ms;
	ms = nfswb_mul_sat(target - bound, 1000) / bandwidth;
	if (ms > NFSWB_STANDBY_MAX_INTERVAL_MS)
		ms = NFSWB_STANDBY_MAX_INTERVAL_MS;
	return ms > interval_ms ? ms : interval_ms;
}

uint64_t nfswb_policy_commits_often_backlog(uint64_t bg_min)
{
	return continuous_floor(bg_min) * 3;
}

bool nfswb_commits_often_look(struct nfswb_commits_often *c,
			      uint64_t arrived, uint64_t commits,
			      uint64_t cleaned, uint64_t measured,
			      uint64_t max_backlog)
{
	c->arrived = nfswb_add_sat(decay(c->arrived), arrived);
	c->allowed = nfswb_add_sat(decay(c->allowed),
				   nfswb_mul_sat(commits, max_backlog));
	c->cleaned = nfswb_add_sat(decay(c->cleaned), cleaned);
	c->peak = decay(c->peak);
	if (measured > c->peak)
		c->peak = measured;
	if (c->looks < NFSWB_COMMITS_OFTEN_LOOKS)
		c->looks++;
	if (c->often)	/* this look alone can end it */
		c->often = measured <= max_backlog &&
			   nfswb_mul_sat(cleaned, 4) >= arrived;
	else
		c->often = c->looks >= NFSWB_COMMITS_OFTEN_LOOKS &&
			   c->arrived >= max_backlog &&
			   c->arrived <= c->allowed &&
			   nfswb_mul_sat(c->cleaned, 4) >= c->arrived &&
			   c->peak <= max_backlog;
	return c->often;
}

bool nfswb_written_bound_commits_seldom(const struct nfswb_written_bound *w)
{
	return w->proven && !w->broken &&
	       w->commits.looks >= NFSWB_COMMITS_OFTEN_LOOKS &&
	       !w->commits.often;
}

bool nfswb_written_bound_get(const struct nfswb_written_bound *w,
			     uint64_t written, uint64_t now_ms,
			     uint64_t *bound)
{
	if (!w->proven || w->broken || written < w->base_written ||
	    now_ms < w->base_ms ||
	    now_ms - w->base_ms > NFSWB_WRITTEN_BOUND_MAX_AGE_MS)
		return false;
	*bound = nfswb_add_sat(w->base_dirty, written - w->base_written);
	return true;
}

bool nfswb_written_bound_look(struct nfswb_written_bound *w,
			      uint64_t measured, uint64_t written,
			      uint64_t commits, uint64_t now_ms,
			      uint64_t max_backlog)
{
	bool broke = false;

	if (w->have_base && !w->broken && written >= w->base_written) {
		uint64_t arrived = written - w->base_written;
		uint64_t bound = nfswb_add_sat(w->base_dirty, arrived);
		/* The last look's kick was written by the daemon, not others. */
		uint64_t left = bound - (w->base_kick < w->base_dirty ?
					 w->base_kick : w->base_dirty);

		if (w->proven &&
		    measured > nfswb_add_sat(nfswb_mul_sat(bound, 2),
					     NFSWB_MIN_KICK_BYTES))
			w->broken = broke = true;
		if (written > w->base_written)
			w->proven = true;
		if (w->proven && !w->broken)
			nfswb_commits_often_look(&w->commits, arrived,
						 commits >= w->base_commits ?
						 commits - w->base_commits : 0,
						 left > measured ?
						 left - measured : 0,
						 measured, max_backlog);
	}
	if (w->broken)
		w->commits.often = false;
	w->base_dirty = measured;
	w->base_written = written;
	w->base_commits = commits;
	w->base_kick = 0;
	w->base_ms = now_ms;
	w->have_base = true;
	return broke;
}

void nfswb_policy_decide(const struct nfswb_policy_in *in,
			 struct nfswb_policy_out *out)
{
	bool continuous = nfswb_policy_continuous(in);
	uint64_t target = target_now(in, continuous);

	memset(out, 0, sizeof(*out));
	out->target_bytes = target;
	out->kick_bytes = decide_kick(in, target, continuous, &out->limited);
	out->memory.left_bytes = in->nfs_dirty_bytes - out->kick_bytes;
	out->memory.kicked_bytes = nfswb_add_sat(decay(in->memory.kicked_bytes),
						 out->kick_bytes);
	/* Beginning: what others cleaned before does not count against it. */
	if (!continuous || in->memory.continuous)
		out->memory.cleaned_bytes = nfswb_add_sat(
			decay(in->memory.cleaned_bytes), cleaned_by_others(in));
	out->memory.continuous = continuous;
	decide_cap(in, target, out);
	out->knob_bytes = knob_bytes(in, target);
	out->knob_ms = nfswb_policy_knob_ms(in->background_time_ms,
					    out->knob_bytes, in->kernel_bw);
	out->knob_change = out->knob_ms != in->knob_in_force_ms &&
			   moved_enough(in->knob_in_force_ms, out->knob_ms);
}

uint64_t nfswb_policy_knob_ms(uint64_t background_time_ms,
			      uint64_t target_bytes, uint64_t kernel_bw)
{
	uint64_t most = nfswb_mul_sat(background_time_ms,
				      NFSWB_KNOB_MAX_FACTOR);
	uint64_t ms;

	if (!kernel_bw || !target_bytes)
		return background_time_ms;
	/* ceil(target x 1000 / kernel_bw), exact: no overflow in 128 bits. */
	unsigned __int128 x = (unsigned __int128)target_bytes * 1000;

	x = x / kernel_bw + (x % kernel_bw != 0);
	ms = x > most ? most : (uint64_t)x;
	return ms ? ms : 1;
}

bool nfswb_policy_knob_change(uint64_t cur, uint64_t want)
{
	return moved_enough(cur, want);
}

static bool local_window_over(const struct nfswb_local_watch *w,
			      uint64_t now_ms)
{
	return !w->have_base || now_ms < w->base_ms ||
	       now_ms - w->base_ms >= NFSWB_LOCAL_WINDOW_MS;
}

static bool local_peek_due(const struct nfswb_local_watch *w, uint64_t now_ms)
{
	uint64_t last = w->peek_ms > w->base_ms ? w->peek_ms : w->base_ms;

	return w->verdict != NFSWB_LOCAL_PRESENT &&
	       (now_ms < last || now_ms - last >= NFSWB_LOCAL_PEEK_MS);
}

bool nfswb_local_watch_due(const struct nfswb_local_watch *w,
			   uint64_t now_ms)
{
	return local_window_over(w, now_ms) || local_peek_due(w, now_ms);
}

/*
 * What nfsd's WRITEs of a window can have dirtied: @bytes, 1/8 more for
 * metadata, the partial first and last page of each of its @writes, and
 * the slack; with no count of WRITEs, twice @bytes and the slack.
 */
static uint64_t local_allowance(uint64_t bytes, uint64_t writes)
{
	uint64_t more = writes ?
		nfswb_add_sat(bytes >> NFSWB_LOCAL_META_SHIFT,
			      nfswb_mul_sat(writes, NFSWB_LOCAL_PARTIAL_BYTES)) :
		bytes;

	return nfswb_add_sat(nfswb_add_sat(bytes, more),
			     NFSWB_LOCAL_SLACK_BYTES);
}

enum nfswb_local_verdict nfswb_local_watch_update(struct nfswb_local_watch *w,
						  uint64_t dirtied,
						  uint64_t written,
						  uint64_t writes,
						  uint64_t now_ms)
{
	uint64_t allowed, local;

	w->closed = false;
	if (!w->have_base || dirtied < w->base_dirtied ||
	    written < w->base_written || writes < w->base_writes ||
	    now_ms < w->base_ms)
		goto restart;
	if (!nfswb_local_watch_due(w, now_ms))
		return w->verdict;
	allowed = local_allowance(written - w->base_written,
				  writes - w->base_writes);
	local = dirtied - w->base_dirtied;
	if (!local_window_over(w, now_ms)) {
		/* A look inside the window: only local writers close it. */
		w->peek_ms = now_ms;
		if (local <= allowed)
			return w->verdict;
	}
	w->closed = true;
	w->local_bytes = local > allowed ? local - allowed : 0;
	w->window_ms = now_ms - w->base_ms;
	if (w->local_bytes) {
		w->seen = true;
		w->seen_ms = now_ms;
	}
	w->verdict = w->seen && now_ms - w->seen_ms < NFSWB_LOCAL_QUIET_MS ?
		     NFSWB_LOCAL_PRESENT : NFSWB_LOCAL_ABSENT;
restart:
	w->base_dirtied = dirtied;
	w->base_written = written;
	w->base_writes = writes;
	w->base_ms = now_ms;
	w->have_base = true;
	return w->verdict;
}
