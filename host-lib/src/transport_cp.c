/* SPDX-License-Identifier: MIT */
/*
 * transport_cp.c - the standard path: libreis' vendor commands carried by
 * NVMe's computational storage command sets (docs/command-set.md §9,
 * docs/libreis.md "The standard path"). A handle opened with REIS_OPEN_CP
 * (or ISP_PATH=cp) finds the drive's memory (SLM, CSI 03h) and compute (CP,
 * CSI 04h) namespaces with Identify, activates the device-defined programs
 * and creates one memory range set: range 0 the input area, range 1 a heap
 * for outputs. Then every vendor command the API builds runs as
 *
 *   Memory Write (its H2C data, into range 0)
 *   Execute Program (its program: search, IVF search, SLS, documents, or
 *                    isp-manage for the rest)
 *   Memory Read (its C2H data, or later, a RESULT_READ of its result)
 *
 * A search's or SLS's result stays in range 1 under its ticket until the
 * host releases it, as the vendor ticket table keeps it, so the API's
 * results machine (core_result.c) works unchanged on top. The completion a
 * vendor command gets is the Execute Program's: its status, and its return
 * value, the modeled cost. Commands run one at a time per drive, inside
 * submit (like the ioctl transport), on inner handles of the namespaces'
 * char devices (Linux checks the NSID against the device) or of the
 * in-process drive.
 *
 * One process per drive: the memory namespace has no allocator the host
 * could share, so two processes on the standard path would overwrite each
 * other's areas. reis_clone()d handles share the areas.
 */
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isp_wire.h"
#include "core_priv.h"

/* NVMe opcodes and CNS values the set-up sends (NVMe Base 2.1, 5.1.13). */
#define CP_ADM_IDENTIFY 0x06
#define CP_CNS_CS_NS 0x05
#define CP_CNS_CS_ACTIVE_LIST 0x07
#define CP_ID_LEN 4096u
#define CP_MAX_EXT 1100u		/* results held + scratch areas */
#define CP_HDR_TICKET offsetof(struct isp_wire_result_hdr, ticket)
#define CP_MAX_PAGE 65536u		/* the largest page a preset may have */

/* An area of range 1: a ticket's result (ticket != 0) or scratch. */
struct cp_ext {
	uint32_t ticket;
	uint64_t off;			/* in the memory namespace */
	uint64_t len;			/* reserved */
	uint64_t total;			/* result bytes (ticketed) */
};

struct cp_shared {
	pthread_mutex_t lock;
	int refs;
	struct reis_dev *slm, *cp;	/* inner handles (the same in-process) */
	struct reis_dev *nvm;		/* the NVM namespace's own transport */
	struct reis_dev *admin;		/* whose transport takes admin commands */
	uint32_t slm_nsid, cp_nsid;
	uint64_t msz;
	uint32_t max_rw;		/* bytes of one Memory Read / Write */
	uint32_t page_bytes;		/* bounds a document chunk */
	uint16_t rsid;
	uint64_t in_off, in_len;	/* range 0 */
	uint64_t heap_off, heap_len;	/* range 1 */
	struct cp_ext ext[CP_MAX_EXT];	/* sorted by off */
	unsigned next;
	unsigned tickets, max_tickets;	/* results held; the drive's table size */
};

struct cp_be {
	struct cp_shared *sh;
	struct reis_req *head, *tail;	/* completed, for reap */
};

int reis__want_cp(uint32_t flags_cp, uint32_t flags_vendor)
{
	const char *e;

	if (flags_cp)
		return 1;
	if (flags_vendor)
		return 0;
	e = getenv("ISP_PATH");
	return e && !strcmp(e, "cp");
}

/* ---- commands on the inner handles ---- */

static int cp_admin(struct cp_shared *sh, uint8_t opc, uint32_t nsid, uint32_t cdw10,
		    uint32_t cdw11, void *data, uint32_t len, struct reis_cpl *cpl)
{
	struct reis_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = nsid;
	c.cdw10 = cdw10;
	c.cdw11 = cdw11;
	if (!sh->admin->ops->admin)
		return -EOPNOTSUPP;
	return sh->admin->ops->admin(sh->admin, &c, data, len, cpl);
}

/* One I/O command of the memory or compute namespace; 0 or -errno, the
 * drive's status in @cpl. */
static int cp_io(struct reis_dev *inner, const struct reis_cmd *cmd, void *data, uint32_t len,
		 struct reis_cpl *cpl)
{
	struct reis_req r;
	int ret;

