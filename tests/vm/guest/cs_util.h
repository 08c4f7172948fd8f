/* SPDX-License-Identifier: MIT */
/*
 * cs_util.h - what the guest programs of the `cs` boot (isp=on,isp-cs=on:
 * the memory and compute namespaces beside the NVM one) share: finding a
 * namespace's char device by its NSID (Linux 6.12 scans namespaces in
 * parallel, so the NVM namespace is not always /dev/ng0n1), and running a
 * demo program on one path and keeping the lines that are its answers.
 */
#ifndef CS_UTIL_H
#define CS_UTIL_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CS_MAX_NS 8	/* /dev/ng0n1..8 looked at */

/* The NSID of /dev/ng0n@x, 0 when there is none. */
static inline unsigned cs_ng_nsid(unsigned x)
{
	struct stat st;
	char path[32];
	int fd, id;

	snprintf(path, sizeof(path), "/dev/ng0n%u", x);
	if (stat(path, &st) || !S_ISCHR(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	id = ioctl(fd, NVME_IOCTL_ID);
	close(fd);
	return id > 0 ? (unsigned)id : 0;
}

/* X of the /dev/ng0nX whose NSID is @nsid, 0 when none is. */
static inline unsigned cs_ng_of(unsigned nsid)
{
	unsigned x;

	for (x = 1; x <= CS_MAX_NS; x++)
		if (cs_ng_nsid(x) == nsid)
			return x;
	return 0;
}

/*
 * cs_run - run the shell command @cmd, its output into @out (NUL-terminated,
 * at most @max - 1 bytes) and, for the log, on stdout with the command.
 * Return: its exit status, -1 when it could not run.
 */
static inline int cs_run(const char *cmd, char *out, size_t max)
{
	size_t n = 0, got;
	FILE *p = popen(cmd, "r");
	int st;

	out[0] = 0;
	if (!p)
		return -1;
	while (n + 1 < max && (got = fread(out + n, 1, max - 1 - n, p)) > 0)
		n += got;
	out[n] = 0;
	st = pclose(p);
	printf("$ %s  (exit %d)\n%s\n", cmd, WIFEXITED(st) ? WEXITSTATUS(st) : -1, out);
	fflush(stdout);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* cs_run of @cmd with ISP_PATH=@path (vendor or cp), its errors too. */
static inline int cs_run_path(const char *path, const char *cmd, char *out, size_t max)
{
	char *full = malloc(strlen(cmd) + 64);
	int rc;

	if (!full)
		return -1;
	sprintf(full, "ISP_PATH=%s %s 2>&1", path, cmd);
	rc = cs_run(full, out, max);
	free(full);
	return rc;
}

/*
 * cs_keep_lines - the lines of @in that start with one of @prefixes
 * (NULL-terminated), in order, into @out (NUL-terminated, at most @max - 1
 * bytes).
 * Return: how many were kept.
 */
static inline unsigned cs_keep_lines(const char *in, const char *const *prefixes, char *out,
				     size_t max)
{
	size_t n = 0, len;
	unsigned kept = 0, i;
	const char *eol;

	out[0] = 0;
	for (; *in; in = *eol ? eol + 1 : eol) {
		eol = strchr(in, '\n');
		if (!eol)
			eol = in + strlen(in);
		len = (size_t)(eol - in);
		for (i = 0; prefixes[i]; i++)
			if (!strncmp(in, prefixes[i], strlen(prefixes[i])))
				break;
		if (!prefixes[i] || n + len + 2 > max)
			continue;
		memcpy(out + n, in, len);
		n += len;
		out[n++] = '\n';
		out[n] = 0;
		kept++;
	}
	return kept;
}

/* Occurrences of @needle in @hay. */
static inline unsigned cs_count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

/* Print the first line where @a and @b differ (both NUL-terminated). */
static inline void cs_first_diff(const char *what, const char *a, const char *b)
{
	size_t i = 0, l = 0;

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '\n')
			l = i + 1;
		i++;
	}
	if (!a[i] && !b[i])
		return;
	fprintf(stderr, "%s: vendor and standard path differ at\n  vendor: %.*s\n  cp:     %.*s\n",
		what, (int)strcspn(a + l, "\n"), a + l, (int)strcspn(b + l, "\n"), b + l);
}

#endif
