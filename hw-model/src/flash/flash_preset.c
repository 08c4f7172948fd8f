/* SPDX-License-Identifier: MIT */
/*
 * flash_preset.c - the papers' drive presets (REIS Table 3, RecFlash Table I
 * and Table III) and key=value overrides.
 */

/*
 * Sources: REIS Table 3 and Sec. 2.3, 4.1, 4.3 (paper 000), RecFlash Table I
 * and Table III (paper 002). "A<n>" marks values no paper gives: assumption
 * n of docs/timing-model.md section 6, with its reasoning.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_preset.h"

#define PS(ns) ((uint64_t)(ns) * 1000u)
#define PS_US(us) ((uint64_t)((us) * 1000000.0 + 0.5))
#define PJ_UJ(uj) ((uint64_t)((uj) * 1000000.0 + 0.5))
#define KIB 1024u
#define MIB (1024u * 1024u)

/* Values common to every preset unless a preset overrides them. */
static void fp_defaults(struct fp_params *p)
{
	memset(p, 0, sizeof(*p));
	p->subpage_bytes = 4 * KIB;		/* REIS 4.1.1: 4 KB sub-page */
	p->blocks_per_plane = 256;		/* A2: device option, emulated capacity */
	p->dram_bytes = 1024ull * MIB;		/* A5: REIS 2.3 ratio, 1 GB per TB */
	p->cache_bytes = 128 * KIB;		/* RecFlash III-C2: 128 KB SRAM */
	p->cache_admit = 2;			/* RecFlash III-C2, Fig. 5d: hot pages */
	p->cores = 4;				/* REIS Table 3: 4 cores */
	p->isp_cores = 1;			/* REIS 4.3.4: one core for REIS */
	p->core_mhz = 1500;			/* A6: Cortex-R8 top clock */
	p->link_mbps = 7000;			/* A7: PCIe 4.0 x4 drive */
	p->dram_mbps = 8000;			/* A8: LPDDR4 x32 (RecFlash presets) */
	/* Host memory and disk, not the drive (docs/security.md §3): the bound,
	 * and the shares left 0 take their default part of it. */
	p->host_mem = 4096ull * MIB;		/* per drive: the bound */
	p->mem_cap = 0;				/* the rest of host_mem */
	p->buf_budget = 0;			/* host_mem / 16: 4 SLS of 64 MiB */
	p->result_bytes = 0;			/* host_mem / 16 */
	p->bounce_bytes = 0;			/* host_mem / 64 */
	p->backing_cap = 64ull * 1024 * MIB;	/* the backing file's pages */
	p->trace_cap = 256ull * MIB;		/* isp-trace-dir's files */
	p->slm_bytes = 256ull * MIB;		/* CS1: memory namespace, docs/timing-model.md */
	p->cp_max_active = ISP_CS_NPROGS;	/* CS1: every device-defined program */

	/* RecFlash Table I (Macronix 8Gb SLC [1]). */
	p->t_alh = PS(5);			/* tALH 0.005 us */
	p->t_als = PS(10);			/* tALS 0.01 us */
	p->t_ds = PS(7);			/* tDS 0.007 us */
	p->t_wc = PS(20);			/* tWC 0.02 us */
	p->t_rr = PS(20);			/* tRR 0.02 us */
	p->addr_cycles = 5;			/* Eq. 1: 5 x tWC */

	p->t_read[ISP_CELL_SLC] = PS(25000);	/* RecFlash Table I/III: 25 us */
	p->t_read[ISP_CELL_MLC] = PS(40000);	/* A9 */
	p->t_read[ISP_CELL_TLC] = PS(60000);	/* RecFlash Table III: 60 us */
	p->t_read[ISP_CELL_QLC] = PS(140000);	/* RecFlash Table III: 140 us */
	p->t_prog[ISP_CELL_SLC] = PS(200000);	/* A10 */
	p->t_prog[ISP_CELL_MLC] = PS(500000);	/* A10 */
	p->t_prog[ISP_CELL_TLC] = PS(700000);	/* A10 */
	p->t_prog[ISP_CELL_QLC] = PS(2000000);	/* A10 */
	p->t_erase = PS(3500000);		/* A10: 3.5 ms */
	p->t_cache_busy = PS(3000);		/* A11: tDCBSYR 3 us */

	p->t_xor = PS(30);			/* A12: latch-to-latch op */
	p->t_fbc = PS(20);			/* A12: per mini-page count */
	p->t_cmp = PS(5);			/* A12: pass/fail compare */

	p->cyc_select = 8;			/* A13 */
	p->cyc_sort = 6;			/* A13 */
	p->cyc_rerank_dim = 1;			/* A13: SIMD MAC */
	p->cyc_sls_elem = 2;			/* A13 */
	p->ctrl_cmd = PS(1000);			/* A14: 1 us firmware path */
	p->reis_df = 1;				/* REIS 4.3.3: DF on */
	p->reis_pl = 1;				/* REIS 4.3.4: PL on */
	p->reis_mpibc = 1;			/* REIS 4.3.4: MPIBC on */
	p->rf_base_rows = 0;			/* W1: baselines read per lookup (IV-A, II-B) */

	p->e_read[ISP_CELL_SLC] = PJ_UJ(7.39);	/* RecFlash Table III: 4 KB SLC */
	p->e_read[ISP_CELL_MLC] = PJ_UJ(40.0);	/* A15 */
	p->e_read[ISP_CELL_TLC] = PJ_UJ(69.06);	/* RecFlash Table III */
	p->e_read[ISP_CELL_QLC] = PJ_UJ(110.99);	/* RecFlash Table III */
	p->e_prog[ISP_CELL_SLC] = PJ_UJ(30.0);	/* A16 */
	p->e_prog[ISP_CELL_MLC] = PJ_UJ(150.0);	/* A16 */
	p->e_prog[ISP_CELL_TLC] = PJ_UJ(300.0);	/* A16 */
	p->e_prog[ISP_CELL_QLC] = PJ_UJ(500.0);	/* A16 */
	p->e_erase = PJ_UJ(200.0);		/* A16 */
	p->e_channel_byte = 32;			/* A17: ~4 pJ/bit NAND I/O */
	p->e_xor = 10000;			/* A12: 10 nJ per page */
	p->e_fbc = 1000;			/* A12: 1 nJ per mini-page */
	p->e_cmp = 100;				/* A12: 0.1 nJ per compare */
	p->e_core_cycle = 50;			/* A6: Cortex-R8 ~50 uW/MHz */
	p->e_dram_byte = 40;			/* A8: ~5 pJ/bit */
	p->e_link_byte = 40;			/* A7: ~5 pJ/bit PCIe */

	p->ftl_op = 70;				/* AF1: 7 % over-provisioning */
	p->ftl_gc = 0;				/* greedy victim choice */
	p->ftl_fill = 1;			/* AF2: images count as written */
	p->ftl_pe = 3000;			/* AF3: TLC rated P/E cycles */
	p->ftl_cyc_cmd = 1500;			/* AF4: as ctrl_cmd, 1 us at 1500 MHz */
	p->ftl_wbuf = 16 * MIB;			/* AF5: 16 MiB write buffer */
	p->ftl_prog_max = 0;			/* AF8: no drive-wide program budget */
}

