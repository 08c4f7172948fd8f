/* SPDX-License-Identifier: MIT */
/*
 * isp_hostmem.h - the host memory one drive (one controller) may make its
 * host spend, and what of it each budget holds (docs/security.md §3).
 *
 * One bound, host_mem (an isp-params key, 4 GiB unless set), of which
 * every budget is a share:
 *   fixed   the drive's own state, sized by the geometry and the object
 *           limits at open: block bookkeeping, region tables, the engines'
 *           object tables, the result table's entries, logs (computed);
 *   mem_cap the in-memory store's programmed pages (0 with a backing file:
 *           the pages are in the file); default: what the others leave;
 *   dram    host copies of what the modeled controller DRAM holds (the
 *           drive's dram_bytes: R-DB/R-IVF, staging, mapping tables,
 *           trackers, profiles), one host byte per modeled byte at most;
 *   buffers buf_budget, every command's working buffers (host_mem / 16);
 *   results result_bytes, results held for the host (host_mem / 16);
 *   bounce  bounce_bytes, the transport's bounce buffers (host_mem / 64,
 *           at least 2 MiB); the QEMU glue takes them from here.
 * fixed + mem_cap + dram + buffers + results + bounce <= host_mem, or the
 * drive refuses to open, naming each part. Disk, outside host_mem:
 * backing_cap (the backing file's pages, 64 GiB) and trace_cap (what
 * isp-trace-dir receives, 256 MiB).
 */
#ifndef ISP_HOSTMEM_H
#define ISP_HOSTMEM_H

#include <stdint.h>

struct isp_host_mem {
	uint64_t total;		/* host_mem: the bound */
	uint64_t fixed;
	uint64_t mem_cap;	/* RAM share: 0 with a backing file */
	uint64_t dram;
	uint64_t buffers;
	uint64_t results;
	uint64_t bounce;
	uint64_t backing_cap;	/* disk */
	uint64_t trace_cap;	/* disk */
};

#endif /* ISP_HOSTMEM_H */
