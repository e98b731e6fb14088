/* SPDX-License-Identifier: MIT */
/*
 * calib_cache.c - recent calibrations of this machine, kept and reused by
 * `up` (calib_cache.h says what must match, and where they live).
 */
#include "calib_cache.h"
#include "dilate.h"
#include "shaping.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "gbutil.h"

#define CACHE_FORMAT "gridbed-calibration-cache"
#define CACHE_VERSION 1

/* The key's hop set: every directed link of @src -> @dst, on the wire. */
static json_t *hops_json(const struct gb_grid *g, int src, int dst)
{
	const struct gb_topo *t = g->topo;
	int *dl = malloc(sizeof(int) * (size_t)(t->nnodes + 1));
	int n = dl ? gb_topo_path(t, src, dst, dl) : -ENOMEM;
	json_t *a = json_array();

	for (int i = 0; a && i < n; i++) {
		const struct gb_linkdir *p = gb_topo_dir((struct gb_topo *)t, dl[i]);
		char s[160];

		snprintf(s, sizeof(s), "%d %" PRIu64 " %" PRIu64 " %.9g %" PRIu64, dl[i],
			 gb_wire_ns(g, p->delay_ns), gb_wire_ns(g, p->jitter_ns), p->loss,
			 gb_wire_rate(g, p->rate_bps));
		json_array_append_new(a, json_string(s));
	}
	free(dl);
	if (n < 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* What names the entry: the backend, the dilation, the pair and its hops. */
static json_t *key_json(const struct gb_grid *g, const struct gb_calib *c)
{
	const struct gb_topo *t = g->topo;
	json_t *out = hops_json(g, c->src, c->dst), *back = hops_json(g, c->dst, c->src);

	if (!out || !back) {
		json_decref(out);
		json_decref(back);
		return NULL;
	}
	char k[32];

	/* strings and integers only: a real read back may come as an integer
	 * (1.0 as 1), and json_equal() tells them apart */
	snprintf(k, sizeof(k), "%.9g", gb_dilation(g));
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:i, s:i}", "backend", g->shaper->name,
			 "dilate", k, "src", t->nodes[c->src].name, "dst", t->nodes[c->dst].name,
			 "out", out, "back", back, "probes", c->probes, "interval_us",
			 (int)llround(GB_CALIB_INTERVAL_S * 1e6));
}

