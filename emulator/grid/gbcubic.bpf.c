// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * gbcubic.bpf.c - CUBIC on the topology's clock: a TCP congestion control
 * for the hosts of a dilated grid, loaded as a BPF struct_ops program
 * (gbcubic.c registers it as "gbcubic" and fills gb_cubic_dilate; the
 * kernel runs it for every connection whose route names it).
 *
 * Why: a grid at k puts every delay x k and every rate / k on the wire, so
 * that the hosts' CPUs look k times faster (dilate.h).  TCP's own clocks
 * are not dilated.  Reno grows its window by ACKs and is invariant; the
 * kernel's cubic computes its window from the machine's time since the
 * last loss, so at k = 4 it climbed back after a loss in a quarter of the
 * topology's round trips, and a lossy 1 MiB transfer over a 60 ms round
 * trip was 26 % faster at k = 4 than at k = 1 (docs/measurements.md,
 * "Session 50: CUBIC is not invariant under time dilation; Reno is").
 * This is CUBIC as Linux runs it by default, with every time it reads put
 * on the topology's clock: t_topo = t_wall x 1000 / k_milli, where
 * k_milli = k x 1000 is looked up once per connection, when it starts, in
 * gb_cubic_dilate under its network namespace's inode number (absent:
 * 1000, an undilated grid; clamped to [1000, 100000]).  The times so
 * scaled: the clock (tp->tcp_mstamp), every RTT sample (ack_sample.rtt_us),
 * the idle time of a restart, and, as constants of topology time, every
 * interval of the algorithm (HyStart's 2 ms ACK spacing and 4-16 ms delay
 * threshold, the 1 s during which RTT samples after a reduction are
 * ignored, the 1/32 s between two evaluations of the cubic function, the
 * 1 ms cap on the expected ACK aggregation delay).  Sizes (segments) are
 * not dilated.  With k = 1 it is meant to behave as the kernel's cubic.
 *
 * Written from RFC 9438 and from HyStart's description (Ha and Rhee,
 * "Taming the elephants: new TCP slow start", Computer Networks 2011) as
 * Linux uses it, not from the kernel's tcp_cubic.c.  What implements what:
 *
 *  - RFC 9438 4.2, the window increase function W_cubic(t) =
 *    C (t - K)^3 + W_max and K = cbrt((W_max - cwnd_epoch) / C), with
 *    C = 0.4 in fixed point (t in 1/1024 s; gbc_update(), gbc_cbrt());
 *  - 4.3, the Reno-friendly region: W_est grows by alpha_cubic =
 *    3 (1 - beta) / (1 + beta) segments a round trip, counted in ACKs, and
 *    the window grows at least as fast as W_est (gbc_update());
 *  - 4.4 and 4.5, the concave and convex regions: the target W_cubic(t +
 *    RTT) and an increase of (target - cwnd) / cwnd a segment acknowledged
 *    (gbc_update(), then tcp_cong_avoid_ai());
 *  - 4.6, multiplicative decrease by beta_cubic = 717/1024 (gbc_ssthresh());
 *  - 4.7, fast convergence: W_max = cwnd (1 + beta) / 2 after a loss below
 *    the previous W_max (gbc_ssthresh());
 *  - 4.8, timeout: the state is forgotten, and the first congestion
 *    avoidance after it starts with K = 0 and W_max = cwnd
 *    (gbc_set_state());
 *  - 4.10, slow start: HyStart, as below (gbc_hystart());
 *  - 5.8, application-limited flows: no growth when not limited by the
 *    window, and the epoch moved forward by an idle period
 *    (gbc_cong_avoid(), gbc_cwnd_event()).
 *
 * Where RFC 9438 and Linux differ, this follows Linux (cubic is the
 * kernel's default and what it replaces):
 *
 *  1. Slow start: the original HyStart (ACK train and delay increase,
 *     from a window of 16 segments, 8 RTT samples a round, delay
 *     threshold min RTT / 8 clamped to [4, 16] ms, ACK spacing 2 ms), not
 *     the HyStart++ (RFC 9406) that RFC 9438 4.10 recommends; the ACK
 *     train's threshold is half the minimum RTT (the whole of it when the
 *     socket is paced) plus the ACK aggregation expected at
 *     the pacing rate (at most 1 ms), as Linux's.
 *  2. The "RTT" of W_cubic(t + RTT) is the minimum RTT seen (Linux's
 *     delay_min), not the smoothed RTT of RFC 9438 4.4.
 *  3. Below the target (target <= cwnd) the window still grows, by one
 *     segment per 100 windows acknowledged, where the RFC holds it.  Above
 *     it, growth is capped at half a segment per segment acknowledged,
 *     which is the RFC's 1.5 x cwnd cap on the target.
 *  4. alpha_cubic stays 3 (1 - beta) / (1 + beta) (as 8 / 15 in fixed
 *     point) for the whole epoch; RFC 9438 4.3 sets it to 1 once W_est
 *     reaches the window of the last reduction.
 *  5. The first epoch of a connection (no loss yet, W_max unknown) grows
 *     the window by at most 5 % a round trip, as Linux's does; the RFC has
 *     no such cap.
 *  6. ssthresh is beta x cwnd (at least 2), not beta x flight size.
 *  7. A spurious reduction is undone on the window only (the larger of
 *     cwnd and the window before it, tcp_reno_undo_cwnd()), not on W_max,
 *     K and the epoch as RFC 9438 4.9 describes.
 *  8. After an idle period the epoch is moved forward by the time since
 *     the last transmission (tp->lsndtime), not restarted.
 *  9. Linux's clock resolution: the epoch, the time t of W_cubic(t + RTT)
 *     and the minimum RTT added to it are counted in jiffies (1/HZ s; the
 *     minimum RTT rounded up, so at least one), here jiffies of the
 *     topology's time; the cubic function is evaluated again only when
 *     the window changed or more than HZ/32 jiffies have passed, and at
 *     most once a jiffy (between, only the Reno-friendly part runs); RTT
 *     samples in the first second of an epoch are ignored.
 *
 * And where this differs from Linux's cubic:
 *
 *  a. Every time is the topology's (above); at k = 1 the same as Linux's.
 *  b. The jiffies are counted from the connection's microsecond clock
 *     (tcp_mstamp / k), so their phase is not the kernel's tick's.
 *  c. The cube root is exact (bit by bit, 64 bits), where Linux's is a
 *     table and one Newton step, good to about 0.2 %.
 *  d. No MIB counters (TcpExtTCPHystartTrainDetect and the like are the
 *     kernel module's; BPF cannot add to them) and no get_info.
 *  e. The tunables are constants (Linux's module parameters, at their
 *     defaults).
 *  f. HZ is the running kernel's CONFIG_HZ (from its config, as libbpf
 *     finds it); if the config cannot be found, 250 (Debian's) is assumed.
 *
 * Kernels: built with CO-RE against this machine's BTF; it uses only the
 * kfuncs that 6.1 (Debian 12) also gives bpf_tcp_ca, and reads the
 * fields whose layout changed (is_cwnd_limited, sk_pacing_status) with
 * relocatable bitfield reads.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "Dual MIT/GPL";

/* The kernel's TCP helpers bpf_tcp_ca lets a congestion control call. */
extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

/* The kernel's tick rate, for tp->lsndtime (0 if libbpf finds no config). */
extern unsigned long CONFIG_HZ __kconfig __weak;

/*
 * gb_cubic_dilate - network namespace inode -> k x 1000, filled by
 * gbcubic.c for every namespace of a dilated grid.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	/* entries allocated as written: an unregistered gbcubic that a
	 * lingering socket still holds keeps only what it used */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} gb_cubic_dilate SEC(".maps");

