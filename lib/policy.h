/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.h - when to kick writeback, how much, and what dirty cap.
 *
 * Pure code: state in, decisions out, no I/O.  The daemon gathers the
 * inputs per device each interval, asks nfswb_policy_decide(), and hands
 * the decision to the device's mechanism.
 *
 *   pace   = min(bandwidth, write_rate)          (bandwidth: rate unknown)
 *   floor  = background_min, or NFSWB_MIN_TARGET_BYTES for 0
 *   target = max(pace x background_time, floor)
 *   least  = min(floor / 2, NFSWB_MIN_KICK_BYTES)  (the minimum kick)
 *   continuous (see nfswb_policy_continuous): write-behind,
 *            target = 0, least = floor >> NFSWB_CONTINUOUS_FLOOR_SHIFT
 *   excess = nfs_dirty - target                  (nothing when <= 0)
 *   room   = max(bandwidth x 2 x interval, least)
 *            - inflight                          (nothing when <= 0)
 *   kick   = min(excess, room), deferred when below least unless it is
 *            the whole excess (continuous: always deferred below least);
 *            limited when excess > room
 *   cap    = max(bandwidth x commit_target, 2 x target, NFSWB_MIN_CAP_BYTES)
 *            with commit_target set, else none; then at most the global
 *            dirty threshold (the kernel refuses a larger max_bytes); a
 *            change is reported when no cap is in force or it moves by
 *            more than 1/8.
 *   knob   = the kernel's threshold in bytes: floor >>
 *            NFSWB_CONTINUOUS_FLOOR_SHIFT once the data's rate is known
 *            or when the device writes behind (target 0), so that the
 *            kernel writes behind itself at any rate; the target before;
 *            as a time, that / the kernel's bandwidth estimate, see
 *            below; a change is reported when it moves by more than 1/8.
 *
 * All arithmetic is 64-bit and saturates; doc/design.md gives the reasons.
 */
#ifndef NFSWB_POLICY_H
#define NFSWB_POLICY_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Kicks smaller than this are deferred: tiny writes fragment (Chinner
 * 2012).  A floor below 8 MiB lowers it to half the floor: a smaller
 * floor asks for smaller, more continuous kicks.
 */
#define NFSWB_MIN_KICK_BYTES	(4ull << 20)
/*
 * The target never goes below the floor, whatever bandwidth x time
 * says: background_min (nfswb.exports(5)), by default this.
 */
#define NFSWB_MIN_TARGET_BYTES	(8ull << 20)
/*
 * The cap never goes below this: each nfsd thread dirties up to ~4 MiB
 * between balance_dirty_pages() checks, so a smaller strict limit turns
 * a few dozen threads' throttling into stop-and-go.
 */
#define NFSWB_MIN_CAP_BYTES	(64ull << 20)
/* Cap changes smaller than 1/8 are ignored (hysteresis). */
#define NFSWB_CAP_HYSTERESIS_SHIFT 3
/* In-flight kicks are bounded by what the device writes in this many intervals. */
#define NFSWB_INFLIGHT_INTERVALS 2
/*
 * Standby: a device stands by while a cheap upper bound of its dirty
 * bytes stays below target >> NFSWB_STANDBY_ENTER_SHIFT, and returns
 * once the bound reaches target >> NFSWB_STANDBY_LEAVE_SHIFT.
 */
#define NFSWB_STANDBY_ENTER_SHIFT 2
#define NFSWB_STANDBY_LEAVE_SHIFT 1
/* The longest a standing-by device goes unsampled. */
#define NFSWB_STANDBY_MAX_INTERVAL_MS 1000
/*
 * Continuous kicking, write-behind (nfswb_policy_continuous): data
 * arriving at no more than half the bandwidth, once its backlog passes
 * floor >> NFSWB_CONTINUOUS_FLOOR_SHIFT (1 MiB of the default 8 MiB
 * floor), lowers the target to 0 and the minimum kick to that, until it
 * arrives at more than 3/4 of it.  What the policy
 * kicked and what others cleaned are summed with a decay of 1/16 per
 * decision (NFSWB_CONTINUOUS_DECAY_SHIFT): about the last 1.6 s.
 */
#define NFSWB_CONTINUOUS_FLOOR_SHIFT 3
#define NFSWB_CONTINUOUS_DECAY_SHIFT 4

