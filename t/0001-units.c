// SPDX-License-Identifier: MIT
/*
 * 0001-units: gb_parse_time / gb_parse_rate / gb_parse_loss / gb_fmt_ip.
 */
#include <errno.h>
#include <stdint.h>

#include "gbtopo.h"
#include "tap.h"

static void time_ok(const char *s, uint64_t want)
{
	uint64_t v = 0xdeadbeef;
	int r = gb_parse_time(s, &v);

	is_int(r, 0, "time '%s' parses", s);
	is_int((long long)v, (long long)want, "time '%s' = %llu ns", s, (unsigned long long)want);
}

static void time_bad(const char *s)
{
	uint64_t v = 12345;

	is_int(gb_parse_time(s, &v), -EINVAL, "time '%s' is refused", s ? s : "(null)");
	is_int((long long)v, 12345, "time '%s' leaves the output alone", s ? s : "(null)");
}

static void rate_ok(const char *s, uint64_t want)
{
	uint64_t v = 0xdeadbeef;
	int r = gb_parse_rate(s, &v);

	is_int(r, 0, "rate '%s' parses", s);
	is_int((long long)v, (long long)want, "rate '%s' = %llu bit/s", s,
	       (unsigned long long)want);
}

static void rate_bad(const char *s)
{
	uint64_t v = 12345;

	is_int(gb_parse_rate(s, &v), -EINVAL, "rate '%s' is refused", s ? s : "(null)");
}

static void loss_ok(const char *s, double want)
{
	double v = -1;

	is_int(gb_parse_loss(s, &v), 0, "loss '%s' parses", s);
	is_double(v, want, 1e-12, "loss '%s' = %g", s, want);
}

static void loss_bad(const char *s)
{
	double v = -1;

	is_int(gb_parse_loss(s, &v), -EINVAL, "loss '%s' is refused", s ? s : "(null)");
}

int main(void)
{
	char buf[16];

	/* times: tc's spellings, exact fixed-point scaling */
	time_ok("25ms", 25000000);
	time_ok("0.05ms", 50000);
	time_ok(".5ms", 500000);
	time_ok("100us", 100000);
	time_ok("1s", 1000000000);
	time_ok("500ns", 500);
	time_ok("0ms", 0);
	time_ok("2.5s", 2500000000ull);
	time_ok("1.5ns", 2);           /* rounds to nearest */
	time_ok("10msec", 10000000);
	time_ok("3usec", 3000);
	time_ok("2secs", 2000000000);
	time_ok("7MS", 7000000);       /* units are case-insensitive, as in tc */
	time_ok("0.000001ms", 1);
	time_ok("18446744073ms", 18446744073000000ull);
	time_bad("25");                /* a bare number is an error */
	time_bad("0.05");
	time_bad("25 ms");             /* no whitespace */
	time_bad(" 25ms");
	time_bad("25ms ");
	time_bad("-1ms");
	time_bad("+1ms");
	time_bad("1e3ms");
	time_bad("0x10ms");
	time_bad("ms");
	time_bad(".ms");
	time_bad("");
	time_bad("25m");
	time_bad("25mbit");
	time_bad("1.2.3ms");
	time_bad("0.1ns");             /* rounds to zero: refused, not 0 */
	time_bad("18446744074s");      /* overflows 64 bits of ns */
	time_bad("99999999999999999999999ms");
	time_bad("nanms");
	time_bad("infs");
	time_bad(NULL);

	/* rates: SI and binary prefixes, bit and byte units */
	rate_ok("45mbit", 45000000);
	rate_ok("1gbit", 1000000000);
	rate_ok("100kbit", 100000);
	rate_ok("800bit", 800);
	rate_ok("10mbps", 80000000);   /* megabytes per second, as in tc */
	rate_ok("1.5gbit", 1500000000);
	rate_ok("0.5mbit", 500000);
	rate_ok("1kibit", 1024);
	rate_ok("1mibit", 1048576);
	rate_ok("2gibit", 2147483648ull);
	rate_ok("1bps", 8);
	rate_ok("1kbps", 8000);
	rate_ok("1kibps", 8192);
	rate_ok("10Gbit", 10000000000ull);
	rate_ok("1tbit", 1000000000000ull);
	rate_ok("0bit", 0);
	rate_bad("45");
	rate_bad("10 mbps");
	rate_bad("45mb");
	rate_bad("45m");
	rate_bad("mbit");
	rate_bad("-45mbit");
	rate_bad("45mbit/s");
	rate_bad("0.1bit");
	rate_bad("99999999tbit");
	rate_bad("");
	rate_bad(NULL);

	/* loss: a percentage, 0 .. 100 */
	loss_ok("1%", 0.01);
	loss_ok("0.5%", 0.005);
	loss_ok("0%", 0.0);
	loss_ok("100%", 1.0);
	loss_ok("12.345%", 0.12345);
	loss_ok("0.000001%", 0.00000001);
	loss_bad("1");
	loss_bad("0.01");
	loss_bad("150%");
	loss_bad("100.1%");
	loss_bad("-1%");
	loss_bad("1 %");
	loss_bad("%");
	loss_bad("1%%");
	loss_bad("");
	loss_bad(NULL);

	is_str(gb_fmt_ip(0x0afa0001u, buf), "10.250.0.1", "gb_fmt_ip 10.250.0.1");
	is_str(gb_fmt_ip(0xffffffffu, buf), "255.255.255.255", "gb_fmt_ip broadcast");
	is_str(gb_fmt_ip(0, buf), "0.0.0.0", "gb_fmt_ip zero");
	ok(gb_fmt_ip(0x7f000001u, buf) == buf, "gb_fmt_ip returns its buffer");

	return done_testing();
}