	reis_prep_raw(&r, cmd, data, len);
	ret = reis_exec(inner, &r);
	*cpl = r.cpl;
	if (r.cpl.status)
		return 0;
	return ret;
}

static int cp_mem(struct cp_shared *sh, uint8_t opc, uint64_t sb, void *buf, uint32_t len,
		  struct reis_cpl *cpl)
{
	struct reis_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.nsid = sh->slm_nsid;
	c.cdw10 = (uint32_t)sb;
	c.cdw11 = (uint32_t)(sb >> 32);
	c.cdw12 = len;
	return cp_io(sh->slm, &c, opc == ISP_CS_OP_MEM_FILL ? NULL : buf,
		     opc == ISP_CS_OP_MEM_FILL ? 0 : len, cpl);
}

/* Move @len bytes between the host and the memory in max_rw pieces. */
static int cp_mem_bulk(struct cp_shared *sh, uint8_t opc, uint64_t sb, uint8_t *buf,
		       uint64_t len, struct reis_cpl *cpl)
{
	uint64_t off;
	int ret = 0;

	memset(cpl, 0, sizeof(*cpl));
	for (off = 0; off < len && !ret && !cpl->status; off += sh->max_rw) {
		uint32_t n = (uint32_t)(len - off < sh->max_rw ? len - off : sh->max_rw);

		ret = cp_mem(sh, opc, sb + off, buf + off, n, cpl);
	}
	return ret;
}

/* ---- range 1's areas ---- */

static struct cp_ext *cp_find(struct cp_shared *sh, uint32_t ticket)
{
	unsigned i;

	for (i = 0; i < sh->next; i++)
		if (sh->ext[i].ticket == ticket)
			return &sh->ext[i];
	return NULL;
}

/* An area of @want bytes (the largest gap if none is that big); -ENOSPC
 * when range 1 holds nothing free. */
static int cp_alloc(struct cp_shared *sh, uint32_t ticket, uint64_t want, struct cp_ext **out)
{
	uint64_t at = sh->heap_off, best_off = 0, best_len = 0, end = sh->heap_off + sh->heap_len;
	unsigned i, pos = 0;

	want = (want + 3) & ~UINT64_C(3);
	if (sh->next == CP_MAX_EXT)
		return -ENOSPC;
	for (i = 0; i <= sh->next; i++) {
		uint64_t gap_end = i < sh->next ? sh->ext[i].off : end;
		uint64_t gap = gap_end - at;

		if (gap >= want) {
			best_off = at;
			best_len = want;
			pos = i;
			break;
		}
		if (gap > best_len) {
			best_off = at;
			best_len = gap;
			pos = i;
		}
		if (i < sh->next)
			at = sh->ext[i].off + sh->ext[i].len;
	}
	/* a result that could fit waits for releases (Resource Busy); one
	 * larger than range 1 gets the largest gap and the drive's answer */
	if (best_len < 4 || (best_len < want && want <= sh->heap_len))
		return -ENOSPC;
	memmove(&sh->ext[pos + 1], &sh->ext[pos], (sh->next - pos) * sizeof(sh->ext[0]));
	sh->next++;
	sh->ext[pos].ticket = ticket;
	sh->ext[pos].off = best_off;
	sh->ext[pos].len = best_len;
	sh->ext[pos].total = 0;
	*out = &sh->ext[pos];
	return 0;
}

static void cp_free(struct cp_shared *sh, struct cp_ext *e)
{
	unsigned i = (unsigned)(e - sh->ext);

	if (e->ticket && e->total)
		sh->tickets--;
	memmove(&sh->ext[i], &sh->ext[i + 1], (sh->next - i - 1) * sizeof(sh->ext[0]));
	sh->next--;
}

/* ---- Execute Program ---- */

/*
 * Run program @pind on @in (@in_len bytes, written into range 0 first),
 * its output at @out in range 1. The vendor command's completion is the
 * Execute's; a failure records what was sent for the error log lookup.
 */