/*
 * What the policy carries from one interval to the next: the caller
 * passes the last decision's (nfswb_policy_out.memory) back in, zero at
 * first.
 */
struct nfswb_policy_memory {
	/* nfs_dirty_bytes less the kick: what stays dirty unless another writes it */
	uint64_t left_bytes;
	uint64_t kicked_bytes;	/* kicked lately (decayed sum) */
	uint64_t cleaned_bytes;	/* fallen below left_bytes lately: others cleaned */
	bool continuous;	/* kicked continuously */
};

struct nfswb_policy_in {
	uint64_t now_ms;
	uint64_t interval_ms;		/* sampling interval */
	uint64_t nfs_dirty_bytes;	/* dirty bytes NFS wrote on the device */
	uint64_t inflight_bytes;	/* kicked, not yet written */
	uint64_t bandwidth;		/* bytes/s, > 0 */
	/* What the device wrote lately, bytes/s of wall time (estimator.h). */
	uint64_t write_rate;
	bool have_write_rate;		/* false: the bandwidth alone paces */
	uint64_t background_time_ms;
	uint64_t background_min;	/* the target's floor; 0: the default */
	uint64_t commit_target_ms;	/* 0: no cap */
	uint64_t cap_in_force;		/* bytes, 0: none */
	uint64_t knob_in_force_ms;	/* kernel knob, 0: none */
	/* What the kernel reports; 0: unknown. */
	uint64_t kernel_bw;		/* the bdi's write_bandwidth, bytes/s */
	uint64_t dirty_threshold;	/* global nr_dirty_threshold, bytes */
	/* The clients commit often (struct nfswb_commits_often): no write-behind. */
	bool commits_often;
	struct nfswb_policy_memory memory;	/* the last decision's */
};

struct nfswb_policy_out {
	uint64_t target_bytes;	/* pace x background_time, floored */
	uint64_t kick_bytes;	/* start writeback of this many now (0: none) */
	/* Data above the target waits for in-flight room (excess > room). */
	bool limited;
	uint64_t cap_bytes;	/* desired cap, 0: none */
	bool cap_change;	/* cap_bytes differs enough from cap_in_force */
	bool cap_clamped;	/* cap_bytes is the global dirty threshold */
	uint64_t knob_bytes;	/* kernel mode's dirty_background_bytes */
	uint64_t knob_ms;	/* its dirty_background_time(_ms) */
	bool knob_change;	/* knob_ms differs enough from knob_in_force_ms */
	/*
	 * The device stands by (nfswb_policy_standby, set by the step):
	 * nfs_dirty_bytes was the cheap bound, and a mechanism need not
	 * measure per file until it is cleared.
	 */
	bool standby;
	struct nfswb_policy_memory memory;	/* for the next interval */
};

/**
 * nfswb_policy_decide - one interval's decision for one device.
 * @in: the device's state now
 * @out: the decision
 *
 * Without commit_target, cap_bytes is 0 and cap_change says whether a
 * cap still in force (from an earlier configuration) must be lifted.
 */
void nfswb_policy_decide(const struct nfswb_policy_in *in,
			 struct nfswb_policy_out *out);

/**
 * nfswb_policy_target - rate x background_time, at least @bg_min
 * (0: NFSWB_MIN_TARGET_BYTES): the backlog the policy lets build up.
 */
uint64_t nfswb_policy_target(uint64_t rate, uint64_t background_time_ms,
			     uint64_t bg_min);

/**
 * nfswb_policy_min_kick - the least kick worth its I/O with the floor
 * @bg_min (0: the default): half of it, at most NFSWB_MIN_KICK_BYTES.
 */
uint64_t nfswb_policy_min_kick(uint64_t bg_min);