#define USEC_PER_SEC	1000000ULL
#define K_MILLI_MIN	1000U		/* k = 1 */
#define K_MILLI_MAX	100000U		/* k = 100 */
#define HZ_FALLBACK	250U

/* RFC 9438's constants, in Linux's fixed point. */
#define BETA_SCALE	1024U
#define BETA		717U		/* beta_cubic = 0.7 */
#define TIME_SHIFT	10		/* t and K in 1/1024 s */
#define C_SCALED	410ULL		/* C = 0.4, x 1024 */
/* C (t - K)^3 with t - K in 1/1024 s: (410 / 2^10) (offs / 2^10)^3 */
#define CUBE_SHIFT	(10 + 3 * TIME_SHIFT)
/* K = cbrt(CUBE_FACTOR x (W_max - cwnd)) in 1/1024 s: 2^40 / 410 */
#define CUBE_FACTOR	((1ULL << CUBE_SHIFT) / C_SCALED)
/*
 * Reno-friendly region: W_est grows by one segment every
 * cwnd x RENO_ACKS / 8 ACKed segments, RENO_ACKS = 8 (1 + beta) / 3 /
 * (1 - beta) = 15 in integers: alpha_cubic = 8 / 15 = 0.53 (RFC: 0.529).
 */
#define RENO_ACKS	(8U * (BETA_SCALE + BETA) / 3U / (BETA_SCALE - BETA))
#define DIFF_MAX	((1ULL << 31) - 1)	/* W_max - cwnd: CUBE_FACTOR x it < 2^63 */
#define OFFS_MAX	((1ULL << 18) - 1)	/* 256 s: keeps 410 offs^3 in 64 bits */

