/* SPDX-License-Identifier: MIT */
/*
 * test_lib_errors - the error model. Requests libreis can judge (length
 * over max_xfer, not a multiple of 4, data against the opcode's direction,
 * bidirectional opcodes) fail with -EINVAL before anything is submitted;
 * raw commands the drive refuses surface their NVMe status (0x4001 for an
 * unknown opcode, ...) with the mapped errno, the modeled cost and a
 * readable message; the status and errno strings are complete.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isp_dev.h"
#include "libreis.h"

static uint64_t sum(const uint64_t *v, unsigned n)
{
	uint64_t s = 0;

	while (n--)
		s += v[n];
	return s;
}

/* Commands the drive counted since the last call (minus our ISP_STATS). */
static uint64_t drive_cmds(struct reis_dev *dev, uint64_t *errs)
{
	static uint64_t last_cmds, last_errs;
	struct reis_stats st;
	uint64_t c, e, dc, de;

	REQUIRE(reis_stats(dev, 0, &st) == 0);
	/* on the standard path each vendor command is one Execute Program */
	c = sum(st.cmds, REIS_CLS_N) + st.std_cmds[REIS_STD_CLS_EXEC];
	e = sum(st.errors, REIS_CLS_N) + st.std_errors[REIS_STD_CLS_EXEC];
	dc = c - last_cmds;
	de = e - last_errs;
	last_cmds = c;
	last_errs = e;
	if (errs)
		*errs = de;
	return dc ? dc - 1 : 0;	/* the previous ISP_STATS counts after its snapshot */
}

static void check_rejected_before_submit(struct reis_dev *dev)
{
	uint32_t max = reis_max_xfer(dev);
	uint8_t *buf = malloc(max + 8);
	struct reis_req r;

	REQUIRE(buf);
	drive_cmds(dev, NULL);

	reis_prep_echo(&r, REIS_DIR_C2H, 1, buf, max + 4);
	CHECK(reis_submit(dev, &r) == -EINVAL);
	CHECK(strstr(reis_last_error(dev), "max_xfer") != NULL);
	CHECK(!reis_req_inflight(&r));
	CHECK(reis_exec(dev, &r) == -EINVAL);
	CHECK_EQ_U64(reis_last_cpl(dev)->err, -EINVAL);
	CHECK_EQ_U64(reis_last_cpl(dev)->status, 0);

	reis_prep_echo(&r, REIS_DIR_H2C, 1, buf, 4094);
	CHECK(reis_submit(dev, &r) == -EINVAL);
	CHECK(strstr(reis_last_error(dev), "multiple of 4") != NULL);

	reis_prep_echo(&r, REIS_DIR_H2C, 1, NULL, 4096);
	CHECK(reis_submit(dev, &r) == -EINVAL);

	reis_prep_echo(&r, REIS_DIR_C2H, 1, buf, 0);
	CHECK(reis_submit(dev, &r) == -EINVAL);

	reis_prep_cmd(&r, REIS_OP_NOOP, buf, 4);
	CHECK(reis_submit(dev, &r) == -EINVAL);

	reis_prep_cmd(&r, 0x83, buf, 4);	/* bidirectional */
	CHECK(reis_submit(dev, &r) == -EINVAL);
	CHECK(strstr(reis_last_error(dev), "bidirectional") != NULL);

	reis_prep_echo(&r, REIS_DIR_C2H, 1, buf, 4096);
	r.cmd.cdw10 = 2048;			/* NDT against data_len */
	CHECK(reis_submit(dev, &r) == -EINVAL);

	reis_prep_noop(&r);
	r.cmd.cdw11 = 1;
	CHECK(reis_submit(dev, &r) == -EINVAL);

	reis_prep_noop(&r);
	r.flags = 0x100;
	CHECK(reis_submit(dev, &r) == -EINVAL);

	CHECK(reis_echo(dev, REIS_DIR_C2H, 1, buf, max + 4) == -EINVAL);
	CHECK(reis_echo(dev, REIS_DIR_NONE, 1, buf, 4096) == -EINVAL);
	CHECK(reis_echo(dev, REIS_DIR_BIDI, 1, buf, 4096) == -EINVAL);
	CHECK(reis_echo(dev, REIS_DIR_H2C, 1, buf, 6) == -EINVAL);
	CHECK(reis_stats(dev, 2, &(struct reis_stats){ 0 }) == -EINVAL);
	CHECK(reis_submit(dev, NULL) == -EINVAL);
	CHECK(reis_submit(NULL, &r) == -EINVAL);

	/* Raw requests are bounded too. */
	{
		struct reis_cmd c;

		memset(&c, 0, sizeof(c));
		c.opcode = REIS_OP_ECHO_C2H;
		c.cdw10 = (max + 4) / 4;
		CHECK(reis_cmd_raw(dev, &c, buf, max + 4, NULL) == -EINVAL);
		CHECK(reis_cmd_raw(dev, &c, buf, 6, NULL) == -EINVAL);
		CHECK(reis_cmd_raw(dev, &c, NULL, 8, NULL) == -EINVAL);
	}
	CHECK_EQ_U64(drive_cmds(dev, NULL), 0);	/* nothing reached the drive */
	free(buf);
}

