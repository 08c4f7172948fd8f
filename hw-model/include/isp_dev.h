/* SPDX-License-Identifier: MIT */
/*
 * isp_dev.h - the emulated in-storage-processing drive.
 *
 * One struct isp_dev per NVMe controller. It owns the flash array (backing
 * file, timing engine, metadata) and the REIS and RecFlash engines, and
 * executes the vendor commands of docs/command-set.md. It knows nothing of
 * QEMU: the glue in hw/nvme/isp.c and libreis' in-process transport call the
 * same functions.
 *
 * Threading: every function may be called from any thread, concurrently,
 * except isp_dev_close(), which the caller calls once no call is in flight.
 * See docs/architecture.md for the locks behind this.
 */
#ifndef ISP_DEV_H
#define ISP_DEV_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "isp_hostmem.h"
#include "isp_wire.h"

struct isp_dev;

struct fio;

struct isp_dev_config {
	/* Flash backing file; created (sparse) when missing. NULL: in memory. */
	const char *backing;
	/* Timing/geometry preset name (fp_preset_names()); NULL: "reis-ssd1". */
	const char *preset;
	/* Overrides "key=value;key=value" (',' also separates); may be NULL. */
	const char *params;
	/* Largest data transfer the transport allows per command, bytes. */
	uint32_t max_xfer;
	/* Directory for Perfetto timeline exports; NULL: disabled. */
	const char *trace_dir;
	/* Non-zero when the transport delays completions by the model time
	 * (reported as ISP_CAP_TIMING_DELAY; the device itself never sleeps). */
	int timing_delay;
	/* Host threads one command may use: the drive's worker set splits a
	 * search's host work over them (its modeled time, results and energy
	 * do not change). 0: the online CPUs (at most ISP_HOST_THREADS_MAX);
	 * 1: only the thread that executes it. "host_threads=N" in @params
	 * sets it too (and wins), so a transport that only passes the
	 * parameters (the QEMU glue's isp-params) can set it. */
	uint32_t host_threads;
	/* Tests and fuzzers: this image (flash_io.h, fio_open_mem()) as the
	 * backing file, instead of @backing; it stays the caller's. */
	struct fio *image;
	/*
	 * The standard interface (docs/command-set.md section 9): the memory
	 * namespace (CSI 03h) and the compute namespace (CSI 04h) the
	 * transport exposes beside the NVM namespace @nvm_nsid. 0: 2, 3 and 1.
	 * @cs_off non-zero: neither namespace exists.
	 */
	int cs_off;
	uint32_t slm_nsid;
	uint32_t cp_nsid;
	uint32_t nvm_nsid;
};

/* Which command set a struct isp_cmd belongs to. */
enum isp_cmd_set {
	ISP_SET_VENDOR = 0,	/* vendor I/O command, opcodes 80h-FFh */
	ISP_SET_ADMIN = 1,	/* admin command of the CP set (85h, 88h, 89h) */
	ISP_SET_IO = 2,		/* I/O command on the memory or compute namespace */
};

#define ISP_HOST_THREADS_MAX 16u

/* The parts of an NVMe submission queue entry the device looks at. */
struct isp_cmd {
	uint8_t opcode;
	uint8_t set;		/* enum isp_cmd_set */
	uint8_t rsvd[2];
	uint32_t nsid;
	uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
	uint64_t submit_ns;	/* device clock at submission */
	uint16_t sqid;		/* submission queue and command id, for the */
	uint16_t cid;		/* Error Information log (0 when unknown) */
	uint32_t cdw2, cdw3;	/* used by the standard commands only */
	uint32_t cdw4;		/* Execute Program: DLEN (MPTR's low half) */
	uint32_t rsvd1;
};

#define ISP_ERR_IN_SQE 1
#define ISP_ERR_IN_DATA 2

struct isp_cpl {
	uint16_t status;	/* NVMe status: enum isp_status | DNR */
	uint64_t result;	/* completion DW0 | DW1 << 32 */
	uint64_t model_ns;	/* modeled latency (also packed in result) */
	uint64_t energy_pj;
	uint32_t xfer_len;	/* C2H bytes produced (<= data_len) */
	const char *err;	/* static reason string for trace events, or NULL */
	/* The offending field (docs/command-set.md §8): err_where is
	 * ISP_ERR_IN_SQE (err_byte of the 64-byte command), ISP_ERR_IN_DATA
	 * (of the H2C data) or 0 (unknown); err_msg the reason with the values
	 * and the allowed range, or "" (then err is the reason). */
	uint8_t err_where;
	uint8_t err_bit;
	uint16_t err_byte;
	char err_msg[ISP_ERR_MSG_LEN];
};

