/* SPDX-License-Identifier: MIT */
/*
 * recflash_engine.h - the RecFlash engine: embedding tables in the modeled
 * flash, sparse-length sum (SLS) in the drive, access-frequency placement,
 * the controller's page-wise LRU cache and online remapping (RecFlash paper
 * 002, Sec. III; docs/recflash-engine.md; commands: docs/command-set.md
 * section 5).
 *
 * The engine plugs into isp_dev as isp_engine_recflash. This header also
 * gives what a host reference or a test needs to reproduce the drive
 * exactly: row sizes, the fp16 widening, the pooling arithmetic, and the
 * frequency-ordered hash table of Algorithm 1.
 *
 * Thread-safety: the rf_ht functions work on caller-owned structures (no
 * locking); everything else is pure.
 */
#ifndef RECFLASH_ENGINE_H
#define RECFLASH_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct isp_engine;

/* The engine's plug-in for isp_dev (isp_internal.h). */
extern const struct isp_engine isp_engine_recflash;

/**
 * rf_row_bytes() - bytes of one row: 4*dim (fp32), 2*dim (fp16), dim + 8
 * (int8 then float32 scale, float32 bias). 0 for a bad dtype or dim.
 */
uint32_t rf_row_bytes(uint32_t dtype, uint32_t dim);

/** rf_fp16_to_float() - widen IEEE binary16 @h to float32 (exact). */
float rf_fp16_to_float(uint16_t h);

/**
 * rf_pool() - the drive's pooling of one bag, for references and tests.
 * @rows: the bag's rows in index order (row_bytes each, dtype layout).
 * @w: @n per-index weights, or NULL.
 * @mean: divide by @n at the end.
 * @out: @dim floats.
 *
 * acc = 0; for each index in order: v = row element (fp16 widened, int8
 * v = scale * q rounded, + bias rounded); with weights p = w * v rounded;
 * acc = acc + p rounded; mean: acc / n. All float32, no fused multiply-add.
 */
void rf_pool(const uint8_t *const *rows, const float *w, uint32_t n, uint32_t dtype,
	     uint32_t dim, int mean, float *out);

/* ---- Algorithm 1: hash table with a doubly-linked frequency list ---- */

#define RF_NIL UINT32_MAX

/*
 * Keys are 0 .. n-1 (row indices). Each key k has (f_k, a_k, prev, next)
 * (Algorithm 1 Step 1); the list runs from head (hottest) to tail. A key may
 * be outside the list (prev = next = RF_NIL and not the head). The hot
 * region is [head, tau]: the first @hot keys (top x %).
 */
struct rf_ht {
	uint32_t n;		/* keys */
	uint32_t hot;		/* size of the hot region */
	uint32_t len;		/* keys in the list */
	uint32_t head, tail;
	uint32_t tau, tau_prev;	/* threshold key and the key before it */
	uint32_t *f;		/* access frequency f_k */
	uint32_t *a;		/* physical address a_k (a row slot) */
	uint32_t *prev, *next;
	uint8_t *hotbit;	/* bit k: k in [head, tau] */
	uint64_t cmps;		/* comparator operations (III-C6) */
	uint64_t ptr_ops;	/* pointer-updater operations (III-C6) */
	/*
	 * Emulation shortcut, not part of the model: every key before hint_k
	 * (hint_i keys from the head) has f >= hint_f, so an insert of f <=
	 * hint_f may start its scan there and count those hint_i comparisons
	 * without doing them (D_train arrives in descending f).
	 */
	uint32_t hint_k, hint_i, hint_f;
	int hint_ok;
};

/**
 * rf_ht_init() - an empty table of @n keys with a hot region of @hot keys.
 * Return: 0, -EINVAL (@n 0), -ENOMEM.
 */
int rf_ht_init(struct rf_ht *ht, uint32_t n, uint32_t hot);
/*
 * rf_ht_init() that reads @stop (NULL: never) between blocks of
 * RF_HT_FILL_BLOCK keys of its set-up. Return: also -ECANCELED (nothing
 * allocated) when @stop was set.
 */
#define RF_HT_FILL_BLOCK 65536u
int rf_ht_init_stop(struct rf_ht *ht, uint32_t n, uint32_t hot, const atomic_int *stop);

/** rf_ht_free() - release (the structure may be zeroed or freed before). */
void rf_ht_free(struct rf_ht *ht);

/** rf_ht_copy() - deep copy into uninitialized @dst. Return: 0 or -ENOMEM. */
int rf_ht_copy(struct rf_ht *dst, const struct rf_ht *src);

/** rf_ht_linked() - whether key @k is in the list. */
int rf_ht_linked(const struct rf_ht *ht, uint32_t k);

/** rf_ht_is_hot() - whether key @k is in [head, tau]. */
static inline int rf_ht_is_hot(const struct rf_ht *ht, uint32_t k)
{
	return (ht->hotbit[k >> 3] >> (k & 7)) & 1;
}

/** rf_ht_append() - link key @k (not in the list) at the tail with f = @f. */
void rf_ht_append(struct rf_ht *ht, uint32_t k, uint32_t f);

/**
 * rf_ht_threshold() - Step 2: tau = the @hot-th key from the head (the last
 * key if the list is shorter), tau_prev = prev(tau); marks the hot region.
 * Return: tau (RF_NIL for an empty list).
 */
uint32_t rf_ht_threshold(struct rf_ht *ht);

/**
 * rf_ht_insert() - Step 3 for one new key @k with frequency @f: scan from
 * the head while ptr != tau; at the first ptr with f > f_ptr insert @k
 * before ptr, move tau to the tail, tau <- tau_prev, tau_prev <-
 * prev(tau_prev). Without such a ptr, append @k at the tail. A key already
 * in the list is unlinked first; a key already in the hot region is left
 * alone (it is not new). rf_ht_threshold() must have run.
 * @retired: if not NULL, set to the key moved out of the hot region
 *           (RF_NIL if none).
 * Return: 1 inserted into the hot region, 0 appended, -1 skipped (hot).
 */
int rf_ht_insert(struct rf_ht *ht, uint32_t k, uint32_t f, uint32_t *retired);

/**
 * rf_ht_order() - up to @max keys in list order into @out.
 * Return: the number of keys in the list.
 */
uint32_t rf_ht_order(const struct rf_ht *ht, uint32_t *out, uint32_t max);

/* Step 4 fates of a key after the inserts. */
enum rf_fate {
	RF_FATE_KEEP = 0,	/* a_k <- a_k */
	RF_FATE_REASSIGN = 1,	/* in [head, tau]: hot region remapping */
	RF_FATE_DIRECT = 2,	/* new key appended at the tail: assigned directly */
};

/**
 * rf_ht_fate() - Algorithm 1 Step 4 for key @k; @in_train: whether @k is
 * in D_train.
 */
static inline enum rf_fate rf_ht_fate(const struct rf_ht *ht, uint32_t k, int in_train)
{
	if (rf_ht_is_hot(ht, k))
		return RF_FATE_REASSIGN;
	return in_train && rf_ht_linked(ht, k) ? RF_FATE_DIRECT : RF_FATE_KEEP;
}

#endif /* RECFLASH_ENGINE_H */