/**
 * nfswb_policy_continuous - is the device kicked continuously now?
 * @in: nfs_dirty_bytes, the rates, the floor and memory are read
 *
 * A device whose data arrives at most at half its speed has idle time to
 * spend, and a COMMIT waits for the backlog it finds: held at the floor,
 * 8 MiB are 0.5 s of a 16 MiB/s disk, and a 4 MiB file COMMITted at its
 * end (the lab's seqwrite) waits for all of it.  Such a device writes
 * behind: once its backlog passes an eighth of the floor (1 MiB by
 * default) it is kicked continuously, its target 0 and its minimum kick
 * that eighth, so that a COMMIT finds about an interval's arrivals.  It
 * stops when the data
 * comes faster (above 3/4 of the bandwidth: the catching up after it
 * began raises the write rate for a while), or when others clean more
 * than the policy kicks: the backlog falling below what the last
 * decision left dirty (@in->memory.left_bytes) was written by someone
 * else, a COMMIT, an fsync or the kernel's flusher, and then the device
 * is left to them until its backlog passes the lowered floor again; or
 * when it kicked less than the lowered floor lately: the device went
 * idle, and stands by as it did before.
 * A COMMIT now and then (16 streams in step) does not stop it.  Where
 * the clients commit often (@in->commits_often) it never begins.
 * Return: true to kick continuously.
 */
bool nfswb_policy_continuous(const struct nfswb_policy_in *in);

/**
 * nfswb_policy_standby - may the device stand by this interval?
 * @bound: an upper bound of the device's dirty bytes that costs one read
 *         (the bdi's reclaimable bytes, or the global nr_dirty)
 * @target: nfswb_policy_target() now
 * @in_force: it stood by last interval
 *
 * First do no harm: on a device whose COMMITs come so often that its
 * backlog never nears the target, there is nothing to kick, and
 * measuring each NFS-written file every interval only costs CPU that
 * nfsd could use.  The device stands by while @bound is below a quarter
 * of @target and until it reaches half of it (hysteresis, so that a
 * bound near one threshold does not flap).  No kick is ever due below
 * the target, so standing by changes no decision.
 * Return: true to stand by.
 */
bool nfswb_policy_standby(uint64_t bound, uint64_t target, bool in_force);

/**
 * nfswb_policy_standby_target - the @target nfswb_policy_standby() is
 * given: the target nfswb_policy_decide() works to (nfswb_policy_target()
 * of the pace, 0 while it writes behind), except where the device could write
 * behind (data at most at half the bandwidth, nfswb_policy_continuous,
 * and the clients not committing often): there twice the lowered floor,
 * so that it measures again once its bound reaches the backlog
 * write-behind begins at (1 MiB by default), and stands by again below
 * half that.
 * @in: the rates and the floor are read
 * @continuous: it writes behind now (then 0: it does not stand by)
 */
uint64_t nfswb_policy_standby_target(const struct nfswb_policy_in *in,
				     bool continuous);

/**
 * nfswb_policy_standby_interval_ms - when to sample a standing-by device
 * @bound: the dirty bound it stands by with
 * @target: nfswb_policy_target() now
 * @bandwidth: what the device writes, bytes/s
 * @interval_ms: the sampling interval
 *
 * A standing-by device costs a wakeup and two reads per sample, and no
 * kick is due until its backlog passes the target.  Growing at the
 * device's rate, the backlog takes (@target - @bound) / @bandwidth to get
 * there (three quarters of background_time at least when the target is
 * the bandwidth's, as a device stands by only below a quarter of it):
 * sampled then, it makes the same kicks as sampled every interval.  Data
 * written faster than the device comes only in bursts (past the dirty
 * limits the kernel throttles writers to the device's rate), and a burst
 * meets its first kick later by at most this interval.
 * Return: that time, at most NFSWB_STANDBY_MAX_INTERVAL_MS and never
 * below @interval_ms.
 */
uint64_t nfswb_policy_standby_interval_ms(uint64_t bound, uint64_t target,
					  uint64_t bandwidth,
					  uint64_t interval_ms);

/*
 * The written bound: knfsd counts the bytes its WRITEs hand to the page
 * cache (/proc/net/rpc/nfsd, line "io"), so a device's NFS-written dirty
 * bytes are at most what the last look at its files measured plus what
 * nfsd wrote since, on every device at once.  Unlike BdiReclaimable it
 * leaves out what local processes dirtied (a build's temp files): a
 * device beside them whose COMMITs keep its NFS backlog small stands by
 * too, instead of measuring each file every interval.
 *
 * The bound counts only once the count grew between two looks: an
 * idle knfsd beside NFS-Ganesha never moves it.  A count that grew less
 * than a look finds cannot be nfsd's count of these writes (Ganesha and
 * knfsd both writing, or knfsd in another network namespace): the bound
 * breaks and is not used again.  It also ages: after
 * NFSWB_WRITTEN_BOUND_MAX_AGE_MS without a look it stands for nothing,
 * so a device never goes longer unmeasured, and the check runs.
 */