/**
 * isp_dev_open() - create a device.
 * @cfg: configuration; strings are copied.
 * @out: the new device.
 * @err: buffer for a human-readable reason on failure (may be NULL).
 * @errlen: size of @err.
 *
 * Opens or creates the backing file. A backing file made with another
 * geometry, truncated or corrupt is refused (-EINVAL / -EIO), never
 * reformatted.
 *
 * Return: 0 or -errno; -EINVAL for a bad configuration (an unknown preset
 * or parameter, a bad value), with the reason in @err.
 */
int isp_dev_open(const struct isp_dev_config *cfg, struct isp_dev **out,
		 char *err, size_t errlen);

/**
 * isp_dev_close() - flush metadata and free @dev. NULL is a no-op.
 */
void isp_dev_close(struct isp_dev *dev);

/**
 * isp_cmd_data_len() - bytes the command transfers (NDT * 4).
 */
static inline uint64_t isp_cmd_data_len(const struct isp_cmd *cmd)
{
	return (uint64_t)cmd->cdw10 * 4u;
}

/**
 * isp_dev_cmd_len() - bytes @cmd moves between host and drive: NDT * 4 for
 * a vendor command; for a standard command what its fields say (Memory
 * Read/Write: LEN, Memory Copy: the source range list, ...). Meaningful
 * once isp_dev_check() accepted @cmd; 0 otherwise.
 */
uint64_t isp_dev_cmd_len(const struct isp_dev *dev, const struct isp_cmd *cmd);

/**
 * isp_dev_check() - validate a command before any data moves.
 * @dev: device.
 * @cmd: the command.
 * @cpl: on error, status, result and reason are filled in.
 *
 * Checks the opcode, direction, NDT/NDM and cheap parameter fields. The glue
 * calls it on the main loop so malformed commands never reach a worker or
 * map guest memory. isp_dev_exec() repeats these checks.
 *
 * Return: NVMe status (0 on success).
 */
uint16_t isp_dev_check(struct isp_dev *dev, const struct isp_cmd *cmd,
		       struct isp_cpl *cpl);

/**
 * isp_dev_exec() - execute a command.
 * @dev: device.
 * @cmd: the command.
 * @data: H2C: the isp_cmd_data_len() bytes received; C2H: a buffer of that
 *        many bytes to fill; no-data commands: NULL.
 * @data_len: size of @data; must equal isp_cmd_data_len(@cmd).
 * @cpl: completion, always fully written.
 *
 * May take long (a search); the glue runs it on a worker thread.
 *
 * Return: NVMe status, also in @cpl->status.
 */
uint16_t isp_dev_exec(struct isp_dev *dev, const struct isp_cmd *cmd,
		      void *data, size_t data_len, struct isp_cpl *cpl);

/**
 * isp_dev_exec_cancel() - isp_dev_exec() that another thread can stop.
 * @cancel: NULL (never stops), or a flag the caller sets non-zero from any
 *          thread to stop the command; read with relaxed loads.
 *
 * Long commands read the flag once per flash page they scan, read or
 * program (search fine and coarse phases, SLS bags, remap row moves), so a
 * stop takes at most one page's work plus the command's clean-up
 * (docs/platform.md "Stopping a command"). A stopped command completes
 * with ISP_SC_ABORT_REQ (no DNR) and leaves the drive as if it had failed
 * for any other reason: a search or SLS publishes no result and frees its
 * ticket, a remap keeps the old mapping and frees its new area. Commands
 * that are short by construction (bounded by max_xfer) never look.
 *
 * Return: NVMe status, also in @cpl->status.
 */
uint16_t isp_dev_exec_cancel(struct isp_dev *dev, const struct isp_cmd *cmd,
			     void *data, size_t data_len, struct isp_cpl *cpl,
			     const atomic_int *cancel);

