/* SPDX-License-Identifier: MIT */
/*
 * isp_share.c - fair shares of one capacity (isp_share.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isp_share.h"

int isp_share_init(struct isp_share *s, uint64_t cap)
{
	if (!s || !cap)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cap = cap;
	return 0;
}

void isp_share_destroy(struct isp_share *s)
{
	if (!s)
		return;
	free(s->u);
	s->u = NULL;
	s->n = s->nalloc = 0;
}

static struct isp_share_user *isp_share_find(const struct isp_share *s, uint32_t user)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->u[i].id == user)
			return &s->u[i];
	return NULL;
}

/* @user's entry, made if it has none; NULL when the table cannot grow. */
static struct isp_share_user *isp_share_get(struct isp_share *s, uint32_t user)
{
	struct isp_share_user *e = isp_share_find(s, user);

	if (e)
		return e;
	if (s->n == s->nalloc) {
		size_t c = s->nalloc ? s->nalloc * 2 : 8;
		struct isp_share_user *nu = realloc(s->u, c * sizeof(*nu));

		if (!nu)
			return NULL;
		s->u = nu;
		s->nalloc = c;
	}
	e = &s->u[s->n++];
	memset(e, 0, sizeof(*e));
	e->id = user;
	return e;
}

/* An entry that neither holds nor waits is not active: drop it. */
static void isp_share_tidy(struct isp_share *s, struct isp_share_user *e)
{
	if (e->held || e->waiting)
		return;
	*e = s->u[--s->n];
}

uint64_t isp_share_limit(const struct isp_share *s, uint32_t user)
{
	size_t n = s->n + (isp_share_find(s, user) ? 0 : 1);

	return n <= 1 ? s->cap - s->cap / ISP_SHARE_RESERVE_DIV : s->cap / n;
}

int isp_share_fits(const struct isp_share *s, uint32_t user, uint64_t x)
{
	const struct isp_share_user *e = isp_share_find(s, user);
	uint64_t held = e ? e->held : 0;

	if (x > s->cap - s->used)
		return 0;
	return held == 0 || held + x <= isp_share_limit(s, user);
}

int isp_share_take(struct isp_share *s, uint32_t user, uint64_t x)
{
	struct isp_share_user *e;

	if (!isp_share_fits(s, user, x))
		return -EAGAIN;
	if (!x)
		return 0;
	e = isp_share_get(s, user);
	if (!e)
		return -ENOMEM;
	e->held += x;
	s->used += x;
	return 0;
}

void isp_share_give(struct isp_share *s, uint32_t user, uint64_t x)
{
	struct isp_share_user *e = isp_share_find(s, user);

	if (!x)
		return;
	if (!e || x > e->held) {
		s->errors++;
		x = e ? e->held : 0;
	}
	s->used -= x;
	if (e) {
		e->held -= x;
		isp_share_tidy(s, e);
	}
}

int isp_share_wait(struct isp_share *s, uint32_t user, int delta)
{
	struct isp_share_user *e = delta > 0 ? isp_share_get(s, user) : isp_share_find(s, user);

	if (!e)
		return delta > 0 ? -ENOMEM : 0;
	if (delta > 0) {
		e->waiting++;
	} else if (e->waiting) {
		e->waiting--;
		isp_share_tidy(s, e);
	}
	return 0;
}

size_t isp_share_active(const struct isp_share *s)
{
	return s->n;
}

uint64_t isp_share_held(const struct isp_share *s, uint32_t user)
{
	const struct isp_share_user *e = isp_share_find(s, user);

	return e ? e->held : 0;
}
