// SPDX-License-Identifier: MIT
/*
 * gridexp_meta.c - the results directory (new, or --resume's, checked
 * against the campaign) and its meta.json: the campaign, its runs, and one
 * session per `gridexp run` with the machine, the tools and the grid.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "calibrate.h"
#include "gbexp.h"
#include "gbio.h"
#include "gbutil.h"
#include "gbyaml.h"
#include "gridexp_priv.h"
#include "gxfile.h"

int meta_lock(const char *dir)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/.meta.lock", dir);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
		return -errno;
	while (fcntl(fd, F_SETLKW, &fl) < 0)
		if (errno != EINTR) {
			int e = errno;

			close(fd);
			return -e;
		}
	return fd;
}

void meta_unlock(int fd)
{
	if (fd >= 0)
		close(fd);      /* closing drops the fcntl lock */
}

/* Adds @what (a reference taken) under @key to this session of meta.json. */
void meta_session_add(struct runner *R, const char *key, json_t *what)
{
	char path[PATH_MAX];
	json_error_t je;
	int ret, lk = meta_lock(R->out);
	json_t *m, *ss;

	snprintf(path, sizeof(path), "%s/meta.json", R->out);
	m = gb_json_load_file(path, &je, &ret);
	ss = m ? json_object_get(m, "sessions") : NULL;
	if (R->meta_session >= 0 && (size_t)R->meta_session < json_array_size(ss)) {
		json_object_set(json_array_get(ss, (size_t)R->meta_session), key, what);
		if (gb_json_save_atomic(m, path) < 0)
			warnx("cannot update %s", path);
	}
	meta_unlock(lk);
	json_decref(m);
	json_decref(what);
}

/* The first line of what @argv prints ("" when it cannot run). */
static void first_line_of(char *const *argv, char *buf, size_t len)
{
	if (run_capture(argv, buf, len, 0) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

int write_meta(struct runner *R, int fresh, int session)
{
	char path[PATH_MAX], mpi[256], gp[256];
	char *mv[] = { "mpirun", "--version", NULL }, *gv[] = { "gnuplot", "--version", NULL };
	json_error_t je;
	json_t *j = NULL, *runs, *sess, *tools, *wan, *tcp;
	struct utsname u;
	char when[64];
	int ret, lk;

	snprintf(path, sizeof(path), "%s/meta.json", R->out);
	gb_utc_iso(when, sizeof(when));
	if ((lk = meta_lock(R->out)) < 0)
		return lk;
	if (!fresh)
		j = gb_json_load_file(path, &je, &ret);
	if (!j) {
		j = json_object();
		runs = json_array();
		json_object_set_new(j, "format", json_string("gridbed-campaign-results"));
		json_object_set_new(j, "results_id", json_string(R->stamp));
		json_object_set_new(j, "created", json_string(when));
		json_object_set_new(j, "campaign", gx_campaign_json(&R->c));
		json_object_set_new(j, "scale", json_real(R->scale));
		json_object_set_new(j, "dilate", json_real(R->dilate));
		for (int rep = 1; rep <= R->c.repetitions; rep++)
			for (int c = 0; c < R->c.nconds; c++)
				for (int a = 0; a < R->c.nalgos; a++) {
					char id[128];

					gx_run_id(&R->c, c, a, rep, id, sizeof(id));
					json_array_append_new(runs, json_pack(
						"{s:s,s:i,s:i,s:i,s:s,s:s,s:I}", "id", id, "algo", a,
						"cond", c, "rep", rep, "algorithm", R->c.algos[a].label,
						"condition", R->c.conds[c].name, "load_seed",
						(json_int_t)(R->c.seed + (uint64_t)rep - 1)));
				}
		json_object_set_new(j, "runs", runs);
		json_object_set_new(j, "sessions", json_array());
	}
	R->meta_session = -1;
	if (!session)
		goto save;
	uname(&u);
	first_line_of(mv, mpi, sizeof(mpi));
	first_line_of(gv, gp, sizeof(gp));
	tools = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "gridbed", gb_git_revision(), "mpirun", mpi,
			  "gnuplot", gp, "libyaml", yaml_get_version_string(), "jansson",
			  JANSSON_VERSION, "libpcap", pcap_lib_version());
	wan = json_array();
	for (int k = 0; R->attached && k < R->nwan; k++)
		json_array_append_new(wan, json_string(R->g.topo->links[R->wan[k]].name));
	/* the hosts' TCP stack as read back from the grid (issue 18) */
	tcp = R->attached ? gb_grid_tcp_json(&R->g) : NULL;
	sess = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:s,s:b,s:o}", "started", when, "prefix",
			 R->prefix, "backend", R->backend, "kernel", u.release, "machine",
			 u.machine, "tools", tools, "wan_links", wan, "capture_filter",
			 CAPTURE_FILTER, "resumed", !fresh, "tcp", tcp ? tcp : json_null());
	/* the delay line's cost per traversal and the links configured below
	 * it (gridemu up's calibration, emulator/grid/calibrate.h): a link
	 * below the cost is slower than configured, whatever the monitor says */
	if (R->attached) {
		struct gb_calib cal;
		json_t *cj = NULL;

		if (gb_grid_calib_read(&R->g, &cal, &cj) == 0 && cj)
			json_object_set_new(sess, "delay_line", cj);
	}
	if (R->task >= 0) {      /* a Slurm array task: which, and where */
		char host[256] = "";

		gethostname(host, sizeof(host) - 1);
		json_object_set_new(sess, "task", json_integer(R->task));
		json_object_set_new(sess, "node", json_string(host));
		json_object_set_new(sess, "slurm_job",
				    json_string(getenv("SLURM_ARRAY_JOB_ID") ?: ""));
	}
	R->meta_session = (int)json_array_size(json_object_get(j, "sessions"));
	json_array_append_new(json_object_get(j, "sessions"), sess);
	/* the first session's facts at the top, as docs/architecture.md, decision 7 lists them
	 * (gridexp slurm writes meta.json without a session: its first task's) */
	if (!json_object_get(j, "backend")) {
		json_object_set_new(j, "topology", json_string(R->c.topology));
		json_object_set_new(j, "backend", json_string(R->backend));
		json_object_set_new(j, "kernel", json_string(u.release));
		json_object_set_new(j, "tcp", json_deep_copy(json_object_get(sess, "tcp")));
		json_object_set_new(j, "git_revision", json_string(gb_git_revision()));
		json_object_set_new(j, "seeds", json_pack("{s:I,s:I,s:s}", "campaign",
							  (json_int_t)R->c.seed, "planner",
							  (json_int_t)R->c.seed, "load",
							  "campaign seed + repetition - 1"));
		json_object_set_new(j, "tools", json_deep_copy(tools));
	}
