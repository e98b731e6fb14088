/* SPDX-License-Identifier: MIT */
/*
 * mpi_hello - each rank prints where it runs, for t/1101-mpirun-basic.t:
 *
 *   rank R of N host GRIDBED_NODE data ADDR job GRIDBED_JOB prefix GRIDBED_PREFIX
 *   map GRIDBED_RANKMAP
 *
 * ADDR is the IPv4 address of the rank's data interface (d*) as the kernel
 * sees it (getifaddrs), so the test can check that rank R really runs inside
 * host R's namespace.  Lines are gathered to rank 0 and printed in rank
 * order, so the output is deterministic.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 512

static void data_addr(char *buf, size_t len)
{
	struct ifaddrs *ifa = NULL;
	snprintf(buf, len, "none");
	if (getifaddrs(&ifa) < 0)
		return;
	for (struct ifaddrs *i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && i->ifa_name[0] == 'd') {
			inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf,
				  (socklen_t)len);
			break;
		}
	freeifaddrs(ifa);
}

int main(int argc, char **argv)
{
	int rank, size;
	char line[LINE], addr[64], *all = NULL;
	const char *node = getenv("GRIDBED_NODE"), *job = getenv("GRIDBED_JOB");
	const char *prefix = getenv("GRIDBED_PREFIX"), *map = getenv("GRIDBED_RANKMAP");

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	data_addr(addr, sizeof(addr));
	snprintf(line, sizeof(line), "rank %d of %d host %s data %s job %s prefix %s map %s", rank,
		 size, node ? node : "none", addr, job ? job : "none", prefix ? prefix : "none",
		 map ? map : "none");
	if (rank == 0 && !(all = malloc((size_t)size * LINE)))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Gather(line, LINE, MPI_CHAR, all, LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		for (int r = 0; r < size; r++)
			printf("%s\n", all + (size_t)r * LINE);
		fflush(stdout);
		free(all);
	}
	MPI_Finalize();
	return 0;
}