/* REIS Table 3: PM9A3-based cost-oriented SSD. */
static void fp_reis_common(struct fp_params *p)
{
	fp_defaults(p);
	p->page_bytes = 16 * KIB;		/* REIS 2.3: 16 KB page */
	p->oob_bytes = 2208;			/* REIS 4.1.3: 2208 spare bytes */
	p->pages_per_block = 384;		/* A3: 128 WL x 3 (TLC) */
	p->native_mode = ISP_CELL_TLC;		/* REIS 4.1.2: TLC partition */
	p->slc_blocks = 16;			/* A2: device option, ESP-SLC share */
	p->t_read[ISP_CELL_SLC] = PS_US(22.5);	/* REIS Table 3: ESP-SLC tR */
	/* A15: 16 KB SLC page costs 4x RecFlash's 4 KB SLC read */
	p->e_read[ISP_CELL_SLC] = PJ_UJ(4 * 7.39);
	/* REIS Table 3: 128 dies of 512 Gb = 8.80 TB raw, and the products
	 * (PM9A3, Micron 9400 PRO) at that die count sell 7.68 TB: 14.5 % */
	p->ftl_op = 145;
}

static void fp_reis_ssd1(struct fp_params *p)
{
	fp_reis_common(p);
	snprintf(p->name, sizeof(p->name), "reis-ssd1");
	p->channels = 8;			/* REIS Table 3 */
	p->dies_per_channel = 16;		/* REIS Table 3 */
	p->planes_per_die = 2;			/* REIS Table 3 */
	p->channel_mbps = 1200;			/* REIS Table 3: 1.2 GB/s */
	p->dram_mbps = 9600;			/* A8: the channels' 9.6 GB/s (REIS 4.3.2) */
	/* AF4, calibrated: the PM9A3's 900 K random-read IOPS (heise 2020-05)
	 * with 3 firmware cores: 3 / 900 K = 3.33 us a command = 5000 cycles
	 * at 1500 MHz (bench_ftl) */
	p->ftl_cyc_cmd = 5000;
	/* AF8, calibrated: the PM9A3 U.2 7.68 TB's 3.5 GB/s sequential write
	 * (heise 2020-05) is a power limit, not the planes' (the E1.S of the
	 * same capacity and NAND writes 3.2 GB/s / 150 K IOPS at its 12 W form
	 * factor, reads alike): programs and erases at once, drive-wide, =
	 * 3.5 GB/s x (16 KiB at 1.2 GB/s + 700 us + 3.5 ms / 384 pages) /
	 * 16 KiB = 154 of the 256 planes (bench_ftl) */
	p->ftl_prog_max = 154;
}