static int cp_run(struct cp_shared *sh, struct reis_req *req, unsigned pind,
		  const void *hdr, uint32_t hdr_len, const void *in, uint32_t in_len,
		  const struct cp_ext *out)
{
	struct reis_cpl cpl;
	struct reis_cmd c;
	uint64_t total = (uint64_t)hdr_len + in_len;
	int ret;

	if (total > sh->in_len)
		return -EINVAL;
	ret = 0;
	if (hdr_len) {
		/* the header and the start of the data in one Memory Write */
		uint8_t *b = malloc(total < sh->max_rw ? total : sh->max_rw);
		uint32_t first = (uint32_t)(total < sh->max_rw ? total : sh->max_rw);

		if (!b)
			return -ENOMEM;
		memcpy(b, hdr, hdr_len);
		if (first > hdr_len)	/* @in may be NULL when @in_len is 0 */
			memcpy(b + hdr_len, in, first - hdr_len);
		ret = cp_mem(sh, ISP_CS_OP_MEM_WRITE, sh->in_off, b, first, &cpl);
		free(b);
		if (!ret && !cpl.status && total > first)
			ret = cp_mem_bulk(sh, ISP_CS_OP_MEM_WRITE, sh->in_off + first,
					  (uint8_t *)(uintptr_t)in + (first - hdr_len),
					  total - first, &cpl);
	} else {
		ret = cp_mem_bulk(sh, ISP_CS_OP_MEM_WRITE, sh->in_off, (uint8_t *)(uintptr_t)in,
				  total, &cpl);
	}
	if (ret || cpl.status) {
		req->cpl = cpl;
		req->cpl.err = ret;
		return 0;
	}
	memset(&c, 0, sizeof(c));
	c.opcode = ISP_CS_OP_EXECUTE;
	c.nsid = sh->cp_nsid;
	c.cdw2 = pind | (uint32_t)sh->rsid << 16;
	c.cdw10 = (uint32_t)total;
	c.cdw11 = 0;
	c.cdw12 = (uint32_t)(out->off - sh->heap_off);
	ret = cp_io(sh->cp, &c, NULL, 0, &cpl);
	req->cpl = cpl;
	req->cpl.err = ret;
	if (cpl.status) {
		/* core_errlog.c matches the Error Information entry to this */
		const uint32_t cdw[6] = { c.cdw10, c.cdw11, c.cdw12, c.cdw13, c.cdw14, c.cdw15 };

		req->priv.rsvd0 = REIS__PRIV_WIRE | c.opcode;
		req->priv.rsvd1 = isp_wire_cmd_digest(c.opcode, c.nsid, cdw);
	}
	return 0;
}

static void cp_status(struct reis_req *req, uint16_t status)
{
	memset(&req->cpl, 0, sizeof(req->cpl));
	req->cpl.status = status;
}

/* Upper bound of a search's or SLS's result, from its header. */
static uint64_t cp_result_bound(const struct cp_shared *sh, const struct reis_req *req)
{
	uint8_t opc = req->cmd.opcode;

	if (opc == ISP_OP_RF_SLS) {
		struct isp_wire_rf_sls s;

		if (req->data_len < sizeof(s))
			return 4096;
		memcpy(&s, req->data, sizeof(s));
		return sizeof(struct isp_wire_result_hdr) + sizeof(struct isp_wire_rf_result) +
		       4ull * s.nbags * s.dim;
	} else {
		struct isp_wire_reis_search s;
		uint64_t hits;

		if (req->data_len < sizeof(s))
			return 4096;
		memcpy(&s, req->data, sizeof(s));
		hits = (uint64_t)s.nq * s.k;
		return sizeof(struct isp_wire_result_hdr) + sizeof(struct isp_wire_reis_result) +
		       hits * sizeof(struct isp_wire_reis_hit) +
		       (s.flags & ISP_REIS_SF_DOCS ?
			hits * (sh->page_bytes ? sh->page_bytes : CP_MAX_PAGE) : 0);
	}
}

static void cp_ticketed(struct cp_shared *sh, struct reis_req *req, unsigned pind)
{
	struct isp_wire_result_hdr h;
	struct reis_cpl cpl;
	struct cp_ext *e;
	uint32_t ticket = req->cmd.cdw12;
	int ret;

	if (!ticket) {
		cp_status(req, REIS_SC_INVALID_FIELD | REIS_STATUS_DNR);
		return;
	}
	if (cp_find(sh, ticket)) {
		cp_status(req, REIS_SC_TICKET_IN_USE | REIS_STATUS_DNR);
		return;
	}
	/* as many results as the drive's ticket table holds (ISP_IDENTIFY) */
	ret = sh->max_tickets && sh->tickets >= sh->max_tickets ? -ENOSPC :
	      cp_alloc(sh, ticket, cp_result_bound(sh, req), &e);
	if (ret) {
		cp_status(req, REIS_SC_RESOURCE);	/* retry after releasing */
		return;
	}
	cp_run(sh, req, pind, NULL, 0, req->data, req->data_len, e);
	if (req->cpl.err || req->cpl.status) {
		cp_free(sh, e);
		return;
	}
	ret = cp_mem(sh, ISP_CS_OP_MEM_READ, e->off, &h, sizeof(h), &cpl);
	if (ret || cpl.status || h.total_bytes > e->len) {
		cp_free(sh, e);
		req->cpl.err = ret ? ret : -EIO;
		return;
	}
	e->total = h.total_bytes;
	e->len = (h.total_bytes + 3) & ~UINT64_C(3);	/* give back the rest */
	sh->tickets++;
}

