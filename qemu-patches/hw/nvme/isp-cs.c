/*
 * QEMU NVM Express in-storage processing: the standard interface
 *
 * A memory namespace (Subsystem Local Memory, CSI 03h) and a compute
 * namespace (Computational Programs, CSI 04h) beside the NVM namespace
 * (docs/command-set.md section 9). hw-model owns both: this file answers
 * Identify for them, decodes their admin and I/O commands into the model's
 * struct isp_cmd and hands them to isp.c's workers, which run them like
 * vendor commands (bounce buffer, isp-timing=delay, cancel on reset).
 * Memory Copy from the NVM namespace (descriptor format 2h) reads the
 * blocks here, on the main loop, and stages them with the command.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"

#include "nvme.h"
#include "isp.h"
#include "isp-compat.h"
#include "trace.h"

#include "isp_dev.h"

/* Identify CNS values (NVMe Base 2.1, 5.1.13) this file answers. */
#define CS_CNS_NS               0x00
#define CS_CNS_NS_ACTIVE_LIST   0x02
#define CS_CNS_NS_DESCR_LIST    0x03
#define CS_CNS_CS_NS            0x05
#define CS_CNS_CS_CTRL          0x06
#define CS_CNS_CS_ACTIVE_LIST   0x07
#define CS_CNS_CS_IND_NS        0x08
#define CS_CNS_NS_PRESENT_LIST  0x10
#define CS_CNS_CS_PRESENT_LIST  0x1a
#define CS_CNS_IO_COMMAND_SET   0x1c

#define CS_ID_LEN 4096
#define CS_MAX_LBA_RANGES 128   /* the model's Memory Copy limit (MSRC) */

static uint16_t nvme_isp_cs_err(NvmeRequest *req, uint16_t status,
                                const char *why)
{
    if (status & NVME_DNR) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "nvme-isp-cs: cid %u opc 0x%02x status 0x%04x: %s\n",
                      nvme_cid(req), req->cmd.opcode, status, why);
    }

    return status;
}

bool nvme_isp_cs_check_params(NvmeCtrl *n, Error **errp)
{
    NvmeIspParams *p = &n->isp_params;

    if (!p->cs) {
        return true;
    }
    if (p->cs_slm_nsid < 1 || p->cs_slm_nsid > NVME_MAX_NAMESPACES ||
        p->cs_cp_nsid < 1 || p->cs_cp_nsid > NVME_MAX_NAMESPACES ||
        p->cs_slm_nsid == p->cs_cp_nsid ||
        p->cs_slm_nsid == NVME_ISP_CS_NVM_NSID ||
        p->cs_cp_nsid == NVME_ISP_CS_NVM_NSID) {
        error_setg(errp, "isp-slm-nsid=%u and isp-cp-nsid=%u must differ, "
                   "lie in 2..%d and leave nsid %d to the NVM namespace "
                   "(or isp-cs=off)", p->cs_slm_nsid, p->cs_cp_nsid,
                   NVME_MAX_NAMESPACES, NVME_ISP_CS_NVM_NSID);
        return false;
    }

    return true;
}

/* The command set of @nsid when it is one of ours, else -1. */
static int nvme_isp_cs_csi(NvmeCtrl *n, uint32_t nsid)
{
    struct isp_dev *dev = nvme_isp_dev(n);
    int csi;

    if (!dev || nsid == 0 || nsid > NVME_MAX_NAMESPACES) {
        return -1;
    }
    csi = isp_dev_cs_csi(dev, nsid);
    if (csi >= 0 && nvme_ns(n, nsid)) {
        /* an nvme-ns device took the id: QEMU's namespace wins */
        trace_pci_nvme_err_isp_cs_shadowed(nsid);
        return -1;
    }

    return csi;
}

bool nvme_isp_cs_nsid(NvmeCtrl *n, uint32_t nsid)
{
    return nvme_isp_cs_csi(n, nsid) >= 0;
}

bool nvme_isp_cs_admin_opc(NvmeCtrl *n, uint8_t opc)
{
    struct isp_dev *dev = nvme_isp_dev(n);
    uint32_t slm, cp;

    if (!dev || !isp_dev_cs_effects(0, 1, opc)) {
        return false;
    }
    isp_dev_cs_nsids(dev, &slm, &cp);

    return cp != 0;
}

