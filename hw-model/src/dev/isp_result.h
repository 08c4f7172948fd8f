/* SPDX-License-Identifier: MIT */
/*
 * isp_result.h - tickets and result transfer (docs/command-set.md section 6).
 *
 * Private to hw-model. A command that produces a result (search, SLS) first
 * reserves its ticket, so a duplicate is refused before any work, then
 * publishes the finished result blob. The host reads it back in chunks and
 * releases it. Memory is bounded by ticket count and total bytes.
 */
#ifndef ISP_RESULT_H
#define ISP_RESULT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "isp_share.h"

struct isp_result;

/*
 * Charges the modeled cost of transferring bytes [off, off + len) of a
 * result (e.g. REIS reads the document chunks from flash only once the host
 * asks for them, REIS 4.4.1). Called without the table lock held.
 */
typedef void (*isp_result_read_fn)(void *opaque, uint64_t off, uint64_t len,
				   void *cost);

struct isp_results {
	pthread_mutex_t lock;
	struct isp_result *head;
	uint32_t count;
	uint32_t max_tickets;
	uint64_t bytes;
	uint64_t max_bytes;
	struct isp_share tickets, byte_share;	/* per queue (isp_share.h) */
};

void isp_results_init(struct isp_results *r, uint32_t max_tickets,
		      uint64_t max_bytes);
void isp_results_destroy(struct isp_results *r);
/* Host bytes of one ticket's entry besides its blob (isp_hostmem.h fixed). */
size_t isp_results_entry_bytes(void);

/**
 * isp_results_reserve() - claim @ticket for a result of at most @max_len
 * bytes, held in @user's share (a submission queue, isp_share.h).
 * Return: 0; -EINVAL for ticket 0; -EEXIST when the ticket is in use;
 * -ENOSPC when the table or the byte budget is full; -EAGAIN when @user
 * holds its share of tickets or bytes while other queues hold results.
 */
int isp_results_reserve(struct isp_results *r, uint32_t ticket, uint64_t max_len,
			uint32_t user);

/**
 * isp_results_publish() - attach the finished @blob (malloc'd, @len bytes,
 * ownership passes to the table) to a reserved @ticket. @fn/@opaque charge
 * deferred read costs (may be NULL); @free_opaque releases @opaque.
 * Return: 0, -ENOENT if @ticket is not reserved, -ENOSPC if @len exceeds the
 * reservation (the blob is freed either way on error).
 */
int isp_results_publish(struct isp_results *r, uint32_t ticket, void *blob,
			uint64_t len, isp_result_read_fn fn, void *opaque,
			void (*free_opaque)(void *));

/** isp_results_cancel() - drop a reservation or result. */
void isp_results_cancel(struct isp_results *r, uint32_t ticket);

/**
 * isp_results_read() - copy bytes [@off, @off + @len) of @ticket's result to
 * @buf; bytes past the end are zero-filled. With @release, the result is
 * dropped after the copy.
 * Return: bytes of real result data copied (0..len); -ENOENT unknown ticket;
 * -EBUSY reserved but not yet published; -EINVAL @off past the end.
 */
int64_t isp_results_read(struct isp_results *r, uint32_t ticket, uint64_t off,
			 void *buf, uint64_t len, int release, void *cost);

#endif /* ISP_RESULT_H */
