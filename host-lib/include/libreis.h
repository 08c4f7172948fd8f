/* SPDX-License-Identifier: MIT */
/*
 * libreis.h - the public API of libreis, the host library of the emulated
 * in-storage-processing NVMe drive (REIS vector search, RecFlash SLS).
 *
 * One header. It does not include the wire header of the drive
 * (hw-model/include/isp_wire.h); the few wire values a caller needs are
 * mirrored here as REIS_* constants and pinned to the wire values inside the
 * library. The command set is docs/command-set.md.
 *
 * Conventions (docs/libreis.md):
 *  - Every function that can fail returns 0 (or a count) on success and a
 *    negative errno on failure; errno is never used.
 *  - When the drive answered with an error status, the NVMe status field is
 *    in struct reis_cpl.status (per request) and reis_last_cpl() (per
 *    handle, for the synchronous calls); reis_last_error() has a sentence.
 *  - Threading: a struct reis_dev belongs to one thread at a time, like an
 *    io_uring ring. For more threads, give each its own handle:
 *    reis_clone() opens another handle on the same drive. Functions without
 *    a reis_dev argument are thread-safe.
 */
#ifndef LIBREIS_H
#define LIBREIS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REIS_VERSION_MAJOR 0
#define REIS_VERSION_MINOR 1
#define REIS_VERSION_PATCH 0

/*
 * Room for any message libreis composes (reis_last_error(), a search
 * request's msg): the drive's reason (at most 87 bytes, docs/command-set.md
 * §8), the command, the status and where the error log has it, and what
 * libreis adds (database, section, offset, ticket), never cut.
 */
#define REIS_MSG_LEN 512

/* ---------------------------------------------------------------------- */
/* Wire values (docs/command-set.md)                                       */
/* ---------------------------------------------------------------------- */

/**
 * enum reis_opcode - vendor opcodes libreis builds today.
 * @REIS_OP_NOOP: ISP_NOOP, no data.
 * @REIS_OP_ECHO_H2C: ISP_ECHO_H2C, host to controller, CDW12 = seed.
 * @REIS_OP_IDENTIFY: ISP_IDENTIFY, controller to host, 4096 bytes.
 * @REIS_OP_ECHO_C2H: ISP_ECHO_C2H, controller to host, CDW12 = seed.
 * @REIS_OP_STATS: ISP_STATS, controller to host, 4096 bytes.
 *
 * Opcode bits 1:0 give the data direction (enum reis_dir).
 */
enum reis_opcode {
	REIS_OP_NOOP = 0x80,
	REIS_OP_ECHO_H2C = 0x81,
	REIS_OP_IDENTIFY = 0x82,
	REIS_OP_ECHO_C2H = 0x86,
	REIS_OP_STATS = 0x8a,
};

/**
 * enum reis_dir - data direction of an opcode (bits 1:0).
 * @REIS_DIR_NONE: no data.
 * @REIS_DIR_H2C: host to controller ("write").
 * @REIS_DIR_C2H: controller to host ("read").
 * @REIS_DIR_BIDI: bidirectional; Linux passthrough cannot carry it.
 */
enum reis_dir {
	REIS_DIR_NONE = 0,
	REIS_DIR_H2C = 1,
	REIS_DIR_C2H = 2,
	REIS_DIR_BIDI = 3,
};

/**
 * reis_opcode_dir() - data direction of @opcode.
 * @opcode: NVMe opcode.
 *
 * Return: the direction from opcode bits 1:0.
 */
static inline enum reis_dir reis_opcode_dir(uint8_t opcode)
{
	return (enum reis_dir)(opcode & 3u);
}

/*
 * NVMe status field values as the drive returns them (SC | SCT << 8), and
 * the DNR and More bits. Compare (status & REIS_STATUS_CODE_MASK) with these.
 */
#define REIS_SC_SUCCESS		0x0000
#define REIS_SC_INVALID_OPCODE	0x0001
#define REIS_SC_INVALID_FIELD	0x0002
#define REIS_SC_DATA_XFER_ERROR	0x0004
#define REIS_SC_INTERNAL	0x0006
#define REIS_SC_INVALID_NSID	0x000b
#define REIS_SC_CAP_EXCEEDED	0x0081
#define REIS_SC_UNKNOWN_ID	0x07c0
#define REIS_SC_ID_EXISTS	0x07c1
#define REIS_SC_BUSY		0x07c2
#define REIS_SC_DIM_MISMATCH	0x07c3
#define REIS_SC_BAD_OFFSET	0x07c4
#define REIS_SC_INCOMPLETE	0x07c5
#define REIS_SC_BAD_PAYLOAD	0x07c6
#define REIS_SC_MISCOMPARE	0x07c7
#define REIS_SC_RESOURCE	0x07c8
#define REIS_SC_TICKET_IN_USE	0x07c9	/* DNR; libreis retries with a new ticket */
#define REIS_STATUS_DNR		0x4000u
#define REIS_STATUS_MORE	0x2000u
#define REIS_STATUS_CODE_MASK	0x07ffu

/* Sizes of the fixed-length device structures. */
#define REIS_IDENTIFY_LEN	4096u
#define REIS_STATS_LEN		4096u
/* Upper bound of max_xfer whatever the drive reports (command-set §1). */
#define REIS_MAX_XFER_CAP	(2u << 20)

/**
 * enum reis_cap - capability bits of struct reis_info.caps.
 */
enum reis_cap {
	REIS_CAP_ECHO = 1u << 0,
	REIS_CAP_STATS = 1u << 1,
	REIS_CAP_TIMING_DELAY = 1u << 2,
	REIS_CAP_TRACE = 1u << 3,
	REIS_CAP_REIS = 1u << 8,
	REIS_CAP_REIS_IVF = 1u << 9,
	REIS_CAP_REIS_DF = 1u << 10,
	REIS_CAP_REIS_PL = 1u << 11,
	REIS_CAP_REIS_MPIBC = 1u << 12,
	REIS_CAP_REIS_TAGS = 1u << 13,
	REIS_CAP_REIS_META = 1u << 14,	/* database META section, REIS_META_READ */
	REIS_CAP_RECFLASH = 1u << 16,
	REIS_CAP_RECFLASH_REMAP = 1u << 17,
	REIS_CAP_RECFLASH_CACHE = 1u << 18,
};

/**
 * enum reis_cell_mode - cell mode of a flash partition.
 */
enum reis_cell_mode {
	REIS_CELL_SLC = 1,
	REIS_CELL_MLC = 2,
	REIS_CELL_TLC = 3,
	REIS_CELL_QLC = 4,
};

/* ---------------------------------------------------------------------- */
/* Commands, completions, requests                                         */
/* ---------------------------------------------------------------------- */

/**
 * struct reis_cmd - the 64-byte NVMe submission entry image.
 * @opcode: NVMe opcode (vendor commands: 80h-FFh).
 * @flags: FUSE/PSDT; must be 0.
 * @cid: command identifier; assigned by the transport, ignored here.
 * @nsid: namespace; 0 means the handle's namespace.
 * @cdw2: command dword 2.
 * @cdw3: command dword 3.
 * @mptr: metadata pointer; unused.
 * @dptr: data pointer; the transport fills it from reis_req.data.
 * @cdw10: NDT, data length in dwords (set by the reis_prep_*() helpers).
 * @cdw11: NDM, metadata length in dwords; must be 0.
 * @cdw12: command parameter.
 * @cdw13: command parameter.
 * @cdw14: command parameter.
 * @cdw15: command parameter.
 */
