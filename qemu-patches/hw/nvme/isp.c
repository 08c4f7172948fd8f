/*
 * QEMU NVM Express in-storage processing (ISP) glue
 *
 * Vendor-specific I/O commands (opcodes 80h-FFh) run in an emulated
 * computational drive modelled by hw-model (isp-model/isp_dev.h). This file
 * stays thin: on the main loop it decodes a command, has the model check it
 * before any guest memory is touched and copies host-to-controller data into
 * a bounce buffer; the model executes on the controller's own ISP workers
 * (not QEMU's shared thread pool, which block I/O uses too); the completion
 * bottom half copies controller-to-host data back and posts the CQE, after
 * a QEMU_CLOCK_VIRTUAL timer when isp-timing=delay. Both copies go through
 * the copy pump, NVME_ISP_COPY_SLICE bytes per main-loop turn, and the
 * vendor log pages are assembled on a worker: nothing an ISP command asks
 * for holds the main loop for more than one slice.
 *
 * Completion DW0/DW1 carry the model's 64-bit result (time and energy) for
 * every ISP command, successful or not.
 *
 * This work is licensed under the terms of the GNU GPL, version 2 or later.
 * See the COPYING file in the top-level directory.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/thread.h"
#include <sys/resource.h>
#include "qemu/timer.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "qapi/util.h"
#include "qapi/visitor.h"

#include "nvme.h"
#include "isp.h"
#include "isp-compat.h"
#include "trace.h"

#include "isp_dev.h"
#include "isp_share.h"
#include "ftl.h"

/*
 * Bounce buffers of all ISP commands in flight on one controller are a
 * share of the drive's host-memory bound (isp_dev_host_mem(): bounce, 64
 * MiB at the default host_mem). A command that would exceed it, or its
 * queue's fair share of it (isp_share.h), waits; commands of one queue
 * start in order. So a guest filling every queue with maximum-size
 * commands cannot exhaust host memory, nor one queue starve the others.
 */

/*
 * ISP worker threads per controller: this many commands execute in the
 * model at once (the model is thread-safe, docs/architecture.md); the rest
 * queue. A free worker takes the oldest command of the queue running the
 * fewest, among the queues under their fair share of the workers
 * (isp_share.h: a lone queue gets 6 of 8, n queues 8/n each), so one
 * queue cannot hold every worker while another waits. QEMU's shared
 * thread pool (64 threads, also block I/O's) never sees an ISP job, so
 * long searches cannot take it from reads.
 */
#define NVME_ISP_WORKERS 8

/*
 * Nice value of the workers (Linux: per thread). On a host with fewer cores
 * than busy threads, the vCPUs and the main loop, which serve every other
 * queue, then preempt a long model run instead of sharing the core with it
 * evenly (docs/platform.md section 7).
 */
#define NVME_ISP_WORKER_NICE 10

/* Upper bound on one Get Log Page transfer of a vendor log. */
#define NVME_ISP_LOG_MAX (64 * KiB)

/*
 * The copy pump: guest memory to and from bounce buffers is copied at most
 * this many bytes per main-loop turn (one bottom-half run), queues taking
 * turns (NVME_ISP_COPY_SCAN), so a 2 MiB transfer, or 32 of them started
 * by one kick, holds the BQL for one slice at a time (tens of
 * microseconds), not for the whole copy. Copying on the workers instead would let a guest that points a
 * PRP at MMIO make a worker take the BQL while the reset drain waits for
 * it with the BQL held.
 */
#define NVME_ISP_COPY_SLICE (128 * KiB)

/*
 * The next copy is the oldest of another queue than the last one's, among
 * the first NVME_ISP_COPY_SCAN waiting (so one queue's burst does not make
 * another queue's small copy wait for all of it), else the oldest.
 */
#define NVME_ISP_COPY_SCAN 64

/* MDTS is in units of the minimum memory page size (CAP.MPSMIN = 4 KiB). */
#define NVME_ISP_MPSMIN 4096

typedef enum NvmeIspState {
    NVME_ISP_WAITING,   /* for bounce buffer budget */
    NVME_ISP_COPYING,   /* on the copy pump (isp->copying), in or out */
    NVME_ISP_RUNNING,   /* queued for or on an ISP worker */
    NVME_ISP_DELAYED,   /* done, held until the modeled time has passed */
    NVME_ISP_DONE,      /* completion scheduled */
} NvmeIspState;

typedef struct NvmeIspAIOCB NvmeIspAIOCB;

/*
 * The workers and their two lists. @lock guards @queue, @done, @workers
 * and NvmeIspAIOCB.queued; everything else of a command belongs to the
 * main loop, or to the one worker running it (between taking it from
 * @queue and putting it on @done).
 */
typedef struct NvmeIspPool {
    QemuMutex lock;
    QemuCond cond;
    bool stopping;
    QTAILQ_HEAD(, NvmeIspAIOCB) queue;  /* waiting for a worker */
    QTAILQ_HEAD(, NvmeIspAIOCB) done;   /* model finished, for the BH */
    struct isp_share workers;           /* running, per submission queue */
    QEMUBH *bh;                         /* main loop: collects @done */
    QemuThread threads[NVME_ISP_WORKERS];
    int nthreads;
} NvmeIspPool;

typedef struct NvmeIspHold NvmeIspHold;

/* What the FTL knows of a namespace (NvmeIsp.ftl_ns). */
enum {
    NVME_ISP_FTL_NS_NEW,        /* not attached yet: at its first I/O */
    NVME_ISP_FTL_NS_ON,
    NVME_ISP_FTL_NS_REFUSED,    /* does not fit: its I/O stays untimed */
};

struct NvmeIsp {
    struct isp_dev *dev;
    uint32_t max_xfer;
    bool delay;
    bool draining;
    /* a controller reset is under way: new commands are refused */
    bool resetting;
    struct isp_share bounce;            /* bounce bytes, per queue */
    bool ftl;                   /* isp-ftl */
    uint8_t ftl_ns[NVME_MAX_NAMESPACES + 1];
    QTAILQ_HEAD(, NvmeIspHold) holds;
    NvmeIspPool pool;
    Notifier exit_notifier;
    QTAILQ_HEAD(, NvmeIspAIOCB) inflight;
    QTAILQ_HEAD(, NvmeIspAIOCB) waiting;
    QTAILQ_HEAD(, NvmeIspAIOCB) copying;    /* the copy pump's queue */
    QEMUBH *copy_bh;
    NvmeIspAIOCB *copy_cur;     /* partly copied: the pump goes on with it */
    uint16_t copy_sqid;         /* queue of the last copy started */
};

struct NvmeIspAIOCB {
    BlockAIOCB common;
    /* everything below is zeroed by nvme_isp_aiocb_new() */
    bool queued;            /* on pool.queue (pool.lock) */
    NvmeRequest *req;
    NvmeIsp *isp;
    NvmeIspState state;
    bool cancelled;
    bool bounce_held;           /* its len bytes are taken from isp->bounce */
    /* set by nvme_isp_cancel(), read by the model on the worker */
    atomic_int stop;
    QEMUTimer *timer;
    struct isp_cmd cmd;
    struct isp_cpl cpl;
    uint8_t *buf;
    size_t len;
    /* the copy pump: bytes to copy, copied so far, guest-to-bounce? */
    size_t tx_len;
    size_t tx_done;
    bool tx_in;
    /* the worker zeroes buf first (C2H data, log pages) */
    bool zero;
    /* a vendor log page (nvme_isp_get_log()), assembled by a worker */
    bool log;
    uint8_t log_lid;
    uint64_t log_off;
    int log_ret;
    QTAILQ_ENTRY(NvmeIspAIOCB) entry;
    QTAILQ_ENTRY(NvmeIspAIOCB) wait_entry;
    QTAILQ_ENTRY(NvmeIspAIOCB) pool_entry;  /* pool.queue or pool.done */
    QTAILQ_ENTRY(NvmeIspAIOCB) copy_entry;  /* isp->copying */
};