static void fp_reis_ssd2(struct fp_params *p)
{
	fp_reis_common(p);
	snprintf(p->name, sizeof(p->name), "reis-ssd2");
	p->channels = 16;			/* REIS Table 3 */
	p->dies_per_channel = 8;		/* REIS Table 3 */
	p->planes_per_die = 4;			/* REIS Table 3 */
	p->channel_mbps = 2000;			/* REIS Table 3: 2.0 GB/s */
	p->dram_mbps = 32000;			/* A8: the channels' 32 GB/s (REIS 6.3) */
}

static void fp_recflash_common(struct fp_params *p)
{
	fp_defaults(p);
	p->channels = 8;			/* A1: MQSim-like 8 channels */
	p->dies_per_channel = 4;		/* A1 */
	p->planes_per_die = 2;			/* RecFlash Table III: 2 planes */
	p->channel_mbps = 50;			/* Table I: tRC 0.02 us per byte (SLC) */
	p->slc_blocks = 0;
}

static void fp_recflash_slc(struct fp_params *p)
{
	fp_recflash_common(p);
	snprintf(p->name, sizeof(p->name), "recflash-slc");
	p->page_bytes = 4 * KIB;		/* RecFlash Table III */
	p->oob_bytes = 256;			/* A4: Macronix [1] 4096+256 */
	p->pages_per_block = 64;		/* A3: Macronix [1] */
	p->blocks_per_plane = 2048;		/* A2: Macronix [1], 4096 blocks / 2 planes */
	p->native_mode = ISP_CELL_SLC;
}

static void fp_recflash_tlc(struct fp_params *p)
{
	fp_recflash_common(p);
	snprintf(p->name, sizeof(p->name), "recflash-tlc");
	p->page_bytes = 16 * KIB;		/* RecFlash Table III */
	p->oob_bytes = 2208;			/* A4: as REIS 4.1.3 */
	p->pages_per_block = 384;		/* A3 */
	p->native_mode = ISP_CELL_TLC;
	p->channel_mbps = 1000;			/* A23: 64-WL V-NAND [13], 1.0 Gb/s x 8 */
}

static void fp_recflash_qlc(struct fp_params *p)
{
	fp_recflash_common(p);
	snprintf(p->name, sizeof(p->name), "recflash-qlc");
	p->page_bytes = 16 * KIB;		/* RecFlash Table III */
	p->oob_bytes = 2208;			/* A4 */
	p->pages_per_block = 512;		/* A3: 128 WL x 4 */
	p->native_mode = ISP_CELL_QLC;
	p->channel_mbps = 1000;			/* A23: 64-WL V-NAND [18], 1.0 Gb/s x 8 */
}

static const struct {
	const char *name;
	void (*fill)(struct fp_params *p);
} fp_presets[] = {
	{ "reis-ssd1", fp_reis_ssd1 },
	{ "reis-ssd2", fp_reis_ssd2 },
	{ "recflash-slc", fp_recflash_slc },
	{ "recflash-tlc", fp_recflash_tlc },
	{ "recflash-qlc", fp_recflash_qlc },
};

static const char *const fp_names[] = {
	"reis-ssd1", "reis-ssd2", "recflash-slc", "recflash-tlc",
	"recflash-qlc", NULL,
};

const char *const *fp_preset_names(void)
{
	return fp_names;
}

int fp_preset(const char *name, struct fp_params *out)
{
	size_t i;

	for (i = 0; i < sizeof(fp_presets) / sizeof(fp_presets[0]); i++) {
		if (strcmp(name, fp_presets[i].name) == 0) {
			fp_presets[i].fill(out);
			return 0;
		}
	}
	return -ENOENT;
}

enum fp_unit { FP_COUNT, FP_TIME, FP_ENERGY, FP_SIZE };

struct fp_field {
	const char *key;
	size_t off;
	size_t size;
	enum fp_unit unit;
};

/*
 * Every overridable field once; expanded into the field table and the key
 * list so both stay read-only (hw-model keeps no mutable globals).
 */
