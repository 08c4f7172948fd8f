/* SPDX-License-Identifier: MIT */
/*
 * flash_preset.c - the papers' drive presets and key=value overrides.
 *
 * Sources: REIS Table 3 and Sec. 2.3, 4.1, 4.3 (paper 000), RecFlash Table I
 * and Table III (paper 002). "Assumption" marks values no paper gives; each is
 * listed with its reasoning in docs/timing-model.md.
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
	p->blocks_per_plane = 64;		/* device option: test capacity */
	p->dram_bytes = 1024ull * MIB;		/* assumption: REIS 2.3, 1 GB per TB */
	p->cache_bytes = 128 * KIB;		/* RecFlash III-C2: 128 KB SRAM */
	p->cores = 4;				/* REIS Table 3: 4 cores */
	p->isp_cores = 1;			/* REIS 4.3.4: one core for REIS */
	p->core_mhz = 1500;			/* assumption: Cortex-R8 top clock */
	p->link_mbps = 7000;			/* assumption: PCIe 4.0 x4 drive */
	p->dram_mbps = 8000;			/* assumption: LPDDR4 x32 */

	/* RecFlash Table I (Macronix 8Gb SLC [1]). */
	p->t_alh = PS(5);			/* tALH 0.005 us */
	p->t_als = PS(10);			/* tALS 0.01 us */
	p->t_ds = PS(7);			/* tDS 0.007 us */
	p->t_wc = PS(20);			/* tWC 0.02 us */
	p->t_rr = PS(20);			/* tRR 0.02 us */
	p->addr_cycles = 5;			/* Eq. 1: 5 x tWC */

	p->t_read[ISP_CELL_SLC] = PS(25000);	/* RecFlash Table I/III: 25 us */
	p->t_read[ISP_CELL_MLC] = PS(40000);	/* assumption */
	p->t_read[ISP_CELL_TLC] = PS(60000);	/* RecFlash Table III: 60 us */
	p->t_read[ISP_CELL_QLC] = PS(140000);	/* RecFlash Table III: 140 us */
	p->t_prog[ISP_CELL_SLC] = PS(200000);	/* assumption */
	p->t_prog[ISP_CELL_MLC] = PS(500000);	/* assumption */
	p->t_prog[ISP_CELL_TLC] = PS(700000);	/* assumption */
	p->t_prog[ISP_CELL_QLC] = PS(2000000);	/* assumption */
	p->t_erase = PS(3500000);		/* assumption: 3.5 ms */
	p->t_cache_busy = PS(3000);		/* assumption: tDCBSYR 3 us */

	p->t_xor = PS(30);			/* assumption: latch-to-latch op */
	p->t_fbc = PS(20);			/* assumption: per mini-page count */
	p->t_cmp = PS(5);			/* assumption: pass/fail compare */

	p->cyc_select = 8;			/* assumption */
	p->cyc_sort = 6;			/* assumption */
	p->cyc_rerank_dim = 1;			/* assumption: SIMD MAC */
	p->cyc_sls_elem = 2;			/* assumption */
	p->ctrl_cmd = PS(1000);			/* assumption: 1 us firmware path */

	p->e_read[ISP_CELL_SLC] = PJ_UJ(7.39);	/* RecFlash Table III: 4 KB SLC */
	p->e_read[ISP_CELL_MLC] = PJ_UJ(40.0);	/* assumption */
	p->e_read[ISP_CELL_TLC] = PJ_UJ(69.06);	/* RecFlash Table III */
	p->e_read[ISP_CELL_QLC] = PJ_UJ(110.99);	/* RecFlash Table III */
	p->e_prog[ISP_CELL_SLC] = PJ_UJ(30.0);	/* assumption */
	p->e_prog[ISP_CELL_MLC] = PJ_UJ(150.0);	/* assumption */
	p->e_prog[ISP_CELL_TLC] = PJ_UJ(300.0);	/* assumption */
	p->e_prog[ISP_CELL_QLC] = PJ_UJ(500.0);	/* assumption */
	p->e_erase = PJ_UJ(200.0);		/* assumption */
	p->e_channel_byte = 32;			/* assumption: ~4 pJ/bit NAND I/O */
	p->e_xor = 10000;			/* assumption: 10 nJ per page */
	p->e_fbc = 1000;			/* assumption: 1 nJ per mini-page */
	p->e_core_cycle = 50;			/* assumption: Cortex-R8 ~50 uW/MHz */
	p->e_dram_byte = 40;			/* assumption: ~5 pJ/bit */
	p->e_link_byte = 40;			/* assumption: ~5 pJ/bit PCIe */
}