#define NFSWB_WRITTEN_BOUND_MAX_AGE_MS	5000

/*
 * Clients that commit often.  Between two looks nfsd wrote what its
 * count grew by and was sent what its COMMIT count grew by (both on
 * every device at once); what of the writes the second look no longer
 * finds dirty, less what the daemon kicked, others cleaned: the
 * clients' COMMITs, or the flusher.  Where over the recent looks
 * (decayed sums, about 16 of them) at most nfswb_policy_commits_often_
 * backlog(), 3 MiB by default, arrived per COMMIT, others cleaned at
 * least a quarter of what arrived (the COMMITs are this device's), and
 * no look found more dirty, a COMMIT finds at most that much to write
 * (judged from the sixteenth look on: over fewer, a file COMMITted every
 * 4 MiB can show 3 MiB a COMMIT between the window's edges):
 * write-behind, which begins at a third of it, could spare it little,
 * and sampling every interval costs what nfsd could use (the lab's
 * tempfile, 6.12 on one emulated CPU: client fsync p99 1.16x stock's
 * sampled every 100 ms, stock's once a second).  The lab's randwrite,
 * reread and tempfile COMMIT every 2 MiB; seqwrite every 4 MiB, where
 * write-behind takes COMMIT p99 from 164 to 33 ms.  COMMITs are
 * counted, not guessed from the cleaning: a slow device cleans one
 * COMMIT's pages over several looks (6.12's seqwrite, its 4 MiB per
 * COMMIT taken for less than 3 MiB).  First do no harm: such a device
 * does nothing at all: no write-behind, and one sample every
 * NFSWB_COMMITS_OFTEN_INTERVAL_MS, standing by under the ordinary target
 * where its bound allows (a look at a 256 MiB file rewritten at random
 * costs more than a standby sample), until a look finds more than that
 * backlog, or more than 3/4 of what arrived since the last one still
 * dirty (the clients stopped committing).  Kicks above the target go on.
 * Without nfsd's COMMIT count it is never so.
 */
#define NFSWB_COMMITS_OFTEN_INTERVAL_MS	1000
#define NFSWB_COMMITS_OFTEN_LOOKS	16

struct nfswb_commits_often {
	uint64_t arrived;	/* what nfsd wrote between looks, decayed sum */
	uint64_t allowed;	/* the backlog per COMMIT sent, decayed sum */
	uint64_t cleaned;	/* what others cleaned, decayed sum */
	uint64_t peak;		/* the largest backlog a look found lately */
	unsigned int looks;	/* looks counted, up to NFSWB_COMMITS_OFTEN_LOOKS */
	bool often;		/* the device does nothing */
};

/**
 * nfswb_commits_often_look - count one look for struct nfswb_commits_often.
 * @c: its state
 * @arrived: what nfsd wrote since the last look, bytes
 * @commits: the COMMITs nfsd was sent since then
 * @cleaned: what others cleaned since then, bytes
 * @measured: the NFS-written dirty bytes this look found
 * @max_backlog: the most a COMMIT may find where clients commit often
 *               (nfswb_policy_commits_often_backlog())
 * Return: @c->often after this look.
 */
bool nfswb_commits_often_look(struct nfswb_commits_often *c,
			      uint64_t arrived, uint64_t commits,
			      uint64_t cleaned, uint64_t measured,
			      uint64_t max_backlog);

/**
 * nfswb_policy_commits_often_backlog - three times the backlog
 * write-behind begins at (floor >> NFSWB_CONTINUOUS_FLOOR_SHIFT): 3 MiB
 * with the default floor.
 * @bg_min: the target's floor option (0: the default)
 */
uint64_t nfswb_policy_commits_often_backlog(uint64_t bg_min);

