/* SPDX-License-Identifier: MIT */
/*
 * ex_usage.h - the command line the same way in every program of examples/:
 * --help (or -h) prints the usage on stdout and exits 0 before any work; an
 * option the program does not take, or an operand that is not a number
 * where one is wanted, prints the message and the usage on stderr and exits
 * 2 (tests/scripts/test_example_help.sh runs them all).
 */
#ifndef EX_USAGE_H
#define EX_USAGE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ex_help() - answer --help/-h anywhere before "--". */
static inline void ex_help(int argc, char **argv, const char *usage)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			exit(0);
		}
}

/* ex_usage_err() - "PROG: WHAT 'ARG'" and the usage on stderr; exit 2. */
static inline void ex_usage_err(const char *prog, const char *what, const char *arg,
				const char *usage)
{
	fprintf(stderr, "%s: %s '%s'\n%s", prog, what, arg, usage);
	exit(2);
}

/* ex_operands_only() - for a program of operands only: an argument
 * starting with '-' (other than "-" alone) is an unknown option. */
static inline void ex_operands_only(const char *prog, int argc, char **argv,
				    const char *usage)
{
	int i;

	ex_help(argc, argv, usage);
	for (i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1])
			ex_usage_err(prog, "unknown option", argv[i], usage);
}

/* ex_u64() - @s as a whole decimal (or 0x) number in [@min, @max], else
 * bad usage naming @what. */
static inline uint64_t ex_u64(const char *prog, const char *what, const char *s,
			      uint64_t min, uint64_t max, const char *usage)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
		char w[160];

		snprintf(w, sizeof(w), "%s must be %llu..%llu, not", what,
			 (unsigned long long)min, (unsigned long long)max);
		ex_usage_err(prog, w, s, usage);
	}
	return v;
}

#endif /* EX_USAGE_H */