static void nvme_isp_cs_decode(NvmeRequest *req, struct isp_cmd *cmd,
                               uint8_t set)
{
    NvmeCmd *c = &req->cmd;
    uint64_t res1 = le64_to_cpu(c->res1);

    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = c->opcode;
    cmd->set = set;
    cmd->nsid = le32_to_cpu(c->nsid);
    cmd->cdw2 = (uint32_t)res1;
    cmd->cdw3 = (uint32_t)(res1 >> 32);
    /* Execute Program's DLEN: the metadata pointer's low half */
    cmd->cdw4 = (uint32_t)le64_to_cpu(c->mptr);
    cmd->cdw10 = le32_to_cpu(c->cdw10);
    cmd->cdw11 = le32_to_cpu(c->cdw11);
    cmd->cdw12 = le32_to_cpu(c->cdw12);
    cmd->cdw13 = le32_to_cpu(c->cdw13);
    cmd->cdw14 = le32_to_cpu(c->cdw14);
    cmd->cdw15 = le32_to_cpu(c->cdw15);
    cmd->submit_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    cmd->sqid = req->sq->sqid;
    cmd->cid = nvme_cid(req);
}

/* The model's decode check, then the data pointer mapped for its length. */
static uint16_t nvme_isp_cs_admit(NvmeCtrl *n, NvmeRequest *req,
                                  const struct isp_cmd *cmd, uint64_t *len)
{
    struct isp_dev *dev = nvme_isp_dev(n);
    struct isp_cpl cpl;
    uint16_t status;

    *len = 0;
    if (!dev) {
        trace_pci_nvme_err_isp_cs_no_dev(nvme_cid(req), cmd->opcode);
        return NVME_INTERNAL_DEV_ERROR;
    }
    if (NVME_CMD_FLAGS_FUSE(req->cmd.flags)) {
        trace_pci_nvme_err_isp_cs_fused(nvme_cid(req), cmd->opcode);
        return nvme_isp_cs_err(req, NVME_INVALID_FIELD | NVME_DNR,
                               "fused operation");
    }
    status = isp_dev_check(dev, cmd, &cpl);
    if (status) {
        const char *why = cpl.err ? cpl.err : "rejected by check";

        trace_pci_nvme_err_isp_cs_check(nvme_cid(req), cmd->opcode, status,
                                        why);
        return nvme_isp_cs_err(req, status, why);
    }
    *len = isp_dev_cmd_len(dev, cmd);
    trace_pci_nvme_isp_cs_cmd(nvme_cid(req), cmd->sqid, cmd->nsid,
                              cmd->opcode, cmd->set == ISP_SET_ADMIN, *len);
    if (*len) {
        status = nvme_map_dptr(n, &req->sg, *len, &req->cmd);
        if (status) {
            trace_pci_nvme_err_isp_cs_map(nvme_cid(req), cmd->opcode, status);
            return nvme_isp_cs_err(req, status, "cannot map data pointer");
        }
    }

    return NVME_SUCCESS;
}

uint16_t nvme_isp_cs_admin_cmd(NvmeCtrl *n, NvmeRequest *req)
{
    struct isp_cmd cmd;
    uint64_t len;
    uint16_t status;

    /* SGLs shall not be used for Admin commands in NVMe over PCIe */
    if (NVME_CMD_FLAGS_PSDT(req->cmd.flags) != NVME_PSDT_PRP) {
        trace_pci_nvme_err_isp_cs_psdt(nvme_cid(req), req->cmd.opcode);
        return nvme_isp_cs_err(req, NVME_INVALID_FIELD | NVME_DNR,
                               "SGL on an admin command");
    }
    nvme_isp_cs_decode(req, &cmd, ISP_SET_ADMIN);
    status = nvme_isp_cs_admit(n, req, &cmd, &len);
    if (status) {
        return status;
    }

    return nvme_isp_submit(n, req, &cmd, len, NULL);
}

/*
 * Memory Copy format 2h: read the source blocks of the NVM namespace now
 * (at most the model's 8 MiB per command) and stage them after the list.
 */
