/* SPDX-License-Identifier: MIT */
/*
 * isp_result.c - ticket table for results awaiting transfer to the host
 * (REIS §4.4.1; docs/command-set.md section 6).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isp_result.h"

struct isp_result {
	struct isp_result *next;
	uint32_t ticket;
	int published;
	int released;		/* unlinked; freed when refs drops to 0 */
	uint32_t refs;
	uint32_t user;		/* whose share holds it (isp_share.h) */
	uint64_t reserved;	/* bytes charged to the budget */
	uint8_t *blob;
	uint64_t len;
	isp_result_read_fn fn;
	void *opaque;
	void (*free_opaque)(void *);
};

void isp_results_init(struct isp_results *r, uint32_t max_tickets,
		      uint64_t max_bytes)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	r->max_tickets = max_tickets;
	r->max_bytes = max_bytes;
	isp_share_init(&r->tickets, max_tickets);
	isp_share_init(&r->byte_share, max_bytes);
}

size_t isp_results_entry_bytes(void)
{
	/* the entry, and a share-table slot of each of the two shares */
	return sizeof(struct isp_result) + 2 * sizeof(struct isp_share_user);
}

static void isp_result_free(struct isp_result *e)
{
	if (e->free_opaque)
		e->free_opaque(e->opaque);
	free(e->blob);
	free(e);
}

void isp_results_destroy(struct isp_results *r)
{
	struct isp_result *e = r->head, *n;

	for (; e; e = n) {
		n = e->next;
		isp_result_free(e);
	}
	r->head = NULL;
	isp_share_destroy(&r->tickets);
	isp_share_destroy(&r->byte_share);
	pthread_mutex_destroy(&r->lock);
}

static struct isp_result **isp_results_find(struct isp_results *r, uint32_t ticket)
{
	struct isp_result **pp;

	for (pp = &r->head; *pp; pp = &(*pp)->next)
		if ((*pp)->ticket == ticket)
			return pp;
	return NULL;
}

/* Unlink under the lock; the caller frees it if nobody holds a reference. */
static struct isp_result *isp_results_unlink(struct isp_results *r,
					     struct isp_result **pp)
{
	struct isp_result *e = *pp;

	*pp = e->next;
	r->count--;
	r->bytes -= e->reserved;
	isp_share_give(&r->tickets, e->user, 1);
	isp_share_give(&r->byte_share, e->user, e->reserved);
	e->released = 1;
	return e->refs ? NULL : e;
}

int isp_results_reserve(struct isp_results *r, uint32_t ticket, uint64_t max_len,
			uint32_t user)
{
	struct isp_result *e;
	int ret = 0;

	if (!ticket)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	pthread_mutex_lock(&r->lock);
	if (isp_results_find(r, ticket))
		ret = -EEXIST;
	else if (r->count >= r->max_tickets || max_len > r->max_bytes - r->bytes)
		ret = -ENOSPC;
	else if (!isp_share_fits(&r->tickets, user, 1) ||
		 !isp_share_fits(&r->byte_share, user, max_len))
		ret = -EAGAIN;	/* over the queue's share while others hold results */
	if (!ret && isp_share_take(&r->tickets, user, 1))
		ret = -ENOMEM;
	if (!ret && isp_share_take(&r->byte_share, user, max_len)) {
		isp_share_give(&r->tickets, user, 1);
		ret = -ENOMEM;
	}
	if (!ret) {
		e->ticket = ticket;
		e->user = user;
		e->reserved = max_len;
		e->next = r->head;
		r->head = e;
		r->count++;
		r->bytes += max_len;
	}
	pthread_mutex_unlock(&r->lock);
	if (ret)
		free(e);
	return ret;
}

int isp_results_publish(struct isp_results *r, uint32_t ticket, void *blob,
			uint64_t len, isp_result_read_fn fn, void *opaque,
			void (*free_opaque)(void *))
{
	struct isp_result **pp, *e;
	int ret = 0;

	pthread_mutex_lock(&r->lock);
	pp = isp_results_find(r, ticket);
	if (!pp || (*pp)->published) {
		ret = -ENOENT;
	} else if (len > (*pp)->reserved) {
		ret = -ENOSPC;
	} else {
		e = *pp;
		e->blob = blob;
		e->len = len;
		e->fn = fn;
		e->opaque = opaque;
		e->free_opaque = free_opaque;
		e->published = 1;
		/* Give back what the reservation over-estimated. */
		r->bytes -= e->reserved - len;
		isp_share_give(&r->byte_share, e->user, e->reserved - len);
		e->reserved = len;
	}
	pthread_mutex_unlock(&r->lock);
	if (ret) {
		free(blob);
		if (free_opaque)
			free_opaque(opaque);
	}
	return ret;
}

void isp_results_cancel(struct isp_results *r, uint32_t ticket)
{
	struct isp_result **pp, *dead = NULL;

	pthread_mutex_lock(&r->lock);
	pp = isp_results_find(r, ticket);
	if (pp)
		dead = isp_results_unlink(r, pp);
	pthread_mutex_unlock(&r->lock);
	if (dead)
		isp_result_free(dead);
}

int64_t isp_results_read(struct isp_results *r, uint32_t ticket, uint64_t off,
			 void *buf, uint64_t len, int release, void *cost)
{
	struct isp_result **pp, *e, *dead = NULL;
	uint64_t n = 0;

	pthread_mutex_lock(&r->lock);
	pp = isp_results_find(r, ticket);
	if (!pp) {
		pthread_mutex_unlock(&r->lock);
		return -ENOENT;
	}
	e = *pp;
	if (!e->published) {
		pthread_mutex_unlock(&r->lock);
		return -EBUSY;
	}
	if (off > e->len || (off == e->len && e->len)) {
		pthread_mutex_unlock(&r->lock);
		return -EINVAL;
	}
	n = e->len - off < len ? e->len - off : len;
	memcpy(buf, e->blob + off, n);
	memset((uint8_t *)buf + n, 0, len - n);
	e->refs++;
	if (release)
		dead = isp_results_unlink(r, pp);	/* NULL: we hold a ref */
	pthread_mutex_unlock(&r->lock);

	if (e->fn && n && cost)
		e->fn(e->opaque, off, n, cost);

	pthread_mutex_lock(&r->lock);
	e->refs--;
	if (e->released && !e->refs)
		dead = e;
	pthread_mutex_unlock(&r->lock);
	if (dead)
		isp_result_free(dead);
	return (int64_t)n;
}