/* REIS Table 3: PM9A3-based cost-oriented SSD. */
static void fp_reis_common(struct fp_params *p)
{
	fp_defaults(p);
	p->page_bytes = 16 * KIB;		/* REIS 2.3: 16 KB page */
	p->oob_bytes = 2208;			/* REIS 4.1.3: 2208 spare bytes */
	p->pages_per_block = 384;		/* assumption: 128 WL x 3 (TLC) */
	p->native_mode = ISP_CELL_TLC;		/* REIS 4.1.2: TLC partition */
	p->slc_blocks = 16;			/* device option: ESP-SLC share */
	p->t_read[ISP_CELL_SLC] = PS_US(22.5);	/* REIS Table 3: ESP-SLC tR */
	/* assumption: 16 KB SLC page costs 4x RecFlash's 4 KB SLC read */
	p->e_read[ISP_CELL_SLC] = PJ_UJ(4 * 7.39);
}

static void fp_reis_ssd1(struct fp_params *p)
{
	fp_reis_common(p);
	snprintf(p->name, sizeof(p->name), "reis-ssd1");
	p->channels = 8;			/* REIS Table 3 */
	p->dies_per_channel = 16;		/* REIS Table 3 */
	p->planes_per_die = 2;			/* REIS Table 3 */
	p->channel_mbps = 1200;			/* REIS Table 3: 1.2 GB/s */
}

static void fp_reis_ssd2(struct fp_params *p)
{
	fp_reis_common(p);
	snprintf(p->name, sizeof(p->name), "reis-ssd2");
	p->channels = 16;			/* REIS Table 3 */
	p->dies_per_channel = 8;		/* REIS Table 3 */
	p->planes_per_die = 4;			/* REIS Table 3 */
	p->channel_mbps = 2000;			/* REIS Table 3: 2.0 GB/s */
}

static void fp_recflash_common(struct fp_params *p)
{
	fp_defaults(p);
	p->channels = 8;			/* assumption: MQSim-like 8 channels */
	p->dies_per_channel = 4;		/* assumption */
	p->planes_per_die = 2;			/* RecFlash Table III: 2 planes */
	p->channel_mbps = 50;			/* Table I: tRC 0.02 us per byte */
	p->slc_blocks = 0;
}

static void fp_recflash_slc(struct fp_params *p)
{
	fp_recflash_common(p);
	snprintf(p->name, sizeof(p->name), "recflash-slc");
	p->page_bytes = 4 * KIB;		/* RecFlash Table III */
	p->oob_bytes = 256;			/* assumption: Macronix [1] 4096+256 */
	p->pages_per_block = 64;		/* assumption: Macronix [1] */
	p->native_mode = ISP_CELL_SLC;
}

static void fp_recflash_tlc(struct fp_params *p)
{
	fp_recflash_common(p);
	snprintf(p->name, sizeof(p->name), "recflash-tlc");
	p->page_bytes = 16 * KIB;		/* RecFlash Table III */
	p->oob_bytes = 2208;			/* assumption: as REIS 4.1.3 */
	p->pages_per_block = 384;		/* assumption */
	p->native_mode = ISP_CELL_TLC;
}