#define FP_FIELDS(F32, F64, FARR)					\
	F32(channels, FP_COUNT) F32(dies_per_channel, FP_COUNT)		\
	F32(planes_per_die, FP_COUNT) F32(blocks_per_plane, FP_COUNT)	\
	F32(pages_per_block, FP_COUNT) F32(page_bytes, FP_SIZE)		\
	F32(oob_bytes, FP_SIZE) F32(subpage_bytes, FP_SIZE)		\
	F32(native_mode, FP_COUNT) F32(slc_blocks, FP_COUNT)		\
	F64(dram_bytes, FP_SIZE) F64(cache_bytes, FP_SIZE)		\
	F32(cache_admit, FP_COUNT) F32(cache_fill, FP_COUNT)		\
	F32(cores, FP_COUNT) F32(isp_cores, FP_COUNT)			\
	F32(core_mhz, FP_COUNT) F32(link_mbps, FP_COUNT)		\
	F32(channel_mbps, FP_COUNT) F32(dram_mbps, FP_COUNT)		\
	F64(slm_bytes, FP_SIZE) F32(cp_max_active, FP_COUNT)		\
	F64(mem_cap, FP_SIZE) F64(buf_budget, FP_SIZE)			\
	F64(host_mem, FP_SIZE) F64(result_bytes, FP_SIZE)		\
	F64(bounce_bytes, FP_SIZE) F64(backing_cap, FP_SIZE)		\
	F64(trace_cap, FP_SIZE)						\
	F64(t_alh, FP_TIME) F64(t_als, FP_TIME) F64(t_ds, FP_TIME)	\
	F64(t_wc, FP_TIME) F64(t_rr, FP_TIME) F32(addr_cycles, FP_COUNT) \
	FARR(t_read, 1, slc, FP_TIME) FARR(t_read, 2, mlc, FP_TIME)	\
	FARR(t_read, 3, tlc, FP_TIME) FARR(t_read, 4, qlc, FP_TIME)	\
	FARR(t_prog, 1, slc, FP_TIME) FARR(t_prog, 2, mlc, FP_TIME)	\
	FARR(t_prog, 3, tlc, FP_TIME) FARR(t_prog, 4, qlc, FP_TIME)	\
	F64(t_erase, FP_TIME) F64(t_cache_busy, FP_TIME)		\
	F64(t_xor, FP_TIME) F64(t_fbc, FP_TIME) F64(t_cmp, FP_TIME)	\
	F32(cyc_select, FP_COUNT) F32(cyc_sort, FP_COUNT)		\
	F32(cyc_rerank_dim, FP_COUNT) F32(cyc_sls_elem, FP_COUNT)	\
	F64(ctrl_cmd, FP_TIME)						\
	F32(reis_df, FP_COUNT) F32(reis_pl, FP_COUNT)			\
	F32(reis_mpibc, FP_COUNT)					\
	FARR(e_read, 1, slc, FP_ENERGY) FARR(e_read, 2, mlc, FP_ENERGY)	\
	FARR(e_read, 3, tlc, FP_ENERGY) FARR(e_read, 4, qlc, FP_ENERGY)	\
	FARR(e_prog, 1, slc, FP_ENERGY) FARR(e_prog, 2, mlc, FP_ENERGY)	\
	FARR(e_prog, 3, tlc, FP_ENERGY) FARR(e_prog, 4, qlc, FP_ENERGY)	\
	F64(e_erase, FP_ENERGY) F64(e_channel_byte, FP_ENERGY)		\
	F64(e_xor, FP_ENERGY) F64(e_fbc, FP_ENERGY) F64(e_cmp, FP_ENERGY) \
	F64(e_core_cycle, FP_ENERGY) F64(e_dram_byte, FP_ENERGY)	\
	F64(e_link_byte, FP_ENERGY) F32(ibc_fill_mbps, FP_COUNT)		\
	F32(rf_base_rows, FP_COUNT)						\
	F32(ftl_op, FP_COUNT) F32(ftl_gc, FP_COUNT) F32(ftl_fill, FP_COUNT) \
	F32(ftl_pe, FP_COUNT) F32(ftl_cyc_cmd, FP_COUNT) F64(ftl_wbuf, FP_SIZE) \
	F32(ftl_prog_max, FP_COUNT)

#define FP_F32(k, u) { #k, offsetof(struct fp_params, k), 4, u },
#define FP_F64(k, u) { #k, offsetof(struct fp_params, k), 8, u },
#define FP_FARR(k, i, n, u) { #k "_" #n, offsetof(struct fp_params, k) + (i) * 8, 8, u },

static const struct fp_field fp_fields[] = {
	FP_FIELDS(FP_F32, FP_F64, FP_FARR)
};

#define FP_K32(k, u) #k,
#define FP_K64(k, u) #k,
#define FP_KARR(k, i, n, u) #k "_" #n,

static const char *const fp_key_list[] = {
	FP_FIELDS(FP_K32, FP_K64, FP_KARR)
	NULL,
};

#define FP_NFIELDS (sizeof(fp_fields) / sizeof(fp_fields[0]))

_Static_assert(sizeof(fp_key_list) / sizeof(fp_key_list[0]) == FP_NFIELDS + 1,
	       "key list and field table disagree");

const char *const *fp_key_names(void)
{
	return fp_key_list;
}

static const struct fp_field *fp_find(const char *key)
{
	size_t i;

	for (i = 0; i < FP_NFIELDS; i++)
		if (strcmp(fp_fields[i].key, key) == 0)
			return &fp_fields[i];
	return NULL;
}

/*
 * Parse "123", "1.5us", "16k" exactly (no floating point): digits, an
 * optional fraction, an optional unit suffix allowed for @unit. The result is
 * scaled to ps, pJ or bytes and rounded to the nearest integer.
 */