static const char *nvme_isp_opc_str(uint8_t opc)
{
    const char *name = isp_opcode_name(opc);

    return name ? name : "ISP_UNKNOWN";
}

static void nvme_isp_set_result(NvmeRequest *req, uint64_t result)
{
    req->cqe.result = cpu_to_le32((uint32_t)result);
    req->cqe.dw1 = cpu_to_le32((uint32_t)(result >> 32));
}

/*
 * Each error branch fires its own pci_nvme_err_isp_* trace event, then
 * calls this: guest mistakes (DNR) also go to the guest error log.
 */
static uint16_t nvme_isp_guest_err(NvmeRequest *req, uint16_t status,
                                   const char *why)
{
    if (status & NVME_DNR) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "nvme-isp: cid %u opc 0x%02x status 0x%04x: %s\n",
                      nvme_cid(req), req->cmd.opcode, status, why);
    }

    return status;
}

/* Post the completion; the caller decides whether to kick waiters. */
static void nvme_isp_complete(NvmeIspAIOCB *iocb, uint16_t status)
{
    NvmeIsp *isp = iocb->isp;
    NvmeRequest *req = iocb->req;

    req->status = status;
    nvme_isp_set_result(req, iocb->cpl.result);
    trace_pci_nvme_isp_cpl(nvme_cid(req), status, iocb->cpl.result,
                           iocb->cpl.model_ns, iocb->cpl.xfer_len);

    if (iocb->bounce_held) {
        isp_share_give(&isp->bounce, iocb->cmd.sqid, iocb->len);
        iocb->bounce_held = false;
    }
    if (iocb->buf) {
        g_free(iocb->buf);
        iocb->buf = NULL;
    }
    if (iocb->timer) {
        timer_free(iocb->timer);
        iocb->timer = NULL;
    }
    iocb->state = NVME_ISP_DONE;
    QTAILQ_REMOVE(&isp->inflight, iocb, entry);

    iocb->common.cb(iocb->common.opaque, 0);
    qemu_aio_unref(iocb);
}

/*
 * Copy @len bytes at @off of @sg's data to or from @buf: the part of
 * nvme_tx() the copy pump does per slice. Short of @off + @len bytes is
 * Invalid Field, as nvme_tx() says of a residual.
 */
static uint16_t nvme_isp_tx_part(NvmeSg *sg, uint8_t *buf, size_t off,
                                 size_t len, bool to_dev)
{
    size_t bytes;
    int i;

    assert(sg->flags & NVME_SG_ALLOC);
    if (!(sg->flags & NVME_SG_DMA)) {
        bytes = to_dev ? qemu_iovec_to_buf(&sg->iov, off, buf, len)
                       : qemu_iovec_from_buf(&sg->iov, off, buf, len);
        return bytes == len ? NVME_SUCCESS : NVME_INVALID_FIELD | NVME_DNR;
    }
    for (i = 0; i < sg->qsg.nsg && len; i++) {
        const ScatterGatherEntry *e = &sg->qsg.sg[i];

        if (off >= e->len) {
            off -= e->len;
            continue;
        }
        bytes = MIN(e->len - off, len);
        /* like dma_buf_rw(): a failed access is the guest's business */
        (void)dma_memory_rw(sg->qsg.as, e->base + off, buf, bytes,
                            to_dev ? DMA_DIRECTION_TO_DEVICE
                                   : DMA_DIRECTION_FROM_DEVICE,
                            MEMTXATTRS_UNSPECIFIED);
        buf += bytes;
        len -= bytes;
        off = 0;
    }

    return len ? NVME_INVALID_FIELD | NVME_DNR : NVME_SUCCESS;
}

/* Queue @len bytes of @iocb's data for the copy pump. */
static void nvme_isp_copy(NvmeIspAIOCB *iocb, size_t len, bool to_dev)
{
    NvmeIsp *isp = iocb->isp;

    iocb->state = NVME_ISP_COPYING;
    iocb->tx_len = len;
    iocb->tx_done = 0;
    iocb->tx_in = to_dev;
    QTAILQ_INSERT_TAIL(&isp->copying, iocb, copy_entry);
    qemu_bh_schedule(isp->copy_bh);
}

/* The model is done, or the command was cancelled: C2H data, then complete. */
static void nvme_isp_finish(NvmeIspAIOCB *iocb)
{
    NvmeRequest *req = iocb->req;
    uint16_t status = iocb->cpl.status;
    const char *why = iocb->cpl.err ? iocb->cpl.err : "failed";

    if (iocb->cancelled) {
        /* the controller may have named why (SQ deletion, Abort) */
        status = req->status ? req->status : NVME_ISP_CANCEL_STATUS;
        trace_pci_nvme_err_isp_aborted(nvme_cid(req), req->cmd.opcode, status);
    } else if (iocb->log) {
        if (iocb->log_ret <= 0) {
            trace_pci_nvme_err_isp_log_offset(nvme_cid(req), iocb->log_lid,
                                              iocb->log_off);
            status = nvme_isp_guest_err(req, NVME_INVALID_FIELD | NVME_DNR,
                                        "log page offset past the end");
        } else {
            status = nvme_map_dptr(nvme_ctrl(req), &req->sg, iocb->log_ret,
                                   &req->cmd);
            if (!status) {
                nvme_isp_copy(iocb, iocb->log_ret, false);
                return;
            }
            trace_pci_nvme_err_isp_log_map(nvme_cid(req), iocb->log_lid,
                                           status);
        }
    } else if (status) {
        trace_pci_nvme_err_isp_exec(nvme_cid(req), req->cmd.opcode, status,
                                    why);
        nvme_isp_guest_err(req, status, why);
    } else if (iocb->len && isp_wire_dir(iocb->cmd.opcode) == ISP_DIR_C2H) {
        /* the buffer was zeroed, so bytes the model left alone read as 0 */
        nvme_isp_copy(iocb, iocb->len, false);
        return;
    }

    nvme_isp_complete(iocb, status);
}

static void nvme_isp_kick(NvmeIsp *isp);

/*
 * A cancelled WAITING or DELAYED command: its bounce buffer goes back to
 * the budget, so commands waiting for budget may start now; nothing else
 * would wake them until another ISP command completes.
 */
static void nvme_isp_finish_bh(void *opaque)
{
    NvmeIspAIOCB *iocb = opaque;
    NvmeIsp *isp = iocb->isp;

    nvme_isp_finish(iocb);
    nvme_isp_kick(isp);
}

static void nvme_isp_work_cb(void *opaque, int ret);

/* Main loop: one entry of pool.done per model run, in completion order. */
static void nvme_isp_pool_bh(void *opaque)
{
    NvmeIspPool *pool = opaque;
    NvmeIspAIOCB *iocb;

    for (;;) {
        qemu_mutex_lock(&pool->lock);
        iocb = QTAILQ_FIRST(&pool->done);
        if (iocb) {
            QTAILQ_REMOVE(&pool->done, iocb, pool_entry);
        }
        qemu_mutex_unlock(&pool->lock);
        if (!iocb) {
            return;
        }
        nvme_isp_work_cb(iocb, 0);
    }
}

static void nvme_isp_unqueued_bh(void *opaque)
{
    nvme_isp_work_cb(opaque, -ECANCELED);
}

/*
 * A cancelled RUNNING command still waiting for a worker leaves the queue
 * and completes from a bottom half (cancel_async must not complete it
 * synchronously); one a worker holds stops on its own (the stop flag).
 */
static void nvme_isp_pool_unqueue(NvmeIspAIOCB *iocb)
{
    NvmeIspPool *pool = &iocb->isp->pool;
    bool was_queued;

    qemu_mutex_lock(&pool->lock);
    was_queued = iocb->queued;
    if (was_queued) {
        QTAILQ_REMOVE(&pool->queue, iocb, pool_entry);
        iocb->queued = false;
        isp_share_wait(&pool->workers, iocb->cmd.sqid, -1);
        /* one queue fewer waiting: the others' shares may have grown */
        qemu_cond_broadcast(&pool->cond);
    }
    qemu_mutex_unlock(&pool->lock);
    if (was_queued) {
        aio_bh_schedule_oneshot(qemu_get_aio_context(), nvme_isp_unqueued_bh,
                                iocb);
    }
}