static void fp_recflash_qlc(struct fp_params *p)
{
	fp_recflash_common(p);
	snprintf(p->name, sizeof(p->name), "recflash-qlc");
	p->page_bytes = 16 * KIB;		/* RecFlash Table III */
	p->oob_bytes = 2208;			/* assumption */
	p->pages_per_block = 512;		/* assumption: 128 WL x 4 */
	p->native_mode = ISP_CELL_QLC;
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

#define F32(k, u) { #k, offsetof(struct fp_params, k), 4, u }
#define F64(k, u) { #k, offsetof(struct fp_params, k), 8, u }
#define FARR(k, i, n, u) { #k "_" n, offsetof(struct fp_params, k) + (i) * 8, 8, u }

static const struct fp_field fp_fields[] = {
	F32(channels, FP_COUNT), F32(dies_per_channel, FP_COUNT),
	F32(planes_per_die, FP_COUNT), F32(blocks_per_plane, FP_COUNT),
	F32(pages_per_block, FP_COUNT), F32(page_bytes, FP_SIZE),
	F32(oob_bytes, FP_SIZE), F32(subpage_bytes, FP_SIZE),
	F32(native_mode, FP_COUNT), F32(slc_blocks, FP_COUNT),
	F64(dram_bytes, FP_SIZE), F64(cache_bytes, FP_SIZE),
	F32(cores, FP_COUNT), F32(isp_cores, FP_COUNT), F32(core_mhz, FP_COUNT),
	F32(link_mbps, FP_COUNT), F32(channel_mbps, FP_COUNT),
	F32(dram_mbps, FP_COUNT),
	F64(t_alh, FP_TIME), F64(t_als, FP_TIME), F64(t_ds, FP_TIME),
	F64(t_wc, FP_TIME), F64(t_rr, FP_TIME), F32(addr_cycles, FP_COUNT),
	FARR(t_read, 1, "slc", FP_TIME), FARR(t_read, 2, "mlc", FP_TIME),
	FARR(t_read, 3, "tlc", FP_TIME), FARR(t_read, 4, "qlc", FP_TIME),
	FARR(t_prog, 1, "slc", FP_TIME), FARR(t_prog, 2, "mlc", FP_TIME),
	FARR(t_prog, 3, "tlc", FP_TIME), FARR(t_prog, 4, "qlc", FP_TIME),
	F64(t_erase, FP_TIME), F64(t_cache_busy, FP_TIME),
	F64(t_xor, FP_TIME), F64(t_fbc, FP_TIME), F64(t_cmp, FP_TIME),
	F32(cyc_select, FP_COUNT), F32(cyc_sort, FP_COUNT),
	F32(cyc_rerank_dim, FP_COUNT), F32(cyc_sls_elem, FP_COUNT),
	F64(ctrl_cmd, FP_TIME),
	FARR(e_read, 1, "slc", FP_ENERGY), FARR(e_read, 2, "mlc", FP_ENERGY),
	FARR(e_read, 3, "tlc", FP_ENERGY), FARR(e_read, 4, "qlc", FP_ENERGY),
	FARR(e_prog, 1, "slc", FP_ENERGY), FARR(e_prog, 2, "mlc", FP_ENERGY),
	FARR(e_prog, 3, "tlc", FP_ENERGY), FARR(e_prog, 4, "qlc", FP_ENERGY),
	F64(e_erase, FP_ENERGY), F64(e_channel_byte, FP_ENERGY),
	F64(e_xor, FP_ENERGY), F64(e_fbc, FP_ENERGY),
	F64(e_core_cycle, FP_ENERGY), F64(e_dram_byte, FP_ENERGY),
	F64(e_link_byte, FP_ENERGY),
};

#define FP_NFIELDS (sizeof(fp_fields) / sizeof(fp_fields[0]))

static const char *fp_key_list[FP_NFIELDS + 1];

const char *const *fp_key_names(void)
{
	size_t i;

	/* Idempotent fill; racing writers store identical pointers. */
	for (i = 0; i < FP_NFIELDS; i++)
		fp_key_list[i] = fp_fields[i].key;
	fp_key_list[FP_NFIELDS] = NULL;
	return fp_key_list;
}

static const struct fp_field *fp_find(const char *key, size_t keylen)
{
	size_t i;

	for (i = 0; i < FP_NFIELDS; i++)
		if (strlen(fp_fields[i].key) == keylen &&
		    strncmp(fp_fields[i].key, key, keylen) == 0)
			return &fp_fields[i];
	return NULL;
}

/* Parse "123", "1.5us", "16k": scale to ps, pJ or bytes. */
static int fp_parse(const char *s, enum fp_unit unit, uint64_t *out)
{
	static const struct { const char *sfx; enum fp_unit unit; double mul; } sfx[] = {
		{ "ps", FP_TIME, 1 }, { "ns", FP_TIME, 1e3 },
		{ "us", FP_TIME, 1e6 }, { "ms", FP_TIME, 1e9 },
		{ "pj", FP_ENERGY, 1 }, { "nj", FP_ENERGY, 1e3 },
		{ "uj", FP_ENERGY, 1e6 }, { "mj", FP_ENERGY, 1e9 },
		{ "k", FP_SIZE, 1024.0 }, { "m", FP_SIZE, 1048576.0 },
		{ "g", FP_SIZE, 1073741824.0 },
	};
	char *end;
	double v;
	size_t i;

	if (*s == '\0' || *s == '-' || *s == '+')
		return -EINVAL;
	v = strtod(s, &end);
	if (end == s || v < 0)
		return -EINVAL;
	if (*end != '\0') {
		for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
			if (sfx[i].unit == unit && strcmp(end, sfx[i].sfx) == 0)
				break;
		if (i == sizeof(sfx) / sizeof(sfx[0]))
			return -EINVAL;
		v *= sfx[i].mul;
	} else if (v != (double)(uint64_t)v) {
		return -EINVAL;	/* fractions need a unit */
	}
	if (v >= 18446744073709551615.0)
		return -EINVAL;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

int fp_set(struct fp_params *p, const char *key, const char *value)
{
	const struct fp_field *f = fp_find(key, strlen(key));
	uint64_t v;
	int ret;

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
	const struct fp_field *f = fp_find(key, strlen(key));
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
	snprintf(buf, len, "%" PRIu64, v);
	return 0;
}

int fp_apply(struct fp_params *p, const char *list, char *err, size_t errlen)
{
	const char *s = list;
	char item[128];

	while (s && *s) {
		size_t n = strcspn(s, ";,");
		char *eq;
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
			snprintf(err, errlen, "parameter '%s' is not key=value", item);
			return -EINVAL;
		}
		*eq = '\0';
		ret = fp_set(p, item, eq + 1);
		if (ret == -ENOENT) {
			snprintf(err, errlen, "unknown parameter '%s'", item);
			return ret;
		}
		if (ret) {
			snprintf(err, errlen, "bad value '%s' for parameter '%s'",
				 eq + 1, item);
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

int fp_validate(const struct fp_params *p, char *err, size_t errlen)
{
	char dummy[8];
	int r = 0;
	int m;

	if (!err) {
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
	r = r ? r : fp_range(err, errlen, "cores", p->cores, 1, 64);
	r = r ? r : fp_range(err, errlen, "isp_cores", p->isp_cores, 1, p->cores);
	r = r ? r : fp_range(err, errlen, "core_mhz", p->core_mhz, 1, 10000);
	r = r ? r : fp_range(err, errlen, "link_mbps", p->link_mbps, 1, 1000000);
	r = r ? r : fp_range(err, errlen, "channel_mbps", p->channel_mbps, 1, 100000);
	r = r ? r : fp_range(err, errlen, "dram_mbps", p->dram_mbps, 1, 1000000);
	r = r ? r : fp_range(err, errlen, "addr_cycles", p->addr_cycles, 1, 16);
	for (m = ISP_CELL_SLC; m <= ISP_CELL_QLC && !r; m++)
		r = fp_range(err, errlen, "t_read", p->t_read[m], 1, PS(100000000));
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
	return r;
}

uint32_t fp_pages_per_block(const struct fp_params *p, uint32_t mode)
{
	if (mode < ISP_CELL_SLC || mode > ISP_CELL_QLC || mode > p->native_mode)
		return 0;
	return p->pages_per_block / p->native_mode * mode;
}
