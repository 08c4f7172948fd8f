/* SPDX-License-Identifier: MIT */
/*
 * test_lib_basic - libreis against the emulated drive in the VM, through
 * io_uring passthrough (forced: no silent fallback) and again through the
 * NVME_IOCTL_IO64_CMD transport: open /dev/ng0n1 (REIS_TEST_DEV overrides),
 * identify, NOOP with its modeled time, ECHO in both directions up to
 * max_xfer, 32 mixed requests in flight with their callbacks, a stream over
 * several max_xfer chunks, statistics, and discovery. Skips when the drive
 * is absent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "libreis.h"

#define INFLIGHT 32

struct slot {
	struct reis_req req;
	unsigned calls;
	uint32_t seed, len;
	uint8_t *buf;
};

static void slot_cb(struct reis_req *req, void *arg)
{
	struct slot *s = arg;

	CHECK(req == &s->req);
	s->calls++;
}

static void basics(struct reis_dev *dev)
{
	const struct reis_info *in = reis_dev_info(dev);
	struct reis_info id;
	uint32_t max = reis_max_xfer(dev);
	uint32_t sizes[] = { 4, 4096, 65536, max };
	uint8_t *buf = aligned_alloc(4096, max), *ref = malloc(max);
	unsigned i;

	REQUIRE(buf && ref);
	REQUIRE(reis_identify(dev, &id) == 0);
	CHECK_EQ_U64(id.ver_major, 1);
	CHECK(id.max_xfer >= REIS_IDENTIFY_LEN && id.max_xfer <= REIS_MAX_XFER_CAP);
	CHECK(max >= REIS_IDENTIFY_LEN && max <= id.max_xfer);
	CHECK(id.preset[0] != 0);
	CHECK(id.channels > 0 && id.dies_per_channel > 0 && id.planes_per_die > 0);
	CHECK(id.caps & REIS_CAP_ECHO);
	printf("%s via %s: preset %s, max_xfer %u (host %u), %u ch x %u dies x %u planes\n",
	       reis_path(dev), reis_transport(dev), id.preset, id.max_xfer, max,
	       id.channels, id.dies_per_channel, id.planes_per_die);

	for (i = 0; i < 20; i++) {
		CHECK(reis_noop(dev) == 0);
		CHECK(reis_last_cpl(dev)->time_ns >= in->ctrl_cmd_ns);
		CHECK(reis_last_cpl(dev)->host_ns > 0);
	}
	printf("noop: modeled %llu ns, host round trip %llu ns\n",
	       (unsigned long long)reis_last_cpl(dev)->time_ns,
	       (unsigned long long)reis_last_cpl(dev)->host_ns);

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i];

		CHECK(reis_echo(dev, REIS_DIR_H2C, 77 + 2 * i, buf, len) == 0);
		CHECK(reis_last_cpl(dev)->time_ns >= in->ctrl_cmd_ns);
		memset(buf, 0, len);
		CHECK(reis_echo(dev, REIS_DIR_C2H, 99 + 2 * i, buf, len) == 0);
		reis_pattern(99 + 2 * i, ref, len);
		CHECK(memcmp(buf, ref, len) == 0);
		if (t_failures)
			fprintf(stderr, "echo %u bytes: %s\n", len, reis_last_error(dev));
	}
	/* The drive checks H2C data: a flipped bit is an ISP Miscompare. */
	reis_pattern(5, buf, 4096);
	buf[100] ^= 1;
	{
		struct reis_req r;

		reis_prep_echo(&r, REIS_DIR_H2C, 5, buf, 4096);
		CHECK(reis_exec(dev, &r) == -EILSEQ);
		CHECK_EQ_U64(r.cpl.status, REIS_SC_MISCOMPARE | REIS_STATUS_DNR);
	}
	free(buf);
	free(ref);
}

static void async32(struct reis_dev *dev)
{
	struct slot s[INFLIGHT];
	struct reis_req *ptrs[INFLIGHT];
	uint8_t *ref = malloc(65536);
	unsigned i, got = 0;

	REQUIRE(ref);
	for (i = 0; i < INFLIGHT; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].seed = 0x5000 + 2 * i;
		s[i].len = 4096u * (1 + i % 16);
		s[i].buf = aligned_alloc(4096, 65536);
		REQUIRE(s[i].buf);
		if (i % 3 == 0) {
			reis_prep_noop(&s[i].req);
		} else if (i % 3 == 1) {
			memset(s[i].buf, 0, s[i].len);
			reis_prep_echo(&s[i].req, REIS_DIR_C2H, s[i].seed, s[i].buf, s[i].len);
		} else {
			reis_pattern(s[i].seed, s[i].buf, s[i].len);
			reis_prep_echo(&s[i].req, REIS_DIR_H2C, s[i].seed, s[i].buf, s[i].len);
		}
		reis_req_set_cb(&s[i].req, slot_cb, &s[i]);
		ptrs[i] = &s[i].req;
	}
	CHECK_EQ_U64(reis_submitv(dev, ptrs, INFLIGHT), INFLIGHT);
	while (got < INFLIGHT) {
		int n = reis_wait(dev, 1, 30000);

		if (n <= 0) {
			fprintf(stderr, "wait: %s\n", reis_strerror(n));
			CHECK(n > 0);
			break;
		}
		got += (unsigned)n;
	}
	for (i = 0; i < INFLIGHT; i++) {
		char msg[128];

		CHECK_EQ_U64(s[i].calls, 1);
		if (s[i].req.cpl.err)
			fprintf(stderr, "req %u: %s\n", i,
				reis_req_strerror(&s[i].req, msg, sizeof(msg)));
		CHECK_EQ_U64(s[i].req.cpl.err, 0);
		if (i % 3 == 1) {
			reis_pattern(s[i].seed, ref, s[i].len);
			CHECK(memcmp(ref, s[i].buf, s[i].len) == 0);
		}
		free(s[i].buf);
	}
	free(ref);
}

