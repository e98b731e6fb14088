// SPDX-License-Identifier: MIT
/* toolio.c - models, result files and gnuplot for the tools (toolio.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gbio.h"
#include "gbtopo.h"
#include "gbutil.h"
#include "toolio.h"

int tool_load_model(struct gb_netmodel *m, const char *topo, const char *matrix, double o,
		    struct gb_err *err)
{
	struct gb_topo *t = NULL;
	struct gb_diag d;
	int ret;

	memset(m, 0, sizeof(*m));
	if (err)
		err->msg[0] = '\0';
	if (!topo == !matrix) {
		gb_err_set(err, "give exactly one of --topo FILE and --matrix FILE");
		return -EINVAL;
	}
	if (matrix) {
		ret = gb_nm_load_json(m, matrix, err);
		if (ret < 0 && err && !err->msg[0])
			gb_err_set(err, "cannot load matrix '%s': %s", matrix, strerror(-ret));
		goto out;
	}
	memset(&d, 0, sizeof(d));
	ret = gb_topo_load(topo, &t, &d);
	if (ret == -EINVAL) {
		gb_diag_err(err, &d, topo);
		return ret;
	}
	if (ret < 0) {
		gb_err_set(err, "cannot load topology '%s': %s", topo, strerror(-ret));
		return ret;
	}
	ret = gb_nm_from_topo(m, t, o);
	gb_topo_free(t);
	if (ret < 0)
		gb_err_set(err, "cannot model topology '%s': %s", topo, strerror(-ret));
out:
	if (ret < 0)
		gb_nm_release(m);
	return ret;
}

int tool_out_open(struct tool_out *o, const char *dir, const char *name)
{
	memset(o, 0, sizeof(*o));
	if (snprintf(o->path, sizeof(o->path), "%s/%s", dir, name) >= (int)sizeof(o->path))
		return -ENAMETOOLONG;
	o->f = open_memstream(&o->buf, &o->len);
	return o->f ? 0 : -errno;
}

int tool_out_close(struct tool_out *o)
{
	int bad, ret;

	if (!o->f)
		return -EBADF;
	bad = ferror(o->f);
	if (fclose(o->f) || bad)
		ret = -EIO;
	else
		ret = gb_write_atomic(o->path, o->buf, o->len);
	o->f = NULL;
	free(o->buf);
	o->buf = NULL;
	o->len = 0;
	return ret;
}

void tool_out_discard(struct tool_out *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	free(o->buf);
	o->buf = NULL;
	o->len = 0;
}

int tool_json_write(const json_t *j, const char *dir, const char *name)
{
	char path[4200], *s;
	int ret;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	/* json_dumps() gives what json_dump_file() wrote: no final newline */
	s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (!s)
		return -ENOMEM;
	ret = gb_write_atomic(path, s, strlen(s));
	free(s);
	return ret;
}

void tool_gnuplot_png(FILE *f, int w, int h)
{
	fprintf(f,
		"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		"  set terminal pngcairo size %d,%d font 'sans,10'\n"
		"} else {\n"
		"  set terminal png size %d,%d\n"
		"}\n", w, h, w, h);
}

int tool_gnuplot(const char *dir, const char *script)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (chdir(dir))
			_exit(126);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);     /* the shell's "command not found" */
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return -ENOENT;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
