/*
 * QEMU NVM Express in-storage processing (ISP) glue: QEMU version compat
 *
 * isp.c is compiled into QEMU 7.2 (Debian bookworm) and QEMU 10.0 (Debian
 * bookworm-backports). Where the two differ in an interface the glue uses,
 * the difference lives here and nowhere else; placement of the hooks in
 * ctrl.c is the business of each version's patch series
 * (qemu-patches/<version>/). docs/platform.md "What changed in the glue"
 * lists the differences.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#ifndef HW_NVME_ISP_COMPAT_H
#define HW_NVME_ISP_COMPAT_H

#include "block/aio.h"

#if QEMU_VERSION_MAJOR >= 10

/* include/sysemu/ is include/system/ */
#include "system/block-backend.h"
#include "system/system.h"

/* Property lists and the PropertyInfo callbacks take const Property. */
typedef const Property NvmeIspProperty;
/* PropertyInfo.name is called .type */
#define NVME_ISP_PROPINFO_TYPE type

/*
 * AIOCBInfo has no .get_aio_context: blk_aio_cancel() waits in the
 * main loop, where the glue's commands run.
 */
#define NVME_ISP_AIOCB_INFO_CONTEXT

/* The I/O Commands Supported and Effects tables: per controller, stock. */
#define NVME_ISP_IOCS_NVM(n)   ((n)->cse.iocs.nvm)
#define NVME_ISP_IOCS_ZONED(n) ((n)->cse.iocs.zoned)

/* 10.0's "ocp" property serves log page C0h, which ISP uses too. */
static inline bool nvme_isp_ocp_enabled(NvmeCtrl *n)
{
    return n->params.ocp;
}

/*
 * Status of a cancelled command the controller named no reason for: only
 * the reset drain, whose completions the guest never sees. nvme_del_sq()
 * sets Command Aborted due to SQ Deletion and Abort sets Command Abort
 * Requested before they cancel.
 */
#define NVME_ISP_CANCEL_STATUS NVME_CMD_ABORT_REQ

/* A cancel outside the reset drain: is it Delete I/O SQ (not Abort)? */
static inline bool nvme_isp_cancel_deletes_sq(NvmeRequest *req)
{
    return req->status == NVME_CMD_ABORT_SQ_DEL;
}

/* CC.CSS 110b, every I/O command set the controller supports (isp-cs.c) */
#define NVME_ISP_CC_CSS_ALL NVME_CC_CSS_ALL

#else /* QEMU 7.2 */

#include "sysemu/block-backend.h"
#include "sysemu/sysemu.h"

typedef Property NvmeIspProperty;
#define NVME_ISP_PROPINFO_TYPE name

/* blk_aio_cancel() polls the context the AIOCB names: the main loop's. */
static inline AioContext *nvme_isp_aiocb_context(BlockAIOCB *acb)
{
    return qemu_get_aio_context();
}
#define NVME_ISP_AIOCB_INFO_CONTEXT .get_aio_context = nvme_isp_aiocb_context,

/* per-controller copies kept by qemu-patches/7.2 (7.2's are static const) */
#define NVME_ISP_IOCS_NVM(n)   ((n)->cse_iocs_nvm)
#define NVME_ISP_IOCS_ZONED(n) ((n)->cse_iocs_zoned)

/* 7.2 has no OCP log pages. */
static inline bool nvme_isp_ocp_enabled(NvmeCtrl *n)
{
    return false;
}

/*
 * 7.2's nvme_del_sq() cancels without setting a status and it is the only
 * canceller besides the reset drain (invisible to the guest), so name SQ
 * deletion as 10.0 does.
 */
#define NVME_ISP_CANCEL_STATUS NVME_CMD_ABORT_SQ_DEL

/* 7.2 has no Abort that cancels: every other cancel deletes the queue. */
static inline bool nvme_isp_cancel_deletes_sq(NvmeRequest *req)
{
    return true;
}

#define NVME_ISP_CC_CSS_ALL NVME_CC_CSS_CSI

#endif

#endif /* HW_NVME_ISP_COMPAT_H */
