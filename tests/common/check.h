/* SPDX-License-Identifier: MIT */
/*
 * check.h - the few macros every test program uses. Exit codes follow
 * liburing's tests: 0 pass, 1 fail, 77 skip.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define T_EXIT_PASS 0
#define T_EXIT_FAIL 1
#define T_EXIT_SKIP 77

static int t_failures;

/* Record a failure and go on, so one run reports every broken assertion. */
#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                           \
			t_failures++;                                      \
		}                                                          \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                   \
	do {                                                                 \
		unsigned long long _a = (unsigned long long)(a);             \
		unsigned long long _b = (unsigned long long)(b);             \
		if (_a != _b) {                                              \
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu != %llu)\n", \
				__FILE__, __LINE__, #a, #b, _a, _b);           \
			t_failures++;                                        \
		}                                                            \
	} while (0)

/* Stop now: the rest of the test cannot run. */
#define REQUIRE(cond)                                                      \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: REQUIRE failed: %s\n",      \
				__FILE__, __LINE__, #cond);                 \
			exit(T_EXIT_FAIL);                                 \
		}                                                          \
	} while (0)

#define SKIP(...)                                                          \
	do {                                                               \
		printf(__VA_ARGS__);                                       \
		printf("\n");                                              \
		exit(T_EXIT_SKIP);                                         \
	} while (0)

static inline int t_result(void)
{
	if (t_failures)
		fprintf(stderr, "%d check(s) failed\n", t_failures);
	return t_failures ? T_EXIT_FAIL : T_EXIT_PASS;
}

#endif /* TESTS_CHECK_H */