struct reis_cmd {
	uint8_t opcode;
	uint8_t flags;
	uint16_t cid;
	uint32_t nsid;
	uint32_t cdw2;
	uint32_t cdw3;
	uint64_t mptr;
	uint64_t dptr[2];
	uint32_t cdw10;
	uint32_t cdw11;
	uint32_t cdw12;
	uint32_t cdw13;
	uint32_t cdw14;
	uint32_t cdw15;
};

/**
 * struct reis_cpl - the completion of one command, decoded.
 * @result: completion DW0 | DW1 << 32 as the drive returned it.
 * @time_ns: modeled device time, decoded from @result (bits 39:0).
 * @energy_nj: modeled energy, decoded from @result (bits 63:40).
 * @host_ns: host round trip, submission to reaping, CLOCK_MONOTONIC.
 * @err: 0 on success, else a negative errno: from the transport (the
 *       command may not have reached the drive) or mapped from @status
 *       with reis_status_errno().
 * @status: NVMe status field (SC | SCT << 8 | More | DNR); 0 when the drive
 *          completed the command successfully or never saw it.
 * @rsvd0: reserved.
 * @rsvd1: reserved.
 */
struct reis_cpl {
	uint64_t result;
	uint64_t time_ns;
	uint64_t energy_nj;
	uint64_t host_ns;
	int32_t err;
	uint16_t status;
	uint16_t rsvd0;
	uint64_t rsvd1;
};

struct reis_dev;
struct reis_req;

/**
 * typedef reis_req_cb - completion callback of an asynchronous request.
 * @req: the completed request; req->cpl is filled in.
 * @arg: req->cb_arg.
 *
 * Runs in the thread that calls reis_poll()/reis_wait() (or a synchronous
 * call on the same handle), once per submission. It may submit new requests
 * and may reuse @req; it must not wait (reis_wait() returns -EDEADLK there).
 */
typedef void (*reis_req_cb)(struct reis_req *req, void *arg);

/**
 * struct reis_req_priv - owned by libreis while the request is in flight.
 * @dev: handle the request was submitted on.
 * @next: transport queue linkage.
 * @submit_ns: CLOCK_MONOTONIC at submission.
 * @due_ns: earliest completion time (in-process delay mode).
 * @state: REIS_REQ_IDLE/QUEUED/INFLIGHT/DONE.
 * @rsvd0: reserved.
 * @rsvd1: reserved.
 */
struct reis_req_priv {
	struct reis_dev *dev;
	struct reis_req *next;
	uint64_t submit_ns;
	uint64_t due_ns;
	uint32_t state;
	uint32_t rsvd0;
	uint64_t rsvd1;
};

/**
 * struct reis_req - one command with its data, completion and callback.
 * @cmd: the 64-byte command image.
 * @cpl: the completion, filled when the request completes.
 * @data: data buffer (H2C source or C2H destination), 4-byte aligned is
 *        best; NULL for no-data commands.
 * @data_len: bytes in @data; a multiple of 4, at most reis_max_xfer().
 * @flags: REIS_REQ_F_* flags.
 * @cb: callback, or NULL.
 * @cb_arg: argument of @cb.
 * @priv: library-private; never touch while the request is in flight.
 *
 * Caller-owned memory: libreis allocates nothing per request. The layout is
 * fixed (192 bytes) and pinned by _Static_assert.
 */
struct reis_req {
	struct reis_cmd cmd;
	struct reis_cpl cpl;
	void *data;
	uint32_t data_len;
	uint32_t flags;
	reis_req_cb cb;
	void *cb_arg;
	struct reis_req_priv priv;
};

/*
 * REIS_REQ_F_RAW: send @cmd as given: CDW10 is not derived from data_len
 * and the opcode's direction is not checked against data_len (data_len is
 * still bounded by max_xfer). For tests and commands libreis does not know.
 */
#define REIS_REQ_F_RAW (1u << 0)

/* struct reis_req_priv.state */
#define REIS_REQ_IDLE 0u
#define REIS_REQ_INFLIGHT 1u
#define REIS_REQ_DONE 2u

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(struct reis_cmd) == 64, "NVMe command image is 64 bytes");
_Static_assert(sizeof(struct reis_cpl) == 48, "reis_cpl layout");
_Static_assert(sizeof(struct reis_req) == 192, "reis_req layout");
_Static_assert(offsetof(struct reis_req, cpl) == 64, "reis_req layout");
_Static_assert(offsetof(struct reis_req, priv) == 144, "reis_req layout");
#endif

/**
 * reis_prep_cmd() - reset @req and prepare a command of @opcode.
 * @req: request; every field is reset, so set the callback afterwards.
 * @opcode: NVMe opcode.
 * @data: data buffer or NULL.
 * @len: bytes in @data (CDW10 becomes @len / 4).
 */
static inline void reis_prep_cmd(struct reis_req *req, uint8_t opcode,
				 void *data, uint32_t len)
{
	memset(req, 0, sizeof(*req));
	req->cmd.opcode = opcode;
	req->cmd.cdw10 = len / 4u;
	req->data = data;
	req->data_len = len;
}

/**
 * reis_prep_raw() - reset @req and copy a caller-built command into it.
 * @req: request.
 * @cmd: command image, sent as is (REIS_REQ_F_RAW); nsid 0 still means the
 *       handle's namespace.
 * @data: data buffer or NULL.
 * @len: bytes in @data.
 */
static inline void reis_prep_raw(struct reis_req *req, const struct reis_cmd *cmd,
				 void *data, uint32_t len)
{
	memset(req, 0, sizeof(*req));
	req->cmd = *cmd;
	req->data = data;
	req->data_len = len;
	req->flags = REIS_REQ_F_RAW;
}

/**
 * reis_prep_noop() - prepare ISP_NOOP.
 * @req: request.
 */
static inline void reis_prep_noop(struct reis_req *req)
{
	reis_prep_cmd(req, REIS_OP_NOOP, NULL, 0);
}

/**
 * reis_prep_echo() - prepare ISP_ECHO_H2C or ISP_ECHO_C2H.
 * @req: request.
 * @dir: REIS_DIR_H2C (the drive checks @buf against the pattern of @seed)
 *       or REIS_DIR_C2H (the drive fills @buf with it).
 * @seed: pattern seed (reis_pattern()).
 * @buf: data buffer.
 * @len: bytes, 4..max_xfer, a multiple of 4.
 */
static inline void reis_prep_echo(struct reis_req *req, enum reis_dir dir,
				  uint32_t seed, void *buf, uint32_t len)
{
	reis_prep_cmd(req, dir == REIS_DIR_H2C ? REIS_OP_ECHO_H2C : REIS_OP_ECHO_C2H,
		      buf, len);
	req->cmd.cdw12 = seed;
}

/**
 * reis_prep_identify() - prepare ISP_IDENTIFY (CNS 0).
 * @req: request.
 * @buf: REIS_IDENTIFY_LEN bytes; decode with reis_info_decode().
 */
static inline void reis_prep_identify(struct reis_req *req, void *buf)
{
	reis_prep_cmd(req, REIS_OP_IDENTIFY, buf, REIS_IDENTIFY_LEN);
}

/**
 * reis_prep_stats() - prepare ISP_STATS.
 * @req: request.
 * @buf: REIS_STATS_LEN bytes; decode with reis_stats_decode().
 * @flags: REIS_STATS_RESET to zero the counters after reading.
 */
