/* SPDX-License-Identifier: MIT */
/*
 * fuzz_isp.c - the command-sequence generator and the invariants shared by
 * the fuzz harnesses (see fuzz_isp.h for the input format).
 */
#include <stddef.h>
#include <time.h>

#include "flash_io.h"
#include "fuzz_isp.h"

/* Entries of a generated database; of a fixture database (paid on every input). */
#define FZ_DB_NMAX 300
#define FZ_FIX_NMAX 40

/* Small geometries: every engine path runs, a deploy costs little. */
static const struct {
	const char *preset, *params;
	int reis;	/* has the ESP-SLC partition REIS deploys into */
} fz_configs[] = {
	{ "reis-ssd1", "blocks_per_plane=24;slc_blocks=12;mem_cap=24m;buf_budget=2m;slm_bytes=2m", 1 },
	{ "recflash-slc", "blocks_per_plane=24;channels=2;dies_per_channel=2;cache_bytes=256k;slm_bytes=1m", 0 },
	{ "recflash-tlc", "blocks_per_plane=16;channels=2;dies_per_channel=1;slc_blocks=8;mem_cap=8m;buf_budget=1m;slm_bytes=2m", 1 },
};
#define FZ_NCONFIGS (sizeof(fz_configs) / sizeof(fz_configs[0]))

/* A drive of geometry @config, in memory or on @image (flash_io.h). */
static struct isp_dev *fz_open_on(int config, struct fio *image)
{
	struct isp_dev_config cfg;
	struct isp_dev *dev = NULL;
	char err[256];
	int ret;

	memset(&cfg, 0, sizeof(cfg));
	cfg.preset = fz_configs[(unsigned)config % FZ_NCONFIGS].preset;
	cfg.params = fz_configs[(unsigned)config % FZ_NCONFIGS].params;
	cfg.max_xfer = FZ_MAX_XFER;
	cfg.image = image;
	ret = isp_dev_open(&cfg, &dev, err, sizeof(err));
	if (ret)
		FZ_FAIL("isp_dev_open(%s): %d %s", cfg.preset, ret, err);
	return dev;
}

struct isp_dev *fz_open(int config)
{
	return fz_open_on(config, NULL);
}

