// SPDX-License-Identifier: MIT
/*
 * shape.c - shape mode's link changes and the state file that makes them
 * repairable.
 *
 * Every change goes through the emulator's runtime link change
 * (gb_grid_link_set()) with a handle opened just for it, holding the grid's
 * lock exclusively for a few milliseconds, so that `gridemu status`, `link
 * show` and `mpirun` keep working during a long run, and so that a change
 * made meanwhile by someone else to another link is not overwritten (the
 * handle re-reads the live state each time).
 *
 * The state file ($rundir/gridload-shape.json) lists each directed link
 * gridload has lowered, with its rate from before.  It is written
 * (atomically) *before* the link is changed and an entry is dropped only
 * after the link is back, so whenever gridload dies a link can be wrong
 * only if it is listed:
 *
 *   {"format": "gridload-shape", "dilate": 1,
 *    "links": [{"link": "LA-CHI", "dir": 0, "rate_bps": 30000000, "pid": 4242}]}
 *
 * Rates are in topology units, on a dilated grid too ("dilate" says its k,
 * docs/architecture.md, decision 9): the emulator's link change takes and reads
 * back topology units and puts rate / k on the wire itself, so neither
 * shaping nor restoring converts anything.
 */
#include "load_priv.h"
#include "dilate.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* gb_grid_open(), retrying for up to ~5 s while another command holds the lock. */
static int open_retry(struct gb_grid *g, const char *prefix, int exclusive, struct gb_err *e)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int err;

	for (int i = 0; i < 250; i++) {
		if ((err = gb_grid_open(g, prefix, exclusive, e)) != -EBUSY)
			return err;
		nanosleep(&ts, NULL);
	}
	return err;
}