/*
 * A RUNNING command: a queued job is dropped; a running one stops at the
 * next block of work its model loop reads the flag at (isp_dev_exec_cancel():
 * a flash page, 64 rerank candidates, 64 Ki rows), so reset and SQ
 * deletion, which wait with the BQL held, wait for that, not for the whole
 * search.
 */
static void nvme_isp_stop_running(NvmeIspAIOCB *iocb)
{
    iocb->cancelled = true;
    atomic_store(&iocb->stop, 1);
    nvme_isp_pool_unqueue(iocb);
}

/*
 * nvme_del_sq() cancels the queue's commands one after the other, each
 * wait its own: stop all of them at the first, so the waits overlap and
 * the deletion takes the slowest stop, not their sum.
 */
static void nvme_isp_stop_sq(NvmeIsp *isp, NvmeSQueue *sq)
{
    NvmeIspAIOCB *iocb;

    QTAILQ_FOREACH(iocb, &isp->inflight, entry) {
        if (iocb->req->sq == sq && iocb->state == NVME_ISP_RUNNING &&
            !iocb->cancelled) {
            iocb->req->status = NVME_CMD_ABORT_SQ_DEL;
            nvme_isp_stop_running(iocb);
        }
    }
}

static void nvme_isp_cancel(BlockAIOCB *acb)
{
    NvmeIspAIOCB *iocb = container_of(acb, NvmeIspAIOCB, common);

    trace_pci_nvme_isp_cancel(nvme_cid(iocb->req), iocb->state);
    if (!iocb->isp->draining && !iocb->cancelled &&
        nvme_isp_cancel_deletes_sq(iocb->req)) {
        nvme_isp_stop_sq(iocb->isp, iocb->req->sq);
    }
    iocb->cancelled = true;

    switch (iocb->state) {
    case NVME_ISP_RUNNING:
        nvme_isp_stop_running(iocb);
        break;
    case NVME_ISP_WAITING:
        QTAILQ_REMOVE(&iocb->isp->waiting, iocb, wait_entry);
        isp_share_wait(&iocb->isp->bounce, iocb->cmd.sqid, -1);
        iocb->state = NVME_ISP_DONE;
        aio_bh_schedule_oneshot(qemu_get_aio_context(), nvme_isp_finish_bh,
                                iocb);
        break;
    case NVME_ISP_COPYING:
        QTAILQ_REMOVE(&iocb->isp->copying, iocb, copy_entry);
        if (iocb->isp->copy_cur == iocb) {
            iocb->isp->copy_cur = NULL;
        }
        iocb->state = NVME_ISP_DONE;
        aio_bh_schedule_oneshot(qemu_get_aio_context(), nvme_isp_finish_bh,
                                iocb);
        break;
    case NVME_ISP_DELAYED:
        timer_del(iocb->timer);
        iocb->state = NVME_ISP_DONE;
        aio_bh_schedule_oneshot(qemu_get_aio_context(), nvme_isp_finish_bh,
                                iocb);
        break;
    case NVME_ISP_DONE:
        break;
    }
}

static const AIOCBInfo nvme_isp_aiocb_info = {
    .aiocb_size = sizeof(NvmeIspAIOCB),
    .cancel_async = nvme_isp_cancel,
    NVME_ISP_AIOCB_INFO_CONTEXT
};

static void nvme_isp_timer_cb(void *opaque)
{
    NvmeIspAIOCB *iocb = opaque;
    NvmeIsp *isp = iocb->isp;

    nvme_isp_finish(iocb);
    nvme_isp_kick(isp);
}

/*
 * pool.lock held: the queued command a free worker runs next. Of the queues
 * that may take another worker (their share of NVME_ISP_WORKERS), the one
 * running fewest commands, its oldest; NULL while none may (a lone queue
 * leaves a quarter of the workers for a newcomer).
 */
static NvmeIspAIOCB *nvme_isp_pool_pick(NvmeIspPool *pool)
{
    NvmeIspAIOCB *iocb, *best = NULL;
    uint64_t best_running = UINT64_MAX, running;

    QTAILQ_FOREACH(iocb, &pool->queue, pool_entry) {
        running = isp_share_held(&pool->workers, iocb->cmd.sqid);
        if (running < best_running &&
            isp_share_fits(&pool->workers, iocb->cmd.sqid, 1)) {
            best = iocb;
            best_running = running;
            if (!running) {
                break;
            }
        }
    }
    return best;
}

/*
 * Worker thread: takes commands by nvme_isp_pool_pick() and runs the model;
 * touches no QEMU state but the pool's lists and its bottom half
 * (qemu_bh_schedule() is thread-safe).
 */
static void *nvme_isp_worker(void *opaque)
{
    NvmeIsp *isp = opaque;
    NvmeIspPool *pool = &isp->pool;
    NvmeIspAIOCB *iocb;
    bool holds;

    /*
     * Only lowers the priority, which needs no privilege; if it fails the
     * worker keeps the default and nothing else changes.
     */
    (void)setpriority(PRIO_PROCESS, qemu_get_thread_id(), NVME_ISP_WORKER_NICE);

    qemu_mutex_lock(&pool->lock);
    while (!pool->stopping) {
        iocb = nvme_isp_pool_pick(pool);
        if (!iocb) {
            qemu_cond_wait(&pool->cond, &pool->lock);
            continue;
        }
        QTAILQ_REMOVE(&pool->queue, iocb, pool_entry);
        iocb->queued = false;
        isp_share_wait(&pool->workers, iocb->cmd.sqid, -1);
        holds = isp_share_take(&pool->workers, iocb->cmd.sqid, 1) == 0;
        qemu_mutex_unlock(&pool->lock);

        /* the main loop only allocates: zeroing and freeing megabytes
         * are the workers' (so bytes the model leaves alone read as 0) */
        if (iocb->zero) {
            memset(iocb->buf, 0, iocb->len);
        }
        if (iocb->log) {
            iocb->log_ret = isp_dev_log_page(isp->dev, iocb->log_lid,
                                             iocb->buf, iocb->len,
                                             iocb->log_off);
        } else {
            isp_dev_exec_cancel(isp->dev, &iocb->cmd, iocb->buf, iocb->len,
                                &iocb->cpl, &iocb->stop);
            if (isp_wire_dir(iocb->cmd.opcode) != ISP_DIR_C2H) {
                g_free(iocb->buf);
                iocb->buf = NULL;
            }
        }

        qemu_mutex_lock(&pool->lock);
        if (holds) {
            isp_share_give(&pool->workers, iocb->cmd.sqid, 1);
        }
        QTAILQ_INSERT_TAIL(&pool->done, iocb, pool_entry);
        qemu_bh_schedule(pool->bh);
        /* the shares changed: a queued command may fit now */
        qemu_cond_broadcast(&pool->cond);
    }
    qemu_mutex_unlock(&pool->lock);

    return NULL;
}

static void nvme_isp_pool_start(NvmeIsp *isp)
{
    NvmeIspPool *pool = &isp->pool;
    int i;

    qemu_mutex_init(&pool->lock);
    qemu_cond_init(&pool->cond);
    for (i = 0; i < NVME_ISP_WORKERS; i++) {
        qemu_thread_create(&pool->threads[i], "isp-worker", nvme_isp_worker,
                           isp, QEMU_THREAD_JOINABLE);
    }
    pool->nthreads = NVME_ISP_WORKERS;
}

static void nvme_isp_pool_submit(NvmeIspAIOCB *iocb)
{
    NvmeIspPool *pool = &iocb->isp->pool;

    qemu_mutex_lock(&pool->lock);
    iocb->queued = true;
    QTAILQ_INSERT_TAIL(&pool->queue, iocb, pool_entry);
    /* without memory for the share table the command still runs */
    isp_share_wait(&pool->workers, iocb->cmd.sqid, 1);
    qemu_cond_broadcast(&pool->cond);
    qemu_mutex_unlock(&pool->lock);
}