struct raw_case {
	const char *what;
	uint8_t opcode;
	uint32_t nsid, cdw10, cdw11, cdw12;
	uint32_t len;
	uint16_t status;
	int err;
};

static void check_raw_status(struct reis_dev *dev)
{
	static const struct raw_case cases[] = {
		{ "unknown opcode", 0x84, 0, 0, 0, 0, 0, 0x4001, -EOPNOTSUPP },
		{ "unknown opcode with data", 0xfe, 0, 1, 0, 0, 4, 0x4001, -EOPNOTSUPP },
		{ "bidirectional", 0x83, 0, 0, 0, 0, 0, 0x4001, -EOPNOTSUPP },
		{ "admin-looking opcode", 0x06, 0, 0, 0, 0, 0, 0x4001, -EOPNOTSUPP },
		{ "NDT on a no-data command", REIS_OP_NOOP, 0, 1, 0, 0, 4, 0x4002, -EINVAL },
		{ "no NDT on a data command", REIS_OP_ECHO_C2H, 0, 0, 0, 0, 0, 0x4002, -EINVAL },
		{ "identify CNS 1", REIS_OP_IDENTIFY, 0, 1024, 0, 1, 4096, 0x4002, -EINVAL },
		{ "identify short", REIS_OP_IDENTIFY, 0, 512, 0, 0, 2048, 0x4002, -EINVAL },
		{ "stats bad flags", REIS_OP_STATS, 0, 1024, 0, 4, 4096, 0x4002, -EINVAL },
		{ "NDM set", REIS_OP_NOOP, 0, 0, 1, 0, 0, 0x4002, -EINVAL },
		{ "reserved field", REIS_OP_NOOP, 0, 0, 0, 7, 0, 0x4002, -EINVAL },
		{ "NDT beyond max_xfer", REIS_OP_ECHO_C2H, 0, 0x100000, 0, 0, 4096, 0x4002, -EINVAL },
		{ "NDT beyond the buffer", REIS_OP_ECHO_C2H, 0, 2048, 0, 0, 4096, 0x0004, -EIO },
		{ "broadcast nsid", REIS_OP_NOOP, 0xffffffff, 0, 0, 0, 0, 0x400b, -ENXIO },
	};
	static uint8_t buf[8192] __attribute__((aligned(64)));
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct raw_case *t = &cases[i];
		struct reis_cmd c;
		struct reis_cpl cpl;
		uint64_t errs;
		char want[128];
		int ret;

		memset(&c, 0, sizeof(c));
		c.opcode = t->opcode;
		c.nsid = t->nsid;
		c.cdw10 = t->cdw10;
		c.cdw11 = t->cdw11;
		c.cdw12 = t->cdw12;
		drive_cmds(dev, NULL);
		ret = reis_cmd_raw(dev, &c, t->len ? buf : NULL, t->len, &cpl);
		if (ret != t->err || cpl.status != t->status)
			fprintf(stderr, "case '%s': ret %d status 0x%x\n", t->what, ret,
				cpl.status);
		CHECK(ret == t->err);
		CHECK_EQ_U64(cpl.status, t->status);
		CHECK_EQ_U64(cpl.err, t->err);
		CHECK(memcmp(&cpl, reis_last_cpl(dev), sizeof(cpl)) == 0);
		/* Rejected commands still carry the controller's overhead. */
		if (t->status != 0x0004)
			CHECK(cpl.time_ns >= reis_dev_info(dev)->ctrl_cmd_ns);
		snprintf(want, sizeof(want), "0x%04x", t->status);
		CHECK(strstr(reis_last_error(dev), want) != NULL);
		/* The status by name (libnvme's string up to its description),
		 * then its code: "Invalid Field in Command (status 0x4002, DNR)". */
		{
			const char *sn = reis_status_str(t->status), *colon = strstr(sn, ": ");

			snprintf(want, sizeof(want), "%.*s (status 0x%04x",
				 colon ? (int)(colon - sn) : (int)strlen(sn), sn, t->status);
			CHECK(strstr(reis_last_error(dev), want) != NULL);
		}
		if (t->status & REIS_STATUS_DNR)
			CHECK(strstr(reis_last_error(dev), "DNR") != NULL);
		/* Every error the drive saw is counted as one. */
		if (t->status != 0x0004) {
			CHECK_EQ_U64(drive_cmds(dev, &errs), 1);
			CHECK_EQ_U64(errs, 1);
		}
	}
	/* The handle keeps working after errors. */
	CHECK(reis_noop(dev) == 0);
	CHECK_EQ_U64(reis_last_cpl(dev)->status, 0);
}