struct nfswb_written_bound {
	uint64_t base_dirty;	/* NFS-written dirty bytes the last look found */
	uint64_t base_written;	/* nfsd's count at that look */
	uint64_t base_commits;	/* nfsd's COMMIT count then */
	uint64_t base_kick;	/* what that look's decision kicked */
	uint64_t base_ms;	/* when */
	bool have_base;
	bool proven;		/* the count grew between two looks */
	bool broken;		/* a look found more than the count allows */
	struct nfswb_commits_often commits;	/* counted at each look */
};

/**
 * nfswb_written_bound_commits_seldom - are the clients known not to commit
 * often: judged over NFSWB_COMMITS_OFTEN_LOOKS looks and not so, on a
 * bound neither unproven nor broken?
 *
 * Files mode opens a file an NFSv4 client holds a write delegation on
 * only then: the open makes nfsd recall the delegation, which pays where
 * data gathers between COMMITs (the lab's multiwriter on 7.3: COMMIT p99
 * 185 ms against stock's 6.6 s), not where a COMMIT finds at most 3 MiB
 * (tempfile on 7.3: client fsync p99 1.22x stock's, the delegation
 * recalled in every run).
 */
bool nfswb_written_bound_commits_seldom(const struct nfswb_written_bound *w);

/**
 * nfswb_written_bound_get - the bound as of @now_ms.
 * @w: its state
 * @written: nfsd's count now, bytes
 * @now_ms: the clock
 * @bound: set to base_dirty + (@written - base_written) on success
 *
 * Return: false when there is no bound: not proven yet, broken, older than
 * NFSWB_WRITTEN_BOUND_MAX_AGE_MS, or a count that went backwards (nfsd
 * restarted: its counters start over).
 */
bool nfswb_written_bound_get(const struct nfswb_written_bound *w,
			     uint64_t written, uint64_t now_ms,
			     uint64_t *bound);

/**
 * nfswb_written_bound_look - a look at the files measured @measured
 * NFS-written dirty bytes while nfsd's count was @written and its COMMIT
 * count @commits (always 0 where it has none): check the bound against
 * it, then start it over from there.
 *
 * The look may exceed the bound a little: it extrapolates files it did
 * not refresh this time.  It breaks the bound when it finds more than
 * twice the bound plus NFSWB_MIN_KICK_BYTES.  It also counts the look
 * for @w->commits (nfswb_commits_often_look(), with @max_backlog), what
 * the bound allowed less the last look's kick (@w->base_kick, which the
 * caller sets after deciding) and @measured being what others cleaned.
 * Return: true when this look broke it.
 */
bool nfswb_written_bound_look(struct nfswb_written_bound *w,
			      uint64_t measured, uint64_t written,
			      uint64_t commits, uint64_t now_ms,
			      uint64_t max_backlog);

/*
 * Local writers (mode=auto).  The kernel knob is a threshold on all the
 * device's dirty data, so beside local writers it writes back what stock
 * lets die in the cache: a build's temp files (the lab's tempfile, 7.3:
 * 1054 MiB of them to disk against stock's 56 MiB, COMMIT p99 3.7 s).
 * mode=auto therefore uses such a mechanism only on a device where what
 * was dirtied on it (BdiDirtied, or the machine's nr_dirtied without
 * debugfs) stayed within what nfsd's WRITEs can dirty over each
 * NFSWB_LOCAL_WINDOW_MS (io, proc3 and proc4ops in /proc/net/rpc/nfsd,
 * all devices): the bytes they wrote, 1/8 more for metadata
 * (NFSWB_LOCAL_META_SHIFT), NFSWB_LOCAL_PARTIAL_BYTES a WRITE for the
 * first and last page it fills only in part, plus
 * NFSWB_LOCAL_SLACK_BYTES.  Where nfsd's count of WRITEs cannot be had,
 * twice the bytes stand for the last two.  (Twice was the bound for all
 * WRITEs before: beside NFS writing 10 MB/s it let 64 MiB of temp files
 * in 5 s pass as NFS's, and the lab's tempfile with its temp files
 * starting 10 s in wrote 59 MiB of them back.)  A window with more says
 * local writers are there; the verdict stays so until
 * NFSWB_LOCAL_QUIET_MS pass without such a window, so that a nightly
 * build does not flip the mode twice a minute.
 * While the verdict is not "present" the whole-device mechanism may be
 * writing a local writer's data back, so the counts are also looked at
 * every NFSWB_LOCAL_PEEK_MS (each 100 ms interval: both counts are a
 * pread of a small file), and a window whose local bytes are already
 * beyond its allowance closes at once.  (A look once a second let the
 * lab's late temp files have 28 MiB written back in the second before
 * it.)
 */