static int fp_parse(const char *s, enum fp_unit unit, uint64_t *out)
{
	static const struct { const char *sfx; enum fp_unit unit; uint64_t mul; } sfx[] = {
		{ "ps", FP_TIME, 1 }, { "ns", FP_TIME, 1000 },
		{ "us", FP_TIME, 1000000 }, { "ms", FP_TIME, 1000000000 },
		{ "pj", FP_ENERGY, 1 }, { "nj", FP_ENERGY, 1000 },
		{ "uj", FP_ENERGY, 1000000 }, { "mj", FP_ENERGY, 1000000000 },
		{ "k", FP_SIZE, 1ull << 10 }, { "m", FP_SIZE, 1ull << 20 },
		{ "g", FP_SIZE, 1ull << 30 },
	};
	uint64_t ip = 0, fp = 0, fscale = 1, mul = 1, v, frac;
	int ndig = 0, nfrac = 0;
	size_t i;

	for (; *s >= '0' && *s <= '9'; s++, ndig++) {
		if (__builtin_mul_overflow(ip, 10, &ip) ||
		    __builtin_add_overflow(ip, (uint64_t)(*s - '0'), &ip))
			return -EINVAL;
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, nfrac++) {
			if (nfrac >= 12)
				return -EINVAL;	/* finer than any unit needs */
			fp = fp * 10 + (uint64_t)(*s - '0');
			fscale *= 10;
		}
		if (nfrac == 0)
			return -EINVAL;
	}
	if (ndig == 0)
		return -EINVAL;
	if (*s != '\0') {
		for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
			if (sfx[i].unit == unit && strcmp(s, sfx[i].sfx) == 0)
				break;
		if (i == sizeof(sfx) / sizeof(sfx[0]))
			return -EINVAL;
		mul = sfx[i].mul;
	} else if (nfrac) {
		return -EINVAL;	/* fractions need a unit */
	}
	if (__builtin_mul_overflow(ip, mul, &v))
		return -EINVAL;
	/* fp < fscale <= 1e12 and mul <= 2^30: the product fits in 64 bits. */
	frac = (fp * mul + fscale / 2) / fscale;
	if (__builtin_add_overflow(v, frac, &v))
		return -EINVAL;
	*out = v;
	return 0;
}

int fp_set(struct fp_params *p, const char *key, const char *value)
{
	const struct fp_field *f;
	uint64_t v;
	int ret;

	if (!p || !key || !value)
		return -EINVAL;
	f = fp_find(key);
	if (!f)
		return -ENOENT;
	ret = fp_parse(value, f->unit, &v);
	if (ret)
		return ret;
	if (f->size == 4) {
		uint32_t v32;

		if (v > UINT32_MAX)
			return -EINVAL;
		v32 = (uint32_t)v;
		memcpy((char *)p + f->off, &v32, 4);
	} else {
		memcpy((char *)p + f->off, &v, 8);
	}
	return 0;
}

int fp_get(const struct fp_params *p, const char *key, char *buf, size_t len)
{
	const struct fp_field *f = fp_find(key);
	uint64_t v = 0;

	if (!f)
		return -ENOENT;
	if (f->size == 4) {
		uint32_t v32;

		memcpy(&v32, (const char *)p + f->off, 4);
		v = v32;
	} else {
		memcpy(&v, (const char *)p + f->off, 8);
	}
	if (buf && len)
		snprintf(buf, len, "%" PRIu64, v);
	return 0;
}

/* Trim blanks at both ends of @s in place. */
static char *fp_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

int fp_apply(struct fp_params *p, const char *list, char *err, size_t errlen)
{
	const char *s = list;
	char dummy[8];
	char item[128];

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	while (s && *s) {
		size_t n = strcspn(s, ";,");
		char *eq, *key, *val;
		int ret;

		if (n == 0) {
			s++;
			continue;
		}
		if (n >= sizeof(item)) {
			snprintf(err, errlen, "parameter item too long: '%.32s...'", s);
			return -EINVAL;
		}
		memcpy(item, s, n);
		item[n] = '\0';
		s += n;
		eq = strchr(item, '=');
		if (!eq) {
			snprintf(err, errlen, "parameter '%s' is not key=value", fp_trim(item));
			return -EINVAL;
		}
		*eq = '\0';
		key = fp_trim(item);
		val = fp_trim(eq + 1);
		ret = fp_set(p, key, val);
		if (ret == -ENOENT) {
			snprintf(err, errlen, "unknown parameter '%s'", key);
			return ret;
		}
		if (ret) {
			snprintf(err, errlen, "bad value '%s' for parameter '%s' "
				 "(a non-negative number%s)", val, key,
				 fp_find(key)->unit == FP_TIME ? ", unit ps/ns/us/ms" :
				 fp_find(key)->unit == FP_ENERGY ? ", unit pj/nj/uj/mj" :
				 fp_find(key)->unit == FP_SIZE ? ", suffix k/m/g" : "");
			return ret;
		}
	}
	return fp_validate(p, err, errlen);
}

