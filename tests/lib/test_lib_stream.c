/* SPDX-License-Identifier: MIT */
/*
 * test_lib_stream - transfers larger than max_xfer split into chunks: the
 * prep callback sees every chunk's device offset, length and the last flag
 * exactly once; data arrive intact in order with 1 or many in flight (also
 * on worker threads, completing out of order); a failing chunk stops the
 * stream with its status and done_bytes up to it; bad parameters are
 * refused; other requests in flight on the handle are not disturbed.
 * ECHO commands stand in for the deploy and result-read commands to come:
 * chunk i uses the pattern of a seed derived from its offset.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "libreis.h"

struct prep_log {
	uint64_t base;
	uint32_t chunk;
	uint64_t seen_bytes;
	unsigned calls, lasts;
	uint64_t fail_at;	/* offset whose prep fails, or UINT64_MAX */
};

static uint32_t seed_of(uint64_t off)
{
	return (uint32_t)(off / 4) * 2 + 2;	/* distinct under seed | 1 */
}

static int prep(struct reis_cmd *cmd, uint64_t off, uint32_t len, int last, void *arg)
{
	struct prep_log *l = arg;

	CHECK(cmd->cdw10 == len / 4);
	CHECK(cmd->cdw12 == 0 && cmd->cdw13 == 0);
	CHECK(off >= l->base);
	CHECK((off - l->base) % l->chunk == 0);
	if (off == l->fail_at)
		return -ERANGE;
	cmd->cdw12 = seed_of(off);
	l->calls++;
	l->lasts += !!last;
	l->seen_bytes += len;
	return 0;
}

static void fill_expected(uint8_t *buf, uint64_t len, uint64_t base, uint32_t chunk)
{
	uint64_t pos;

	for (pos = 0; pos < len; pos += chunk) {
		uint64_t n = len - pos < chunk ? len - pos : chunk;

		reis_pattern(seed_of(base + pos), buf + pos, n);
	}
}

static void run(struct reis_dev *dev, uint64_t len, uint32_t chunk_req, uint32_t depth,
		uint64_t base)
{
	uint32_t chunk = chunk_req && chunk_req <= reis_max_xfer(dev) ? chunk_req :
			 reis_max_xfer(dev);
	uint8_t *buf = malloc(len), *ref = malloc(len);
	uint64_t nch = (len + chunk - 1) / chunk;
	struct prep_log l = { base, chunk, 0, 0, 0, UINT64_MAX };
	struct reis_stream s;

	REQUIRE(buf && ref);
	fill_expected(ref, len, base, chunk);

	/* C2H: the drive produces every chunk's pattern. */
	memset(&s, 0, sizeof(s));
	s.opcode = REIS_OP_ECHO_C2H;
	s.chunk = chunk_req;
	s.depth = depth;
	s.offset = base;
	s.prep = prep;
	s.arg = &l;
	memset(buf, 0, len);
	CHECK(reis_stream_c2h(dev, &s, buf, len) == 0);
	CHECK(memcmp(buf, ref, len) == 0);
	CHECK_EQ_U64(s.ncmds, nch);
	CHECK_EQ_U64(s.done_bytes, len);
	CHECK_EQ_U64(l.calls, nch);
	CHECK_EQ_U64(l.lasts, 1);
	CHECK_EQ_U64(l.seen_bytes, len);
	CHECK(s.time_ns >= nch * reis_dev_info(dev)->ctrl_cmd_ns);
	CHECK(len < 65536 || s.energy_nj > 0);

	/* H2C: the drive checks every chunk. */
	memset(&l, 0, sizeof(l));
	l.base = base;
	l.chunk = chunk;
	l.fail_at = UINT64_MAX;
	s.opcode = REIS_OP_ECHO_H2C;
	CHECK(reis_stream_h2c(dev, &s, ref, len) == 0);
	CHECK_EQ_U64(s.ncmds, nch);
	CHECK_EQ_U64(s.done_bytes, len);
	CHECK_EQ_U64(l.calls, nch);

	/* A corrupt chunk stops the stream there. */
	if (nch > 3) {
		uint64_t bad = 3;

		ref[bad * chunk + 1] ^= 0x40;
		CHECK(reis_stream_h2c(dev, &s, ref, len) == -EILSEQ);
		CHECK_EQ_U64(s.done_bytes, bad * chunk);
		CHECK_EQ_U64(reis_last_cpl(dev)->status, REIS_SC_MISCOMPARE | REIS_STATUS_DNR);
		CHECK(strstr(reis_last_error(dev), "chunk 3") != NULL);
		CHECK(strstr(reis_last_error(dev), "ISP Miscompare") != NULL);
		if (depth <= 1)
			CHECK_EQ_U64(s.ncmds, bad + 1);
		ref[bad * chunk + 1] ^= 0x40;

		/* A failing prep stops it too, before chunk 2 is sent. */
		l.fail_at = base + 2 * (uint64_t)chunk;
		CHECK(reis_stream_h2c(dev, &s, ref, len) == -ERANGE);
		CHECK_EQ_U64(s.done_bytes, 2 * (uint64_t)chunk);
		l.fail_at = UINT64_MAX;
	}
	free(buf);
	free(ref);
}

