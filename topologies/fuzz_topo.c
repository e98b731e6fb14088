// SPDX-License-Identifier: MIT
/*
 * fuzz_topo.c - libFuzzer entry point for the topology parser.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DGB_TOPO_MAX_NODES=512 \
 *         -Itopologies topologies/{fuzz_topo,topo_parse,topo_model,units}.c -lyaml
 *   ./a.out -dict=topologies/fuzz-topo.dict topologies/fuzz-corpus
 *
 * Besides "never crash, never leak" (ASan/UBSan/LeakSanitizer), it checks
 * the parser's contract and aborts when it is broken: a failure returns no
 * topology and a usable diagnostic; a success returns a routed, connected
 * model whose links can be found by name.  GB_TOPO_MAX_NODES is lowered in
 * fuzz builds so that "hosts: 8000" does not make every input slow.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gbtopo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_model(struct gb_topo *t)
{
	for (int l = 0; l < t->nlinks; l++)
		if (gb_topo_find_link(t, t->links[l].name) != l)
			abort();
	for (int s = 0; s < t->nhosts && s < 16; s++)
		for (int d = 0; d < t->nhosts; d++)
			if (gb_topo_path(t, s, d, NULL) < 0)
				abort();
	if (t->nhosts <= 64)
		for (int dl = 0; dl < 2 * t->nlinks; dl++)
			if (gb_topo_default_limit(t, dl) < 64)
				abort();
	if (t->root < 0 || t->root >= t->nhosts)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gb_topo *t = NULL;
	struct gb_diag d;
	int r = gb_topo_parse((const char *)data, size, "fuzz.yaml", &t, &d);

	if (r == 0) {
		if (!t)
			abort();
		check_model(t);
		gb_topo_free(t);
		return 0;
	}
	if (t)
		abort();
	if (r == -EINVAL && (d.line < 1 || d.col < 1 || !d.msg[0] || strchr(d.msg, '\n') ||
			     strcmp(d.file, "fuzz.yaml")))
		abort();
	return 0;
}