static void cp_result_read(struct cp_shared *sh, struct reis_req *req)
{
	uint64_t off = (uint64_t)req->cmd.cdw15 << 32 | req->cmd.cdw14, n;
	struct cp_ext *e = req->cmd.cdw12 ? cp_find(sh, req->cmd.cdw12) : NULL;
	struct reis_cpl cpl;
	int ret;

	memset(&req->cpl, 0, sizeof(req->cpl));
	if (!e) {
		cp_status(req, REIS_SC_UNKNOWN_ID | REIS_STATUS_DNR);
		return;
	}
	if (req->cmd.cdw13 & ~ISP_RESULT_F_RELEASE) {
		cp_status(req, REIS_SC_INVALID_FIELD | REIS_STATUS_DNR);
		return;
	}
	if (off >= e->total) {
		cp_status(req, REIS_SC_BAD_OFFSET | REIS_STATUS_DNR);
		return;
	}
	n = e->total - off < req->data_len ? e->total - off : req->data_len;
	n = (n + 3) & ~UINT64_C(3);
	memset(req->data, 0, req->data_len);
	ret = cp_mem_bulk(sh, ISP_CS_OP_MEM_READ, e->off + off, req->data, n, &cpl);
	req->cpl = cpl;
	req->cpl.err = ret;
	/* bytes past the result read as zero, as from the vendor table */
	if (off + n > e->total)
		memset((uint8_t *)req->data + (e->total - off), 0, (size_t)(off + n - e->total));
	/* a program's blob names no ticket: it is the host's, as in the table */
	if (!ret && !cpl.status && off < CP_HDR_TICKET + 4 && off + n >= CP_HDR_TICKET + 4)
		memcpy((uint8_t *)req->data + (CP_HDR_TICKET - off), &e->ticket, 4);
	if (!ret && !cpl.status && (req->cmd.cdw13 & ISP_RESULT_F_RELEASE))
		cp_free(sh, e);
}

/* DOC_READ as the documents program with a one-entry hit list. */
static void cp_doc_read(struct cp_shared *sh, struct reis_req *req)
{
	struct isp_wire_cs_doc_ref ref = { req->cmd.cdw12, req->cmd.cdw13 };
	struct isp_wire_cs_docs_hdr h;
	struct reis_cpl cpl;
	struct cp_ext *e;
	uint32_t dl, n;
	int ret;

	if (req->cmd.cdw14 || req->cmd.cdw15 || req->data_len < 4) {
		cp_status(req, REIS_SC_INVALID_FIELD | REIS_STATUS_DNR);
		return;
	}
	if (cp_alloc(sh, 0, sizeof(h) + 4 + (sh->page_bytes ? sh->page_bytes : CP_MAX_PAGE), &e)) {
		cp_status(req, REIS_SC_RESOURCE);
		return;
	}
	cp_run(sh, req, ISP_CS_PROG_REIS_DOCS, NULL, 0, &ref, sizeof(ref), e);
	if (!req->cpl.err && !req->cpl.status) {
		ret = cp_mem(sh, ISP_CS_OP_MEM_READ, e->off, &h, sizeof(h), &cpl);
		if (!ret && !cpl.status)
			ret = cp_mem(sh, ISP_CS_OP_MEM_READ, e->off + sizeof(h), &dl, 4, &cpl);
		memset(req->data, 0, req->data_len);
		if (!ret && !cpl.status) {
			/* DOC_READ's layout: the length, the first bytes that fit */
			memcpy(req->data, &dl, 4);
			n = dl < req->data_len - 4 ? dl : req->data_len - 4;
			n = (n + 3) & ~3u;
			if (n > req->data_len - 4)
				n = req->data_len - 4;
			if (n)
				ret = cp_mem_bulk(sh, ISP_CS_OP_MEM_READ, e->off + sizeof(h) + 4,
						  (uint8_t *)req->data + 4, n, &cpl);
			if (dl < req->data_len - 4)
				memset((uint8_t *)req->data + 4 + dl, 0, req->data_len - 4 - dl);
		}
		if (ret || cpl.status) {
			req->cpl.err = ret;
			req->cpl.status = cpl.status;
		}
	}
	cp_free(sh, e);
}