static inline void reis_prep_stats(struct reis_req *req, void *buf, uint32_t flags)
{
	reis_prep_cmd(req, REIS_OP_STATS, buf, REIS_STATS_LEN);
	req->cmd.cdw12 = flags;
}

/**
 * reis_req_set_cb() - set the completion callback of a prepared request.
 * @req: request.
 * @cb: callback or NULL.
 * @arg: its argument.
 */
static inline void reis_req_set_cb(struct reis_req *req, reis_req_cb cb, void *arg)
{
	req->cb = cb;
	req->cb_arg = arg;
}

/**
 * reis_req_inflight() - whether @req is submitted and not yet reaped.
 * @req: request.
 *
 * Return: non-zero while in flight (its memory still belongs to libreis).
 */
static inline int reis_req_inflight(const struct reis_req *req)
{
	return req->priv.state == REIS_REQ_INFLIGHT;
}

/* ---------------------------------------------------------------------- */
/* Opening a drive                                                         */
/* ---------------------------------------------------------------------- */

/* reis_open() flags. */
#define REIS_OPEN_IOCTL (1u << 0)	/* use the NVME_IOCTL_IO64_CMD transport */
#define REIS_OPEN_URING (1u << 1)	/* io_uring only: no fallback to ioctl */
#define REIS_OPEN_FORCE (1u << 2)	/* skip the Identify Controller ISP check */
/*
 * The standard path (docs/libreis.md): every command runs over the drive's
 * memory and compute namespaces (NVMe Computational Programs and Subsystem
 * Local Memory) instead of vendor opcodes. Neither flag: the environment's
 * ISP_PATH=cp selects it, anything else the vendor path.
 */
#define REIS_OPEN_CP (1u << 3)
#define REIS_OPEN_VENDOR (1u << 4)	/* the vendor path, whatever ISP_PATH says */

/* Default and largest number of requests in flight per handle. */
#define REIS_QDEPTH_DEFAULT 128u
#define REIS_QDEPTH_MAX 4096u

/**
 * reis_open() - open an ISP drive through a Linux NVMe generic char device.
 * @path: "/dev/ngXnY" (a block device /dev/nvmeXnY also works for ioctl).
 * @flags: REIS_OPEN_* flags.
 * @dev: the new handle.
 *
 * Before sending any vendor command it reads Identify Controller and checks
 * the "ISP1" signature in the vendor-specific area (skipped when the admin
 * command is not permitted, or with REIS_OPEN_FORCE), so a drive that would
 * give vendor opcodes another meaning is never sent one. Then it issues
 * ISP_IDENTIFY and caches the result (reis_dev_info()), which sets
 * reis_max_xfer(). The transport is io_uring passthrough (128-byte SQE,
 * 32-byte CQE); if the kernel lacks it, the ioctl transport is used unless
 * REIS_OPEN_URING is set.
 *
 * Thread safety: thread-safe (no shared state).
 *
 * Return: 0; -ENOENT/-EACCES/... from open(2); -ENODEV when the drive has no
 * ISP signature; -EOPNOTSUPP when it rejects ISP_IDENTIFY (ISP disabled);
 * -EPROTO for a malformed identify; -ENOSYS when the transport is compiled
 * out or unavailable; -EINVAL for bad arguments.
 */
int reis_open(const char *path, uint32_t flags, struct reis_dev **dev);

/**
 * reis_open_qd() - reis_open() with a queue depth.
 * @path: as for reis_open().
 * @flags: REIS_OPEN_* flags.
 * @qdepth: requests in flight on the handle (the io_uring ring's size),
 *          1..REIS_QDEPTH_MAX; 0: REIS_QDEPTH_DEFAULT.
 * @dev: the new handle.
 *
 * Return: as reis_open(); -EINVAL also for @qdepth above REIS_QDEPTH_MAX.
 */
int reis_open_qd(const char *path, uint32_t flags, uint32_t qdepth, struct reis_dev **dev);

/**
 * struct reis_inproc_opts - configuration of the in-process transport.
 * @backing: flash backing file, created sparse when missing; NULL: memory.
 * @preset: timing/geometry preset ("reis-ssd1", "reis-ssd2",
 *          "recflash-slc", ...); NULL: "reis-ssd1".
 * @params: preset overrides "key=value;key=value"; NULL: none.
 * @trace_dir: directory for timeline exports; NULL: disabled.
 * @max_xfer: bytes per command, 4096..REIS_MAX_XFER_CAP, multiple of 4;
 *            0: 524288 (QEMU's default MDTS with 4 KiB pages).
 * @qdepth: requests in flight, 1..REIS_QDEPTH_MAX; 0: REIS_QDEPTH_DEFAULT.
 * @workers: 0: each command executes inside reis_submit() and completes on
 *           the next reap; N: N worker threads execute commands
 *           concurrently and they complete in any order.
 * @flags: REIS_INPROC_DELAY: a completion is not reaped before its modeled
 *         time has passed since submission (the drive's delay mode).
 *         REIS_INPROC_VCLOCK: delay mode on a virtual clock of the drive:
 *         commands are submitted at the virtual time and reaping a
 *         completion advances it to the completion's modeled end instead
 *         of sleeping (a benchmark sees delay-mode timing without waiting;
 *         host compute time does not pass on the drive).
 * @errbuf: if not NULL, receives a reason when opening fails.
 * @errlen: size of @errbuf.
 * @rsvd: must be zero.
 */
struct reis_inproc_opts {
	const char *backing;
	const char *preset;
	const char *params;
	const char *trace_dir;
	uint32_t max_xfer;
	uint32_t qdepth;
	uint32_t workers;
	uint32_t flags;
	char *errbuf;
	size_t errlen;
	uint64_t rsvd[4];
};

#define REIS_INPROC_DELAY (1u << 0)
#define REIS_INPROC_VCLOCK (1u << 1)
#define REIS_INPROC_CP (1u << 2)	/* the standard path, as REIS_OPEN_CP */
#define REIS_INPROC_VENDOR (1u << 3)	/* the vendor path, as REIS_OPEN_VENDOR */
#define REIS_INPROC_MAX_WORKERS 64u
#define REIS_INPROC_DEFAULT_XFER (512u << 10)

/**
 * reis_open_inproc() - open a drive modeled inside this process.
 * @opts: configuration; NULL for all defaults.
 * @dev: the new handle.
 *
 * Runs the same hw-model code as the QEMU device (isp_dev_exec()), so
 * programs and tests behave as in a VM, without one.
 *
 * Thread safety: thread-safe.
 *
 * Return: 0, -EINVAL for bad options (reason in @opts->errbuf), -ENOMEM,
 * -ENOSYS when the in-process transport is compiled out, or an error from
 * opening the backing file.
 */
int reis_open_inproc(const struct reis_inproc_opts *opts, struct reis_dev **dev);

/**
 * reis_clone() - open another handle on the drive of @dev.
 * @dev: an open handle.
 * @out: the new handle, with the same transport and queue depth.
 *
 * The way to use one drive from several threads: one handle per thread.
 * In-process handles share the modeled drive (it lives until the last
 * handle closes).
 *
 * Thread safety: may run concurrently with calls on other handles, not with
 * calls on @dev.
 *
 * Return: 0 or -errno.
 */
int reis_clone(struct reis_dev *dev, struct reis_dev **out);