static int seed_prep(struct reis_cmd *cmd, uint64_t off, uint32_t len, int last, void *arg)
{
	(void)len; (void)last; (void)arg;
	cmd->cdw12 = (uint32_t)(off / 4) * 2 + 2;
	return 0;
}

static void stream(struct reis_dev *dev)
{
	uint32_t max = reis_max_xfer(dev);
	uint64_t len = 3ull * max + 12, pos;
	uint8_t *buf = aligned_alloc(4096, (len + 4095) & ~4095ull);
	uint8_t *ref = malloc(len);
	struct reis_stream s;

	REQUIRE(buf && ref);
	for (pos = 0; pos < len; pos += max)
		reis_pattern((uint32_t)(pos / 4) * 2 + 2, ref + pos,
			     len - pos < max ? len - pos : max);
	memset(&s, 0, sizeof(s));
	s.opcode = REIS_OP_ECHO_C2H;
	s.depth = 4;
	s.prep = seed_prep;
	CHECK(reis_stream_c2h(dev, &s, buf, len) == 0);
	CHECK_EQ_U64(s.ncmds, 4);
	CHECK(memcmp(buf, ref, len) == 0);
	s.opcode = REIS_OP_ECHO_H2C;
	s.depth = 1;
	CHECK(reis_stream_h2c(dev, &s, ref, len) == 0);
	CHECK_EQ_U64(s.done_bytes, len);
	free(buf);
	free(ref);
}

static void stats(struct reis_dev *dev)
{
	struct reis_stats a, b;
	unsigned i;

	REQUIRE(reis_stats(dev, 0, &a) == 0);
	for (i = 0; i < 10; i++)
		CHECK(reis_noop(dev) == 0);
	REQUIRE(reis_stats(dev, 0, &b) == 0);
	/* Other processes may use the drive too: at least ours are counted. */
	CHECK(b.cmds[REIS_CLS_DEVICE] - a.cmds[REIS_CLS_DEVICE] >= 10);
}

static void run(const char *path, uint32_t flags, const char *want)
{
	struct reis_dev *dev;
	int ret;

	ret = reis_open(path, flags, &dev);
	if (ret) {
		fprintf(stderr, "reis_open(%s, %s): %s\n", path, want, reis_strerror(ret));
		CHECK(ret == 0);
		return;
	}
	CHECK(strcmp(reis_transport(dev), want) == 0);
	basics(dev);
	async32(dev);
	stream(dev);
	stats(dev);
	{
		struct reis_dev *c;

		CHECK(reis_clone(dev, &c) == 0);
		if (c) {
			CHECK(strcmp(reis_transport(c), want) == 0);
			CHECK(reis_noop(c) == 0);
			reis_close(c);
		}
	}
	reis_close(dev);
}

/* A handle opened with queue depth 4: four requests go in flight, a fifth
 * submission is refused with -EBUSY until one is reaped; the depth holds for
 * clones. */
static void small_qd(const char *path, uint32_t flags)
{
	struct reis_req r[5];
	struct reis_dev *dev, *c;
	unsigned i;
	int n, got = 0;

	n = reis_open_qd(path, flags, 4, &dev);
	if (n) {
		fprintf(stderr, "reis_open_qd(%s, 4): %s\n", path, reis_strerror(n));
		CHECK(n == 0);
		return;
	}
	CHECK_EQ_U64(reis_qdepth(dev), 4);
	for (i = 0; i < 5; i++)
		reis_prep_noop(&r[i]);
	for (i = 0; i < 4; i++)
		CHECK(reis_submit(dev, &r[i]) == 0);
	CHECK(reis_submit(dev, &r[4]) == -EBUSY);
	while (got < 4) {
		n = reis_wait(dev, 1, 30000);
		CHECK(n > 0);
		if (n <= 0)
			break;
		got += n;
	}
	CHECK(reis_submit(dev, &r[4]) == 0);
	CHECK(reis_wait(dev, 1, 30000) == 1);
	for (i = 0; i < 5; i++)
		CHECK(r[i].cpl.status == 0 && r[i].cpl.err == 0);
	CHECK(reis_clone(dev, &c) == 0);
	if (c) {
		CHECK_EQ_U64(reis_qdepth(c), 4);
		reis_close(c);
	}
	reis_close(dev);
}

int main(void)
{
	const char *path = getenv("REIS_TEST_DEV") ? getenv("REIS_TEST_DEV") : "/dev/ng0n1";
	struct reis_disc d[8];
	int n, i, seen = 0;

	if (access(path, F_OK))
		SKIP("%s absent", path);
	run(path, REIS_OPEN_URING, "io_uring");
	run(path, REIS_OPEN_IOCTL, "ioctl");
	small_qd(path, REIS_OPEN_URING);
	small_qd(path, REIS_OPEN_IOCTL);

	n = reis_discover(d, 8, 0);
	CHECK(n >= 1);
	for (i = 0; i < n && i < 8; i++)
		if (!strcmp(d[i].path, path))
			seen = 1;
	CHECK(seen || strncmp(path, "/dev/ng", 7));
	return t_result();
}