/**
 * isp_dev_host_mem() - the drive's host-memory bound and its shares
 * (isp_hostmem.h), as planned at open: the transport takes its bounce
 * buffers from @out->bounce.
 */
void isp_dev_host_mem(const struct isp_dev *dev, struct isp_host_mem *out);

/**
 * isp_dev_log_page() - log pages: 01h (Error Information, the last
 * ISP_ERR_RING failed commands, newest first), C0h (stats), C1h (identify),
 * C2h (the reasons of the 01h entries, struct isp_wire_err_text).
 * @lid: log identifier.
 * @buf: destination.
 * @len: bytes wanted.
 * @off: byte offset into the page.
 *
 * Return: bytes copied, or -EINVAL for an unknown @lid or @off past the page.
 */
int isp_dev_log_page(struct isp_dev *dev, uint8_t lid, void *buf, size_t len,
		     uint64_t off);

#define ISP_LID_STATS 0xc0
#define ISP_LID_IDENTIFY 0xc1
#define ISP_ID_CTRL_VS_LEN 64

/**
 * isp_dev_id_ctrl_vs() - the first ISP_ID_CTRL_VS_LEN bytes of the identify
 * structure, for the vendor-specific area of Identify Controller.
 */
void isp_dev_id_ctrl_vs(struct isp_dev *dev, uint8_t vs[ISP_ID_CTRL_VS_LEN]);

/**
 * isp_dev_opcode_supported() - whether @opcode is an ISP command, for the
 * Commands Supported and Effects log.
 * @effects: set to the effects bits (bit 0 CSUPP, bit 1 LBCC, ...).
 */
int isp_dev_opcode_supported(uint8_t opcode, uint32_t *effects);

/**
 * isp_opcode_name() - static name of an ISP opcode ("ISP_NOOP"), or NULL.
 */
const char *isp_opcode_name(uint8_t opcode);

/**
 * isp_status_name() - static name of a status code, ignoring DNR/More.
 */
const char *isp_status_name(uint16_t status);

struct ft_trace;

/**
 * isp_dev_trace_all() - record every command from now on, vendor and
 * ordinary, into @tr (flash_timing.h: ft_trace_new(); NULL: stop), for an
 * in-process timeline of concurrent work on one set of resource tracks
 * (ft_trace_write_file() with isp_dev_timing()). TRACE_ARM and trace_dir
 * are not served meanwhile. The caller keeps @tr until it stops; one
 * thread at a time may issue commands while it records.
 */
void isp_dev_trace_all(struct isp_dev *dev, struct ft_trace *tr);

/** isp_dev_timing() - the device's timing engine (flash_timing.h). */
struct ft *isp_dev_timing(struct isp_dev *dev);

/* ---- ordinary I/O (docs/ftl.md) ---- */

struct ftl;
struct ftl_io;
struct ftl_range;
struct ftl_cpl;

/**
 * isp_dev_ftl() - the device's FTL (ftl.h), for its statistics and tests.
 */
struct ftl *isp_dev_ftl(struct isp_dev *dev);

/**
 * isp_dev_ns_attach() - let the FTL map namespace @nsid of @bytes
 * (ftl_attach()): from then on isp_dev_io() times its reads and writes.
 * Return: 0 or -errno (with @err saying why).
 */
int isp_dev_ns_attach(struct isp_dev *dev, uint32_t nsid, uint64_t bytes, char *err,
		      size_t errlen);

/**
 * isp_dev_io() - book one ordinary command (ftl_io()); a Flush that
 * changed the map also commits the device's metadata, at most once per
 * second of device time.
 * Return: ftl_io()'s.
 */
int isp_dev_io(struct isp_dev *dev, const struct ftl_io *io, struct ftl_cpl *cpl);

/**
 * isp_dev_dealloc() - book a Dataset Management deallocation of @n ranges
 * of namespace @nsid submitted at @submit_ns (ftl_deallocate()).
 * Return: ftl_deallocate()'s; -ENODEV without an FTL.
 */
int isp_dev_dealloc(struct isp_dev *dev, uint32_t nsid, const struct ftl_range *r, uint32_t n,
		    uint64_t submit_ns, struct ftl_cpl *cpl);