/* The first line of @path, without its newline, into @buf ("" if none). */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/* The machine the cost belongs to: the running delay line, kernel, boot, CPUs. */
static json_t *machine_json(struct gb_grid *g)
{
	char exe[64], path[PATH_MAX] = "", dl[PATH_MAX + 96], boot[64], kernel[2 * 65 + 2];
	pid_t pid = g->shaper->helper_pid ? g->shaper->helper_pid(g) : 0;
	struct utsname u;
	struct stat st;
	ssize_t n;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	if (pid <= 0 || stat(exe, &st) < 0)
		return NULL;
	if ((n = readlink(exe, path, sizeof(path) - 1)) > 0)
		path[n] = '\0';
	snprintf(dl, sizeof(dl), "%s dev %ju inode %ju size %jd mtime %jd.%09ld", path,
		 (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, (intmax_t)st.st_size,
		 (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	first_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	if (uname(&u) < 0)
		return NULL;
	snprintf(kernel, sizeof(kernel), "%s %s", u.release, u.version);
	return json_pack("{s:s, s:s, s:s, s:i}", "delay_line", dl, "kernel", kernel, "boot_id",
			 boot, "cpus", (int)sysconf(_SC_NPROCESSORS_ONLN));
}

/* FNV-1a, 64 bits: the entry's file name from its key. */
static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* "<run directory>/calibration" into @buf: g->rundir is "<run directory>/<prefix>". */
static void cache_dir(const struct gb_grid *g, char *buf, size_t len)
{
	int n = (int)(strlen(g->rundir) - strlen(g->prefix));

	snprintf(buf, len, "%.*scalibration", n > 0 ? n : 0, g->rundir);
}

/* The entry's path, and its key (the caller's reference), for @c on @g. */
static json_t *entry_path(const struct gb_grid *g, const struct gb_calib *c, char *path,
			  size_t len)
{
	json_t *key = key_json(g, c);
	char dir[PATH_MAX], *s = key ? json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	if (!s) {
		json_decref(key);
		return NULL;
	}
	cache_dir(g, dir, sizeof(dir));
	snprintf(path, len, "%s/%s-%016" PRIx64 ".json", dir, g->shaper->name, fnv1a64(s));
	free(s);
	return key;
}

/* Which of the machine's facts differ between @then and @now, in words; NULL if none. */
static const char *machine_changed(json_t *then, json_t *now)
{
	static const char *const f[][2] = { { "delay_line", "the delay line's binary changed" },
					    { "kernel", "another kernel" },
					    { "boot_id", "the machine rebooted" },
					    { "cpus", "the number of CPUs changed" } };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!json_equal(json_object_get(then, f[i][0]), json_object_get(now, f[i][0])))
			return f[i][1];
	return NULL;
}

int gb_calib_cache_get(struct gb_grid *g, struct gb_calib *c, char *why, size_t whylen)
{
	char path[PATH_MAX];
	json_t *key = entry_path(g, c, path, sizeof(path)), *mach = machine_json(g);
	const char *missing = !key ? "the pair's path" : !mach ? "its binary or the kernel" : NULL;
	/* what this up needs: it holds key and mach */
	json_t *want = missing ? NULL : json_pack("{s:O, s:O}", "key", key, "machine", mach);
	json_t *o = NULL, *okey = NULL, *omach = NULL;
	json_error_t je;
	const char *fmt = NULL, *changed;
	json_int_t when = 0, pass = 0;
	int version = 0, err = 0;
	double self = 0, before = 0, after = 0, load = -1, now_load = -1;

	json_decref(key);
	json_decref(mach);
	if (!want) {
		snprintf(why, whylen, "cannot tell this machine's delay line (%s)",
			 missing ? missing : "no memory");
		err = -ENOENT;
		goto out;
	}
	key = json_object_get(want, "key");
	mach = json_object_get(want, "machine");
	if (!(o = json_load_file(path, 0, &je))) {
		if (access(path, F_OK) < 0) {
			snprintf(why, whylen, "no earlier calibration of this pair");
			goto out;
		}
		snprintf(why, whylen, "the calibration cache '%s' is unreadable (%s, line %d)", path,
			 je.text, je.line);
		err = -EINVAL;
		goto out;
	}
	if (json_unpack(o, "{s:s, s:i, s:o, s:o, s:I, s:F, s:F, s:F, s:I, s:F}", "format", &fmt,
			"version", &version, "key", &okey, "machine", &omach, "measured_unix",
			&when, "self_s", &self, "before_s", &before, "after_s", &after, "pass_ns",
			&pass, "load1", &load) < 0 ||
	    strcmp(fmt, CACHE_FORMAT) || version != CACHE_VERSION || pass < 0 ||
	    !(self > 0) || !(before > 0) || !(after > 0)) {
		snprintf(why, whylen, "the calibration cache '%s' is not one (a field is missing "
			 "or wrong)", path);
		err = -EINVAL;
		goto out;
	}
	if (!json_equal(okey, key)) {
		snprintf(why, whylen, "no earlier calibration of this pair");
		goto out;
	}
	if ((changed = machine_changed(omach, mach))) {
		snprintf(why, whylen, "%s", changed);
		goto out;
	}
	long long age = (long long)time(NULL) - (long long)when;

	if (age < 0 || age > GB_CALIB_MAX_AGE_S) {
		snprintf(why, whylen, "the last one was measured %lld s ago, not within %d s", age,
			 GB_CALIB_MAX_AGE_S);
		goto out;
	}
	if (getloadavg(&now_load, 1) != 1 || load < 0 ||
	    fabs(now_load - load) > GB_CALIB_MAX_LOAD_DELTA) {
		snprintf(why, whylen, "the load average was %.2f then and is %.2f now, more than "
			 "%.0f apart", load, now_load, GB_CALIB_MAX_LOAD_DELTA);
		goto out;
	}
	c->self_s = self;
	c->before_s = before;
	c->after_s = after;
	c->pass_ns = (uint64_t)pass;
	c->load1 = load;
	c->measured_unix = (int64_t)when;
	snprintf(why, whylen, "reused");
	err = 1;
out:
	json_decref(o);
	json_decref(want);
	return err;
}

int gb_calib_cache_put(struct gb_grid *g, const struct gb_calib *c)
{
	char path[PATH_MAX], dir[PATH_MAX];
	json_t *key = entry_path(g, c, path, sizeof(path)), *mach = machine_json(g), *o;
	char *s;
	int err;

	if (!key || !mach) {
		json_decref(key);
		json_decref(mach);
		return -ENOENT;
	}
	o = json_pack("{s:s, s:i, s:o, s:o, s:I, s:f, s:f, s:f, s:I, s:f}", "format",
		      CACHE_FORMAT, "version", CACHE_VERSION, "key", key, "machine", mach,
		      "measured_unix", (json_int_t)c->measured_unix, "self_s", c->self_s,
		      "before_s", c->before_s, "after_s", c->after_s, "pass_ns",
		      (json_int_t)c->pass_ns, "load1", c->load1);
	if (!(s = o ? json_dumps(o, JSON_INDENT(1)) : NULL)) {
		json_decref(o);
		return -ENOMEM;
	}
	cache_dir(g, dir, sizeof(dir));
	err = gb_mkdir_p(dir, 0755);
	if (!err)
		err = gb_write_file(path, s, strlen(s), 0);
	free(s);
	json_decref(o);
	return err;
}
