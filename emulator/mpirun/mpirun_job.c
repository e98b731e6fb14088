/* SPDX-License-Identifier: MIT */
/*
 * mpirun_job.c - the files of a `gridemu mpirun` job as its three roles see
 * them: the rank map DIR.json (the launcher writes it, the agent and the
 * rank wrapper read it) and the rank statuses DIR/status/N (the wrapper
 * writes them, the launcher reads them).  Formats in mpirun_priv.h.
 */
#include "mpirun_priv.h"

#include "gbutil.h"

#include <errno.h>
#include <inttypes.h>

/* ------------------------------------------------------------------ */
/* Rank statuses: DIR/status/<rank> = "exit N T" | "signal N T" | ...    */
/* ------------------------------------------------------------------ */

int mpirun_read_status(const char *dir, int rank, struct rank_status *rs)
{
	char p[PATH_MAX], kind[16] = "";
	long long t = 0;
	int v = 0;
	memset(rs, 0, sizeof(*rs));
	snprintf(p, sizeof(p), "%s/status/%d", dir, rank);
	FILE *f = fopen(p, "re");
	if (!f)
		return -errno;
	int n = fscanf(f, "%15s %d %lld", kind, &v, &t);
	fclose(f);
	if (n != 3)
		return -EINVAL;
	rs->kind = !strcmp(kind, "exit") ? END_EXIT : !strcmp(kind, "signal") ? END_SIGNAL :
		   !strcmp(kind, "misplaced") ? END_MISPLACED : END_NOEXEC;
	rs->value = v;
	rs->t_ns = t;
	return 0;
}

int mpirun_write_status(const char *dir, int rank, const char *kind, int value)
{
	char p[PATH_MAX], text[96];
	snprintf(p, sizeof(p), "%s/status/%d", dir, rank);
	snprintf(text, sizeof(text), "%s %d %" PRId64 "\n", kind, value, gb_now_ns());
	return gb_write_atomic(p, text, strlen(text));
}

/* ------------------------------------------------------------------ */
/* The rank map: DIR.json                                               */
/* ------------------------------------------------------------------ */

/* Results are written atomically (docs/architecture.md, decision 7). */
int mpirun_write_json(json_t *j, const char *path)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!text)
		return -ENOMEM;
	int err = gb_write_atomic(path, text, strlen(text));
	free(text);
	return err;
}

json_t *mpirun_load_map(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s.json", dir);
	return json_load_file(p, 0, NULL);
}

const char *mpirun_map_str(json_t *map, int rank, const char *key)
{
	json_t *r = json_array_get(json_object_get(map, "ranks"), (size_t)rank);
	const char *s = json_string_value(json_object_get(r, key));
	return s ? s : "?";
}