save:
	ret = gb_json_save_atomic(j, path);
	meta_unlock(lk);
	json_decref(j);
	return ret;
}

int check_out(struct runner *R, const char *out_root, const char *resume)
{
	char dir[PATH_MAX], bad[PATH_MAX];
	int ret;

	if (resume)     /* prepare_out() only reads a --resume directory */
		return prepare_out(R, out_root, resume) < 0 ? -2 : 0;
	if (!*out_root) {
		warnx("--out-root '' names no directory");
		return -2;
	}
	snprintf(dir, sizeof(dir), "%s/%s", out_root, R->c.name);
	if ((ret = gx_dir_creatable(dir, bad, sizeof(bad))) < 0) {
		warnx("--out-root '%s': cannot create results there: '%s' %s", out_root, bad,
		      ret == -ENOTDIR ? "is not a directory" : strerror(-ret));
		return -2;
	}
	return 0;
}

int prepare_out(struct runner *R, const char *out_root, const char *resume)
{
	char path[PATH_MAX];
	time_t now = time(NULL);
	char *old = NULL;
	size_t olen;
	int ret;

	if (resume) {
		json_error_t je;
		json_t *m;

		snprintf(R->out, sizeof(R->out), "%s", resume);
		snprintf(path, sizeof(path), "%s/meta.json", R->out);
		m = gb_json_load_file(path, &je, &ret);
		if (!m) {
			warnx("--resume: '%s' is not a campaign's results directory (%s)", resume,
			      ret == -EINVAL ? je.text : strerror(-ret));
			return -2;
		}
		snprintf(R->stamp, sizeof(R->stamp), "%s",
			 json_string_value(json_object_get(m, "results_id")) ?: "");
		if (R->scale != json_number_value(json_object_get(m, "scale"))) {
			if (R->scale != R->c.scale) {
				warnx("--resume: '%s' ran at scale %g, not %g", resume,
				      json_number_value(json_object_get(m, "scale")), R->scale);
				json_decref(m);
				return -2;
			}
			R->scale = json_number_value(json_object_get(m, "scale"));
		}
		/* results from before dilation existed were taken at k = 1 */
		json_t *jd = json_object_get(m, "dilate");
		double mk = json_is_number(jd) ? json_number_value(jd) : 1.0;

		if (R->dilate != mk) {
			if (R->dilate != R->c.dilate) {
				warnx("--resume: '%s' ran at dilation %g, not %g", resume, mk, R->dilate);
				json_decref(m);
				return -2;
			}
			R->dilate = mk;
		}
		json_t *js = json_object_get(json_object_get(m, "seeds"), "campaign");
		if (json_is_integer(js) && (uint64_t)json_integer_value(js) != R->c.seed) {
			if (R->seed_given) {
				warnx("--resume: '%s' ran with seed %lld, not %llu", resume,
				      (long long)json_integer_value(js), (unsigned long long)R->c.seed);
				json_decref(m);
				return -2;
			}
			gx_campaign_set_seed(&R->c, (uint64_t)json_integer_value(js));
		}
		json_decref(m);
		snprintf(path, sizeof(path), "%s/campaign.yaml", R->out);
		if (gb_read_file(path, 4u << 20, &old, &olen) < 0 || olen != R->c.text_len ||
		    memcmp(old, R->c.text, olen)) {
			warnx("--resume: '%s' was made by another campaign file than '%s'", resume,
			      R->c.path);
			free(old);
			return -2;
		}
		free(old);
		return 0;
	}
	strftime(R->stamp, sizeof(R->stamp), "%Y%m%dT%H%M%SZ", gmtime(&now));
	snprintf(R->out, sizeof(R->out), "%s/%s/%s", out_root, R->c.name, R->stamp);
	for (int k = 2; exists(R->out); k++)   /* two runs in one second */
		snprintf(R->out, sizeof(R->out), "%s/%s/%s-%d", out_root, R->c.name, R->stamp, k);
	snprintf(R->stamp, sizeof(R->stamp), "%s", strrchr(R->out, '/') + 1);
	if ((ret = gb_mkdir_p(R->out, 0755)) < 0) {
		warnx("cannot create '%s': %s", R->out, strerror(-ret));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/runs", R->out);
	gb_mkdir_p(path, 0755);
	snprintf(path, sizeof(path), "%s/campaign.yaml", R->out);
	if (gx_write_atomic(path, R->c.text, R->c.text_len) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/topology.yaml", R->out);
	gx_copy_atomic(R->c.topology, path);
	return 0;
}