static void nvme_isp_pool_init(NvmeIsp *isp)
{
    NvmeIspPool *pool = &isp->pool;

    QTAILQ_INIT(&pool->queue);
    QTAILQ_INIT(&pool->done);
    isp_share_init(&pool->workers, NVME_ISP_WORKERS);
    pool->bh = aio_bh_new(qemu_get_aio_context(), nvme_isp_pool_bh, pool);
    nvme_isp_pool_start(isp);
}

/* After nvme_isp_drain(): nothing is queued or running. */
static void nvme_isp_pool_destroy(NvmeIsp *isp)
{
    NvmeIspPool *pool = &isp->pool;
    int i;

    qemu_mutex_lock(&pool->lock);
    pool->stopping = true;
    qemu_cond_broadcast(&pool->cond);
    qemu_mutex_unlock(&pool->lock);
    for (i = 0; i < pool->nthreads; i++) {
        qemu_thread_join(&pool->threads[i]);
    }
    assert(QTAILQ_EMPTY(&pool->queue) && QTAILQ_EMPTY(&pool->done));
    isp_share_destroy(&pool->workers);
    qemu_bh_delete(pool->bh);
    qemu_cond_destroy(&pool->cond);
    qemu_mutex_destroy(&pool->lock);
}

static void nvme_isp_work_cb(void *opaque, int ret)
{
    NvmeIspAIOCB *iocb = opaque;
    NvmeIsp *isp = iocb->isp;
    int64_t now, deadline;

    if (ret < 0) {
        /* dropped from the pool's queue before it ran */
        iocb->cancelled = true;
        iocb->cpl.result = 0;
    }

    if (isp->delay && !iocb->cancelled && !iocb->log) {
        now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        deadline = (int64_t)iocb->cmd.submit_ns +
                   (int64_t)MIN(iocb->cpl.model_ns, ISP_RESULT_TIME_MAX);
        if (deadline > now) {
            trace_pci_nvme_isp_delay(nvme_cid(iocb->req), iocb->cpl.model_ns,
                                     deadline - now);
            iocb->state = NVME_ISP_DELAYED;
            iocb->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, nvme_isp_timer_cb,
                                       iocb);
            timer_mod_ns(iocb->timer, deadline);
            return;
        }
    }

    nvme_isp_finish(iocb);
    nvme_isp_kick(isp);
}

/* The bounce buffer is full: hand the command to the ISP workers. */
static void nvme_isp_run(NvmeIspAIOCB *iocb)
{
    trace_pci_nvme_isp_exec(nvme_cid(iocb->req), iocb->len,
                            iocb->isp->bounce.used);
    iocb->state = NVME_ISP_RUNNING;
    nvme_isp_pool_submit(iocb);
}

/* Fill the bounce buffer (by the copy pump), then run the command. */
static void nvme_isp_start(NvmeIspAIOCB *iocb)
{
    /* a staged buffer (nvme_isp_submit()) is filled already; the bounce
     * bytes of either were taken from isp->bounce (nvme_isp_bounce()) */
    if (iocb->len && !iocb->buf) {
        iocb->buf = g_malloc(iocb->len);

        /* the copy fills every byte, or the command fails */
        if (!iocb->log && isp_wire_dir(iocb->cmd.opcode) == ISP_DIR_H2C) {
            nvme_isp_copy(iocb, iocb->len, true);
            return;
        }
        iocb->zero = true;
    }

    nvme_isp_run(iocb);
}

/* A copy is done (or failed): run the command, or complete it. */
static void nvme_isp_copied(NvmeIspAIOCB *iocb, uint16_t status)
{
    NvmeRequest *req = iocb->req;

    if (!status && iocb->tx_in) {
        nvme_isp_run(iocb);
        return;
    }
    if (status && iocb->tx_in) {
        trace_pci_nvme_err_isp_dma_h2c(nvme_cid(req), req->cmd.opcode, status);
        nvme_isp_guest_err(req, status, "DMA from host memory failed");
    } else if (status) {
        trace_pci_nvme_err_isp_dma_c2h(nvme_cid(req), req->cmd.opcode, status);
        nvme_isp_guest_err(req, status, "DMA to host memory failed");
    }
    nvme_isp_complete(iocb, status);
}

/*
 * The copy pump: at most NVME_ISP_COPY_SLICE bytes per run, one copy at a
 * time (nvme_isp_copy_pick());
 * with more to copy it runs again after the main loop has polled, so QMP,
 * the vCPUs and the other queues get the BQL between slices.
 */
static NvmeIspAIOCB *nvme_isp_copy_pick(NvmeIsp *isp)
{
    NvmeIspAIOCB *iocb, *first = QTAILQ_FIRST(&isp->copying);
    int i = 0;

    if (isp->copy_cur || !first) {
        return isp->copy_cur;
    }
    QTAILQ_FOREACH(iocb, &isp->copying, copy_entry) {
        if (iocb->cmd.sqid != isp->copy_sqid) {
            first = iocb;
            break;
        }
        if (++i == NVME_ISP_COPY_SCAN) {
            break;
        }
    }
    isp->copy_sqid = first->cmd.sqid;
    return first;
}

static void nvme_isp_copy_bh(void *opaque)
{
    NvmeIsp *isp = opaque;
    NvmeIspAIOCB *iocb;
    size_t budget = NVME_ISP_COPY_SLICE, n;
    uint16_t status;
    bool completed = false;

    while (budget && (iocb = nvme_isp_copy_pick(isp))) {
        n = MIN(iocb->tx_len - iocb->tx_done, budget);
        status = nvme_isp_tx_part(&iocb->req->sg, iocb->buf + iocb->tx_done,
                                  iocb->tx_done, n, iocb->tx_in);
        iocb->tx_done += n;
        budget -= n;
        isp->copy_cur = iocb;
        if (status || iocb->tx_done == iocb->tx_len) {
            QTAILQ_REMOVE(&isp->copying, iocb, copy_entry);
            isp->copy_cur = NULL;
            completed |= status || !iocb->tx_in;
            nvme_isp_copied(iocb, status);
        }
    }
    if (!QTAILQ_EMPTY(&isp->copying)) {
        qemu_bh_schedule(isp->copy_bh);
    }
    /* completions gave bounce bytes back: waiting commands may start */
    if (completed) {
        nvme_isp_kick(isp);
    }
}

/* Take @iocb's bounce bytes in its queue's share; false: it must wait. */
static bool nvme_isp_bounce(NvmeIsp *isp, NvmeIspAIOCB *iocb)
{
    iocb->bounce_held = isp_share_take(&isp->bounce, iocb->cmd.sqid, iocb->len) == 0;
    return iocb->bounce_held;
}

/* Queues with a command still waiting, in one pass of nvme_isp_kick(). */
#define NVME_ISP_KICK_BLOCKED 16

/*
 * Start the waiting commands whose bounce bytes fit in their queue's
 * share, oldest first; a queue's commands start in order, so once one of
 * its commands waits the later ones do too.
 */
static void nvme_isp_kick(NvmeIsp *isp)
{
    uint16_t blocked[NVME_ISP_KICK_BLOCKED];
    NvmeIspAIOCB *iocb, *next;
    int nblocked = 0, i;

    if (isp->draining) {
        return;
    }
    QTAILQ_FOREACH_SAFE(iocb, &isp->waiting, wait_entry, next) {
        for (i = 0; i < nblocked && blocked[i] != iocb->cmd.sqid; i++) {
            ;
        }
        if (i < nblocked) {
            continue;
        }
        if (!nvme_isp_bounce(isp, iocb)) {
            if (nblocked == NVME_ISP_KICK_BLOCKED) {
                return;
            }
            blocked[nblocked++] = iocb->cmd.sqid;
            continue;
        }
        QTAILQ_REMOVE(&isp->waiting, iocb, wait_entry);
        isp_share_wait(&isp->bounce, iocb->cmd.sqid, -1);
        nvme_isp_start(iocb);
    }
}