static void check_strings(void)
{
	static const uint16_t codes[] = {
		0x0000, 0x0001, 0x0002, 0x0004, 0x0006, 0x000b, 0x0081, 0x07c0,
		0x07c1, 0x07c2, 0x07c3, 0x07c4, 0x07c5, 0x07c6, 0x07c7, 0x07c8,
		0x07c9,
	};
	static const int errnos[] = {
		0, -EOPNOTSUPP, -EINVAL, -EIO, -EIO, -ENXIO, -ENOSPC, -ENOENT,
		-EEXIST, -EBUSY, -EDOM, -ERANGE, -ENODATA, -EBADMSG, -EILSEQ, -EAGAIN,
		-EADDRINUSE,
	};
	static const int lib_errnos[] = {
		-ENODEV, -ENOSYS, -EPROTO, -ETIME, -EDEADLK, -ENOMEM, -EPERM, -EACCES,
	};
	struct reis_req r;
	char buf[160];
	unsigned i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		/*
		 * The drive's own names, with or without DNR: libnvme's "Name:
		 * description" for the generic codes (its "Successful Completion"
		 * for 0), the ISP names for the vendor ones.
		 */
		if (codes[i] >> 8 == 7)
			CHECK(strcmp(reis_status_str(codes[i]), isp_status_name(codes[i])) == 0);
		else if (codes[i])
			CHECK(strncmp(reis_status_str(codes[i]), isp_status_name(codes[i]),
				      strlen(isp_status_name(codes[i]))) == 0 &&
			      reis_status_str(codes[i])[strlen(isp_status_name(codes[i]))] == ':');
		CHECK(strcmp(reis_status_str(codes[i] | REIS_STATUS_DNR),
			     reis_status_str(codes[i])) == 0);
		CHECK(strcmp(reis_status_str(codes[i]), "Unknown Status") != 0);
		CHECK(reis_status_errno(codes[i]) == errnos[i]);
		CHECK(reis_status_errno(codes[i] | REIS_STATUS_DNR) == errnos[i]);
		CHECK(strcmp(reis_strerror(errnos[i]), "unknown error") != 0);
	}
	CHECK(strncmp(reis_status_str(0x4001), "Invalid Command Opcode: ", 24) == 0);
	CHECK(strcmp(reis_status_str(0x47c7), "ISP Miscompare") == 0);
	CHECK(strcmp(reis_status_str(0x07ff), "Vendor Specific Status") == 0);
	/* A code the ISP set does not use still gets libnvme's name. */
	CHECK(strncmp(reis_status_str(0x0281), "Unrecovered Read Error", 22) == 0);
	CHECK(reis_status_errno(0x0123) == -EIO);
	for (i = 0; i < sizeof(lib_errnos) / sizeof(lib_errnos[0]); i++)
		CHECK(strcmp(reis_strerror(lib_errnos[i]), "unknown error") != 0);
	CHECK(strcmp(reis_strerror(0), "success") == 0);
	CHECK(strcmp(reis_strerror(-99999), "unknown error") == 0);
	CHECK(strcmp(reis_strerror(12345), "unknown error") == 0);

	CHECK(strcmp(reis_opcode_name(REIS_OP_NOOP), "ISP_NOOP") == 0);
	CHECK(strcmp(reis_opcode_name(REIS_OP_STATS), "ISP_STATS") == 0);
	CHECK(reis_opcode_name(0x84) == NULL);

	reis_prep_noop(&r);
	CHECK(strcmp(reis_req_strerror(&r, buf, sizeof(buf)), "ISP_NOOP: not submitted") == 0);
	r.priv.state = REIS_REQ_DONE;
	r.cmd.opcode = 0x84;
	r.cpl.status = 0x4001;
	r.cpl.err = -EOPNOTSUPP;
	reis_req_strerror(&r, buf, sizeof(buf));
	CHECK(strcmp(buf, "0x84: Invalid Command Opcode (status 0x4001, DNR)") == 0);
	r.cpl.status = 0;
	r.cpl.err = -EIO;
	CHECK(strcmp(reis_req_strerror(&r, buf, sizeof(buf)), "0x84: I/O error") == 0);
	r.cpl.err = 0;
	r.cmd.opcode = REIS_OP_ECHO_H2C;
	CHECK(strcmp(reis_req_strerror(&r, buf, sizeof(buf)), "ISP_ECHO_H2C: ok") == 0);
	CHECK(strcmp(reis_req_strerror(&r, buf, 5), "ISP_") == 0);	/* truncated */

	CHECK(strcmp(reis_cap_name(REIS_CAP_REIS_IVF), "reis-ivf") == 0);
	CHECK(strcmp(reis_cap_name(REIS_CAP_REIS_META), "reis-meta") == 0);
	CHECK(reis_cap_name(1u << 30) == NULL);
	CHECK(reis_cap_name(3) == NULL);
	CHECK(strcmp(reis_cell_mode_name(REIS_CELL_TLC), "tlc") == 0);
	CHECK(strcmp(reis_cell_mode_name(99), "?") == 0);
	CHECK(strcmp(reis_cmd_class_name(REIS_CLS_N), "?") == 0);
	CHECK(strcmp(reis_res_class_name(REIS_RES_LINK), "link") == 0);
	CHECK(strcmp(reis_res_class_name(REIS_RES_N), "?") == 0);
}

int main(void)
{
	struct reis_dev *dev;

	REQUIRE(reis_open_inproc(NULL, &dev) == 0);
	check_rejected_before_submit(dev);
	check_raw_status(dev);
	reis_close(dev);
	check_strings();
	return t_result();
}