/**
 * reis_close() - close a handle.
 * @dev: handle, or NULL (no-op).
 *
 * Requests still in flight are waited for (their callbacks do not run). A
 * search or an SLS operation still in flight ends there with -ECANCELED
 * (done, its library memory freed, its callback not run).
 */
void reis_close(struct reis_dev *dev);

/**
 * reis_transport() - name of the handle's transport.
 * @dev: handle.
 *
 * Return: "io_uring", "ioctl" or "inproc".
 */
const char *reis_transport(const struct reis_dev *dev);

/**
 * reis_path() - device path of the handle ("inproc" for in-process).
 * @dev: handle.
 *
 * Return: a string owned by @dev.
 */
const char *reis_path(const struct reis_dev *dev);

/**
 * reis_max_xfer() - largest data transfer of one command, bytes.
 * @dev: handle.
 *
 * Return: max_xfer from ISP_IDENTIFY (4096 before it is known).
 */
uint32_t reis_max_xfer(const struct reis_dev *dev);

/**
 * reis_path_cp() - whether @dev runs on the standard path (REIS_OPEN_CP,
 * REIS_INPROC_CP or ISP_PATH=cp): its commands go over the drive's memory
 * and compute namespaces. Then a search's documents are read during the
 * search (RESULT_READs report no modeled time: the memory namespace's
 * commands carry none) and TRACE_ARM is refused (docs/libreis.md).
 * Return: 1 or 0.
 */
int reis_path_cp(const struct reis_dev *dev);

/**
 * reis_qdepth() - how many requests may be in flight on @dev.
 * @dev: handle.
 *
 * Return: the queue depth.
 */
uint32_t reis_qdepth(const struct reis_dev *dev);

/* ---------------------------------------------------------------------- */
/* Drive information                                                       */
/* ---------------------------------------------------------------------- */

#define REIS_MAX_PARTS 4
#define REIS_PRESET_LEN 32

/**
 * struct reis_part - one cell-mode partition of the flash array.
 * @first_block: first block index in every plane.
 * @nblocks: blocks per plane.
 * @cell_mode: enum reis_cell_mode.
 * @pages_per_block: usable pages per block in this mode.
 */
struct reis_part {
	uint32_t first_block;
	uint32_t nblocks;
	uint32_t cell_mode;
	uint32_t pages_per_block;
};

/**
 * struct reis_info - ISP_IDENTIFY, decoded and validated.
 * @ver_major: command-set major version (1).
 * @ver_minor: command-set minor version.
 * @caps: enum reis_cap bits.
 * @max_xfer: bytes per command.
 * @max_tickets: result tickets the drive holds at once.
 * @max_result_bytes: result memory.
 * @channels: flash channels.
 * @dies_per_channel: dies per channel.
 * @planes_per_die: planes per die.
 * @blocks_per_plane: blocks per plane.
 * @pages_per_block: pages per block in the native (densest) mode.
 * @page_bytes: page size.
 * @oob_bytes: out-of-band bytes per page.
 * @subpage_bytes: sub-page size.
 * @raw_capacity_bytes: capacity of all partitions in their modes.
 * @dram_bytes: controller DRAM budget.
 * @dram_used: controller DRAM in use.
 * @free_bytes: unallocated flash, native mode.
 * @nparts: valid entries in @parts.
 * @cores: embedded cores.
 * @parts: partitions.
 * @preset: timing preset name, NUL-terminated, printable ASCII.
 * @t_read_ns: page read time by enum reis_cell_mode ([0] unused).
 * @t_prog_ns: page program time by cell mode.
 * @t_erase_ns: block erase time.
 * @channel_mbps: MB/s per channel.
 * @core_mhz: core clock.
 * @link_mbps: host link MB/s.
 * @ctrl_cmd_ns: controller overhead per command.
 * @max_dbs: REIS databases the drive holds.
 * @max_tables: RecFlash tables the drive holds.
 * @ndbs: REIS databases on the drive now.
 * @row_pages: pages of one page row (one page on every plane): a database
 *             smaller than a block stripe takes whole rows of a shared
 *             stripe; 0 from a drive without packed regions.
 * @slc_free_bytes: SLC flash new databases may take.
 * @native_free_bytes: native-mode flash new databases may take.
 * @dead_bytes: freed rows of shared stripes, reusable once their stripe
 *              has no database left.
 * @db_room: more one-row databases that fit now (the least of the R-DB
 *           entries, SLC rows and controller DRAM left).
 */
struct reis_info {
	uint16_t ver_major;
	uint16_t ver_minor;
	uint64_t caps;
	uint32_t max_xfer;
	uint32_t max_tickets;
	uint64_t max_result_bytes;
	uint32_t channels;
	uint32_t dies_per_channel;
	uint32_t planes_per_die;
	uint32_t blocks_per_plane;
	uint32_t pages_per_block;
	uint32_t page_bytes;
	uint32_t oob_bytes;
	uint32_t subpage_bytes;
	uint64_t raw_capacity_bytes;
	uint64_t dram_bytes;
	uint64_t dram_used;
	uint64_t free_bytes;
	uint32_t nparts;
	uint32_t cores;
	struct reis_part parts[REIS_MAX_PARTS];
	char preset[REIS_PRESET_LEN + 1];
	uint32_t t_read_ns[5];
	uint32_t t_prog_ns[5];
	uint32_t t_erase_ns;
	uint32_t channel_mbps;
	uint32_t core_mhz;
	uint32_t link_mbps;
	uint32_t ctrl_cmd_ns;
	uint32_t max_dbs;
	uint32_t max_tables;
	uint32_t ndbs;
	uint32_t row_pages;
	uint64_t slc_free_bytes;
	uint64_t native_free_bytes;
	uint64_t dead_bytes;
	uint32_t db_room;
};

/**
 * reis_identify() - issue ISP_IDENTIFY and decode it.
 * @dev: handle.
 * @info: filled on success; the handle's cached copy is refreshed too.
 *
 * Return: 0, -EPROTO if the structure is malformed (bad signature, major
 * version, max_xfer or partition count), or -errno (reis_last_cpl()).
 */
int reis_identify(struct reis_dev *dev, struct reis_info *info);

/**
 * reis_dev_info() - the identify data cached at open.
 * @dev: handle.
 *
 * Return: pointer owned by @dev, valid until reis_close().
 */
const struct reis_info *reis_dev_info(const struct reis_dev *dev);

/**
 * reis_info_decode() - decode and validate an ISP_IDENTIFY buffer.
 * @buf: the bytes the drive returned.
 * @len: their number; at least REIS_IDENTIFY_LEN.
 * @info: filled on success.
 *
 * Every field read from the drive is bounded here; the result is safe to
 * print and to index with.
 *
 * Return: 0, -EINVAL for a short buffer, -EPROTO for a malformed structure.
 */
int reis_info_decode(const void *buf, size_t len, struct reis_info *info);

/* ---------------------------------------------------------------------- */
/* Statistics                                                              */
/* ---------------------------------------------------------------------- */

/* Command classes (index of cmds[] and errors[]). */
enum reis_cmd_class {
	REIS_CLS_DEVICE,
	REIS_CLS_REIS_DEPLOY,
	REIS_CLS_REIS_SEARCH,
	REIS_CLS_RESULT,
	REIS_CLS_RECFLASH_DEPLOY,
	REIS_CLS_RECFLASH_SLS,
	REIS_CLS_RECFLASH_REMAP,
	REIS_CLS_OTHER,
	REIS_CLS_N,
};

