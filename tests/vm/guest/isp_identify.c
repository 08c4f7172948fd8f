/* SPDX-License-Identifier: MIT */
/*
 * isp_identify - print what the drive says about itself: ISP_IDENTIFY
 * (geometry, partitions, preset, timings, capabilities) and a few
 * ISP_STATS counters. A stand-in for `reis info` in the demo.
 */
#include "nvme_pt.h"

static const char *const cap_names[] = {
	[0] = "echo", [1] = "stats", [2] = "timing-delay", [8] = "reis",
	[9] = "reis-ivf", [10] = "reis-df", [11] = "reis-pl", [12] = "reis-mpibc",
	[13] = "reis-tags", [16] = "recflash", [17] = "recflash-remap",
	[18] = "recflash-cache",
};

static const char *mode_name(uint32_t m)
{
	static const char *const n[] = { "?", "SLC", "MLC", "TLC", "QLC" };

	return m < 5 ? n[m] : "?";
}

int main(int argc, char **argv)
{
	struct isp_wire_identify *id = pt_alloc(sizeof(*id));
	struct isp_wire_stats *st = pt_alloc(sizeof(*st));
	const char *dev = argc > 1 ? argv[1] : PT_CHAR_DEV;
	struct pt_ring r;
	struct pt_cmd pc;
	unsigned i;
	int ret;

	if ((ret = pt_open(&r, dev, 4)) < 0) {
		fprintf(stderr, "%s: %s\n", dev, strerror(-ret));
		return 1;
	}
	pt_vendor(&pc, ISP_OP_IDENTIFY, id, sizeof(*id), 0);
	ret = pt_run(&r, &pc);
	if (ret) {
		fprintf(stderr, "ISP_IDENTIFY: status 0x%x (%s)\n", ret,
			ret > 0 ? isp_status_name((uint16_t)ret) : strerror(-ret));
		return 1;
	}
	printf("drive %s: %.4s command set %u.%u, preset %.32s\n", dev, id->magic,
	       id->ver_major, id->ver_minor, id->preset);
	printf("  geometry   %u channels x %u dies x %u planes, %u blocks/plane, "
	       "%u pages/block, %u B pages + %u B OOB (%u B sub-pages)\n",
	       id->channels, id->dies_per_channel, id->planes_per_die,
	       id->blocks_per_plane, id->pages_per_block, id->page_bytes,
	       id->oob_bytes, id->subpage_bytes);
	for (i = 0; i < id->nparts && i < ISP_WIRE_MAX_PARTS; i++)
		printf("  partition  %u: blocks %u..%u %s, %u pages/block\n", i,
		       id->parts[i].first_block,
		       id->parts[i].first_block + id->parts[i].nblocks - 1,
		       mode_name(id->parts[i].cell_mode), id->parts[i].pages_per_block);
	printf("  capacity   %llu MiB raw, %llu MiB free; DRAM %llu MiB (%llu used)\n",
	       (unsigned long long)(id->raw_capacity_bytes >> 20),
	       (unsigned long long)(id->free_bytes >> 20),
	       (unsigned long long)(id->dram_bytes >> 20),
	       (unsigned long long)id->dram_used);
	printf("  controller %u cores @ %u MHz, channel %u MB/s, link %u MB/s, "
	       "command overhead %u ns\n", id->cores, id->core_mhz,
	       id->channel_mbps, id->link_mbps, id->ctrl_cmd_ns);
	printf("  timing     tR SLC %u ns, TLC %u ns, QLC %u ns; tPROG TLC %u ns; "
	       "tBERS %u ns\n", id->t_read_ns[ISP_CELL_SLC],
	       id->t_read_ns[ISP_CELL_TLC], id->t_read_ns[ISP_CELL_QLC],
	       id->t_prog_ns[ISP_CELL_TLC], id->t_erase_ns);
	printf("  transfer   max %u B per command, %u tickets, %llu B results\n",
	       id->max_xfer, id->max_tickets,
	       (unsigned long long)id->max_result_bytes);
	printf("  caps       0x%llx:", (unsigned long long)id->caps);
	for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
		if ((id->caps >> i) & 1)
			printf(" %s", cap_names[i] ? cap_names[i] : "?");
	printf("\n  this command: %llu ns modeled, %llu nJ\n",
	       (unsigned long long)isp_wire_result_time_ns(pc.result),
	       (unsigned long long)isp_wire_result_energy_nj(pc.result));

	pt_vendor(&pc, ISP_OP_STATS, st, sizeof(*st), 0);
	if (pt_run(&r, &pc) == 0)
		printf("  stats      %llu device commands (%llu errors), %llu ns modeled, "
		       "%llu ns emulated, %llu pJ\n",
		       (unsigned long long)st->cmds[ISP_CLS_DEVICE],
		       (unsigned long long)st->errors[ISP_CLS_DEVICE],
		       (unsigned long long)st->model_ns,
		       (unsigned long long)st->emul_ns,
		       (unsigned long long)st->energy_pj);
	pt_close(&r);
	return 0;
}
