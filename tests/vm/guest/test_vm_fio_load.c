/* SPDX-License-Identifier: MIT */
/*
 * test_vm_fio_load - fio as the block-I/O baseline and the ISP engines as
 * its neighbours ("normal SSD mode" beside RAG mode, REIS §7.2):
 *   1. fio --ioengine=io_uring_cmd --cmd_type=nvme 4 KiB random reads on
 *      /dev/ng0n1 at QD 1 and 16, alone;
 *   2. the same while four processes keep 16 requests each in flight on
 *      their own rings: two run REIS searches, two RecFlash SLS batches;
 *   3. fio finishes without errors every time, every search result equals
 *      the host reference (reis_ref_search) and every pooled vector the
 *      host reference SLS (reis_rf_sls_ref), bit for bit.
 * Prints fio's p50/p99 completion latency and IOPS idle and under load
 * (the numbers of docs/nvme-cli.md, "fio"); nothing here is timed.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "libreis.h"
#include "libreis_tools.h"
#include "reis_cmp.h"
#include "reis_synth.h"
#include "rf_util.h"

#define DEV "/dev/ng0n1"
#define DID 81
#define TID 82
#define DIM 128
#define N 3000
#define NQ 64
#define RF_ROWS 8000
#define RF_DIM 32
#define QD 16
#define STOP "/tmp/fio-load.stop"
#define FIO_SECONDS "4"

static struct reis_db_image img;
static struct reis_queries q;
static struct rf_tbl tbl;

struct fio_res {
	int error;
	uint64_t ios;
	double iops, p50_us, p99_us;
};

/* The number after "key" : in @s, searched from @from; -1 if absent. */
static double json_num(const char *from, const char *key)
{
	const char *p = strstr(from, key);

	if (!p)
		return -1;
	p = strchr(p + strlen(key), ':');
	return p ? strtod(p + 1, NULL) : -1;
}