static int fp_range(char *err, size_t errlen, const char *key, uint64_t v,
		    uint64_t lo, uint64_t hi)
{
	if (v >= lo && v <= hi)
		return 0;
	snprintf(err, errlen, "%s=%" PRIu64 " out of range [%" PRIu64 ", %" PRIu64 "]",
		 key, v, lo, hi);
	return -EINVAL;
}

static int fp_pow2(char *err, size_t errlen, const char *key, uint64_t v)
{
	if (v && !(v & (v - 1)))
		return 0;
	snprintf(err, errlen, "%s=%" PRIu64 " must be a power of two", key, v);
	return -EINVAL;
}

/* Bounds that keep the timing engine's integer arithmetic far from overflow. */
#define FP_MAX_TIME PS(1000000000)	/* 1 s per elementary operation */
#define FP_MAX_ENERGY (1000000000000ull)	/* 1 J per elementary operation */
#define FP_MAX_CYC 1000000u

int fp_validate(const struct fp_params *p, char *err, size_t errlen)
{
	static const char *const mname[5] = { "", "slc", "mlc", "tlc", "qlc" };
	char dummy[8];
	char key[32];
	int r = 0;
	int m;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	r = r ? r : fp_range(err, errlen, "channels", p->channels, 1, 64);
	r = r ? r : fp_range(err, errlen, "dies_per_channel", p->dies_per_channel, 1, 64);
	r = r ? r : fp_range(err, errlen, "planes_per_die", p->planes_per_die, 1, 16);
	r = r ? r : fp_range(err, errlen, "blocks_per_plane", p->blocks_per_plane, 1, 1u << 16);
	r = r ? r : fp_range(err, errlen, "pages_per_block", p->pages_per_block, 1, 4096);
	r = r ? r : fp_range(err, errlen, "page_bytes", p->page_bytes, 512, 64 * KIB);
	r = r ? r : fp_pow2(err, errlen, "page_bytes", p->page_bytes);
	r = r ? r : fp_range(err, errlen, "oob_bytes", p->oob_bytes, 16, 8192);
	r = r ? r : fp_range(err, errlen, "subpage_bytes", p->subpage_bytes, 512, p->page_bytes);
	r = r ? r : fp_pow2(err, errlen, "subpage_bytes", p->subpage_bytes);
	r = r ? r : fp_range(err, errlen, "native_mode", p->native_mode, ISP_CELL_SLC, ISP_CELL_QLC);
	r = r ? r : fp_range(err, errlen, "slc_blocks", p->slc_blocks, 0, p->blocks_per_plane);
	r = r ? r : fp_range(err, errlen, "dram_bytes", p->dram_bytes, MIB, 1ull << 40);
	r = r ? r : fp_range(err, errlen, "cache_bytes", p->cache_bytes, 0, 1ull << 32);
	/* the shares: 0 is their default part of host_mem (isp_host_plan()) */
	r = r ? r : fp_range(err, errlen, "host_mem", p->host_mem, 16 * MIB, 1ull << 44);
	r = r || !p->mem_cap ? r : fp_range(err, errlen, "mem_cap", p->mem_cap, MIB, 1ull << 44);
	r = r || !p->buf_budget ? r :
	    fp_range(err, errlen, "buf_budget", p->buf_budget, MIB, 1ull << 40);
	r = r || !p->result_bytes ? r :
	    fp_range(err, errlen, "result_bytes", p->result_bytes, MIB, 1ull << 40);
	r = r || !p->bounce_bytes ? r :
	    fp_range(err, errlen, "bounce_bytes", p->bounce_bytes, 4 * MIB, 1ull << 40);
	r = r ? r : fp_range(err, errlen, "backing_cap", p->backing_cap, MIB, 1ull << 50);
	r = r ? r : fp_range(err, errlen, "trace_cap", p->trace_cap, 0, 1ull << 44);
	r = r ? r : fp_range(err, errlen, "cache_admit", p->cache_admit, 0, 2);
	r = r ? r : fp_range(err, errlen, "cache_fill", p->cache_fill, 0, 1);
	r = r ? r : fp_range(err, errlen, "cores", p->cores, 1, 64);
	r = r ? r : fp_range(err, errlen, "isp_cores", p->isp_cores, 1, p->cores);
	r = r ? r : fp_range(err, errlen, "core_mhz", p->core_mhz, 1, 10000);
	r = r ? r : fp_range(err, errlen, "link_mbps", p->link_mbps, 1, 1000000);
	r = r ? r : fp_range(err, errlen, "channel_mbps", p->channel_mbps, 1, 100000);
	r = r ? r : fp_range(err, errlen, "dram_mbps", p->dram_mbps, 1, 1000000);
	r = r ? r : fp_range(err, errlen, "ibc_fill_mbps", p->ibc_fill_mbps, 0, 1000000);
	r = r ? r : fp_range(err, errlen, "rf_base_rows", p->rf_base_rows, 0, 1);
	/* 64 KiB: the chunk the memory namespace is backed in (cp/cs_int.h) */
	r = r ? r : fp_range(err, errlen, "slm_bytes", p->slm_bytes, 0, 1ull << 30);
	if (!r && p->slm_bytes % (64 * KIB)) {
		snprintf(err, errlen, "slm_bytes=%llu is not a multiple of 64 KiB",
			 (unsigned long long)p->slm_bytes);
		r = -EINVAL;
	}
	r = r ? r : fp_range(err, errlen, "cp_max_active", p->cp_max_active, 1, ISP_CS_NPROGS);
	r = r ? r : fp_range(err, errlen, "addr_cycles", p->addr_cycles, 1, 16);
	r = r ? r : fp_range(err, errlen, "t_alh", p->t_alh, 0, FP_MAX_TIME);
	r = r ? r : fp_range(err, errlen, "t_als", p->t_als, 0, FP_MAX_TIME);
	r = r ? r : fp_range(err, errlen, "t_ds", p->t_ds, 0, p->t_alh + p->t_als);
	r = r ? r : fp_range(err, errlen, "t_wc", p->t_wc, 0, FP_MAX_TIME);
	r = r ? r : fp_range(err, errlen, "t_rr", p->t_rr, 0, FP_MAX_TIME);
	for (m = ISP_CELL_SLC; m <= ISP_CELL_QLC && !r; m++) {
		snprintf(key, sizeof(key), "t_read_%s", mname[m]);
		r = fp_range(err, errlen, key, p->t_read[m], 1, FP_MAX_TIME);
		snprintf(key, sizeof(key), "t_prog_%s", mname[m]);
		r = r ? r : fp_range(err, errlen, key, p->t_prog[m], 1, FP_MAX_TIME);
		snprintf(key, sizeof(key), "e_read_%s", mname[m]);
		r = r ? r : fp_range(err, errlen, key, p->e_read[m], 0, FP_MAX_ENERGY);
		snprintf(key, sizeof(key), "e_prog_%s", mname[m]);
		r = r ? r : fp_range(err, errlen, key, p->e_prog[m], 0, FP_MAX_ENERGY);
	}
	r = r ? r : fp_range(err, errlen, "t_erase", p->t_erase, 1, FP_MAX_TIME);
	r = r ? r : fp_range(err, errlen, "t_cache_busy", p->t_cache_busy, 0, FP_MAX_TIME);
	r = r ? r : fp_range(err, errlen, "t_xor", p->t_xor, 0, FP_MAX_TIME);
	r = r ? r : fp_range(err, errlen, "t_fbc", p->t_fbc, 0, FP_MAX_TIME);
	r = r ? r : fp_range(err, errlen, "t_cmp", p->t_cmp, 0, FP_MAX_TIME);
	r = r ? r : fp_range(err, errlen, "ctrl_cmd", p->ctrl_cmd, 0, FP_MAX_TIME);
	r = r ? r : fp_range(err, errlen, "cyc_select", p->cyc_select, 0, FP_MAX_CYC);
	r = r ? r : fp_range(err, errlen, "cyc_sort", p->cyc_sort, 0, FP_MAX_CYC);
	r = r ? r : fp_range(err, errlen, "cyc_rerank_dim", p->cyc_rerank_dim, 0, FP_MAX_CYC);
	r = r ? r : fp_range(err, errlen, "cyc_sls_elem", p->cyc_sls_elem, 0, FP_MAX_CYC);
	r = r ? r : fp_range(err, errlen, "reis_df", p->reis_df, 0, 1);
	r = r ? r : fp_range(err, errlen, "reis_pl", p->reis_pl, 0, 1);
	r = r ? r : fp_range(err, errlen, "reis_mpibc", p->reis_mpibc, 0, 1);
	r = r ? r : fp_range(err, errlen, "e_erase", p->e_erase, 0, FP_MAX_ENERGY);
	r = r ? r : fp_range(err, errlen, "e_channel_byte", p->e_channel_byte, 0, FP_MAX_ENERGY);
	r = r ? r : fp_range(err, errlen, "e_xor", p->e_xor, 0, FP_MAX_ENERGY);
	r = r ? r : fp_range(err, errlen, "e_fbc", p->e_fbc, 0, FP_MAX_ENERGY);
	r = r ? r : fp_range(err, errlen, "e_cmp", p->e_cmp, 0, FP_MAX_ENERGY);
	r = r ? r : fp_range(err, errlen, "e_core_cycle", p->e_core_cycle, 0, FP_MAX_ENERGY);
	r = r ? r : fp_range(err, errlen, "e_dram_byte", p->e_dram_byte, 0, FP_MAX_ENERGY);
	r = r ? r : fp_range(err, errlen, "e_link_byte", p->e_link_byte, 0, FP_MAX_ENERGY);
	r = r ? r : fp_range(err, errlen, "ftl_op", p->ftl_op, 0, 10000);
	r = r ? r : fp_range(err, errlen, "ftl_gc", p->ftl_gc, 0, 1);
	r = r ? r : fp_range(err, errlen, "ftl_fill", p->ftl_fill, 0, 1);
	r = r ? r : fp_range(err, errlen, "ftl_pe", p->ftl_pe, 1, 1000000);
	r = r ? r : fp_range(err, errlen, "ftl_cyc_cmd", p->ftl_cyc_cmd, 0, FP_MAX_CYC);
	r = r ? r : fp_range(err, errlen, "ftl_wbuf", p->ftl_wbuf, 64 * KIB, 1ull << 34);
	r = r ? r : fp_range(err, errlen, "ftl_prog_max", p->ftl_prog_max, 0, 1u << 20);
	if (!r && p->native_mode != ISP_CELL_SLC && p->pages_per_block % p->native_mode) {
		snprintf(err, errlen, "pages_per_block=%u must be a multiple of the "
			 "native mode's bits per cell (%u)", p->pages_per_block,
			 p->native_mode);
		r = -EINVAL;
	}
	if (!r && p->oob_bytes > p->page_bytes) {
		snprintf(err, errlen, "oob_bytes=%u larger than page_bytes=%u",
			 p->oob_bytes, p->page_bytes);
		r = -EINVAL;
	}
	if (!r && memchr(p->name, '\0', sizeof(p->name)) == NULL) {
		snprintf(err, errlen, "preset name not terminated");
		r = -EINVAL;
	}
	return r;
}