static int fz_known_status(uint16_t code)
{
	static const uint16_t known[] = {
		ISP_SC_SUCCESS, ISP_SC_INVALID_OPCODE, ISP_SC_INVALID_FIELD,
		ISP_SC_DATA_XFER_ERROR, ISP_SC_INTERNAL, ISP_SC_INVALID_NSID,
		ISP_SC_CAP_EXCEEDED, ISP_SC_UNKNOWN_ID, ISP_SC_ID_EXISTS, ISP_SC_BUSY,
		ISP_SC_DIM_MISMATCH, ISP_SC_BAD_OFFSET, ISP_SC_INCOMPLETE,
		ISP_SC_BAD_PAYLOAD, ISP_SC_MISCOMPARE, ISP_SC_RESOURCE,
		ISP_SC_TICKET_IN_USE, ISP_SC_ABORT_REQ,	/* the last: stopped (fz_exec_stopped()) */
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (code == known[i])
			return 1;
	return 0;
}

/* Opcodes whose CDW12 names a database or table. */
static int fz_takes_id(uint8_t opc)
{
	switch (opc) {
	case ISP_OP_REIS_DB_WRITE: case ISP_OP_REIS_DB_INFO: case ISP_OP_REIS_DB_COMMIT:
	case ISP_OP_REIS_META_READ: case ISP_OP_REIS_DB_DELETE: case ISP_OP_REIS_DOC_READ:
	case ISP_OP_RF_TBL_WRITE: case ISP_OP_RF_TBL_STATS: case ISP_OP_RF_TBL_COMMIT:
	case ISP_OP_RF_TBL_DELETE: case ISP_OP_RF_PROFILE: case ISP_OP_RF_REMAP:
	case ISP_OP_RF_SWITCH:
		return 1;
	default:
		return 0;
	}
}

/*
 * Commands run by this process (all harnesses, every thread), and of them
 * the standard interface's: printed at exit, so a run says how many
 * commands its executions sent.
 */
static uint64_t fz_total_cmds, fz_total_cs;

__attribute__((destructor)) static void fz_print_totals(void)
{
	if (fz_total_cmds)
		fprintf(stderr, "fuzz: %llu commands, %llu of them standard-interface\n",
			(unsigned long long)fz_total_cmds, (unsigned long long)fz_total_cs);
}

/* The guest's view: only what a completion shows can be checked. */
static uint16_t fz_exec_xport(struct fz_state *st, struct isp_cmd *c, void *data, size_t len,
			      struct isp_cpl *cpl)
{
	uint64_t dlen = isp_cmd_data_len(c);
	uint8_t *buf = NULL;
	uint16_t s;

	/* a buffer as large as NDT says: the device maps that much */
	if (dlen && dlen <= st->max_xfer) {
		buf = fz_alloc(dlen, 1);
		if (data && isp_wire_dir(c->opcode) != ISP_DIR_C2H)
			memcpy(buf, data, len < dlen ? len : dlen);
	}
	/* a create names its object in the data: keep it in our range too */
	if (buf && dlen >= 4 && (c->opcode == ISP_OP_REIS_DB_CREATE ||
				 c->opcode == ISP_OP_RF_TBL_CREATE)) {
		uint32_t v;

		memcpy(&v, buf, 4);
		if (v < st->id_base || v - st->id_base > 0xffff)
			v = st->id_base + (v & 0xffff);
		memcpy(buf, &v, 4);
	}
	__atomic_add_fetch(&st->cmds, 1, __ATOMIC_RELAXED);
	memset(cpl, 0, sizeof(*cpl));
	s = st->xport(st->xport_arg, c, buf, dlen <= st->max_xfer ? dlen : 0, cpl);
	if (s != cpl->status)
		FZ_FAIL("opc %#x: status %#x, cpl.status %#x", c->opcode, s, cpl->status);
	if (!s)
		__atomic_add_fetch(&st->ok, 1, __ATOMIC_RELAXED);
	if (st->verbose)
		fprintf(stderr, "fz: %#x cdw12 %u len %llu -> %#x\n", c->opcode, c->cdw12,
			(unsigned long long)dlen, s);
	if (buf && data && len && isp_wire_dir(c->opcode) == ISP_DIR_C2H)
		memcpy(data, buf, len < dlen ? len : dlen);
	free(buf);
	return s;
}

struct fz_stopper {
	atomic_int flag;
	uint32_t us;
};

/* From its start, about when the command starts. */
static void *fz_stopper_main(void *arg)
{
	struct fz_stopper *t = arg;
	struct timespec ts = { 0, 0 };

	ts.tv_nsec = (long)t->us * 1000;
	if (t->us)
		nanosleep(&ts, NULL);
	atomic_store(&t->flag, 1);
	return NULL;
}

/* Ticket-taking commands: a stopped one must publish nothing. */
static int fz_makes_result(uint8_t opc)
{
	return opc == ISP_OP_REIS_SEARCH || opc == ISP_OP_REIS_IVF_SEARCH || opc == ISP_OP_RF_SLS;
}

/*
 * @c with isp_dev_exec_cancel(), its flag set by a second thread @us
 * microseconds after the command starts (as the QEMU glue's reset, SQ
 * deletion and Abort do). A stopped command leaves the drive as a failed
 * one: no result under its ticket (checked here unless other threads share
 * the tickets), nothing leaked (fz_cleanup()).
 */
static uint16_t fz_exec_stopped(struct fz_state *st, struct isp_cmd *c, void *buf, size_t len,
				struct isp_cpl *cpl, uint32_t us)
{
	struct fz_stopper t;
	pthread_t th;
	uint16_t s;

	memset(&t, 0, sizeof(t));
	t.us = us;
	if (pthread_create(&th, NULL, fz_stopper_main, &t))
		FZ_FAIL("pthread_create");
	s = isp_dev_exec_cancel(st->dev, c, buf, len, cpl, &t.flag);
	pthread_join(th, NULL);
	if (s != ISP_SC_ABORT_REQ)
		return s;
	__atomic_add_fetch(&st->stopped, 1, __ATOMIC_RELAXED);
	if (fz_makes_result(c->opcode) && c->cdw12 && !st->shared) {
		struct isp_cmd r;
		struct isp_cpl rc;
		uint8_t tmp[64];

		memset(&r, 0, sizeof(r));
		r.opcode = ISP_OP_RESULT_READ;
		r.nsid = 1;
		r.cdw10 = sizeof(tmp) / 4;
		r.cdw12 = c->cdw12;
		r.submit_ns = c->submit_ns;
		if (!isp_dev_exec(st->dev, &r, tmp, sizeof(tmp), &rc))
			FZ_FAIL("opc %#x stopped, yet ticket %u holds a result", c->opcode, c->cdw12);
	}
	return s;
}

/*
 * One command as the glue runs it (hw/nvme/isp.c nvme_isp_admit() and
 * nvme_isp_work()), then the invariants. A command check rejects is also
 * given to exec, which must reject it the same way (isp_dev.h: exec repeats
 * the checks), as long as its buffer can be had.
 */
uint16_t fz_exec(struct fz_state *st, struct isp_cmd *c, void *data, size_t len,
		 struct isp_cpl *cpl)
{
	uint64_t dlen = isp_cmd_data_len(c);
	enum isp_dir dir = isp_wire_dir(c->opcode);
	struct isp_cpl chk;
	uint8_t *buf = NULL;
	uint32_t stop_us;
	uint16_t st0, s;

	c->submit_ns = __atomic_add_fetch(st->clk, 1000000000ull, __ATOMIC_RELAXED);
	if (st->id_base && fz_takes_id(c->opcode) &&
	    (c->cdw12 < st->id_base || c->cdw12 - st->id_base > 0xffff))
		c->cdw12 = st->id_base + (c->cdw12 & 0xffff);	/* others' objects stay */
	if (st->xport)
		return fz_exec_xport(st, c, data, len, cpl);
	memset(&chk, 0x5a, sizeof(chk));
	st0 = isp_dev_check(st->dev, c, &chk);
	if (st0 && st0 != chk.status)
		FZ_FAIL("opc %#x: check returned %#x, cpl.status %#x", c->opcode, st0, chk.status);
	if (!st0 && (dir == ISP_DIR_BIDI || (dir == ISP_DIR_NONE) != (dlen == 0) ||
		     dlen > FZ_MAX_XFER))
		FZ_FAIL("opc %#x: check passed dir %d with %llu bytes", c->opcode, dir,
			(unsigned long long)dlen);
	if (dlen > FZ_MAX_XFER) {
		*cpl = chk;
		return st0;
	}
	__atomic_add_fetch(&st->cmds, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fz_total_cmds, 1, __ATOMIC_RELAXED);
	/* An exact-size buffer: ASan catches a byte past the transfer. */
	if (dlen) {
		buf = fz_alloc(dlen, 0);
		if (dir == ISP_DIR_C2H || !data)
			memset(buf, 0xa5, dlen);
		else {
			memset(buf, 0, dlen);
			memcpy(buf, data, len < dlen ? len : dlen);
		}
	}
	if (st->record && !st0)
		st->record(st->record_arg, c, buf, dlen);
	memset(cpl, 0x5a, sizeof(*cpl));
	stop_us = st->stop_us;
	st->stop_us = 0;
	s = stop_us ? fz_exec_stopped(st, c, buf, dlen, cpl, stop_us - 1) :
		      isp_dev_exec(st->dev, c, buf, dlen, cpl);
	if (s == ISP_SC_ABORT_REQ && !stop_us)
		FZ_FAIL("opc %#x: Command Abort Requested without a stop", c->opcode);
	if (s != cpl->status)
		FZ_FAIL("opc %#x: exec returned %#x, cpl.status %#x", c->opcode, s, cpl->status);
	if (st0 && s != st0)
		FZ_FAIL("opc %#x: check said %#x (%s), exec %#x (%s)", c->opcode, st0,
			chk.err ? chk.err : "-", s, cpl->err ? cpl->err : "-");
	if (!fz_known_status(s & ISP_STATUS_CODE_MASK) || (s & ~(ISP_STATUS_CODE_MASK |
							       ISP_STATUS_DNR)))
		FZ_FAIL("opc %#x: status %#x is not in the command set", c->opcode, s);
	if (cpl->xfer_len > dlen)
		FZ_FAIL("opc %#x: xfer_len %u > buffer %llu", c->opcode, cpl->xfer_len,
			(unsigned long long)dlen);
	if (cpl->xfer_len && dir != ISP_DIR_C2H)
		FZ_FAIL("opc %#x: xfer_len %u on a command without C2H data", c->opcode,
			cpl->xfer_len);
	if (s && cpl->xfer_len)
		FZ_FAIL("opc %#x: status %#x with %u bytes transferred", c->opcode, s,
			cpl->xfer_len);
	if (isp_wire_result_time_ns(cpl->result) != (cpl->model_ns > ISP_RESULT_TIME_MAX ?
						     ISP_RESULT_TIME_MAX : cpl->model_ns))
		FZ_FAIL("opc %#x: result time %llu != model_ns %llu", c->opcode,
			(unsigned long long)isp_wire_result_time_ns(cpl->result),
			(unsigned long long)cpl->model_ns);
	if (!s)
		__atomic_add_fetch(&st->ok, 1, __ATOMIC_RELAXED);
	if (st->verbose)
		fprintf(stderr, "fz: %s(%#x) cdw12 %u cdw13 %u len %llu -> %#x %s\n",
			isp_opcode_name(c->opcode) ? isp_opcode_name(c->opcode) : "?",
			c->opcode, c->cdw12, c->cdw13, (unsigned long long)dlen, s,
			cpl->err ? cpl->err : "");
	if (dir == ISP_DIR_C2H && data && len && dlen)
		memcpy(data, buf, len < dlen ? len : dlen);
	free(buf);
	return s;
}

static struct isp_cmd fz_cmd(uint8_t opc, uint32_t len)
{
	struct isp_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = 1;
	c.cdw10 = (len + 3) / 4;
	return c;
}

static uint16_t fz_nodata(struct fz_state *st, uint8_t opc, uint32_t id)
{
	struct isp_cmd c = fz_cmd(opc, 0);
	struct isp_cpl cpl;

	c.cdw12 = id;
	return fz_exec(st, &c, NULL, 0, &cpl);
}

/* ---- the harness' view of the drive ---- */

/* An id the generator may use: small (collisions wanted) or any. */
static uint32_t fz_id(const struct fz_state *st, struct fz_src *s, uint32_t hi)
{
	return st->id_base + fz_range(s, 1, hi);
}

static struct fz_obj *fz_pick(struct fz_state *st, struct fz_src *s, int rf)
{
	unsigned i, start = fz_u8(s);

	for (i = 0; i < FZ_MAX_OBJS; i++) {
		struct fz_obj *o = &st->obj[(start + i) % FZ_MAX_OBJS];

		if (o->id && o->rf == rf)
			return o;
	}
	return NULL;
}

static struct fz_obj *fz_slot(struct fz_state *st)
{
	unsigned i;

	for (i = 0; i < FZ_MAX_OBJS; i++)
		if (!st->obj[i].id)
			return &st->obj[i];
	return NULL;
}

static void fz_forget(struct fz_obj *o)
{
	free(o->csize);
	free(o->docs);
	memset(o, 0, sizeof(*o));
}

static uint32_t fz_pick_ticket(struct fz_state *st, struct fz_src *s)
{
	uint32_t t = st->ticket[fz_u8(s) % FZ_MAX_TICKETS];

	return t ? t : 1u + fz_u8(s) % 8;
}

static uint32_t fz_new_ticket(struct fz_state *st, struct fz_src *s)
{
	unsigned i = fz_u8(s) % FZ_MAX_TICKETS;

	if (fz_u8(s) < 16)	/* reuse: Ticket In Use */
		return st->ticket[i] ? st->ticket[i] : 1;
	st->ticket[i] = ++st->next_ticket;
	return st->ticket[i];
}

/* REIS database shape from the input: every kind, flag and doc mode. */
/* A database of random shape with at most @nmax entries. */
static void fz_db_shape(struct fz_obj *o, struct fz_src *s, uint32_t did, uint32_t nmax)
{
	struct isp_wire_reis_create *c = &o->c.db;
	uint64_t e, off;
	uint32_t cl;

	memset(o, 0, sizeof(*o));
	o->id = did;
	o->seed = fz_u32(s);
	c->did = did;
	c->kind = fz_u8(s) % 2 ? ISP_REIS_IVF : ISP_REIS_BF;
	c->flags = fz_u8(s) & (ISP_REIS_DBF_INT8 | ISP_REIS_DBF_TAGS | ISP_REIS_DBF_IDS);
	c->dim = 64 * fz_range(s, 1, 4);
	c->n = fz_range(s, 1, nmax);
	c->doc_mode = fz_u8(s) % 3;
	c->metric = fz_u8(s) % 2;
	c->df_threshold = fz_u8(s) % 4 ? 0 : fz_range(s, 1, c->dim);
	c->group = fz_u8(s) % 4 ? 0 : 1 + fz_u8(s) % 2;
	c->timestamp = fz_u8(s);
	snprintf(c->name, sizeof(c->name), "fz%u", did);
	if (c->kind == ISP_REIS_IVF) {
		c->nlist = fz_range(s, 1, 16);
		o->csize = fz_alloc((size_t)c->nlist * 4, 1);
		for (e = 0; e < c->n; e++)
			o->csize[fz_u8(s) % c->nlist]++;
		c->ncalib = fz_u8(s) % 3;
	}
	if (c->doc_mode) {
		uint64_t total = 0;

		for (e = 0; e < c->n; e++)
			total += 4 + (e * 37 + o->seed) % 97;
		o->docs = fz_alloc(total, 0);
		for (e = 0, off = 0; e < c->n; e++) {
			uint32_t dl = (uint32_t)((e * 37 + o->seed) % 97);

			memcpy(o->docs + off, &dl, 4);
			fz_fill(o->docs + off + 4, dl, o->seed, e);
			off += 4 + dl;
		}
		c->docs_bytes = total;
	}
	c->meta_bytes = fz_u8(s) % 4 ? 0 : fz_range(s, 1, 9000);
	o->size[ISP_REIS_SEC_BIN] = c->n * (c->dim / 8);
	o->size[ISP_REIS_SEC_INT8] = c->flags & ISP_REIS_DBF_INT8 ? c->n * c->dim : 0;
	o->size[ISP_REIS_SEC_DOCS] = c->docs_bytes;
	o->size[ISP_REIS_SEC_TAGS] = c->flags & ISP_REIS_DBF_TAGS ? c->n * 4 : 0;
	o->size[ISP_REIS_SEC_IDS] = c->flags & ISP_REIS_DBF_IDS ? c->n * 8 : 0;
	o->size[ISP_REIS_SEC_CENTROIDS] = (uint64_t)c->nlist * (c->dim / 8);
	o->size[ISP_REIS_SEC_CLUSTERS] = (uint64_t)c->nlist * 4;
	o->size[ISP_REIS_SEC_CALIB] = (uint64_t)c->ncalib * 8;
	o->size[ISP_REIS_SEC_META] = c->meta_bytes;
	for (cl = 0; cl < ISP_REIS_NSECTIONS; cl++)
		o->sent[cl] = 0;
}

static uint32_t fz_row_bytes(const struct isp_wire_rf_create *c)
{
	return c->dtype == ISP_RF_FP32 ? c->dim * 4 :
	       c->dtype == ISP_RF_FP16 ? c->dim * 2 : c->dim + 8;
}

static void fz_tbl_sizes(struct fz_obj *o)
{
	const struct isp_wire_rf_create *c = &o->c.tbl;

	o->size[ISP_RF_SEC_ROWS] = (uint64_t)c->rows * fz_row_bytes(c);
	o->size[ISP_RF_SEC_PROFILE] = c->flags & ISP_RF_TF_PROFILE ? (uint64_t)c->rows * 4 : 0;
}

static void fz_tbl_shape(struct fz_obj *o, struct fz_src *s, uint32_t tid)
{
	struct isp_wire_rf_create *c = &o->c.tbl;

	memset(o, 0, sizeof(*o));
	o->id = tid;
	o->rf = 1;
	o->seed = fz_u32(s);
	c->tid = tid;
	c->rows = fz_range(s, 1, 600);
	c->dim = fz_u8(s) % 4 ? 4 * fz_range(s, 1, 32) : fz_range(s, 1, 130);
	c->dtype = 1 + fz_u8(s) % 3;
	c->mode = 1 + fz_u8(s) % 3;
	c->flags = fz_u8(s) % 3 || (c->mode != ISP_RF_RECFLASH && fz_u8(s) % 8) ? 0 :
		   ISP_RF_TF_PROFILE;
	c->trigger = fz_u8(s) % 3;
	c->hot_bp = fz_range(s, 1, 10000);
	c->trigger_ppm = fz_range(s, 1, 1000000);
	c->period = fz_range(s, 1, 64);
	snprintf(c->name, sizeof(c->name), "tb%u", tid);
	fz_tbl_sizes(o);
}

/* Bytes @off.. of section @sec of @o, made on demand. */
static void fz_sec_data(const struct fz_obj *o, uint32_t sec, uint64_t off, uint8_t *p,
			uint32_t n)
{
	uint32_t i;

	if (!o->rf && sec == ISP_REIS_SEC_CLUSTERS && o->csize) {
		memcpy(p, (const uint8_t *)o->csize + off, n);
	} else if (!o->rf && sec == ISP_REIS_SEC_DOCS && o->docs) {
		memcpy(p, o->docs + off, n);
	} else if (!o->rf && sec == ISP_REIS_SEC_CALIB) {
		for (i = 0; i < n; i++) {
			uint64_t b = off + i;	/* {recall, nprobe} ascending */
			uint32_t ent = (uint32_t)(b / 8), w = (uint32_t)(b % 8);
			uint32_t v = w < 4 ? 3000 + 3000 * ent : 1 + ent;

			p[i] = (uint8_t)(v >> (8 * (w % 4)));
		}
	} else if (o->rf && sec == ISP_RF_SEC_ROWS && o->c.tbl.dtype != ISP_RF_INT8) {
		/* finite values: FP16 0x3c00-ish, FP32 small magnitudes */
		fz_fill(p, n, o->seed, off);
		for (i = 0; i < n; i++) {
			uint64_t b = off + i;
			unsigned hi = o->c.tbl.dtype == ISP_RF_FP32 ? (b % 4 == 3) : (b % 2 == 1);

			if (hi)
				p[i] = (uint8_t)(0x3c | (p[i] & 0x80)) & 0xbf;
		}
	} else if (o->rf && sec == ISP_RF_SEC_ROWS) {
		uint32_t rb = fz_row_bytes(&o->c.tbl);

		fz_fill(p, n, o->seed, off);
		for (i = 0; i < n; i++)	/* scale and bias: 0.5f-ish, finite */
			if ((off + i) % rb >= o->c.tbl.dim &&
			    ((off + i) % rb - o->c.tbl.dim) % 4 == 3)
				p[i] = 0x3f;
	} else {
		fz_fill(p, n, o->seed ^ sec, off);
	}
}

/* The next section of @o still to be written, in the order the drive wants. */
static uint32_t fz_next_sec(const struct fz_obj *o)
{
	static const uint32_t reis_order[] = {
		ISP_REIS_SEC_TAGS, ISP_REIS_SEC_BIN, ISP_REIS_SEC_INT8, ISP_REIS_SEC_IDS,
		ISP_REIS_SEC_DOCS, ISP_REIS_SEC_CENTROIDS, ISP_REIS_SEC_CLUSTERS,
		ISP_REIS_SEC_CALIB, ISP_REIS_SEC_META,
	};
	static const uint32_t rf_order[] = { ISP_RF_SEC_PROFILE, ISP_RF_SEC_ROWS };
	const uint32_t *ord = o->rf ? rf_order : reis_order;
	size_t i, n = o->rf ? 2 : sizeof(reis_order) / sizeof(reis_order[0]);

	for (i = 0; i < n; i++)
		if (o->sent[ord[i]] < o->size[ord[i]])
			return ord[i];
	return 0;
}

/* The next chunk of @o's next section: a valid DB_WRITE / TBL_WRITE. */
static uint16_t fz_write_next(struct fz_state *st, struct fz_obj *o, uint32_t chunk,
			      struct isp_cpl *cpl)
{
	uint32_t sec = fz_next_sec(o), n;
	uint8_t *buf;
	uint64_t left;
	struct isp_cmd c;
	uint16_t s;

	if (!sec)
		return 0;
	left = o->size[sec] - o->sent[sec];
	n = left < chunk ? (uint32_t)left : chunk;
	buf = fz_alloc(n + 4, 1);
	fz_sec_data(o, sec, o->sent[sec], buf, n);
	c = fz_cmd(o->rf ? ISP_OP_RF_TBL_WRITE : ISP_OP_REIS_DB_WRITE, n);
	c.cdw12 = o->id;
	c.cdw13 = sec;
	c.cdw14 = (uint32_t)o->sent[sec];
	c.cdw15 = (uint32_t)(o->sent[sec] >> 32);
	s = fz_exec(st, &c, buf, n, cpl);
	if (!s)
		o->sent[sec] += n;
	free(buf);
	return s;
}

static uint16_t fz_create(struct fz_state *st, struct fz_obj *o, struct isp_cpl *cpl)
{
	struct isp_cmd c;

	if (o->rf) {
		c = fz_cmd(ISP_OP_RF_TBL_CREATE, sizeof(o->c.tbl));
		return fz_exec(st, &c, &o->c.tbl, sizeof(o->c.tbl), cpl);
	}
	c = fz_cmd(ISP_OP_REIS_DB_CREATE, sizeof(o->c.db));
	return fz_exec(st, &c, &o->c.db, sizeof(o->c.db), cpl);
}

/* Create, every section, commit: 0 or the first failure's status. */
static uint16_t fz_deploy(struct fz_state *st, struct fz_obj *o, uint32_t chunk)
{
	struct isp_cpl cpl;
	uint16_t s = fz_create(st, o, &cpl);

	while (!s && fz_next_sec(o))
		s = fz_write_next(st, o, chunk, &cpl);
	if (!s)
		s = fz_nodata(st, o->rf ? ISP_OP_RF_TBL_COMMIT : ISP_OP_REIS_DB_COMMIT, o->id);
	if (!s)
		o->ready = 1;
	return s;
}

/* ---- one step ---- */

enum fz_sel {
	FZ_NOOP, FZ_ECHO_H2C, FZ_IDENTIFY, FZ_ECHO_C2H, FZ_STATS, FZ_TRACE_ARM,
	FZ_RESULT_READ, FZ_RESULT_RELEASE,
	FZ_DB_CREATE, FZ_DB_LIST, FZ_DB_WRITE, FZ_DB_INFO, FZ_DB_COMMIT, FZ_SEARCH,
	FZ_META_READ, FZ_DB_DELETE, FZ_IVF_SEARCH, FZ_DOC_READ,
	FZ_TBL_CREATE, FZ_TBL_LIST, FZ_TBL_WRITE, FZ_TBL_STATS, FZ_TBL_COMMIT, FZ_SLS,
	FZ_TBL_DELETE, FZ_PROFILE, FZ_REMAP, FZ_SWITCH,
	FZ_RAW, FZ_DEPLOY_DB, FZ_DEPLOY_TBL, FZ_LITERAL,
	/* the standard interface (fz_cs_step()) */
	FZ_CS_LOAD, FZ_CS_ACT, FZ_CS_MRS_CREATE, FZ_CS_MRS_DELETE, FZ_CS_MEM_WRITE,
	FZ_CS_MEM_READ, FZ_CS_MEM_FILL, FZ_CS_COPY, FZ_CS_EXEC, FZ_CS_FLOW, FZ_CS_IDENTIFY,
	FZ_CS_RAW, FZ_CS_LITERAL,
	FZ_NSEL,
};
#define FZ_CS_FIRST FZ_CS_LOAD
#define FZ_NCS (FZ_NSEL - FZ_CS_FIRST)
_Static_assert(FZ_LITERAL == FZ_SEL_LITERAL && FZ_CS_LITERAL == FZ_SEL_LITERAL_CS &&
	       FZ_NSEL == FZ_NSELECTORS, "fuzz_isp.h's selectors");

static const uint8_t fz_opcodes[FZ_RAW] = {
	ISP_OP_NOOP, ISP_OP_ECHO_H2C, ISP_OP_IDENTIFY, ISP_OP_ECHO_C2H, ISP_OP_STATS,
	ISP_OP_TRACE_ARM, ISP_OP_RESULT_READ, ISP_OP_RESULT_RELEASE,
	ISP_OP_REIS_DB_CREATE, ISP_OP_REIS_DB_LIST, ISP_OP_REIS_DB_WRITE, ISP_OP_REIS_DB_INFO,
	ISP_OP_REIS_DB_COMMIT, ISP_OP_REIS_SEARCH, ISP_OP_REIS_META_READ,
	ISP_OP_REIS_DB_DELETE, ISP_OP_REIS_IVF_SEARCH, ISP_OP_REIS_DOC_READ,
	ISP_OP_RF_TBL_CREATE, ISP_OP_RF_TBL_LIST, ISP_OP_RF_TBL_WRITE, ISP_OP_RF_TBL_STATS,
	ISP_OP_RF_TBL_COMMIT, ISP_OP_RF_SLS, ISP_OP_RF_TBL_DELETE, ISP_OP_RF_PROFILE,
	ISP_OP_RF_REMAP, ISP_OP_RF_SWITCH,
};

/* A search payload for database @o (or a random did when NULL). */
static uint8_t *fz_search_data(const struct fz_state *st, struct fz_src *s,
			       const struct fz_obj *o, int ivf, uint32_t *len)
{
	struct isp_wire_reis_search h;
	uint32_t dim = o ? o->c.db.dim : 64 * fz_range(s, 1, 2), qb;
	uint8_t *p;

	memset(&h, 0, sizeof(h));
	h.did = o ? o->id : fz_id(st, s, 8);
	h.nq = fz_u8(s) % 8 ? fz_range(s, 1, 4) : fz_range(s, 1, 40);
	h.k = fz_u8(s) % 8 ? fz_range(s, 1, 12) : fz_range(s, 1, ISP_REIS_MAX_K + 1);
	h.flags = fz_u8(s) & ISP_REIS_SF_ALL;
	if (o && !(o->c.db.flags & ISP_REIS_DBF_INT8) && fz_u8(s) % 8)
		h.flags |= ISP_REIS_SF_NO_RERANK;
	if (o && o->c.db.group && (h.flags & ISP_REIS_SF_GROUP)) {
		h.did = o->c.db.group;
		h.t_min = 0;
		h.t_max = fz_u8(s);
	} else {
		h.flags &= ~ISP_REIS_SF_GROUP;
	}
	h.rerank_factor = fz_u8(s) % 4 ? 0 : fz_range(s, 1, ISP_REIS_MAX_RERANK);
	h.df_threshold = fz_u8(s) % 4 ? 0 : fz_range(s, 1, dim);
	if (ivf) {
		h.nprobe = fz_u8(s) % 2 ? fz_range(s, 1, 20) : 0;
		h.target_recall = h.nprobe ? 0 : fz_range(s, 1, 10000);
	}
	h.tag = fz_u8(s) % 5;
	h.dim = dim;
	qb = dim / 8 + (h.flags & ISP_REIS_SF_NO_RERANK ? 0 : dim);
	*len = (uint32_t)(sizeof(h) + (size_t)h.nq * qb);
	if (*len > FZ_MAX_XFER) {
		h.nq = (FZ_MAX_XFER - sizeof(h)) / qb;
		*len = (uint32_t)(sizeof(h) + (size_t)h.nq * qb);
	}
	p = fz_alloc(*len, 0);
	memcpy(p, &h, sizeof(h));
	fz_fill(p + sizeof(h), *len - sizeof(h), fz_u32(s), 0);
	return p;
}

static uint8_t *fz_sls_data(const struct fz_state *st, struct fz_src *s, const struct fz_obj *o,
			    uint32_t *len)
{
	struct isp_wire_rf_sls h;
	uint32_t rows = o ? o->c.tbl.rows : 1u + fz_u8(s), b, i, *off, *idx;
	uint8_t *p;
	size_t sz;

	memset(&h, 0, sizeof(h));
	h.tid = o ? o->id : fz_id(st, s, 8);
	h.nbags = fz_u8(s) % 8 ? fz_range(s, 1, 16) : fz_range(s, 1, 300);
	h.nidx = h.nbags * fz_range(s, 0, 12) + fz_u8(s) % 2;
	h.flags = fz_u8(s) & 7;
	h.dim = o ? o->c.tbl.dim : 1u + fz_u8(s);
	sz = sizeof(h) + 4 * ((size_t)h.nbags + 1) + 4 * (size_t)h.nidx *
	     (h.flags & ISP_RF_SLS_WEIGHTED ? 2 : 1);
	if (sz > FZ_MAX_XFER) {
		h.nidx = h.nbags;
		sz = sizeof(h) + 4 * ((size_t)h.nbags + 1) + 8 * (size_t)h.nidx;
	}
	p = fz_alloc(sz, 1);
	off = (uint32_t *)(p + sizeof(h));
	idx = off + h.nbags + 1;
	for (b = 0; b <= h.nbags; b++)
		off[b] = (uint32_t)((uint64_t)h.nidx * b / h.nbags);
	for (i = 0; i < h.nidx; i++) {
		uint8_t r = fz_u8(s);

		/* skewed: a few hot rows, the rest anywhere, rarely past the end */
		idx[i] = r < 160 ? r % 8 % rows : r < 250 ? fz_u32(s) % rows : rows + r;
	}
	if (h.flags & ISP_RF_SLS_WEIGHTED)
		for (i = 0; i < h.nidx; i++) {
			float w = (float)(fz_u8(s) % 5) * 0.25f;

			memcpy(idx + h.nidx + i, &w, 4);
		}
	memcpy(p, &h, sizeof(h));
	*len = (uint32_t)sz;
	return p;
}

/* The harness' tables follow what the drive answered. */
static void fz_track(struct fz_state *st, int sel, struct fz_obj *o, uint16_t s)
{
	if (s || !o)
		return;
	if (sel == FZ_DB_DELETE || sel == FZ_TBL_DELETE)
		fz_forget(o);
	else if (sel == FZ_DB_COMMIT || sel == FZ_TBL_COMMIT)
		o->ready = 1;
	(void)st;
}

/* A mutation: corrupt one thing, or (mostly) nothing. */
static void fz_mutate(struct fz_state *st, struct fz_src *s, struct isp_cmd *c, uint8_t *data,
		      uint32_t len)
{
	uint8_t m = fz_u8(s);
	uint32_t v;

	if (m >= 0xa8 && m < 0xb0) {
		/* intact, but stopped from a second thread 0..199 us in */
		st->stop_us = 1 + fz_u8(s) % 200;
		return;
	}
	if (m < 0xb0)
		return;
	v = fz_u32(s);
	switch (m % 10) {
	case 0: c->cdw12 = v; break;
	case 1: c->cdw13 = v; break;
	case 2: c->cdw14 = v; break;
	case 3: c->cdw15 = v; break;
	case 4: c->cdw11 = v % 3 ? v : 1; break;
	case 5: c->cdw10 = v % 4 ? c->cdw10 + (v % 9) - 4 : v; break;	/* NDT off by a few or anything */
	case 6: c->opcode = (uint8_t)((c->opcode & ~3u) | (v & 3)); break;
	case 7: c->nsid = v % 2 ? 0 : v; break;
	default:
		if (len) {	/* a data byte or word: shapes, ids, offsets */
			uint32_t at = (v >> 8) % len;

			if (m & 1 && at + 4 <= len)
				memcpy(data + (at & ~3u), &v, 4);
			else
				data[at] ^= (uint8_t)(v | 1);
		}
	}
}

/* CDW10..15 of a literal step, in order. */
static void fz_literal_cdws(struct fz_src *s, struct isp_cmd *c)
{
	c->cdw10 = fz_u32(s);
	c->cdw11 = fz_u32(s);
	c->cdw12 = fz_u32(s);
	c->cdw13 = fz_u32(s);
	c->cdw14 = fz_u32(s);
	c->cdw15 = fz_u32(s);
}

/* ---- the standard interface: CP and SLM (docs/command-set.md §9) ---- */

#define FZ_CS_SETS 64			/* the drive's CS_MAX_MRS */
#define FZ_CS_NVM_LBAS (1u << 20)	/* the NVM namespace format 2h reads */
#define FZ_CS_MAX_STAGE (1u << 20)	/* staged LBA bytes the harness hands over */
#define FZ_CS_MAX_MR 17			/* the drive's 16, and one too many */
#define FZ_CS_MAX_PARAM 4096u		/* Execute Program parameter data */

/* What the harness knows of the memory and compute namespaces. */
struct fz_cs {
	pthread_mutex_t lock;
	uint32_t slm, cp;		/* namespace ids */
	uint64_t msz;			/* memory namespace bytes */
	unsigned nsets;
	struct {
		uint16_t rsid;
		uint8_t nr;
		struct isp_wire_cs_mrd r[2];	/* input, output */
	} set[FZ_CS_SETS];
	uint32_t max_rsid;		/* the largest identifier the drive gave */
	uint32_t lba_bytes;		/* format 2h block size (512 or 4096) */
	uint64_t execs, same;		/* Execute Programs run; compared with the vendor's */
	int shared;			/* threads share it: their records may race */
};

static int fz_cs_status(uint16_t code)
{
	return (code >= ISP_SC_CMD_SIZE_LIMIT && code <= ISP_SC_PROG_TOO_BIG &&
		code != 0x0184 && code != 0x0185 && code != 0x0186 && code != 0x0188) ||
	       code == ISP_SC_INVALID_NSID;
}

static enum isp_dir fz_cs_dir(const struct fz_cs *cs, const struct isp_cmd *c)
{
	if (c->set == ISP_SET_ADMIN)
		return c->opcode == ISP_CS_OP_MRS_MGMT ? ISP_DIR_H2C : ISP_DIR_NONE;
	if (c->nsid == cs->cp)
		return ISP_DIR_H2C;	/* the parameter data */
	return c->opcode == ISP_CS_OP_MEM_READ ? ISP_DIR_C2H :
	       c->opcode == ISP_CS_OP_MEM_FILL ? ISP_DIR_NONE : ISP_DIR_H2C;
}

static int fz_cs_is(const struct isp_cmd *c, int set, uint8_t opc)
{
	return c->set == set && c->opcode == opc;
}

/* The harness' range-set table follows the drive's answers. */
static void fz_cs_track(struct fz_cs *cs, const struct isp_cmd *c, const uint8_t *buf,
			uint64_t dlen, const struct isp_cpl *cpl)
{
	unsigned i;

	if (!fz_cs_is(c, ISP_SET_ADMIN, ISP_CS_OP_MRS_MGMT))
		return;
	pthread_mutex_lock(&cs->lock);
	if ((c->cdw10 & 0xf) == ISP_CS_MRS_CREATE) {
		uint16_t rsid = (uint16_t)cpl->result;

		if (!rsid || cpl->result >> 16)
			FZ_FAIL("range set created with DW0/DW1 %#llx",
				(unsigned long long)cpl->result);
		for (i = 0; i < cs->nsets; i++)
			if (cs->set[i].rsid == rsid)
				FZ_FAIL("RSID %u given twice", rsid);
		if (cs->nsets >= FZ_CS_SETS) {
			if (!cs->shared)
				FZ_FAIL("a range set beyond the drive's %u", FZ_CS_SETS);
			pthread_mutex_unlock(&cs->lock);
			return;
		}
		memset(&cs->set[cs->nsets], 0, sizeof(cs->set[0]));
		cs->set[cs->nsets].rsid = rsid;
		cs->set[cs->nsets].nr = (uint8_t)(c->cdw11 & 0xff);
		memcpy(cs->set[cs->nsets].r, buf, dlen < sizeof(cs->set[0].r) ?
		       (size_t)dlen : sizeof(cs->set[0].r));
		cs->nsets++;
		if (rsid > cs->max_rsid)
			cs->max_rsid = rsid;
	} else {
		for (i = 0; i < cs->nsets; i++)
			if (cs->set[i].rsid == (uint16_t)(c->cdw10 >> 16)) {
				cs->set[i] = cs->set[--cs->nsets];
				break;
			}
	}
	pthread_mutex_unlock(&cs->lock);
}

/*
 * Format 2h: the transport's part (hw/nvme/isp-cs.c): which blocks, read
 * (here: a pattern per block), appended to the list. 0: @buf / @blen hold
 * the staged command; else the status the glue completes with.
 */
static uint16_t fz_cs_stage(struct fz_state *st, struct isp_cmd *c, uint8_t **buf,
			    uint64_t *blen, struct isp_cpl *cpl)
{
	struct isp_cs_lba_range rg[128];
	struct isp_cs_stage stage;
	uint64_t total = 0, pos;
	unsigned n = 0, i;
	uint16_t s;
	uint8_t *b;

	s = isp_dev_cs_copy_lbas(st->dev, c, *buf, *blen, st->cs->lba_bytes, rg, 128, &n, cpl);
	if (s) {
		isp_dev_note_failure(st->dev, c, cpl);
		return s;
	}
	for (i = 0; i < n; i++) {
		if (rg[i].slba + rg[i].nlb > FZ_CS_NVM_LBAS) {
			/* the glue's LBA Out of Range, noted in the error log */
			memset(cpl, 0, sizeof(*cpl));
			cpl->status = 0x0080 | ISP_STATUS_DNR;
			isp_dev_note_failure(st->dev, c, cpl);
			return cpl->status;
		}
		total += (uint64_t)rg[i].nlb * st->cs->lba_bytes;
	}
	if (total > FZ_CS_MAX_STAGE)
		return 0xffff;	/* not sent: more than the harness stages */
	b = fz_alloc((size_t)(*blen + sizeof(stage) + total), 0);
	memcpy(b, *buf, (size_t)*blen);
	stage.lba_bytes = st->cs->lba_bytes;
	stage.nranges = n;
	memcpy(b + *blen, &stage, sizeof(stage));
	for (i = 0, pos = *blen + sizeof(stage); i < n; i++) {
		uint64_t k = (uint64_t)rg[i].nlb * st->cs->lba_bytes;

		memset(b + pos, (int)(rg[i].slba * 7 + 1), (size_t)k);
		pos += k;
	}
	free(*buf);
	*buf = b;
	*blen = pos;
	return 0;
}

/*
 * One standard-interface command as the glue runs it (isp_dev_check(),
 * isp_dev_cmd_len(), for format 2h the staging, isp_dev_exec()), then the
 * invariants: check and exec agree; a command check accepts moves what its
 * direction says, at most max_xfer; every status is one of docs/command-set.md
 * §9.8 or the engines'; DW0/DW1 are 0 but for a range set's RSID and Execute
 * Program's packed cost; only a stopped command is Command Abort Requested;
 * only Memory Read transfers C2H bytes.
 */
static uint16_t fz_exec_cs(struct fz_state *st, struct isp_cmd *c, const void *data, size_t len,
			   struct isp_cpl *cpl, void *out, size_t out_len)
{
	struct fz_cs *cs = st->cs;
	int exec = c->set == ISP_SET_IO && c->nsid == cs->cp && c->opcode == ISP_CS_OP_EXECUTE;
	struct isp_cpl chk;
	uint64_t dlen = 0, blen;
	enum isp_dir dir = fz_cs_dir(cs, c);
	uint8_t *buf = NULL;
	uint32_t stop_us;
	uint16_t st0, s;

	if (c->set == ISP_SET_VENDOR)	/* a mutation made it a vendor command */
		return fz_exec(st, c, (void *)data, len, cpl);
	if (st->shared)
		cs->shared = 1;
	c->submit_ns = __atomic_add_fetch(st->clk, 1000000000ull, __ATOMIC_RELAXED);
	memset(&chk, 0x5a, sizeof(chk));
	st0 = isp_dev_check(st->dev, c, &chk);
	if (st0 && (st0 != chk.status || chk.result))
		FZ_FAIL("CS opc %#x set %u: check returned %#x, cpl.status %#x, DW0/1 %#llx",
			c->opcode, c->set, st0, chk.status, (unsigned long long)chk.result);
	if (!st0) {
		dlen = isp_dev_cmd_len(st->dev, c);
		if (dlen > FZ_MAX_XFER || (dir == ISP_DIR_NONE && dlen) ||
		    (dir == ISP_DIR_C2H && !dlen))
			FZ_FAIL("CS opc %#x set %u: check passed dir %d with %llu bytes", c->opcode,
				c->set, dir, (unsigned long long)dlen);
	}
	blen = st0 ? (len < FZ_MAX_XFER ? len : FZ_MAX_XFER) : dlen;
	if (blen) {
		buf = fz_alloc((size_t)blen, 0);
		memset(buf, dir == ISP_DIR_C2H ? 0xa5 : 0, (size_t)blen);
		if (data && dir != ISP_DIR_C2H)
			memcpy(buf, data, len < blen ? len : (size_t)blen);
	}
	if (!st0 && fz_cs_is(c, ISP_SET_IO, ISP_CS_OP_MEM_COPY) && c->nsid == cs->slm &&
	    ((c->cdw12 >> 8) & 0xf) == ISP_CS_DESFMT_LBA) {
		s = fz_cs_stage(st, c, &buf, &blen, cpl);
		if (s) {
			free(buf);
			st->stop_us = 0;
			if (s != 0xffff && (!fz_known_status(s & ISP_STATUS_CODE_MASK) &&
					    !fz_cs_status(s & ISP_STATUS_CODE_MASK) &&
					    (s & ISP_STATUS_CODE_MASK) != 0x0080))
				FZ_FAIL("Memory Copy staging: status %#x", s);
			return s;
		}
	}
	__atomic_add_fetch(&st->cmds, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fz_total_cmds, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fz_total_cs, 1, __ATOMIC_RELAXED);
	if (st->record && !st0)
		st->record(st->record_arg, c, buf, dir == ISP_DIR_C2H ? 0 : dlen);
	memset(cpl, 0x5a, sizeof(*cpl));
	stop_us = st->stop_us;
	st->stop_us = 0;
	s = stop_us ? fz_exec_stopped(st, c, buf, (size_t)blen, cpl, stop_us - 1) :
		      isp_dev_exec(st->dev, c, buf, (size_t)blen, cpl);
	if (s == ISP_SC_ABORT_REQ && !stop_us)
		FZ_FAIL("CS opc %#x: Command Abort Requested without a stop", c->opcode);
	if (s != cpl->status)
		FZ_FAIL("CS opc %#x: exec returned %#x, cpl.status %#x", c->opcode, s, cpl->status);
	if (st0 && s != st0)
		FZ_FAIL("CS opc %#x set %u: check said %#x (%s), exec %#x (%s)", c->opcode, c->set,
			st0, chk.err ? chk.err : "-", s, cpl->err ? cpl->err : "-");
	if ((!fz_known_status(s & ISP_STATUS_CODE_MASK) && !fz_cs_status(s & ISP_STATUS_CODE_MASK)) ||
	    (s & ~(ISP_STATUS_CODE_MASK | ISP_STATUS_DNR)))
		FZ_FAIL("CS opc %#x set %u: status %#x is not in the command sets", c->opcode,
			c->set, s);
	if (!exec && (s & ISP_STATUS_CODE_MASK) == ISP_SC_INTERNAL)
		FZ_FAIL("CS opc %#x set %u: internal error (%s)", c->opcode, c->set,
			cpl->err ? cpl->err : "-");
	if (cpl->xfer_len > blen || (cpl->xfer_len && (s || dir != ISP_DIR_C2H)) ||
	    (!s && dir == ISP_DIR_C2H && cpl->xfer_len != dlen))
		FZ_FAIL("CS opc %#x: status %#x, %u bytes transferred of %llu", c->opcode, s,
			cpl->xfer_len, (unsigned long long)blen);
	if (exec ? isp_wire_result_time_ns(cpl->result) != (cpl->model_ns > ISP_RESULT_TIME_MAX ?
							     ISP_RESULT_TIME_MAX : cpl->model_ns) :
	    cpl->result && (s || !fz_cs_is(c, ISP_SET_ADMIN, ISP_CS_OP_MRS_MGMT)))
		FZ_FAIL("CS opc %#x set %u: status %#x with DW0/DW1 %#llx (model_ns %llu)",
			c->opcode, c->set, s, (unsigned long long)cpl->result,
			(unsigned long long)cpl->model_ns);
	if (!s) {
		__atomic_add_fetch(&st->ok, 1, __ATOMIC_RELAXED);
		fz_cs_track(cs, c, buf, blen, cpl);
		if (exec)
			__atomic_add_fetch(&cs->execs, 1, __ATOMIC_RELAXED);
	}
	if (st->verbose)
		fprintf(stderr, "fz: CS set %u opc %#x nsid %u cdw2 %#x cdw4 %u cdw10 %#x cdw11 %#x "
			"cdw12 %#x len %llu -> %#x %s\n", c->set, c->opcode, c->nsid, c->cdw2,
			c->cdw4, c->cdw10, c->cdw11, c->cdw12, (unsigned long long)blen, s,
			cpl->err ? cpl->err : "");
	if (out && out_len && dir == ISP_DIR_C2H && !s)
		memcpy(out, buf, out_len < blen ? out_len : (size_t)blen);
	free(buf);
	return s;
}

static struct isp_cmd fz_cs_cmd(const struct fz_cs *cs, int set, uint8_t opc)
{
	struct isp_cmd c;

	memset(&c, 0, sizeof(c));
	c.set = (uint8_t)set;
	c.opcode = opc;
	c.nsid = set == ISP_SET_ADMIN || opc == ISP_CS_OP_EXECUTE ? cs->cp : cs->slm;
	return c;
}

static uint16_t fz_cs_act(struct fz_state *st, unsigned pind, int on)
{
	struct isp_cmd c = fz_cs_cmd(st->cs, ISP_SET_ADMIN, ISP_CS_OP_PROGRAM_ACT);
	struct isp_cpl cpl;

	c.cdw10 = pind | (uint32_t)!!on << 16;
	return fz_exec_cs(st, &c, NULL, 0, &cpl, NULL, 0);
}

static uint16_t fz_cs_delete(struct fz_state *st, uint16_t rsid)
{
	struct isp_cmd c = fz_cs_cmd(st->cs, ISP_SET_ADMIN, ISP_CS_OP_MRS_MGMT);
	struct isp_cpl cpl;

	c.cdw10 = ISP_CS_MRS_DELETE | (uint32_t)rsid << 16;
	return fz_exec_cs(st, &c, NULL, 0, &cpl, NULL, 0);
}

/* An offset / length in the memory namespace, dwords, mostly inside it. */
static uint64_t fz_cs_off(const struct fz_cs *cs, struct fz_src *s)
{
	uint8_t m = fz_u8(s);

	return m < 240 ? 4 * (uint64_t)fz_range(s, 0, (uint32_t)(cs->msz / 4 - 1)) :
	       m < 250 ? cs->msz - 4 * (uint64_t)fz_range(s, 0, 64) : fz_u32(s);
}

static uint32_t fz_cs_len(struct fz_src *s, uint32_t max)
{
	uint8_t m = fz_u8(s);

	return m < 200 ? 4 * fz_range(s, 1, max / 4) : m < 250 ? 4 * fz_range(s, 1, 64) :
	       fz_u32(s);
}

/* A tracked set (a copy), or none. */
static int fz_cs_pick_set(struct fz_cs *cs, struct fz_src *s, uint16_t *rsid,
			  struct isp_wire_cs_mrd *r)
{
	unsigned i = fz_u8(s);
	int ok;

	pthread_mutex_lock(&cs->lock);
	ok = cs->nsets != 0;
	if (ok) {
		i %= cs->nsets;
		*rsid = cs->set[i].rsid;
		if (r)
			memcpy(r, cs->set[i].r, sizeof(cs->set[i].r));
	}
	pthread_mutex_unlock(&cs->lock);
	return ok;
}

/* The input of program @pind from the harness' view of the drive. */
static uint8_t *fz_cs_input(struct fz_state *st, struct fz_src *s, unsigned pind, uint32_t *len,
			    uint32_t *out_len)
{
	struct fz_obj *o;
	uint8_t *p;
	uint32_t i, n;

	*out_len = 4 * fz_range(s, 16, 16384);
	switch (pind) {
	case ISP_CS_PROG_REIS_SEARCH:
	case ISP_CS_PROG_REIS_IVF:
		o = fz_pick(st, s, 0);
		return fz_search_data(st, s, o && fz_u8(s) % 16 ? o : NULL,
				      pind == ISP_CS_PROG_REIS_IVF, len);
	case ISP_CS_PROG_RF_SLS:
		o = fz_pick(st, s, 1);
		return fz_sls_data(st, s, o && fz_u8(s) % 16 ? o : NULL, len);
	case ISP_CS_PROG_REIS_DOCS: {
		struct isp_wire_cs_doc_ref *r;

		n = fz_u8(s) % 16 ? fz_range(s, 1, 8) : fz_range(s, 1, ISP_CS_DOCS_MAX + 2);
		*len = n * (uint32_t)sizeof(*r);
		r = fz_alloc(*len, 0);
		for (i = 0; i < n; i++) {
			o = fz_pick(st, s, 0);
			r[i].did = o && fz_u8(s) % 8 ? o->id : fz_id(st, s, 8);
			r[i].entry = o && fz_u8(s) % 8 ? fz_u32(s) % (o->c.db.n + 1) : fz_u32(s);
		}
		return (uint8_t *)r;
	}
	default: {
		/* isp-manage: a vendor command, mostly one that reads */
		static const uint8_t opc[] = {
			ISP_OP_REIS_DB_INFO, ISP_OP_RF_TBL_STATS, ISP_OP_REIS_DB_LIST,
			ISP_OP_RF_TBL_LIST, ISP_OP_IDENTIFY, ISP_OP_STATS, ISP_OP_NOOP,
			ISP_OP_ECHO_H2C, ISP_OP_ECHO_C2H, ISP_OP_REIS_META_READ,
			ISP_OP_REIS_DOC_READ, ISP_OP_REIS_SEARCH, ISP_OP_RESULT_READ,
			ISP_OP_RF_PROFILE, ISP_OP_REIS_DB_COMMIT,
		};
		struct isp_wire_cs_manage h;
		uint32_t dl;

		memset(&h, 0, sizeof(h));
		h.opcode = fz_u8(s) % 16 ? opc[fz_u8(s) % sizeof(opc)] : fz_u8(s);
		h.nsid = fz_u8(s) % 16 ? 1 : fz_u32(s);
		o = fz_pick(st, s, h.opcode >= ISP_OP_RF_TBL_CREATE);
		h.cdw12 = o && fz_u8(s) % 8 ? o->id : fz_u8(s) % 4 ? fz_id(st, s, 8) : fz_u32(s);
		h.cdw13 = h.opcode == ISP_OP_REIS_DOC_READ && o ? fz_u32(s) % (o->c.db.n + 1) :
			  fz_u8(s) % 4;
		dl = h.opcode == ISP_OP_IDENTIFY || h.opcode == ISP_OP_STATS ? 4096 :
		     h.opcode == ISP_OP_REIS_DB_INFO ? sizeof(struct isp_wire_reis_dbinfo) :
		     h.opcode == ISP_OP_RF_TBL_STATS ? sizeof(struct isp_wire_rf_stats) :
		     4 * fz_range(s, 1, 1024);
		if (isp_wire_dir(h.opcode) == ISP_DIR_H2C)
			h.in_len = dl;
		else if (isp_wire_dir(h.opcode) == ISP_DIR_C2H)
			h.out_len = dl;
		h.cdw10 = fz_u8(s) % 8 ? (h.in_len + h.out_len) / 4 : fz_range(s, 0, 20000);
		*len = (uint32_t)sizeof(h) + h.in_len;
		p = fz_alloc(*len, 0);
		memcpy(p, &h, sizeof(h));
		if (h.opcode == ISP_OP_ECHO_H2C)
			isp_wire_pattern(h.cdw12, p + sizeof(h), h.in_len);
		else
			fz_fill(p + sizeof(h), h.in_len, fz_u32(s), 0);
		if (*out_len < h.out_len)
			*out_len = h.out_len;
		return p;
	}
	}
}

/* A range set create: @nr ranges from the input, or input + output. */
static uint16_t fz_cs_create(struct fz_state *st, struct fz_src *s, uint32_t in_len,
			     uint32_t out_len, uint16_t *rsid, struct isp_wire_cs_mrd *r2, int mutate)
{
	struct fz_cs *cs = st->cs;
	struct isp_wire_cs_mrd r[FZ_CS_MAX_MR];
	struct isp_cmd c = fz_cs_cmd(cs, ISP_SET_ADMIN, ISP_CS_OP_MRS_MGMT);
	struct isp_cpl cpl;
	unsigned nr, i;
	uint16_t ret;

	memset(r, 0, sizeof(r));
	nr = in_len ? 2 : fz_u8(s) % 8 ? fz_range(s, 1, 4) : fz_range(s, 1, FZ_CS_MAX_MR);
	if (in_len) {
		uint64_t need = (uint64_t)in_len + out_len, base;

		if (need > cs->msz)
			return 0xffff;
		base = 4 * (uint64_t)fz_range(s, 0, (uint32_t)((cs->msz - need) / 4));
		r[0].sb = base;
		r[0].len = in_len;
		r[1].sb = base + in_len;
		r[1].len = out_len;
		if (fz_u8(s) % 2) {	/* the output range first */
			r[1].sb = base;
			r[0].sb = base + out_len;
		}
	} else {
		for (i = 0; i < nr; i++) {
			r[i].sb = fz_cs_off(cs, s);
			r[i].len = fz_cs_len(s, 65536);
		}
	}
	for (i = 0; i < nr; i++)
		r[i].mnsid = cs->slm;
	c.cdw11 = nr;
	if (mutate)
		fz_mutate(st, s, &c, (uint8_t *)r, nr * (uint32_t)sizeof(r[0]));
	ret = fz_exec_cs(st, &c, r, nr * sizeof(r[0]), &cpl, NULL, 0);
	if (!ret && rsid)
		*rsid = (uint16_t)cpl.result;
	if (r2)
		memcpy(r2, r, 2 * sizeof(r[0]));
	return ret;
}

/* Memory Write of @len bytes at @sb, in max_xfer pieces. */
static uint16_t fz_cs_write(struct fz_state *st, uint64_t sb, const uint8_t *p, uint32_t len)
{
	uint32_t off = 0;
	uint16_t r = 0;

	while (!r && off < len) {
		struct isp_cmd c = fz_cs_cmd(st->cs, ISP_SET_IO, ISP_CS_OP_MEM_WRITE);
		struct isp_cpl cpl;
		uint32_t n = len - off < FZ_MAX_XFER ? len - off : FZ_MAX_XFER;

		c.cdw10 = (uint32_t)(sb + off);
		c.cdw11 = (uint32_t)((sb + off) >> 32);
		c.cdw12 = n;
		r = fz_exec_cs(st, &c, p + off, n, &cpl, NULL, 0);
		off += n;
	}
	return r;
}

static int fz_same_cmd(const struct isp_cmd *a, const struct isp_cmd *b)
{
	return a->set == b->set && a->opcode == b->opcode && a->nsid == b->nsid &&
	       a->cdw2 == b->cdw2 && a->cdw3 == b->cdw3 && a->cdw4 == b->cdw4 &&
	       a->cdw10 == b->cdw10 && a->cdw11 == b->cdw11 && a->cdw12 == b->cdw12 &&
	       a->cdw13 == b->cdw13 && a->cdw14 == b->cdw14 && a->cdw15 == b->cdw15;
}

/*
 * The program's output against the vendor command on the same input and
 * drive: the same blob but for the ticket and the producing command's cost
 * (docs/command-set.md §9.6 "Same results").
 */
static void fz_cs_compare(struct fz_state *st, unsigned pind, const uint8_t *in, uint32_t in_len,
			  uint8_t *out, uint32_t out_len)
{
	static const uint8_t vop[] = { ISP_OP_REIS_SEARCH, ISP_OP_REIS_IVF_SEARCH, ISP_OP_RF_SLS };
	struct isp_wire_result_hdr h;
	struct isp_cmd c = fz_cmd(vop[pind], in_len);
	struct isp_cpl cpl;
	/* a ticket of its own range, released below */
	uint32_t ticket = 0xfff00000u | (uint32_t)(st->cs->same & 0xfffffu);
	uint8_t *v;
	uint16_t r;

	if (out_len < sizeof(h))
		return;
	memcpy(&h, out, sizeof(h));
	if (h.total_bytes > out_len)
		return;		/* more than one Memory Read: not compared */
	if (h.total_bytes < sizeof(h) || h.ticket || memcmp(h.magic, "RSLT", 4))
		FZ_FAIL("program %u: output header (total %llu, ticket %u) in %u bytes", pind,
			(unsigned long long)h.total_bytes, h.ticket, out_len);
	c.cdw12 = ticket;
	r = fz_exec(st, &c, (void *)in, in_len, &cpl);
	if (r == (ISP_SC_TICKET_IN_USE | ISP_STATUS_DNR))
		return;		/* a raw step took it: not compared */
	if (r)
		FZ_FAIL("program %u succeeded, the vendor command %#x failed %#x (%s)", pind,
			vop[pind], r, cpl.err ? cpl.err : "-");
	v = fz_alloc(out_len, 1);
	c = fz_cmd(ISP_OP_RESULT_READ, out_len);
	c.cdw12 = ticket;
	r = fz_exec(st, &c, v, out_len, &cpl);
	if (!r && pind == ISP_CS_PROG_RF_SLS && h.total_bytes >= sizeof(h) + 96) {
		/* the page and cache counters follow the cache the first run warmed
		 * (isp_wire_rf_result: page_reads .. flash_pj); the sums do not */
		memset(v + sizeof(h) + 24, 0, 64);
		memcpy(out + sizeof(h) + 24, v + sizeof(h) + 24, 64);
	}
	if (r || cpl.xfer_len < h.total_bytes ||
	    memcmp(v, out, offsetof(struct isp_wire_result_hdr, ticket)) ||
	    memcmp(v + offsetof(struct isp_wire_result_hdr, hdr_bytes),
		   out + offsetof(struct isp_wire_result_hdr, hdr_bytes), 4) ||
	    memcmp(v + offsetof(struct isp_wire_result_hdr, rsvd),
		   out + offsetof(struct isp_wire_result_hdr, rsvd),
		   (size_t)h.total_bytes - offsetof(struct isp_wire_result_hdr, rsvd)))
		FZ_FAIL("program %u: output of %llu bytes differs from the vendor result "
			"(RESULT_READ %#x, %u bytes)", pind, (unsigned long long)h.total_bytes, r,
			cpl.xfer_len);
	free(v);
	fz_nodata(st, ISP_OP_RESULT_RELEASE, ticket);
	__atomic_add_fetch(&st->cs->same, 1, __ATOMIC_RELAXED);
}

/*
 * activate -> range set create -> Memory Write (or parameter data) ->
 * Execute Program (mutated or stopped, maybe) -> Memory Read -> compare
 * with the vendor command -> range set delete -> (maybe) deactivate.
 */
static void fz_cs_flow(struct fz_state *st, struct fz_src *s)
{
	struct fz_cs *cs = st->cs;
	unsigned pind = fz_u8(s) % 16 ? fz_u8(s) % ISP_CS_NPROGS : fz_range(s, 0, 20);
	uint32_t len = 0, out_len, in_room, rd;
	struct isp_wire_cs_mrd r[2];
	struct isp_cmd c, c0;
	struct isp_cpl cpl;
	uint8_t *in, *in0, *out;
	int same;
	uint16_t rsid = 0, ex;
	int param;

	fz_cs_act(st, pind, 1);
	in = fz_cs_input(st, s, pind < ISP_CS_NPROGS ? pind : ISP_CS_PROG_MANAGE, &len, &out_len);
	param = len <= FZ_CS_MAX_PARAM && fz_u8(s) % 4 == 0;
	in_room = (len + 3) & ~3u;
	if (fz_u8(s) % 8 == 0)
		in_room += 4 * fz_u8(s);
	if (fz_cs_create(st, s, in_room ? in_room : 4, out_len, &rsid, r, fz_u8(s) % 4 == 0)) {
		free(in);
		return;
	}
	if (!param && fz_cs_write(st, r[0].sb, in, len & ~3u)) {
		fz_cs_delete(st, rsid);
		free(in);
		return;
	}
	c = fz_cs_cmd(cs, ISP_SET_IO, ISP_CS_OP_EXECUTE);
	c.cdw2 = pind | (uint32_t)rsid << 16;
	if (param)
		c.cdw4 = len;
	else
		c.cdw10 = len;
	c.cdw12 = fz_u8(s) % 8 ? 0 : 4 * fz_range(s, 0, out_len / 4);
	c0 = c;
	in0 = fz_alloc(len, 0);
	memcpy(in0, in, len);
	fz_mutate(st, s, &c, in, len);
	if (fz_u8(s) % 16 == 0)
		c.cdw3 = fz_u8(s);
	same = fz_same_cmd(&c, &c0) && !memcmp(in, in0, len);
	free(in0);
	ex = fz_exec_cs(st, &c, in, param ? len : 0, &cpl, NULL, 0);
	/* the output, as the host reads it */
	rd = out_len - c0.cdw12 < FZ_MAX_XFER ? out_len - c0.cdw12 : FZ_MAX_XFER;
	out = fz_alloc(rd, 1);
	if (rd) {
		c = fz_cs_cmd(cs, ISP_SET_IO, ISP_CS_OP_MEM_READ);
		c.cdw10 = (uint32_t)(r[1].sb + c0.cdw12);
		c.cdw11 = (uint32_t)((r[1].sb + c0.cdw12) >> 32);
		c.cdw12 = rd;
		if (!fz_exec_cs(st, &c, NULL, 0, &cpl, out, rd) && !ex && !st->shared &&
		    pind <= ISP_CS_PROG_RF_SLS && same)
			fz_cs_compare(st, pind, in, len, out, rd);
	}
	free(out);
	free(in);
	if (fz_u8(s) % 8)
		fz_cs_delete(st, rsid);
	if (fz_u8(s) % 4 == 0)
		fz_cs_act(st, pind, 0);
}

/* A standard-interface step (selectors FZ_CS_LOAD..FZ_CS_LITERAL). */
static void fz_cs_step(struct fz_state *st, struct fz_src *s, int sel)
{
	struct fz_cs *cs = st->cs;
	struct isp_wire_cs_mrd r[2];
	struct isp_cmd c;
	struct isp_cpl cpl;
	uint8_t *data = NULL, *out = NULL;
	uint32_t len = 0, olen = 0, i;
	uint16_t rsid;

	if (!cs || st->xport)
		return;
	switch (sel) {
	case FZ_CS_LOAD:
		c = fz_cs_cmd(cs, ISP_SET_ADMIN, ISP_CS_OP_LOAD_PROGRAM);
		c.cdw10 = fz_range(s, 0, ISP_CS_NPROGS + 2) | (fz_u8(s) % 2 ? ISP_CS_LP_SEL_UNLOAD : 0) |
			  (fz_u8(s) % 4 ? 0 : (uint32_t)fz_u8(s) << 16 | (fz_u8(s) & 7u) << 25);
		c.cdw11 = fz_u8(s) % 2 ? 0 : fz_u32(s);		/* PSIZE */
		c.cdw12 = fz_u8(s) % 2 ? 0 : fz_u32(s);		/* PID */
		c.cdw14 = fz_u8(s) % 2 ? 0 : fz_u32(s);		/* NUMB */
		c.cdw15 = fz_u8(s) % 2 ? 0 : fz_u32(s);		/* LOFF */
		break;
	case FZ_CS_ACT:
		c = fz_cs_cmd(cs, ISP_SET_ADMIN, ISP_CS_OP_PROGRAM_ACT);
		c.cdw10 = (fz_u8(s) % 8 ? fz_u8(s) % ISP_CS_NPROGS : fz_u8(s)) |
			  (fz_u8(s) % 4 ? 1u : fz_u8(s) % 8 ? 0u : fz_u8(s) & 0xfu) << 16;
		break;
	case FZ_CS_MRS_CREATE:
		fz_cs_create(st, s, 0, 0, NULL, NULL, 1);
		return;
	case FZ_CS_MRS_DELETE:
		c = fz_cs_cmd(cs, ISP_SET_ADMIN, ISP_CS_OP_MRS_MGMT);
		if (!fz_cs_pick_set(cs, s, &rsid, NULL) || fz_u8(s) % 8 == 0)
			rsid = (uint16_t)fz_range(s, 0, 80);
		c.cdw10 = ISP_CS_MRS_DELETE | (uint32_t)rsid << 16;
		break;
	case FZ_CS_MEM_WRITE:
	case FZ_CS_MEM_READ:
	case FZ_CS_MEM_FILL: {
		uint64_t sb;

		c = fz_cs_cmd(cs, ISP_SET_IO, sel == FZ_CS_MEM_WRITE ? ISP_CS_OP_MEM_WRITE :
				  sel == FZ_CS_MEM_READ ? ISP_CS_OP_MEM_READ : ISP_CS_OP_MEM_FILL);
		if (fz_cs_pick_set(cs, s, &rsid, r) && fz_u8(s) % 2) {
			i = sel == FZ_CS_MEM_READ;
			sb = r[i].sb;
			len = r[i].len && r[i].len <= FZ_MAX_XFER ? r[i].len : fz_cs_len(s, 4096);
		} else {
			sb = fz_cs_off(cs, s);
			len = fz_cs_len(s, sel == FZ_CS_MEM_FILL && fz_u8(s) % 8 == 0 ?
					(uint32_t)(cs->msz < 1u << 30 ? cs->msz : 1u << 30) : 8192);
		}
		c.cdw10 = (uint32_t)sb;
		c.cdw11 = (uint32_t)(sb >> 32);
		c.cdw12 = len;
		if (sel == FZ_CS_MEM_FILL) {
			c.cdw13 = fz_u8(s) % 2 ? 0 : fz_u32(s);
			len = 0;
		} else if (len > FZ_MAX_XFER) {
			len = 0;	/* refused before any data */
		}
		data = fz_alloc(len, 0);
		if (sel == FZ_CS_MEM_WRITE)
			fz_fill(data, len, fz_u32(s), 0);
		break;
	}
	case FZ_CS_COPY: {
		uint8_t fmt = fz_u8(s) % 3, m = fz_u8(s);
		uint32_t nr = m < 200 ? fz_range(s, 1, 4) : m < 250 ? fz_range(s, 1, 130) : fz_u8(s);
		uint64_t nbyte = 0, sd;

		c = fz_cs_cmd(cs, ISP_SET_IO, ISP_CS_OP_MEM_COPY);
		c.nsid = cs->slm;	/* 01h is Execute Program on the compute namespace */
		if (fz_u8(s) % 16 == 0)
			fmt = fz_u8(s) % 16;
		else
			fmt = fmt == 0 ? ISP_CS_DESFMT_MEM : fmt == 1 ? ISP_CS_DESFMT_LBA :
			      ISP_CS_DESFMT_DB;
		len = 32 * (nr ? nr : 1);
		data = fz_alloc(len, 1);
		for (i = 0; i < len / 32; i++) {
			uint8_t *d = data + 32 * i;

			if (fmt == ISP_CS_DESFMT_LBA) {
				struct isp_wire_cs_src_lba f;

				memset(&f, 0, sizeof(f));
				f.snsid = 1;
				f.slba = fz_u8(s) % 8 ? fz_range(s, 0, 4096) : fz_u32(s);
				f.nlb = (uint16_t)(fz_u8(s) % 8 ? fz_range(s, 0, 15) : fz_u32(s));
				nbyte += ((uint64_t)f.nlb + 1) * cs->lba_bytes;
				memcpy(d, &f, sizeof(f));
			} else if (fmt == ISP_CS_DESFMT_DB) {
				struct isp_wire_cs_src_db f;
				struct fz_obj *o = fz_pick(st, s, 0);

				memset(&f, 0, sizeof(f));
				f.did = o && fz_u8(s) % 8 ? o->id : fz_id(st, s, 8);
				f.region = fz_u8(s) % 8 ? fz_u8(s) % 2 : fz_u8(s);
				f.offset = fz_u8(s) % 2 ? 0 : fz_u8(s) % 8 ? 4 * fz_u8(s) : fz_u32(s);
				f.nbyte = fz_u8(s) % 8 ? 4 * fz_range(s, 1, 2048) : fz_u32(s);
				nbyte += f.nbyte;
				memcpy(d, &f, sizeof(f));
			} else {
				struct isp_wire_cs_src_mem f;

				memset(&f, 0, sizeof(f));
				f.snsid = cs->slm;
				f.saddr = fz_cs_off(cs, s);
				f.nbyte = fz_cs_len(s, 16384);
				nbyte += f.nbyte;
				memcpy(d, &f, sizeof(f));
			}
		}
		sd = fz_cs_off(cs, s);
		if (fz_u8(s) % 8 == 0)
			nbyte += 4 * (uint64_t)fz_range(s, 0, 4) - 8;
		c.cdw2 = (uint32_t)nbyte;
		c.cdw3 = (uint32_t)(nbyte >> 32);
		c.cdw10 = (uint32_t)sd;
		c.cdw11 = (uint32_t)(sd >> 32);
		c.cdw12 = ((nr ? nr : 1) - 1) | (uint32_t)fmt << 8;
		break;
	}
	case FZ_CS_EXEC: {
		unsigned pind = fz_u8(s) % 16 ? fz_u8(s) % ISP_CS_NPROGS : fz_u8(s);

		c = fz_cs_cmd(cs, ISP_SET_IO, ISP_CS_OP_EXECUTE);
		data = fz_cs_input(st, s, pind % ISP_CS_NPROGS, &len, &olen);
		if (!fz_cs_pick_set(cs, s, &rsid, r) || fz_u8(s) % 16 == 0)
			rsid = (uint16_t)fz_range(s, 0, 80);
		c.cdw2 = (pind & 0xffffu) | (uint32_t)rsid << 16;
		if (len <= FZ_CS_MAX_PARAM && fz_u8(s) % 2) {
			c.cdw4 = len;		/* the input in the parameter data */
		} else {
			c.cdw10 = len;		/* the input already in range 0 (or not) */
			c.cdw11 = fz_u8(s) % 4 ? 0 : 4 * fz_u8(s);
			len = 0;
		}
		c.cdw12 = fz_u8(s) % 4 ? 0 : 4 * fz_range(s, 0, 4096);
		break;
	}
	case FZ_CS_FLOW:
		fz_cs_flow(st, s);
		return;
	case FZ_CS_IDENTIFY: {
		static const uint8_t cns[] = { 0x05, 0x05, 0x06, 0x08, 0x00, 0x1c };
		uint8_t id[4096], k = fz_u8(s);
		uint8_t cn = k < 240 ? cns[k % sizeof(cns)] : fz_u8(s);
		uint8_t csi = fz_u8(s) % 8 ? (fz_u8(s) % 2 ? ISP_CSI_SLM : ISP_CSI_CP) : fz_u8(s);
		uint32_t nsid = fz_u8(s) % 8 ? (csi == ISP_CSI_SLM ? cs->slm : cs->cp) : fz_u32(s);
		uint16_t r0 = isp_dev_cs_identify(st->dev, cn, csi, nsid, id);

		if (r0 && r0 != (ISP_SC_INVALID_FIELD | ISP_STATUS_DNR) && r0 != (ISP_SC_INVALID_NSID | ISP_STATUS_DNR))
			FZ_FAIL("CS identify cns %#x csi %u nsid %u: status %#x", cn, csi, nsid, r0);
		if (!r0 && cn == 0x05 && csi == ISP_CSI_CP) {
			struct isp_wire_cs_id_ns_cp *p = (void *)id;

			if (p->nprogs != ISP_CS_NPROGS || p->slm_nsid != cs->slm || !p->maxact ||
			    p->maxmemrs != FZ_CS_SETS)
				FZ_FAIL("CS identify: compute namespace says %u programs, memory %u",
					p->nprogs, p->slm_nsid);
		}
		if (!r0 && cn == 0x05 && csi == ISP_CSI_SLM) {
			struct isp_wire_cs_id_ns_slm *p = (void *)id;

			if (p->msz != cs->msz || p->muse > p->msz || p->muse % 65536 ||
			    p->cp_nsid != cs->cp)
				FZ_FAIL("CS identify: memory of %llu bytes, %llu backed",
					(unsigned long long)p->msz, (unsigned long long)p->muse);
		}
		/* the program table and the effects of a random opcode */
		k = fz_u8(s);
		i = 4 * (uint32_t)(fz_u8(s) % 96);
		{
			/* 5 descriptors of 64 bytes: what is left from @i, or -EINVAL */
			uint32_t want = 4u * (k % 100u), left = i < 320u ? 320u - i : 0u;
			int exp = i >= 320u ? -22 : (int)(want < left ? want : left);

			r0 = isp_dev_log_page(st->dev, ISP_LID_CS_PROGRAMS, id, want, i) == exp;
		}
		if (!r0)
			FZ_FAIL("CS programs log page: %u bytes at %u", 4 * (k % 100), i);
		if (isp_dev_cs_effects(csi, fz_u8(s) % 2, fz_u8(s)) & ~3u)
			FZ_FAIL("CS effects with bits beyond CSUPP and LBCC");
		return;
	}
	case FZ_CS_RAW:
	default: {
		static const uint8_t io[] = { 0x01, 0x02, 0x04, 0x05, 0x00, 0x03 };
		static const uint8_t adm[] = { 0x85, 0x88, 0x89, 0x86 };
		uint8_t m;

		memset(&c, 0, sizeof(c));
		if (sel == FZ_CS_LITERAL) {
			c.set = fz_u8(s);
			c.opcode = fz_u8(s);
			c.nsid = fz_u32(s);
			c.cdw2 = fz_u32(s);
			c.cdw3 = fz_u32(s);
			c.cdw4 = fz_u32(s);
			fz_literal_cdws(s, &c);
		} else {
			m = fz_u8(s);
			c.set = (uint8_t)(m % 8 ? 1 + m % 2 : fz_u8(s));
			c.opcode = fz_u8(s) % 8 ? (c.set == ISP_SET_ADMIN ? adm[fz_u8(s) % 4] :
						    io[fz_u8(s) % 6]) : fz_u8(s);
			m = fz_u8(s);
			c.nsid = m < 100 ? cs->slm : m < 200 ? cs->cp : m < 230 ? 1 : fz_u32(s);
			c.cdw2 = fz_u8(s) % 2 ? fz_u8(s) : fz_u32(s);
			c.cdw3 = fz_u8(s) % 4 ? 0 : fz_u32(s);
			c.cdw4 = fz_u8(s) % 2 ? 0 : 4 * fz_range(s, 0, 1100);
			c.cdw10 = fz_u8(s) % 2 ? fz_u8(s) : fz_u32(s);
			c.cdw11 = fz_u8(s) % 2 ? fz_u8(s) % 20 : fz_u32(s);
			c.cdw12 = fz_u8(s) % 2 ? 4 * fz_u8(s) : fz_u32(s);
			c.cdw13 = fz_u8(s) % 2 ? 0 : fz_u32(s);
			c.cdw14 = fz_u8(s) % 4 ? 0 : fz_u32(s);
			c.cdw15 = fz_u8(s) % 4 ? 0 : fz_u32(s);
		}
		/* as many data bytes as the command moves, if it is one */
		len = (uint32_t)isp_dev_cmd_len(st->dev, &c);
		if (len > FZ_MAX_XFER)
			len = 0;
		if (fz_cs_dir(cs, &c) == ISP_DIR_C2H)
			len = 0;
		data = fz_alloc(len, 0);
		fz_bytes(s, data, len);
		fz_exec_cs(st, &c, data, len, &cpl, NULL, 0);
		free(data);
		return;
	}
	}
	fz_mutate(st, s, &c, data, len);
	if (fz_u8(s) % 32 == 0) {	/* the fields only the standard commands have */
		uint32_t v = fz_u32(s);

		switch (v % 4) {
		case 0: c.cdw2 = v; break;
		case 1: c.cdw3 = v >> 8; break;
		case 2: c.cdw4 = v % 8 ? 4 * (v >> 20) : v; break;
		default: c.set = (uint8_t)(v >> 24); break;
		}
	}
	out = sel == FZ_CS_MEM_READ ? fz_alloc(c.cdw12 <= FZ_MAX_XFER ? c.cdw12 : 4, 0) : NULL;
	fz_exec_cs(st, &c, data, len, &cpl, out, out && c.cdw12 <= FZ_MAX_XFER ? c.cdw12 : 0);
	free(out);
	free(data);
}

/* The harness' view of the standard interface of @st's drive, if it has one. */
static void fz_cs_init(struct fz_state *st, int config)
{
	struct isp_wire_cs_id_ns_slm id;
	uint32_t slm, cp;
	struct fz_cs *cs;

	isp_dev_cs_nsids(st->dev, &slm, &cp);
	if (!slm || !cp)
		return;
	if (isp_dev_cs_identify(st->dev, 0x05, ISP_CSI_SLM, slm, &id) || id.muse)
		FZ_FAIL("memory namespace identify (%llu bytes backed at open)",
			(unsigned long long)id.muse);
	cs = fz_alloc(sizeof(*cs), 1);
	pthread_mutex_init(&cs->lock, NULL);
	cs->slm = slm;
	cs->cp = cp;
	cs->msz = id.msz;
	cs->lba_bytes = (unsigned)config % 2 ? 4096 : 512;
	st->cs = cs;
}

/*
 * The end of an input: every range set the drive gave is deleted (never
 * In Use), no other identifier names one, every program deactivates (none
 * left in use), and the DRAM in use is the empty drive's plus exactly the
 * memory namespace's backing (which stays: the memory has no deallocate).
 * Return: the bytes backed.
 */
static uint64_t fz_cs_cleanup(struct fz_state *st)
{
	struct fz_cs *cs = st->cs;
	struct isp_wire_cs_id_ns_slm id;
	uint32_t t;
	uint16_t r;

	while (cs->nsets) {
		uint16_t rsid = cs->set[0].rsid;

		r = fz_cs_delete(st, rsid);
		if (r && r != (ISP_SC_INVALID_RSID | ISP_STATUS_DNR))
			FZ_FAIL("range set %u: delete at the end %#x", rsid, r);
		if (r) {	/* another thread's delete raced its create's record */
			if (!cs->shared)
				FZ_FAIL("range set %u vanished", rsid);
			cs->set[0] = cs->set[--cs->nsets];
		}
	}
	for (t = 1; t <= cs->max_rsid + 2 && t <= 0xffff; t++)
		if (fz_cs_delete(st, (uint16_t)t) != (ISP_SC_INVALID_RSID | ISP_STATUS_DNR) &&
		    !cs->shared)
			FZ_FAIL("range set %u existed that no create returned", t);
	for (t = 0; t < ISP_CS_NPROGS; t++)
		if ((r = fz_cs_act(st, t, 0)))
			FZ_FAIL("program %u does not deactivate at the end: %#x", t, r);
	if (isp_dev_cs_identify(st->dev, 0x05, ISP_CSI_SLM, cs->slm, &id) || id.muse > id.msz)
		FZ_FAIL("memory namespace identify at the end");
	return id.muse;
}

void fz_step(struct fz_state *st, struct fz_src *s)
{
	uint8_t b = fz_u8(s);
	int sel = b % FZ_NSEL;
	struct isp_cmd c;
	struct isp_cpl cpl;
	struct fz_obj *o = NULL;
	uint8_t *data = NULL;
	uint32_t len = 0, id;
	uint16_t r;

	/* the CS harness: three of four vendor selectors become CS ones */
	if (st->cs_bias && sel < FZ_CS_FIRST && sel != FZ_LITERAL && (b & 3))
		sel = FZ_CS_FIRST + (b >> 2) % FZ_NCS;
	if (sel >= FZ_CS_FIRST) {
		fz_cs_step(st, s, sel);
		return;
	}
	if (sel < FZ_RAW)
		c = fz_cmd(fz_opcodes[sel], 0);
	switch (sel) {
	case FZ_NOOP:
	case FZ_RESULT_RELEASE:
	case FZ_TRACE_ARM:
		c.cdw12 = sel == FZ_RESULT_RELEASE ? fz_pick_ticket(st, s) :
			  sel == FZ_TRACE_ARM ? fz_new_ticket(st, s) : 0;
		c.cdw13 = sel == FZ_TRACE_ARM && fz_u8(s) % 2 ? fz_opcodes[fz_u8(s) % FZ_RAW] : 0;
		break;
	case FZ_ECHO_H2C:
	case FZ_ECHO_C2H:
	case FZ_IDENTIFY:
	case FZ_STATS:
	case FZ_DB_LIST:
	case FZ_TBL_LIST:
		len = sel == FZ_IDENTIFY || sel == FZ_STATS ? 4096 : 4 * fz_range(s, 1, 2048);
		c.cdw12 = sel == FZ_ECHO_H2C || sel == FZ_ECHO_C2H ? fz_u32(s) :
			  sel == FZ_STATS ? fz_u8(s) % 2 : sel == FZ_IDENTIFY ? 0 : fz_u8(s) % 4;
		data = fz_alloc(len, 1);
		if (sel == FZ_ECHO_H2C)
			isp_wire_pattern(c.cdw12, data, len);
		break;
	case FZ_RESULT_READ:
		c.cdw12 = fz_pick_ticket(st, s);
		c.cdw13 = fz_u8(s) % 4 == 0;
		len = 4 * fz_range(s, 1, 4096);
		id = fz_u8(s);
		c.cdw14 = id < 200 ? 0 : id < 250 ? 4 * fz_u8(s) : fz_u32(s);
		data = fz_alloc(len, 1);
		break;
	case FZ_DB_CREATE:
	case FZ_TBL_CREATE:
		o = fz_slot(st);
		id = fz_u8(s) % 8 ? fz_id(st, s, 24) : fz_u32(s);
		if (!o) {
			struct fz_obj tmp;

			if (sel == FZ_DB_CREATE)
				fz_db_shape(&tmp, s, id, FZ_DB_NMAX);
			else
				fz_tbl_shape(&tmp, s, id);
			r = fz_create(st, &tmp, &cpl);	/* the drive must refuse or hold it */
			fz_forget(&tmp);
			if (!r)	/* an object we cannot track: remove it again */
				fz_nodata(st, sel == FZ_DB_CREATE ? ISP_OP_REIS_DB_DELETE :
					  ISP_OP_RF_TBL_DELETE, id);
			return;
		}
		if (sel == FZ_DB_CREATE)
			fz_db_shape(o, s, id, FZ_DB_NMAX);
		else
			fz_tbl_shape(o, s, id);
		len = sel == FZ_DB_CREATE ? sizeof(o->c.db) : sizeof(o->c.tbl);
		data = fz_alloc(len, 0);
		memcpy(data, &o->c, len);
		c = fz_cmd(fz_opcodes[sel], len);
		fz_mutate(st, s, &c, data, len);
		r = fz_exec(st, &c, data, len, &cpl);
		/* what the drive holds must be what we wrote; else not ours */
		if (r || memcmp(data, &o->c, len) || c.opcode != fz_opcodes[sel]) {
			if (!r)
				fz_nodata(st, sel == FZ_DB_CREATE ? ISP_OP_REIS_DB_DELETE :
					  ISP_OP_RF_TBL_DELETE, *(uint32_t *)data);
			fz_forget(o);
		}
		free(data);
		return;
	case FZ_DB_WRITE:
	case FZ_TBL_WRITE:
		o = fz_pick(st, s, sel == FZ_TBL_WRITE);
		if (o && !o->ready && fz_next_sec(o) && fz_u8(s) % 4) {
			/* in order: the common, valid case */
			fz_write_next(st, o, 4 * fz_range(s, 1, 4096), &cpl);
			return;
		}
		c.cdw12 = o ? o->id : fz_id(st, s, 24);
		c.cdw13 = fz_range(s, 0, 10);
		len = 4 * fz_range(s, 1, 1024);
		id = fz_u8(s);
		c.cdw14 = o && c.cdw13 < ISP_REIS_NSECTIONS && id < 200 ? (uint32_t)o->sent[c.cdw13] :
			  id < 250 ? 4 * fz_u8(s) : fz_u32(s);
		data = fz_alloc(len, 0);
		fz_fill(data, len, fz_u32(s), 0);
		break;
	case FZ_DB_INFO:
	case FZ_DB_COMMIT:
	case FZ_DB_DELETE:
	case FZ_META_READ:
	case FZ_DOC_READ:
	case FZ_TBL_STATS:
	case FZ_TBL_COMMIT:
	case FZ_TBL_DELETE:
	case FZ_SWITCH:
	case FZ_REMAP:
		o = fz_pick(st, s, sel >= FZ_TBL_CREATE);
		c.cdw12 = o && fz_u8(s) % 8 ? o->id : fz_id(st, s, 25) - 1;
		if (sel == FZ_DB_INFO || sel == FZ_TBL_STATS)
			len = sel == FZ_DB_INFO ? sizeof(struct isp_wire_reis_dbinfo) :
			      sizeof(struct isp_wire_rf_stats);
		if (sel == FZ_TBL_STATS)
			c.cdw13 = fz_u8(s) % 2;
		if (sel == FZ_REMAP)
			c.cdw13 = fz_u8(s) & 0xf;
		if (sel == FZ_META_READ) {
			len = 4 * fz_range(s, 1, 3000);
			c.cdw14 = fz_u8(s) % 2 ? 0 : 4 * fz_range(s, 0, 3000);
		}
		if (sel == FZ_DOC_READ) {
			len = 4 * fz_range(s, 1, 200);
			c.cdw13 = o && fz_u8(s) % 8 ? fz_u32(s) % (uint32_t)(o->c.db.n + 1) : fz_u32(s);
		}
		if (len) {
			data = fz_alloc(len, 1);
		}
		break;
	case FZ_SEARCH:
	case FZ_IVF_SEARCH:
		o = fz_pick(st, s, 0);
		data = fz_search_data(st, s, o && fz_u8(s) % 16 ? o : NULL, sel == FZ_IVF_SEARCH,
				      &len);
		c.cdw12 = fz_new_ticket(st, s);
		o = NULL;
		break;
	case FZ_SLS:
		o = fz_pick(st, s, 1);
		data = fz_sls_data(st, s, o && fz_u8(s) % 16 ? o : NULL, &len);
		c.cdw12 = fz_new_ticket(st, s);
		o = NULL;
		break;
	case FZ_PROFILE:
		o = fz_pick(st, s, 1);
		c.cdw12 = o ? o->id : fz_id(st, s, 24);
		len = 4 * (o && fz_u8(s) % 4 ? fz_range(s, 1, o->c.tbl.rows) : fz_range(s, 1, 700));
		c.cdw14 = fz_u8(s) % 4 ? 0 : 4 * fz_u8(s);
		data = fz_alloc(len, 0);
		fz_fill(data, len, fz_u32(s), 0);
		for (id = 0; id < len; id++)	/* counts < 2^24: no overflow games */
			if (id % 4 == 3)
				data[id] = 0;
		o = NULL;
		break;
	case FZ_RAW:
		c = fz_cmd(0, 0);
		c.opcode = fz_u8(s);
		c.nsid = fz_u8(s) % 8 ? 1 : fz_u32(s);
		c.cdw10 = fz_u8(s) % 4 ? fz_range(s, 0, 1100) : fz_u32(s);
		c.cdw11 = fz_u8(s) % 8 ? 0 : fz_u32(s);
		c.cdw12 = fz_u8(s) % 2 ? fz_u8(s) : fz_u32(s);
		c.cdw13 = fz_u8(s) % 2 ? fz_u8(s) % 10 : fz_u32(s);
		c.cdw14 = fz_u8(s) % 2 ? 0 : fz_u32(s);
		c.cdw15 = fz_u8(s) % 2 ? 0 : fz_u32(s);
		len = (uint32_t)(isp_cmd_data_len(&c) <= FZ_MAX_XFER ? isp_cmd_data_len(&c) : 0);
		if (len) {
			data = fz_alloc(len, 0);
			fz_bytes(s, data, len);
		}
		r = fz_exec(st, &c, data, len, &cpl);
		free(data);
		return;
	case FZ_LITERAL:
		c = fz_cmd(0, 0);
		c.opcode = fz_u8(s);
		c.nsid = fz_u32(s);
		fz_literal_cdws(s, &c);
		len = (uint32_t)(isp_cmd_data_len(&c) <= FZ_MAX_XFER ? isp_cmd_data_len(&c) : 0);
		if (len) {
			data = fz_alloc(len, 0);
			fz_bytes(s, data, len);
		}
		fz_exec(st, &c, data, len, &cpl);
		free(data);
		return;
	case FZ_DEPLOY_DB:
	case FZ_DEPLOY_TBL:
		o = fz_slot(st);
		if (!o)
			return;
		id = fz_id(st, s, 24);
		if (sel == FZ_DEPLOY_DB)
			fz_db_shape(o, s, id, FZ_DB_NMAX);
		else
			fz_tbl_shape(o, s, id);
		if (fz_create(st, o, &cpl)) {
			fz_forget(o);
			return;
		}
		id = 4 * fz_range(s, 16, 4096);
		while (fz_next_sec(o) && !fz_write_next(st, o, id, &cpl))
			;
		if (!fz_nodata(st, o->rf ? ISP_OP_RF_TBL_COMMIT : ISP_OP_REIS_DB_COMMIT, o->id))
			o->ready = 1;
		return;
	default:
		return;
	}
	if (len)
		c.cdw10 = (len + 3) / 4;
	fz_mutate(st, s, &c, data, len);
	r = fz_exec(st, &c, data, len, &cpl);
	if (c.opcode == fz_opcodes[sel] && c.cdw12 == (o ? o->id : c.cdw12))
		fz_track(st, sel, o, r);
	free(data);
}

/* ---- per input ---- */

static void fz_identify(struct fz_state *st, struct isp_wire_identify *id)
{
	struct isp_cmd c = fz_cmd(ISP_OP_IDENTIFY, sizeof(*id));
	struct isp_cpl cpl;

	if (fz_exec(st, &c, id, sizeof(*id), &cpl))
		FZ_FAIL("IDENTIFY failed: %s", cpl.err ? cpl.err : "-");
}

/*
 * A database of each kind (BF, IVF with every section) and a table of each
 * mode and dtype, deployed from a fixed PRNG (the same for every input).
 */
static void fz_state_init(struct fz_state *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->lock, NULL);
	st->clock = 1000000;
	st->clk = &st->clock;
	st->verbose = getenv("FZ_VERBOSE") != NULL;
	st->max_xfer = FZ_MAX_XFER;
}