static void bad_params(struct reis_dev *dev)
{
	static uint8_t buf[4096];
	struct reis_stream s;

	memset(&s, 0, sizeof(s));
	s.opcode = REIS_OP_ECHO_H2C;
	CHECK(reis_stream_c2h(dev, &s, buf, sizeof(buf)) == -EINVAL);	/* direction */
	s.opcode = REIS_OP_ECHO_C2H;
	CHECK(reis_stream_h2c(dev, &s, buf, sizeof(buf)) == -EINVAL);
	CHECK(reis_stream_c2h(dev, &s, buf, 4094) == -EINVAL);
	s.chunk = 1022;
	CHECK(reis_stream_c2h(dev, &s, buf, sizeof(buf)) == -EINVAL);
	s.chunk = 0;
	s.depth = REIS_STREAM_MAX_DEPTH + 1;
	CHECK(reis_stream_c2h(dev, &s, buf, sizeof(buf)) == -EINVAL);
	s.depth = 0;
	CHECK(reis_stream_c2h(dev, &s, NULL, 8) == -EINVAL);
	CHECK(reis_stream_c2h(dev, &s, buf, 0) == 0);
	CHECK_EQ_U64(s.ncmds, 0);
	/* No prep: the chunk commands go out with zero parameters. */
	CHECK(reis_stream_c2h(dev, &s, buf, sizeof(buf)) == 0);
	CHECK_EQ_U64(s.ncmds, 1);
}

static unsigned noop_calls;

static void noop_cb(struct reis_req *req, void *arg)
{
	(void)arg;
	CHECK_EQ_U64(req->cpl.err, 0);
	noop_calls++;
}

/* Other requests in flight on the handle complete normally around a stream. */
static void with_others(struct reis_dev *dev)
{
	struct reis_req r[8];
	unsigned i;

	noop_calls = 0;
	for (i = 0; i < 8; i++) {
		reis_prep_noop(&r[i]);
		reis_req_set_cb(&r[i], noop_cb, NULL);
		REQUIRE(reis_submit(dev, &r[i]) == 0);
	}
	run(dev, 3u << 20, 256 * 1024, 4, 0);
	while (reis_inflight(dev))
		REQUIRE(reis_wait(dev, 1, 10000) > 0);
	CHECK_EQ_U64(noop_calls, 8);
}

int main(void)
{
	struct reis_inproc_opts o;
	struct reis_dev *dev;

	REQUIRE(reis_open_inproc(NULL, &dev) == 0);
	run(dev, (5u << 20) + 12, 0, 1, 0);		/* max_xfer chunks, in order */
	run(dev, (5u << 20) + 12, 65536 + 4, 8, 1000);	/* odd chunk, 8 in flight */
	run(dev, 1u << 20, 16u << 20, 2, 0);		/* chunk clamps to max_xfer */
	run(dev, 64, 4, 64, 4);				/* tiny chunks, full depth */
	bad_params(dev);
	with_others(dev);
	reis_close(dev);

	/* Worker threads: chunks complete out of order. */
	memset(&o, 0, sizeof(o));
	o.workers = 4;
	o.qdepth = 16;
	REQUIRE(reis_open_inproc(&o, &dev) == 0);
	run(dev, (7u << 20) + 40, 128 * 1024, 16, 0);
	run(dev, (7u << 20) + 40, 128 * 1024, 64, 0);	/* depth capped by qdepth */
	with_others(dev);
	reis_close(dev);
	return t_result();
}
