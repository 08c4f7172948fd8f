/* SPDX-License-Identifier: MIT */
/*
 * rss_t.h - this process's resident memory, for the tests that hold host
 * memory flat (docs/reis-engine.md §7.1, "Host memory"). Header only.
 */
#ifndef TESTS_RSS_T_H
#define TESTS_RSS_T_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Bytes of the /proc/self/status line @key ("VmRSS:", "RssAnon:",
 * "RssFile:", "RssShmem:"), or 0 when unknown (not Linux). */
static inline uint64_t rss_status_bytes(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long kb = 0;
	size_t kl = strlen(key);
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && sscanf(line + kl, "%llu", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

#endif /* TESTS_RSS_T_H */