/*
 * The fixtures deployed once per process and geometry into an image
 * (fio_open_mem()) and the harness' view of them; each input of the
 * image kind reopens a copy (fio_mem_clone()) as a backing file.
 */
static struct {
	struct fio *img;
	struct fz_state st;
} fz_tmpl[FZ_NCONFIGS];
static pthread_mutex_t fz_tmpl_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct fz_state *fz_template(int config)
{
	unsigned g = (unsigned)config % FZ_NCONFIGS, i;
	struct fz_state *t = &fz_tmpl[g].st;

	pthread_mutex_lock(&fz_tmpl_lock);
	if (!fz_tmpl[g].img) {
		struct fio *img;

		if (fio_open_mem(&img))
			FZ_FAIL("fio_open_mem");
		fz_state_init(t);
		t->dev = fz_open_on(config, img);
		fz_fixtures(t, config, fz_configs[g].reis);
		isp_dev_close(t->dev);	/* the image holds the committed state */
		t->dev = NULL;
		for (i = 0; i < FZ_MAX_OBJS; i++) {
			/* every fixture is complete: no section data is sent again */
			free(t->obj[i].csize);
			free(t->obj[i].docs);
			t->obj[i].csize = NULL;
			t->obj[i].docs = NULL;
		}
		fz_tmpl[g].img = img;
	}
	pthread_mutex_unlock(&fz_tmpl_lock);
	return t;
}

