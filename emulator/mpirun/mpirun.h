/* SPDX-License-Identifier: MIT */
/*
 * mpirun.h - `gridemu mpirun`: an OpenMPI job with one rank per emulated host.
 *
 *   gridemu mpirun [-n N | --hosts H,H,...] [--mca K V]... [-x NAME[=VAL]]... -- PROG ARGS
 *
 * How a job is laid out:
 *
 *   gridemu mpirun (root netns; child subreaper; owns job id J)
 *     └─ mpirun            in P-mgmt: --host <mgmt addr>:1,... (launch over the
 *         │                 unshaped management network), TCP BTL on the data block
 *         └─ gridemu mpirun --gb-agent DIR <mgmt addr> <orted command>
 *              (plm_rsh_agent: setns into the host's netns, TMPDIR per host, exec sh -c)
 *              └─ orted    in P-<host>
 *                   └─ gridemu mpirun --gb-rank DIR PROG ARGS
 *                        (checks the placement, records the exit status in DIR/status/)
 *                        └─ PROG   rank i on host i; MPI traffic on the data address only
 *
 * Every process of the job carries GRIDBED_JOB=J in its environment, so that
 * the cleanup after a failure or Ctrl-C kills exactly this job's processes in
 * the grid's namespaces and nothing else (another job, a user's shell).
 *
 * Files: $rundir/mpirun-J.json (the rank map, written before launch and
 * completed with each rank's exit status at the end; atomic writes) and the
 * job directory $rundir/mpirun-J/ (per-host TMPDIRs, rank statuses), removed
 * at the end unless --keep.
 *
 * Ranks see GRIDBED_PREFIX, GRIDBED_RUNDIR, GRIDBED_NODE (their host),
 * GRIDBED_JOB and GRIDBED_RANKMAP (the rank map's path), plus every other
 * GRIDBED_* variable of the caller's environment (e.g. GRIDBED_BCAST).
 */
#ifndef GRIDBED_MPIRUN_H
#define GRIDBED_MPIRUN_H

/**
 * gb_cmd_mpirun() - the `gridemu mpirun` subcommand (argv[0] is "mpirun").
 * Also the job's own helpers, which gridemu re-invokes with a hidden first
 * argument: "--gb-agent" (OpenMPI's plm_rsh_agent) and "--gb-rank" (the
 * per-rank wrapper).
 * Return: the exit status: 0 success; 1 the job failed (the failing rank and
 * host are named on stderr) or could not start; 2 bad usage (no grid up,
 * unknown host, -n larger than the grid); 124 --timeout expired; 128+SIG when
 * interrupted by SIGINT, SIGTERM or SIGHUP.
 */
int gb_cmd_mpirun(int argc, char **argv);

#endif