/* Everything else: the isp-manage program runs the vendor command. */
static void cp_manage(struct cp_shared *sh, struct reis_req *req)
{
	enum isp_dir dir = isp_wire_dir(req->cmd.opcode);
	struct isp_wire_cs_manage h;
	struct reis_cpl cpl;
	struct cp_ext *e;
	int ret;

	memset(&h, 0, sizeof(h));
	h.opcode = req->cmd.opcode;
	h.cdw10 = req->cmd.cdw10;
	h.cdw11 = req->cmd.cdw11;
	h.cdw12 = req->cmd.cdw12;
	h.cdw13 = req->cmd.cdw13;
	h.cdw14 = req->cmd.cdw14;
	h.cdw15 = req->cmd.cdw15;
	h.nsid = req->cmd.nsid;
	/* the drive moves NDT dwords: past the host's buffer is a DMA failure,
	 * as the vendor command's PRPs would give (a raw command may say so);
	 * past max_xfer no data goes and the drive's check refuses NDT */
	if (dir == ISP_DIR_H2C || dir == ISP_DIR_C2H) {
		uint64_t ndt = (uint64_t)req->cmd.cdw10 * 4u;

		if (ndt > sh->max_rw)
			ndt = 0;
		else if (ndt > req->data_len) {
			cp_status(req, REIS_SC_DATA_XFER_ERROR);
			return;
		}
		if (dir == ISP_DIR_H2C)
			h.in_len = (uint32_t)ndt;
		else
			h.out_len = (uint32_t)ndt;
	}
	if (cp_alloc(sh, 0, h.out_len ? h.out_len : 4, &e)) {
		cp_status(req, REIS_SC_RESOURCE);
		return;
	}
	cp_run(sh, req, ISP_CS_PROG_MANAGE, &h, sizeof(h), h.in_len ? req->data : NULL,
	       h.in_len, e);
	if (!req->cpl.err && !req->cpl.status && h.out_len) {
		ret = cp_mem_bulk(sh, ISP_CS_OP_MEM_READ, e->off, req->data, h.out_len, &cpl);
		if (ret || cpl.status) {
			req->cpl.err = ret;
			req->cpl.status = cpl.status;
		}
	}
	cp_free(sh, e);
}

/* NVM commands (block reads and writes) keep the NVM namespace's path. */
static void cp_passthru(struct cp_shared *sh, struct reis_req *req)
{
	struct reis_req r;
	int ret;

	reis_prep_raw(&r, &req->cmd, req->data, req->data_len);
	ret = reis_exec(sh->nvm, &r);
	req->cpl = r.cpl;
	if (!r.cpl.status)
		req->cpl.err = ret;
}

static void cp_translate(struct cp_shared *sh, struct reis_req *req)
{
	if (req->cmd.opcode < ISP_OP_NOOP) {
		cp_passthru(sh, req);
		return;
	}
	switch (req->cmd.opcode) {
	case ISP_OP_REIS_SEARCH:
		cp_ticketed(sh, req, ISP_CS_PROG_REIS_SEARCH);
		break;
	case ISP_OP_REIS_IVF_SEARCH:
		cp_ticketed(sh, req, ISP_CS_PROG_REIS_IVF);
		break;
	case ISP_OP_RF_SLS:
		cp_ticketed(sh, req, ISP_CS_PROG_RF_SLS);
		break;
	case ISP_OP_RESULT_READ:
		cp_result_read(sh, req);
		break;
	case ISP_OP_RESULT_RELEASE: {
		struct cp_ext *e = req->cmd.cdw12 ? cp_find(sh, req->cmd.cdw12) : NULL;

		cp_status(req, e ? 0 : REIS_SC_UNKNOWN_ID | REIS_STATUS_DNR);
		if (e)
			cp_free(sh, e);
		break;
	}
	case ISP_OP_REIS_DOC_READ:
		cp_doc_read(sh, req);
		break;
	case ISP_OP_TRACE_ARM:
		/* a timeline of the next command: the vendor path's tool */
		cp_status(req, REIS_SC_INVALID_OPCODE | REIS_STATUS_DNR);
		break;
	default:
		cp_manage(sh, req);
		break;
	}
}