/* Does a command of @sqid wait for bounce bytes? Then a new one waits too. */
static bool nvme_isp_queue_waits(NvmeIsp *isp, uint16_t sqid)
{
    NvmeIspAIOCB *iocb;

    QTAILQ_FOREACH(iocb, &isp->waiting, wait_entry) {
        if (iocb->cmd.sqid == sqid) {
            return true;
        }
    }
    return false;
}

static void nvme_isp_req_cb(void *opaque, int ret)
{
    NvmeRequest *req = opaque;

    nvme_enqueue_req_completion(nvme_cq(req), req);
}

static NvmeIspAIOCB *nvme_isp_aiocb_new(NvmeIsp *isp, NvmeRequest *req)
{
    NvmeIspAIOCB *iocb = qemu_aio_get(&nvme_isp_aiocb_info, NULL,
                                      nvme_isp_req_cb, req);

    memset((uint8_t *)iocb + sizeof(iocb->common), 0,
           sizeof(*iocb) - sizeof(iocb->common));
    iocb->isp = isp;
    iocb->req = req;

    return iocb;
}

static void nvme_isp_decode(NvmeRequest *req, struct isp_cmd *cmd)
{
    NvmeCmd *c = &req->cmd;

    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = c->opcode;
    cmd->nsid = le32_to_cpu(c->nsid);
    cmd->cdw10 = le32_to_cpu(c->cdw10);
    cmd->cdw11 = le32_to_cpu(c->cdw11);
    cmd->cdw12 = le32_to_cpu(c->cdw12);
    cmd->cdw13 = le32_to_cpu(c->cdw13);
    cmd->cdw14 = le32_to_cpu(c->cdw14);
    cmd->cdw15 = le32_to_cpu(c->cdw15);
    cmd->submit_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    /* for the Error Information log entry of a failure */
    cmd->sqid = req->sq->sqid;
    cmd->cid = nvme_cid(req);
}

/*
 * The effects table rejected a vendor opcode. The drive still decoded it,
 * so its completion carries the model's cost like any ISP command
 * (docs/command-set.md §1) and the model counts the error.
 */
void nvme_isp_invalid_opc(NvmeCtrl *n, NvmeRequest *req)
{
    struct isp_cmd cmd;
    struct isp_cpl cpl;
    uint16_t status;

    if (!n->isp || !n->isp->dev || req->cmd.opcode < NVME_ISP_OPC_MIN) {
        return;
    }

    nvme_isp_decode(req, &cmd);
    status = isp_dev_check(n->isp->dev, &cmd, &cpl);
    if (status) {
        const char *why = cpl.err ? cpl.err : "unknown opcode";

        nvme_isp_set_result(req, cpl.result);
        trace_pci_nvme_err_isp_invalid_opc(nvme_cid(req), req->cmd.opcode,
                                           status, why);
        nvme_isp_guest_err(req, status, why);
    }
}

uint16_t nvme_isp_inactive_ns(NvmeCtrl *n, NvmeRequest *req)
{
    trace_pci_nvme_err_isp_inactive_ns(nvme_cid(req), req->cmd.opcode,
                                       le32_to_cpu(req->cmd.nsid));

    return nvme_isp_guest_err(req, NVME_INVALID_NSID | NVME_DNR,
                              "namespace not active");
}

/*
 * Everything a command must pass before it may touch guest memory or a
 * worker; ends with its data pointer mapped.
 */
static uint16_t nvme_isp_admit(NvmeCtrl *n, NvmeRequest *req,
                               const struct isp_cmd *c)
{
    NvmeIsp *isp = n->isp;
    struct isp_cpl cpl = {};
    uint64_t len = isp_cmd_data_len(c);
    enum isp_dir dir = isp_wire_dir(c->opcode);
    uint16_t cid = nvme_cid(req);
    uint16_t status;

    /*
     * A namespace shared with a controller that has ISP on may point this
     * one at that controller's effects table.
     */
    if (!isp) {
        trace_pci_nvme_err_isp_disabled(cid, c->opcode);
        return nvme_isp_guest_err(req, NVME_INVALID_OPCODE | NVME_DNR,
                                  "isp is off on this controller");
    }

    /* nvme_io_cmd() found it active */
    req->ns = nvme_ns(n, c->nsid);

    /* closed by the exit notifier: QEMU is quitting */
    if (!isp->dev) {
        trace_pci_nvme_err_isp_no_dev(cid, c->opcode);
        return nvme_isp_guest_err(req, NVME_INTERNAL_DEV_ERROR,
                                  "device model closed");
    }

    if (NVME_CMD_FLAGS_FUSE(req->cmd.flags)) {
        trace_pci_nvme_err_isp_fused(cid, c->opcode);
        return nvme_isp_guest_err(req, NVME_INVALID_FIELD | NVME_DNR,
                                  "fused operation");
    }

    status = isp_dev_check(isp->dev, c, &cpl);
    if (status) {
        const char *why = cpl.err ? cpl.err : "rejected by check";

        nvme_isp_set_result(req, cpl.result);
        trace_pci_nvme_err_isp_check(cid, c->opcode, status, why);
        return nvme_isp_guest_err(req, status, why);
    }

    /* the model checked these too; never rely on it before touching memory */
    if (dir == ISP_DIR_BIDI) {
        trace_pci_nvme_err_isp_bidi(cid, c->opcode);
        return nvme_isp_guest_err(req, NVME_INVALID_OPCODE | NVME_DNR,
                                  "bidirectional opcode");
    }
    if ((dir == ISP_DIR_NONE) != (len == 0) || len > isp->max_xfer) {
        trace_pci_nvme_err_isp_len(cid, c->opcode, len, isp->max_xfer);
        return nvme_isp_guest_err(req, NVME_INVALID_FIELD | NVME_DNR,
                                  "data length does not match opcode");
    }

    if (len) {
        status = nvme_map_dptr(n, &req->sg, len, &req->cmd);
        if (status) {
            trace_pci_nvme_err_isp_map(cid, c->opcode, status);
            return nvme_isp_guest_err(req, status, "cannot map data pointer");
        }
    }

    return NVME_SUCCESS;
}

uint16_t nvme_isp_io_cmd(NvmeCtrl *n, NvmeRequest *req)
{
    NvmeIsp *isp = n->isp;
    struct isp_cmd cmd;
    uint64_t len;
    uint16_t status;

    nvme_isp_decode(req, &cmd);
    len = isp_cmd_data_len(&cmd);

    trace_pci_nvme_isp_cmd(nvme_cid(req), le16_to_cpu(req->sq->sqid),
                           cmd.nsid, cmd.opcode, nvme_isp_opc_str(cmd.opcode),
                           len);

    /*
     * The namespaces' drain in a controller reset polls the main loop,
     * which may run this queue's handler again: nothing new may start on a
     * request the reset frees next (nvme_isp_reset_done() ends it).
     */
    if (isp && isp->resetting) {
        trace_pci_nvme_err_isp_aborted(nvme_cid(req), cmd.opcode,
                                       NVME_CMD_ABORT_REQ);
        return NVME_CMD_ABORT_REQ;
    }

    status = nvme_isp_admit(n, req, &cmd);
    if (status) {
        return status;
    }

    return nvme_isp_submit(n, req, &cmd, len, NULL);
}

static void nvme_isp_enqueue(NvmeIspAIOCB *iocb);

uint16_t nvme_isp_submit(NvmeCtrl *n, NvmeRequest *req,
                         const struct isp_cmd *cmd, uint64_t len,
                         uint8_t *staged)
{
    NvmeIsp *isp = n->isp;
    NvmeIspAIOCB *iocb;

    /* the standard interface's commands (isp-cs.c) come here directly: the
     * reset's refusal (nvme_isp_io_cmd()) holds for them too */
    if (isp->resetting) {
        g_free(staged);
        trace_pci_nvme_err_isp_aborted(nvme_cid(req), cmd->opcode,
                                       NVME_CMD_ABORT_REQ);
        return NVME_CMD_ABORT_REQ;
    }

    iocb = nvme_isp_aiocb_new(isp, req);
    iocb->cmd = *cmd;
    iocb->len = len;
    /* NULL: nvme_isp_start() fills one; a staged one (isp-cs.c, bounded by
     * its command) waits for its queue's share like any other */
    iocb->buf = staged;
    nvme_isp_enqueue(iocb);

    return NVME_NO_COMPLETE;
}

