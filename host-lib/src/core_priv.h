/* SPDX-License-Identifier: MIT */
/*
 * core_priv.h - libreis internals: the handle and the transport operations
 * table. Never installed.
 *
 * The core (core.c) checks, stamps and counts requests; a transport only
 * moves a command to the drive and brings its raw completion (result,
 * status, transport errno) back. One file per transport; a transport that is
 * compiled out is a stub whose open returns -ENOSYS.
 */
#ifndef CORE_PRIV_H
#define CORE_PRIV_H

#include <stdint.h>

#include "libreis.h"

/**
 * struct reis_be_ops - a transport.
 * @name: "io_uring", "ioctl", "inproc".
 * @open: set up dev->be for @path (or the in-process options in @arg).
 * @clone: set up @out->be as a second handle on the drive of @dev.
 * @close: release dev->be; called with nothing in flight.
 * @submit: queue @req (checked and stamped by the core). The transport may
 *          complete it at once; it must not call its callback.
 * @flush: hand queued requests to the drive (one syscall); may be NULL.
 * @reap: move up to @max completed requests into @out, waiting until at
 *        least @min are available or @timeout_ms (-1: forever) expires.
 *        Fills req->cpl.result, .status and .err (a transport errno, or 0
 *        when the drive answered). Returns the count or -errno.
 */
struct reis_be_ops {
	const char *name;
	int (*open)(struct reis_dev *dev, const char *path, const void *arg);
	int (*clone)(struct reis_dev *dev, struct reis_dev *out);
	void (*close)(struct reis_dev *dev);
	int (*submit)(struct reis_dev *dev, struct reis_req *req);
	int (*flush)(struct reis_dev *dev);
	int (*reap)(struct reis_dev *dev, unsigned min, unsigned max,
		    int timeout_ms, struct reis_req **out);
	/* Optional, for a transport without an admin queue (in-process):
	 * Get Log Page @lid; returns bytes copied or -errno. */
	int (*log)(struct reis_dev *dev, uint8_t lid, uint64_t off, void *buf, uint32_t len);
	/* Optional: one admin command, synchronously, for the standard
	 * interface (transport_cp.c). 0: the drive answered (@cpl), or -errno. */
	int (*admin)(struct reis_dev *dev, const struct reis_cmd *cmd, void *data,
		     uint32_t len, struct reis_cpl *cpl);
};

extern const struct reis_be_ops reis__be_uring;
extern const struct reis_be_ops reis__be_ioctl;
extern const struct reis_be_ops reis__be_inproc;
extern const struct reis_be_ops reis__be_cp;

#define REIS_ERRMSG_LEN REIS_MSG_LEN
/* The drive failures whose messages were formatted last (core_errlog.c):
 * reis_last_error_info() finds the one errmsg is about. */
#define REIS_ERRINFO_RING 4u
#define REIS_ERRINFO_KEY 80u	/* message bytes that identify a failure */

struct reis_errinfo_slot {
	struct reis_err_info info;
	char key[REIS_ERRINFO_KEY + 1];
};

struct reis_dev {
	const struct reis_be_ops *ops;
	void *be;			/* transport state */
	int fd;				/* char device (io_uring, ioctl) or -1 */
	uint32_t open_flags;
	uint32_t nsid;
	uint32_t qdepth;
	uint32_t inflight;
	uint32_t max_xfer;
	uint32_t xfer_cap;		/* transport's own limit (sysfs) */
	int in_cb;			/* > 0 while a callback runs */
	/* reis_close() reaped a request without its callback: set by the
	 * results machine (core_result.c) when it starts, so that a search or
	 * SLS in flight is ended there (a pointer: core_dev does not call up) */
	void (*drop)(struct reis_req *req);
	int have_info;
	struct reis_info info;
	struct reis_cpl last;
	char path[REIS_PATH_MAX];
	char errmsg[REIS_ERRMSG_LEN];
	struct reis_errinfo_slot errinfo[REIS_ERRINFO_RING];
	unsigned errinfo_next;
	uint32_t forced_ticket;		/* reis_ticket_force() */
	uint32_t nforced;
	uint32_t lba_bytes;		/* core_block.c: the namespace, 0 until asked */
	uint64_t nlbas;
};

