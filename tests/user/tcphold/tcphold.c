// SPDX-License-Identifier: GPL-2.0
/*
 * tcphold: hold local TCP ports the way an unrelated program does.
 *
 * Usage: tcphold LOW HIGH
 *
 * Binds a listening IPv4 TCP socket, without SO_REUSEADDR, to every free
 * port of [LOW, HIGH), prints how many it holds, and keeps them until it
 * is killed.  The iwarp_ports VM case uses it to take most of a narrowed
 * ephemeral port range from under soft iWARP's connections.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int hold(int port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	int s = socket(AF_INET, SOCK_STREAM, 0);

	if (s < 0)
		return -1;
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1)) {
		close(s);
		return -1;
	}
	return s;
}

int main(int argc, char **argv)
{
	int low, high, port, held = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: tcphold LOW HIGH\n");
		return 2;
	}
	low = atoi(argv[1]);
	high = atoi(argv[2]);
	if (low < 1 || high > 65536 || low >= high) {
		fprintf(stderr, "tcphold: bad range %s-%s\n", argv[1], argv[2]);
		return 2;
	}
	for (port = low; port < high; port++)
		if (hold(port) >= 0)
			held++;
	printf("tcphold: holding %d ports\n", held);
	fflush(stdout);
	for (;;)
		pause();
}
