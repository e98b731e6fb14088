/* SPDX-License-Identifier: MIT */
/*
 * mpirun.c - `gridemu mpirun`: which of the job's three programs this
 * gridemu is, selected by the first argument (mpirun.h draws the tree):
 *   - the launcher (what the user runs): mpirun_launch.c and mpirun_run.c;
 *   - "--gb-agent DIR HOST CMD..." - OpenMPI's plm_rsh_agent, the stand-in
 *     for ssh: HOST is a management address, CMD the orted command line
 *     (mpirun_agent.c);
 *   - "--gb-rank DIR PROG ARGS" - the per-rank wrapper that records the
 *     rank's exit status, so that a failure is pinned on the right rank even
 *     when mpirun's own report is missing or unparsable (mpirun_rank.c).
 * They share only the job's files (mpirun_job.c, mpirun_priv.h).
 */
#include "mpirun.h"

#include "mpirun_priv.h"

int gb_cmd_mpirun(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--gb-agent"))
		return mpirun_agent_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "--gb-rank"))
		return mpirun_rank_main(argc - 1, argv + 1);
	return mpirun_launch_main(argc, argv);
}
