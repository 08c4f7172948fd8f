/* SPDX-License-Identifier: MIT */
/*
 * isp_share.h - one capacity shared fairly by users (docs/security.md,
 * "Fair shares"): the drive's command-buffer budget and result table, and
 * the QEMU glue's ISP workers and bounce buffers. A user is a submission
 * queue (isp_cmd.sqid): what the drive can tell apart.
 *
 * The policy, for a capacity C:
 *  - a user is active while it holds part of C or waits for some;
 *  - with no other user active, a user may hold up to C - C/4: a quarter
 *    stays free, so a newcomer always finds room at once;
 *  - with n users active (the asker counted), a user holding C/n or more
 *    gets no more while the others are active: what comes back goes to
 *    the users under their share;
 *  - a user holding nothing may always take what is free, so every user
 *    can run one command, however large.
 * No locking: the owner of the capacity holds its own lock.
 */
#ifndef ISP_SHARE_H
#define ISP_SHARE_H

#include <stddef.h>
#include <stdint.h>

/* The part of C a lone user leaves free: C / ISP_SHARE_RESERVE_DIV. */
#define ISP_SHARE_RESERVE_DIV 4

struct isp_share_user {
	uint32_t id;
	uint32_t waiting;	/* commands of this user waiting for C */
	uint64_t held;
};

struct isp_share {
	uint64_t cap, used;
	struct isp_share_user *u;	/* active users, unordered */
	size_t n, nalloc;
	uint64_t errors;		/* gives of more than held: a caller's bug */
};

/* Return: 0, -EINVAL for @cap 0. */
int isp_share_init(struct isp_share *s, uint64_t cap);
void isp_share_destroy(struct isp_share *s);

/* What @user may hold while it holds something (the policy above). */
uint64_t isp_share_limit(const struct isp_share *s, uint32_t user);

/* Whether @user may take @x more now: 1 yes, 0 no. */
int isp_share_fits(const struct isp_share *s, uint32_t user, uint64_t x);

/*
 * isp_share_take() - take @x for @user if isp_share_fits().
 * Return: 0; -EAGAIN when it does not fit now; -ENOMEM when the user table
 * cannot grow (nothing taken).
 */
int isp_share_take(struct isp_share *s, uint32_t user, uint64_t x);

/* Give back @x that @user took; more than it holds counts in errors. */
void isp_share_give(struct isp_share *s, uint32_t user, uint64_t x);

/*
 * isp_share_wait() - @user starts (@delta 1) or stops (-1) waiting: a
 * waiting user is active, so the others' limits shrink while it waits.
 * Return: 0; -ENOMEM when the user table cannot grow (the wait then does
 * not count, which only makes the policy less fair, never unsafe).
 */
int isp_share_wait(struct isp_share *s, uint32_t user, int delta);

/* Users active now. */
size_t isp_share_active(const struct isp_share *s);

/* What @user holds now. */
uint64_t isp_share_held(const struct isp_share *s, uint32_t user);

#endif /* ISP_SHARE_H */