/*
 * Byte 0 of an input: the geometry (config % FZ_NCONFIGS) and the store,
 * (config / FZ_NCONFIGS) % 2: a fresh in-memory drive whose fixtures are
 * deployed for this input, or a copy of the fixture image reopened as a
 * backing file (the backing file's and the reopen's code fuzzed, the
 * fixtures paid once per process: the copy and the reopen cost less).
 */
int fz_setup(struct fz_state *st, int config)
{
	unsigned g = (unsigned)config % FZ_NCONFIGS;

	if (((unsigned)config / FZ_NCONFIGS) % 2) {
		const struct fz_state *t = fz_template(config);
		struct fio *img;

		if (fio_mem_clone(fz_tmpl[g].img, &img))
			FZ_FAIL("fio_mem_clone");
		fz_state_init(st);
		memcpy(st->obj, t->obj, sizeof(st->obj));
		st->free0 = t->free0;
		st->dram0 = t->dram0;
		st->clock = t->clock;
		st->next_ticket = t->next_ticket;
		st->img = img;
		st->dev = fz_open_on(config, img);
		fz_cs_init(st, config);
		return 0;
	}
	fz_state_init(st);
	st->dev = fz_open(config);
	fz_fixtures(st, config, fz_configs[g].reis);
	fz_cs_init(st, config);
	return 0;
}