/* In flight: start @iocb now, or wait for its bounce bytes. */
static void nvme_isp_enqueue(NvmeIspAIOCB *iocb)
{
    NvmeIsp *isp = iocb->isp;
    NvmeRequest *req = iocb->req;
    const struct isp_cmd *cmd = &iocb->cmd;
    uint64_t len = iocb->len;

    req->aiocb = &iocb->common;
    QTAILQ_INSERT_TAIL(&isp->inflight, iocb, entry);

    if (len && (nvme_isp_queue_waits(isp, cmd->sqid) || !nvme_isp_bounce(isp, iocb))) {
        trace_pci_nvme_isp_wait(nvme_cid(req), len, isp->bounce.used);
        iocb->state = NVME_ISP_WAITING;
        QTAILQ_INSERT_TAIL(&isp->waiting, iocb, wait_entry);
        /* a waiting queue is active: the holders' shares shrink */
        isp_share_wait(&isp->bounce, cmd->sqid, 1);
        return;
    }

    nvme_isp_start(iocb);
}

static void nvme_isp_holds_release(NvmeIsp *isp);

struct isp_dev *nvme_isp_dev(NvmeCtrl *n)
{
    return n->isp ? n->isp->dev : NULL;
}

void nvme_isp_drain(NvmeCtrl *n)
{
    NvmeIsp *isp = n->isp;
    NvmeIspAIOCB *iocb, *next;

    if (!isp) {
        return;
    }

    isp->resetting = true;
    isp->draining = true;
    /* every command stops at once; the wait is then the slowest stop */
    QTAILQ_FOREACH_SAFE(iocb, &isp->inflight, entry, next) {
        if (!iocb->cancelled) {
            nvme_isp_cancel(&iocb->common);
        }
    }
    while ((iocb = QTAILQ_FIRST(&isp->inflight))) {
        blk_aio_cancel(&iocb->common);
    }
    nvme_isp_holds_release(isp);
    isp->draining = false;
}

void nvme_isp_reset_done(NvmeCtrl *n)
{
    if (n->isp) {
        n->isp->resetting = false;
    }
}

/*
 * C0h/C1h are the model's; so are Error Information (01h: the model records
 * each failed ISP command, docs/command-set.md §8), the reasons its
 * entries point to (C2h) and the compute namespace's program table (C3h).
 */
bool nvme_isp_log_supported(NvmeCtrl *n, uint8_t lid)
{
    return n->isp && (lid == ISP_LID_STATS || lid == ISP_LID_IDENTIFY ||
                      lid == ISP_LID_ERROR || lid == ISP_LID_ERRTEXT ||
                      (lid == ISP_LID_CS_PROGRAMS && n->isp_params.cs));
}

/*
 * The page is assembled on an ISP worker (the model's statistics and
 * identify walk the flash store under its locks, which a long command may
 * hold) into a bounce buffer taken like any command's, then copied out by
 * the copy pump; the admin command completes from there.
 */
uint16_t nvme_isp_get_log(NvmeCtrl *n, uint8_t lid, uint64_t len,
                          uint64_t off, NvmeRequest *req)
{
    NvmeIsp *isp = n->isp;
    NvmeIspAIOCB *iocb;

    trace_pci_nvme_isp_log(nvme_cid(req), lid, len, off);

    /* closed by the exit notifier, as on the I/O path */
    if (!isp->dev) {
        trace_pci_nvme_err_isp_log_no_dev(nvme_cid(req), lid);
        return NVME_INTERNAL_DEV_ERROR;
    }
    /* as for commands: nothing starts on a request the reset frees next */
    if (isp->resetting) {
        trace_pci_nvme_err_isp_aborted(nvme_cid(req), req->cmd.opcode,
                                       NVME_CMD_ABORT_REQ);
        return NVME_CMD_ABORT_REQ;
    }

    iocb = nvme_isp_aiocb_new(isp, req);
    iocb->log = true;
    iocb->log_lid = lid;
    iocb->log_off = off;
    iocb->cmd.opcode = req->cmd.opcode;
    iocb->cmd.sqid = req->sq->sqid;
    iocb->cmd.cid = nvme_cid(req);
    iocb->len = MIN(len, NVME_ISP_LOG_MAX);
    nvme_isp_enqueue(iocb);

    return NVME_NO_COMPLETE;
}

void nvme_isp_id_ctrl_vs(NvmeCtrl *n, uint8_t *vs, size_t len)
{
    uint8_t buf[ISP_ID_CTRL_VS_LEN];

    /* once the exit notifier closed the model, the last copy stays */
    if (!n->isp || !n->isp->dev) {
        return;
    }

    isp_dev_id_ctrl_vs(n->isp->dev, buf);
    memcpy(vs, buf, MIN(len, sizeof(buf)));
}

static uint32_t nvme_isp_max_xfer(NvmeCtrl *n)
{
    uint8_t mdts = n->params.mdts;

    /* mdts = 0: no limit; large values would overflow the shift */
    if (mdts == 0 || mdts >= 20) {
        return ISP_MAX_XFER_CAP;
    }

    return MIN((uint64_t)NVME_ISP_MPSMIN << mdts, ISP_MAX_XFER_CAP);
}

static const char *nvme_isp_str(const char *s)
{
    return s && *s ? s : NULL;
}

/*
 * QEMU does not unrealize devices when it quits, so close the model here
 * to flush its metadata; with commands still in flight it is left to the
 * model's crash consistency.
 */
static void nvme_isp_exit_notify(Notifier *notifier, void *data)
{
    NvmeIsp *isp = container_of(notifier, NvmeIsp, exit_notifier);

    if (isp->dev && QTAILQ_EMPTY(&isp->inflight)) {
        isp_dev_close(isp->dev);
        isp->dev = NULL;
    }
}

/*
 * Mark the model's opcodes supported in the controller's effects tables:
 * the effects log shows them and nvme_io_cmd() lets them through, like any
 * other opcode. Vendor opcodes not marked stay Invalid Opcode.
 */
static void nvme_isp_add_effects(NvmeCtrl *n)
{
    uint32_t effects;
    int opc;

    for (opc = NVME_ISP_OPC_MIN; opc <= 0xff; opc++) {
        if (isp_dev_opcode_supported(opc, &effects)) {
            NVME_ISP_IOCS_NVM(n)[opc] = effects;
            NVME_ISP_IOCS_ZONED(n)[opc] = effects;
        }
    }
}

static const QEnumLookup nvme_isp_timing_lookup = {
    .array = (const char *const[]) {
        [NVME_ISP_TIMING_ANNOTATE] = "annotate",
        [NVME_ISP_TIMING_DELAY] = "delay",
    },
    .size = NVME_ISP_TIMING__MAX,
};

static void nvme_isp_get_timing(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    NvmeIspProperty *prop = opaque;
    int *ptr = object_field_prop_ptr(obj, prop);

    visit_type_enum(v, name, ptr, prop->info->enum_table, errp);
}

/*
 * Like qdev's enum setter, with a message that names the allowed values;
 * it also records that the property was given, which needs isp=on. There
 * is no default hook (it would run this setter): the zeroed field is
 * annotate.
 */
static void nvme_isp_set_timing(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    NvmeCtrl *n = NVME(obj);
    NvmeIspProperty *prop = opaque;
    int *ptr = object_field_prop_ptr(obj, prop);
    g_autofree char *str = NULL;
    int value;

    if (!visit_type_str(v, name, &str, errp)) {
        return;
    }

    value = qapi_enum_parse(prop->info->enum_table, str, -1, NULL);
    if (value < 0) {
        error_setg(errp, "%s must be 'annotate' or 'delay', not '%s'", name,
                   str);
        return;
    }

    *ptr = value;
    n->isp_params.timing_set = true;
}