/* Resource classes of the timing model (index of busy_ns[] and nres[]). */
enum reis_res_class {
	REIS_RES_PLANE,
	REIS_RES_DIE,
	REIS_RES_CHANNEL,
	REIS_RES_CORE,
	REIS_RES_DRAM,
	REIS_RES_LINK,
	REIS_RES_N,
};

#define REIS_STATS_RESET 1u

/**
 * struct reis_stats - ISP_STATS, decoded: counters since power-on or reset.
 * @cmds: commands per enum reis_cmd_class.
 * @errors: failed commands per class.
 * @page_reads: page reads by enum reis_cell_mode.
 * @page_programs: page programs by cell mode.
 * @block_erases: block erases.
 * @channel_bytes: bytes between dies and controller.
 * @link_bytes_h2c: host link bytes, host to drive.
 * @link_bytes_c2h: host link bytes, drive to host.
 * @busy_ns: modeled busy time per enum reis_res_class, summed.
 * @nres: resources per class.
 * @model_ns: sum of per-command modeled latency.
 * @emul_ns: host CPU wall time the emulator spent executing.
 * @energy_pj: modeled energy.
 * @filtered_entries: REIS entries dropped in the die.
 * @ttl_entries: REIS entries that crossed the channel.
 * @cache_hits: RecFlash page cache hits.
 * @cache_misses: RecFlash page cache misses.
 * @searches: queries answered.
 * @sls_bags: SLS bags pooled.
 * @remaps: RecFlash remaps.
 */
/* Classes of struct reis_stats.std_cmds[]: the standard interface's
 * commands (docs/command-set.md §9): admin, Execute Program, Memory
 * Read/Write/Fill, Memory Copy. */
#define REIS_STD_CLS_ADMIN 0
#define REIS_STD_CLS_EXEC 1
#define REIS_STD_CLS_MEM 2
#define REIS_STD_CLS_COPY 3
#define REIS_STD_CLS_N 4

struct reis_stats {
	uint64_t cmds[REIS_CLS_N];
	uint64_t errors[REIS_CLS_N];
	uint64_t page_reads[5];
	uint64_t page_programs[5];
	uint64_t block_erases;
	uint64_t channel_bytes;
	uint64_t link_bytes_h2c;
	uint64_t link_bytes_c2h;
	uint64_t busy_ns[REIS_RES_N];
	uint64_t nres[REIS_RES_N];
	uint64_t model_ns;
	uint64_t emul_ns;
	uint64_t energy_pj;
	uint64_t filtered_entries;
	uint64_t ttl_entries;
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t searches;
	uint64_t sls_bags;
	uint64_t remaps;
	uint64_t std_cmds[REIS_STD_CLS_N];
	uint64_t std_errors[REIS_STD_CLS_N];
	uint64_t slm_bytes_read;
	uint64_t slm_bytes_written;
	uint64_t slm_bytes_copied;
	uint64_t slm_backed;
};

/**
 * reis_stats() - issue ISP_STATS and decode it.
 * @dev: handle.
 * @flags: REIS_STATS_RESET to zero the drive's counters after reading.
 * @st: filled on success.
 *
 * Return: 0 or -errno.
 */
int reis_stats(struct reis_dev *dev, uint32_t flags, struct reis_stats *st);

/**
 * reis_stats_decode() - decode an ISP_STATS buffer.
 * @buf: the bytes the drive returned.
 * @len: at least REIS_STATS_LEN.
 * @st: filled on success.
 *
 * Return: 0 or -EINVAL for a short buffer.
 */
int reis_stats_decode(const void *buf, size_t len, struct reis_stats *st);

/**
 * struct reis_ftl_stats - the FTL's part of ISP_STATS (docs/ftl.md): the
 * namespace's ordinary reads and writes on the modeled flash; all 0 when
 * ordinary I/O does not run through it (isp-ftl=off).
 * @reads, @writes, @flushes, @trims: commands.
 * @read_bytes, @write_bytes: host bytes.
 * @nand_write_bytes: bytes programmed for them (host pages, GC, padding).
 * @gc_write_bytes: bytes garbage collection moved.
 * @gc_victims: blocks it reclaimed; @erases: blocks the FTL erased.
 * @buf_hits: 4 KiB units read from the write buffer.
 * @stalls: writes that waited for room in the buffer.
 * @io_model_ns, @read_model_ns, @write_model_ns: modeled latency sums.
 * @wa_milli: write amplification x 1000; @op_permille: over-provisioning.
 * @user_bytes: namespaces mapped; @phys_bytes: flash the FTL holds.
 * @stripes, @stripes_min: block stripes held, and the minimum.
 * @free_blocks: erased blocks; @erase_max: most erases of one block.
 */
struct reis_ftl_stats {
	uint64_t reads, writes, read_bytes, write_bytes;
	uint64_t nand_write_bytes, gc_write_bytes, gc_victims, erases;
	uint64_t flushes, trims, buf_hits, stalls;
	uint64_t io_model_ns, read_model_ns, write_model_ns;
	uint32_t wa_milli, op_permille;
	uint64_t user_bytes, phys_bytes;
	uint32_t stripes, stripes_min, free_blocks, erase_max;
};

/**
 * reis_ftl_stats_decode() - decode the FTL's counters of an ISP_STATS
 * buffer (the one reis_prep_stats() filled).
 * @buf: the bytes the drive returned.
 * @len: at least REIS_STATS_LEN.
 * @st: filled on success.
 *
 * Return: 0 or -EINVAL for a short buffer.
 */
int reis_ftl_stats_decode(const void *buf, size_t len, struct reis_ftl_stats *st);

/* ---------------------------------------------------------------------- */
/* Synchronous device commands                                             */
/* ---------------------------------------------------------------------- */

/**
 * reis_noop() - issue ISP_NOOP and wait for it.
 * @dev: handle.
 *
 * reis_last_cpl() then holds the modeled time (the controller's command
 * overhead) and the host round trip.
 *
 * Return: 0 or -errno.
 */
int reis_noop(struct reis_dev *dev);

/**
 * reis_echo() - move the pattern of @seed through the data path and verify.
 * @dev: handle.
 * @dir: REIS_DIR_H2C: send the pattern, the drive compares it;
 *       REIS_DIR_C2H: the drive sends it, libreis compares it.
 * @seed: pattern seed.
 * @buf: scratch of @len bytes, or NULL to let libreis allocate one.
 * @len: bytes, 4..reis_max_xfer(), a multiple of 4.
 *
 * Return: 0; -EINVAL for a bad @dir or @len (nothing submitted); -EILSEQ
 * on a miscompare (the drive's: status ISP Miscompare; libreis': status 0);
 * or -errno.
 */
int reis_echo(struct reis_dev *dev, enum reis_dir dir, uint32_t seed,
	      void *buf, uint32_t len);

/**
 * reis_pattern() - fill @buf with the ECHO pattern of @seed.
 * @seed: seed.
 * @buf: destination.
 * @len: bytes.
 *
 * The pattern of docs/command-set.md §3.2 (xorshift32 of seed | 1).
 */
void reis_pattern(uint32_t seed, void *buf, size_t len);