/* HyStart (Linux's defaults), times in topology microseconds. */
#define HYSTART_LOW_WINDOW	16U
#define HYSTART_MIN_SAMPLES	8U
#define HYSTART_DELAY_MIN	4000U
#define HYSTART_DELAY_MAX	16000U
#define HYSTART_ACK_DELTA	2000U
#define HYSTART_ACK_DELAY_MAX	1000ULL	/* cap on the expected ACK aggregation */
#define GSO_BYTES		65536ULL	/* a GSO packet, if the socket has no size */


/*
 * struct gbcubic - the per-connection state, in icsk_ca_priv (104 bytes).
 * Everything before @k_milli is forgotten on a timeout (gbc_reset()).
 * Times are topology microseconds (gbc_now()) or, where Linux's cubic
 * counts jiffies, topology jiffies (gbc_jiffies()); 0 means none.
 */
struct gbcubic {
	__u32 cnt;		/* grow cwnd by 1 every cnt ACKed segments */
	__u32 last_max_cwnd;	/* W_max */
	__u32 last_cwnd;	/* cwnd at the last evaluation */
	__u32 origin;		/* W_max of this epoch (the curve's plateau) */
	__u32 K;		/* time to the plateau, 1/1024 s */
	__u32 delay_min;	/* minimum RTT, us */
	__u32 ack_cnt;		/* segments ACKed towards W_est */
	__u32 tcp_cwnd;		/* W_est, Reno's window */
	__u64 epoch_start;	/* start of the congestion avoidance epoch, jiffies */
	__u64 last_time;	/* time of the last evaluation, jiffies */
	/* kept across a timeout */
	__u32 k_milli;		/* k x 1000 */
	/* HyStart */
	__u8 found;		/* slow start's end found */
	__u8 pad[3];
	__u32 sample_cnt;	/* RTT samples this round */
	__u32 end_seq;		/* the round ends when this is ACKed */
	__u32 curr_rtt;		/* minimum RTT of this round, us */
	__u64 round_start;	/* start of the round */
	__u64 last_ack;		/* last ACK of the train */
};

_Static_assert(sizeof(struct gbcubic) <= 104, "gbcubic state exceeds icsk_ca_priv");