#define NFSWB_LOCAL_WINDOW_MS	5000
#define NFSWB_LOCAL_PEEK_MS	100
#define NFSWB_LOCAL_SLACK_BYTES	(16ull << 20)
#define NFSWB_LOCAL_META_SHIFT	3
#define NFSWB_LOCAL_PARTIAL_BYTES	8192
#define NFSWB_LOCAL_QUIET_MS	300000

enum nfswb_local_verdict {
	NFSWB_LOCAL_UNKNOWN,	/* no whole window yet */
	NFSWB_LOCAL_ABSENT,
	NFSWB_LOCAL_PRESENT,
};

struct nfswb_local_watch {
	uint64_t base_dirtied;	/* the counts at the window's start */
	uint64_t base_written;
	uint64_t base_writes;
	uint64_t base_ms;
	uint64_t peek_ms;	/* the last look inside the window */
	uint64_t local_bytes;	/* the last closed window's, beyond nfsd's */
	uint64_t window_ms;	/* the last closed window's length */
	uint64_t seen_ms;	/* when a window last found local writers */
	bool have_base;
	bool closed;		/* the last update closed a window */
	bool seen;		/* seen_ms is set */
	enum nfswb_local_verdict verdict;
};

/**
 * nfswb_local_watch_due - would counts fed at @now_ms close a window,
 * start the first, or be a look inside one (verdict not present,
 * NFSWB_LOCAL_PEEK_MS after the last)?  The caller need read them only
 * then.
 */
bool nfswb_local_watch_due(const struct nfswb_local_watch *w,
			   uint64_t now_ms);

/**
 * nfswb_local_watch_update - feed the counts as of @now_ms.
 * @w: the watch, zero at first
 * @dirtied: bytes ever dirtied on the device (or the machine)
 * @written: nfsd's count of the bytes it wrote; pass 0 where it cannot
 *           be read: every dirtied byte then counts as local
 * @writes: nfsd's count of the WRITEs it was sent; 0 where it cannot be
 *          read (a window whose bytes grew and WRITEs did not is taken
 *          for that)
 * @now_ms: the clock
 *
 * A window closes once NFSWB_LOCAL_WINDOW_MS have passed since its start,
 * or earlier, at a look while the verdict is not present, as soon as its
 * local bytes are beyond what it allows; a count that went backwards
 * (nfsd restarted) starts it over.  @w->closed says whether this update
 * closed a window: a look that left it open, or a start, did not.
 * Return: the verdict, updated when a window closed.
 */
enum nfswb_local_verdict nfswb_local_watch_update(struct nfswb_local_watch *w,
						  uint64_t dirtied,
						  uint64_t written,
						  uint64_t writes,
						  uint64_t now_ms);

/*
 * The kernel knob (kernel mode): its threshold is the kernel's bandwidth
 * estimate x dirty_background_time, and that estimate starts at 100 MB/s
 * and only learns while writeback runs.  Writing target / kernel estimate
 * instead makes the kernel's threshold our target.  Bounded to
 * NFSWB_KNOB_MAX_FACTOR x background_time (the kernel caps the threshold
 * at the background threshold anyway); rewritten only on a change of more
 * than 1/8 (NFSWB_CAP_HYSTERESIS_SHIFT).
 */
#define NFSWB_KNOB_MAX_FACTOR	10

/**
 * nfswb_policy_knob_ms - the dirty_background_time to write.
 * @background_time_ms: configured, > 0
 * @target_bytes: our bandwidth x background_time (nfswb_policy_out)
 * @kernel_bw: the kernel's estimate in bytes/s, 0 if unknown
 * Return: ms, in [1, NFSWB_KNOB_MAX_FACTOR x background_time_ms];
 * background_time_ms itself when either estimate is unknown.
 */
uint64_t nfswb_policy_knob_ms(uint64_t background_time_ms,
			      uint64_t target_bytes, uint64_t kernel_bw);

/** nfswb_policy_knob_change - is @want far enough from @cur to write? */
bool nfswb_policy_knob_change(uint64_t cur, uint64_t want);

#endif
