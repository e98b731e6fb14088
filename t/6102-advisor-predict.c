/* SPDX-License-Identifier: MIT */
/*
 * 6102-advisor-predict - the broadcast advisor's prediction (gbadvisor.h):
 *   - on seed 000 s3's synthetic application (sizes linear from 1 MiB down,
 *     gaps 90 s decreasing exponentially) the next size is exact to the
 *     byte and the next gap within 2 % with the default window, and a fit
 *     over the whole history is clearly worse (why there is a window);
 *   - edge cases: no history, one call, two calls, predictions that would
 *     not be positive, bad arguments;
 *   - the application log's lines and its incremental reader (partial
 *     lines, bad lines, a truncated or replaced file).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbadvisor.h"
#include "tap.h"

#define N 60

static void synthetic(void)
{
	struct gb_applog_entry h[N];
	struct gb_adv_pred p;
	double worst_size = 0, worst_gap = 0, mean_w = 0, mean_all = 0;
	int bad = 0;

	gb_adv_synthetic(N, 1000.0, 1.0, 64, h);
	is_double(h[0].size, 1048576, 0, "synthetic: the first call is 1 MiB");
	is_double(h[1].t - h[0].t, 90, 1e-9, "synthetic: the first gap is 90 s");
	ok(h[N - 1].size < h[N - 2].size && h[N - 1].size > 0, "synthetic: sizes decrease, stay > 0");
	ok(fabs((h[N - 1].t - h[N - 2].t) / (h[N - 2].t - h[N - 3].t) - 0.93) < 1e-9,
	   "synthetic: gaps decrease exponentially (x 0.93)");

	for (int k = 3; k < N; k++) {
		double gap = h[k].t - h[k - 1].t, es, eg;

		if (gb_adv_predict(h, k, GB_ADV_WINDOW, &p) < 0) {
			bad++;
			continue;
		}
		es = fabs(p.size - h[k].size);
		eg = fabs(p.gap - gap) / gap;
		worst_size = fmax(worst_size, es);
		worst_gap = fmax(worst_gap, eg);
		mean_w += eg / (N - 3);
		if (fabs(p.next_t - (h[k - 1].t + p.gap)) > 1e-9)
			bad++;
		if (gb_adv_predict(h, k, 0, &p) == 0)
			mean_all += fabs(p.gap - gap) / gap / (N - 3);
	}
	is_int(bad, 0, "every prediction succeeds and next_t = last call + gap");
	ok(worst_size <= 1.0, "next size exact to rounding from 3 calls on (worst %.1f B)",
	   worst_size);
	ok(worst_gap < 0.02, "next gap within 2 %% with window %d (worst %.2f %%)", GB_ADV_WINDOW,
	   worst_gap * 100);
	ok(mean_all > 5 * mean_w, "the whole history lags an exponential: mean gap error %.1f %% "
	   "against %.2f %% with the window", mean_all * 100, mean_w * 100);
	gb_adv_predict(h, 20, 3, &p);
	is_int(p.n, 3, "the window limits the history used");
}

static void edges(void)
{
	struct gb_applog_entry h[3] = {
		{ 100.0, 1000, 0, 4 }, { 110.0, 800, 0, 4 }, { 111.0, 10, 0, 4 },
	};
	struct gb_adv_pred p;

	is_int(gb_adv_predict(NULL, 0, 4, &p), 0, "no history: no error");
	ok(p.n == 0 && isnan(p.size) && isnan(p.gap) && isnan(p.next_t),
	   "no history: nothing predicted");
	is_int(gb_adv_predict(h, 1, 4, &p), 0, "one call");
	ok(p.size == 1000 && isnan(p.gap) && isnan(p.next_t) && p.size_slope == 0,
	   "one call: the same size again, no gap yet");
	is_int(gb_adv_predict(h, 2, 4, &p), 0, "two calls");
	ok(p.size == 600 && p.gap == 10 && p.next_t == 120,
	   "two calls: the line through both sizes (600), the one gap (10 s) (got %g, %g)",
	   p.size, p.gap);
	gb_adv_predict(h, 3, 0, &p);
	ok(p.size == 10, "a size predicted <= 0 becomes the last size (got %g)", p.size);
	ok(p.gap == 1, "a gap predicted <= 0 becomes the last gap (got %g)", p.gap);
	is_int(gb_adv_predict(h, -1, 4, &p), -EINVAL, "negative history length refused");
	is_int(gb_adv_predict(h, 2, -1, &p), -EINVAL, "negative window refused");
}

static void lines(void)
{
	struct gb_applog_entry e;

	is_int(gb_applog_parse_line("1234.567890123 1048576 0 64 mpich-g2\n", &e), 0,
	       "a log line parses");
	ok(e.t == 1234.567890123 && e.size == 1048576 && e.root == 0 && e.nranks == 64,
	   "its fields");
	is_int(gb_applog_parse_line("1.5 10 3 4 adaptive extra fields 7", &e), 0,
	       "more fields after the fifth are accepted");
	is_int(gb_applog_parse_line("1.5 10 3 4", &e), -EINVAL, "the algorithm is required");
	is_int(gb_applog_parse_line("1.5 -10 3 4 x", &e), -EINVAL, "a negative size is refused");
	is_int(gb_applog_parse_line("1.5 10 4 4 x", &e), -EINVAL, "root >= size is refused");
	is_int(gb_applog_parse_line("garbage", &e), -EINVAL, "garbage is refused");
	is_int(gb_applog_parse_line("", &e), -EINVAL, "an empty line is refused");
}

static void put(const char *path, const char *s, int append)
{
	int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		bail("cannot write %s", path);
	close(fd);
}

static void reader(void)
{
	char dir[] = "/tmp/gb6102.XXXXXX", path[256], other[256];
	struct gb_applog l;

	if (!mkdtemp(dir))
		bail("mkdtemp");
	snprintf(path, sizeof(path), "%s/app.log", dir);
	snprintf(other, sizeof(other), "%s/app.log.new", dir);
	if (gb_applog_init(&l, path) < 0)
		bail("gb_applog_init");
	is_int(gb_applog_poll(&l), 0, "a missing log is an empty log");
	put(path, "1.0 100 0 4 a\n2.0 200 0 4 a\n3.0 3", 0);
	is_int(gb_applog_poll(&l), 2, "two complete lines; the partial third waits");
	put(path, "00 0 4 a\nnot a line\n", 1);
	is_int(gb_applog_poll(&l), 1, "the third line once complete");
	ok(l.n == 3 && l.e[2].size == 300 && l.bad == 1, "history 3, third size 300, 1 bad line");
	is_int(gb_applog_poll(&l), 0, "nothing new, nothing added");
	put(path, "9.0 900 0 4 a\n", 0);
	is_int(gb_applog_poll(&l), 1, "a truncated log starts a new history");
	ok(l.n == 1 && l.e[0].size == 900 && l.resets == 1, "history reset (n %d, resets %d)", l.n,
	   l.resets);
	put(other, "5.0 500 0 4 a\n6.0 600 0 4 a\n7.0 700 0 4 a\n", 0);
	if (rename(other, path) < 0)
		bail("rename");
	is_int(gb_applog_poll(&l), 3, "a replaced log (new inode) is read from its start");
	ok(l.n == 3 && l.resets == 2, "history of the new file only");
	gb_applog_release(&l);
	gb_applog_release(&l);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	synthetic();
	edges();
	lines();
	reader();
	return done_testing();
}