uint32_t fp_pages_per_block(const struct fp_params *p, uint32_t mode)
{
	if (mode < ISP_CELL_SLC || mode > ISP_CELL_QLC || mode > p->native_mode)
		return 0;
	return p->pages_per_block / p->native_mode * mode;
}

/* ---- the host-memory bound (isp_hostmem.h) ---- */

/* A size for a message: whole MiB, else KiB. */
static void fp_size_str(char *buf, size_t len, uint64_t v)
{
	if (v % MIB == 0)
		snprintf(buf, len, "%" PRIu64 "m", v / MIB);
	else
		snprintf(buf, len, "%" PRIu64 "k", (v + KIB - 1) / KIB);
}

int fp_host_plan(struct fp_params *p, int backing, uint64_t fixed, struct isp_host_mem *hm,
		 char *err, size_t errlen)
{
	char s[8][24];
	uint64_t h = p->host_mem, sum, mem;

	memset(hm, 0, sizeof(*hm));
	hm->total = h;
	hm->fixed = fixed;
	hm->dram = p->dram_bytes;
	hm->buffers = p->buf_budget ? p->buf_budget : h / 16;
	hm->results = p->result_bytes ? p->result_bytes : h / 16;
	hm->bounce = p->bounce_bytes ? p->bounce_bytes : h / 64;
	/* two of the largest commands' bounce buffers at least */
	if (hm->bounce < 2ull * ISP_MAX_XFER_CAP)
		hm->bounce = 2ull * ISP_MAX_XFER_CAP;
	hm->backing_cap = p->backing_cap;
	hm->trace_cap = p->trace_cap;
	sum = hm->fixed + hm->dram + hm->buffers + hm->results + hm->bounce;
	if (backing)
		mem = 0;	/* the pages are in the file */
	else if (p->mem_cap)
		mem = p->mem_cap;
	else
		mem = sum + MIB <= h ? h - sum : 0;
	if (!backing && mem < MIB) {
		fp_size_str(s[0], sizeof(s[0]), h);
		fp_size_str(s[1], sizeof(s[1]), sum);
		snprintf(err, errlen, "host_mem=%s leaves no room for the in-memory store "
			 "(mem_cap): the other shares take %s", s[0], s[1]);
		return -EINVAL;
	}
	if (sum + mem > h) {
		fp_size_str(s[0], sizeof(s[0]), mem);
		fp_size_str(s[1], sizeof(s[1]), hm->dram);
		fp_size_str(s[2], sizeof(s[2]), hm->buffers);
		fp_size_str(s[3], sizeof(s[3]), hm->results);
		fp_size_str(s[4], sizeof(s[4]), hm->bounce);
		fp_size_str(s[5], sizeof(s[5]), hm->fixed);
		fp_size_str(s[6], sizeof(s[6]), sum + mem);
		fp_size_str(s[7], sizeof(s[7]), h);
		snprintf(err, errlen, "mem_cap %s + dram_bytes %s + buf_budget %s + result_bytes %s "
			 "+ bounce_bytes %s + the drive's own %s = %s, more than host_mem=%s: "
			 "raise host_mem or lower a share", s[0], s[1], s[2], s[3], s[4], s[5],
			 s[6], s[7]);
		return -EINVAL;
	}
	hm->mem_cap = mem;
	/* with a backing file mem_cap bounds no pages; the rest stays unused */
	p->mem_cap = backing ? (p->mem_cap ? p->mem_cap : MIB) : mem;
	p->buf_budget = hm->buffers;
	p->result_bytes = hm->results;
	p->bounce_bytes = hm->bounce;
	return 0;
}