const PropertyInfo nvme_isp_prop_timing = {
    .NVME_ISP_PROPINFO_TYPE = "NvmeIspTiming",
    .description = "annotate/delay",
    .enum_table = &nvme_isp_timing_lookup,
    .get = nvme_isp_get_timing,
    .set = nvme_isp_set_timing,
};

/* Property checks, before the controller allocates anything. */
bool nvme_isp_check_params(NvmeCtrl *n, Error **errp)
{
    NvmeIspParams *p = &n->isp_params;

    if (!p->enabled) {
        if (nvme_isp_str(p->backing) || nvme_isp_str(p->preset) ||
            nvme_isp_str(p->params) || p->timing_set ||
            nvme_isp_str(p->trace_dir) || p->ftl != ON_OFF_AUTO_AUTO) {
            error_setg(errp, "isp-backing, isp-preset, isp-params, "
                       "isp-timing, isp-trace-dir and isp-ftl need isp=on");
            return false;
        }
        return true;
    }

    if (pci_is_vf(&n->parent_obj)) {
        error_setg(errp, "isp is not supported on SR-IOV virtual functions");
        return false;
    }

    if (!nvme_isp_cs_check_params(n, errp)) {
        return false;
    }

    /* both would serve Get Log Page C0h (isp_dev.h: ISP statistics) */
    if (nvme_isp_ocp_enabled(n)) {
        error_setg(errp, "isp=on and ocp=on both claim log page C0h; "
                   "turn one of them off");
        return false;
    }

    return true;
}

/*
 * Open the device model. Called last in realize, so that nothing can fail
 * after the exit notifier is registered; on failure realize undoes the
 * rest of the controller.
 */
bool nvme_isp_realize(NvmeCtrl *n, Error **errp)
{
    NvmeIspParams *p = &n->isp_params;
    struct isp_dev_config cfg = {};
    struct isp_host_mem hm;
    char err[256] = "";
    NvmeIsp *isp;
    int ret;

    if (!p->enabled) {
        return true;
    }

    cfg.backing = nvme_isp_str(p->backing);
    cfg.preset = nvme_isp_str(p->preset);
    cfg.params = nvme_isp_str(p->params);
    cfg.trace_dir = nvme_isp_str(p->trace_dir);
    cfg.max_xfer = nvme_isp_max_xfer(n);
    cfg.timing_delay = p->timing == NVME_ISP_TIMING_DELAY;
    /* the standard interface's namespaces (isp-cs.c) */
    cfg.cs_off = !p->cs;
    cfg.slm_nsid = p->cs_slm_nsid;
    cfg.cp_nsid = p->cs_cp_nsid;
    cfg.nvm_nsid = NVME_ISP_CS_NVM_NSID;

    isp = g_new0(NvmeIsp, 1);
    isp->max_xfer = cfg.max_xfer;
    isp->delay = cfg.timing_delay;
    isp->ftl = p->ftl != ON_OFF_AUTO_OFF;
    QTAILQ_INIT(&isp->inflight);
    QTAILQ_INIT(&isp->waiting);
    QTAILQ_INIT(&isp->copying);
    QTAILQ_INIT(&isp->holds);

    ret = isp_dev_open(&cfg, &isp->dev, err, sizeof(err));
    if (ret < 0) {
        if (err[0]) {
            error_setg(errp, "isp: %s", err);
        } else {
            error_setg_errno(errp, -ret, "isp: cannot open the device model");
        }
        g_free(isp);
        return false;
    }

    /* the bounce buffers' share of the drive's host-memory bound */
    isp_dev_host_mem(isp->dev, &hm);
    isp_share_init(&isp->bounce, hm.bounce);
    isp->copy_bh = aio_bh_new(qemu_get_aio_context(), nvme_isp_copy_bh, isp);
    nvme_isp_pool_init(isp);
    isp->exit_notifier.notify = nvme_isp_exit_notify;
    qemu_add_exit_notifier(&isp->exit_notifier);
    nvme_isp_add_effects(n);
    /* Error Log Page Entries, 0's based: the model's ring (LID 01h) */
    n->id_ctrl.elpe = ISP_ERR_RING - 1;

    trace_pci_nvme_isp_open(cfg.preset ? cfg.preset : "(default)",
                            cfg.backing ? cfg.backing : "(memory)",
                            cfg.max_xfer, isp->delay);
    trace_pci_nvme_isp_ftl_open(isp->ftl);
    n->isp = isp;

    return true;
}

void nvme_isp_unrealize(NvmeCtrl *n)
{
    NvmeIsp *isp = n->isp;

    if (!isp) {
        return;
    }

    nvme_isp_drain(n);
    nvme_isp_pool_destroy(isp);
    qemu_bh_delete(isp->copy_bh);
    isp_share_destroy(&isp->bounce);
    qemu_remove_exit_notifier(&isp->exit_notifier);
    isp_dev_close(isp->dev);
    g_free(isp);
    n->isp = NULL;
}

/* ---- ordinary I/O through the FTL (docs/ftl.md) ---- */

/*
 * A completion held until the modeled time (isp-timing=delay). The request
 * stays on its SQ's out_req_list with this AIOCB as its aiocb, so SQ
 * deletion, Abort and reset cancel it like any request in flight: it is
 * then posted at once with whatever status the canceller set.
 */
struct NvmeIspHold {
    BlockAIOCB common;
    NvmeIsp *isp;
    NvmeRequest *req;
    QEMUTimer *timer;
    bool released;
    QTAILQ_ENTRY(NvmeIspHold) entry;
};

static void nvme_isp_hold_release(NvmeIspHold *h)
{
    NvmeRequest *req = h->req;

    if (h->released) {
        return;
    }
    h->released = true;
    timer_free(h->timer);
    h->timer = NULL;
    QTAILQ_REMOVE(&h->isp->holds, h, entry);
    trace_pci_nvme_isp_ftl_release(nvme_cid(req), req->status);
    req->aiocb = NULL;
    req->isp_deadline_ns = 0;
    nvme_enqueue_req_completion(nvme_cq(req), req);
    qemu_aio_unref(h);
}

static void nvme_isp_hold_timer_cb(void *opaque)
{
    nvme_isp_hold_release(opaque);
}

static void nvme_isp_hold_bh(void *opaque)
{
    nvme_isp_hold_release(opaque);
}

static void nvme_isp_hold_cancel(BlockAIOCB *acb)
{
    NvmeIspHold *h = container_of(acb, NvmeIspHold, common);

    if (h->timer) {
        timer_del(h->timer);
    }
    aio_bh_schedule_oneshot(qemu_get_aio_context(), nvme_isp_hold_bh, h);
}

static const AIOCBInfo nvme_isp_hold_info = {
    .aiocb_size = sizeof(NvmeIspHold),
    .cancel_async = nvme_isp_hold_cancel,
    NVME_ISP_AIOCB_INFO_CONTEXT
};

/* Reset and unrealize: every held completion is posted now. */
static void nvme_isp_holds_release(NvmeIsp *isp)
{
    NvmeIspHold *h;

    while ((h = QTAILQ_FIRST(&isp->holds))) {
        blk_aio_cancel(&h->common);
    }
}

/* Attach @ns to the FTL at its first I/O; false: its I/O is not timed. */
static bool nvme_isp_ftl_ns(NvmeIsp *isp, NvmeNamespace *ns, uint32_t nsid)
{
    char err[256] = "";
    int ret;

    if (isp->ftl_ns[nsid] == NVME_ISP_FTL_NS_NEW) {
        ret = isp_dev_ns_attach(isp->dev, nsid, ns->size, err, sizeof(err));
        if (ret) {
            trace_pci_nvme_err_isp_ftl_attach(nsid, ns->size, ret, err);
            warn_report("isp: namespace %u: ordinary I/O stays untimed: %s",
                        nsid, err[0] ? err : strerror(-ret));
            isp->ftl_ns[nsid] = NVME_ISP_FTL_NS_REFUSED;
        } else {
            trace_pci_nvme_isp_ftl_attach(nsid, ns->size);
            isp->ftl_ns[nsid] = NVME_ISP_FTL_NS_ON;
        }
    }

    return isp->ftl_ns[nsid] == NVME_ISP_FTL_NS_ON;
}

