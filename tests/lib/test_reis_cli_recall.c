/* SPDX-License-Identifier: MIT */
/*
 * test_reis_cli_recall - a target recall the calibration cannot reach: the
 * drive reports the table's best point in DB_INFO (reis_db_info()
 * best_recall, the last calibrated point), and `reis search --recall R`
 * above it warns with that best recall and the nprobe used, while a
 * reachable target, an explicit --nprobe or a brute-force search says
 * nothing. `reis info` states the real database limits.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "libreis_tools.h"
#include "reis_synth.h"

#define DIM 64
#define N 2000

static char dir[] = "/tmp/test_reis_cli_recall.XXXXXX";
static char cli[PATH_MAX + 32], out[1 << 16];

static int run(const char *args)
{
	char cmd[PATH_MAX * 4];

	snprintf(cmd, sizeof(cmd), "%s --inproc --backing %s/flash.img %s 2>&1 >/dev/null", cli,
		 dir, args);
	return cli_capture(cmd, out, sizeof(out));
}

int main(void)
{
	float *x = synth_vectors(21, N, DIM, 30, 0.6f), *cq = synth_vectors(22, 40, DIM, 30, 0.6f);
	char base[64], calib[64], args[PATH_MAX * 2], want[96], path[96];
	struct reis_inproc_opts io;
	struct reis_db_info info;
	struct reis_dev *dev;

	REQUIRE(x && cq);
	if (cli_find(cli, sizeof(cli)))
		SKIP("reis CLI not built");
	REQUIRE(mkdtemp(dir));
	snprintf(base, sizeof(base), "%s/base.fvecs", dir);
	snprintf(calib, sizeof(calib), "%s/calib.fvecs", dir);
	REQUIRE(reis_fvecs_write(base, x, N, DIM) == 0);
	REQUIRE(reis_fvecs_write(calib, cq, 40, DIM) == 0);
	snprintf(args, sizeof(args), "deploy --did 3 --ivf 30 --int8 --calib %s %s", calib, base);
	REQUIRE(run(args) == 0);
	snprintf(args, sizeof(args), "deploy --did 4 --int8 %s", base);
	REQUIRE(run(args) == 0);

	/* What the drive reports: the table's last point. */
	memset(&io, 0, sizeof(io));
	snprintf(path, sizeof(path), "%s/flash.img", dir);
	io.backing = path;
	REQUIRE(reis_open_inproc(&io, &dev) == 0);
	REQUIRE(reis_db_info(dev, 3, &info) == 0);
	CHECK(info.ncalib > 0 && info.best_recall > 0 && info.best_recall < 10000);
	REQUIRE(reis_db_info(dev, 4, &info) == 0);
	CHECK(info.best_recall == 0);		/* brute force: no table */
	REQUIRE(reis_db_info(dev, 3, &info) == 0);
	reis_close(dev);

	snprintf(args, sizeof(args), "search --did 3 --recall 0.9999 %s", calib);
	CHECK(run(args) == 0);
	snprintf(want, sizeof(want), "best calibrated recall of database 3 is %.4f",
		 info.best_recall / 1e4);
	CHECK(strstr(out, "target recall 0.9999 is unreachable") != NULL);
	CHECK(strstr(out, want) != NULL);
	if (!strstr(out, want))
		fprintf(stderr, "%s\n", out);
	snprintf(args, sizeof(args), "search --did 3 --recall %.4f %s",
		 (info.best_recall - 1) / 1e4, calib);
	CHECK(run(args) == 0 && !strstr(out, "warning"));
	snprintf(args, sizeof(args), "search --did 3 --nprobe 2 %s", calib);
	CHECK(run(args) == 0 && !strstr(out, "warning"));
	snprintf(args, sizeof(args), "search --did 4 %s", calib);
	CHECK(run(args) == 0 && !strstr(out, "warning"));

	/* `reis info` gives the real database limits: small databases share
	 * SLC stripes, so the R-DB's 256 entries bound them here. */
	snprintf(args, sizeof(args), "%s --inproc --backing %s/flash.img info 2>&1", cli, dir);
	CHECK(cli_capture(args, out, sizeof(out)) == 0);
	{
		const char *l = strstr(out, "databases      ");
		unsigned nd = 0, mx = 0, room = 0;

		CHECK(l && sscanf(l, "databases      %u of %u REIS databases, room for %u",
				  &nd, &mx, &room) == 3);
		CHECK(nd >= 2 && mx == 256 && nd + room == 256);
		if (nd + room != 256)
			fprintf(stderr, "%s\n", out);
		CHECK(strstr(out, "a database under a block stripe takes rows of 4194304 bytes"));
	}

	unlink(base);
	unlink(calib);
	unlink(path);
	rmdir(dir);
	free(x);
	free(cq);
	return t_result();
}
