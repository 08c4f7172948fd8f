/* SPDX-License-Identifier: MIT */
/*
 * cli_util.h - what the reis CLI's command files share: the global context,
 * the JSON writer (one document per command, success or failure), error
 * reporting, option helpers. tools/cli_main.c holds main() and the device
 * commands; each feature adds its commands in its own tools/cli_<feature>.c
 * with a table listed in cli_main.c.
 */
#ifndef CLI_UTIL_H
#define CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libreis.h"

#define EXIT_USAGE 2

struct ctx {
	const char *dev_path;
	int inproc;
	struct reis_inproc_opts iopts;
	uint32_t open_flags;
	int json;
	int warn_volatile;	/* the command changes the drive: warn without --backing */
	struct reis_dev *dev;
	char errbuf[256];
};

struct reis_cli_cmd {
	const char *name;
	const char *summary;
	const char *help;
	int needs_dev;		/* 1: opens the drive first; 2: and changes what it holds */
	int (*fn)(struct ctx *c, int argc, char **argv);
};

struct reis_cli_table {
	const struct reis_cli_cmd *cmds;
	size_t n;
};

/* Each feature's command table, defined in its tools/reis_<feature>.c. */
extern const struct reis_cli_table reis_sls_table;	/* RecFlash */
extern const struct reis_cli_table reis_db_table;	/* REIS */
extern const struct reis_cli_table reis_group_table;	/* device groups */

/*
 * j_init() - start the one JSON document of this run (@on: --json given);
 * j_finish() writes it, or, when @ret is not 0, an error document
 * {"error": MSG, "errno": E, "status": S, "exit": RET} with the last message
 * from cli_err()/usage_err()/fail(), and returns @ret.
 */
void j_init(FILE *out, int on);
int j_finish(int ret);
void j_raw_output(void);
/*
 * cli_err() - "reis: MSG" on stderr; MSG is also the JSON error text (errno
 * EINVAL: bad input); cli_errno() with the errno @err; cli_err_dev() also
 * with the drive's status of the last command on c->dev (a drive command
 * failed with @err).
 */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_err_dev(struct ctx *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* cli_err_dev() for a drive other than c->dev (a group's member). */
void cli_err_on(struct reis_dev *dev, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "reis: warning: @what: what this command writes is gone when it exits" */
void cli_warn_volatile(const char *what);
/*
 * cli_getopt() - getopt_long() for command @cmd (NULL: the global
 * options): an unknown option or a
 * missing value is reported by name (usage_err()) and returned as '?', so
 * a caller's default branch only returns EXIT_USAGE.
 */
struct option;
int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *lo);
void j_sep(const char *key);
void j_str_raw(const char *s);
void j_open(const char *key, char c);
void j_close(char c);
void j_obj(const char *key);
void j_obj_end(void);
void j_arr(const char *key);
void j_arr_end(void);
void j_u64(const char *key, uint64_t v);
void j_i64(const char *key, int64_t v);
void j_dbl(const char *key, double v);
void j_g(const char *key, double v);
void j_str(const char *key, const char *s);
void j_bool(const char *key, int v);
void j_null(const char *key);
int fail(struct ctx *c, const char *what, int err);
/*
 * usage_err() - "reis: MSG (see reis --help)", the JSON error, EXIT_USAGE.
 * Inside a cli_getopt() loop, a MSG about the option just parsed
 * ("--df must be ...") gets ", not 'VALUE'" unless it names the value.
 */
int usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/*
 * open_dev() - open the drive of --dev/--inproc into c->dev; 0 or -errno
 * with the message given. open_dev_exit() - the exit status for its
 * return: EXIT_USAGE when the in-process drive's --preset/--params/--backing
 * were refused (-EINVAL), 1 for any other failure.
 */
int open_dev(struct ctx *c);
int open_dev_exit(const struct ctx *c, int ret);
/* Text output of an in-process drive's counters: say that @what (e.g.
 * "these") count this process only. */
void cli_inproc_counters(const struct ctx *c, const char *what);
/* JSON "counting_since": since when a document's counters count. */
void j_counting_since(const struct ctx *c);
/*
 * cli_load_floats() - the float vectors of a .fvecs/.bvecs/.npy file at @path
 * (an .ivecs of ids is refused); on failure the message names @cmd and the
 * errno goes to --json.
 */
struct reis_vecs;
int cli_load_floats(const char *cmd, const char *path, struct reis_vecs *v);
void print_caps_human(uint64_t caps);
void json_caps(uint64_t caps);
int sub_help(const struct reis_cli_cmd *cmd, int argc, char **argv);

#endif /* CLI_UTIL_H */