/* Unmap what nvme_map_dptr() mapped into the glue's own @sg (ctrl.c's
 * nvme_sg_unmap() is static). */
static void nvme_isp_sg_free(NvmeSg *sg)
{
    if (!(sg->flags & NVME_SG_ALLOC)) {
        return;
    }
    if (sg->flags & NVME_SG_DMA) {
        qemu_sglist_destroy(&sg->qsg);
    } else {
        qemu_iovec_destroy(&sg->iov);
    }
    memset(sg, 0, sizeof(*sg));
}

/*
 * Dataset Management (Attribute Deallocate set): the range list is in guest
 * memory and QEMU's nvme_dsm() reads it after this hook, so the glue reads
 * it into its own NvmeSg first. Ranges QEMU skips (empty, past the
 * namespace) are left out; the rest are deallocated in the FTL's map.
 * Returns 0 with @cpl filled, or -errno when the command stays untimed.
 */
static int nvme_isp_dsm(NvmeCtrl *n, NvmeRequest *req, NvmeNamespace *ns,
                        uint32_t nsid, uint64_t submit_ns, struct ftl_cpl *cpl)
{
    NvmeDsmCmd *dsm = (NvmeDsmCmd *)&req->cmd;
    uint32_t nr = (le32_to_cpu(dsm->nr) & 0xff) + 1, i, k = 0;
    uint64_t nsze = le64_to_cpu(ns->id_ns.nsze), slba;
    size_t len = sizeof(NvmeDsmRange) * nr;
    g_autofree NvmeDsmRange *range = g_new0(NvmeDsmRange, nr);
    g_autofree struct ftl_range *r = g_new0(struct ftl_range, nr);
    NvmeSg sg = {};
    uint16_t status;
    uint32_t nlb;

    status = nvme_map_dptr(n, &sg, len, &req->cmd);
    if (!status) {
        status = nvme_tx(n, &sg, (uint8_t *)range, len,
                         NVME_TX_DIRECTION_TO_DEVICE);
    }
    nvme_isp_sg_free(&sg);
    if (status) {
        return -EFAULT;
    }
    for (i = 0; i < nr; i++) {
        slba = le64_to_cpu(range[i].slba);
        nlb = le32_to_cpu(range[i].nlb);
        if (!nlb || slba >= nsze || nlb > nsze - slba) {
            continue;
        }
        r[k].off = slba * ns->lbasz;
        r[k].len = (uint64_t)nlb * ns->lbasz;
        k++;
    }
    if (!k) {
        return -EINVAL;
    }
    return isp_dev_dealloc(n->isp->dev, nsid, r, k, submit_ns, cpl);
}

/*
 * Book the command on the model at submission (the main loop; the FTL's
 * bookkeeping is a few microseconds). Commands the controller will refuse
 * (bad range, inactive or zoned namespace) are left alone. The completion
 * DW0/DW1 (reserved for these commands) carry the modeled time and energy
 * as for the vendor commands.
 */
void nvme_isp_io_submit(NvmeCtrl *n, NvmeRequest *req)
{
    NvmeIsp *isp = n->isp;
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint32_t nsid = le32_to_cpu(req->cmd.nsid);
    struct ftl_io io = {};
    struct ftl_cpl cpl;
    NvmeNamespace *ns;
    uint64_t slba, nlb, nsze;
    int ret;

    req->isp_deadline_ns = 0;
    if (!isp || !isp->ftl || !isp->dev || !req->sq->sqid) {
        return;
    }

    switch (req->cmd.opcode) {
    case NVME_CMD_FLUSH:
        io.opc = FTL_FLUSH;
        break;
    case NVME_CMD_READ:
        io.opc = FTL_READ;
        break;
    case NVME_CMD_WRITE:
        io.opc = FTL_WRITE;
        break;
    case NVME_CMD_WRITE_ZEROES:
        io.opc = FTL_TRIM;      /* the drive deallocates (reads as zeros) */
        break;
    case NVME_CMD_DSM:
        if (!(le32_to_cpu(((NvmeDsmCmd *)&req->cmd)->attributes) &
              NVME_DSMGMT_AD)) {
            return;             /* only deallocation costs the drive */
        }
        io.opc = FTL_TRIM;      /* its ranges: nvme_isp_dsm() */
        break;
    default:
        return;
    }

    if (io.opc == FTL_FLUSH && nsid == NVME_NSID_BROADCAST) {
        io.nsid = 0;
    } else {
        if (nsid == 0 || nsid > NVME_MAX_NAMESPACES) {
            return;
        }
        ns = nvme_ns(n, nsid);
        if (!ns || ns->status || ns->csi != NVME_CSI_NVM ||
            !nvme_isp_ftl_ns(isp, ns, nsid)) {
            return;
        }
        io.nsid = nsid;
        if (req->cmd.opcode == NVME_CMD_DSM) {
            io.submit_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
            ret = nvme_isp_dsm(n, req, ns, nsid, io.submit_ns, &cpl);
            goto booked;
        }
        if (io.opc != FTL_FLUSH) {
            slba = le64_to_cpu(rw->slba);
            nlb = (uint64_t)le16_to_cpu(rw->nlb) + 1;
            nsze = le64_to_cpu(ns->id_ns.nsze);
            if (slba >= nsze || nlb > nsze - slba) {
                return;
            }
            io.off = slba * ns->lbasz;
            io.len = nlb * ns->lbasz;
        }
    }

    io.submit_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    ret = isp_dev_io(isp->dev, &io, &cpl);
booked:
    if (ret) {
        trace_pci_nvme_err_isp_ftl_io(nvme_cid(req), req->cmd.opcode, ret);
        return;
    }
    trace_pci_nvme_isp_ftl_io(nvme_cid(req), req->cmd.opcode, io.off, io.len,
                              cpl.model_ns, cpl.flags);
    req->isp_deadline_ns = io.submit_ns + MIN(cpl.model_ns, ISP_RESULT_TIME_MAX);
    nvme_isp_set_result(req, isp_wire_result_pack(cpl.model_ns,
                                                  cpl.energy_pj / 1000));
}

bool nvme_isp_io_hold(NvmeCQueue *cq, NvmeRequest *req)
{
    NvmeIsp *isp = nvme_ctrl(req)->isp;
    int64_t deadline = req->isp_deadline_ns, now;
    NvmeIspHold *h;

    if (!deadline || !req->sq->sqid) {
        return false;
    }
    req->isp_deadline_ns = 0;
    if (!isp || !isp->delay || isp->draining) {
        return false;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (deadline <= now) {
        return false;
    }

    h = qemu_aio_get(&nvme_isp_hold_info, NULL, NULL, NULL);
    h->isp = isp;
    h->req = req;
    h->released = false;
    h->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, nvme_isp_hold_timer_cb, h);
    QTAILQ_INSERT_TAIL(&isp->holds, h, entry);
    req->aiocb = &h->common;
    trace_pci_nvme_isp_ftl_hold(nvme_cid(req), deadline - now);
    timer_mod_ns(h->timer, deadline);

    return true;
}

void nvme_isp_smart(NvmeCtrl *n, NvmeSmartLog *smart)
{
    struct isp_dev_smart s;

    if (!n->isp || !n->isp->dev || !n->isp->ftl ||
        isp_dev_smart(n->isp->dev, &s)) {
        return;
    }
    smart->available_spare = s.available_spare;
    smart->available_spare_threshold = s.spare_threshold;
    smart->percentage_used = s.percentage_used;
    if (s.available_spare < s.spare_threshold) {
        smart->critical_warning |= NVME_SMART_SPARE;
    }
}
