/* SPDX-License-Identifier: MIT */
/*
 * tapd_daemon.h - gridemu-tapd's daemon state and what its files share:
 * tapd.c (command line, startup, workers, event loop, teardown),
 * tapd_config.c (the configuration file), tapd_tun.c (TUN devices) and
 * tapd_ctl.c (the control socket and the pidfile).  Not an API: tapd.h is.
 * Functions return 0 or a negative errno; on failure they fill their
 * struct gb_err (util/gbutil.h) with one line (tapd_fail()), which main()
 * logs and hands to whoever started the daemon (--ready-fd).
 */
#ifndef GRIDBED_TAPD_DAEMON_H
#define GRIDBED_TAPD_DAEMON_H

#include <stddef.h>
#include <stdint.h>

#include "gbutil.h"
#include "tapd_priv.h"

#define PROG "gridemu-tapd"
#define DEFAULT_LIMIT 1000u
#define DEFAULT_SEED 1u
#define RT_PRIO 10
#define DEFAULT_SPIN_PCT 25
#define MAX_THREADS 64
/* A worker's packet pool never exceeds this (see tapd_queue.h). */
#define POOL_MAX ((size_t)1 << 30)
/* Replies are sent in messages of at most this size (SEQPACKET). */
#define REPLY_CHUNK 32768
#define CTL_TIMEOUT_MS 1000

struct tapd {
	/* Options. */
	const char *config_path, *ctl_path, *pid_path, *log_path, *send_req;
	int ready_fd;
	int threads;
	int foreground, no_offload, no_rt;
	int persist; /* --persist: devices outlive us and die with their namespaces */
	int no_pm_qos; /* --no-pm-qos: leave the CPUs' idle states alone */
	int64_t spin_ns;
	unsigned spin_pct;

	/* Configuration. */
	uint64_t seed;
	uint64_t pass_ns;  /* "pass_ns" / `pass`: subtracted from every delay (relaxed atomic) */
	struct tapd_link *links;
	size_t nlinks;

	/* Runtime. */
	struct tapd_worker *workers;
	int nworkers;
	struct tapd_dir **dirv;     /* every direction, grouped by worker */
	int listen_fd, sig_fd, ep_fd;
	int pm_qos_fd;              /* /dev/cpu_dma_latency held at 0, or -1 */
	int ctl_bound, pid_written, quit;
	uint64_t start_ns;
};

/** tapd_fail() - gb_err_set(@e, ...) and -EINVAL, what a failed start returns. */
__attribute__((format(printf, 2, 3)))
int tapd_fail(struct gb_err *e, const char *fmt, ...);

/** tapd_log() - "gridemu-tapd: ..." on stderr (the log file once started). */
__attribute__((format(printf, 1, 2)))
void tapd_log(const char *fmt, ...);

/** tapd_config_load() - read and validate t->config_path into t->links (nothing created). */
int tapd_config_load(struct tapd *t, struct gb_err *e);

/** tapd_links_create() - every link's two TUN devices, each in its side's namespace. */
int tapd_links_create(struct tapd *t, struct gb_err *e);

/** tapd_links_persist() - --persist: make the devices outlive the daemon. */
int tapd_links_persist(struct tapd *t, struct gb_err *e);

/** tapd_tun_offload() - TUNSETOFFLOAD for side @s: TSO only where its egress has no loss. */
void tapd_tun_offload(struct tapd *t, struct tapd_side *s, double loss);

/** tapd_links_close() - close every device fd (non-persistent devices go with them). */
void tapd_links_close(struct tapd *t);

/** tapd_parse_u64() - a decimal integer <= @max (options, control requests); 0 or -EINVAL. */
int tapd_parse_u64(const char *s, uint64_t max, uint64_t *out);

/** tapd_ctl_listen() - bind and listen on the control socket t->ctl_path. */
int tapd_ctl_listen(struct tapd *t, struct gb_err *e);

/** tapd_pidfile_write() - write t->pid_path. */
int tapd_pidfile_write(struct tapd *t, struct gb_err *e);

/** tapd_ctl_serve() - answer one request (ping, set, stats, quit) on accepted @fd. */
void tapd_ctl_serve(struct tapd *t, int fd);

#endif