static uint16_t nvme_isp_cs_stage_lbas(NvmeCtrl *n, NvmeRequest *req,
                                       const struct isp_cmd *cmd,
                                       uint64_t len, uint8_t **staged,
                                       uint64_t *staged_len)
{
    struct isp_dev *dev = nvme_isp_dev(n);
    struct isp_cs_lba_range rg[CS_MAX_LBA_RANGES];
    struct isp_cs_stage stage = {};
    NvmeNamespace *ns = nvme_ns(n, NVME_ISP_CS_NVM_NSID);
    g_autofree uint8_t *descs = g_malloc0(len);
    struct isp_cpl cpl;
    uint64_t total = 0, nsze, off;
    uint8_t *buf;
    unsigned nr, i;
    uint16_t status;
    int ret;

    *staged = NULL;
    status = nvme_tx(n, &req->sg, descs, len, NVME_TX_DIRECTION_TO_DEVICE);
    if (status) {
        trace_pci_nvme_err_isp_cs_dma(nvme_cid(req), cmd->opcode, status);
        return nvme_isp_cs_err(req, status, "DMA from host memory failed");
    }
    if (!ns || !ns->blkconf.blk) {
        /* the model accepts only this nsid: it names no namespace here */
        memset(&cpl, 0, sizeof(cpl));
        cpl.status = NVME_INVALID_NSID | NVME_DNR;
        cpl.err_where = ISP_ERR_IN_DATA;
        snprintf(cpl.err_msg, sizeof(cpl.err_msg), "SNSID %u: no NVM "
                 "namespace on this controller", NVME_ISP_CS_NVM_NSID);
        isp_dev_note_failure(dev, cmd, &cpl);
        return nvme_isp_cs_err(req, cpl.status, "no NVM namespace");
    }
    status = isp_dev_cs_copy_lbas(dev, cmd, descs, len, ns->lbasz, rg,
                                  CS_MAX_LBA_RANGES, &nr, &cpl);
    if (status) {
        trace_pci_nvme_err_isp_cs_check(nvme_cid(req), cmd->opcode, status,
                                        cpl.err ? cpl.err : "bad ranges");
        isp_dev_note_failure(dev, cmd, &cpl);
        return nvme_isp_cs_err(req, status, cpl.err ? cpl.err : "bad ranges");
    }
    nsze = le64_to_cpu(ns->id_ns.nsze);
    for (i = 0; i < nr; i++) {
        if (rg[i].slba > nsze || rg[i].nlb > nsze - rg[i].slba) {
            trace_pci_nvme_err_isp_cs_lba(nvme_cid(req), rg[i].nsid,
                                          rg[i].slba, rg[i].nlb, NVME_LBA_RANGE);
            memset(&cpl, 0, sizeof(cpl));
            cpl.status = NVME_LBA_RANGE | NVME_DNR;
            cpl.err_where = ISP_ERR_IN_DATA;
            cpl.err_byte = 32 * rg[i].index + 8;
            snprintf(cpl.err_msg, sizeof(cpl.err_msg), "source range %u: SLBA "
                     "%" PRIu64 " + %u blocks past the namespace's %" PRIu64,
                     rg[i].index, rg[i].slba, rg[i].nlb, nsze);
            isp_dev_note_failure(dev, cmd, &cpl);
            return nvme_isp_cs_err(req, cpl.status, "LBA out of range");
        }
        total += (uint64_t)rg[i].nlb * ns->lbasz;
    }
    trace_pci_nvme_isp_cs_stage(nvme_cid(req), nr, total);
    *staged_len = len + sizeof(stage) + total;
    buf = g_malloc(*staged_len);
    memcpy(buf, descs, len);
    stage.lba_bytes = ns->lbasz;
    stage.nranges = nr;
    memcpy(buf + len, &stage, sizeof(stage));
    off = len + sizeof(stage);
    for (i = 0; i < nr; i++) {
        uint64_t bytes = (uint64_t)rg[i].nlb * ns->lbasz;

        ret = blk_pread(ns->blkconf.blk, rg[i].slba * ns->lbasz, bytes,
                        buf + off, 0);
        if (ret < 0) {
            trace_pci_nvme_err_isp_cs_read(nvme_cid(req), ret);
            g_free(buf);
            return NVME_INTERNAL_DEV_ERROR;
        }
        off += bytes;
    }
    *staged = buf;

    return NVME_SUCCESS;
}