/**
 * reis_cmd_raw() - execute a caller-built command and wait for it.
 * @dev: handle.
 * @cmd: command image, sent as is (nsid 0: the handle's namespace).
 * @data: data buffer or NULL.
 * @len: bytes in @data; at most reis_max_xfer(), a multiple of 4.
 * @cpl: if not NULL, receives the completion.
 *
 * For tests and for commands libreis does not know yet. The direction is
 * the opcode's; CDW10 is not touched.
 *
 * Return: 0, -EINVAL if @len is out of bounds (nothing submitted), or
 * -errno (the NVMe status in @cpl->status and reis_last_cpl()).
 */
int reis_cmd_raw(struct reis_dev *dev, const struct reis_cmd *cmd, void *data,
		 uint32_t len, struct reis_cpl *cpl);

/**
 * reis_exec() - submit a prepared request and wait for it.
 * @dev: handle.
 * @req: request (reis_prep_*()); its callback, if any, runs too.
 *
 * Completions of other requests reaped meanwhile run their callbacks.
 *
 * Return: req->cpl.err (0 or -errno), or -errno if it could not be submitted.
 */
int reis_exec(struct reis_dev *dev, struct reis_req *req);

/* ---------------------------------------------------------------------- */
/* Asynchronous requests                                                   */
/* ---------------------------------------------------------------------- */

/**
 * reis_submit() - submit one prepared request.
 * @dev: handle.
 * @req: request; caller memory that must stay valid until it completes.
 *
 * Checks the request (direction, NDT, data_len <= max_xfer, multiple of
 * 4) and submits it to the drive at once.
 *
 * Return: 0; -EINVAL for a bad request (nothing submitted;
 * reis_last_error() says why); -EBUSY when reis_qdepth() requests are in
 * flight (reap, then retry) or @req itself is in flight; or a transport
 * -errno.
 */
int reis_submit(struct reis_dev *dev, struct reis_req *req);

/**
 * reis_submitv() - submit several requests with one system call.
 * @dev: handle.
 * @reqs: requests.
 * @n: how many.
 *
 * Stops at the first request that cannot be submitted.
 *
 * Return: the number submitted (> 0), or the -errno of the first request
 * when none was.
 */
int reis_submitv(struct reis_dev *dev, struct reis_req *const *reqs, unsigned n);

/**
 * reis_poll() - reap completions that are ready, without waiting.
 * @dev: handle.
 * @max: at most this many; 0: no limit.
 *
 * Fills each request's cpl, marks it done and runs its callback.
 *
 * Return: the number reaped (0 if none), or -errno.
 */
int reis_poll(struct reis_dev *dev, unsigned max);

/**
 * reis_wait() - reap completions, waiting for at least @min.
 * @dev: handle.
 * @min: wait for this many (capped at the number in flight).
 * @timeout_ms: give up after this long; -1: no limit.
 *
 * Return: the number reaped (fewer than @min only when the timeout
 * expired), -ETIME if it expired with none, -EDEADLK inside a callback, or
 * -errno.
 */
int reis_wait(struct reis_dev *dev, unsigned min, int timeout_ms);

/**
 * reis_wait_req() - reap until @req has completed.
 * @dev: handle.
 * @req: a request submitted on @dev.
 * @timeout_ms: give up after this long; -1: no limit.
 *
 * Return: req->cpl.err, -ETIME, -EDEADLK, or -EINVAL if @req was not
 * submitted on @dev.
 */
int reis_wait_req(struct reis_dev *dev, struct reis_req *req, int timeout_ms);

/**
 * reis_inflight() - requests submitted and not reaped yet.
 * @dev: handle.
 *
 * Return: the count.
 */
unsigned reis_inflight(const struct reis_dev *dev);

/* ---------------------------------------------------------------------- */
/* Streaming large transfers under max_xfer                                */
/* ---------------------------------------------------------------------- */

/**
 * typedef reis_stream_prep - fill the parameters of one chunk's command.
 * @cmd: command; opcode and CDW10 are set, CDW12-15 are zero.
 * @off: device byte offset of the chunk (reis_stream.offset + position).
 * @len: bytes in the chunk.
 * @last: non-zero for the final chunk.
 * @arg: reis_stream.arg.
 *
 * Return: 0, or -errno to stop the stream.
 */
typedef int (*reis_stream_prep)(struct reis_cmd *cmd, uint64_t off, uint32_t len,
				int last, void *arg);

/**
 * struct reis_stream - a transfer split into commands of at most chunk bytes.
 * @opcode: an H2C opcode for reis_stream_h2c(), C2H for reis_stream_c2h().
 * @rsvd0: reserved.
 * @chunk: bytes per command, a multiple of 4; 0 or larger than max_xfer:
 *         max_xfer.
 * @depth: commands in flight; 0 or 1: strictly in order (a command is
 *         submitted after the previous completed); at most 64.
 * @rsvd1: reserved.
 * @offset: device byte offset of the first byte (passed to @prep).
 * @prep: fills each command's parameters (ticket, id, offset, flags).
 * @arg: argument of @prep.
 * @time_ns: out: summed modeled time of the commands.
 * @energy_nj: out: summed modeled energy.
 * @done_bytes: out: bytes from the start that completed successfully.
 * @ncmds: out: commands completed.
 * @rsvd2: reserved.
 */
struct reis_stream {
	uint8_t opcode;
	uint8_t rsvd0[3];
	uint32_t chunk;
	uint32_t depth;
	uint32_t rsvd1;
	uint64_t offset;
	reis_stream_prep prep;
	void *arg;
	uint64_t time_ns;
	uint64_t energy_nj;
	uint64_t done_bytes;
	uint32_t ncmds;
	uint32_t rsvd2;
};

#define REIS_STREAM_MAX_DEPTH 64u

/**
 * reis_stream_h2c() - send @len bytes of @buf in chunked H2C commands.
 * @dev: handle.
 * @s: stream description; the out fields are reset and filled.
 * @buf: data.
 * @len: bytes; a multiple of 4 (pad the payload).
 *
 * The generic half of every multi-command upload (database and table
 * deploys): @prep puts each chunk's offset into its command.
 *
 * Return: 0, or the -errno of the first failing chunk (its completion in
 * reis_last_cpl(); @s->done_bytes says how far the data got).
 */
int reis_stream_h2c(struct reis_dev *dev, struct reis_stream *s,
		    const void *buf, uint64_t len);

/**
 * reis_stream_c2h() - read @len bytes into @buf with chunked C2H commands.
 * @dev: handle.
 * @s: stream description.
 * @buf: destination.
 * @len: bytes; a multiple of 4.
 *
 * The generic half of reading results and documents at offsets.
 *
 * Return: 0 or -errno as reis_stream_h2c().
 */
int reis_stream_c2h(struct reis_dev *dev, struct reis_stream *s,
		    void *buf, uint64_t len);

/* ---------------------------------------------------------------------- */
/* Errors, status and result decoding                                      */
/* ---------------------------------------------------------------------- */

/**
 * reis_last_cpl() - completion of the last synchronous command on @dev.
 * @dev: handle.
 *
 * Set by reis_noop(), reis_echo(), reis_identify(), reis_stats(),
 * reis_cmd_raw(), reis_exec() and the stream calls (the failing chunk, or
 * the last one), including the modeled time and energy.
 *
 * Return: pointer owned by @dev, overwritten by the next call.
 */
const struct reis_cpl *reis_last_cpl(const struct reis_dev *dev);