void fz_fixtures(struct fz_state *st, int config, int reis)
{
	struct fz_src fix = { .rng = 0x1234567 + (unsigned)config };
	struct isp_wire_identify id;
	unsigned i;

	fz_identify(st, &id);
	st->free0 = id.free_bytes;
	st->dram0 = id.dram_used;
	for (i = 0; i < 5; i++) {
		struct fz_obj *o = &st->obj[i];
		unsigned tries;
		uint16_t s = 1;

		if (i < 2 && !reis)
			continue;
		/* shapes from the PRNG until one of the wanted kind deploys */
		for (tries = 0; tries < 64 && s; tries++) {
			if (i < 2) {
				/* few entries: a PAGE-mode document is a flash page each */
				fz_db_shape(o, &fix, st->id_base + 1 + i, FZ_FIX_NMAX);
				if (o->c.db.kind != (i ? ISP_REIS_IVF : ISP_REIS_BF)) {
					fz_forget(o);
					continue;
				}
			} else {
				fz_tbl_shape(o, &fix, st->id_base + 1 + i);
				/* small: the fixtures are paid for on every input */
				o->c.tbl.rows = 1 + o->c.tbl.rows % 160;
				o->c.tbl.dim = 1 + o->c.tbl.dim % 24;
				o->c.tbl.mode = i - 1;	/* RecSSD, RM-SSD, RecFlash */
				o->c.tbl.dtype = i - 1;	/* FP32, FP16, INT8 */
				o->c.tbl.flags = i == 4 ? ISP_RF_TF_PROFILE : 0;
				fz_tbl_sizes(o);
			}
			s = fz_deploy(st, o, 16384);
			if (s) {
				fz_nodata(st, o->rf ? ISP_OP_RF_TBL_DELETE : ISP_OP_REIS_DB_DELETE,
					  o->id);
				fz_forget(o);
			}
		}
		if (s)	/* a geometry too small for a fixture is a harness bug */
			FZ_FAIL("fixture %u: no shape deploys", i);
	}
}