uint16_t nvme_isp_cs_io_cmd(NvmeCtrl *n, NvmeRequest *req)
{
    struct isp_cmd cmd;
    uint8_t *staged = NULL;
    uint64_t len, staged_len = 0;
    uint16_t status;

    /* CC.CSS other than "all supported I/O command sets": these namespaces
     * have no command set selected, as QEMU does for a CSI it cannot use */
    if (NVME_CC_CSS(ldl_le_p(&n->bar.cc)) != NVME_ISP_CC_CSS_ALL) {
        trace_pci_nvme_err_isp_cs_check(nvme_cid(req), req->cmd.opcode,
                                        NVME_INVALID_OPCODE | NVME_DNR,
                                        "CC.CSS");
        return nvme_isp_cs_err(req, NVME_INVALID_OPCODE | NVME_DNR,
                               "CC.CSS selects no command set of this namespace");
    }
    nvme_isp_cs_decode(req, &cmd, ISP_SET_IO);
    status = nvme_isp_cs_admit(n, req, &cmd, &len);
    if (status) {
        return status;
    }
    if (isp_dev_cs_csi(nvme_isp_dev(n), cmd.nsid) == ISP_CSI_SLM &&
        cmd.opcode == ISP_CS_OP_MEM_COPY &&
        ((cmd.cdw12 >> 8) & 0xf) == ISP_CS_DESFMT_LBA) {
        status = nvme_isp_cs_stage_lbas(n, req, &cmd, len, &staged,
                                        &staged_len);
        if (status) {
            return status;
        }
        return nvme_isp_submit(n, req, &cmd, staged_len, staged);
    }

    return nvme_isp_submit(n, req, &cmd, len, NULL);
}

/* ---- Identify ---- */

static bool nvme_isp_cs_active(NvmeCtrl *n)
{
    struct isp_dev *dev = nvme_isp_dev(n);
    uint32_t slm = 0, cp = 0;

    if (dev) {
        isp_dev_cs_nsids(dev, &slm, &cp);
    }

    return slm || cp;
}

bool nvme_isp_cs_identify_owns(NvmeCtrl *n, NvmeRequest *req)
{
    NvmeIdentify *c = (NvmeIdentify *)&req->cmd;
    uint32_t nsid = le32_to_cpu(c->nsid);

    if (!nvme_isp_cs_active(n)) {
        return false;
    }

    switch (c->cns) {
    case CS_CNS_NS:
    case CS_CNS_NS_DESCR_LIST:
    case CS_CNS_CS_NS:
    case CS_CNS_CS_IND_NS:
        return nvme_isp_cs_nsid(n, nsid);
    case CS_CNS_CS_CTRL:
        return c->csi == ISP_CSI_SLM || c->csi == ISP_CSI_CP;
    case CS_CNS_NS_ACTIVE_LIST:
    case CS_CNS_NS_PRESENT_LIST:
    case CS_CNS_CS_ACTIVE_LIST:
    case CS_CNS_CS_PRESENT_LIST:
    case CS_CNS_IO_COMMAND_SET:
        return true;
    default:
        return false;
    }
}

/*
 * Namespace lists (CNS 02h, 10h; per CSI 07h, 1Ah): QEMU's namespaces and
 * ours, ascending, above @min_nsid. @csi < 0: any command set.
 */
static void nvme_isp_cs_nslist(NvmeCtrl *n, uint32_t min_nsid, int csi,
                               bool present, uint32_t *list)
{
    int i, j = 0;

    for (i = 1; i <= NVME_MAX_NAMESPACES && j < CS_ID_LEN / 4; i++) {
        NvmeNamespace *ns = nvme_ns(n, i);
        int our = nvme_isp_cs_csi(n, i);
        int ns_csi;

        if (!ns && present) {
            ns = nvme_subsys_ns(n->subsys, i);
        }
        if (!ns && our < 0) {
            continue;
        }
        ns_csi = ns ? ns->csi : our;
        if ((uint32_t)i <= min_nsid || (csi >= 0 && ns_csi != csi)) {
            continue;
        }
        list[j++] = cpu_to_le32(i);
    }
}

/* A Namespace UUID of our own: stable for the controller's serial. */
static void nvme_isp_cs_uuid(NvmeCtrl *n, uint32_t nsid, uint8_t uuid[16])
{
    const char *s = n->params.serial ? n->params.serial : "";
    uint64_t h = 0xcbf29ce484222325ull;
    int i;

    for (; *s; s++) {
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    }
    h = (h ^ nsid) * 0x100000001b3ull;
    for (i = 0; i < 16; i++) {
        h = (h ^ (uint8_t)i) * 0x100000001b3ull;
        uuid[i] = (uint8_t)(h >> 56);
    }
    uuid[6] = (uuid[6] & 0x0f) | 0x40;   /* version 4 form */
    uuid[8] = (uuid[8] & 0x3f) | 0x80;   /* RFC 4122 variant */
}

