/* SPDX-License-Identifier: MIT */
/*
 * recflash_ht.c - the frequency-ordered hash table of RecFlash Algorithm 1
 * (III-C4): per key (f_k, a_k, prev, next), a threshold key tau bounding the
 * hot region, and the insertion of new keys that scans only the hot region.
 */

/*
 * Keys are dense row indices, so the "hash table" is a set of arrays indexed
 * by key (the paper's hash lookup is one array access here).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recflash_engine.h"

/*
 * Every byte of @v set to @byte, in blocks with @stop read between them
 * (NULL: never). The arrays are not calloc'd: a large calloc served from
 * recycled heap memory clears it in one memset, which for a 2M-row table
 * took 25 ms that a stop could not interrupt (test_isp_stop).
 */
static int rf_ht_fill(uint32_t *v, uint32_t n, int byte, const atomic_int *stop)
{
	uint32_t i, c;

	for (i = 0; i < n; i += c) {
		if (stop && atomic_load_explicit(stop, memory_order_relaxed))
			return -ECANCELED;
		c = n - i < RF_HT_FILL_BLOCK ? n - i : RF_HT_FILL_BLOCK;
		memset(v + i, byte, (size_t)c * sizeof(*v));
	}
	return 0;
}

int rf_ht_init(struct rf_ht *ht, uint32_t n, uint32_t hot)
{
	return rf_ht_init_stop(ht, n, hot, NULL);
}

int rf_ht_init_stop(struct rf_ht *ht, uint32_t n, uint32_t hot, const atomic_int *stop)
{
	memset(ht, 0, sizeof(*ht));
	if (!n)
		return -EINVAL;
	ht->n = n;
	ht->hot = hot;
	ht->head = ht->tail = ht->tau = ht->tau_prev = RF_NIL;
	ht->f = malloc((size_t)n * sizeof(*ht->f));
	ht->a = malloc((size_t)n * sizeof(*ht->a));
	ht->prev = malloc((size_t)n * sizeof(*ht->prev));
	ht->next = malloc((size_t)n * sizeof(*ht->next));
	ht->hotbit = calloc((size_t)n / 8 + 1, 1);
	if (!ht->f || !ht->a || !ht->prev || !ht->next || !ht->hotbit) {
		rf_ht_free(ht);
		return -ENOMEM;
	}
	if (rf_ht_fill(ht->f, n, 0, stop) || rf_ht_fill(ht->a, n, 0, stop) ||
	    rf_ht_fill(ht->prev, n, 0xff, stop) || rf_ht_fill(ht->next, n, 0xff, stop)) {
		rf_ht_free(ht);
		return -ECANCELED;
	}
	return 0;
}

void rf_ht_free(struct rf_ht *ht)
{
	if (!ht)
		return;
	free(ht->f);
	free(ht->a);
	free(ht->prev);
	free(ht->next);
	free(ht->hotbit);
	memset(ht, 0, sizeof(*ht));
}

int rf_ht_copy(struct rf_ht *dst, const struct rf_ht *src)
{
	size_t n = src->n;
	int ret = rf_ht_init(dst, src->n, src->hot);

	if (ret)
		return ret;
	memcpy(dst->f, src->f, n * sizeof(*dst->f));
	memcpy(dst->a, src->a, n * sizeof(*dst->a));
	memcpy(dst->prev, src->prev, n * sizeof(*dst->prev));
	memcpy(dst->next, src->next, n * sizeof(*dst->next));
	memcpy(dst->hotbit, src->hotbit, n / 8 + 1);
	dst->len = src->len;
	dst->head = src->head;
	dst->tail = src->tail;
	dst->tau = src->tau;
	dst->tau_prev = src->tau_prev;
	dst->hint_ok = 0;
	return 0;
}

int rf_ht_linked(const struct rf_ht *ht, uint32_t k)
{
	return ht->prev[k] != RF_NIL || ht->head == k;
}

static void rf_ht_setbit(struct rf_ht *ht, uint32_t k, int on)
{
	if (on)
		ht->hotbit[k >> 3] |= (uint8_t)(1u << (k & 7));
	else
		ht->hotbit[k >> 3] &= (uint8_t)~(1u << (k & 7));
}

