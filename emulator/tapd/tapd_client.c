// SPDX-License-Identifier: MIT
/*
 * tapd_client.c - gb_tapd_request(): one request/reply exchange with
 * gridemu-tapd over its SOCK_SEQPACKET control socket (protocol in tapd.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "tapd.h"

int gb_tapd_request(const char *ctl_path, const char *req, char *reply, size_t replylen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = {
		.tv_sec = GB_TAPD_TIMEOUT_MS / 1000,
		.tv_usec = (GB_TAPD_TIMEOUT_MS % 1000) * 1000,
	};
	size_t reqlen = strlen(req), used = 0;
	int fd = -1, ret;

	if (!replylen)
		return -EINVAL;
	reply[0] = '\0';
	if (strlen(ctl_path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	if (!reqlen || reqlen > GB_TAPD_REQ_MAX)
		return -EMSGSIZE;
	strcpy(sa.sun_path, ctl_path);

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    send(fd, req, reqlen, MSG_NOSIGNAL) < 0) {
		ret = -errno;
		goto cleanup;
	}

	/* Messages until EOF; a message larger than the room left is
	 * truncated by the kernel, which MSG_TRUNC reports. */
	ret = 0;
	for (;;) {
		char sink[1];
		struct iovec iov;
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (used + 1 < replylen) {
			iov.iov_base = reply + used;
			iov.iov_len = replylen - 1 - used;
		} else {
			iov.iov_base = sink;
			iov.iov_len = sizeof(sink);
		}
		n = recvmsg(fd, &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = (errno == EAGAIN || errno == EWOULDBLOCK) ? -ETIMEDOUT : -errno;
			break;
		}
		if (n == 0)
			break;
		if (iov.iov_base == sink || (mh.msg_flags & MSG_TRUNC)) {
			ret = -EMSGSIZE;
			if (iov.iov_base != sink)
				used = replylen - 1;
			continue;	/* drain to EOF so the daemon is not stuck */
		}
		used += (size_t)n;
	}
	reply[used] = '\0';
	if (!ret)
		ret = (int)used;

cleanup:
	if (fd >= 0)
		close(fd);
	return ret;
}
