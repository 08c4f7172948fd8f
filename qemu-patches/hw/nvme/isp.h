/*
 * QEMU NVM Express in-storage processing (ISP) glue
 *
 * The controller hands vendor-specific I/O commands (opcodes 80h-FFh) to an
 * emulated computational drive, modelled by hw-model (linked from
 * isp-model/). The glue decodes, bounds and moves data; the model executes.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#ifndef HW_NVME_ISP_H
#define HW_NVME_ISP_H

#include "hw/qdev-properties.h"
#include "nvme.h"

#define NVME_ISP_OPC_MIN 0x80

extern const PropertyInfo nvme_isp_prop_timing;

/* The device properties, for nvme_props[] (all off or empty by default). */
#define DEFINE_NVME_ISP_PROPERTIES(_state, _field)                           \
    DEFINE_PROP_BOOL("isp", _state, _field.enabled, false),                  \
    DEFINE_PROP_STRING("isp-backing", _state, _field.backing),               \
    DEFINE_PROP_STRING("isp-preset", _state, _field.preset),                 \
    DEFINE_PROP_STRING("isp-params", _state, _field.params),                 \
    DEFINE_PROP_SIGNED_NODEFAULT("isp-timing", _state, _field.timing,        \
                                 nvme_isp_prop_timing, NvmeIspTiming),       \
    DEFINE_PROP_STRING("isp-trace-dir", _state, _field.trace_dir),           \
    DEFINE_PROP_ON_OFF_AUTO("isp-ftl", _state, _field.ftl, ON_OFF_AUTO_AUTO), \
    DEFINE_PROP_BOOL("isp-cs", _state, _field.cs, false),                    \
    DEFINE_PROP_UINT32("isp-slm-nsid", _state, _field.cs_slm_nsid, 2),       \
    DEFINE_PROP_UINT32("isp-cp-nsid", _state, _field.cs_cp_nsid, 3)

bool nvme_isp_check_params(NvmeCtrl *n, Error **errp);
bool nvme_isp_realize(NvmeCtrl *n, Error **errp);
void nvme_isp_unrealize(NvmeCtrl *n);

/*
 * Cancel every ISP command in flight and wait for it (reset, unrealize):
 * all are told to stop first, then waited for. From here until
 * nvme_isp_reset_done() new ISP commands are refused (Command Abort
 * Requested; the reset frees their queues, the guest never sees it).
 */
void nvme_isp_drain(NvmeCtrl *n);
/* The controller reset freed its queues: ISP commands are taken again. */
void nvme_isp_reset_done(NvmeCtrl *n);

/*
 * An I/O command whose opcode the effects table marks supported; only the
 * glue marks vendor opcodes.
 */
uint16_t nvme_isp_io_cmd(NvmeCtrl *n, NvmeRequest *req);
/* Adds the model's cost to a vendor opcode the effects table rejected. */
void nvme_isp_invalid_opc(NvmeCtrl *n, NvmeRequest *req);
/* A vendor opcode naming no active namespace: Invalid Namespace. */
uint16_t nvme_isp_inactive_ns(NvmeCtrl *n, NvmeRequest *req);

bool nvme_isp_log_supported(NvmeCtrl *n, uint8_t lid);
uint16_t nvme_isp_get_log(NvmeCtrl *n, uint8_t lid, uint64_t len,
                          uint64_t off, NvmeRequest *req);
void nvme_isp_id_ctrl_vs(NvmeCtrl *n, uint8_t *vs, size_t len);

/*
 * Ordinary I/O through the model's FTL (docs/ftl.md), isp-ftl=on (the
 * default with isp=on): every I/O command is booked when it is submitted
 * (Read, Write, Write Zeroes, Flush; others are not timed), and with
 * isp-timing=delay its completion waits for the modeled time.
 */
void nvme_isp_io_submit(NvmeCtrl *n, NvmeRequest *req);
/* True when the completion of @req is held (and posted later). */
bool nvme_isp_io_hold(NvmeCQueue *cq, NvmeRequest *req);
/* The FTL's fields of SMART / Health Information. */
void nvme_isp_smart(NvmeCtrl *n, NvmeSmartLog *smart);

/*
 * Queue @cmd (checked, data pointer mapped) with @len bytes of data on the
 * ISP workers; @staged (g_malloc'd, @len bytes, ownership passes) is data
 * the caller prepared, else H2C data is copied from the guest first.
 */
struct isp_cmd;
struct isp_dev;
uint16_t nvme_isp_submit(NvmeCtrl *n, NvmeRequest *req,
                         const struct isp_cmd *cmd, uint64_t len,
                         uint8_t *staged);
/* The device model of @n, or NULL (isp=off, or closed at exit). */
struct isp_dev *nvme_isp_dev(NvmeCtrl *n);

/*
 * isp-cs.c: the standard computational-storage interface, a memory
 * namespace (SLM, CSI 03h) and a compute namespace (CP, CSI 04h) beside
 * the NVM namespace (docs/command-set.md section 9).
 */
#define NVME_ISP_CS_NVM_NSID 1  /* the NVM namespace Memory Copy 2h reads */

bool nvme_isp_cs_check_params(NvmeCtrl *n, Error **errp);
/* @nsid is the memory or compute namespace of @n */
bool nvme_isp_cs_nsid(NvmeCtrl *n, uint32_t nsid);
uint16_t nvme_isp_cs_io_cmd(NvmeCtrl *n, NvmeRequest *req);
/* @opc is an admin command of the CP set and @n has a compute namespace */
bool nvme_isp_cs_admin_opc(NvmeCtrl *n, uint8_t opc);
uint16_t nvme_isp_cs_admin_cmd(NvmeCtrl *n, NvmeRequest *req);
/* Identify: the CNS values and namespaces isp-cs.c answers */
bool nvme_isp_cs_identify_owns(NvmeCtrl *n, NvmeRequest *req);
uint16_t nvme_isp_cs_identify(NvmeCtrl *n, NvmeRequest *req);
/* Commands Supported and Effects log: add the CP admin and SLM/CP I/O
 * entries to @acs and, for CSI @csi, @iocs (256 le32 each) */
void nvme_isp_cs_effects(NvmeCtrl *n, uint8_t csi, uint32_t *acs,
                         uint32_t *iocs);

static inline bool nvme_isp_enabled(NvmeCtrl *n)
{
    return n->isp != NULL;
}

#endif /* HW_NVME_ISP_H */