static void rf_ht_unlink(struct rf_ht *ht, uint32_t k)
{
	uint32_t p = ht->prev[k], q = ht->next[k];

	if (p != RF_NIL)
		ht->next[p] = q;
	else
		ht->head = q;
	if (q != RF_NIL)
		ht->prev[q] = p;
	else
		ht->tail = p;
	ht->prev[k] = ht->next[k] = RF_NIL;
	ht->len--;
	ht->ptr_ops += 2;
}

void rf_ht_append(struct rf_ht *ht, uint32_t k, uint32_t f)
{
	ht->f[k] = f;
	ht->prev[k] = ht->tail;
	ht->next[k] = RF_NIL;
	if (ht->tail != RF_NIL)
		ht->next[ht->tail] = k;
	else
		ht->head = k;
	ht->tail = k;
	ht->len++;
	ht->ptr_ops += 2;
}

/* Link @k (not in the list) before @pos (in the list). */
static void rf_ht_link_before(struct rf_ht *ht, uint32_t k, uint32_t pos)
{
	uint32_t p = ht->prev[pos];

	ht->prev[k] = p;
	ht->next[k] = pos;
	ht->prev[pos] = k;
	if (p != RF_NIL)
		ht->next[p] = k;
	else
		ht->head = k;
	ht->len++;
	ht->ptr_ops += 3;
}

uint32_t rf_ht_threshold(struct rf_ht *ht)
{
	uint32_t k = ht->head, i;

	memset(ht->hotbit, 0, (size_t)ht->n / 8 + 1);
	ht->tau = ht->tau_prev = RF_NIL;
	ht->hint_ok = 0;
	for (i = 0; k != RF_NIL && i < ht->hot; i++) {
		rf_ht_setbit(ht, k, 1);
		ht->tau = k;
		k = ht->next[k];
	}
	if (ht->tau != RF_NIL)
		ht->tau_prev = ht->prev[ht->tau];
	return ht->tau;
}

int rf_ht_insert(struct rf_ht *ht, uint32_t k, uint32_t f, uint32_t *retired)
{
	uint32_t ptr, old, i = 0;

	if (retired)
		*retired = RF_NIL;
	if (rf_ht_is_hot(ht, k))
		return -1;
	if (rf_ht_linked(ht, k))
		rf_ht_unlink(ht, k);
	ht->f[k] = f;
	ptr = ht->head;
	if (ht->hint_ok && f <= ht->hint_f) {
		/* The keys before the hint all compare "not greater". */
		ptr = ht->hint_k;
		i = ht->hint_i;
		ht->cmps += i;
	}
	for (; ptr != RF_NIL && ht->tau != RF_NIL && ptr != ht->tau; ptr = ht->next[ptr], i++) {
		ht->cmps++;
		if (f <= ht->f[ptr])
			continue;
		rf_ht_link_before(ht, k, ptr);
		ht->hint_k = ptr;	/* head .. k all have f >= @f */
		ht->hint_i = i + 1;
		ht->hint_f = f;
		ht->hint_ok = 1;
		rf_ht_setbit(ht, k, 1);
		/* The threshold key leaves the hot region for the tail. */
		old = ht->tau;
		rf_ht_unlink(ht, old);
		rf_ht_append(ht, old, ht->f[old]);
		rf_ht_setbit(ht, old, 0);
		ht->tau = ht->tau_prev;
		ht->tau_prev = ht->tau != RF_NIL ? ht->prev[ht->tau] : RF_NIL;
		if (retired)
			*retired = old;
		return 1;
	}
	if (ptr != RF_NIL && ptr == ht->tau) {
		ht->hint_k = ptr;	/* every key before tau has f >= @f */
		ht->hint_i = i;
		ht->hint_f = f;
		ht->hint_ok = 1;
	}
	rf_ht_append(ht, k, f);
	return 0;
}

uint32_t rf_ht_order(const struct rf_ht *ht, uint32_t *out, uint32_t max)
{
	uint32_t k, i = 0;

	for (k = ht->head; k != RF_NIL; k = ht->next[k]) {
		if (out && i < max)
			out[i] = k;
		i++;
	}
	return i;
}
