/* Fuzz target of the launchers' parsers (libFuzzer entry point): the first
 * byte picks what the rest is, an agent's `PORT TOKEN` line as a launcher
 * relays it, or a launcher template split into words for one host. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocecheck/launch.h"
#include "../../launch/launch_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *token = NULL, **argv = NULL;
	unsigned int port = 0;

	if (size < 1 || size > 512) /* lines are at most 160, templates short */
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] & 1) {
		if (rck_launch_parse_line(s, &port, &token)) {
			if (port < 1 || port > 65535 || !token || !*token || strlen(token) > 128)
				abort();
			free(token);
		}
	} else if (rck_launch_argv(s, "h1", NULL, NULL, &argv) == 0 && strcmp(s, "none")) {
		/* A launch always names the host and ends with the agent words. */
		size_t n = 0;
		int host = 0;
		if (!argv)
			abort();
		for (; argv[n]; n++)
			host |= strstr(argv[n], "h1") != NULL;
		if (!host || n < 2)
			abort();
		rck_launch_argv_free(argv);
	}
	free(s);
	return 0;
}