void fz_release(struct fz_state *st, uint32_t lo, uint32_t hi)
{
	uint32_t t;

	for (t = lo; t && t <= hi; t++)
		fz_nodata(st, ISP_OP_RESULT_RELEASE, t);
}

/*
 * Release every ticket, delete every object; the drive must be empty again.
 * An object may stay busy only while a remap is staged; SWITCH first.
 */
static int fz_ours(const struct fz_state *st, uint32_t id)
{
	return !st->id_base || (id >= st->id_base && id - st->id_base <= 0xffff);
}

void fz_cleanup(struct fz_state *st)
{
	struct isp_wire_identify id;
	uint64_t slm = st->cs ? fz_cs_cleanup(st) : 0;
	uint32_t t;
	unsigned i;

	fz_release(st, 1, st->next_ticket > 8 ? st->next_ticket : 8);
	for (t = 0; t < 32; t++) {
		struct isp_wire_reis_list *l = fz_alloc(FZ_MAX_XFER, 1);
		struct isp_cmd c = fz_cmd(ISP_OP_REIS_DB_LIST, FZ_MAX_XFER);
		struct isp_cpl cpl;
		uint32_t n = 0;

		if (!fz_exec(st, &c, l, FZ_MAX_XFER, &cpl) && l->count) {
			const struct isp_wire_reis_dbinfo *e = (const void *)(l + 1);

			for (i = 0; i < l->count; i++)
				if (fz_ours(st, e[i].create.did)) {
					fz_nodata(st, ISP_OP_REIS_DB_DELETE, e[i].create.did);
					n++;
				}
		}
		c = fz_cmd(ISP_OP_RF_TBL_LIST, FZ_MAX_XFER);
		if (!fz_exec(st, &c, l, FZ_MAX_XFER, &cpl) && l->count) {
			const struct isp_wire_rf_stats *e = (const void *)((struct isp_wire_rf_list *)l + 1);
			uint32_t cnt = ((struct isp_wire_rf_list *)l)->count;

			for (i = 0; i < cnt; i++) {
				if (!fz_ours(st, e[i].create.tid))
					continue;
				fz_nodata(st, ISP_OP_RF_SWITCH, e[i].create.tid);
				fz_nodata(st, ISP_OP_RF_TBL_DELETE, e[i].create.tid);
				n++;
			}
		}
		free(l);
		if (!n)
			break;
	}
	if (t == 32)
		FZ_FAIL("objects remain after 32 delete rounds");
	fz_identify(st, &id);
	if (id.budget_errors)
		FZ_FAIL("%llu gives of more than was held (buffer budget, result table)",
			(unsigned long long)id.budget_errors);
	/* the memory namespace keeps what was written: its backing, exactly */
	if (id.free_bytes != st->free0 || id.dram_used != st->dram0 + slm)
		FZ_FAIL("empty drive leaked: free %llu (was %llu), dram %llu (was %llu + "
			"memory namespace %llu)",
			(unsigned long long)id.free_bytes, (unsigned long long)st->free0,
			(unsigned long long)id.dram_used, (unsigned long long)st->dram0,
			(unsigned long long)slm);
	for (i = 0; i < FZ_MAX_OBJS; i++)
		fz_forget(&st->obj[i]);
}

void fz_run_seq(const uint8_t *data, size_t size, int cs_bias)
{
	struct fz_src s = { .p = data, .n = size };
	struct fz_state st;
	unsigned steps;

	if (size < 2)
		return;
	/* the CS harness: the geometry only, a fresh in-memory drive (the
	 * image kind's copy and reopen cost five times a fresh REIS drive's
	 * fixtures and reach no standard-interface code; seq runs them) */
	fz_setup(&st, cs_bias ? fz_u8(&s) % FZ_NCONFIGS : fz_u8(&s));
	st.cs_bias = cs_bias;
	for (steps = 0; steps < FZ_MAX_STEPS && !fz_done(&s); steps++)
		fz_step(&st, &s);
	fz_finish(&st);
}

void fz_finish(struct fz_state *st)
{
	fz_cleanup(st);
	if (st->cs) {
		pthread_mutex_destroy(&st->cs->lock);
		free(st->cs);
		st->cs = NULL;
	}
	isp_dev_close(st->dev);
	fio_close(st->img);
	pthread_mutex_destroy(&st->lock);
	st->dev = NULL;
	st->img = NULL;
}
