/* SPDX-License-Identifier: MIT */
/*
 * mpirun_agent.c - "gridemu mpirun --gb-agent DIR HOST CMD...": OpenMPI's
 * plm_rsh_agent in a `gridemu mpirun` job, the stand-in for ssh.  mpirun
 * (in the management namespace) runs it once per host to start orted
 * there: HOST is the management address the launcher passed to --host,
 * CMD the orted command line.  See mpirun.h for the process tree.
 *
 * Each host gets its own TMPDIR (DIR/tmp/HOST): all orteds share one
 * hostname on one box, and would otherwise share session directories
 * (docs/platform.md: PMIx dstore errors).
 */
#include "mpirun_priv.h"

#include "cgroup.h"
#include "netns.h"

#include <errno.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * A host of the peer machine (gridemu up --part, partition.h) whose
 * namespace is not on this one: run "RSH PEER GRIDEMU mpirun --gb-agent DIR
 * HOST CMD...", the same agent on the machine that has the namespace (the
 * same paths there: a shared job directory).  RSH is split on blanks.
 */
static int forward(const char *rsh, const char *peer, int argc, char **argv)
{
	char exe[PATH_MAX], *copy = strdup(rsh ? rsh : ""), *save = NULL, *w;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct strv av = { 0 };

	if (n <= 0 || !copy || !rsh || !*rsh) {
		fprintf(stderr, ME " agent: host '%s' is on the peer %s, and the job has no way "
			"to reach it (--rsh)\n", argv[2], peer);
		free(copy);
		return 255;
	}
	exe[n] = 0;
	for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		strv_push(&av, w);
	free(copy);
	strv_push(&av, peer);
	strv_push(&av, exe);
	strv_push(&av, "mpirun");
	for (int k = 0; k < argc; k++)  /* --gb-agent DIR HOST CMD... */
		strv_push(&av, argv[k]);
	execvp(av.v[0], av.v);
	fprintf(stderr, ME " agent: cannot run '%s' to reach %s: %s\n", av.v[0], peer,
		strerror(errno));
	strv_release(&av);
	return 255;
}

/*
 * Called by mpirun as "AGENT HOST CMD..." exactly like ssh: HOST is one of
 * the management addresses we passed to --host, CMD the words of a shell
 * command line (PATH=...; orted ...).  We map HOST back to the host's
 * namespace through the rank map, enter it, and run CMD with sh -c as sshd
 * would.  Exit 255 on our own errors, like ssh.
 */
int mpirun_agent_main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, ME " --gb-agent: usage: --gb-agent JOBDIR HOST CMD...\n");
		return 255;
	}
	const char *dir = argv[1], *host = argv[2];
	json_t *map = mpirun_load_map(dir);
	if (!map) {
		fprintf(stderr, ME " agent: cannot read the rank map of '%s'\n", dir);
		return 255;
	}
	const char *node = NULL, *netns = NULL, *peer = NULL, *hprefix = NULL;
	json_t *ranks = json_object_get(map, "ranks"), *r;
	size_t i;
	json_array_foreach(ranks, i, r) {
		const char *m = json_string_value(json_object_get(r, "mgmt"));
		const char *h = json_string_value(json_object_get(r, "host"));
		if ((m && !strcmp(m, host)) || (h && !strcmp(h, host))) {
			node = h;
			netns = json_string_value(json_object_get(r, "netns"));
			peer = json_string_value(json_object_get(r, "peer"));
			hprefix = json_string_value(json_object_get(r, "prefix"));
			break;
		}
	}
	if (!node || !netns) {
		fprintf(stderr, ME " agent: host '%s' is not in job '%s'\n", host, dir);
		json_decref(map);
		return 255;
	}

	int fd = gb_netns_open(netns);

	if (fd == -ENOENT && peer) {
		/* on the peer machine: the same agent there, through --rsh */
		int rc = forward(json_string_value(json_object_get(map, "rsh")), peer, argc, argv);

		json_decref(map);
		return rc;
	}
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s/tmp/%s", dir, node);
	if (mkdir(tmp, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, ME " agent: cannot create '%s': %s\n", tmp, strerror(errno));
		json_decref(map);
		return 255;
	}
	setenv("TMPDIR", tmp, 1);
	setenv("GRIDBED_NODE", node, 1);
	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, ME " agent: cannot enter namespace '%s': %s\n", netns,
			strerror(fd < 0 ? -fd : errno));
		json_decref(map);
		return 255;
	}
	close(fd);
	/* Heterogeneous CPUs: orted, and so the rank, share the host's quota. */
	const char *gprefix = hprefix ? hprefix : json_string_value(json_object_get(map, "prefix"));
	int cg = gprefix ? gb_cgroup_join(gprefix, node) : 1;
	if (cg < 0) {
		fprintf(stderr, ME " agent: cannot join the CPU quota of '%s': %s\n", node,
			strerror(-cg));
		json_decref(map);
		return 255;
	}
	json_decref(map);

	struct strv cmd = { 0 };
	size_t len = 1;
	for (int k = 3; k < argc; k++)
		len += strlen(argv[k]) + 1;
	char *line = calloc(1, len);
	if (!line)
		return 255;
	for (int k = 3; k < argc; k++) {
		if (k > 3)
			strcat(line, " ");
		strcat(line, argv[k]);
	}
	strv_push(&cmd, "sh");
	strv_push(&cmd, "-c");
	strv_push(&cmd, line);
	free(line);
	execv("/bin/sh", cmd.v);
	fprintf(stderr, ME " agent: cannot run /bin/sh: %s\n", strerror(errno));
	strv_release(&cmd);
	return 255;
}