/**
 * reis_last_error() - a sentence about the last failure on @dev.
 * @dev: handle.
 *
 * E.g. "ISP_ECHO_H2C: ISP Miscompare (status 0x47c7, DNR)",
 * "REIS_SEARCH: k = 40 exceeds the database's 30 entries: Invalid Field in
 * Command (status 0x4002, DNR); error log entry 3 (SQID 1 CID 5, data byte
 * 8)" (with the drive's reason when it recorded one) or "submit: data_len
 * 600000 exceeds max_xfer 524288". At most REIS_MSG_LEN bytes: never cut.
 *
 * Return: a string owned by @dev; "" when nothing failed yet.
 */
const char *reis_last_error(const struct reis_dev *dev);

#define REIS_ERR_REASON_LEN 96

/**
 * struct reis_err_info - the last failure on a handle, field by field.
 * @status: NVMe status field of the command the drive failed (SC | SCT << 8
 *          | More | DNR); 0 when the failure happened on the host or in the
 *          transport (nothing below is set then).
 * @opcode: that command's opcode.
 * @logged: 1 when the drive's Error Information log holds the command's
 *          entry (docs/command-set.md §8): the fields below are its.
 * @sqid: submission queue the entry names.
 * @cid: command identifier the entry names.
 * @cmd_byte: byte of the 64-byte command holding the faulty field
 *            (Parameter Error Location), or -1.
 * @data_byte: byte of the command's data holding it, or -1.
 * @bit: bit of that byte where the field starts (0 when none is named).
 * @rsvd: reserved.
 * @error_count: the entry's Error Count (unique per failure since power-on).
 * @reason: the drive's reason, naming the field, its value and the allowed
 *          range ("k 11 exceeds the database's 10 entries"), NUL-terminated.
 */
struct reis_err_info {
	uint16_t status;
	uint8_t opcode;
	uint8_t logged;
	uint16_t sqid;
	uint16_t cid;
	int32_t cmd_byte;
	int32_t data_byte;
	uint32_t bit;
	uint32_t rsvd;
	uint64_t error_count;
	char reason[REIS_ERR_REASON_LEN];
};

/**
 * reis_last_error_info() - the last failure on @dev as fields.
 * @dev: handle.
 * @info: filled: zeroed, @cmd_byte and @data_byte -1, then the failed
 *        command's status, opcode and error log entry when the failure
 *        reis_last_error() describes was the drive's.
 *
 * The same failure as reis_last_error(), for callers that want to act on
 * the status or show the field themselves (the Python module's exceptions).
 *
 * Return: 1 when the drive failed a command (@info->status is set), 0 when
 * the last failure was on the host or in the transport, or nothing failed
 * yet; -EINVAL for a NULL argument.
 */
int reis_last_error_info(const struct reis_dev *dev, struct reis_err_info *info);

/**
 * reis_req_strerror() - format the outcome of a completed request.
 * @req: request.
 * @buf: destination.
 * @len: its size.
 *
 * Return: @buf ("ISP_NOOP: ok", "ISP_ECHO_H2C: ISP Miscompare (status
 * 0x47c7, DNR)", "0x84: Invalid Command Opcode (status 0x4001, DNR)": the
 * status by its name, without libnvme's description, reis_status_str()).
 */
const char *reis_req_strerror(const struct reis_req *req, char *buf, size_t len);

/**
 * reis_strerror() - describe a libreis error code.
 * @err: a negative errno returned by libreis (or 0).
 *
 * Thread-safe: returns static strings.
 *
 * Return: a static string.
 */
const char *reis_strerror(int err);

/**
 * reis_status_str() - description of an NVMe status field value.
 * @status: status field; DNR and More are ignored.
 *
 * Standard codes are described by libnvme ("Invalid Field in Command: A
 * reserved coded value or an unsupported value in a defined field"); the
 * vendor-specific type (SCT 7h) by the ISP command set ("ISP Miscompare";
 * "Vendor Specific Status" for a code it does not define).
 *
 * Return: a static string.
 */
const char *reis_status_str(uint16_t status);

/**
 * reis_status_errno() - the negative errno libreis returns for @status.
 * @status: status field.
 *
 * Invalid Opcode -EOPNOTSUPP, Invalid Field -EINVAL, Data Transfer and
 * Internal -EIO, Invalid Namespace -ENXIO, Capacity Exceeded -ENOSPC,
 * Unknown ID -ENOENT, ID Exists -EEXIST, Busy -EBUSY, Dimension Mismatch
 * -EDOM, Bad Offset -ERANGE, Incomplete -ENODATA, Bad Payload -EBADMSG,
 * Miscompare -EILSEQ, Resource Busy -EAGAIN, Ticket In Use -EADDRINUSE
 * (the ticket names another command's result: draw a new one; -EEXIST
 * stays "ID Exists"), anything else -EIO.
 *
 * Return: 0 for success, else a negative errno.
 */
int reis_status_errno(uint16_t status);

/**
 * reis_opcode_name() - name of an ISP opcode.
 * @opcode: opcode.
 *
 * Return: a static string ("ISP_NOOP"), or NULL if libreis does not know it.
 */
const char *reis_opcode_name(uint8_t opcode);

/**
 * reis_result_time_ns() - modeled time in a completion result.
 * @result: completion DW0 | DW1 << 32.
 *
 * Return: nanoseconds (bits 39:0).
 */
uint64_t reis_result_time_ns(uint64_t result);

/**
 * reis_result_energy_nj() - modeled energy in a completion result.
 * @result: completion DW0 | DW1 << 32.
 *
 * Return: nanojoules, mantissa (bits 58:40) << exponent (bits 63:59).
 */
uint64_t reis_result_energy_nj(uint64_t result);

/**
 * reis_cap_name() - name of one capability bit.
 * @cap: a single enum reis_cap bit.
 *
 * Return: a static string ("echo", "reis-ivf"), or NULL for unknown bits.
 */
const char *reis_cap_name(uint64_t cap);

/**
 * reis_cell_mode_name() - "slc", "mlc", "tlc", "qlc", or "?".
 * @mode: enum reis_cell_mode.
 *
 * Return: a static string.
 */
const char *reis_cell_mode_name(uint32_t mode);

/**
 * reis_cmd_class_name() - name of a command class ("device").
 * @cls: enum reis_cmd_class.
 *
 * Return: a static string, "?" when out of range.
 */
const char *reis_cmd_class_name(unsigned cls);

/**
 * reis_res_class_name() - name of a resource class ("plane").
 * @cls: enum reis_res_class.
 *
 * Return: a static string, "?" when out of range.
 */
const char *reis_res_class_name(unsigned cls);

/**
 * reis_version() - version of the library, "MAJOR.MINOR.PATCH".
 *
 * Return: a static string.
 */
const char *reis_version(void);

/* ---------------------------------------------------------------------- */
/* Discovery                                                               */
/* ---------------------------------------------------------------------- */

#define REIS_PATH_MAX 64
#define REIS_NQN_LEN 223	/* NVMe-oF NQN, without the NUL */

/* reis_discover() flag: also report what was rejected, and why. */
#define REIS_DISCOVER_ALL (1u << 16)