/* ---- the transport ---- */

static int cp_submit(struct reis_dev *dev, struct reis_req *req)
{
	struct cp_be *b = dev->be;

	req->priv.rsvd0 = 0;
	req->priv.rsvd1 = 0;
	pthread_mutex_lock(&b->sh->lock);
	/* a document chunk is at most a page (docs/command-set.md §4) */
	if (!b->sh->page_bytes && dev->have_info) {
		b->sh->page_bytes = dev->info.page_bytes;
		b->sh->max_tickets = dev->info.max_tickets;
	}
	cp_translate(b->sh, req);
	pthread_mutex_unlock(&b->sh->lock);
	req->priv.next = NULL;
	if (b->tail)
		b->tail->priv.next = req;
	else
		b->head = req;
	b->tail = req;
	return 0;
}

static int cp_reap(struct reis_dev *dev, unsigned min, unsigned max, int timeout_ms,
		   struct reis_req **out)
{
	struct cp_be *b = dev->be;
	unsigned n = 0;

	(void)min;	/* everything submitted is already complete */
	(void)timeout_ms;
	while (b->head && n < max) {
		out[n++] = b->head;
		b->head = b->head->priv.next;
	}
	if (!b->head)
		b->tail = NULL;
	return (int)n;
}

static void cp_shared_put(struct cp_shared *sh)
{
	struct reis_cpl cpl;

	pthread_mutex_lock(&sh->lock);
	if (--sh->refs) {
		pthread_mutex_unlock(&sh->lock);
		return;
	}
	pthread_mutex_unlock(&sh->lock);
	if (sh->rsid)
		cp_admin(sh, ISP_CS_OP_MRS_MGMT, sh->cp_nsid,
			 ISP_CS_MRS_DELETE | (uint32_t)sh->rsid << 16, 0, NULL, 0, &cpl);
	if (sh->cp && sh->cp != sh->slm)
		reis_close(sh->cp);
	if (sh->nvm && sh->nvm != sh->slm)
		reis_close(sh->nvm);
	reis_close(sh->slm);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}

static void cp_close(struct reis_dev *dev)
{
	struct cp_be *b = dev->be;

	if (!b)
		return;
	cp_shared_put(b->sh);
	free(b);
	dev->be = NULL;
}

static int cp_clone(struct reis_dev *dev, struct reis_dev *out)
{
	struct cp_be *b = dev->be, *nb = calloc(1, sizeof(*nb));

	if (!nb)
		return -ENOMEM;
	pthread_mutex_lock(&b->sh->lock);
	b->sh->refs++;
	pthread_mutex_unlock(&b->sh->lock);
	nb->sh = b->sh;
	out->be = nb;
	return 0;
}

static int cp_log(struct reis_dev *dev, uint8_t lid, uint64_t off, void *buf, uint32_t len)
{
	struct reis_dev *in = ((struct cp_be *)dev->be)->sh->slm;

	return in->ops->log ? in->ops->log(in, lid, off, buf, len) : -EOPNOTSUPP;
}

static int cp_open(struct reis_dev *dev, const char *path, const void *arg)
{
	(void)dev;
	(void)path;
	(void)arg;
	return -EINVAL;		/* reis__cp_wrap() sets the transport up */
}

const struct reis_be_ops reis__be_cp = {
	.name = "cp",
	.open = cp_open,
	.clone = cp_clone,
	.close = cp_close,
	.submit = cp_submit,
	.flush = NULL,
	.reap = cp_reap,
	.log = cp_log,
};

int reis_path_cp(const struct reis_dev *dev)
{
	return dev && dev->ops == &reis__be_cp;
}

/* ---- set-up ---- */

/* The first namespace of command set @csi (Identify CNS 07h), or 0. */
static uint32_t cp_find_ns(struct cp_shared *sh, uint8_t csi)
{
	uint32_t *list = NULL;
	struct reis_cpl cpl;
	uint32_t nsid = 0;

	if (posix_memalign((void **)&list, 4096, CP_ID_LEN))
		return 0;
	memset(list, 0, CP_ID_LEN);
	if (!cp_admin(sh, CP_ADM_IDENTIFY, 0, CP_CNS_CS_ACTIVE_LIST, (uint32_t)csi << 24, list,
		      CP_ID_LEN, &cpl) && !cpl.status)
		nsid = list[0];
	free(list);
	return nsid;
}