/** gbc_ca() - the connection's state in its icsk_ca_priv. */
static __always_inline struct gbcubic *gbc_ca(struct sock *sk)
{
	return (struct gbcubic *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/** gbc_tp() - the tcp_sock of @sk. */
static __always_inline struct tcp_sock *gbc_tp(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

/** gbc_topo() - @wall_us of the machine in topology microseconds. */
static __always_inline __u64 gbc_topo(const struct gbcubic *ca, __u64 wall_us)
{
	__u32 k = ca->k_milli ? ca->k_milli : K_MILLI_MIN;

	return wall_us * 1000 / k;
}

/** gbc_now() - the connection's clock (tcp_mstamp) in topology us. */
static __always_inline __u64 gbc_now(struct sock *sk, const struct gbcubic *ca)
{
	return gbc_topo(ca, gbc_tp(sk)->tcp_mstamp);
}

/** gbc_hz() - the kernel's tick rate, CONFIG_HZ (HZ_FALLBACK if unknown). */
static __always_inline __u64 gbc_hz(void)
{
	return CONFIG_HZ ? CONFIG_HZ : HZ_FALLBACK;
}

/**
 * gbc_jiffies() - the connection's clock in jiffies of the topology's
 * time: the ticks the emulated host's kernel would count (9).
 */
static __always_inline __u64 gbc_jiffies(struct sock *sk, const struct gbcubic *ca)
{
	return gbc_now(sk, ca) * gbc_hz() / USEC_PER_SEC;
}

/** gbc_in_slow_start() - tcp_in_slow_start(). */
static __always_inline bool gbc_in_slow_start(const struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

/**
 * gbc_cwnd_limited() - tcp_is_cwnd_limited(): the sender used its window
 * (or, in slow start, the window is below twice the most in flight).
 */
static __always_inline bool gbc_cwnd_limited(const struct tcp_sock *tp)
{
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return true;
	if (gbc_in_slow_start(tp))
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

/** gbc_after() - sequence number @a is after @b (after()). */
static __always_inline bool gbc_after(__u32 a, __u32 b)
{
	return (__s32)(b - a) < 0;
}

/**
 * gbc_cbrt() - floor of the cube root of @x (x < 2^63), bit by bit: three
 * bits of @x for each bit of the root, from the top, 21 steps.  Without
 * branches (the comparison is the sign of a difference), so that the
 * verifier walks it once and not 2^21 times.
 */
static __always_inline __u32 gbc_cbrt(__u64 x)
{
	__u64 y = 0, b, ge;
	int s;

	for (s = 60; s >= 0; s -= 3) {
		y <<= 1;
		b = 3 * y * (y + 1) + 1;
		ge = (((x >> s) - b) >> 63) ^ 1;	/* (x >> s) >= b */
		x -= (b << s) & (0 - ge);
		y += ge;
	}
	return (__u32)y;
}

/** gbc_reset() - forget the cubic state and HyStart's verdict (not k_milli). */
static __always_inline void gbc_reset(struct gbcubic *ca)
{
	ca->cnt = 0;
	ca->last_max_cwnd = 0;
	ca->last_cwnd = 0;
	ca->origin = 0;
	ca->K = 0;
	ca->delay_min = 0;
	ca->ack_cnt = 0;
	ca->tcp_cwnd = 0;
	ca->epoch_start = 0;
	ca->last_time = 0;
	ca->found = 0;
}

/** gbc_hystart_reset() - start a HyStart round at the next segment sent. */
static __always_inline void gbc_hystart_reset(struct sock *sk, struct gbcubic *ca)
{
	__u64 now = gbc_now(sk, ca);

	ca->round_start = now;
	ca->last_ack = now;
	ca->end_seq = gbc_tp(sk)->snd_nxt;
	ca->curr_rtt = ~0U;
	ca->sample_cnt = 0;
}

/**
 * gbc_update() - the cubic function (RFC 9438 4.2-4.5): set ca->cnt, the
 * number of segments to ACK for one more segment of window, for @cwnd
 * after @acked more segments ACKed.
 */
static __always_inline void gbc_update(struct sock *sk, struct gbcubic *ca,
				       __u32 cwnd, __u32 acked)
{
	__u64 now = gbc_jiffies(sk, ca), hz = gbc_hz(), t, offs, delta;
	__u32 target, reno_acks;

	ca->ack_cnt += acked;

	/* 9: for one window, at most every HZ/32 jiffies ... */
	if (ca->last_cwnd == cwnd && (__s64)(now - ca->last_time) <= (__s64)(hz / 32))
		return;
	/* ... and at most once a jiffy */
	if (ca->epoch_start && now == ca->last_time)
		goto reno_friendly;

	ca->last_cwnd = cwnd;
	ca->last_time = now;

	if (!ca->epoch_start) {
		/* a new epoch (4.2): cwnd_epoch = cwnd */
		ca->epoch_start = now;
		ca->ack_cnt = acked;
		ca->tcp_cwnd = cwnd;
		if (ca->last_max_cwnd <= cwnd) {
			ca->K = 0;
			ca->origin = cwnd;
		} else {
			__u64 d = ca->last_max_cwnd - cwnd;

			if (d > DIFF_MAX)
				d = DIFF_MAX;
			ca->K = gbc_cbrt(CUBE_FACTOR * d);
			ca->origin = ca->last_max_cwnd;
		}
	}

	/* t + RTT (4.4), in jiffies (the RTT rounded up, 9), then 1/1024 s */
	t = now - ca->epoch_start + (ca->delay_min * hz + USEC_PER_SEC - 1) / USEC_PER_SEC;
	if ((__s64)t < 0)
		t = 0;
	t = (t << TIME_SHIFT) / hz;
	offs = t < ca->K ? ca->K - t : t - ca->K;
	if (offs > OFFS_MAX)
		offs = OFFS_MAX;
	delta = (C_SCALED * offs * offs * offs) >> CUBE_SHIFT;
	if (t < ca->K)		/* concave region (4.4) */
		target = delta < ca->origin ? ca->origin - (__u32)delta : 1;
	else			/* convex region (4.5) */
		target = ca->origin + (__u32)delta;

	if (target > cwnd)
		ca->cnt = cwnd / (target - cwnd);
	else
		ca->cnt = 100 * cwnd;	/* 3: below the target, barely */

	/* 5: the first epoch grows by 5 % a round trip at most */
	if (ca->last_max_cwnd == 0 && ca->cnt > 20)
		ca->cnt = 20;

reno_friendly:
	/* Reno-friendly region (4.3): W_est += 1 every cwnd x 15/8 ACKed */
	reno_acks = (cwnd * RENO_ACKS) >> 3;
	if (reno_acks && ca->ack_cnt > reno_acks) {
		__u32 n = (ca->ack_cnt - 1) / reno_acks;

		ca->ack_cnt -= n * reno_acks;
		ca->tcp_cwnd += n;
	}
	if (ca->tcp_cwnd > cwnd) {
		__u32 max_cnt = cwnd / (ca->tcp_cwnd - cwnd);

		if (ca->cnt > max_cnt)
			ca->cnt = max_cnt;
	}

	/* 3: at most 1.5 x cwnd a round trip */
	if (ca->cnt < 2)
		ca->cnt = 2;
}

/**
 * gbc_ack_delay() - the ACK aggregation delay expected at the socket's
 * pacing rate (four of its largest GSO packets), at most 1 ms, in
 * topology us.
 */
static __always_inline __u64 gbc_ack_delay(struct sock *sk, struct gbcubic *ca)
{
	__u64 rate = sk->sk_pacing_rate, gso = sk->sk_gso_max_size, d;

	if (!rate)
		return 0;
	if (!gso)
		gso = GSO_BYTES;
	d = gbc_topo(ca, gso * 4 * USEC_PER_SEC / rate);
	return d < HYSTART_ACK_DELAY_MAX ? d : HYSTART_ACK_DELAY_MAX;
}

/**
 * gbc_hystart() - HyStart (RFC 9438 4.10 as Linux does it) on an RTT
 * sample of @delay topology us: leave slow start (ssthresh = cwnd) when a
 * train of closely spaced ACKs has lasted longer than half the minimum RTT,
 * or when the round's minimum RTT has grown by min RTT / 8 (4-16 ms).
 */
static __always_inline void gbc_hystart(struct sock *sk, struct gbcubic *ca,
					__u32 delay)
{
	struct tcp_sock *tp = gbc_tp(sk);
	__u64 now, threshold;
	__u32 thresh;

	if (gbc_after(tp->snd_una, ca->end_seq))
		gbc_hystart_reset(sk, ca);

	/* ACK train */
	now = gbc_now(sk, ca);
	if ((__s64)(now - ca->last_ack) <= HYSTART_ACK_DELTA) {
		ca->last_ack = now;
		threshold = ca->delay_min + gbc_ack_delay(sk, ca);
		/* unpaced, the train's ACKs come back within half an RTT */
		if (BPF_CORE_READ_BITFIELD(sk, sk_pacing_status) == SK_PACING_NONE)
			threshold >>= 1;
		if ((__s64)(now - ca->round_start) > (__s64)threshold) {
			ca->found = 1;
			tp->snd_ssthresh = tp->snd_cwnd;
			return;
		}
	}

	/* delay increase */
	if (ca->curr_rtt > delay)
		ca->curr_rtt = delay;
	if (ca->sample_cnt < HYSTART_MIN_SAMPLES) {
		ca->sample_cnt++;
		return;
	}
	thresh = ca->delay_min >> 3;
	if (thresh < HYSTART_DELAY_MIN)
		thresh = HYSTART_DELAY_MIN;
	if (thresh > HYSTART_DELAY_MAX)
		thresh = HYSTART_DELAY_MAX;
	if (ca->curr_rtt > ca->delay_min + thresh) {
		ca->found = 1;
		tp->snd_ssthresh = tp->snd_cwnd;
	}
}

/**
 * gbc_init() - a connection starts: its k from gb_cubic_dilate, a fresh
 * state and HyStart's first round.
 */
SEC("struct_ops/gbc_init")
void BPF_PROG(gbc_init, struct sock *sk)
{
	struct gbcubic *ca = gbc_ca(sk);
	__u32 inum = sk->__sk_common.skc_net.net->ns.inum;
	__u32 *v = bpf_map_lookup_elem(&gb_cubic_dilate, &inum);
	__u32 k = v ? *v : K_MILLI_MIN;

	if (k < K_MILLI_MIN)
		k = K_MILLI_MIN;
	if (k > K_MILLI_MAX)
		k = K_MILLI_MAX;
	ca->k_milli = k;
	gbc_reset(ca);
	gbc_hystart_reset(sk, ca);
}

/**
 * gbc_cong_avoid() - an ACK for @acked segments: slow start, then the
 * cubic function's increase (RFC 9438 4.2-4.5).
 */
SEC("struct_ops/gbc_cong_avoid")
void BPF_PROG(gbc_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = gbc_tp(sk);
	struct gbcubic *ca = gbc_ca(sk);

	if (!gbc_cwnd_limited(tp))
		return;
	if (gbc_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	gbc_update(sk, ca, tp->snd_cwnd, acked);
	tcp_cong_avoid_ai(tp, ca->cnt, acked);
}

/**
 * gbc_ssthresh() - a congestion event: end the epoch, remember W_max
 * (with fast convergence, RFC 9438 4.7) and reduce by beta (4.6).
 */
SEC("struct_ops/gbc_ssthresh")
__u32 BPF_PROG(gbc_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = gbc_tp(sk);
	struct gbcubic *ca = gbc_ca(sk);
	__u32 cwnd = tp->snd_cwnd, ssthresh;

	ca->epoch_start = 0;
	if (cwnd < ca->last_max_cwnd)
		ca->last_max_cwnd = cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE);
	else
		ca->last_max_cwnd = cwnd;
	ssthresh = cwnd * BETA / BETA_SCALE;
	return ssthresh > 2 ? ssthresh : 2;
}

/**
 * gbc_set_state() - on a retransmission timeout forget everything but k
 * (RFC 9438 4.8) and start HyStart over.
 */
SEC("struct_ops/gbc_set_state")
void BPF_PROG(gbc_set_state, struct sock *sk, __u8 new_state)
{
	struct gbcubic *ca = gbc_ca(sk);

	if (new_state == TCP_CA_Loss) {
		gbc_reset(ca);
		gbc_hystart_reset(sk, ca);
	}
}

/**
 * gbc_cwnd_event() - on a transmission after idle, move the epoch forward
 * by the idle time (since the last send, tp->lsndtime), so that the cubic
 * function does not count it (RFC 9438 5.8), never past now.
 */
SEC("struct_ops/gbc_cwnd_event")
void BPF_PROG(gbc_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = gbc_tp(sk);
	struct gbcubic *ca = gbc_ca(sk);
	__u64 now;
	__s32 idle;

	if (event != CA_EVENT_TX_START || !ca->epoch_start)
		return;
	idle = (__s32)((__u32)bpf_jiffies64() - tp->lsndtime);
	if (idle <= 0)
		return;
	now = gbc_jiffies(sk, ca);
	ca->epoch_start += gbc_topo(ca, (__u64)idle);	/* jiffies too */
	if (ca->epoch_start > now)
		ca->epoch_start = now;
}

/**
 * gbc_pkts_acked() - an RTT sample (@sample->rtt_us, wall us, < 0 for
 * none): the minimum RTT and HyStart, in topology us.
 */
SEC("struct_ops/gbc_pkts_acked")
void BPF_PROG(gbc_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = gbc_tp(sk);
	struct gbcubic *ca = gbc_ca(sk);
	__s32 rtt = sample->rtt_us;
	__u32 delay;

	if (rtt < 0)
		return;
	/* samples just after a reduction carry its queue: ignored for 1 s */
	if (ca->epoch_start &&
	    (__s64)(gbc_jiffies(sk, ca) - ca->epoch_start) < (__s64)gbc_hz())
		return;
	delay = (__u32)gbc_topo(ca, (__u64)rtt);
	if (!delay)
		delay = 1;
	if (!ca->delay_min || ca->delay_min > delay)
		ca->delay_min = delay;

	if (!ca->found && gbc_in_slow_start(tp) &&
	    tp->snd_cwnd >= HYSTART_LOW_WINDOW)
		gbc_hystart(sk, ca, delay);
}

/** gbc_undo_cwnd() - a spurious reduction: Reno's undo (the window only). */
SEC("struct_ops/gbc_undo_cwnd")
__u32 BPF_PROG(gbc_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops gb_cubic = {
	.init		= (void *)gbc_init,
	.ssthresh	= (void *)gbc_ssthresh,
	.cong_avoid	= (void *)gbc_cong_avoid,
	.set_state	= (void *)gbc_set_state,
	.cwnd_event	= (void *)gbc_cwnd_event,
	.pkts_acked	= (void *)gbc_pkts_acked,
	.undo_cwnd	= (void *)gbc_undo_cwnd,
	.name		= "gbcubic",
};
