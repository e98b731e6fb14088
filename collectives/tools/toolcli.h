/* SPDX-License-Identifier: MIT */
/*
 * toolcli.h - the command-line layer that collectives/tools/' programs
 * share: option parsing with --help and usage errors handled, and
 * toolio.h's files and gnuplot run with their failures said in one line,
 * "PROG: cannot write 'PATH': why".  This is CLI code: it prints (stdout for
 * what was asked for, stderr for errors), unlike toolio.h.
 */
#ifndef GRIDBED_TOOLCLI_H
#define GRIDBED_TOOLCLI_H

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>

#include "gbutil.h"
#include "toolio.h"

/** Exit status of a usage error (0 success, 1 failure): GB_EXIT_USAGE. */
#define TOOL_EXIT_USAGE GB_EXIT_USAGE

/**
 * struct tool_cli - one command: @prog starts its messages ("gridtree
 * pools", "bench_sa", or "gridtree: plan" for gridtree's own subcommands),
 * @usage prints its usage on the stream it is given.
 */
struct tool_cli {
	const char *prog;
	void (*usage)(FILE *f);
};

/**
 * tool_getopt() - getopt_long() that handles what every tool does the same
 * way: 'h' (the --help option, which each table maps to 'h') prints the
 * usage on stdout; an unknown option or a missing argument is one line on
 * stderr, "PROG: unknown option '--x' (see --help)"; an argument left after the options is "PROG: unexpected argument
 * 'ARG'".  The caller's switch sees only its own options.
 * Return: the next option, as getopt_long(); -1 when the caller stops
 * parsing, with *@status set: -1 to go on (every option read, no argument
 * left), or the process's exit status to return now (0 after --help,
 * TOOL_EXIT_USAGE after a usage error).
 */
int tool_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
		const struct tool_cli *cli, int *status);

/**
 * tool_load_model_cli() - tool_load_model() for a command: on failure its
 * message goes to stderr in one line, "PROG: why".  A file given on the
 * command line that is malformed or cannot be read is the user's input at
 * fault, as a bad option is (docs/exit-status.md).
 * Return: 0, or the exit status: TOOL_EXIT_USAGE for a bad or unreadable
 * file, 1 when memory ran out.
 */
int tool_load_model_cli(const char *prog, struct gb_netmodel *m, const char *topo,
			const char *matrix, double o);

/**
 * tool_input_status() - the exit status for -errno @err met while reading a
 * file the user named: 1 for -ENOMEM (the machine's fault), else
 * TOOL_EXIT_USAGE (malformed, missing, a directory, unreadable).
 */
int tool_input_status(int err);

/**
 * struct tool_simout - a simulator's output options: --out DIR, the folder
 * of its results; --no-plot (@plot 0), no gnuplot run; --quiet (@quiet),
 * print less.
 */
struct tool_simout {
	const char *out;
	int plot;
	int quiet;
};

/* struct tool_simout's options, for a simulator's option table. */
#define TOOL_SIMOUT_OPTIONS                          \
	{ "out", required_argument, NULL, 'o' },     \
	{ "no-plot", no_argument, NULL, 'P' },       \
	{ "quiet", no_argument, NULL, 'q' }

/**
 * tool_simout_opt() - take option @c, with its @arg, if it is one of
 * TOOL_SIMOUT_OPTIONS ('o', 'P', 'q').  Return: 1 if it was, else 0.
 */
int tool_simout_opt(struct tool_simout *so, int c, const char *arg);

/**
 * tool_simout_mkdir() - create the folder @so->out and its parents; on
 * failure says "@prog: cannot create 'DIR': why" on stderr.
 * Return: 0 or -1.
 */
int tool_simout_mkdir(const char *prog, const struct tool_simout *so);

/**
 * tool_out_begin() - tool_out_open() of @dir/@name; on failure says
 * "@prog: cannot write 'PATH': why" on stderr.  Return: 0 or -1.
 */
int tool_out_begin(const char *prog, struct tool_out *o, const char *dir, const char *name);

/**
 * tool_out_end() - tool_out_close() of @o; on failure says "@prog: cannot
 * write 'PATH': why" on stderr.  Return: 0 or -1.
 */
int tool_out_end(const char *prog, struct tool_out *o);

/**
 * tool_json_save() - tool_json_write() of @j as @dir/@name; on failure says
 * "@prog: cannot write 'PATH': why" on stderr.  Return: 0 or -1.
 */
int tool_json_save(const char *prog, const json_t *j, const char *dir, const char *name);

/**
 * tool_gnuplot_begin() - tool_out_begin() of the gnuplot script @dir/@name,
 * and its first lines: the header comment @fmt (printf) and the PNG
 * terminal, @w x @h (tool_gnuplot_png()).  Return: @o->f, or NULL (said).
 */
__attribute__((format(printf, 7, 8)))
FILE *tool_gnuplot_begin(const char *prog, struct tool_out *o, const char *dir, const char *name,
			 int w, int h, const char *fmt, ...);

/**
 * tool_plot() - run gnuplot on @dir/@script (tool_gnuplot()) and say how it
 * went: "plots: @dir/@png" on stdout ("plot:" when @png names a single
 * file, without a '*'; nothing when @quiet), or that gnuplot is not
 * installed (stdout, as the run itself succeeded: the figure can be drawn
 * later), or that it could not be run or failed (stderr).  A plot is an
 * extra: nothing is returned.
 */
void tool_plot(const char *prog, const char *dir, const char *script, const char *png,
	       int quiet);

/**
 * gb_cmd_nodes() - `gridtree nodes` (cmd_nodes.c): every node of --topo or
 * --matrix with its cluster and site, as CSV on stdout.
 * Return: the process's exit status (0, 1, or TOOL_EXIT_USAGE).
 */
int gb_cmd_nodes(int argc, char **argv);

#endif
