// SPDX-License-Identifier: MIT
/* toolcli.c - the tools' shared command-line layer (toolcli.h). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gbutil.h"
#include "toolcli.h"

int tool_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
		const struct tool_cli *cli, int *status)
{
	char sopts[64];
	int c;

	/* a leading ':' tells a missing argument from an unknown option; the
	 * message is ours, one line, not getopt's and the usage */
	snprintf(sopts, sizeof(sopts), ":%s", shortopts[0] == ':' ? shortopts + 1 : shortopts);
	opterr = 0;
	c = getopt_long(argc, argv, sopts, longopts, NULL);
	*status = -1;
	if (c == 'h') {
		cli->usage(stdout);
		*status = 0;
		return -1;
	}
	if (c == '?' || c == ':') {
		*status = gb_refuse(cli->prog, "%s '%s' (see --help)",
				    c == ':' ? "option needs a value:" : "unknown option",
				    argv[optind - 1]);
		return -1;
	}
	if (c == -1 && optind < argc) {
		*status = gb_refuse(cli->prog, "unexpected argument '%s'", argv[optind]);
	}
	return c;
}

int tool_input_status(int err)
{
	return err == -ENOMEM ? 1 : TOOL_EXIT_USAGE;
}

int tool_load_model_cli(const char *prog, struct gb_netmodel *m, const char *topo,
			const char *matrix, double o)
{
	struct gb_err err;
	int ret = tool_load_model(m, topo, matrix, o, &err);

	if (ret == 0)
		return 0;
	fprintf(stderr, "%s: %s\n", prog, err.msg[0] ? err.msg : strerror(-ret));
	return tool_input_status(ret);
}

int tool_simout_opt(struct tool_simout *so, int c, const char *arg)
{
	if (c == 'o')
		so->out = arg;
	else if (c == 'P')
		so->plot = 0;
	else if (c == 'q')
		so->quiet = 1;
	else
		return 0;
	return 1;
}

int tool_simout_mkdir(const char *prog, const struct tool_simout *so)
{
	int ret = gb_mkdir_p(so->out, 0755);

	if (ret < 0) {
		fprintf(stderr, "%s: cannot create '%s': %s\n", prog, so->out, strerror(-ret));
		return -1;
	}
	return 0;
}

static int cannot_write(const char *prog, const char *path, int err)
{
	fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(-err));
	return -1;
}

int tool_out_begin(const char *prog, struct tool_out *o, const char *dir, const char *name)
{
	int ret = tool_out_open(o, dir, name);

	return ret ? cannot_write(prog, o->path, ret) : 0;
}

int tool_out_end(const char *prog, struct tool_out *o)
{
	int ret = tool_out_close(o);

	return ret ? cannot_write(prog, o->path, ret) : 0;
}

int tool_json_save(const char *prog, const json_t *j, const char *dir, const char *name)
{
	int ret = tool_json_write(j, dir, name);

	if (ret) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/%s", dir, name);
		return cannot_write(prog, path, ret);
	}
	return 0;
}

FILE *tool_gnuplot_begin(const char *prog, struct tool_out *o, const char *dir, const char *name,
			 int w, int h, const char *fmt, ...)
{
	va_list ap;

	if (tool_out_begin(prog, o, dir, name))
		return NULL;
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
	tool_gnuplot_png(o->f, w, h);
	return o->f;
}

void tool_plot(const char *prog, const char *dir, const char *script, const char *png,
	       int quiet)
{
	int many = strchr(png, '*') != NULL;
	int ret = tool_gnuplot(dir, script);

	if (ret == -ENOENT)
		printf("gnuplot not found: no PNG%s; run 'gnuplot %s' in '%s'\n", many ? "s" : "",
		       script, dir);
	else if (ret < 0)
		fprintf(stderr, "%s: cannot run gnuplot: %s\n", prog, strerror(-ret));
	else if (ret)
		fprintf(stderr, "%s: gnuplot failed on '%s/%s'\n", prog, dir, script);
	else if (!quiet)
		printf("plot%s: %s/%s\n", many ? "s" : "", dir, png);
}