static int fio_run(unsigned qd, const char *tag, struct fio_res *r)
{
	static char json[1 << 20];
	char cmd[512], path[64];
	const char *rd, *clat;
	FILE *f;
	size_t n;
	int st;

	snprintf(path, sizeof(path), "/tmp/fio-%s-qd%u.json", tag, qd);
	snprintf(cmd, sizeof(cmd), "fio --name=randread --filename=" DEV
		 " --ioengine=io_uring_cmd --cmd_type=nvme --rw=randread --bs=4k"
		 " --iodepth=%u --size=48M --runtime=" FIO_SECONDS " --time_based"
		 " --randseed=%u --eta=never --output-format=json --output=%s", qd, qd, path);
	st = system(cmd);
	memset(r, 0, sizeof(*r));
	r->error = -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(json, 1, sizeof(json) - 1, f);
	fclose(f);
	json[n] = 0;
	rd = strstr(json, "\"read\" :");
	clat = rd ? strstr(rd, "\"clat_ns\" :") : NULL;
	if (!rd || !clat) {
		fprintf(stderr, "%s: no read/clat_ns in fio's output\n", path);
		return -1;
	}
	r->error = (int)json_num(json, "\"error\"");
	r->ios = (uint64_t)json_num(rd, "\"total_ios\"");
	r->iops = json_num(rd, "\"iops\"");
	r->p50_us = json_num(clat, "\"50.000000\"") / 1000.0;
	r->p99_us = json_num(clat, "\"99.000000\"") / 1000.0;
	printf("fio %-5s QD%-2u: %8.0f IOPS, p50 %8.1f us, p99 %8.1f us, %" PRIu64
	       " reads, error %d, exit %d\n", tag, qd, r->iops, r->p50_us, r->p99_us, r->ios,
	       r->error, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	fflush(stdout);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 && r->error == 0 && r->ios > 0 ? 0 : -1;
}

/* A REIS worker: QD searches in flight until STOP; exit code = wrong (capped). */
static int reis_worker(unsigned id)
{
	struct reis_search_req sr[QD];
	struct reis_search_opts o[QD];
	struct reis_queries sub[QD];
	uint64_t rng = 7000 + id;
	unsigned i, bad = 0, done = 0;
	struct reis_dev *dev;

	if (reis_open(DEV, 0, &dev))
		return 100;
	while (access(STOP, F_OK)) {
		memset(sr, 0, sizeof(sr));
		for (i = 0; i < QD; i++) {
			uint32_t first = (uint32_t)(synth_next(&rng) % (NQ - 2));

			memset(&o[i], 0, sizeof(o[i]));
			o[i].did = DID;
			o[i].k = 1 + (uint32_t)(synth_next(&rng) % 10);
			sub[i] = q;
			sub[i].nq = 1 + (uint32_t)(synth_next(&rng) % 2);
			sub[i].bin = q.bin + (size_t)first * (DIM / 8);
			sub[i].int8 = q.int8 + (size_t)first * DIM;
			if (reis_search_submit(dev, &sr[i], REIS_OP_SEARCH, &o[i], &sub[i], NULL,
					       NULL))
				return 101;
		}
		for (i = 0; i < QD; i++) {
			const struct reis_db_image *one[1] = { &img };
			struct reis_search_result want;

			if (reis_search_wait(dev, &sr[i])) {
				fprintf(stderr, "reis %u: %s\n", id, sr[i].msg);
				bad++;
				continue;
			}
			if (reis_ref_search(one, 1, 0, &o[i], &sub[i], &want))
				return 102;
			bad += reis_cmp_results("reis", &sr[i].res, &want, 0);
			reis_search_result_free(&want);
			reis_search_result_free(&sr[i].res);
			done++;
		}
	}
	reis_close(dev);
	printf("reis worker %u: %u searches, %u wrong\n", id, done, bad);
	return bad > 99 ? 99 : (int)bad;
}

/* Odd batches carry weights; every third pools by the mean. */
static uint32_t rf_flags(unsigned i)
{
	return (i % 2 ? REIS_RF_SLS_WEIGHTED : 0) | (i % 3 ? 0 : REIS_RF_SLS_MEAN);
}

/* A RecFlash worker: QD SLS batches in flight until STOP. */
static int rf_worker(unsigned id)
{
	static struct rf_batch bt[QD];
	static struct reis_rf_sls_op op[QD];
	static float out[QD][32 * RF_DIM], ref[32 * RF_DIM];
	unsigned i, round = 0, bad = 0, done = 0;
	struct reis_dev *dev;
	int ret;

	if (reis_open(DEV, 0, &dev))
		return 100;
	while (access(STOP, F_OK)) {
		for (i = 0; i < QD; i++) {
			rf_batch_make(&bt[i], 1000u * id + round * QD + i, 32, 12, 0, RF_ROWS, i % 2);
			reis_rf_sls_op_init(&op[i], TID, RF_DIM, &bt[i].b, rf_flags(i), out[i]);
			ret = reis_rf_sls_submit(dev, &op[i]);
			if (ret) {
				fprintf(stderr, "rf %u: submit: %s\n", id, reis_strerror(ret));
				return 101;
			}
		}
		for (i = 0; i < QD; i++) {
			if (reis_rf_sls_wait(dev, &op[i], -1)) {
				fprintf(stderr, "rf %u: %s\n", id, reis_strerror(op[i].err));
				bad++;
			} else {
				reis_rf_sls_ref(tbl.dtype, RF_ROWS, RF_DIM, tbl.wire, &bt[i].b,
						rf_flags(i), ref);
				bad += rf_diff(out[i], ref, 32 * RF_DIM) != 0;
				done++;
			}
			rf_batch_free(&bt[i]);
		}
		round++;
	}
	reis_close(dev);
	printf("rf worker %u: %u batches, %u wrong\n", id, done, bad);
	return bad > 99 ? 99 : (int)bad;
}

static void deploy(struct reis_dev *dev)
{
	float *x = synth_vectors(31, N, DIM, 16, 0.5f), *qf = synth_vectors(32, NQ, DIM, 16, 0.5f);
	struct reis_build_opts o;
	char err[256];

	REQUIRE(x && qf);
	memset(&o, 0, sizeof(o));
	o.did = DID;
	o.kind = REIS_DB_BF;
	o.flags = REIS_BUILD_INT8;
	o.name = "fio-load";
	if (reis_db_build(&o, x, N, DIM, &img, err, sizeof(err))) {
		fprintf(stderr, "build: %s\n", err);
		exit(T_EXIT_FAIL);
	}
	REQUIRE(reis_encode_queries(img.quant, qf, NQ, &q) == 0);
	free(x);
	free(qf);
	reis_db_delete(dev, DID);	/* leftovers of an earlier run */
	REQUIRE(reis_db_deploy(dev, &img, NULL) == 0);
	REQUIRE(rf_tbl_make(&tbl, TID, RF_ROWS, RF_DIM, REIS_RF_FP32, REIS_RF_RECFLASH, 33) == 0);
	reis_rf_delete(dev, TID);
	REQUIRE(rf_tbl_deploy(dev, &tbl, NULL) == 0);
}

int main(void)
{
	static const unsigned qds[2] = { 1, QD };
	struct fio_res idle[2], load[2];
	struct reis_dev *dev;
	pid_t pid[4];
	unsigned i;
	int ret;

	if (access(DEV, F_OK))
		SKIP(DEV " absent");
	if (access("/bin/fio", X_OK))
		SKIP("fio is not in the guest image");
	ret = reis_open(DEV, 0, &dev);
	if (ret)
		SKIP("reis_open: %s", reis_strerror(ret));
	if (!(reis_dev_info(dev)->caps & REIS_CAP_REIS) ||
	    !(reis_dev_info(dev)->caps & REIS_CAP_RECFLASH))
		SKIP("the drive lacks the REIS or RecFlash engine");
	deploy(dev);
	unlink(STOP);

	for (i = 0; i < 2; i++)
		CHECK(fio_run(qds[i], "idle", &idle[i]) == 0);

	fflush(NULL);
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		REQUIRE(pid[i] >= 0);
		if (pid[i] == 0)
			_exit(i < 2 ? reis_worker(i) : rf_worker(i));
	}
	sleep(1);	/* let the workers fill their queues */
	for (i = 0; i < 2; i++)
		CHECK(fio_run(qds[i], "load", &load[i]) == 0);
	{
		FILE *f = fopen(STOP, "w");

		REQUIRE(f);
		fclose(f);
	}
	for (i = 0; i < 4; i++) {
		int st;

		REQUIRE(waitpid(pid[i], &st, 0) == pid[i]);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "worker %u: status %d\n", i, st);
			t_failures++;
		}
	}
	for (i = 0; i < 2; i++)
		printf("fio 4 KiB randread QD%u: p50 %.1f -> %.1f us, p99 %.1f -> %.1f us, "
		       "%.0f -> %.0f IOPS (idle -> under ISP load)\n", qds[i], idle[i].p50_us,
		       load[i].p50_us, idle[i].p99_us, load[i].p99_us, idle[i].iops,
		       load[i].iops);
	unlink(STOP);
	reis_db_delete(dev, DID);
	reis_rf_delete(dev, TID);
	reis_close(dev);
	return t_result();
}