uint16_t nvme_isp_cs_identify(NvmeCtrl *n, NvmeRequest *req)
{
    NvmeIdentify *c = (NvmeIdentify *)&req->cmd;
    uint32_t nsid = le32_to_cpu(c->nsid);
    g_autofree uint8_t *buf = g_malloc0(CS_ID_LEN);
    uint64_t *vec = (uint64_t *)buf;
    uint16_t status = NVME_SUCCESS;

    trace_pci_nvme_isp_cs_identify(nvme_cid(req), c->cns, c->csi, nsid);

    switch (c->cns) {
    case CS_CNS_NS:
        /* no NVM command set fields: a zero-filled structure */
        break;
    case CS_CNS_NS_DESCR_LIST: {
        NvmeIdNsDescr d = {};

        d.nidt = NVME_NIDT_UUID;
        d.nidl = NVME_NIDL_UUID;
        memcpy(buf, &d, sizeof(d));
        nvme_isp_cs_uuid(n, nsid, buf + sizeof(d));
        d.nidt = NVME_NIDT_CSI;
        d.nidl = NVME_NIDL_CSI;
        memcpy(buf + sizeof(d) + NVME_NIDL_UUID, &d, sizeof(d));
        buf[2 * sizeof(d) + NVME_NIDL_UUID] = (uint8_t)nvme_isp_cs_csi(n, nsid);
        break;
    }
    case CS_CNS_CS_NS:
    case CS_CNS_CS_IND_NS:
    case CS_CNS_CS_CTRL:
        status = isp_dev_cs_identify(nvme_isp_dev(n), c->cns, c->csi, nsid,
                                     buf);
        break;
    case CS_CNS_NS_ACTIVE_LIST:
    case CS_CNS_NS_PRESENT_LIST:
        if (nsid >= NVME_NSID_BROADCAST - 1) {
            return NVME_INVALID_NSID | NVME_DNR;
        }
        nvme_isp_cs_nslist(n, nsid, -1, c->cns == CS_CNS_NS_PRESENT_LIST,
                           (uint32_t *)buf);
        break;
    case CS_CNS_CS_ACTIVE_LIST:
    case CS_CNS_CS_PRESENT_LIST:
        if (nsid >= NVME_NSID_BROADCAST - 1) {
            return NVME_INVALID_NSID | NVME_DNR;
        }
        if (c->csi != NVME_CSI_NVM && c->csi != NVME_CSI_ZONED &&
            c->csi != ISP_CSI_SLM && c->csi != ISP_CSI_CP) {
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        nvme_isp_cs_nslist(n, nsid, c->csi, c->cns == CS_CNS_CS_PRESENT_LIST,
                           (uint32_t *)buf);
        break;
    default:    /* CS_CNS_IO_COMMAND_SET: one combination, every set */
        vec[0] = cpu_to_le64(1ull << NVME_CSI_NVM | 1ull << NVME_CSI_ZONED |
                             1ull << ISP_CSI_SLM | 1ull << ISP_CSI_CP);
        break;
    }
    if (status) {
        return status;
    }

    status = nvme_map_dptr(n, &req->sg, CS_ID_LEN, &req->cmd);
    if (status) {
        return status;
    }

    return nvme_tx(n, &req->sg, buf, CS_ID_LEN, NVME_TX_DIRECTION_FROM_DEVICE);
}

void nvme_isp_cs_effects(NvmeCtrl *n, uint8_t csi, uint32_t *acs,
                         uint32_t *iocs)
{
    int opc;

    if (!nvme_isp_cs_active(n)) {
        return;
    }
    for (opc = 0; opc < 256; opc++) {
        uint32_t e = isp_dev_cs_effects(0, 1, opc);

        if (e) {
            acs[opc] = cpu_to_le32(e);
        }
    }
    if (NVME_CC_CSS(ldl_le_p(&n->bar.cc)) != NVME_ISP_CC_CSS_ALL ||
        (csi != ISP_CSI_SLM && csi != ISP_CSI_CP)) {
        return;
    }
    for (opc = 0; opc < 256; opc++) {
        iocs[opc] = cpu_to_le32(isp_dev_cs_effects(csi, 0, opc));
    }
}