int gbl_dirlock(const char *rundir, struct gb_err *e)
{
	int fd = open(rundir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

	if (fd < 0) {
		err = -errno;
		gb_err_set(e, "cannot open '%s': %s", rundir, strerror(errno));
		return err;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		gb_err_set(e, "another gridload is shaping the grid of '%s'", rundir);
		close(fd);
		return err;
	}
	return fd;
}

static void state_path(const char *rundir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", rundir, GB_LOAD_STATE_FILE);
}

/* The state's list of links (a new empty one if there is no file). */
static json_t *state_load(const char *rundir)
{
	char p[PATH_MAX];
	json_t *st, *links;

	state_path(rundir, p, sizeof(p));
	st = json_load_file(p, 0, NULL);
	links = st ? json_object_get(st, "links") : NULL;
	if (json_is_array(links))
		json_incref(links);
	else
		links = json_array();
	json_decref(st);
	return links;
}

/* Write the list atomically (with the grid's dilation), or remove the file when it is empty. */
static int state_store(const char *rundir, json_t *links, double dilate)
{
	char p[PATH_MAX], tmp[PATH_MAX];
	int err = 0, fd;

	state_path(rundir, p, sizeof(p));
	if (!json_array_size(links))
		return unlink(p) < 0 && errno != ENOENT ? -errno : 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", p);
	json_t *root = json_pack("{s:s, s:o, s:O}", "format", "gridload-shape", "dilate",
				 gbl_json_dilate(dilate), "links", links);
	if (!root)
		return -ENOMEM;
	if (json_dump_file(root, tmp, JSON_INDENT(1)) < 0)
		err = -EIO;
	json_decref(root);
	if (!err && (fd = open(tmp, O_RDONLY | O_CLOEXEC)) >= 0) {
		fsync(fd);
		close(fd);
	}
	if (!err && rename(tmp, p) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int entry_index(json_t *links, const char *link, int dir)
{
	size_t i;
	json_t *v;

	json_array_foreach(links, i, v) {
		const char *l = json_string_value(json_object_get(v, "link"));

		if (l && !strcmp(l, link) && json_integer_value(json_object_get(v, "dir")) == dir)
			return (int)i;
	}
	return -1;
}

static int state_note(const char *rundir, const char *link, int dir, uint64_t rate,
		      double dilate)
{
	json_t *links = state_load(rundir);
	int err = 0;

	/* Keep the first rate: a second change must not record the lowered one. */
	if (entry_index(links, link, dir) < 0) {
		json_array_append_new(links, json_pack("{s:s, s:i, s:I, s:i}", "link", link, "dir",
						       dir, "rate_bps", (json_int_t)rate, "pid",
						       (int)getpid()));
		err = state_store(rundir, links, dilate);
	}
	json_decref(links);
	return err;
}

int gbl_state_forget(const char *rundir, const char *link, int dir, double dilate)
{
	json_t *links = state_load(rundir);
	int i = entry_index(links, link, dir), err = 0;

	if (i >= 0) {
		json_array_remove(links, (size_t)i);
		err = state_store(rundir, links, dilate);
	}
	json_decref(links);
	return err;
}

int gbl_shape_apply(const char *prefix, const char *link, int dir, uint64_t rate, double factor,
		    int note, uint64_t *before, uint64_t *readback, struct gb_err *e)
{
	struct gb_grid g;
	struct gb_link_change c;
	struct gb_linkdir p;
	int err, k;

	if ((err = open_retry(&g, prefix, 1, e)) < 0)
		return err;
	if ((err = gb_grid_attach(&g, e)) < 0)
		goto cleanup;
	k = gb_topo_find_link(g.topo, link);
	if (k < 0) {
		err = -ENOENT;
		gb_err_set(e, "no link '%s' in grid '%s'", link, g.prefix);
		goto cleanup;
	}
	uint64_t live = gb_topo_dir(g.topo, 2 * k + dir)->rate_bps;
	if (before)
		*before = live;
	if (factor > 0)
		rate = (uint64_t)llround(factor * (double)live);
	if (!rate) {
		/* 0 would mean "unlimited" to the emulator */
		err = -ERANGE;
		gb_err_set(e, "link '%s' has no rate limit to lower", link);
		goto cleanup;
	}
	/* @rate and @live are topology units, as link set takes them (decision 9) */
	if (note && (err = state_note(g.rundir, link, dir, live, gb_dilation(&g))) < 0) {
		gb_err_set(e, "cannot write '%s/%s': %s", g.rundir, GB_LOAD_STATE_FILE,
			   strerror(-err));
		goto cleanup;
	}
	memset(&c, 0, sizeof(c));
	c.dir = dir;
	c.p.rate_bps = rate;
	c.p.set = GB_LD_RATE;
	if ((err = gb_grid_link_set(&g, link, &c, e)) < 0)
		goto cleanup;
	if (readback) {
		memset(&p, 0, sizeof(p));
		*readback = gb_grid_dir_read(&g, 2 * k + dir, &p) >= 0 && (p.set & GB_LD_RATE) ?
			    p.rate_bps : 0;
	}
cleanup:
	gb_grid_close(&g);
	return err;
}

int gbl_restore_locked(const char *prefix, const char *rundir, int *nrestored,
		       struct gb_err *e)
{
	json_t *links = state_load(rundir), *v;
	int err = 0, n = 0;
	size_t i;

	json_array_foreach(links, i, v) {
		const char *l = json_string_value(json_object_get(v, "link"));
		int dir = (int)json_integer_value(json_object_get(v, "dir"));
		uint64_t rate = (uint64_t)json_integer_value(json_object_get(v, "rate_bps"));
		struct gb_err e2 = { "" };
		int r;

		if (!l || (dir != 0 && dir != 1))
			continue;
		r = gbl_shape_apply(prefix, l, dir, rate, 0, 0, NULL, NULL, &e2);
		if (r == -ENOENT) {
			/* No grid (or no such link) any more: nothing to put back. */
			continue;
		}
		if (r < 0) {
			if (!err) {
				err = r;
				gb_err_set(e, "cannot restore link '%s': %s", l, e2.msg);
			}
			continue;
		}
		n++;
	}
	json_decref(links);
	if (!err) {
		char p[PATH_MAX];

		state_path(rundir, p, sizeof(p));
		if (unlink(p) < 0 && errno != ENOENT)
			err = -errno;
	}
	if (nrestored)
		*nrestored = n;
	return err;
}

int gb_load_restore(const char *prefix, int *nrestored, struct gb_err *e)
{
	struct gb_grid g;
	char rundir[sizeof(g.rundir)], pfx[sizeof(g.prefix)];
	int err, fd;

	if (nrestored)
		*nrestored = 0;
	/* Only for the names: the run directory and the prefix. */
	if ((err = open_retry(&g, prefix, 0, e)) < 0)
		return err;
	snprintf(rundir, sizeof(rundir), "%s", g.rundir);
	snprintf(pfx, sizeof(pfx), "%s", g.prefix);
	gb_grid_close(&g);
	if ((fd = gbl_dirlock(rundir, e)) < 0)
		return fd;
	err = gbl_restore_locked(pfx, rundir, nrestored, e);
	close(fd);
	return err;
}