/* The /dev/ngXnY of controller @ctrl whose NSID is @nsid. */
static int cp_ng_path(unsigned long ctrl, uint32_t nsid, char *out, size_t len)
{
	char pre[32];
	struct dirent *d;
	DIR *dir = opendir("/dev");
	int found = 0;

	if (!dir)
		return -errno;
	snprintf(pre, sizeof(pre), "ng%lun", ctrl);
	while (!found && (d = readdir(dir))) {
		uint32_t got = 0;
		int fd;

		if (strncmp(d->d_name, pre, strlen(pre)) || strlen(d->d_name) + 6 > len)
			continue;
		memcpy(out, "/dev/", 5);
		memcpy(out + 5, d->d_name, strlen(d->d_name) + 1);
		fd = open(out, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		found = !reis__nsid(fd, &got) && got == nsid;
		close(fd);
	}
	closedir(dir);
	return found ? 0 : -ENOENT;
}

/* An inner handle on a namespace's char device, its transport as @dev's. */
static int cp_open_inner(struct reis_dev *dev, const char *path, struct reis_dev **out)
{
	struct reis_dev *in = reis__dev_alloc(dev->ops, path, 1);
	int ret;

	*out = NULL;
	if (!in)
		return -ENOMEM;
	in->fd = open(path, O_RDWR | O_CLOEXEC);
	if (in->fd < 0) {
		ret = -errno;
		reis__dev_free(in);
		return ret;
	}
	ret = reis__nsid(in->fd, &in->nsid);
	if (!ret)
		ret = dev->ops->open(in, path, NULL);
	if (ret) {
		reis__dev_free(in);
		return ret;
	}
	in->max_xfer = REIS_MAX_XFER_CAP;
	in->have_info = 1;	/* never identified: a raw namespace handle */
	*out = in;
	return 0;
}

static int cp_setup(struct reis_dev *dev, struct cp_shared *sh)
{
	struct isp_wire_cs_id_ns_slm *slm = NULL;
	struct isp_wire_cs_mrd r[2];
	struct reis_cpl cpl;
	char path[REIS_PATH_MAX];
	unsigned long ctrl, ns;
	unsigned i;
	int ret;

	sh->slm_nsid = cp_find_ns(sh, ISP_CSI_SLM);
	sh->cp_nsid = cp_find_ns(sh, ISP_CSI_CP);
	if (!sh->slm_nsid || !sh->cp_nsid)
		return reis__seterr(dev, -ENODEV, "standard path: the drive has no memory "
				    "(CSI 03h) or compute (CSI 04h) namespace (Identify CNS 07h; "
				    "QEMU: isp-cs=on)");
	if (posix_memalign((void **)&slm, 4096, CP_ID_LEN))
		return -ENOMEM;
	memset(slm, 0, CP_ID_LEN);
	ret = cp_admin(sh, CP_ADM_IDENTIFY, sh->slm_nsid, CP_CNS_CS_NS,
		       (uint32_t)ISP_CSI_SLM << 24, slm, CP_ID_LEN, &cpl);
	if (!ret && cpl.status)
		ret = reis_status_errno(cpl.status);
	sh->msz = slm->msz;
	sh->max_rw = slm->max_rw;
	free(slm);
	if (ret)
		return reis__seterr(dev, ret, "standard path: Identify of the memory "
				    "namespace %u failed", sh->slm_nsid);
	if (sh->max_rw < 4096 || sh->max_rw > REIS_MAX_XFER_CAP)
		sh->max_rw = REIS_IDENTIFY_LEN;
	if (dev->xfer_cap && sh->max_rw > dev->xfer_cap)
		sh->max_rw = dev->xfer_cap & ~3u;
	/* range 0: one command's input and a manage header; range 1: the rest */
	sh->in_off = 0;
	sh->in_len = (uint64_t)sh->max_rw + 4096;
	sh->heap_off = sh->in_len;
	if (sh->msz < sh->in_len + (1u << 20))
		return reis__seterr(dev, -ENOSPC, "standard path: the memory namespace "
				    "holds %llu bytes, the path needs %llu",
				    (unsigned long long)sh->msz,
				    (unsigned long long)sh->in_len + (1u << 20));
	sh->heap_len = (sh->msz - sh->heap_off) & ~UINT64_C(3);
	if (sh->heap_len > UINT32_MAX)
		sh->heap_len = UINT32_MAX & ~UINT64_C(3);	/* a range's LEN is 32-bit */

	if (dev->fd >= 0) {
		/* Linux checks the NSID of an I/O command against its device */
		if (sscanf(strrchr(dev->path, '/') ? strrchr(dev->path, '/') + 1 : dev->path,
			   "ng%lun%lu", &ctrl, &ns) != 2)
			return reis__seterr(dev, -EINVAL, "standard path: %s is not a "
					    "/dev/ngXnY device", dev->path);
		ret = cp_ng_path(ctrl, sh->slm_nsid, path, sizeof(path));
		if (!ret)
			ret = cp_open_inner(dev, path, &sh->slm);
		if (!ret)
			ret = cp_ng_path(ctrl, sh->cp_nsid, path, sizeof(path));
		if (!ret)
			ret = cp_open_inner(dev, path, &sh->cp);
		if (ret)
			return reis__seterr(dev, ret, "standard path: no char device for "
					    "namespace %u or %u of nvme%lu (%s)", sh->slm_nsid,
					    sh->cp_nsid, ctrl, reis_strerror(ret));
	}
	for (i = 0; i < ISP_CS_NPROGS; i++) {
		ret = cp_admin(sh, ISP_CS_OP_PROGRAM_ACT, sh->cp_nsid,
			       i | (uint32_t)ISP_CS_ACT_ACTIVATE << 16, 0, NULL, 0, &cpl);
		if (ret || cpl.status)
			return reis__seterr(dev, ret ? ret : reis_status_errno(cpl.status),
					    "standard path: activating program %u failed "
					    "(status 0x%x)", i, cpl.status);
	}
	memset(r, 0, sizeof(r));
	r[0].mnsid = r[1].mnsid = sh->slm_nsid;
	r[0].sb = sh->in_off;
	r[0].len = (uint32_t)sh->in_len;
	r[1].sb = sh->heap_off;
	r[1].len = (uint32_t)sh->heap_len;
	ret = cp_admin(sh, ISP_CS_OP_MRS_MGMT, sh->cp_nsid, ISP_CS_MRS_CREATE, 2, r,
		       sizeof(r), &cpl);
	if (ret || cpl.status)
		return reis__seterr(dev, ret ? ret : reis_status_errno(cpl.status),
				    "standard path: creating the memory range set failed "
				    "(status 0x%x)", cpl.status);
	sh->rsid = (uint16_t)cpl.result;
	return 0;
}

int reis__cp_wrap(struct reis_dev *dev)
{
	struct cp_shared *sh = calloc(1, sizeof(*sh));
	struct cp_be *b = calloc(1, sizeof(*b));
	struct reis_dev *in = NULL;
	int ret;

	if (!sh || !b) {
		free(sh);
		free(b);
		return -ENOMEM;
	}
	pthread_mutex_init(&sh->lock, NULL);
	sh->refs = 1;
	if (dev->fd < 0) {
		/* in-process: the drive's own transport is the inner handle */
		in = reis__dev_alloc(dev->ops, "inproc", 1);
		if (!in) {
			free(sh);
			free(b);
			return -ENOMEM;
		}
		in->be = dev->be;
		in->nsid = dev->nsid;
		in->max_xfer = REIS_MAX_XFER_CAP;
		in->have_info = 1;
		sh->slm = sh->cp = sh->admin = sh->nvm = in;
	} else {
		sh->admin = dev;	/* the NVM namespace's device takes admin ioctls */
	}
	ret = cp_setup(dev, sh);
	if (ret) {
		if (!in) {
			if (sh->cp)
				reis_close(sh->cp);
			if (sh->slm)
				reis_close(sh->slm);
		} else {
			in->be = NULL;	/* @dev still owns it */
			reis__dev_free(in);
		}
		pthread_mutex_destroy(&sh->lock);
		free(sh);
		free(b);
		return ret;
	}
	if (!in) {
		/* admin commands now go through the memory namespace's device;
		 * the NVM namespace keeps its transport for block I/O */
		sh->admin = sh->slm;
		sh->nvm = reis__dev_alloc(dev->ops, dev->path, dev->qdepth);
		if (!sh->nvm || (sh->nvm->fd = dup(dev->fd)) < 0) {
			reis__dev_free(sh->nvm);
			sh->nvm = NULL;
			cp_shared_put(sh);
			free(b);
			return -ENOMEM;
		}
		sh->nvm->be = dev->be;
		sh->nvm->nsid = dev->nsid;
		sh->nvm->max_xfer = REIS_MAX_XFER_CAP;
		sh->nvm->have_info = 1;
	}
	b->sh = sh;
	dev->be = b;
	dev->ops = &reis__be_cp;
	return 0;
}