/* What the FTL adds to SMART / Health Information (NVMe log page 02h). */
struct isp_dev_smart {
	uint8_t valid;			/* 0: no namespace attached */
	uint8_t available_spare;	/* %: spare stripes held, of the target's */
	uint8_t spare_threshold;	/* %: below it the drive warns */
	uint8_t percentage_used;	/* mean block erases / ftl_pe, %, <= 255 */
	uint32_t rsvd;
	uint64_t host_write_bytes;
	uint64_t nand_write_bytes;
	uint64_t gc_victims;
};

/** isp_dev_smart() - fill @out. Return: 0, -ENOENT (nothing attached). */
int isp_dev_smart(struct isp_dev *dev, struct isp_dev_smart *out);
/* ---- the standard interface (docs/command-set.md section 9) ---- */

/**
 * isp_dev_cs_csi() - the command set of namespace @nsid when it is this
 * drive's memory (ISP_CSI_SLM) or compute (ISP_CSI_CP) namespace; -1 for
 * any other namespace id (the transport's own namespaces).
 */
int isp_dev_cs_csi(const struct isp_dev *dev, uint32_t nsid);

/**
 * isp_dev_cs_nsids() - the memory and compute namespace ids, 0 when the
 * standard interface is off (isp_dev_config.cs_off).
 */
void isp_dev_cs_nsids(const struct isp_dev *dev, uint32_t *slm_nsid, uint32_t *cp_nsid);

/**
 * isp_dev_cs_identify() - an Identify data structure of the standard
 * interface into @buf (4096 bytes): CNS 05h (I/O Command Set specific
 * Namespace) and 08h (I/O Command Set Independent Namespace) of the memory
 * and compute namespaces, CNS 06h (I/O Command Set specific Controller) for
 * CSI 03h and 04h.
 * Return: 0, or the NVMe status for a combination this drive does not know.
 */
uint16_t isp_dev_cs_identify(struct isp_dev *dev, uint8_t cns, uint8_t csi, uint32_t nsid,
			     void *buf);

/**
 * isp_dev_cs_effects() - the Commands Supported and Effects entry of
 * @opcode: an admin opcode when @admin, else an I/O opcode of command set
 * @csi (ISP_CSI_SLM or ISP_CSI_CP). 0: not supported.
 */
uint32_t isp_dev_cs_effects(uint8_t csi, int admin, uint8_t opcode);

/*
 * Memory Copy descriptor format 2h reads LBAs of an NVM namespace, which
 * the transport owns: it asks isp_dev_cs_copy_lbas() which blocks the
 * command reads, reads them, and passes isp_dev_exec() the source range
 * list followed by a struct isp_cs_stage and the blocks' bytes in list
 * order (docs/command-set.md §9.7).
 */
struct isp_cs_lba_range {
	uint32_t nsid;
	uint32_t nlb;		/* blocks, 1-based */
	uint64_t slba;
	uint32_t index;		/* the source range's index in the list */
	uint32_t rsvd;
};

struct isp_cs_stage {
	uint32_t lba_bytes;	/* 512..65536, a power of two */
	uint32_t nranges;	/* ranges staged, as isp_dev_cs_copy_lbas() said */
};

/**
 * isp_dev_cs_copy_lbas() - the LBA ranges of Memory Copy @cmd (accepted by
 * isp_dev_check()) whose source range list is @descs (@len bytes), for an
 * NVM namespace of @lba_bytes blocks (the sum must be NBYTE, at most MCL).
 * @out: up to @max ranges; *@n their number (0: nothing to stage).
 * Return: NVMe status (0: success); on failure @cpl says why.
 */
uint16_t isp_dev_cs_copy_lbas(struct isp_dev *dev, const struct isp_cmd *cmd,
			      const void *descs, size_t len, uint32_t lba_bytes,
			      struct isp_cs_lba_range *out, unsigned max, unsigned *n,
			      struct isp_cpl *cpl);

/**
 * isp_dev_note_failure() - count and record in the Error Information log
 * (01h, C2h) a command the transport failed on the model's behalf before
 * isp_dev_exec() (a Memory Copy source past the NVM namespace, ...):
 * @cpl's status and field (err_where, err_byte, err_bit, err_msg).
 */
void isp_dev_note_failure(struct isp_dev *dev, const struct isp_cmd *cmd,
			  const struct isp_cpl *cpl);

#endif /* ISP_DEV_H */