/* core_dev.c, core_open.c */
struct reis_dev *reis__dev_alloc(const struct reis_be_ops *ops, const char *path,
				 uint32_t qdepth);
void reis__dev_free(struct reis_dev *dev);
int reis__seterr(struct reis_dev *dev, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
uint64_t reis__now_ns(void);
int reis__open_finish(struct reis_dev *dev);

/*
 * core_admin.c, through libnvme: Identify Controller's vendor-specific area
 * (1: the "ISP1" signature, 0: none), the namespace id of a char device,
 * whether the Commands Supported and Effects log lists an I/O opcode (1/0).
 */
#define REIS_IDCTRL_VS_OFF 3072u
int reis__idctrl_is_isp(int fd);
int reis__nsid(int fd, uint32_t *nsid);	/* -ENODEV: not an NVMe namespace */
int reis__effects_supports(int fd, uint8_t opcode);
/* core_admin.c: NVME_IOCTL_ADMIN64_CMD on @fd; 0 (the drive answered) or -errno. */
int reis__admin_ioctl(int fd, const struct reis_cmd *cmd, void *data, uint32_t len,
		      struct reis_cpl *cpl);

/*
 * transport_cp.c: turn @dev (open, its transport set up, not yet
 * identified) into a handle on the standard path: vendor commands run as
 * Memory Write, Execute Program, Memory Read on the memory and compute
 * namespaces (docs/libreis.md "The standard path"). -errno and the
 * handle's message when the drive has no such namespaces.
 */
int reis__cp_wrap(struct reis_dev *dev);
/*
 * A request the standard path carried: struct reis_req_priv.rsvd0 holds
 * this bit and the opcode actually sent, rsvd1 its command digest, so the
 * error log lookup (core_errlog.c) finds the drive's entry for it.
 */
#define REIS__PRIV_WIRE 0x80000000u

/* Whether the caller asked for the standard path: @flags, else ISP_PATH. */
int reis__want_cp(uint32_t flags_cp, uint32_t flags_vendor);

/*
 * core_errlog.c: reis_req_strerror() of a failed @req, with the drive's
 * reason, the field's location and the error log entry when the drive
 * recorded one (docs/command-set.md §8). Returns @buf.
 */
const char *reis__req_errmsg(struct reis_dev *dev, const struct reis_req *req, char *buf,
			     size_t len);
/* The same with @obj (" table 7 bags 0..1") after the command's name. */
const char *reis__req_errmsg_obj(struct reis_dev *dev, const struct reis_req *req,
				 const char *obj, char *buf, size_t len);

/* core_stream.c: reis_stream_h2c() whose failure is the refused command's
 * whole message with @obj (" table 7 counts") and the chunk's offset after
 * the command's name: "RF_PROFILE table 7 counts at offset 0: <reason>: ...". */
struct reis_stream;
int reis__stream_obj(struct reis_dev *dev, struct reis_stream *s, const void *buf,
		     uint64_t len, const char *obj);

/* core_errlog.c: Get Log Page on any transport, the handle's message left
 * alone; -errno, *@nvme the NVMe status when the drive refused. */
int reis__log_raw(struct reis_dev *dev, uint8_t lid, uint64_t off, void *buf, uint32_t len,
		  int *nvme);

/* core_strings.c: "Invalid Field in Command (status 0x4002, DNR)": the
 * status name without libnvme's description, the code, DNR, More. */
#define REIS_STATUS_DESC_LEN 96
const char *reis__status_desc(uint16_t status, char *buf, size_t len);

/* timeout helpers shared by the transports */
uint64_t reis__deadline(int timeout_ms);

/* core_cmds.c: a command without data, CDW12/13 set, run synchronously. */
int reis__nodata(struct reis_dev *dev, uint8_t opcode, uint32_t cdw12, uint32_t cdw13);

/* core_result.c: the ticket for the next command of @dev that leaves a
 * result (docs/command-set.md §6): a forced one (reis_ticket_force()) or a
 * random one. */
uint32_t reis__ticket(struct reis_dev *dev);

/* Bytes of a result read at @off of a @total-byte result: whole dwords,
 * at most max_xfer. */
static inline uint32_t reis__read_len(const struct reis_dev *dev, uint64_t off,
				      uint64_t total)
{
	uint64_t left = total > off ? total - off : 4;

	left = (left + 3) & ~UINT64_C(3);
	return left < dev->max_xfer ? (uint32_t)left : dev->max_xfer;
}

/*
 * The results machine (core_result.c), struct reis_rx in libreis_result.h.
 * An engine prepares rx->req with its command, sets rx->dev, rx->ops,
 * rx->max_collisions and the flags, and calls reis__rx_start(); from then
 * on the machine drives the request from its completions and calls back:
 */
#define REIS_RX_KNOWN 1u	/* rx->total is the result's length, not a guess */
#define REIS_RX_RELEASE_ALWAYS 2u /* RELEASE even after a failed releasing read */
#define REIS_RX_FAILING 4u	/* releasing after a failure, then finish */

struct reis_rx_ops {
	/* Every completion, first (accounting); may be NULL. */
	void (*account)(struct reis_rx *rx, const struct reis_req *req);
	/* A Ticket In Use answered with a fresh ticket (rx->ticket). */
	void (*retry)(struct reis_rx *rx);
	/* A command failed / a resubmission failed (messages); may be NULL. */
	void (*cmd_error)(struct reis_rx *rx, const struct reis_req *req);
	void (*submit_error)(struct reis_rx *rx, int err);
	/* The command under the ticket succeeded: set rx->total (a guess
	 * unless REIS_RX_KNOWN) and rx->chunk. -errno: released, finished. */
	int (*accepted)(struct reis_rx *rx);
	/* Where the read of rx->len bytes at rx->off lands. */
	void *(*buf)(struct reis_rx *rx);
	/* That read arrived: check, copy; may set rx->total and
	 * REIS_RX_KNOWN. -errno: released (unless that read was), finished. */
	int (*chunk)(struct reis_rx *rx);
	/* All read and released. The engine may reis__rx_start() again. */
	void (*complete)(struct reis_rx *rx);
	/* Failed with @err; @cpl the failing completion or NULL, @opcode the
	 * command that failed. */
	void (*finish)(struct reis_rx *rx, int err, const struct reis_cpl *cpl, uint8_t opcode);
	/* The handle closed with this in flight (reis_close() reaps without
	 * callbacks): free what the engine holds and end it with -ECANCELED,
	 * calling nobody back. */
	void (*drop)(struct reis_rx *rx);
};

/* Draw a ticket, put it in rx->req (CDW12), submit. 0 or -errno (nothing
 * in flight then, nothing called back). */
int reis__rx_start(struct reis_rx *rx);

/*
 * core_block.c: the in-process drive's namespace (REIS_INPROC_NS_BYTES in
 * memory). reis__blkstore_exec() executes @req when it is an NVM Read or
 * Write (returns 1, *@status its NVMe status), else returns 0.
 */
struct reis__blkstore;
struct reis__blkstore *reis__blkstore_new(void);
void reis__blkstore_free(struct reis__blkstore *b);
int reis__blkstore_exec(struct reis__blkstore *b, struct reis_req *req, uint16_t *status);
/* Bytes [@off, @off + @len) of the namespace (Memory Copy's staging). */
int reis__blkstore_read(struct reis__blkstore *b, uint64_t off, void *buf, uint64_t len);

#endif /* CORE_PRIV_H */