/**
 * struct reis_disc - one namespace seen by reis_discover().
 * @path: its generic char device, "/dev/ngXnY" ("" for a controller
 *        without namespaces).
 * @nsid: namespace id.
 * @ver_major: command-set version (0 when rejected).
 * @ver_minor: command-set minor version.
 * @caps: enum reis_cap bits.
 * @max_xfer: bytes per command.
 * @preset: timing preset name.
 * @ctrl: its controller, "nvmeX".
 * @subsysnqn: the NVM subsystem's NQN.
 * @transport: "pcie", "tcp", "rdma", "fc" or "loop".
 * @address: the controller's address as the kernel gives it
 *           ("traddr=...,trsvcid=..." on fabrics, the PCI address on pcie).
 * @model: Identify Controller model number, trailing blanks removed.
 * @serial: serial number.
 * @firmware: firmware revision.
 * @err: 0 for an ISP drive; with REIS_DISCOVER_ALL, the -errno that
 *       rejected it: -ENODEV no ISP signature (or ISP_IDENTIFY not in the
 *       Commands Supported and Effects log), -EACCES/-EPERM no permission
 *       (vendor opcodes through /dev/ng* need CAP_SYS_ADMIN), -ENOENT no
 *       generic char device, ...
 * @why: with @err, a sentence saying why.
 *
 * The controller fields come from libnvme's topology scan (sysfs); they
 * are filled for rejected entries too.
 */
struct reis_disc {
	char path[REIS_PATH_MAX];
	uint32_t nsid;
	uint16_t ver_major;
	uint16_t ver_minor;
	uint64_t caps;
	uint32_t max_xfer;
	char preset[REIS_PRESET_LEN + 1];
	char ctrl[32];
	char subsysnqn[REIS_NQN_LEN + 1];
	char transport[16];
	char address[128];
	char model[41];
	char serial[21];
	char firmware[9];
	int err;
	char why[160];
};

/**
 * reis_discover() - find the ISP drives of this machine.
 * @out: array for the results (may be NULL when @max is 0).
 * @max: its length.
 * @flags: reis_open() flags used to probe (REIS_OPEN_IOCTL ...), and
 *         REIS_DISCOVER_ALL.
 *
 * Walks libnvme's topology scan (every subsystem, controller and
 * namespace in sysfs). A namespace qualifies when its generic char device
 * opens, Identify Controller carries the "ISP1" signature in its
 * vendor-specific area, the Commands Supported and Effects log (when it
 * may be read) lists ISP_IDENTIFY, and ISP_IDENTIFY succeeds; no vendor
 * opcode reaches a drive without the signature. Results are in numeric
 * order of controller and namespace. Without REIS_DISCOVER_ALL only ISP
 * drives are reported; with it every namespace (and every controller
 * without one) is, @err and @why saying why it was rejected.
 *
 * Return: the number of entries (may exceed @max; only @max are filled),
 * or -errno: -EINVAL for bad arguments, -ENOMEM, or the topology scan's
 * error when it saw nothing (a scan that fails part way, e.g. without
 * privileges, still reports what it saw).
 */
int reis_discover(struct reis_disc *out, unsigned max, uint32_t flags);

/* Vendor log pages (docs/command-set.md §3.3, §3.4, §7). */
#define REIS_LID_CMD_EFFECTS 0x05
#define REIS_LID_STATS 0xc0	/* struct isp_wire_stats, as ISP_STATS */
#define REIS_LID_IDENTIFY 0xc1	/* struct isp_wire_identify, as ISP_IDENTIFY */
#define REIS_LOG_MAX 65536u	/* bytes per reis_log_page() call */

/**
 * reis_log_page() - read a log page through the admin queue (Get Log Page).
 * @dev: an open handle on a char device (not in-process).
 * @lid: log page identifier, e.g. REIS_LID_STATS.
 * @offset: byte offset into the log page (a multiple of 4).
 * @buf: destination.
 * @len: bytes to read, a multiple of 4, 4..REIS_LOG_MAX.
 *
 * Uses libnvme's log helper on the handle's file descriptor. Unlike
 * ISP_STATS (reis_stats()), reading log C0h never resets the counters.
 * Admin commands other than Identify need CAP_SYS_ADMIN.
 *
 * Thread safety: thread-safe.
 *
 * Return: 0; -EOPNOTSUPP on an in-process handle; -EINVAL for bad
 * arguments or a log page the drive does not have (Invalid Field);
 * -EPERM/-EACCES without permission; another -errno from the status
 * (reis_status_errno()). reis_last_error() gives the NVMe status string.
 */
int reis_log_page(struct reis_dev *dev, uint8_t lid, uint64_t offset, void *buf,
		  uint32_t len);

/* ---------------------------------------------------------------------- */
/* Block I/O on the namespace (docs/libreis.md, Block I/O)                 */
/* ---------------------------------------------------------------------- */

/* The in-process drive's namespace: in memory, sparse, lost at close
 * (512-byte LBAs as QEMU's NVMe namespace by default). */
#define REIS_INPROC_NS_BYTES (4ull << 30)
#define REIS_INPROC_LBA_BYTES 512u
/* Bytes one reis_block_read()/reis_block_write() call may move. */
#define REIS_BLOCK_MAX_BYTES (1u << 30)

/**
 * struct reis_ns_geom - the handle's namespace, from Identify Namespace.
 * @lba_bytes: bytes per LBA (the format in use), 512..65536.
 * @rsvd: reserved.
 * @nlbas: LBAs in the namespace (NSZE).
 */
struct reis_ns_geom {
	uint32_t lba_bytes;
	uint32_t rsvd;
	uint64_t nlbas;
};

/**
 * reis_ns_geom() - the LBA size and count of the handle's namespace.
 * @dev: handle.
 * @geom: filled on success.
 *
 * Asked once (Identify Namespace on the char device) and cached.
 *
 * Return: 0, -EPROTO for a malformed reply, or -errno.
 */
int reis_ns_geom(struct reis_dev *dev, struct reis_ns_geom *geom);

/**
 * reis_block_read() - read LBAs [@slba, @slba + @nlb) of the namespace.
 * @dev: handle.
 * @slba: first LBA.
 * @nlb: blocks, at least 1; at most REIS_BLOCK_MAX_BYTES in all.
 * @buf: @nlb * lba_bytes bytes, 4-byte aligned.
 *
 * NVMe Read commands through the handle's transport (the drive's "normal
 * SSD mode"), each at most reis_max_xfer() bytes and 65536 blocks, up to
 * 16 in flight. Other requests of @dev may be in flight meanwhile.
 *
 * Return: 0; -EINVAL (bad buffer or count), -ERANGE (past the namespace),
 * -E2BIG (too much for one call), all before anything is sent; or the
 * first failing command's -errno (reis_last_error() says which).
 */
int reis_block_read(struct reis_dev *dev, uint64_t slba, uint64_t nlb, void *buf);

/**
 * reis_block_write() - write LBAs [@slba, @slba + @nlb) of the namespace.
 * @dev: handle.
 * @slba: first LBA.
 * @nlb: blocks.
 * @buf: @nlb * lba_bytes bytes, 4-byte aligned.
 *
 * As reis_block_read(), with NVMe Write.
 *
 * Return: as reis_block_read().
 */
int reis_block_write(struct reis_dev *dev, uint64_t slba, uint64_t nlb, const void *buf);

#ifdef __cplusplus
}
#endif

/* Topic headers of the drive API, one topic each (docs/libreis.md, Layers).
 * The host tools (k-means, quantizers, reference search, ...) are
 * <libreis_tools.h> and libreis-tools. */
#include "libreis/libreis_result.h"
#include "libreis/libreis_reis_defs.h"
#include "libreis/libreis_reis_image.h"
#include "libreis/libreis_reis_db.h"
#include "libreis/libreis_reis_meta.h"
#include "libreis/libreis_reis_search.h"
#include "libreis/libreis_rf.h"

#endif /* LIBREIS_H */
